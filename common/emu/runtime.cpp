// runtime.cpp — the CPU emulator's runtime: device memory, launches, fibers, and the checks.
//
// Kernel code compiled by tools/emucc calls __sanitizer_cov_load{1,2,4,8,16} / __sanitizer_cov_store{...} before
// every load and store it makes (clang's SanitizerCoverage, applied before optimisation so that every access in
// the source is seen once). This file is compiled WITHOUT that instrumentation. It classifies each address:
//   - inside the device arena (all cudaMalloc memory lives in one reserved range): global memory — counted, bounds
//     checked against the live allocations;
//   - inside the program's TLS block while a kernel runs (__shared__ is `static thread_local`): shared memory —
//     counted, and tracked per byte for races and uninitialised reads;
//   - anything else (a thread's own stack, host memory): not counted.
// Each block runs on one worker thread; its threads are fibers switched at __syncthreads(): Boost.Context's
// fcontext, or glibc's ucontext where Boost is missing (CUDAEMU_UCONTEXT; slower: each switch is a system call).
#include "include/cuda_runtime.h"
#include "include/cudaemu.h"

#if defined(CUDAEMU_UCONTEXT)
#include <ucontext.h>
#else
#include <boost/context/detail/fcontext.hpp>
#endif
#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#if !defined(CUDAEMU_UCONTEXT)
using boost::context::detail::fcontext_t;
using boost::context::detail::jump_fcontext;
using boost::context::detail::make_fcontext;
using boost::context::detail::transfer_t;
#endif

namespace cudaemu {
namespace {

// ===============================================================================================================
// Configuration (environment)
// ===============================================================================================================
struct Config {
  unsigned workers = 1;
  double timeout_s = 300;
  std::string stats_path;
  bool quiet = false;
  size_t stack_bytes = 128 * 1024;
};

const Config& config() {
  static const Config c = [] {
    Config c;
    unsigned hw = std::thread::hardware_concurrency();
    c.workers = hw ? hw : 1;
    if (const char* s = getenv("CUDAEMU_THREADS"); s && atoi(s) > 0) c.workers = static_cast<unsigned>(atoi(s));
    if (const char* s = getenv("CUDAEMU_TIMEOUT"); s && atof(s) > 0) c.timeout_s = atof(s);
    if (const char* s = getenv("CUDAEMU_STATS"); s && *s) c.stats_path = s;
    if (const char* s = getenv("CUDAEMU_QUIET"); s && *s && strcmp(s, "0") != 0) c.quiet = true;
    if (const char* s = getenv("CUDAEMU_STACK_KB"); s && atoi(s) >= 16) c.stack_bytes = size_t(atoi(s)) * 1024;
    return c;
  }();
  return c;
}

// ===============================================================================================================
// Error state, as in a CUDA context: launch errors are "last errors" (cleared by cudaGetLastError); errors inside
// a kernel are sticky — every later call returns them until cudaDeviceReset().
// ===============================================================================================================
std::mutex g_api_mutex;
cudaError_t g_last_error = cudaSuccess;
cudaError_t g_sticky_error = cudaSuccess;
cudaError_t g_pending_error = cudaSuccess;  // from the last launch, returned by the next synchronising call

cudaError_t record(cudaError_t e) {
  if (e != cudaSuccess && g_last_error == cudaSuccess) g_last_error = e;
  return e;
}

cudaError_t record_locked(cudaError_t e) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  return record(e);
}

// A synchronising call (cudaDeviceSynchronize, cudaMemcpy, ...) first reports what a kernel did.
cudaError_t sync_status() {
  if (g_pending_error != cudaSuccess) {
    g_sticky_error = g_pending_error;
    g_pending_error = cudaSuccess;
  }
  return g_sticky_error;
}

// ===============================================================================================================
// Device memory: one reserved range, allocations on 1 MiB slots with a guard gap after each, never reused,
// so that an access just past an allocation or after cudaFree is always recognisable.
// ===============================================================================================================
constexpr unsigned kSlotShift = 20;
constexpr uintptr_t kSlotBytes = uintptr_t(1) << kSlotShift;

struct Allocation {
  int id = 0;
  uintptr_t base = 0;
  size_t bytes = 0;
  size_t words = 0;  // 4-byte words covered
  bool live = true;
  std::string name, file;
  int line = 0;
  // Per 4-byte word. Each worker counts in its own arrays (allocated when it first touches the allocation), so
  // that workers never contend for a cache line; element_counts() adds them up.
  std::vector<uint32_t*> reads, writes;  // [worker][word]
  uint32_t* writer = nullptr;            // [word]: linear block index + 1 of the last store, 0 = none
  ~Allocation() {
    for (uint32_t* p : reads) free(p);
    for (uint32_t* p : writes) free(p);
    free(writer);
  }
};

uintptr_t g_arena_base = 0;
uintptr_t g_arena_size = 0;  // 0 until the first cudaMalloc, so the fast path rejects everything
uintptr_t g_arena_next = 0;
std::vector<int32_t> g_slot_owner;                     // slot -> allocation id, -1 = never used
std::vector<std::unique_ptr<Allocation>> g_allocations;  // by id; never shrinks

bool reserve_arena() {
  if (g_arena_size) return true;
  for (int shift = 40; shift >= 34; --shift) {  // 1 TiB down to 16 GiB of address space, nothing committed
    size_t size = size_t(1) << shift;
    void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) continue;
    uintptr_t base = (reinterpret_cast<uintptr_t>(p) + kSlotBytes - 1) & ~(kSlotBytes - 1);
    g_arena_base = base;
    g_arena_next = base;
    g_slot_owner.assign((size - (base - reinterpret_cast<uintptr_t>(p))) >> kSlotShift, -1);
    g_arena_size = g_slot_owner.size() << kSlotShift;
    return true;
  }
  return false;
}

inline Allocation* allocation_at(uintptr_t a) {
  int32_t id = g_slot_owner[(a - g_arena_base) >> kSlotShift];
  return id < 0 ? nullptr : g_allocations[id].get();
}

Allocation* live_allocation_containing(const void* p, size_t bytes) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (a - g_arena_base >= g_arena_size) return nullptr;
  Allocation* al = allocation_at(a);
  if (!al || !al->live || a < al->base || a + bytes > al->base + al->bytes) return nullptr;
  return al;
}

// Gives the pages back and makes any later access fault; the addresses stay reserved, never reused.
void release(Allocation& al) {
  al.live = false;
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t len = (al.bytes + page - 1) / page * page;
  madvise(reinterpret_cast<void*>(al.base), len, MADV_DONTNEED);
  mprotect(reinterpret_cast<void*>(al.base), len, PROT_NONE);
}

bool in_arena(const void* p) { return reinterpret_cast<uintptr_t>(p) - g_arena_base < g_arena_size; }

std::string clean_variable_name(const char* expr) {
  // "&d_A", "(void**)&d_A", "reinterpret_cast<void**>(&d_A)" -> "d_A"
  std::string s = expr ? expr : "";
  size_t amp = s.rfind('&');
  if (amp != std::string::npos) s = s.substr(amp + 1);
  std::string out;
  for (char c : s)
    if (isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '[' || c == ']' || c == '>' ||
        c == '-')
      out += c;
  return out.empty() ? std::string(expr ? expr : "?") : out;
}

// ===============================================================================================================
// Source locations: return addresses -> file:line through addr2line, cached.
// ===============================================================================================================
struct SourceLocation {
  std::string file;
  int line = 0;
  std::string text() const { return line ? file + ":" + std::to_string(line) : (file.empty() ? "?" : file); }
};

std::mutex g_symbol_mutex;
std::map<uintptr_t, SourceLocation> g_symbols;

std::string cwd_prefix() {
  char buf[4096];
  if (!getcwd(buf, sizeof buf)) return "";
  return std::string(buf) + "/";
}

std::string self_exe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("/proc/self/exe");
}

