// checks.cpp — the access checks and shadow memory. Kernel code compiled by emucc calls
// __sanitizer_cov_load{1,2,4,8,16} / __sanitizer_cov_store{...} before every load and store it makes (clang's
// SanitizerCoverage, applied before optimisation so that every access in the source is seen once). The runtime
// is compiled WITHOUT that instrumentation. Each address is classified:
//   - inside the device arena (all cudaMalloc memory lives in one reserved range): global memory — counted, bounds
//     checked against the live allocations;
//   - inside the program's TLS block while a kernel runs (__shared__ is `static thread_local`): shared memory —
//     counted, and tracked per byte for races and uninitialised reads;
//   - host memory registered with cudaHostRegister (g_registered, searched only for what is neither of those):
//     counted and bounds-checked as global memory;
//   - anything else (a thread's own stack, host memory): not counted.
// Every access is also checked for alignment. This is the hot path: keep it in one file, so that it inlines.
#include "checks.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>

#include "api.h"
#include "async.h"
#include "memory.h"
#include "requests.h"
#include "scheduler.h"
#include "symbols.h"

namespace cudaemu {

__thread Worker* tls_worker = nullptr;

void judge_pending_reads(Worker& w) {
    for (const Worker::PendingRead& p : w.pending_reads) {
        const ShadowByte& s = w.split[p.offset / 4] ? w.shadow_bytes[p.offset] : w.shadow_words[p.offset / 4];
        if (s.write_epoch >= w.interval_start && s.write_tid != p.tid) continue;  // a race, already reported
        add_diag(w, DiagKind::kUninitialised, p.tid, p.pc, 0,
                 "uninitialised shared memory: thread " + tid_coord(w, p.tid) + " of block " + coord(w.block_idx) +
                     " reads " + shared_variable_at(p.offset) +
                     " at %1, but no thread of this block has written it — is a load (or its zero fill) missing?");
    }
    w.pending_reads.clear();
}

namespace {
const char* const kSeparateBuffers = "read from one buffer and store to another, or split the work into two launches";

// Whether either block used an atomic or a fence in this launch (Launch::orders); UINT64_MAX: several blocks
bool blocks_ordered(const Launch& L, uint64_t block, uint64_t other_block) {
    return L.orders[block].load(std::memory_order_relaxed) ||
           (other_block != UINT64_MAX && L.orders[other_block].load(std::memory_order_relaxed));
}

// 'name'[i], the element of al at address a, for an access of `size` bytes (a wider one in 4-byte words)
std::string element_at(const Allocation& al, uintptr_t a, size_t size) {
    return "'" + al.name + "'[" + std::to_string((a - al.base) / (size <= 8 ? size : 4)) + "]";
}
}  // namespace

void note_block_orders() {
    Worker* w = tls_worker;
    if (w && w->current && w->launch->orders) w->launch->orders[w->block_linear].store(1, std::memory_order_relaxed);
}

void judge_pending_store(Worker& w) {
    const Worker::PendingStore p = w.pending_store;
    w.pending_store.a = 0;
    if (!memcmp(p.before, reinterpret_cast<const void*>(p.a), p.size))
        return;  // the same value: the order does not matter
    const Launch& L = *w.launch;
    if (blocks_ordered(L, w.block_linear, p.other_block)) return;
    add_diag_lazy(w, DiagKind::kRace, p.tid, p.pc, 0, [&] {
        const std::string element = element_at(*p.al, p.a, p.size);
        if (p.stored) {
            const uint64_t lo = std::min(w.block_linear, p.other_block), hi = std::max(w.block_linear, p.other_block);
            return "race on global memory between blocks " + coord(unlinearize(lo, L.grid)) + " and " +
                   coord(unlinearize(hi, L.grid)) + ": both store to " + element +
                   " in one launch, different values (the later store at %1), and nothing orders two blocks, so "
                   "which value stays depends on which block runs last — each element should be stored by one "
                   "block, or the blocks' values combined with an atomic";
        }
        return "race on global memory between blocks: block " + coord(w.block_idx) + " stores to " + element +
               " at %1, a new value, where " +
               (p.other_block == UINT64_MAX ? std::string("other blocks")
                                            : "block " + coord(unlinearize(p.other_block, L.grid))) +
               " of this launch loaded it, and nothing orders two blocks, so whether they load the value from "
               "before or after that store depends on which block runs first — " +
               kSeparateBuffers;
    });
}

namespace {

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
    std::string made = best->file.empty()
                           ? ""
                           : (best->kind == Allocation::Kind::kRegistered ? ", registered at " : ", allocated at ") +
                                 best->file + ":" + std::to_string(best->line);
    // an access wider than 4 bytes (a float2, a float4, a double) need not be the allocation's element: bytes then
    std::string what = size <= 4 ? "element " + std::to_string(element) + " of " + where + " (" +
                                       std::to_string(best->bytes / size) + " elements of " + std::to_string(size) +
                                       " bytes" + made + ")"
                                 : "byte " + std::to_string(offset) + " of " + where + " (" +
                                       std::to_string(best->bytes) + " bytes" + made + ")";
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
std::set<uintptr_t> g_host_access_reported;     // printed once per source access, for the program's whole run
std::vector<HostAccessReport> g_host_accesses;  // since clear_launches(), once per (source access, allocation)

void host_access(uintptr_t a, size_t size, bool store, uintptr_t pc) {
    Allocation* al = live_allocation_containing(reinterpret_cast<void*>(a), size);
    if (al && (al->kind == Allocation::Kind::kManaged || al->kind == Allocation::Kind::kHostAlloc))
        return;  // host code may use managed and page-locked host memory
    SourceLocation loc;
    {
        std::lock_guard<std::mutex> lock(g_host_access_mutex);
        const std::string name = al ? al->name : "";
        auto same = [&](const HostAccessReport& h) { return h.pc == pc && h.allocation == name; };
        if (g_host_accesses.size() < 64 && std::none_of(g_host_accesses.begin(), g_host_accesses.end(), same)) {
            loc = location_of(pc);
            g_host_accesses.push_back({name, store, loc.file, loc.line, pc});
        }
        if (!g_host_access_reported.insert(pc).second) return;
    }
    if (config().quiet) return;
    if (loc.file.empty()) loc = location_of(pc);
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

}  // namespace

namespace {
// Counts a kernel's access to [a, a + size), which lies inside `al`.
inline size_t line_slot(uintptr_t pc, int alloc) {
    return ((pc >> 2) ^ (pc >> 9) ^ size_t(alloc) * 7) & (Worker::kLineSlots - 1);
}

// The first load of a (source access, allocation) pair in this launch, or one whose slot another pair holds.
__attribute__((noinline)) void count_line_load_slow(Worker* w, uintptr_t pc, int alloc, size_t size) {
    size_t slot = line_slot(pc, alloc);
    for (size_t probe = 0; probe < Worker::kLineSlots; ++probe, slot = (slot + 1) & (Worker::kLineSlots - 1)) {
        Worker::LineLoads& e = w->line_loads[slot];
        if (e.pc == pc && e.alloc == alloc) {
            e.bytes += size;
            return;
        }
        if (e.pc == 0) {
            e = {pc, alloc, size};
            return;
        }
    }
    w->line_loads_full = true;
}

// Adds a load's bytes to its (source access, allocation) slot.
__attribute__((always_inline)) inline void count_line_load(Worker* w, uintptr_t pc, int alloc, size_t size) {
    Worker::LineLoads& e = w->line_loads[line_slot(pc, alloc)];
    if (__builtin_expect(e.pc == pc && e.alloc == alloc, 1))
        e.bytes += size;
    else
        count_line_load_slow(w, pc, alloc, size);
}

// A store of whole words that another block of this launch stored to (stored) or loaded (other_block UINT64_MAX:
// several blocks did): noted, to be judged once it is done.
__attribute__((noinline, cold)) void note_store_after_other_block(Worker* w, Allocation* al, uintptr_t a, size_t size,
                                                                  uintptr_t pc, bool stored, uint64_t other_block) {
    Worker::PendingStore& p = w->pending_store;
    p.a = a, p.pc = pc, p.size = size, p.stored = stored, p.other_block = other_block;
    p.tid = w->current->linear, p.al = al;
    memcpy(p.before, reinterpret_cast<const void*>(a), size);
}

// A load of a word that another block stored to in this launch: a race, unless either block orders its accesses.
__attribute__((noinline, cold)) void load_after_other_block(Worker& w, const Allocation* al, uintptr_t a, size_t size,
                                                            uintptr_t pc, uint64_t writer_block) {
    const Launch& L = *w.launch;
    if (blocks_ordered(L, w.block_linear, writer_block)) return;
    add_diag_lazy(w, DiagKind::kRace, w.current->linear, pc, 0, [&] {
        return "race on global memory between blocks: block " + coord(w.block_idx) + " reads " +
               element_at(*al, a, size) + " at %1, which block " + coord(unlinearize(writer_block, L.grid)) +
               " stored to in this launch, and nothing orders two blocks, so whether it reads the value from before "
               "or after that store depends on which block runs first — " +
               kSeparateBuffers;
    });
}

// `request`: 0 for an atomic's read and write (not part of a warp-level request); for a load or store instruction
// the alignment its callback asked for (1 when none; more than `size` for the first piece of a vector).
__attribute__((always_inline)) inline void count_global(Worker* w, Fiber* f, Allocation* al, uintptr_t a, size_t size,
                                                        bool store, uintptr_t pc, size_t request) {
    if (__builtin_expect(w->pending_store.a != 0, 0)) judge_pending_store(*w);
    if (request && (store || al->global_mask))  // a __constant__ load is not a global request
        warp_request(*w, store ? kGlobalStore : kGlobalLoad, pc, al->id, a, static_cast<uint8_t>(size), request);
    size_t first = (a - al->base) >> 2, last = (a + size - 1 - al->base) >> 2;
    if (store) {
        w->global_store += size;
        f->store_bytes += size;
        w->alloc_store[al->id] += size;
        uint32_t*& writes = al->writes[w->index];
        if (__builtin_expect(!writes, 0)) writes = counter_array(al->words);
        uint32_t writer = static_cast<uint32_t>(std::min<uint64_t>(w->block_linear + 1, UINT32_MAX));
        const Launch& L = *w->launch;
        // only a plain store of whole words is judged: an atomic is ordered, and bytes of one word are not one value
        const bool judged = request && L.orders && size <= 16 && !((a - al->base | size) & 3);
        if (!request && L.orders) L.orders[w->block_linear].store(1, std::memory_order_relaxed);
        uint32_t other_store = 0, other_load = 0;  // another block that stored to, or loaded, a word in this launch
        for (size_t i = first; i <= last; ++i) {
            writes[i]++;
            if (judged) {
                const uint64_t stored = __atomic_load_n(&al->store_by[i], __ATOMIC_RELAXED);
                const uint32_t last_writer = uint32_t(stored);
                // (a block still running may not have made its store yet: the value before ours is unknown)
                if (stored >> 32 == L.serial && last_writer && last_writer != writer &&
                    L.finished[last_writer - 1].load(std::memory_order_acquire))
                    other_store = last_writer;
                const uint64_t loaded = __atomic_load_n(&al->load_by[i], __ATOMIC_RELAXED);
                if (loaded >> 32 == L.serial && uint32_t(loaded) != writer) other_load = uint32_t(loaded);
            }
            __atomic_store_n(&al->store_by[i], uint64_t(L.serial) << 32 | writer, __ATOMIC_RELAXED);
        }
        if (__builtin_expect(other_store != 0, 0))
            note_store_after_other_block(w, al, a, size, pc, true, other_store - 1);
        else if (__builtin_expect(other_load != 0, 0))
            note_store_after_other_block(w, al, a, size, pc, false,
                                         other_load == Allocation::kManyBlocks ? UINT64_MAX : other_load - 1);
    } else {
        const uint64_t global_bytes = size & al->global_mask;  // a __constant__ load is not global traffic
        w->global_load += global_bytes;
        f->load_bytes += global_bytes;
        w->alloc_load[al->id] += size;
        count_line_load(w, pc, al->id, size);
        uint32_t*& reads = al->reads[w->index];
        if (__builtin_expect(!reads, 0)) reads = counter_array(al->words);
        for (size_t i = first; i <= last; ++i) reads[i]++;
        const Launch& L = *w->launch;
        if (request && L.orders && !((a - al->base | size) & 3)) {  // a load of whole words, in a launch judged
            const uint32_t reader = static_cast<uint32_t>(w->block_linear + 1);
            uint32_t other_store = 0;
            for (size_t i = first; i <= last; ++i) {
                const uint64_t stored = __atomic_load_n(&al->store_by[i], __ATOMIC_RELAXED);
                if (__builtin_expect(stored >> 32 == L.serial, 0) && uint32_t(stored) != reader)
                    other_store = uint32_t(stored);
                const uint64_t loaded = __atomic_load_n(&al->load_by[i], __ATOMIC_RELAXED);
                const uint64_t mine = uint64_t(L.serial) << 32 | reader;
                if (loaded >> 32 != L.serial)
                    __atomic_store_n(&al->load_by[i], mine, __ATOMIC_RELAXED);
                else if (loaded != mine && uint32_t(loaded) != Allocation::kManyBlocks)
                    __atomic_store_n(&al->load_by[i], mine | Allocation::kManyBlocks, __ATOMIC_RELAXED);
            }
            if (__builtin_expect(other_store != 0, 0)) load_after_other_block(*w, al, a, size, pc, other_store - 1);
        }
    }
}
}  // namespace

__attribute__((noinline)) void global_access(uintptr_t a, size_t size, bool store, uintptr_t pc, size_t request) {
    Worker* w = tls_worker;
    Fiber* f = w ? w->current : nullptr;
    if (!f) {
        host_access(a, size, store, pc);
        return;
    }
    if (g_abort_kernel.load(std::memory_order_relaxed)) abort_for_timeout(*w);
    Allocation* al = allocation_at(a);
    if (!al || !al->live || a < al->base || a + size > al->base + al->bytes) out_of_bounds(*w, a, size, store, pc);
    count_global(w, f, al, a, size, store, pc, request);
}

bool registered_access(Worker& w, uintptr_t a, size_t size, bool store, uintptr_t pc, size_t request) {
    if (a - reinterpret_cast<uintptr_t>(w.stacks) < w.stack_stride * w.fibers.size()) return false;  // a stack
    Allocation* near = nullptr;
    Allocation* al = registered_range(a, size, &near);
    if (al) {
        if (g_abort_kernel.load(std::memory_order_relaxed)) abort_for_timeout(w);
        count_global(&w, w.current, al, a, size, store, pc, request);
        return true;
    }
    // The kernel's arguments are read from the launching thread's stack, next to the launch's closure: not an
    // overrun, even when the program registered a buffer on that stack.
    const uintptr_t args = reinterpret_cast<uintptr_t>(w.launch->closure);
    if (near && a + 65536 - args >= 2 * 65536) out_of_bounds(w, a, size, store, pc);
    return false;
}

namespace {

// True when the write by thread `writer` (at `epoch`, in the current barrier interval) is ordered before an access by
// `tid` through a __syncwarp() both took part in. Only lanes of one warp order their accesses that way.
inline bool warp_ordered(const Worker& w, uint32_t tid, uint32_t other, uint32_t epoch) {
    return same_warp(tid, other) && w.pair_sync[tid * 32 + (other & 31)] > epoch;
}

// "threads (1,0,0) and (2,0,0) of block (0,0,0)", and what is missing between them: lanes of one warp need a
// __syncwarp(), threads of different warps a __syncthreads().
std::string missing_sync(const Worker& w, uint32_t a, uint32_t b) {
    if (b != kManyReaders && same_warp(a, b))
        return "with no __syncthreads() or __syncwarp() between them (lanes " + std::to_string(b & 31) + " and " +
               std::to_string(a & 31) + " of warp " + std::to_string(a >> 5) +
               ": a warp does not run in lockstep on Volta and newer GPUs) — is a __syncthreads() missing, or a "
               "__syncwarp() where only this warp shares the data?";
    return "with no __syncthreads() between them — is a __syncthreads() missing?";
}

// How many stages of a staged array (shared_stages_at) the block has read since its last barrier. A double buffer's
// pass reads one, its current stage; where the first dimension is rows of one tile (As[4][BM], BK = 4), a pass reads
// several, and a race there is no question of which stage.
int stages_read_in_pass(const Worker& w, const SharedStages& array) {
    const uint64_t stride = array.size / array.stages;
    int read = 0;
    for (int stage = 0; stage < array.stages; ++stage)
        for (uint64_t o = array.offset + stage * stride; o < array.offset + (stage + 1) * stride; ++o) {
            const ShadowByte& b = w.split[o / 4] ? w.shadow_bytes[o] : w.shadow_words[o / 4];
            if (b.read_epoch >= w.interval_start) {
                ++read;
                break;
            }
        }
    return read;
}

// An access in the current barrier interval that conflicts with an earlier one by another thread: a race, unless
// the two are lanes of one warp with a __syncwarp() between them.
// Notes on the race recorded at (pc, other_pc) what the launch report needs to group it with the others of its
// barrier interval; `cross_warp`: this instance is between threads of two warps, which only a __syncthreads() orders.
// `writes`: which of the two accesses store (RawDiag::writes).
void tag_race(Worker& w, uintptr_t pc, uintptr_t other_pc, size_t offset, bool cross_warp, int writes) {
    if (cross_warp) w.cross_warp_races.insert(w.current->barrier_pc);  // also when the pair is not kept
    auto it = w.diags.find(std::make_tuple(static_cast<int>(DiagKind::kRace), pc, other_pc));
    if (it == w.diags.end()) return;
    RawDiag& d = it->second;
    if (d.variable.empty() || d.block == w.block_linear) {
        if (d.variable.empty()) {  // the stages read so far in this pass: once, at the first instance
            const SharedStages staged = shared_stages_at(offset);
            d.stages = staged.stages && stages_read_in_pass(w, staged) <= 1 ? staged.stages : 0;
        }
        d.barrier_pc = w.current->barrier_pc;
        const std::string at = shared_variable_at(offset);
        d.variable = at.substr(0, at.find(" ("));
        d.writes = writes;
        d.array = shared_variable_bytes(offset) > 8;
    }
    d.tagged_race = true;
    d.cross_warp = d.cross_warp || cross_warp;
}

__attribute__((noinline, cold)) void check_race(Worker& w, uint16_t tid, uintptr_t pc, size_t offset,
                                                const ShadowByte& s, bool store) {
    const uint32_t start = w.interval_start;
    if (s.write_epoch >= start && s.write_tid != tid && !warp_ordered(w, tid, s.write_tid, s.write_epoch)) {
        if (store) {
            add_diag_lazy(w, DiagKind::kRace, tid, pc, s.write_pc, [&] {
                return "race on shared memory between %2 and %1: threads " + tid_coord(w, s.write_tid) + " and " +
                       coord(w.current->idx) + " of block " + coord(w.block_idx) + " both write " +
                       shared_variable_at(offset) + " " + missing_sync(w, tid, s.write_tid);
            });
            tag_race(w, pc, s.write_pc, offset, !same_warp(tid, s.write_tid), 3);
        } else {
            add_diag_lazy(w, DiagKind::kRace, tid, pc, s.write_pc, [&] {
                return "race on shared memory between %2 and %1: thread " + tid_coord(w, s.write_tid) + " writes " +
                       shared_variable_at(offset) + " and thread " + coord(w.current->idx) + " of block " +
                       coord(w.block_idx) + " reads it " + missing_sync(w, tid, s.write_tid);
            });
            tag_race(w, pc, s.write_pc, offset, !same_warp(tid, s.write_tid), 2);
        }
        return;
    }
    if (!store || s.read_epoch < start) return;
    // a store after reads: every reader but this thread must be a lane of its warp that synchronised with it since
    bool unordered = s.read_tid == kManyReaders || !same_warp(s.read_tid, tid);
    for (uint32_t lanes = s.read_lanes & ~(1u << (tid & 31)); !unordered && lanes; lanes &= lanes - 1)
        unordered = !warp_ordered(w, tid, (tid & ~31u) | __builtin_ctz(lanes), s.read_epoch);
    if (!unordered) return;
    const uint32_t reader = s.read_tid == kManyReaders || s.read_tid != tid
                                ? s.read_tid
                                : (tid & ~31u) | __builtin_ctz(s.read_lanes & ~(1u << (tid & 31)));
    add_diag_lazy(w, DiagKind::kRace, tid, pc, s.read_pc, [&] {
        return "race on shared memory between %2 and %1: thread " +
               (reader == kManyReaders ? std::string("(several)") : tid_coord(w, static_cast<uint16_t>(reader))) +
               " reads " + shared_variable_at(offset) + " and thread " + coord(w.current->idx) + " of block " +
               coord(w.block_idx) + " overwrites it " + missing_sync(w, tid, reader);
    });
    tag_race(w, pc, s.read_pc, offset, reader == kManyReaders || !same_warp(tid, reader), 1);
}

// One shadow cell's bookkeeping for one access by thread `tid` in the current barrier interval.
__attribute__((always_inline)) inline void track(Worker& w, ShadowByte& s, size_t offset, uint16_t tid, uintptr_t pc,
                                                 bool store) {
    const uint32_t epoch = w.epoch, start = w.interval_start;
    if (store) {
        if ((s.write_epoch >= start && s.write_tid != tid) ||
            (s.read_epoch >= start && (s.read_tid != tid || (s.read_lanes & ~(1u << (tid & 31))))))
            check_race(w, tid, pc, offset, s, true);
        s.write_epoch = epoch;
        s.write_tid = tid;
        s.write_pc = pc;
    } else {
        if (s.write_epoch < w.block_first_epoch) {
            if (w.pending_reads.size() < 4096) w.pending_reads.push_back({offset, epoch, tid, pc});
        } else if (s.write_epoch >= start && s.write_tid != tid) {
            check_race(w, tid, pc, offset, s, false);
        }
        if (__builtin_expect(s.read_epoch != epoch, 0)) {
            if (s.read_epoch < start) {  // the first read in this barrier interval
                s.read_epoch = epoch;
                s.read_tid = tid;
                s.read_lanes = 1u << (tid & 31);
                s.read_pc = pc;
                return;
            }
            s.read_epoch = epoch;  // a __syncwarp() since the last read
        }
        const uint16_t reader = s.read_tid;
        if (reader != tid && reader != kManyReaders) {  // another reader: of this warp, or the set spans warps
            if (same_warp(reader, tid))
                s.read_lanes |= 1u << (tid & 31);
            else
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

// Past the bytes of dynamic shared memory the launch asked for: ends the block, as an out-of-bounds global access.
[[noreturn]] __attribute__((noinline, cold)) void dynamic_shared_out_of_bounds(Worker& w, size_t offset, size_t size,
                                                                               bool store, uintptr_t pc) {
    const size_t asked = w.dynamic_limit - w.dynamic_lo;
    add_diag(w, DiagKind::kOutOfBounds, w.current->linear, pc, 0,
             std::string("out-of-bounds ") + (store ? "store" : "load") + " of " + std::to_string(size) +
                 " bytes at %1 by thread " + coord(w.current->idx) + " of block " + coord(w.block_idx) + ": byte " +
                 std::to_string(offset - w.dynamic_lo) +
                 " of the dynamic shared memory (extern __shared__), but the launch asked for " +
                 std::to_string(asked) + " bytes (the third <<<...>>> parameter): " +
                 std::to_string(offset + size - w.dynamic_limit) + " bytes past its end");
    abort_block(w, cudaErrorIllegalAddress);
}

// Every shared access that is not the common case: past the end of the shared memory in use (clamped), while an
// asynchronous copy into shared memory is in flight, or not whole aligned words.
__attribute__((noinline)) void shared_access_slow(Worker& w, size_t offset, size_t size, bool store, uintptr_t pc,
                                                  size_t align) {
    const uint16_t tid = static_cast<uint16_t>(w.current->linear);
    warp_request(w, store ? kSharedStore : kSharedLoad, pc, -1, offset, static_cast<uint8_t>(size), align);
    if (offset + size > w.shared_size) size = w.shared_size - offset;
    (store ? w.shared_store : w.shared_load) += size;
    if (__builtin_expect(w.async_words_pending != 0, 0)) async_in_flight_access(w, offset, size, store, pc);
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

// The common case inline: whole aligned words inside the shared memory in use, no copy in flight. `size` is the
// callback's constant, so the loop over words unrolls.
__attribute__((always_inline)) inline void shared_access(Worker& w, uintptr_t a, size_t size, bool store, uintptr_t pc,
                                                         size_t align) {
    if (g_abort_kernel.load(std::memory_order_relaxed)) abort_for_timeout(w);
    const size_t offset = a - w.shared_lo;
    if (__builtin_expect(offset + size - 1 - w.dynamic_limit < w.dynamic_slack, 0))
        dynamic_shared_out_of_bounds(w, offset, size, store, pc);
    if (__builtin_expect((offset + size > w.shared_size) | (w.async_words_pending != 0) | ((offset | size) & 3), 0)) {
        shared_access_slow(w, offset, size, store, pc, align);
        return;
    }
    (store ? w.shared_store : w.shared_load) += size;
    warp_request(w, store ? kSharedStore : kSharedLoad, pc, -1, offset, static_cast<uint8_t>(size), align);
    const uint16_t tid = static_cast<uint16_t>(w.current->linear);
    for (size_t word = offset / 4, end = word + size / 4; word < end; ++word) {
        if (__builtin_expect(w.split[word], 0))
            shared_access_bytes(w, word * 4, 4, tid, pc, store);
        else
            track(w, w.shadow_words[word], word * 4, tid, pc, store);
    }
}

// What to look at for an access that needs `align` bytes: a float4's start moves with the row length (a row of K
// floats starts 16-byte aligned only when K % 4 == 0); a float2's with the row length and with the column, which a
// lane's pair must start at an even one of.
std::string misaligned_question(size_t align) {
    if (align == 8)
        return " — a float2 must start at a multiple of 8 bytes: are the row length and the column it starts at both "
               "even?";
    return " — a float4 must start at a multiple of 16 bytes (a float2 at 8): is the row length a multiple of 4?";
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
    } else if (Allocation* near = nullptr, *al = registered_range(a, 1, &near); al) {
        where = "'" + al->name + "' (byte " + std::to_string(a - al->base) + ")";
    } else {
        return;  // the thread's own stack
    }
    add_diag(*w, DiagKind::kMisaligned, w->current->linear, pc, 0,
             std::string("misaligned ") + (store ? "store" : "load") + " at %1 by thread " + coord(w->current->idx) +
                 " of block " + coord(w->block_idx) + ": the " + (store ? "store" : "load") + " needs " +
                 std::to_string(align) + "-byte alignment, and " + where + " is " + std::to_string(a % align) +
                 " bytes past a multiple of " + std::to_string(align) + misaligned_question(align));
    abort_block(*w, cudaErrorMisalignedAddress);
}

// An access from kernel code to a null pointer (plus an offset), or to host memory marked host-only: a finding and
// cudaErrorIllegalAddress, as a GPU faults there. Anything else outside the arena (the thread's own stack, the
// kernel's arguments) is left alone.
__attribute__((noinline)) void outside_device_memory(Worker& w, uintptr_t a, size_t size, bool store, uintptr_t pc) {
    std::string what;
    if (a < kNullPage) {
        what = "a null pointer" + (a ? " plus " + std::to_string(a) + " bytes" : std::string()) +
               " — was the buffer allocated with cudaMalloc, and is that the pointer the kernel got?";
    } else {
        for (const HostOnlyRange& r : g_host_only)
            if (a - r.base < r.bytes)
                what = "host memory '" + r.name + "' (byte " + std::to_string(a - r.base) +
                       ") — a kernel reaches only device memory: pass it the device copy (cudaMalloc, then "
                       "cudaMemcpy host to device)";
        if (what.empty()) return;
    }
    add_diag(w, DiagKind::kOutOfBounds, w.current->linear, pc, 0,
             std::string("out-of-bounds ") + (store ? "store" : "load") + " of " + std::to_string(size) +
                 " bytes at %1 by thread " + coord(w.current->idx) + " of block " + coord(w.block_idx) + ": " + what);
    abort_block(w, cudaErrorIllegalAddress);
}

// `align`: the alignment the access needs (0 or 1: none).
__attribute__((always_inline)) inline void on_access(uintptr_t a, size_t size, bool store, uintptr_t pc,
                                                     size_t align = 0) {
    if (__builtin_expect(align > 1 && (a & (align - 1)), 0)) misaligned(a, align, store, pc);
    const size_t request = align ? align : 1;  // a load or store instruction: part of a warp-level request
    if (a - g_arena_base < g_arena_size) {
        global_access(a, size, store, pc, request);
        return;
    }
    Worker* w = tls_worker;
    if (w && w->current) {
        if (a - w->shared_lo < w->shared_size) {
            if (__builtin_expect(a + size - w->shared_lo > w->shared_size, 0))  // runs past the end
                outside_shared_memory(*w, a, size, store, pc);
            shared_access(*w, a, size, store, pc, request);
        } else if (__builtin_expect(!g_registered.empty(), 0) && registered_access(*w, a, size, store, pc, request))
            return;
        else if (__builtin_expect(around_shared_memory(*w, a), 0))
            outside_shared_memory(*w, a, size, store, pc);
        else if (__builtin_expect(a < kNullPage, 0) || __builtin_expect(!g_host_only.empty(), 0))
            outside_device_memory(*w, a, size, store, pc);
    }
}

}  // namespace

const std::vector<HostAccessReport>& host_accesses() { return g_host_accesses; }

bool around_shared_memory(const Worker& w, uintptr_t a) {
    return a - w.tls_lo < w.tls_size && a - reinterpret_cast<uintptr_t>(w.stacks) >= w.stack_stride * w.fibers.size();
}

std::string index_or_block_shape(const Worker& w) {
    // an index right for the block shape it was written for goes out of bounds when the launch swaps x and y (lab
    // 4's dim3 block(BM / TM, BN) for (BN, BM / TM))
    const dim3 b = w.launch->block;
    if (b.x == b.y || (b.y == 1 && b.z == 1)) return "";
    return "fix the index, or the launch's block shape if the index was written for another (these blocks are " +
           std::to_string(b.x) + "×" + std::to_string(b.y) + (b.z > 1 ? "×" + std::to_string(b.z) : "") + " threads)";
}

// The thread-local storage around the shared memory holds the emulator's and the C library's variables: the access
// is reported and not made.
void outside_shared_memory(Worker& w, uintptr_t a, size_t size, bool store, uintptr_t pc) {
    const uintptr_t end = w.shared_lo + w.shared_size;
    const std::string where = a + size > end ? std::to_string(a + size - end) + " bytes past the end of"
                                             : std::to_string(w.shared_lo - a) + " bytes before the start of";
    const std::string shape = index_or_block_shape(w);
    add_diag(w, DiagKind::kOutOfBounds, w.current->linear, pc, 0,
             std::string("out-of-bounds ") + (store ? "store" : "load") + " of " + std::to_string(size) +
                 " bytes at %1 by thread " + coord(w.current->idx) + " of block " + coord(w.block_idx) + ": " + where +
                 " the block's shared memory (" + std::to_string(w.shared_size) +
                 " bytes, its __shared__ variables), where a GPU faults" + (shape.empty() ? "" : ": " + shape));
    abort_block(w, cudaErrorIllegalAddress);
}
void clear_host_accesses() {
    std::lock_guard<std::mutex> lock(g_host_access_mutex);
    g_host_accesses.clear();
}

void device_access(uintptr_t a, size_t size, bool store, uintptr_t pc, size_t align) {
    on_access(a, size, store, pc, align);
}
}  // namespace cudaemu

using namespace cudaemu;

// ===============================================================================================================
// SanitizerCoverage callbacks (instrumented code calls these before each access)
// ===============================================================================================================
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
#define CUDAEMU_ALIGNED(N, A)                                                                                          \
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
// emucc calls this at the start of each basic block of device code that does floating-point arithmetic, with the
// block's operations by kind (LaunchReport's fp32_fma ... fp64_add); outside a kernel (device code called from
// the host) nothing is counted.
void __cudaemu_flops(uint32_t fma32, uint32_t mul32, uint32_t add32, uint32_t fma64, uint32_t mul64, uint32_t add64) {
    Worker* w = tls_worker;
    if (!w || !w->current) return;
    w->flops[0] += fma32, w->flops[1] += mul32, w->flops[2] += add32;
    w->flops[3] += fma64, w->flops[4] += mul64, w->flops[5] += add64;
}
void __sanitizer_cov_bool_flag_init(bool*, bool*) {}
void __sanitizer_cov_pcs_init(const uintptr_t*, const uintptr_t*) {}

// emucc turns llvm.memcpy/memmove/memset in instrumented code (struct copies) into these, so they count too, and
// passes the alignment the compiler gave the pointers.
// n bytes at p as the pieces a GPU would move them in: as wide as the alignment allows, up to 16 bytes (a struct of
// four floats aligned to 4 moves as four 4-byte loads, a float4 as one), each aligned to min(align, the piece's
// largest power-of-two factor).
static void count_pieces(const void* p, size_t n, bool store, size_t align, uintptr_t pc) {
    const size_t step = std::min<size_t>(16, std::max<size_t>(1, align));
    for (size_t i = 0; i < n; i += step) {
        const size_t piece = std::min<size_t>(step, n - i);
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
}  // extern "C"
