// cooperative.cpp — cudaLaunchCooperativeKernel's grid: every block resident at once, so that grid.sync() can
// bring all of the grid's threads together.
//
// All blocks run on one worker, in index order, in phases: each block runs until every thread of it waits at a
// grid.sync() (or the block finishes), then is put aside — each waiting thread's used stack and the block's shared
// memory are copied out, so that the next block can run on the same stacks and the same shared memory — and when
// every block has arrived, each is put back in turn and runs to its next grid.sync(). The order of blocks is fixed,
// so a cooperative launch gives the same results and the same diagnostics every run. A block that finishes while
// others wait at a grid.sync() leaves them waiting forever on a GPU; here it ends the launch with a barrier error.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "api.h"
#include "checks.h"
#include "scheduler.h"
#include "symbols.h"
#include "warp.h"

namespace cudaemu {
namespace {

// A block put aside at a grid.sync().
struct ParkedBlock {
    std::vector<Fiber> fibers;
    std::vector<std::vector<char>> stacks;  // per thread: its stack from its saved stack pointer to the top
    std::vector<char> shared;               // the block's shared memory (the worker's TLS block, less unused dynamic)
    uint32_t exited[32] = {};
    uint32_t first_epoch = 0;
    uintptr_t sync_pc = 0;  // where it waits
};

char* stack_top(const Worker& w, const Fiber& f) { return w.stacks + (f.stack + 1) * w.stack_stride; }

// The lowest address of a suspended fiber's stack that holds anything: its saved context.
char* stack_low(const Worker& w, const Fiber& f) {
#if defined(CUDAEMU_UCONTEXT)
#if defined(__x86_64__)
    const uintptr_t sp = static_cast<uintptr_t>(f.ctx.uc.uc_mcontext.gregs[REG_RSP]);
#else
    const uintptr_t sp = static_cast<uintptr_t>(f.ctx.uc.uc_mcontext.sp);
#endif
    const uintptr_t low = sp - 128;  // and the red zone below it
#else
    const uintptr_t low = reinterpret_cast<uintptr_t>(f.ctx.ctx);
#endif
    const uintptr_t bottom = reinterpret_cast<uintptr_t>(stack_top(w, f)) - config().stack_bytes;
    return reinterpret_cast<char*>(std::max(low, bottom));
}

// The bytes of the TLS block that are the block's shared memory: all of it but the unused tail of the dynamic
// buffer, as [offset, end) pairs.
std::vector<std::pair<size_t, size_t>> shared_ranges(const Worker& w) {
    if (!w.dynamic_size) return {{0, w.shared_size}};
    return {{0, w.dynamic_limit}, {w.dynamic_lo + w.dynamic_size, w.shared_size}};
}

void park(Worker& w, ParkedBlock& p) {
    const uint32_t n = w.launch->threads_per_block;
    p.fibers.assign(w.fibers.begin(), w.fibers.begin() + n);
    p.stacks.resize(n);
    for (uint32_t t = 0; t < n; ++t) {
        const Fiber& f = w.fibers[t];
        if (f.state == FiberState::kDone) {
            p.stacks[t].clear();
            continue;
        }
        const char* low = stack_low(w, f);
        p.stacks[t].assign(low, static_cast<const char*>(stack_top(w, f)));
    }
    p.shared.clear();
    for (auto [lo, hi] : shared_ranges(w))
        p.shared.insert(p.shared.end(), reinterpret_cast<char*>(w.shared_lo + lo),
                        reinterpret_cast<char*>(w.shared_lo + hi));
    std::copy(std::begin(w.warp_exited), std::end(w.warp_exited), p.exited);
    p.first_epoch = w.block_first_epoch;
    for (uint32_t t = 0; t < n; ++t)
        if (w.fibers[t].state == FiberState::kAtBarrier) p.sync_pc = w.fibers[t].barrier_pc;
}

// Puts a parked block back on the worker and releases its threads from the grid.sync().
void unpark(Worker& w, uint64_t linear, ParkedBlock& p) {
    begin_block(w, linear);
    w.block_first_epoch =
        p.first_epoch;  // its shared memory was written before (the new interval began at begin_block)
    const uint32_t n = w.launch->threads_per_block;
    std::copy(p.fibers.begin(), p.fibers.end(), w.fibers.begin());
    for (uint32_t t = 0; t < n; ++t) {
        Fiber& f = w.fibers[t];
        if (f.state == FiberState::kDone) continue;
        memcpy(stack_top(w, f) - p.stacks[t].size(), p.stacks[t].data(), p.stacks[t].size());
        f.state = FiberState::kReady;
        ++w.ready;
        if (f.stack == 0) w.stack0_owner = t;
    }
    size_t at = 0;
    for (auto [lo, hi] : shared_ranges(w)) {
        memcpy(reinterpret_cast<char*>(w.shared_lo + lo), p.shared.data() + at, hi - lo);
        at += hi - lo;
    }
    std::copy(std::begin(p.exited), std::end(p.exited), w.warp_exited);
    p = ParkedBlock{};
}

void record_fatal(Worker& w, uint64_t block) {
    if (block < w.first_fatal_block) {
        w.first_fatal_block = block;
        w.fatal_error = w.block_error;
    }
}

}  // namespace

void run_cooperative(Worker& w, Launch& L) {
    begin_launch(w, L);
    std::vector<ParkedBlock> parked(L.total_blocks);
    std::vector<bool> done(L.total_blocks, false);
    const uint32_t n = L.threads_per_block;
    for (bool first_phase = true;; first_phase = false) {
        int64_t finished = -1, waiting = -1;  // a block that finished in this phase, one that waits at a grid.sync()
        for (uint64_t b = 0; b < L.total_blocks; ++b) {
            if (done[b]) continue;
            w.pending_reads.clear();
            if (first_phase) {
                begin_block(w, b);
            } else {
                unpark(w, b, parked[b]);
            }
            const BlockEnd end = run_block_threads(w, first_phase ? 0 : n);
            if (end == BlockEnd::kFatal) {
                record_fatal(w, b);
                w.launch = nullptr;
                return;  // a fault ends the kernel; the blocks put aside never resume
            }
            judge_pending_reads(w);
            if (end == BlockEnd::kDone) {
                done[b] = true;
                if (finished < 0) finished = static_cast<int64_t>(b);
            } else {
                park(w, parked[b]);
                if (waiting < 0) waiting = static_cast<int64_t>(b);
            }
        }
        if (waiting < 0) break;  // every block has finished
        if (finished >= 0) {     // reported from the first block that waits
            begin_block(w, static_cast<uint64_t>(waiting));
            block_error(
                w, DiagKind::kBarrier, 0, parked[waiting].sync_pc, 0,
                "grid.sync() never completes: block " + coord(w.block_idx) + " waits at grid.sync() at %1, but block " +
                    coord(unlinearize(finished, L.grid)) +
                    " has finished without reaching it — every thread of the grid must reach each grid.sync() (on a "
                    "GPU the kernel hangs)");
            record_fatal(w, static_cast<uint64_t>(waiting));
            break;
        }
    }
    w.launch = nullptr;
}

}  // namespace cudaemu