void symbolize(std::vector<uintptr_t> pcs) {
  std::lock_guard<std::mutex> lock(g_symbol_mutex);
  std::map<std::string, std::vector<std::pair<uintptr_t, uintptr_t>>> by_module;  // module -> (pc, offset)
  for (uintptr_t pc : pcs) {
    if (!pc || g_symbols.count(pc)) continue;
    g_symbols[pc] = SourceLocation{};
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(pc), &info) || !info.dli_fname) continue;
    std::string module = info.dli_fname;
    Dl_info main_info{};
    if (dladdr(reinterpret_cast<void*>(&symbolize), &main_info) && main_info.dli_fbase == info.dli_fbase)
      module = self_exe();
    // A return address points after the call; the access belongs to the instruction before it.
    by_module[module].push_back({pc, pc - 1 - reinterpret_cast<uintptr_t>(info.dli_fbase)});
  }
  const std::string prefix = cwd_prefix();
  for (auto& [module, list] : by_module) {
    std::string cmd = "addr2line -e '" + module + "'";
    for (auto& [pc, off] : list) {
      char hex[32];
      snprintf(hex, sizeof hex, " 0x%lx", static_cast<unsigned long>(off));
      cmd += hex;
    }
    cmd += " 2>/dev/null";
    FILE* f = popen(cmd.c_str(), "r");
    if (!f) continue;
    char line[4096];
    for (auto& [pc, off] : list) {
      if (!fgets(line, sizeof line, f)) break;
      std::string s(line);
      while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
      size_t disc = s.find(" (discriminator");
      if (disc != std::string::npos) s.resize(disc);
      size_t colon = s.rfind(':');
      SourceLocation loc;
      if (colon != std::string::npos) {
        loc.file = s.substr(0, colon);
        loc.line = atoi(s.c_str() + colon + 1);
      }
      if (loc.file == "??") loc.file.clear();
      if (!prefix.empty() && loc.file.compare(0, prefix.size(), prefix) == 0) loc.file = loc.file.substr(prefix.size());
      if (loc.file.compare(0, 2, "./") == 0) loc.file = loc.file.substr(2);
      g_symbols[pc] = loc;
    }
    pclose(f);
  }
}

SourceLocation location_of(uintptr_t pc) {
  symbolize({pc});
  std::lock_guard<std::mutex> lock(g_symbol_mutex);
  return g_symbols[pc];
}

// ---------------------------------------------------------------------------------------------------------------
// Names of __shared__ variables: they are TLS symbols of the executable; st_value is the offset in its TLS block.
// ---------------------------------------------------------------------------------------------------------------
struct TlsSymbol {
  uint64_t offset, size;
  std::string name;
};

const std::vector<TlsSymbol>& tls_symbols() {
  static const std::vector<TlsSymbol> symbols = [] {
    std::vector<TlsSymbol> out;
    std::ifstream in("/proc/self/exe", std::ios::binary);
    std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (data.size() < sizeof(Elf64_Ehdr)) return out;
    auto* eh = reinterpret_cast<const Elf64_Ehdr*>(data.data());
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) return out;
    if (eh->e_shoff + size_t(eh->e_shnum) * sizeof(Elf64_Shdr) > data.size()) return out;
    auto* sh = reinterpret_cast<const Elf64_Shdr*>(data.data() + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; ++i) {
      if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
      const Elf64_Shdr& strtab = sh[sh[i].sh_link];
      if (sh[i].sh_offset + sh[i].sh_size > data.size() || strtab.sh_offset + strtab.sh_size > data.size()) continue;
      auto* sym = reinterpret_cast<const Elf64_Sym*>(data.data() + sh[i].sh_offset);
      size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
      for (size_t j = 0; j < n; ++j) {
        if (ELF64_ST_TYPE(sym[j].st_info) != STT_TLS || sym[j].st_name >= strtab.sh_size) continue;
        std::string name = data.data() + strtab.sh_offset + sym[j].st_name;
        int status = 0;
        char* dem = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
        if (dem) {
          name = dem;
          free(dem);
        }
        size_t colons = name.rfind("::");
        if (colons != std::string::npos) name = name.substr(colons + 2);
        out.push_back({sym[j].st_value, sym[j].st_size, name});
      }
    }
    return out;
  }();
  return symbols;
}

std::string shared_variable_at(uint64_t offset) {
  for (const TlsSymbol& s : tls_symbols())
    if (offset >= s.offset && offset < s.offset + std::max<uint64_t>(s.size, 1))
      return "'" + s.name + "' (byte " + std::to_string(offset - s.offset) + ")";
  return "shared byte " + std::to_string(offset);
}

// ===============================================================================================================
// Workers, fibers and blocks
// ===============================================================================================================
enum class FiberState : uint8_t { kRunning, kAtBarrier, kDone, kAborted };

// A suspended fiber, or the scheduler while a fiber runs.
#if defined(CUDAEMU_UCONTEXT)
struct FiberContext { ucontext_t uc; };
#else
struct FiberContext { fcontext_t ctx = nullptr; };
#endif

struct Fiber {
  FiberContext ctx{};
  uint3 idx{};
  uint32_t linear = 0;
  FiberState state = FiberState::kDone;
  uintptr_t barrier_pc = 0;
  uint64_t load_bytes = 0, store_bytes = 0;
};

// Shadow state of one word (or, once a narrower access touched it, one byte) of shared memory. Epochs number the barrier intervals of a worker; a new block starts
// a new epoch, so a byte whose last write is older than the block's first epoch was never written by this block.
struct ShadowByte {
  uint32_t write_epoch = 0, read_epoch = 0;
  uint16_t write_tid = 0, read_tid = 0;
  uintptr_t write_pc = 0, read_pc = 0;
};
constexpr uint16_t kManyReaders = 0xFFFF;

enum class DiagKind { kOutOfBounds, kHostAccess, kRace, kBarrier, kUninitialized, kTimeout, kMisaligned, kUnsupported };

const char* kind_name(DiagKind k) {
  switch (k) {
    case DiagKind::kOutOfBounds: return "out-of-bounds";
    case DiagKind::kHostAccess: return "host-access";
    case DiagKind::kRace: return "race";
    case DiagKind::kBarrier: return "barrier";
    case DiagKind::kUninitialized: return "uninitialized";
    case DiagKind::kTimeout: return "timeout";
    case DiagKind::kMisaligned: return "misaligned";
    case DiagKind::kUnsupported: return "unsupported";
  }
  return "?";
}

// A diagnostic as found: addresses are symbolized once the launch is over. `text` holds %1 and %2 where the
// source locations of pc1 and pc2 go.
struct RawDiag {
  DiagKind kind;
  uint64_t block = 0;
  uint32_t thread = 0;
  uintptr_t pc1 = 0, pc2 = 0;
  std::string text;
  uint64_t count = 1;
};

struct Launch {
  LaunchSite site;
  dim3 grid, block;
  uint32_t threads_per_block = 0;
  uint64_t total_blocks = 0;
  ThreadEntry entry = nullptr;
  void* closure = nullptr;
  std::atomic<uint64_t> next_block{0};
  std::atomic<uint64_t> stop_after{UINT64_MAX};  // blocks after the first block with a fatal error are not started
  std::chrono::steady_clock::time_point start;
};

std::atomic<bool> g_abort_kernel{false};  // set by the watchdog

struct Worker {
  unsigned index = 0;
  Launch* launch = nullptr;
  // the block being run
  uint3 block_idx{};
  uint64_t block_linear = 0;
  Fiber* current = nullptr;
  FiberContext scheduler{};
  std::vector<Fiber> fibers;
  char* stacks = nullptr;
  size_t stack_stride = 0;
  bool block_fatal = false;
  cudaError_t block_error = cudaSuccess;
  // shared memory = this thread's instance of the executable's TLS block
  uintptr_t shared_lo = 0, shared_size = 0;
  std::vector<ShadowByte> shadow_words;   // one per 4-byte word
  std::vector<uint8_t> split;             // per word: 1 once tracked per byte (after a 1- or 2-byte access)
  std::vector<ShadowByte> shadow_bytes;   // per byte, used for split words
  uint32_t epoch = 0, block_first_epoch = 0;
  // Reads of bytes no thread had written yet. Judged when the barrier interval ends: if another thread wrote the
  // byte in the same interval, the read was one side of a race (reported as such) and whether it came first
  // depended only on the order the fibers ran in; otherwise it is an uninitialised read.
  struct PendingRead {
    size_t offset;
    uint32_t epoch;
    uint16_t tid;
    uintptr_t pc;
  };
  std::vector<PendingRead> pending_reads;
  // per launch
  uint64_t global_load = 0, global_store = 0, shared_load = 0, shared_store = 0;
  uint64_t max_thread_load = 0, max_thread_store = 0;
  std::vector<uint64_t> alloc_load, alloc_store;
  std::map<std::tuple<int, uintptr_t, uintptr_t>, RawDiag> diags;
  uint64_t first_fatal_block = UINT64_MAX;
  cudaError_t fatal_error = cudaSuccess;
};

thread_local Worker* tls_worker = nullptr;

int find_tls_block(dl_phdr_info* info, size_t, void* out) {
  auto* range = static_cast<std::pair<uintptr_t, uintptr_t>*>(out);
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_TLS)
      *range = {reinterpret_cast<uintptr_t>(info->dlpi_tls_data), info->dlpi_phdr[i].p_memsz};
  return 1;  // the first module is the executable
}

