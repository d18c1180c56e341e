// cudaemu_async.h — the CPU emulator's split barriers and asynchronous copies, behind <cuda/barrier> and
// <cuda/pipeline>:
//   cuda::barrier<thread_scope_block> (and cuda::std::barrier): init, arrive, wait, arrive_and_wait,
//     arrive_and_drop, a completion function, max;
//   cuda::pipeline: make_pipeline() (one thread, any number of stages in flight) and
//     make_pipeline(group, &pipeline_shared_state, role or producer count) (block scope, a fixed number of stages):
//     producer_acquire/commit, consumer_wait/release; cuda::pipeline_consumer_wait_prior<N>;
//   cuda::memcpy_async(dst, src, size or cuda::aligned_size_t<A>, pipeline or barrier), and its group form.
// A thread waiting for a phase yields to the block scheduler until the phase completes (common/emu/async.cpp).
// memcpy_async copies at once, with ordinary (counted, checked) loads and stores, and marks its destination as
// in flight until a wait that covers it returns: an access to it before then is reported as a race. A completed
// phase of a block-scoped barrier or pipeline orders accesses as __syncthreads() does (docs/emulator.md).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

namespace cuda {
enum thread_scope { thread_scope_system = 0, thread_scope_device = 1, thread_scope_block = 2, thread_scope_thread = 3 };
}  // namespace cuda

namespace cudaemu {
// One barrier counting phases: a cuda::barrier, or one stage of a pipeline. Trivial, so that it can be __shared__;
// only the runtime reads and writes it (its accesses are the barrier's, not the program's).
struct PhaseBarrier {
    uint64_t block;    // the block that initialised it: another block's leftover in shared memory is not initialised
    int64_t expected;  // arrivals per phase
    int64_t pending;   // arrivals still missing in the current phase
    int64_t dropped;   // arrive_and_drop()s in the current phase: later phases expect that many fewer
    uint64_t phase;    // phases completed
    int32_t scope;     // cuda::thread_scope
};
// `what` names the call in diagnostics ("cuda::barrier::wait()"); file and line are the caller's.
void phase_init(PhaseBarrier* b, ptrdiff_t expected, int scope, const char* what, const char* file, int line);
// Arrives `count` times (and, with `drop`, leaves the later phases); the last arrival of a phase runs
// completion(object) when given, then releases the phase's waiters. Returns the phase arrived at.
uint64_t phase_arrive(PhaseBarrier* b, ptrdiff_t count, bool drop, void (*completion)(void*), void* object,
                      const char* what, const char* file, int line);
// Waits until `phases` phases of b have completed; then the copies that completed with them are no longer in flight.
void phase_wait(PhaseBarrier* b, uint64_t phases, const char* what, const char* file, int line);
// memcpy_async's destination [dst, dst + bytes) is in flight until a wait for `phases` phases of `key` returns
// (key: a PhaseBarrier, or a one-thread pipeline's id); phases 0: the PhaseBarrier's current phase.
void async_copy_issued(void* dst, size_t bytes, const void* key, uint64_t phases, const char* file, int line);
// ... for a one-thread pipeline: its copies of the batches up to `batches` have arrived.
void async_copies_done(const void* key, uint64_t batches);
const void* new_pipeline_key();
// make_pipeline(group, &shared_state, ...): each thread of the group says whether it produces and consumes; the
// first to call pipeline_stages after that initialises the stages' barriers.
struct PipelineCounts {
    int64_t producers, consumers;
    uint64_t block;
};
void pipeline_join(PipelineCounts* counts, bool producer, bool consumer);
void pipeline_stages(PipelineCounts* counts, PhaseBarrier* produced, PhaseBarrier* consumed, int stages,
                     const char* file, int line);

struct EmptyCompletion {
    void operator()() const noexcept {}
};

// The copy itself, in pieces of `align` bytes (1 to 16): ordinary loads and stores, counted and checked as such.
inline void async_copy(void* dst, const void* src, size_t bytes, size_t align) {
    char* d = static_cast<char*>(dst);
    const char* s = static_cast<const char*>(src);
    if (align >= 16) {
        for (size_t i = 0; i < bytes; i += 16) *reinterpret_cast<int4*>(d + i) = *reinterpret_cast<const int4*>(s + i);
    } else if (align >= 8) {
        for (size_t i = 0; i < bytes; i += 8) *reinterpret_cast<int2*>(d + i) = *reinterpret_cast<const int2*>(s + i);
    } else if (align >= 4) {
        for (size_t i = 0; i < bytes; i += 4) *reinterpret_cast<int*>(d + i) = *reinterpret_cast<const int*>(s + i);
    } else if (align >= 2) {
        for (size_t i = 0; i < bytes; i += 2) *reinterpret_cast<short*>(d + i) = *reinterpret_cast<const short*>(s + i);
    } else {
        for (size_t i = 0; i < bytes; ++i) d[i] = s[i];
    }
}
// The alignment a plain size_t copy can use: what both addresses and the size share, up to 16.
inline size_t common_alignment(const void* dst, const void* src, size_t bytes) {
    const uintptr_t bits = reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src) | bytes | 16;
    return bits & (~bits + 1);
}
}  // namespace cudaemu

