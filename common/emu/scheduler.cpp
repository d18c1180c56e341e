// scheduler.cpp — fibers and the block scheduler: a worker's stacks and contexts, how a block's threads run to
// their barriers and past them (and what a divergent barrier looks like), the pool of worker threads that share a
// grid's blocks, and the watchdog that stops a kernel running past CUDAEMU_TIMEOUT.
#include "requests.h"
#include "scheduler.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>

#include "api.h"
#include "async.h"
#include "checks.h"
#include "memory.h"
#include "symbols.h"
#include "warp.h"

#if !defined(CUDAEMU_UCONTEXT)
using boost::context::detail::fcontext_t;
using boost::context::detail::jump_fcontext;
using boost::context::detail::make_fcontext;
using boost::context::detail::transfer_t;
#endif

namespace cudaemu {

std::atomic<bool> g_abort_kernel{false};

uint3 unlinearize(uint64_t t, dim3 d) {
    return uint3{static_cast<unsigned>(t % d.x), static_cast<unsigned>((t / d.x) % d.y),
                 static_cast<unsigned>(t / (uint64_t(d.x) * d.y))};
}

std::string coord(uint3 v) {
    return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string tid_coord(const Worker& w, uint16_t tid) { return coord(unlinearize(tid, w.launch->block)); }

std::string thread_name(const Worker& w, uint32_t t) {
    return "thread " + tid_coord(w, static_cast<uint16_t>(t)) + " of block " + coord(w.block_idx);
}

namespace {

int find_tls_block(dl_phdr_info* info, size_t, void* out) {
    auto* range = static_cast<std::pair<uintptr_t, uintptr_t>*>(out);
    for (int i = 0; i < info->dlpi_phnum; ++i)
        if (info->dlpi_phdr[i].p_type == PT_TLS)
            *range = {reinterpret_cast<uintptr_t>(info->dlpi_tls_data), info->dlpi_phdr[i].p_memsz};
    return 1;  // the first module is the executable
}

// The lowest address of this thread's static thread-local storage: the blocks of the modules loaded with the program
// lie below the executable's, within a few KiB (a module opened later has its block elsewhere, on the heap)
struct TlsBounds {
    uintptr_t lowest, floor;
};
int find_lowest_tls(dl_phdr_info* info, size_t, void* out) {
    auto* bounds = static_cast<TlsBounds*>(out);
    const auto data = reinterpret_cast<uintptr_t>(info->dlpi_tls_data);
    if (data >= bounds->floor && data < bounds->lowest) bounds->lowest = data;
    return 0;
}

// Where the emulator's own thread-local variables (tls_worker, ...) start in the executable's TLS block, if they all
// come after the program's (its objects are linked first): the end of the program's shared memory. Else `size`.
uintptr_t program_tls_end(uintptr_t size) {
    auto ours = [](const std::string& name) {
        return name.compare(0, 11, "_ZN7cudaemu") == 0 || name.compare(0, 12, "_ZZN7cudaemu") == 0;
    };
    uint64_t runtime_lo = size, program_hi = 0;
    for (const ElfSymbol& s : executable_symbols()) {
        if (s.type != STT_TLS) continue;
        if (ours(s.name))
            runtime_lo = std::min(runtime_lo, s.value);
        else
            program_hi = std::max(program_hi, s.value + s.size);
    }
    return program_hi <= runtime_lo ? runtime_lo : size;
}

void init_worker(Worker& w) {
    std::pair<uintptr_t, uintptr_t> range{0, 0};
    dl_iterate_phdr(find_tls_block, &range);
    w.shared_lo = range.first;
    w.shared_size = range.first ? program_tls_end(range.second) : 0;
    if (range.first) {
        TlsBounds bounds{range.first, range.first > 65536 ? range.first - 65536 : 0};
        dl_iterate_phdr(find_lowest_tls, &bounds);
        const uintptr_t lowest = bounds.lowest;
        // the other modules' blocks lie below the executable's; x86-64's glibc keeps the thread's control block
        // (struct pthread, about 2 KiB) right after it, which 4 KiB more covers
        w.tls_lo = lowest;
        w.tls_size = range.first + range.second + 4096 - lowest;
    }
    w.shadow_words.assign(w.shared_size / 4 + 1, ShadowByte{});
    w.split.assign(w.shared_size / 4 + 1, 0);
    w.shadow_bytes.assign(w.shared_size + 4, ShadowByte{});
    for (const ElfSymbol& s : executable_symbols())
        if (s.name == CUDAEMU_DYNAMIC_SHARED && s.value + s.size <= w.shared_size)
            w.dynamic_lo = s.value, w.dynamic_size = s.size;
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
    w.pair_sync.assign(1024 * 32, 0);
    tls_worker = &w;
}

// Context switches. A fiber runs until it calls yield_to_scheduler (at a barrier) or leave_fiber (done, aborted).
#if defined(CUDAEMU_UCONTEXT)
}  // namespace
void yield_to_scheduler(Worker& w) { swapcontext(&w.current->ctx.uc, &w.scheduler.uc); }

namespace {
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
}  // namespace
void yield_to_scheduler(Worker& w) {
    transfer_t t = jump_fcontext(w.scheduler.ctx, nullptr);
    w.scheduler.ctx = t.fctx;
}

namespace {
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

}  // namespace

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

namespace {

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
    f.stack = stack_index;
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

}  // namespace

void block_error(Worker& w, DiagKind kind, uint32_t thread, uintptr_t pc1, uintptr_t pc2, std::string text) {
    add_diag(w, kind, thread, pc1, pc2, std::move(text));
    w.block_fatal = true;
    w.block_error = cudaErrorLaunchFailure;
}

namespace {

void barrier_error(Worker& w, uint32_t thread, uintptr_t pc1, uintptr_t pc2, std::string text) {
    block_error(w, DiagKind::kBarrier, thread, pc1, pc2, std::move(text));
}

// Threads run in index order, each until it finishes or waits (at a barrier or a warp collective); threads released
// meanwhile run in the next sweep. A thread runs on stack 0 unless a waiting thread holds it, so a block that never
// waits reuses one stack. When no thread can run, the threads waiting at __activemask() learn which lanes are with
// them; then either every thread waits at the same barrier (it opens), or the block is stuck: a warp collective whose
// lanes are elsewhere, or a divergent barrier.
}  // namespace

void begin_block(Worker& w, uint64_t linear) {
    Launch& L = *w.launch;
    w.block_linear = linear;
    w.block_idx = unlinearize(linear, L.grid);
    w.pending_store.a = 0;
    w.block_fatal = false;
    w.block_error = cudaSuccess;
    w.block_first_epoch = ++w.epoch;
    w.interval_start = w.epoch;
    reset_warps(w);
    reset_async(w);
    begin_block_requests(w);
    w.ready = 0;
    w.stack0_owner = -1;
}

BlockEnd run_block_threads(Worker& w, uint32_t started) {
    const uint32_t n = w.launch->threads_per_block;
    for (;;) {
        for (uint32_t t = 0; t < n && (started < n || w.ready); ++t) {
            Fiber& f = w.fibers[t];
            if (t >= started) {
                start_fiber(w, t, w.stack0_owner < 0 ? 0 : t);
                started = t + 1;
            } else if (f.state == FiberState::kReady) {
                --w.ready;
            } else {
                continue;
            }
            resume(w, f);
            if (w.block_fatal) return BlockEnd::kFatal;
            if (f.state == FiberState::kDone) {
                finish_thread(w, f);
                if (w.stack0_owner == int64_t(t)) w.stack0_owner = -1;
                warp_lane_exited(w, t);
            } else if (f.stack == 0) {
                w.stack0_owner = t;
            }
            if (w.count_requests) warp_waits(w, t);
        }
        if (w.ready || resolve_activemask(w)) continue;
        if (warp_stalled(w) || phase_wait_stalled(w)) return BlockEnd::kFatal;
        int64_t first_waiting = -1, first_done = -1;
        for (uint32_t t = 0; t < n; ++t) {
            FiberState s = w.fibers[t].state;
            if (s == FiberState::kAtBarrier && first_waiting < 0) first_waiting = t;
            if (s == FiberState::kDone && first_done < 0) first_done = t;
        }
        if (first_waiting < 0) {  // every thread finished
            finish_warp_requests(w);
            return BlockEnd::kDone;
        }
        const Fiber& waiter = w.fibers[first_waiting];
        if (first_done >= 0) {
            const Fiber& done = w.fibers[first_done];
            barrier_error(
                w, waiter.linear, waiter.barrier_pc, 0,
                "divergent barrier: thread " + coord(waiter.idx) + " of block " + coord(w.block_idx) +
                    " waits at __syncthreads() at %1, but thread " + coord(done.idx) +
                    " has exited without reaching it — did it return before the barrier, or is a __syncthreads() "
                    "inside an if that not every thread takes?");
            return BlockEnd::kFatal;
        }
        int count = 0;
        for (uint32_t t = 0; t < n; ++t) {
            const Fiber& f = w.fibers[t];
            if (!same_source_line(f.barrier_pc, waiter.barrier_pc)) {
                barrier_error(w, f.linear, f.barrier_pc, waiter.barrier_pc,
                              "divergent barrier: in block " + coord(w.block_idx) + ", thread " + coord(f.idx) +
                                  " waits at __syncthreads() at %1 while thread " + coord(waiter.idx) +
                                  " waits at a different __syncthreads() at %2");
                return BlockEnd::kFatal;
            }
            count += f.barrier_predicate != 0;
        }
        judge_pending_reads(w);
        finish_warp_requests(w);
        w.barrier_count = count;
        ++w.block_barriers;
        w.interval_start = ++w.epoch;                           // everyone arrived: a new barrier interval begins
        if (waiter.at_grid_sync) return BlockEnd::kAtGridSync;  // released by the cooperative scheduler
        for (uint32_t t = 0; t < n; ++t) w.fibers[t].state = FiberState::kReady;
        w.ready = n;
    }
}

namespace {

void run_block(Worker& w, uint64_t linear) {
    w.pending_reads.clear();
    begin_block(w, linear);
    run_block_threads(w, 0);
    if (w.pending_store.a) judge_pending_store(w);
    if (w.launch->finished) w.launch->finished[linear].store(1, std::memory_order_release);
    if (!w.block_fatal) judge_pending_reads(w);
    w.pending_reads.clear();
}

}  // namespace

void begin_launch(Worker& w, Launch& L) {
    w.launch = &L;
    begin_launch_requests(w);
    w.dynamic_limit = w.dynamic_lo + std::min(L.dynamic_shared_bytes, w.dynamic_size);
    w.dynamic_slack = w.dynamic_lo + w.dynamic_size - w.dynamic_limit;
    w.global_load = w.global_store = w.shared_load = w.shared_store = 0;
    w.tensor_flops = w.tf32_unrounded_inputs = w.tf32_unrounded_a_inputs = w.block_barriers = 0;
    for (uint64_t& n : w.tensor_flops_by_type) n = 0;
    w.ptx_mma_flops = w.ldmatrix_bytes = 0;
    for (uint64_t& n : w.flops) n = 0;
    w.max_thread_load = w.max_thread_store = 0;
    w.alloc_load.assign(g_allocations.size(), 0);
    w.alloc_store.assign(g_allocations.size(), 0);
    std::fill(std::begin(w.line_loads), std::end(w.line_loads), Worker::LineLoads{});
    w.line_loads_full = false;
    w.diags.clear();
    w.cross_warp_races.clear();
    w.fragment_sites.clear();
    w.first_fatal_block = UINT64_MAX;
    w.fatal_error = cudaSuccess;
}

namespace {

void run_blocks(Worker& w, Launch& L) {
    begin_launch(w, L);
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
            if (L.cooperative) L.next_block.store(L.total_blocks);  // the other workers reset their counts, run nothing
        }
        cv_start_.notify_all();
        if (L.cooperative)
            run_cooperative(*main_worker_, L);  // every block on this thread; the other workers find none
        else
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
            fprintf(
                stderr,
                "cudaemu: timeout: kernel '%s' did not finish within %d s (CUDAEMU_TIMEOUT) and could not be stopped "
                "— is there an endless loop? Exiting.\n",
                g_watched_name.c_str(), static_cast<int>(config().timeout_s));
            fflush(stderr);
            _exit(124);
        }
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// The grid as a cooperative group (include/cooperative_groups.h)
// ---------------------------------------------------------------------------------------------------------------
bool grid_is_cooperative() {
    const Worker* w = tls_worker;
    return w && w->current && w->launch->cooperative;
}

void grid_sync(const char* file, int line) {
    Worker* w = tls_worker;
    if (!w || !w->current) return;
    if (!w->launch->cooperative) {
        block_error(*w, DiagKind::kBarrier, w->current->linear, site_pc(file, line), 0,
                    "grid.sync() at %1 in kernel '" + std::string(w->launch->site.kernel) +
                        "', which was not launched with cudaLaunchCooperativeKernel — a grid-wide barrier needs every "
                        "block resident at once, which only a cooperative launch promises");
        abort_block(*w, cudaErrorLaunchFailure);
    }
    w->current->at_grid_sync = true;
    block_sync(file, line);
    w->current->at_grid_sync = false;
}

std::vector<Worker*> all_workers() { return Pool::get().all_workers(); }

void run_grid(Launch& L) { Pool::get().run(L); }

void watch(const Launch* L) {
    static std::once_flag started;
    std::call_once(started, [] { std::thread(watchdog).detach(); });
    std::lock_guard<std::mutex> lock(g_watch_mutex);
    g_watched = L;
    if (L) g_watched_name = L->site.kernel;
}

}  // namespace cudaemu