void init_worker(Worker& w) {
  std::pair<uintptr_t, uintptr_t> range{0, 0};
  dl_iterate_phdr(find_tls_block, &range);
  w.shared_lo = range.first;
  w.shared_size = range.first ? range.second : 0;
  w.shadow_words.assign(w.shared_size / 4 + 1, ShadowByte{});
  w.split.assign(w.shared_size / 4 + 1, 0);
  w.shadow_bytes.assign(w.shared_size + 4, ShadowByte{});
  // One stack per thread of the largest block, each with a guard page below it.
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  w.stack_stride = config().stack_bytes + page;
  size_t total = w.stack_stride * 1024;
  void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    fprintf(stderr, "cudaemu: cannot reserve fiber stacks (%zu bytes)\n", total);
    exit(2);
  }
  w.stacks = static_cast<char*>(p);
  for (size_t i = 0; i < 1024; ++i) mprotect(w.stacks + i * w.stack_stride, page, PROT_NONE);
  w.fibers.resize(1024);
  tls_worker = &w;
}

uint3 unlinearize(uint32_t t, dim3 d) { return uint3{t % d.x, (t / d.x) % d.y, t / (d.x * d.y)}; }

std::string coord(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string tid_coord(const Worker& w, uint16_t tid) { return coord(unlinearize(tid, w.launch->block)); }

// Records a diagnostic once per (kind, pc1, pc2) and counts the rest; `text` is only built when it is kept.
template <class Text>
void add_diag_lazy(Worker& w, DiagKind kind, uint32_t thread, uintptr_t pc1, uintptr_t pc2, Text text) {
  auto key = std::make_tuple(static_cast<int>(kind), pc1, pc2);
  auto it = w.diags.find(key);
  if (it != w.diags.end()) {
    it->second.count++;
    if (w.block_linear < it->second.block) {  // keep the first block's instance: the same whatever the schedule
      it->second.block = w.block_linear;
      it->second.thread = thread;
      it->second.text = text();
    }
    return;
  }
  if (w.diags.size() >= 64) return;
  w.diags.emplace(key, RawDiag{kind, w.block_linear, thread, pc1, pc2, text(), 1});
}

void add_diag(Worker& w, DiagKind kind, uint32_t thread, uintptr_t pc1, uintptr_t pc2, std::string text) {
  add_diag_lazy(w, kind, thread, pc1, pc2, [&] { return std::move(text); });
}

// Context switches. A fiber runs until it calls yield_to_scheduler (at a barrier) or leave_fiber (done, aborted).
#if defined(CUDAEMU_UCONTEXT)
void yield_to_scheduler(Worker& w) { swapcontext(&w.current->ctx.uc, &w.scheduler.uc); }

[[noreturn]] void leave_fiber(Worker& w) {
  setcontext(&w.scheduler.uc);
  __builtin_unreachable();
}

void fiber_main();

void make_fiber_context(Fiber& f, char* stack_top, size_t stack_bytes) {
  getcontext(&f.ctx.uc);
  f.ctx.uc.uc_stack.ss_sp = stack_top - stack_bytes;
  f.ctx.uc.uc_stack.ss_size = stack_bytes;
  f.ctx.uc.uc_link = nullptr;  // fiber_main never returns: it leaves through leave_fiber
  makecontext(&f.ctx.uc, fiber_main, 0);
}

void switch_to_fiber(Worker& w, Fiber& f) { swapcontext(&w.scheduler.uc, &f.ctx.uc); }
#else
void yield_to_scheduler(Worker& w) {
  transfer_t t = jump_fcontext(w.scheduler.ctx, nullptr);
  w.scheduler.ctx = t.fctx;
}

[[noreturn]] void leave_fiber(Worker& w) {
  jump_fcontext(w.scheduler.ctx, nullptr);
  __builtin_unreachable();
}

void fiber_main(transfer_t t);

void make_fiber_context(Fiber& f, char* stack_top, size_t stack_bytes) {
  f.ctx.ctx = make_fcontext(stack_top, stack_bytes, fiber_main);
}

void switch_to_fiber(Worker& w, Fiber& f) {
  transfer_t t = jump_fcontext(f.ctx.ctx, &w);
  f.ctx.ctx = t.fctx;
}
#endif

// Ends the current block from inside one of its threads, as a GPU ends a kernel on a fatal error.
[[noreturn]] void abort_block(Worker& w, cudaError_t error) {
  w.block_fatal = true;
  w.block_error = error;
  w.current->state = FiberState::kAborted;
  leave_fiber(w);
}

[[noreturn]] void abort_for_timeout(Worker& w) {
  add_diag(w, DiagKind::kTimeout, w.current->linear, 0, 0,
           "kernel '" + std::string(w.launch->site.kernel) + "' did not finish within " +
               std::to_string(static_cast<int>(config().timeout_s)) +
               " s (CUDAEMU_TIMEOUT) and was stopped — is there an endless loop?");
  abort_block(w, cudaErrorLaunchTimeout);
}

void run_fiber_body(Worker& w) {
  w.launch->entry(w.launch->closure);
  w.current->state = FiberState::kDone;
  leave_fiber(w);
}

#if defined(CUDAEMU_UCONTEXT)
void fiber_main() { run_fiber_body(*tls_worker); }
#else
void fiber_main(transfer_t t) {
  Worker& w = *static_cast<Worker*>(t.data);
  w.scheduler.ctx = t.fctx;
  run_fiber_body(w);
}
#endif

void start_fiber(Worker& w, uint32_t t, size_t stack_index) {
  Fiber& f = w.fibers[t];
  f = Fiber{};
  f.linear = t;
  f.idx = unlinearize(t, w.launch->block);
  make_fiber_context(f, w.stacks + (stack_index + 1) * w.stack_stride, config().stack_bytes);
  f.state = FiberState::kRunning;
}

void resume(Worker& w, Fiber& f) {
  w.current = &f;
  f.state = FiberState::kRunning;
  switch_to_fiber(w, f);
  w.current = nullptr;
}

void finish_thread(Worker& w, const Fiber& f) {
  w.max_thread_load = std::max(w.max_thread_load, f.load_bytes);
  w.max_thread_store = std::max(w.max_thread_store, f.store_bytes);
}

bool same_source_line(uintptr_t a, uintptr_t b) {
  if (a == b) return true;
  SourceLocation la = location_of(a), lb = location_of(b);
  return la.line && la.file == lb.file && la.line == lb.line;
}

void judge_pending_reads(Worker& w) {
  for (const Worker::PendingRead& p : w.pending_reads) {
    const ShadowByte& s = w.split[p.offset / 4] ? w.shadow_bytes[p.offset] : w.shadow_words[p.offset / 4];
    if (s.write_epoch == p.epoch && s.write_tid != p.tid) continue;  // a race, already reported
    add_diag(w, DiagKind::kUninitialized, p.tid, p.pc, 0,
             "uninitialised shared memory: thread " + tid_coord(w, p.tid) + " of block " + coord(w.block_idx) +
                 " reads " + shared_variable_at(p.offset) +
                 " at %1, but no thread of this block has written it — is a load (or its zero fill) missing?");
  }
  w.pending_reads.clear();
}

void barrier_error(Worker& w, uint32_t thread, uintptr_t pc1, uintptr_t pc2, std::string text) {
  add_diag(w, DiagKind::kBarrier, thread, pc1, pc2, std::move(text));
  w.block_fatal = true;
  w.block_error = cudaErrorLaunchFailure;
}

void run_block_threads(Worker& w, uint64_t linear) {
  Launch& L = *w.launch;
  w.block_linear = linear;
  w.block_idx = uint3{static_cast<unsigned>(linear % L.grid.x), static_cast<unsigned>((linear / L.grid.x) % L.grid.y),
                      static_cast<unsigned>(linear / (uint64_t(L.grid.x) * L.grid.y))};
  w.block_fatal = false;
  w.block_error = cudaSuccess;
  w.block_first_epoch = ++w.epoch;
  const uint32_t n = L.threads_per_block;

  // Thread 0 first. If it never waits at a barrier, the block needs no concurrency: run each thread to its end in
  // turn on one stack. A later thread that does wait is a divergent barrier (thread 0 exited without it).
  start_fiber(w, 0, 0);
  resume(w, w.fibers[0]);
  if (w.block_fatal) return;
  if (w.fibers[0].state == FiberState::kDone) {
    finish_thread(w, w.fibers[0]);
    for (uint32_t t = 1; t < n; ++t) {
      start_fiber(w, t, 0);
      resume(w, w.fibers[t]);
      if (w.block_fatal) return;
      if (w.fibers[t].state == FiberState::kAtBarrier) {
        barrier_error(w, t, w.fibers[t].barrier_pc, 0,
                      "divergent barrier: thread " + coord(w.fibers[t].idx) + " of block " + coord(w.block_idx) +
                          " waits at __syncthreads() at %1, but thread (0,0,0) has already exited without reaching "
                          "it — every thread of a block must reach the same __syncthreads()");
        return;
      }
      finish_thread(w, w.fibers[t]);
    }
    return;
  }

  for (uint32_t t = 1; t < n; ++t) {
    start_fiber(w, t, t);
    resume(w, w.fibers[t]);
    if (w.block_fatal) return;
  }
  for (;;) {
    int64_t first_waiting = -1, first_done = -1;
    for (uint32_t t = 0; t < n; ++t) {
      FiberState s = w.fibers[t].state;
      if (s == FiberState::kAtBarrier && first_waiting < 0) first_waiting = t;
      if (s == FiberState::kDone && first_done < 0) first_done = t;
    }
    if (first_waiting < 0) break;  // every thread finished
    const Fiber& waiter = w.fibers[first_waiting];
    if (first_done >= 0) {
      const Fiber& done = w.fibers[first_done];
      barrier_error(w, waiter.linear, waiter.barrier_pc, 0,
                    "divergent barrier: thread " + coord(waiter.idx) + " of block " + coord(w.block_idx) +
                        " waits at __syncthreads() at %1, but thread " + coord(done.idx) +
                        " has exited without reaching it — is a __syncthreads() inside an if that not every thread "
                        "takes?");
      return;
    }
    for (uint32_t t = 0; t < n; ++t) {
      const Fiber& f = w.fibers[t];
      if (!same_source_line(f.barrier_pc, waiter.barrier_pc)) {
        barrier_error(w, f.linear, f.barrier_pc, waiter.barrier_pc,
                      "divergent barrier: in block " + coord(w.block_idx) + ", thread " + coord(f.idx) +
                          " waits at __syncthreads() at %1 while thread " + coord(waiter.idx) +
                          " waits at a different __syncthreads() at %2");
        return;
      }
    }
    judge_pending_reads(w);
    ++w.epoch;  // everyone arrived: a new barrier interval begins
    for (uint32_t t = 0; t < n; ++t) {
      resume(w, w.fibers[t]);
      if (w.block_fatal) return;
    }
  }
  for (uint32_t t = 0; t < n; ++t) finish_thread(w, w.fibers[t]);
}

void run_block(Worker& w, uint64_t linear) {
  w.pending_reads.clear();
  run_block_threads(w, linear);
  if (!w.block_fatal) judge_pending_reads(w);
  w.pending_reads.clear();
}

void run_blocks(Worker& w, Launch& L) {
  w.launch = &L;
  w.global_load = w.global_store = w.shared_load = w.shared_store = 0;
  w.max_thread_load = w.max_thread_store = 0;
  w.alloc_load.assign(g_allocations.size(), 0);
  w.alloc_store.assign(g_allocations.size(), 0);
  w.diags.clear();
  w.first_fatal_block = UINT64_MAX;
  w.fatal_error = cudaSuccess;
  for (;;) {
    uint64_t b = L.next_block.fetch_add(1, std::memory_order_relaxed);
    if (b >= L.total_blocks || b > L.stop_after.load(std::memory_order_relaxed)) break;
    run_block(w, b);
    if (w.block_fatal) {
      if (b < w.first_fatal_block) {
        w.first_fatal_block = b;
        w.fatal_error = w.block_error;
      }
      uint64_t cur = L.stop_after.load();
      while (b < cur && !L.stop_after.compare_exchange_weak(cur, b)) {
      }
    }
  }
  w.launch = nullptr;
}

// ---------------------------------------------------------------------------------------------------------------
// The worker pool: worker 0 is the calling thread; the others wait for launches.
// ---------------------------------------------------------------------------------------------------------------
class Pool {
 public:
  static Pool& get() {
    static Pool* pool = new Pool();  // never destroyed: its threads live as long as the program
    return *pool;
  }

  void run(Launch& L) {
    if (!main_worker_) {
      main_worker_ = std::make_unique<Worker>();
      init_worker(*main_worker_);
    }
    {
      std::lock_guard<std::mutex> lock(m_);
      launch_ = &L;
      ++generation_;
      running_ = static_cast<int>(workers_.size());
    }
    cv_start_.notify_all();
    run_blocks(*main_worker_, L);
    std::unique_lock<std::mutex> lock(m_);
    cv_done_.wait(lock, [&] { return running_ == 0; });
    launch_ = nullptr;
  }

  std::vector<Worker*> all_workers() {
    std::vector<Worker*> out{main_worker_.get()};
    for (auto& w : workers_) out.push_back(w.get());
    return out;
  }

 private:
  Pool() {
    unsigned extra = config().workers > 1 ? config().workers - 1 : 0;
    for (unsigned i = 0; i < extra; ++i) {
      workers_.push_back(std::make_unique<Worker>());
      workers_.back()->index = i + 1;
    }
    for (auto& w : workers_) {
      Worker* wp = w.get();
      std::thread([this, wp] { loop(*wp); }).detach();
    }
  }

  void loop(Worker& w) {
    init_worker(w);
    uint64_t seen = 0;
    for (;;) {
      Launch* L;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_start_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        L = launch_;
      }
      run_blocks(w, *L);
      std::lock_guard<std::mutex> lock(m_);
      if (--running_ == 0) cv_done_.notify_all();
    }
  }

  std::mutex m_;
  std::condition_variable cv_start_, cv_done_;
  uint64_t generation_ = 0;
  int running_ = 0;
  Launch* launch_ = nullptr;
  std::unique_ptr<Worker> main_worker_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

// ---------------------------------------------------------------------------------------------------------------
// Watchdog: a kernel that runs past CUDAEMU_TIMEOUT is stopped at its next memory access or barrier; one that
// makes neither (an endless loop in registers) cannot be stopped, so the program ends with the same message.
// ---------------------------------------------------------------------------------------------------------------
std::mutex g_watch_mutex;
const Launch* g_watched = nullptr;
std::string g_watched_name;

void watchdog() {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::lock_guard<std::mutex> lock(g_watch_mutex);
    if (!g_watched) continue;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - g_watched->start).count();
    if (elapsed > config().timeout_s) g_abort_kernel.store(true);
    if (elapsed > config().timeout_s + 5) {
      fprintf(stderr,
              "cudaemu: timeout: kernel '%s' did not finish within %d s (CUDAEMU_TIMEOUT) and could not be stopped "
              "— is there an endless loop? Exiting.\n",
              g_watched_name.c_str(), static_cast<int>(config().timeout_s));
      fflush(stderr);
      _exit(124);
    }
  }
}