#define CUDAEMU_ASYNC_SITE const char *file_ = __builtin_FILE(), int line_ = __builtin_LINE()

namespace cuda {
template <size_t Alignment>
struct aligned_size_t {
    static_assert(Alignment && (Alignment & (Alignment - 1)) == 0, "cuda::aligned_size_t: a power of two");
    static constexpr size_t align = Alignment;
    size_t value;
    constexpr explicit aligned_size_t(size_t size) : value(size) {}
    constexpr operator size_t() const { return value; }
};

namespace emu_detail {
inline size_t size_of(size_t s) { return s; }
template <size_t A>
size_t size_of(aligned_size_t<A> s) {
    return s.value;
}
inline size_t align_of(size_t s, const void* dst, const void* src) { return ::cudaemu::common_alignment(dst, src, s); }
template <size_t A>
size_t align_of(aligned_size_t<A>, const void*, const void*) {
    return A < 16 ? A : 16;
}
}  // namespace emu_detail

// ---------------------------------------------------------------------------------------------------------------
// cuda::barrier
// ---------------------------------------------------------------------------------------------------------------
template <thread_scope Scope, class CompletionF = ::cudaemu::EmptyCompletion>
class barrier {
    static_assert(Scope != thread_scope_thread,
                  "cuda::barrier<cuda::thread_scope_thread> is not supported by the CPU "
                  "emulator: use thread_scope_block");

  public:
    class arrival_token {
      public:
        arrival_token() = default;
        explicit arrival_token(uint64_t phase) : phase_(phase) {}
        uint64_t phase_ = 0;
    };

    barrier() = default;
    barrier(const barrier&) = delete;
    barrier& operator=(const barrier&) = delete;
    barrier(ptrdiff_t expected, CompletionF completion = CompletionF(), CUDAEMU_ASYNC_SITE) {
        init_here(expected, ::std::move(completion), file_, line_);
    }

    [[nodiscard]] arrival_token arrive(ptrdiff_t update = 1, CUDAEMU_ASYNC_SITE) {
        return arrival_token(::cudaemu::phase_arrive(&state_, update, false, run_completion, this,
                                                     "cuda::barrier::arrive()", file_, line_));
    }
    void wait(arrival_token&& token, CUDAEMU_ASYNC_SITE) const {
        ::cudaemu::phase_wait(const_cast<::cudaemu::PhaseBarrier*>(&state_), token.phase_ + 1, "cuda::barrier::wait()",
                              file_, line_);
    }
    void arrive_and_wait(CUDAEMU_ASYNC_SITE) {
        const uint64_t phase = ::cudaemu::phase_arrive(&state_, 1, false, run_completion, this,
                                                       "cuda::barrier::arrive_and_wait()", file_, line_);
        ::cudaemu::phase_wait(&state_, phase + 1, "cuda::barrier::arrive_and_wait()", file_, line_);
    }
    void arrive_and_drop(CUDAEMU_ASYNC_SITE) {
        (void)::cudaemu::phase_arrive(&state_, 1, true, run_completion, this, "cuda::barrier::arrive_and_drop()", file_,
                                      line_);
    }
    static constexpr ptrdiff_t max() noexcept { return (ptrdiff_t(1) << 30) - 1; }

    // for init() and memcpy_async
    void init_here(ptrdiff_t expected, CompletionF completion, const char* file, int line) {
        ::cudaemu::phase_init(&state_, expected, Scope, "init(cuda::barrier*)", file, line);
        new (&completion_) CompletionF(::std::move(completion));
    }
    ::cudaemu::PhaseBarrier* phase_state() { return &state_; }

