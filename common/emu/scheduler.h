// scheduler.h — workers, fibers and blocks. Each block runs on one worker thread; its threads are fibers switched
// at __syncthreads(): Boost.Context's fcontext, or glibc's ucontext where Boost is missing (CUDAEMU_UCONTEXT;
// slower: each switch is a system call). A Worker also holds what the checks need per block (the shadow state of
// shared memory) and per launch (counters, diagnostics). Defined in scheduler.cpp.
#pragma once
#include "include/cuda_runtime.h"

#if defined(CUDAEMU_UCONTEXT)
#include <ucontext.h>
#else
#include <boost/context/detail/fcontext.hpp>
#endif

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "report.h"

namespace cudaemu {

// kAtWarp: waiting at a warp collective (warp.cpp); kReady: released from a barrier or a collective, not yet resumed;
// kAtPhase: waiting for a phase of a cuda::barrier or a pipeline stage (async.cpp).
enum class FiberState : uint8_t { kRunning, kAtBarrier, kAtWarp, kReady, kDone, kAborted, kAtPhase };
struct Collective;
struct RequestState;  // requests.h
struct LogRow;        // requests.h

// A suspended fiber, or the scheduler while a fiber runs.
#if defined(CUDAEMU_UCONTEXT)
struct FiberContext {
    ucontext_t uc;
};
#else
struct FiberContext {
    boost::context::detail::fcontext_t ctx = nullptr;
};
#endif

struct Fiber {
    FiberContext ctx{};
    uint3 idx{};
    uint32_t linear = 0;
    FiberState state = FiberState::kDone;
    uintptr_t barrier_pc = 0;
    uint64_t load_bytes = 0, store_bytes = 0;
    int barrier_predicate = 0;         // __syncthreads_count/and/or
    Collective* collective = nullptr;  // the warp collective it waits at (on its own stack)
    size_t stack = 0;                  // index of the stack it runs on
    bool at_grid_sync = false;         // its barrier is a grid.sync() (cooperative.cpp)
    const void* awaited = nullptr;     // kAtPhase: the PhaseBarrier, the phases it waits for, and the call
    uint64_t awaited_phases = 0;
    const char* awaited_call = nullptr;
    uint64_t pipeline_commits = 0;  // __pipeline_commit() calls (cuda_pipeline.h's batches)
    // its last __pipeline_wait_prior: the batches committed then, and the newest it left in flight (-1: none yet)
    uint64_t pipeline_commits_at_wait = 0;
    int64_t pipeline_prior = -1;
    // Warp-level requests (requests.h): the row of its warp's log that this thread's next counted access goes to
    // (null before its first in the barrier interval), and the end of the log.
    LogRow* log_row = nullptr;
    LogRow* log_end = nullptr;
    // The vector whose first piece was its last access (requests.h): where the next piece would start, and where the
    // vector ends.
    uint64_t vector_end = ~0ull, vector_limit = 0;
};

// Shadow state of one word (or, once a narrower access touched it, one byte) of shared memory. Epochs number the barrier intervals of a worker; a new block starts
// a new epoch, so a byte whose last write is older than the block's first epoch was never written by this block.
// Epochs advance at every barrier and every completed __syncwarp(); read_lanes: the lanes of read_tid's warp that
// read the byte in the current barrier interval (read_tid is kManyReaders once readers of two warps did).
struct ShadowByte {
    uint32_t write_epoch = 0, read_epoch = 0;
    uint16_t write_tid = 0, read_tid = 0;
    uint32_t read_lanes = 0;
    uintptr_t write_pc = 0, read_pc = 0;
};
constexpr uint16_t kManyReaders = 0xFFFF;

struct Allocation;  // memory.h

struct Launch {
    LaunchSite site;
    dim3 grid, block;
    uint32_t threads_per_block = 0;
    uint64_t total_blocks = 0;
    ThreadEntry entry = nullptr;
    void* closure = nullptr;
    std::atomic<uint64_t> next_block{0};
    size_t dynamic_shared_bytes = 0;               // the launch's third parameter
    std::atomic<uint64_t> stop_after{UINT64_MAX};  // blocks after the first block with a fatal error are not started
    std::chrono::steady_clock::time_point start;
    bool cooperative = false;  // cudaLaunchCooperativeKernel: grid.sync() is allowed
    uint32_t serial = 0;       // 1 for the program's first launch, 2 for its second, ...
    // Per block: 1 once it used an atomic or a fence, by which blocks order their accesses to one word (the last
    // block of a reduction stores the total where block 0 stored its part). Blocks that used neither and store to a
    // word another block stores to or loads are a race (checks.cpp). Null where the check is off: a cooperative launch (grid.sync()
    // orders blocks), a grid of more than kOrderedBlocksMax blocks.
    std::unique_ptr<std::atomic<uint8_t>[]> orders;
    // Per block: 1 once it has ended, so that its stores have landed: a store to a word that a block still running
    // on another worker stored last is not judged, as that store may not have landed yet (null with orders)
    std::unique_ptr<std::atomic<uint8_t>[]> finished;
    static constexpr uint64_t kOrderedBlocksMax = uint64_t(1) << 24;  // (block + 1 < Allocation::kManyBlocks)
};

// Set by the watchdog: the running kernel stops at its next memory access or barrier.
extern std::atomic<bool> g_abort_kernel;

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
    // shared memory = this thread's instance of the executable's TLS block, up to the emulator's own thread-local
    // variables where they follow the program's
    uintptr_t shared_lo = 0, shared_size = 0;
    // Around it, every module's thread-local storage and the thread's control block: memory a kernel reaches only
    // through an index past its shared arrays, where a GPU faults. Such an access is a finding, never made.
    uintptr_t tls_lo = 0, tls_size = 0;
    std::vector<ShadowByte> shadow_words;  // one per 4-byte word
    std::vector<uint8_t> split;            // per word: 1 once tracked per byte (after a 1- or 2-byte access)
    std::vector<ShadowByte> shadow_bytes;  // per byte, used for split words
    uint32_t epoch = 0, block_first_epoch = 0;
    uint32_t interval_start = 0;  // epoch at the block's start or its last __syncthreads()
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
    // A store to words that another block of this launch stored to or loaded, judged once it is done (at this
    // worker's next global access or the block's end): a race if it changed them. a == 0: none.
    struct PendingStore {
        uintptr_t a = 0, pc = 0;
        size_t size = 0;
        bool stored = false;      // other_block stored to them (else: loaded them; UINT64_MAX: several blocks did)
        uint8_t before[16] = {};  // the words as they were before it (a store of at most 16 bytes is judged)
        uint64_t other_block = 0;
        uint32_t tid = 0;
        const Allocation* al = nullptr;
    } pending_store;
    // Dynamic shared memory (extern __shared__): one buffer in the TLS block, of which a launch may use its third
    // parameter's worth. Offsets in the TLS block; an access ending in [dynamic_limit, dynamic_limit +
    // dynamic_slack) is out of bounds. All 0 when the program declares no extern __shared__.
    size_t dynamic_lo = 0, dynamic_size = 0, dynamic_limit = 0, dynamic_slack = 0;
    // per launch
    uint64_t global_load = 0, global_store = 0, shared_load = 0, shared_store = 0;
    // tensor cores (wmma.cpp): FLOPs of the warps' mma_sync, and TF32 inputs with any of their low 13 bits set
    uint64_t tensor_flops = 0, tf32_unrounded_inputs = 0, tf32_unrounded_a_inputs = 0;
    uint64_t tensor_flops_by_type[3] = {};  // kWmmaTf32, kWmmaHalf, kWmmaBf16
    // mma_ptx.cpp: the FLOPs of mma_m16n8k8_tf32 (also in tensor_flops), and the shared bytes ldmatrix read
    uint64_t ptx_mma_flops = 0, ldmatrix_bytes = 0;
    // floating-point arithmetic in kernel code (__cudaemu_flops): FP32 fma, mul, add, then FP64's
    uint64_t flops[6] = {};
    uint64_t block_barriers = 0;  // block-wide barriers (__syncthreads and its kin) that opened, per block
    uint64_t max_thread_load = 0, max_thread_store = 0;
    std::vector<uint64_t> alloc_load, alloc_store;
    // Global bytes loaded per (source access, allocation): a small open-addressed table, for the report's per-line
    // traffic. A launch with more distinct pairs than it holds keeps the first ones (line_loads_full says so).
    struct LineLoads {
        uintptr_t pc = 0;
        int alloc = -1;
        uint64_t bytes = 0;
    };
    static constexpr size_t kLineSlots = 256;
    LineLoads line_loads[kLineSlots];
    bool line_loads_full = false;
    RequestState* requests = nullptr;  // warp-level requests (requests.cpp), while count_requests is on
    bool count_requests = false;
    std::map<std::tuple<int, uintptr_t, uintptr_t>, RawDiag> diags;
    std::set<uintptr_t> cross_warp_races;  // barriers after which threads of two warps raced (report.cpp)
    // The warp matrix loads and stores of shared memory (their call sites' pcs) with their ldm and layout: a race or
    // an uninitialised read there may come from a wrong pointer, ldm or layout, which no barrier fixes (report.cpp)
    std::map<uintptr_t, std::string> fragment_sites;
    uint64_t first_fatal_block = UINT64_MAX;
    cudaError_t fatal_error = cudaSuccess;
    // Warps (warp.cpp). pair_sync[t * 32 + lane]: the epoch of the last __syncwarp() that thread t and that lane of
    // its warp both took part in; an access ordered after it by both is not a race.
    std::vector<uint32_t> pair_sync;
    uint32_t warp_waiting[32] = {};  // per warp: lanes waiting at a collective
    uint32_t warp_exited[32] = {};   // per warp: lanes that have finished
    uint32_t ready = 0;              // fibers in state kReady
    int64_t stack0_owner = -1;       // the suspended fiber that runs on stack 0, if any
    int barrier_count = 0;           // __syncthreads_count: threads whose predicate was non-zero
    // Asynchronous copies (async.cpp): per word of shared memory, how many memcpy_async copies still fill it
    // (async_words_pending: in all), and the copies themselves.
    std::vector<uint8_t> async_words;
    size_t async_words_pending = 0;
    struct AsyncCopies* async_copies = nullptr;
};