void watch(const Launch* L) {
  static std::once_flag started;
  std::call_once(started, [] { std::thread(watchdog).detach(); });
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  g_watched = L;
  if (L) g_watched_name = L->site.kernel;
}

// ===============================================================================================================
// The checks, called for every access that instrumented code makes
// ===============================================================================================================
std::string describe_oob(uintptr_t a, size_t size) {
  // The nearest allocation, live or freed, names what the kernel was probably indexing.
  const Allocation* best = nullptr;
  uint64_t best_distance = UINT64_MAX;
  for (const auto& al : g_allocations) {
    uint64_t d = a < al->base ? al->base - a : (a >= al->base + al->bytes ? a - (al->base + al->bytes) + 1 : 0);
    if (d < best_distance) best_distance = d, best = al.get();
  }
  if (!best) return "address 0x" + std::to_string(a) + " is not in any allocation";
  int64_t offset = static_cast<int64_t>(a) - static_cast<int64_t>(best->base);
  int64_t element = offset >= 0 ? offset / int64_t(size) : -((-offset + int64_t(size) - 1) / int64_t(size));
  std::string where = "'" + best->name + "'";
  std::string made = best->file.empty() ? "" : ", allocated at " + best->file + ":" + std::to_string(best->line);
  std::string what = "element " + std::to_string(element) + " of " + where + " (" +
                     std::to_string(best->bytes / size) + " elements of " + std::to_string(size) + " bytes" + made +
                     ")";
  if (!best->live) return what + ", which was freed before this access";
  if (offset < 0) return what + ": " + std::to_string(-offset) + " bytes before its start";
  return what + ": " + std::to_string(a + size - (best->base + best->bytes)) + " bytes past its end";
}