  private:
    static void run_completion(void* self) { static_cast<barrier*>(self)->completion_(); }
    ::cudaemu::PhaseBarrier state_;
    CompletionF completion_;
};

template <thread_scope Scope, class CompletionF>
void init(barrier<Scope, CompletionF>* b, ptrdiff_t expected, CompletionF completion = CompletionF(),
          CUDAEMU_ASYNC_SITE) {
    b->init_here(expected, ::std::move(completion), file_, line_);
}

namespace std {
template <class CompletionF = ::cudaemu::EmptyCompletion>
class barrier : public ::cuda::barrier<thread_scope_system, CompletionF> {
  public:
    using ::cuda::barrier<thread_scope_system, CompletionF>::barrier;
};
template <class CompletionF>
void init(barrier<CompletionF>* b, ptrdiff_t expected, CompletionF completion = CompletionF(), CUDAEMU_ASYNC_SITE) {
    b->init_here(expected, ::std::move(completion), file_, line_);
}
}  // namespace std

// The copy completes with the barrier's current phase: a wait for that phase waits for the copy too.
template <class Shape, thread_scope Scope, class CompletionF>
void memcpy_async(void* dst, const void* src, Shape size, barrier<Scope, CompletionF>& bar, CUDAEMU_ASYNC_SITE) {
    const size_t bytes = emu_detail::size_of(size);
    ::cudaemu::async_copy(dst, src, bytes, emu_detail::align_of(size, dst, src));
    ::cudaemu::async_copy_issued(dst, bytes, bar.phase_state(), 0, file_, line_);
}

// ---------------------------------------------------------------------------------------------------------------
// cuda::pipeline
// ---------------------------------------------------------------------------------------------------------------
enum class pipeline_role { producer, consumer };

template <thread_scope Scope, uint8_t StagesCount>
class pipeline_shared_state {
    static_assert(Scope == thread_scope_block,
                  "cuda::pipeline_shared_state: the CPU emulator supports "
                  "thread_scope_block (a pipeline of one thread block)");
    static_assert(StagesCount > 0, "cuda::pipeline_shared_state: at least one stage");

  public:
    pipeline_shared_state() = default;
    pipeline_shared_state(const pipeline_shared_state&) = delete;
    ::cudaemu::PhaseBarrier produced[StagesCount];  // phase k of stage s: its k-th batch has been committed
    ::cudaemu::PhaseBarrier consumed[StagesCount];  // phase k of stage s: its k-th batch has been released
    ::cudaemu::PipelineCounts counts;               // producers and consumers, counted by make_pipeline
};

template <thread_scope Scope>
class pipeline;

// One thread's pipeline: every batch it commits is one stage; any number may be in flight. consumer_wait() waits
// for the oldest batch not yet waited for or released (programs that never release, as CUDA's samples do, work).
template <>
class pipeline<thread_scope_thread> {
  public:
    pipeline() : key_(::cudaemu::new_pipeline_key()) {}
    void producer_acquire() {}
    void producer_commit() { ++committed_; }
    void consumer_wait() {
        const uint64_t oldest = (waited_ > released_ ? waited_ : released_) + 1;
        waited_ = oldest < committed_ ? oldest : committed_;
        ::cudaemu::async_copies_done(key_, waited_);
    }
    void consumer_release() {
        if (released_ < committed_) ++released_;
    }
    bool quit() { return true; }

    // every batch but the `n` most recently committed has arrived; the batches before that one are released
    void wait_prior(uint64_t n) {
        if (committed_ <= n) return;
        if (waited_ < committed_ - n) waited_ = committed_ - n;
        if (released_ + 1 < waited_) released_ = waited_ - 1;
        ::cudaemu::async_copies_done(key_, committed_ - n);
    }
    void copied(void* dst, size_t bytes, const char* file, int line) {
        ::cudaemu::async_copy_issued(dst, bytes, key_, committed_ + 1, file, line);
    }

  private:
    const void* key_;
    uint64_t committed_ = 0, waited_ = 0, released_ = 0;
};

// A block's pipeline: StagesCount stages shared by the group's producers and consumers.
template <>
class pipeline<thread_scope_block> {
  public:
    pipeline(::cudaemu::PhaseBarrier* produced, ::cudaemu::PhaseBarrier* consumed, int stages)
        : produced_(produced), consumed_(consumed), stages_(stages) {}

    void producer_acquire(CUDAEMU_ASYNC_SITE) {  // the stage is free once its previous batch was released
        ::cudaemu::phase_wait(&consumed_[head_ % stages_], head_ / stages_, "cuda::pipeline::producer_acquire()", file_,
                              line_);
    }
    void producer_commit(CUDAEMU_ASYNC_SITE) {
        (void)::cudaemu::phase_arrive(&produced_[head_ % stages_], 1, false, nullptr, nullptr,
                                      "cuda::pipeline::producer_commit()", file_, line_);
        ++head_;
    }
    void consumer_wait(CUDAEMU_ASYNC_SITE) {
        ::cudaemu::phase_wait(&produced_[tail_ % stages_], tail_ / stages_ + 1, "cuda::pipeline::consumer_wait()",
                              file_, line_);
    }
    void consumer_release(CUDAEMU_ASYNC_SITE) {
        (void)::cudaemu::phase_arrive(&consumed_[tail_ % stages_], 1, false, nullptr, nullptr,
                                      "cuda::pipeline::consumer_release()", file_, line_);
        ++tail_;
    }
    bool quit() { return true; }

