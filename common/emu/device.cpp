// device.cpp — device-side functions that kernel code calls: the built-in variables (threadIdx, ...),
// __syncthreads, the fences, clock(), atomics (counted as a load and a store, never a race), and assert().
#include <errno.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

#include <atomic>
#include <cstdint>

#include "checks.h"
#include "include/cuda_runtime.h"
#include "memory.h"
#include "scheduler.h"

namespace cudaemu {

uint3 thread_idx() { return tls_worker->current->idx; }
uint3 block_idx() { return tls_worker->block_idx; }
dim3 block_dim() { return tls_worker->launch->block; }
dim3 grid_dim() { return tls_worker->launch->grid; }

}  // namespace cudaemu

using namespace cudaemu;

extern "C" {
// assert() failing in kernel code: the GPU's message, with the block and the thread, on standard error (where the
// H100's driver prints it, word for word the same); then the block stops and the launch fails with cudaErrorAssert,
// which stays, as on a GPU. In host code the C library's message and abort(), as assert() does there.
[[noreturn]] void __assert_fail(const char* expr, const char* file, unsigned line, const char* function) noexcept {
    Worker* w = tls_worker;
    if (w && w->current) {
        const uint3 b = w->block_idx, t = w->current->idx;
        std::fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file, line,
                     function, b.x, b.y, b.z, t.x, t.y, t.z, expr);
        abort_block(*w, cudaErrorAssert);
    }
    std::fprintf(stderr, "%s: %s:%u: %s: Assertion `%s' failed.\n", program_invocation_short_name, file, line, function,
                 expr);
    std::abort();
}

void __syncthreads(void) {
    Worker* w = tls_worker;
    if (!w || !w->current) return;  // called from host code: nothing to wait for
    if (g_abort_kernel.load(std::memory_order_relaxed)) abort_for_timeout(*w);
    w->current->barrier_pc = CUDAEMU_RA;
    w->current->state = FiberState::kAtBarrier;
    yield_to_scheduler(*w);
}
void __threadfence(void) {
    note_block_orders();
    std::atomic_thread_fence(std::memory_order_seq_cst);
}
void __threadfence_block(void) { std::atomic_thread_fence(std::memory_order_seq_cst); }

// CUDA's clock() in device code and the C library's clock() in host code share a name, and a kernel calls the one
// <time.h> declares, so the emulator defines that one (the executable's definition comes before the C library's).
// In a kernel it reads the SM's 32-bit cycle counter, as a GPU's does: here the low 32 bits of clock64(), which
// counts at the device's clockRate (1 GHz, one tick per nanosecond), sign-extended as a GPU's clock() is. Elsewhere
// it is the C library's: the process's processor time in units of CLOCKS_PER_SEC.
clock_t clock(void) noexcept {
    if (Worker* w = tls_worker; w && w->current)
        return static_cast<clock_t>(static_cast<int32_t>(static_cast<uint32_t>(clock64())));
    timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return static_cast<clock_t>(-1);
    return static_cast<clock_t>(t.tv_sec) * CLOCKS_PER_SEC + t.tv_nsec / (1000000000 / CLOCKS_PER_SEC);
}
}

// An atomic read-modify-write counts as a load and a store of its width. It is not a race with other atomics.
template <class T, class Op>
static T atomic_rmw(T* address, T value, uintptr_t pc, Op op) {
    uintptr_t a = reinterpret_cast<uintptr_t>(address);
    if (a - g_arena_base < g_arena_size) {
        global_access(a, sizeof(T), false, pc, 0);
        global_access(a, sizeof(T), true, pc, 0);
    } else if (Worker* w = tls_worker; w && w->current && a - w->shared_lo < w->shared_size) {
        w->shared_load += sizeof(T);
        w->shared_store += sizeof(T);
        size_t word = (a - w->shared_lo) / 4;  // counts as written for the uninitialised-read check, never as a race
        if (w->split[word])
            for (size_t i = 0; i < 4; ++i) w->shadow_bytes[word * 4 + i].write_epoch = w->block_first_epoch;
        else
            w->shadow_words[word].write_epoch = w->block_first_epoch;
    } else if (w && w->current) {  // w: the worker found above
        if (!g_registered.empty() && registered_access(*w, a, sizeof(T), false, pc, 0))
            registered_access(*w, a, sizeof(T), true, pc, 0);
        else if (around_shared_memory(*w, a))
            outside_shared_memory(*w, a, sizeof(T), true, pc);
    }
    return op(address, value);
}

int atomicAdd(int* address, int value) {
    return atomic_rmw(address, value, CUDAEMU_RA,
                      [](int* p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); });
}
unsigned int atomicAdd(unsigned int* address, unsigned int value) {
    return atomic_rmw(address, value, CUDAEMU_RA,
                      [](unsigned* p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); });
}
float atomicAdd(float* address, float value) {
    return atomic_rmw(address, value, CUDAEMU_RA, [](float* p, float v) {
        auto* bits = reinterpret_cast<uint32_t*>(p);
        uint32_t old = __atomic_load_n(bits, __ATOMIC_SEQ_CST);
        while (!__atomic_compare_exchange_n(bits, &old,
                                            __builtin_bit_cast(uint32_t, __builtin_bit_cast(float, old) + v), false,
                                            __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        }
        return __builtin_bit_cast(float, old);
    });
}