[[noreturn]] void out_of_bounds(Worker& w, uintptr_t a, size_t size, bool store, uintptr_t pc) {
  add_diag(w, DiagKind::kOutOfBounds, w.current->linear, pc, 0,
           std::string("out-of-bounds ") + (store ? "store" : "load") + " of " + std::to_string(size) +
               " bytes at %1 by thread " + coord(w.current->idx) + " of block " + coord(w.block_idx) + ": " +
               describe_oob(a, size));
  abort_block(w, cudaErrorIllegalAddress);
}

std::mutex g_host_access_mutex;
std::set<uintptr_t> g_host_access_reported;

void host_access(uintptr_t a, size_t size, bool store, uintptr_t pc) {
  {
    std::lock_guard<std::mutex> lock(g_host_access_mutex);
    if (!g_host_access_reported.insert(pc).second) return;
  }
  if (config().quiet) return;
  SourceLocation loc = location_of(pc);
  Allocation* al = live_allocation_containing(reinterpret_cast<void*>(a), size);
  fprintf(stderr,
          "%s: cudaemu: host-access: host code %s device memory%s%s%s — on a GPU this crashes; copy it with "
          "cudaMemcpy\n",
          loc.text().c_str(), store ? "writes" : "reads", al ? " ('" : "", al ? al->name.c_str() : "",
          al ? "')" : "");
}

uint32_t* counter_array(size_t words) {
  auto* p = static_cast<uint32_t*>(calloc(words, 4));
  if (!p) {
    fprintf(stderr, "cudaemu: out of host memory for access counters\n");
    exit(2);
  }
  return p;
}

__attribute__((noinline)) void global_access(uintptr_t a, size_t size, bool store, uintptr_t pc) {
  Worker* w = tls_worker;
  Fiber* f = w ? w->current : nullptr;
  if (!f) {
    host_access(a, size, store, pc);
    return;
  }
  if (g_abort_kernel.load(std::memory_order_relaxed)) abort_for_timeout(*w);
  Allocation* al = allocation_at(a);
  if (!al || !al->live || a < al->base || a + size > al->base + al->bytes) out_of_bounds(*w, a, size, store, pc);
  size_t first = (a - al->base) >> 2, last = (a + size - 1 - al->base) >> 2;
  if (store) {
    w->global_store += size;
    f->store_bytes += size;
    w->alloc_store[al->id] += size;
    uint32_t*& writes = al->writes[w->index];
    if (__builtin_expect(!writes, 0)) writes = counter_array(al->words);
    uint32_t writer = static_cast<uint32_t>(std::min<uint64_t>(w->block_linear + 1, UINT32_MAX));
    for (size_t i = first; i <= last; ++i) {
      writes[i]++;
      __atomic_store_n(&al->writer[i], writer, __ATOMIC_RELAXED);
    }
  } else {
    w->global_load += size;
    f->load_bytes += size;
    w->alloc_load[al->id] += size;
    uint32_t*& reads = al->reads[w->index];
    if (__builtin_expect(!reads, 0)) reads = counter_array(al->words);
    for (size_t i = first; i <= last; ++i) reads[i]++;
  }
}

__attribute__((noinline, cold)) void race(Worker& w, uint16_t tid, uintptr_t pc, size_t offset, const ShadowByte& s,
                                         bool store) {
  if (store && s.write_epoch == w.epoch && s.write_tid != tid) {
    add_diag_lazy(w, DiagKind::kRace, tid, pc, s.write_pc, [&] {
      return "race on shared memory between %2 and %1: threads " + tid_coord(w, s.write_tid) + " and " +
             coord(w.current->idx) + " of block " + coord(w.block_idx) + " both write " + shared_variable_at(offset) +
             " with no __syncthreads() between them — is a __syncthreads() missing?";
    });
  } else if (store) {
    add_diag_lazy(w, DiagKind::kRace, tid, pc, s.read_pc, [&] {
      return "race on shared memory between %2 and %1: thread " +
             (s.read_tid == kManyReaders ? std::string("(several)") : tid_coord(w, s.read_tid)) + " reads " +
             shared_variable_at(offset) + " and thread " + coord(w.current->idx) + " of block " + coord(w.block_idx) +
             " overwrites it with no __syncthreads() between them — is a __syncthreads() missing?";
    });
  } else {
    add_diag_lazy(w, DiagKind::kRace, tid, pc, s.write_pc, [&] {
      return "race on shared memory between %2 and %1: thread " + tid_coord(w, s.write_tid) + " writes " +
             shared_variable_at(offset) + " and thread " + coord(w.current->idx) + " of block " + coord(w.block_idx) +
             " reads it with no __syncthreads() between them — is a __syncthreads() missing?";
    });
  }
}

// One shadow cell's bookkeeping for one access by thread `tid` in the current barrier interval.
__attribute__((always_inline)) inline void track(Worker& w, ShadowByte& s, size_t offset, uint16_t tid, uintptr_t pc, bool store) {
  const uint32_t epoch = w.epoch;
  if (store) {
    if ((s.write_epoch == epoch && s.write_tid != tid) || (s.read_epoch == epoch && s.read_tid != tid))
      race(w, tid, pc, offset, s, true);
    s.write_epoch = epoch;
    s.write_tid = tid;
    s.write_pc = pc;
  } else {
    if (s.write_epoch < w.block_first_epoch) {
      if (w.pending_reads.size() < 4096) w.pending_reads.push_back({offset, epoch, tid, pc});
    } else if (s.write_epoch == epoch && s.write_tid != tid) {
      race(w, tid, pc, offset, s, false);
    }
    if (s.read_epoch != epoch) {
      s.read_epoch = epoch;
      s.read_tid = tid;
      s.read_pc = pc;
    } else if (s.read_tid != tid) {
      s.read_tid = kManyReaders;
    }
  }
}

__attribute__((noinline)) void shared_access_bytes(Worker& w, size_t offset, size_t size, uint16_t tid, uintptr_t pc,
                                                   bool store) {
  for (size_t b = offset; b < offset + size; ++b) {
    size_t word = b / 4;
    if (!w.split[word]) {  // from now on this word is tracked per byte, starting from its word state
      for (size_t i = 0; i < 4; ++i) w.shadow_bytes[word * 4 + i] = w.shadow_words[word];
      w.split[word] = 1;
    }
    track(w, w.shadow_bytes[b], b, tid, pc, store);
  }
}

__attribute__((always_inline)) inline void shared_access(Worker& w, uintptr_t a, size_t size, bool store, uintptr_t pc) {
  if (g_abort_kernel.load(std::memory_order_relaxed)) abort_for_timeout(w);
  const uint16_t tid = static_cast<uint16_t>(w.current->linear);
  size_t offset = a - w.shared_lo;
  if (offset + size > w.shared_size) size = w.shared_size - offset;
  (store ? w.shared_store : w.shared_load) += size;
  if ((offset | size) & 3) {
    shared_access_bytes(w, offset, size, tid, pc, store);
    return;
  }
  for (size_t word = offset / 4; word < (offset + size) / 4; ++word) {
    if (__builtin_expect(w.split[word], 0))
      shared_access_bytes(w, word * 4, 4, tid, pc, store);
    else
      track(w, w.shadow_words[word], word * 4, tid, pc, store);
  }
}

// A GPU faults on an access whose address is not a multiple of the alignment its instruction needs: the size
// of the value, or more for a vector (a float4's first element is loaded by a 16-byte instruction). Reached only
// for a misaligned address; ends the block if a kernel made the access to global or shared memory.
__attribute__((noinline, cold)) void misaligned(uintptr_t a, size_t align, bool store, uintptr_t pc) {
  Worker* w = tls_worker;
  if (!w || !w->current) return;  // host code
  std::string where;
  if (a - g_arena_base < g_arena_size) {
    Allocation* al = allocation_at(a);
    where = al ? "'" + al->name + "' (byte " + std::to_string(a - al->base) + ")" : "global memory";
  } else if (a - w->shared_lo < w->shared_size) {
    where = "shared " + shared_variable_at(a - w->shared_lo);
  } else {
    return;  // the thread's own stack
  }
  add_diag(*w, DiagKind::kMisaligned, w->current->linear, pc, 0,
           std::string("misaligned ") + (store ? "store" : "load") + " at %1 by thread " + coord(w->current->idx) +
               " of block " + coord(w->block_idx) + ": the " + (store ? "store" : "load") + " needs " +
               std::to_string(align) + "-byte alignment, and " + where + " is " + std::to_string(a % align) +
               " bytes past a multiple of " + std::to_string(align) +
               " — a float4 must start at a multiple of 16 bytes (a float2 at 8): is the row length a multiple "
               "of 4?");
  abort_block(*w, cudaErrorMisalignedAddress);
}