    void copied(void* dst, size_t bytes, const char* file, int line) {
        ::cudaemu::async_copy_issued(dst, bytes, &produced_[head_ % stages_], head_ / stages_ + 1, file, line);
    }

  private:
    ::cudaemu::PhaseBarrier* produced_;
    ::cudaemu::PhaseBarrier* consumed_;
    int stages_;
    uint64_t head_ = 0, tail_ = 0;
};

inline pipeline<thread_scope_thread> make_pipeline() { return pipeline<thread_scope_thread>(); }

namespace emu_detail {
template <class Group, uint8_t S>
pipeline<thread_scope_block> join(const Group& group, pipeline_shared_state<thread_scope_block, S>* state,
                                  bool producer, bool consumer, const char* file, int line) {
    group.sync(file, line);
    ::cudaemu::pipeline_join(&state->counts, producer, consumer);
    group.sync(file, line);
    ::cudaemu::pipeline_stages(&state->counts, state->produced, state->consumed, S, file, line);
    return pipeline<thread_scope_block>(state->produced, state->consumed, S);
}
}  // namespace emu_detail

// every thread of the group produces and consumes
template <class Group, thread_scope Scope, uint8_t S>
pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, S>* state, CUDAEMU_ASYNC_SITE) {
    return emu_detail::join(group, state, true, true, file_, line_);
}
// the first producer_count threads of the group (by thread_rank) produce, the others consume
template <class Group, thread_scope Scope, uint8_t S>
pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, S>* state, size_t producer_count,
                              CUDAEMU_ASYNC_SITE) {
    const bool producer = group.thread_rank() < producer_count;
    return emu_detail::join(group, state, producer, !producer, file_, line_);
}
template <class Group, thread_scope Scope, uint8_t S>
pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, S>* state, pipeline_role role,
                              CUDAEMU_ASYNC_SITE) {
    const bool producer = role == pipeline_role::producer;
    return emu_detail::join(group, state, producer, !producer, file_, line_);
}

template <class Shape, thread_scope Scope>
void memcpy_async(void* dst, const void* src, Shape size, pipeline<Scope>& pipe, CUDAEMU_ASYNC_SITE) {
    const size_t bytes = emu_detail::size_of(size);
    ::cudaemu::async_copy(dst, src, bytes, emu_detail::align_of(size, dst, src));
    pipe.copied(dst, bytes, file_, line_);
}

// The group's threads share the copy: thread r copies pieces r, r + size, ... of the group's alignment.
template <class Group, class Shape, class Sync>
auto memcpy_async(const Group& group, void* dst, const void* src, Shape size, Sync& sync, CUDAEMU_ASYNC_SITE)
    -> decltype(group.thread_rank(), void()) {
    const size_t bytes = emu_detail::size_of(size), align = emu_detail::align_of(size, dst, src);
    const size_t pieces = bytes / align, rank = group.thread_rank(), count = group.size();
    for (size_t p = rank; p < pieces; p += count) {
        char* d = static_cast<char*>(dst) + p * align;
        const char* s = static_cast<const char*>(src) + p * align;
        ::cudaemu::async_copy(d, s, align, align);
        if constexpr (::std::is_same_v<Sync, pipeline<thread_scope_thread>> ||
                      ::std::is_same_v<Sync, pipeline<thread_scope_block>>) {
            sync.copied(d, align, file_, line_);
        } else {
            ::cudaemu::async_copy_issued(d, align, sync.phase_state(), 0, file_, line_);
        }
    }
}

template <uint8_t Prior>
void pipeline_consumer_wait_prior(pipeline<thread_scope_thread>& pipe) {
    pipe.wait_prior(Prior);
}
inline void pipeline_producer_commit(pipeline<thread_scope_thread>& pipe, barrier<thread_scope_block>& bar) {
    pipe.producer_commit();
    pipe.wait_prior(0);  // the batch completes with the barrier's phase: here, it is complete once made
    (void)bar;
}
}  // namespace cuda

#undef CUDAEMU_ASYNC_SITE