// The worker running on this thread (null on threads that never ran a kernel). Defined in checks.cpp, whose hot
// path reads it; `__thread` so that other files read it directly, with no C++ thread_local wrapper call.
extern __thread Worker* tls_worker;

uint3 unlinearize(uint64_t t, dim3 d);  // the (x,y,z) of thread or block number t of a block or grid of dimensions d
std::string coord(uint3 v);
std::string tid_coord(const Worker& w, uint16_t tid);
// "thread (x,y,z) of block (x,y,z)"
std::string thread_name(const Worker& w, uint32_t t);

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
            it->second.block_count = 1;
        } else if (w.block_linear == it->second.block) {
            it->second.block_count++;
        }
        return;
    }
    if (w.diags.size() >= 64) return;
    w.diags.emplace(key, RawDiag{kind, w.block_linear, thread, pc1, pc2, text(), 1});
}

inline void add_diag(Worker& w, DiagKind kind, uint32_t thread, uintptr_t pc1, uintptr_t pc2, std::string text) {
    add_diag_lazy(w, kind, thread, pc1, pc2, [&] { return std::move(text); });
}

inline bool same_warp(uint32_t a, uint32_t b) { return ((a ^ b) >> 5) == 0; }

// A fiber gives control back to its worker's scheduler (at a barrier or a warp collective).
void yield_to_scheduler(Worker& w);
// Ends the current block from inside one of its threads, as a GPU ends a kernel on a fatal error.
[[noreturn]] void abort_block(Worker& w, cudaError_t error);
[[noreturn]] void abort_for_timeout(Worker& w);
// A fatal error of the block found by the scheduler (divergent barrier, stuck warp collective).
void block_error(Worker& w, DiagKind kind, uint32_t thread, uintptr_t pc1, uintptr_t pc2, std::string text);

// Runs every block of the launch on the worker pool; returns when all are done.
void run_grid(Launch& L);

// For the cooperative scheduler (cooperative.cpp): a worker's state for a new launch and a new block, and running a
// block's threads from `started` on (threads below it have started) until they finish, fail or all wait at a
// grid.sync().
enum class BlockEnd { kDone, kFatal, kAtGridSync };
void begin_launch(Worker& w, Launch& L);
void begin_block(Worker& w, uint64_t linear);
BlockEnd run_block_threads(Worker& w, uint32_t started);
// Runs every block of a cooperative launch on `w`, all of them resident at once: each runs to its next grid.sync(),
// is put aside, and all go on when the last has arrived.
void run_cooperative(Worker& w, Launch& L);
std::vector<Worker*> all_workers();
// The watchdog stops a kernel that runs past CUDAEMU_TIMEOUT; watch(nullptr) when it is over.
void watch(const Launch* L);

}  // namespace cudaemu