// `align`: the alignment the access needs (0 or 1: none).
__attribute__((always_inline)) inline void on_access(uintptr_t a, size_t size, bool store, uintptr_t pc,
                                                     size_t align = 0) {
  if (__builtin_expect(align > 1 && (a & (align - 1)), 0)) misaligned(a, align, store, pc);
  if (a - g_arena_base < g_arena_size) {
    global_access(a, size, store, pc);
    return;
  }
  Worker* w = tls_worker;
  if (w && w->current && a - w->shared_lo < w->shared_size) shared_access(*w, a, size, store, pc);
}

// ===============================================================================================================
// Reports
// ===============================================================================================================
std::vector<LaunchReport> g_reports;

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

void write_stats_line(const LaunchReport& r) {
  if (config().stats_path.empty()) return;
  std::string line = "{\"kernel\": " + json_string(r.kernel) + ", \"grid\": [" + std::to_string(r.grid.x) + ", " +
                     std::to_string(r.grid.y) + ", " + std::to_string(r.grid.z) + "], \"block\": [" +
                     std::to_string(r.block.x) + ", " + std::to_string(r.block.y) + ", " +
                     std::to_string(r.block.z) + "], \"error\": " + json_string(cudaGetErrorName(r.error)) +
                     ", \"global_load_bytes\": " + std::to_string(r.global_load_bytes) +
                     ", \"global_store_bytes\": " + std::to_string(r.global_store_bytes) +
                     ", \"shared_load_bytes\": " + std::to_string(r.shared_load_bytes) +
                     ", \"shared_store_bytes\": " + std::to_string(r.shared_store_bytes) +
                     ", \"max_thread_load_bytes\": " + std::to_string(r.max_thread_load_bytes) +
                     ", \"max_thread_store_bytes\": " + std::to_string(r.max_thread_store_bytes) +
                     ", \"allocations\": [";
  for (size_t i = 0; i < r.allocations.size(); ++i) {
    const AllocationTraffic& a = r.allocations[i];
    line += (i ? ", " : "") + std::string("{\"name\": ") + json_string(a.name) +
            ", \"bytes\": " + std::to_string(a.bytes) + ", \"load_bytes\": " + std::to_string(a.load_bytes) +
            ", \"store_bytes\": " + std::to_string(a.store_bytes) + "}";
  }
  line += "], \"errors\": [";
  for (size_t i = 0; i < r.diagnostics.size(); ++i) {
    const Diagnostic& d = r.diagnostics[i];
    line += (i ? ", " : "") + std::string("{\"kind\": ") + json_string(d.kind) +
            ", \"message\": " + json_string(d.message) + ", \"file\": " + json_string(d.file) +
            ", \"line\": " + std::to_string(d.line) + "}";
  }
  line += "]}\n";
  FILE* f = fopen(config().stats_path.c_str(), "a");
  if (!f) {
    fprintf(stderr, "cudaemu: cannot append to CUDAEMU_STATS file '%s'\n", config().stats_path.c_str());
    return;
  }
  fputs(line.c_str(), f);
  fclose(f);
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

void finish_report(LaunchReport& r, const std::vector<Worker*>& workers) {
  std::vector<uint64_t> load(g_allocations.size(), 0), store(g_allocations.size(), 0);
  std::map<std::tuple<int, uintptr_t, uintptr_t>, RawDiag> diags;
  uint64_t first_fatal = UINT64_MAX;
  cudaError_t fatal = cudaSuccess;
  for (Worker* w : workers) {
    r.global_load_bytes += w->global_load;
    r.global_store_bytes += w->global_store;
    r.shared_load_bytes += w->shared_load;
    r.shared_store_bytes += w->shared_store;
    r.max_thread_load_bytes = std::max(r.max_thread_load_bytes, w->max_thread_load);
    r.max_thread_store_bytes = std::max(r.max_thread_store_bytes, w->max_thread_store);
    for (size_t i = 0; i < w->alloc_load.size(); ++i) load[i] += w->alloc_load[i], store[i] += w->alloc_store[i];
    if (w->first_fatal_block < first_fatal) first_fatal = w->first_fatal_block, fatal = w->fatal_error;
    for (auto& [key, d] : w->diags) {
      auto it = diags.find(key);
      if (it == diags.end()) {
        diags.emplace(key, d);
      } else {
        uint64_t total = it->second.count + d.count;
        if (d.block < it->second.block) it->second = d;
        it->second.count = total;
      }
    }
  }
  for (size_t i = 0; i < g_allocations.size(); ++i)
    if (load[i] || store[i])
      r.allocations.push_back({g_allocations[i]->name, g_allocations[i]->bytes, load[i], store[i]});
  r.error = fatal;

  std::vector<RawDiag> ordered;
  for (auto& [key, d] : diags)
    if (d.kind == DiagKind::kRace || d.kind == DiagKind::kUninitialized || d.block <= first_fatal)
      ordered.push_back(d);
  std::sort(ordered.begin(), ordered.end(), [](const RawDiag& a, const RawDiag& b) {
    return std::tie(a.block, a.thread, a.pc1, a.pc2) < std::tie(b.block, b.thread, b.pc1, b.pc2);
  });
  std::vector<uintptr_t> pcs;
  for (const RawDiag& d : ordered) pcs.push_back(d.pc1), pcs.push_back(d.pc2);
  symbolize(pcs);
  for (const RawDiag& d : ordered) {
    SourceLocation l1 = location_of(d.pc1), l2 = location_of(d.pc2);
    Diagnostic out;
    out.kind = kind_name(d.kind);
    out.message = replace_all(replace_all(d.text, "%1", l1.text()), "%2", l2.text());
    if (d.count > 1) out.message += " (" + std::to_string(d.count - 1) + " more like it)";
    out.file = l1.file;
    out.line = l1.line;
    r.diagnostics.push_back(out);
  }
}

void print_report(const LaunchReport& r) {
  if (config().quiet) return;
  for (const Diagnostic& d : r.diagnostics) {
    std::string where = d.line ? d.file + ":" + std::to_string(d.line) + ": " : "";
    fprintf(stderr, "%scudaemu: %s in kernel '%s': %s\n", where.c_str(), d.kind.c_str(), r.kernel.c_str(),
            d.message.c_str());
  }
}

bool valid_launch(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, cudaError_t* error) {
  // CUDA 13 on an H100 answers every one of these with cudaErrorInvalidValue (older runtimes said
  // cudaErrorInvalidConfiguration); checked on the device with tests/emu/programs/launch_config.cu.
  uint64_t threads = uint64_t(block.x) * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0)
    *error = cudaErrorInvalidValue;
  else if (block.x > 1024 || block.y > 1024 || block.z > 64 || threads > 1024)
    *error = cudaErrorInvalidValue;
  else if (grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535)
    *error = cudaErrorInvalidValue;
  else if (shmem > 48 * 1024)
    *error = cudaErrorInvalidValue;
  else if (stream != nullptr)
    *error = cudaErrorInvalidResourceHandle;
  else
    return true;
  return false;
}

}  // namespace

// ===============================================================================================================
// Public C++ API
// ===============================================================================================================
uint3 thread_idx() { return tls_worker->current->idx; }
uint3 block_idx() { return tls_worker->block_idx; }
dim3 block_dim() { return tls_worker->launch->block; }
dim3 grid_dim() { return tls_worker->launch->grid; }

void launch(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, ThreadEntry entry,
            void* closure) {
  if (Worker* w = tls_worker; w && w->current) {  // a kernel launching a kernel
    add_diag(*w, DiagKind::kUnsupported, w->current->linear, 0, 0,
             "kernel code at " + std::string(site.file) + ":" + std::to_string(site.line) + " launches kernel '" +
                 site.kernel + "': dynamic parallelism is not supported by the CPU emulator");
    abort_block(*w, cudaErrorLaunchFailure);
  }
  std::lock_guard<std::mutex> api(g_api_mutex);
  LaunchReport report;
  report.kernel = site.kernel;
  report.grid = grid;
  report.block = block;
  cudaError_t error = cudaSuccess;
  if (g_sticky_error != cudaSuccess || g_pending_error != cudaSuccess) {
    record(g_sticky_error != cudaSuccess ? g_sticky_error : g_pending_error);
    return;
  }
  if (!valid_launch(grid, block, shmem, stream, &error)) {
    record(error);
    report.error = error;
    g_reports.push_back(report);
    write_stats_line(report);
    return;
  }
  Launch L;
  L.site = site;
  L.grid = grid;
  L.block = block;
  L.threads_per_block = block.x * block.y * block.z;
  L.total_blocks = uint64_t(grid.x) * grid.y * grid.z;
  L.entry = entry;
  L.closure = closure;
  L.start = std::chrono::steady_clock::now();
  g_abort_kernel.store(false);
  watch(&L);
  Pool::get().run(L);
  watch(nullptr);
  finish_report(report, Pool::get().all_workers());
  if (report.error != cudaSuccess) g_pending_error = report.error;
  print_report(report);
  write_stats_line(report);
  g_reports.push_back(std::move(report));
}

