// async.cpp — split barriers and asynchronous copies (include/cudaemu_async.h: cuda::barrier, cuda::pipeline,
// cuda::memcpy_async).
//
// A PhaseBarrier counts the arrivals of its current phase; the last one completes the phase: it runs the
// completion function, and releases the threads waiting for it (their fibers wait in state kAtPhase, and the block
// scheduler runs the others meanwhile). A completed phase of a block-scoped barrier is a barrier interval's end for
// the race checks, as __syncthreads() is (checks.cpp). When no thread can run and one still waits for a phase, the
// block ends with a diagnostic naming the wait and where the threads it waits for are (a GPU hangs there).
// memcpy_async copies at once (header code: counted and checked loads and stores); its destination words stay
// marked as in flight until a wait that covers the copy returns, and an access to them before then is a race.
#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "checks.h"
#include "include/cudaemu_async.h"
#include "scheduler.h"
#include "symbols.h"

namespace cudaemu {

struct AsyncCopy {
    size_t offset, bytes;  // in shared memory
    uint32_t tid;
    uintptr_t pc;
    uint32_t epoch;  // the block's epoch when it was issued (Worker::epoch)
};
struct AsyncCopies {
    // (key, phases): the copies that complete when `phases` phases of key (a PhaseBarrier, or a pipeline's id) are done
    std::map<std::pair<const void*, uint64_t>, std::vector<AsyncCopy>> pending;
    uintptr_t next_key = 1;  // one-thread pipelines' ids: small numbers, never a PhaseBarrier's address
};

void reset_async(Worker& w) {
    if (!w.async_copies) return;
    if (w.async_words_pending) std::fill(w.async_words.begin(), w.async_words.end(), 0);
    w.async_words_pending = 0;
    w.async_copies->pending.clear();
}

namespace {

Worker* kernel_worker() {
    Worker* w = tls_worker;
    return w && w->current ? w : nullptr;
}

AsyncCopies& copies_of(Worker& w) {
    if (!w.async_copies) {
        w.async_copies = new AsyncCopies();  // one per worker, for the program's life
        w.async_words.assign(w.shadow_words.size(), 0);
    }
    return *w.async_copies;
}

// The copies of `key` that complete with its first `phases` phases have arrived.
void copies_arrived(Worker& w, const void* key, uint64_t phases) {
    if (!w.async_copies) return;
    auto& pending = w.async_copies->pending;
    auto it = pending.lower_bound({key, 0});
    while (it != pending.end() && it->first.first == key && it->first.second <= phases) {
        for (const AsyncCopy& c : it->second)
            for (size_t word = c.offset / 4; word <= (c.offset + c.bytes - 1) / 4; ++word)
                if (w.async_words[word] && --w.async_words[word] == 0) --w.async_words_pending;
        it = pending.erase(it);
    }
}

// A barrier used by this block must have been initialised by it: shared memory keeps an earlier block's values.
void check_initialised(Worker& w, const PhaseBarrier* b, const char* what, const char* file, int line) {
    if (b->block == w.block_first_epoch) return;
    add_diag(w, DiagKind::kBarrier, w.current->linear, site_pc(file, line), 0,
             "barrier not initialised: " + thread_name(w, w.current->linear) + " calls " + what +
                 " at %1 on a barrier this block has not initialised — call init(&barrier, count) from one thread, "
                 "then __syncthreads(), before using it");
    abort_block(w, cudaErrorLaunchFailure);
}

void complete_phase(Worker& w, PhaseBarrier* b, void (*completion)(void*), void* object) {
    b->expected -= b->dropped;
    b->dropped = 0;
    b->pending = b->expected;
    ++b->phase;
    if (completion) completion(object);
    if (b->scope != cuda::thread_scope_thread) {  // every arrival is ordered before every wait's return
        judge_pending_reads(w);
        w.interval_start = ++w.epoch;
    }
    const uint32_t n = w.launch->threads_per_block;
    for (uint32_t t = 0; t < n; ++t) {
        Fiber& f = w.fibers[t];
        if (f.state == FiberState::kAtPhase && f.awaited == b && f.awaited_phases <= b->phase) {
            f.state = FiberState::kReady;
            ++w.ready;
        }
    }
}

}  // namespace

void phase_init(PhaseBarrier* b, ptrdiff_t expected, int scope, const char* what, const char* file, int line) {
    Worker* w = kernel_worker();
    if (w && scope != cuda::thread_scope_thread && reinterpret_cast<uintptr_t>(b) - w->shared_lo >= w->shared_size) {
        add_diag(*w, DiagKind::kUnsupported, w->current->linear, site_pc(file, line), 0,
                 std::string("unsupported: ") + what +
                     " at %1 on a barrier outside shared memory: the CPU emulator "
                     "supports barriers of one thread block, declared __shared__");
        abort_block(*w, cudaErrorLaunchFailure);
    }
    *b = PhaseBarrier{w ? w->block_first_epoch : 0, expected, expected, 0, 0, scope};
}

uint64_t phase_arrive(PhaseBarrier* b, ptrdiff_t count, bool drop, void (*completion)(void*), void* object,
                      const char* what, const char* file, int line) {
    Worker* w = kernel_worker();
    if (w) check_initialised(*w, b, what, file, line);
    const uint64_t phase = b->phase;
    if (drop) b->dropped += count;
    b->pending -= count;
    if (b->pending <= 0) {
        if (w) {
            complete_phase(*w, b, completion, object);
        } else {  // host code: one thread, nothing to release
            b->expected -= b->dropped, b->dropped = 0, b->pending = b->expected, ++b->phase;
            if (completion) completion(object);
        }
    }
    return phase;
}

void phase_wait(PhaseBarrier* b, uint64_t phases, const char* what, const char* file, int line) {
    Worker* w = kernel_worker();
    if (!w) return;
    check_initialised(*w, b, what, file, line);
    Fiber& me = *w->current;
    while (b->phase < phases) {
        me.state = FiberState::kAtPhase;
        me.awaited = b;
        me.awaited_phases = phases;
        me.awaited_call = what;
        me.barrier_pc = site_pc(file, line);
        yield_to_scheduler(*w);
        if (g_abort_kernel.load(std::memory_order_relaxed)) abort_for_timeout(*w);
    }
    me.awaited = nullptr;
    copies_arrived(*w, b, phases);
}

void async_copy_issued(void* dst, size_t bytes, const void* key, uint64_t phases, const char* file, int line) {
    Worker* w = kernel_worker();
    const size_t offset = reinterpret_cast<uintptr_t>(dst) - (w ? w->shared_lo : 0);
    if (!w || bytes == 0 || offset >= w->shared_size) return;  // a copy to global memory completes at once
    AsyncCopies& copies = copies_of(*w);
    if (phases == 0) phases = static_cast<const PhaseBarrier*>(key)->phase + 1;
    const size_t last = std::min(offset + bytes, w->shared_size) - 1;
    copies.pending[{key, phases}].push_back(
        AsyncCopy{offset, last + 1 - offset, w->current->linear, site_pc(file, line), w->epoch});
    for (size_t word = offset / 4; word <= last / 4; ++word)
        if (w->async_words[word] < 255 && w->async_words[word]++ == 0) ++w->async_words_pending;
}

void async_copies_done(const void* key, uint64_t batches) {
    if (Worker* w = kernel_worker()) copies_arrived(*w, key, batches);
}

// <cuda_pipeline.h>'s primitives: each thread's batches, under a key of its own (never an address or an id above).
namespace {
const void* primitive_key_of(uint32_t linear) { return reinterpret_cast<const void*>(~uintptr_t(linear)); }
const void* primitive_key(const Worker& w) { return primitive_key_of(w.current->linear); }
}  // namespace

// __pipeline_memcpy_async: the copy, made at once; size bytes (4, 8 or 16), of which the last zfill are zeros, not
// read. Without zero fill one load and one store of the whole size, as a GPU's cp.async: both addresses must be
// aligned to it; with zero fill, 4 bytes at a time. Counted and checked at the caller's line.
void primitive_copy(void* dst, const void* src, size_t size, size_t zfill, const char* file, int line) {
    Worker* w = kernel_worker();
    const uintptr_t pc = w ? site_pc(file, line) : 0;
    const uintptr_t to = reinterpret_cast<uintptr_t>(dst), from = reinterpret_cast<uintptr_t>(src);
    const size_t piece = zfill == 0 && (size == 8 || size == 16) ? size : 4, copied = size - zfill;
    for (size_t i = 0; i < size; i += piece) {
        const bool read = i < copied;
        if (w && read) device_access(from + i, piece, false, pc, piece);
        if (w) device_access(to + i, piece, true, pc, piece);
        if (read)
            memcpy(static_cast<char*>(dst) + i, static_cast<const char*>(src) + i, piece);
        else
            memset(static_cast<char*>(dst) + i, 0, piece);
    }
    if (w) async_copy_issued(dst, size, primitive_key(*w), w->current->pipeline_commits + 1, file, line);
}

void primitive_commit() {
    if (Worker* w = kernel_worker()) ++w->current->pipeline_commits;
}

void primitive_wait_prior(size_t prior) {
    Worker* w = kernel_worker();
    if (w) w->current->pipeline_commits_at_wait = w->current->pipeline_commits;
    if (w) w->current->pipeline_prior = static_cast<int64_t>(prior);
    if (w && w->current->pipeline_commits > prior)
        copies_arrived(*w, primitive_key(*w), w->current->pipeline_commits - prior);
}

const void* new_pipeline_key() {
    Worker* w = kernel_worker();
    return w ? reinterpret_cast<const void*>(copies_of(*w).next_key++) : nullptr;
}

void pipeline_join(PipelineCounts* counts, bool producer, bool consumer) {
    Worker* w = kernel_worker();
    const uint64_t block = w ? w->block_first_epoch : 0;
    if (counts->block != block) *counts = PipelineCounts{0, 0, block};
    counts->producers += producer;
    counts->consumers += consumer;
}

void pipeline_stages(PipelineCounts* counts, PhaseBarrier* produced, PhaseBarrier* consumed, int stages,
                     const char* file, int line) {
    Worker* w = kernel_worker();
    if (w && produced[0].block == w->block_first_epoch) return;  // another thread of the group did it
    for (int s = 0; s < stages; ++s) {
        phase_init(&produced[s], counts->producers, cuda::thread_scope_block, "cuda::make_pipeline()", file, line);
        phase_init(&consumed[s], counts->consumers, cuda::thread_scope_block, "cuda::make_pipeline()", file, line);
    }
}

// An access to shared words a memcpy_async may still be filling (the hot path in checks.cpp calls this only while
// some are): reported once per pair of lines, like a race.
void async_in_flight_access(Worker& w, size_t offset, size_t size, bool store, uintptr_t pc) {
    const size_t first = offset / 4, last = (offset + size - 1) / 4;
    size_t word = first;
    while (word <= last && !w.async_words[word]) ++word;
    if (word > last) return;
    for (const auto& entry : w.async_copies->pending) {
        for (const AsyncCopy& c : entry.second) {
            if (c.offset / 4 > word || (c.offset + c.bytes - 1) / 4 < word) continue;
            const uint32_t tid = w.current->linear;
            // A <cuda_pipeline.h> batch that its thread's last __pipeline_wait_prior(n) left in flight on purpose
            // (one of the newest n then): a wait was there, so the count, or the buffer read, is what is wrong.
            const Fiber& copier = w.fibers[c.tid];
            const bool left_by_wait = entry.first.first == primitive_key_of(c.tid) && copier.pipeline_prior >= 0 &&
                                      entry.first.second <= copier.pipeline_commits_at_wait;
            add_diag_lazy(w, DiagKind::kRace, tid, pc, c.pc, [&] {
                std::string text = "race on shared memory between %2 and %1: " + thread_name(w, tid) +
                                   (store ? " writes " : " reads ") + shared_variable_at(word * 4) +
                                   ", which the memcpy_async of thread " + tid_coord(w, static_cast<uint16_t>(c.tid)) +
                                   " at %2 may still be filling";
                // Issued since the block's last __syncthreads(), after the copying thread's last wait: the pass
                // that reads these words is the one filling them, which no wait or barrier mends.
                const bool this_pass = c.epoch >= w.interval_start && w.interval_start > w.block_first_epoch &&
                                       entry.first.first == primitive_key_of(c.tid) && copier.pipeline_prior >= 0 &&
                                       entry.first.second > copier.pipeline_commits_at_wait;
                if (this_pass)
                    return text +
                           ": the copy was issued in this pass, after the copying thread's last "
                           "__pipeline_wait_prior and the block's last __syncthreads(), so the pass is reading "
                           "a buffer it is itself filling — does the copy's index (its stage or slice) pick "
                           "the buffer this pass reads? A pass fills a buffer that no thread reads until a "
                           "later pass";
                if (!left_by_wait)
                    return text +
                           " — wait for the copy first (the pipeline's consumer_wait(), "
                           "cuda::pipeline_consumer_wait_prior, __pipeline_wait_prior, or the barrier's wait()), "
                           "then __syncthreads() if other threads read it";
                const std::string n = std::to_string(copier.pipeline_prior);
                return text + ": its batch is " +
                       (n == "1" ? "the newest, which" : "one of the newest " + n + ", which") +
                       " the copying thread's last __pipeline_wait_prior(" + n + ") left in flight — either that " +
                       "wait leaves too many batches in flight (or a __pipeline_commit() was skipped, so the newest " +
                       "batches are not the ones the count means), or this access is to a buffer still being " +
                       "filled (an index past the slice it means to read, or another stage's buffer)";
            });
            return;
        }
    }
}

// When no thread can run: a thread that waits for a phase waits forever. Ends the block, naming the wait, what the
// phase still expects, and where the other threads are.
bool phase_wait_stalled(Worker& w) {
    const uint32_t n = w.launch->threads_per_block;
    const Fiber* waiter = nullptr;
    uint32_t waiting = 0, exited = 0, at_barrier = 0;
    uintptr_t barrier_pc = 0;
    for (uint32_t t = 0; t < n; ++t) {
        const Fiber& f = w.fibers[t];
        if (f.state == FiberState::kAtPhase) {
            if (!waiter) waiter = &f;
            ++waiting;
        } else if (f.state == FiberState::kDone) {
            ++exited;
        } else if (f.state == FiberState::kAtBarrier) {
            if (!at_barrier++) barrier_pc = f.barrier_pc;
        }
    }
    if (!waiter) return false;
    const auto* b = static_cast<const PhaseBarrier*>(waiter->awaited);
    std::string text = "barrier wait never completes: " + thread_name(w, waiter->linear) + " waits at " +
                       waiter->awaited_call + " at %1 for a phase that still expects " + std::to_string(b->pending) +
                       " of its " + std::to_string(b->expected) +
                       " arrivals, and no thread can arrive: " + std::to_string(waiting) + " thread" +
                       (waiting == 1 ? "" : "s") + " wait for a phase, " + std::to_string(exited) + " ha" +
                       (exited == 1 ? "s" : "ve") + " exited";
    if (at_barrier) text += ", " + std::to_string(at_barrier) + " wait at __syncthreads() at %2";
    text += " — does every thread the barrier expects arrive (or leave with arrive_and_drop())? On a GPU this hangs";
    block_error(w, DiagKind::kBarrier, waiter->linear, waiter->barrier_pc, barrier_pc, text);
    return true;
}

}  // namespace cudaemu