const std::vector<LaunchReport>& launches() { return g_reports; }
void clear_launches() {
  std::lock_guard<std::mutex> api(g_api_mutex);
  g_reports.clear();
}

ElementCounts element_counts(const void* device_ptr) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  ElementCounts c;
  Allocation* al = live_allocation_containing(device_ptr, 1);
  if (!al || reinterpret_cast<uintptr_t>(device_ptr) != al->base) return c;
  c.reads.assign(al->words, 0);
  c.writes.assign(al->words, 0);
  for (uint32_t* p : al->reads)
    if (p)
      for (size_t i = 0; i < al->words; ++i) c.reads[i] += p[i];
  for (uint32_t* p : al->writes)
    if (p)
      for (size_t i = 0; i < al->words; ++i) c.writes[i] += p[i];
  c.writer_block.resize(al->words);
  for (size_t i = 0; i < al->words; ++i) c.writer_block[i] = int64_t(al->writer[i]) - 1;
  return c;
}

void reset_element_counts(const void* device_ptr) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  Allocation* al = live_allocation_containing(device_ptr, 1);
  if (!al) return;
  for (uint32_t* p : al->reads)
    if (p) memset(p, 0, al->words * 4);
  for (uint32_t* p : al->writes)
    if (p) memset(p, 0, al->words * 4);
  memset(al->writer, 0, al->words * 4);
}

void name_allocation(const void* device_ptr, const char* name) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  if (Allocation* al = live_allocation_containing(device_ptr, 1)) al->name = name;
}

}  // namespace cudaemu

using namespace cudaemu;

// ===============================================================================================================
// SanitizerCoverage callbacks (instrumented code calls these before each access)
// ===============================================================================================================
#define CUDAEMU_RA reinterpret_cast<uintptr_t>(__builtin_return_address(0))
extern "C" {
// A load or store of N bytes must be N-aligned, as on a GPU.
void __sanitizer_cov_load1(uint8_t* a) { on_access(reinterpret_cast<uintptr_t>(a), 1, false, CUDAEMU_RA); }
void __sanitizer_cov_load2(uint16_t* a) { on_access(reinterpret_cast<uintptr_t>(a), 2, false, CUDAEMU_RA, 2); }
void __sanitizer_cov_load4(uint32_t* a) { on_access(reinterpret_cast<uintptr_t>(a), 4, false, CUDAEMU_RA, 4); }
void __sanitizer_cov_load8(uint64_t* a) { on_access(reinterpret_cast<uintptr_t>(a), 8, false, CUDAEMU_RA, 8); }
void __sanitizer_cov_load16(__int128* a) { on_access(reinterpret_cast<uintptr_t>(a), 16, false, CUDAEMU_RA, 16); }
void __sanitizer_cov_store1(uint8_t* a) { on_access(reinterpret_cast<uintptr_t>(a), 1, true, CUDAEMU_RA); }
void __sanitizer_cov_store2(uint16_t* a) { on_access(reinterpret_cast<uintptr_t>(a), 2, true, CUDAEMU_RA, 2); }
void __sanitizer_cov_store4(uint32_t* a) { on_access(reinterpret_cast<uintptr_t>(a), 4, true, CUDAEMU_RA, 4); }
void __sanitizer_cov_store8(uint64_t* a) { on_access(reinterpret_cast<uintptr_t>(a), 8, true, CUDAEMU_RA, 8); }
void __sanitizer_cov_store16(__int128* a) { on_access(reinterpret_cast<uintptr_t>(a), 16, true, CUDAEMU_RA, 16); }

// emucc calls these instead where the compiler's alignment for an access differs from its size: more for a
// piece of a vector (the first float of a float4 copy is `align 16`), less for a packed structure.
#define CUDAEMU_ALIGNED(N, A)                                                                              \
  void __cudaemu_load##N##_align##A(void* a) { on_access(reinterpret_cast<uintptr_t>(a), N, false, CUDAEMU_RA, A); } \
  void __cudaemu_store##N##_align##A(void* a) { on_access(reinterpret_cast<uintptr_t>(a), N, true, CUDAEMU_RA, A); }
#define CUDAEMU_ALIGNED_ALL(N) \
  CUDAEMU_ALIGNED(N, 1) CUDAEMU_ALIGNED(N, 2) CUDAEMU_ALIGNED(N, 4) CUDAEMU_ALIGNED(N, 8) CUDAEMU_ALIGNED(N, 16)
CUDAEMU_ALIGNED_ALL(1)
CUDAEMU_ALIGNED_ALL(2)
CUDAEMU_ALIGNED_ALL(4)
CUDAEMU_ALIGNED_ALL(8)
CUDAEMU_ALIGNED_ALL(16)
#undef CUDAEMU_ALIGNED_ALL
#undef CUDAEMU_ALIGNED
void __sanitizer_cov_bool_flag_init(bool*, bool*) {}
void __sanitizer_cov_pcs_init(const uintptr_t*, const uintptr_t*) {}

// emucc turns llvm.memcpy/memmove/memset in instrumented code (struct copies) into these, so they count too, and
// passes the alignment the compiler gave the pointers.
// n bytes at p as the pieces of up to 16 bytes a GPU would move them in, each aligned to min(align, the piece's
// largest power-of-two factor).
static void count_pieces(const void* p, size_t n, bool store, size_t align, uintptr_t pc) {
  for (size_t i = 0; i < n; i += 16) {
    const size_t piece = std::min<size_t>(16, n - i);
    on_access(reinterpret_cast<uintptr_t>(p) + i, piece, store, pc, std::min(align, piece & (~piece + 1)));
  }
}
static void counted_copy(void* dst, const void* src, size_t n, size_t align, uintptr_t pc) {
  count_pieces(src, n, false, align, pc);
  count_pieces(dst, n, true, align, pc);
  memmove(dst, src, n);
}
void __cudaemu_memcpy(void* dst, const void* src, size_t n, bool, size_t align) {
  counted_copy(dst, src, n, align, CUDAEMU_RA);
}
void __cudaemu_memmove(void* dst, const void* src, size_t n, bool, size_t align) {
  counted_copy(dst, src, n, align, CUDAEMU_RA);
}
void __cudaemu_memset(void* dst, uint8_t value, size_t n, bool, size_t align) {
  count_pieces(dst, n, true, align, CUDAEMU_RA);
  memset(dst, value, n);
}

// ===============================================================================================================
// Device-side functions
// ===============================================================================================================
void __syncthreads(void) {
  Worker* w = tls_worker;
  if (!w || !w->current) return;  // called from host code: nothing to wait for
  if (g_abort_kernel.load(std::memory_order_relaxed)) abort_for_timeout(*w);
  w->current->barrier_pc = CUDAEMU_RA;
  w->current->state = FiberState::kAtBarrier;
  yield_to_scheduler(*w);
}
void __threadfence(void) { std::atomic_thread_fence(std::memory_order_seq_cst); }
void __threadfence_block(void) { std::atomic_thread_fence(std::memory_order_seq_cst); }
}

// An atomic read-modify-write counts as a load and a store of its width. It is not a race with other atomics.
template <class T, class Op>
static T atomic_rmw(T* address, T value, uintptr_t pc, Op op) {
  uintptr_t a = reinterpret_cast<uintptr_t>(address);
  if (a - g_arena_base < g_arena_size) {
    global_access(a, sizeof(T), false, pc);
    global_access(a, sizeof(T), true, pc);
  } else if (Worker* w = tls_worker; w && w->current && a - w->shared_lo < w->shared_size) {
    w->shared_load += sizeof(T);
    w->shared_store += sizeof(T);
    size_t word = (a - w->shared_lo) / 4;  // counts as written for the uninitialised-read check, never as a race
    if (w->split[word])
      for (size_t i = 0; i < 4; ++i) w->shadow_bytes[word * 4 + i].write_epoch = w->block_first_epoch;
    else
      w->shadow_words[word].write_epoch = w->block_first_epoch;
  }
  return op(address, value);
}

int atomicAdd(int* address, int value) {
  return atomic_rmw(address, value, CUDAEMU_RA, [](int* p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); });
}
unsigned int atomicAdd(unsigned int* address, unsigned int value) {
  return atomic_rmw(address, value, CUDAEMU_RA,
                    [](unsigned* p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); });
}
float atomicAdd(float* address, float value) {
  return atomic_rmw(address, value, CUDAEMU_RA, [](float* p, float v) {
    auto* bits = reinterpret_cast<uint32_t*>(p);
    uint32_t old = __atomic_load_n(bits, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(bits, &old, __builtin_bit_cast(uint32_t, __builtin_bit_cast(float, old) + v),
                                        false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    return __builtin_bit_cast(float, old);
  });
}

// ===============================================================================================================
// Runtime API
// ===============================================================================================================
extern "C" {

cudaError_t cudaMallocEmulated(void** ptr, size_t bytes, const char* name, const char* file, int line) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  if (!ptr) return record(cudaErrorInvalidValue);
  if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
  *ptr = nullptr;
  if (bytes == 0) return cudaSuccess;
  if (!reserve_arena()) return record(cudaErrorMemoryAllocation);
  size_t slots = (bytes + kSlotBytes - 1) >> kSlotShift;
  size_t gap = slots + 1;  // a gap as large as the allocation catches strides that overshoot by a whole matrix
  if (g_arena_next + ((slots + gap) << kSlotShift) > g_arena_base + g_arena_size) return record(cudaErrorMemoryAllocation);
  uintptr_t base = g_arena_next;
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  if (mprotect(reinterpret_cast<void*>(base), (bytes + page - 1) / page * page, PROT_READ | PROT_WRITE) != 0)
    return record(cudaErrorMemoryAllocation);
  auto al = std::make_unique<Allocation>();
  al->id = static_cast<int>(g_allocations.size());
  al->base = base;
  al->bytes = bytes;
  al->words = (bytes + 3) / 4;
  al->name = clean_variable_name(name);
  al->file = file ? file : "";
  al->line = line;
  al->reads.assign(config().workers, nullptr);
  al->writes.assign(config().workers, nullptr);
  al->writer = static_cast<uint32_t*>(calloc(al->words, 4));
  if (!al->writer) return record(cudaErrorMemoryAllocation);
  size_t first_slot = (base - g_arena_base) >> kSlotShift;
  for (size_t s = 0; s < slots + gap; ++s) g_slot_owner[first_slot + s] = al->id;
  g_arena_next = base + ((slots + gap) << kSlotShift);
  g_allocations.push_back(std::move(al));
  *ptr = reinterpret_cast<void*>(base);
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
  if (!ptr) return cudaSuccess;
  Allocation* al = live_allocation_containing(ptr, 1);
  if (!al || al->base != reinterpret_cast<uintptr_t>(ptr)) return record(cudaErrorInvalidValue);
  release(*al);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
  if (bytes == 0) return cudaSuccess;
  if (!dst || !src) return record(cudaErrorInvalidValue);
  bool dst_dev = in_arena(dst), src_dev = in_arena(src);
  switch (kind) {
    case cudaMemcpyHostToHost: if (dst_dev || src_dev) return record(cudaErrorInvalidValue); break;
    case cudaMemcpyHostToDevice: if (!dst_dev || src_dev) return record(cudaErrorInvalidValue); break;
    case cudaMemcpyDeviceToHost: if (dst_dev || !src_dev) return record(cudaErrorInvalidValue); break;
    case cudaMemcpyDeviceToDevice: if (!dst_dev || !src_dev) return record(cudaErrorInvalidValue); break;
    case cudaMemcpyDefault: break;
    default: return record(cudaErrorInvalidMemcpyDirection);
  }
  if (dst_dev && !live_allocation_containing(dst, bytes)) return record(cudaErrorInvalidValue);
  if (src_dev && !live_allocation_containing(src, bytes)) return record(cudaErrorInvalidValue);
  memmove(dst, src, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemset(void* ptr, int value, size_t bytes) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
  if (bytes == 0) return cudaSuccess;
  if (!live_allocation_containing(ptr, bytes)) return record(cudaErrorInvalidValue);
  memset(ptr, value, bytes);
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  return record(sync_status());
}

cudaError_t cudaDeviceReset(void) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  for (auto& al : g_allocations)
    if (al->live) release(*al);
  g_last_error = g_sticky_error = g_pending_error = cudaSuccess;
  return cudaSuccess;
}

cudaError_t cudaGetLastError(void) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  cudaError_t e = g_sticky_error != cudaSuccess ? g_sticky_error : g_last_error;
  g_last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError(void) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  return g_sticky_error != cudaSuccess ? g_sticky_error : g_last_error;
}

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
#define CUDAEMU_NAME(e) \
  case e: return #e;
    CUDAEMU_NAME(cudaSuccess)
    CUDAEMU_NAME(cudaErrorInvalidValue)
    CUDAEMU_NAME(cudaErrorMemoryAllocation)
    CUDAEMU_NAME(cudaErrorInitializationError)
    CUDAEMU_NAME(cudaErrorInvalidConfiguration)
    CUDAEMU_NAME(cudaErrorInvalidPitchValue)
    CUDAEMU_NAME(cudaErrorInvalidDevicePointer)
    CUDAEMU_NAME(cudaErrorInvalidMemcpyDirection)
    CUDAEMU_NAME(cudaErrorInvalidDeviceFunction)
    CUDAEMU_NAME(cudaErrorNoDevice)
    CUDAEMU_NAME(cudaErrorInvalidDevice)
    CUDAEMU_NAME(cudaErrorInvalidResourceHandle)
    CUDAEMU_NAME(cudaErrorNotReady)
    CUDAEMU_NAME(cudaErrorIllegalAddress)
    CUDAEMU_NAME(cudaErrorLaunchOutOfResources)
    CUDAEMU_NAME(cudaErrorLaunchTimeout)
    CUDAEMU_NAME(cudaErrorIllegalInstruction)
    CUDAEMU_NAME(cudaErrorMisalignedAddress)
    CUDAEMU_NAME(cudaErrorLaunchFailure)
    CUDAEMU_NAME(cudaErrorUnknown)
#undef CUDAEMU_NAME
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidPitchValue: return "invalid pitch argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorIllegalInstruction: return "an illegal instruction was encountered";
    case cudaErrorMisalignedAddress: return "misaligned address";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorUnknown: return "unknown error";
  }
  return "unknown error";
}

cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return record_locked(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (!device) return record_locked(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  return device == 0 ? cudaSuccess : record(cudaErrorInvalidDevice);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (!prop) return record_locked(cudaErrorInvalidValue);
  if (device != 0) return record_locked(cudaErrorInvalidDevice);
  *prop = cudaDeviceProp{};
  snprintf(prop->name, sizeof prop->name, "cudaemu CPU emulator (%u worker threads)", config().workers);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  prop->totalGlobalMem = pages > 0 && page > 0 ? size_t(pages) * size_t(page) : 0;
  prop->sharedMemPerBlock = 48 * 1024;
  prop->regsPerBlock = 65536;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = 1024, prop->maxThreadsDim[1] = 1024, prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 2147483647, prop->maxGridSize[1] = 65535, prop->maxGridSize[2] = 65535;
  prop->totalConstMem = 0;
  prop->major = 0;  // not a GPU architecture
  prop->minor = 0;
  prop->multiProcessorCount = static_cast<int>(config().workers);
  prop->maxThreadsPerMultiProcessor = 1024;
  prop->sharedMemPerMultiprocessor = 48 * 1024;
  prop->regsPerMultiprocessor = 65536;
  return cudaSuccess;
}

struct CUevent_st {
  std::chrono::steady_clock::time_point when;
  bool recorded = false;
};

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  if (!event) return record_locked(cudaErrorInvalidValue);
  *event = new CUevent_st();
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (!event) return record_locked(cudaErrorInvalidResourceHandle);
  if (stream) return record_locked(cudaErrorInvalidResourceHandle);
  event->when = std::chrono::steady_clock::now();  // launches are synchronous, so "now" is when the stream gets here
  event->recorded = true;
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) { return event ? cudaSuccess : cudaErrorInvalidResourceHandle; }

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms || !start || !end) return record_locked(cudaErrorInvalidValue);
  if (!start->recorded || !end->recorded) return record_locked(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (!event) return record_locked(cudaErrorInvalidResourceHandle);
  delete event;
  return cudaSuccess;
}

}  // extern "C"
