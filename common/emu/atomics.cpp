// atomics.cpp — the atomic functions of cudaemu_atomics.h (atomicAdd on int, unsigned int and float is in
// device.cpp). Each counts as a load and a store of its width at the caller's source line; in shared memory it
// counts as written for the uninitialised-read check and is never a race with another atomic. The operation itself
// is a host atomic (sequentially consistent), so blocks running on different worker threads never lose an update.
#include <atomic>
#include <cstdint>

#include "checks.h"
#include "include/cuda_runtime.h"
#include "include/cudaemu_float16.h"
#include "memory.h"
#include "scheduler.h"

namespace cudaemu {
namespace {

void count_atomic(uintptr_t a, size_t size, uintptr_t pc) {
    if (a - g_arena_base < g_arena_size) {
        global_access(a, size, false, pc, 0);
        global_access(a, size, true, pc, 0);
    } else if (Worker* w = tls_worker; w && w->current && a - w->shared_lo < w->shared_size) {
        w->shared_load += size;
        w->shared_store += size;
        for (size_t word = (a - w->shared_lo) / 4; word <= (a - w->shared_lo + size - 1) / 4; ++word) {
            if (w->split[word])
                for (size_t i = 0; i < 4; ++i) w->shadow_bytes[word * 4 + i].write_epoch = w->block_first_epoch;
            else
                w->shadow_words[word].write_epoch = w->block_first_epoch;
        }
    } else if (w && w->current) {  // w: the worker found above
        if (!g_registered.empty() && registered_access(*w, a, size, false, pc, 0))
            registered_access(*w, a, size, true, pc, 0);
        else if (around_shared_memory(*w, a))
            outside_shared_memory(*w, a, size, true, pc);
    }
}

// Replaces *address with op(*address) atomically; returns the old value. T's bits are updated with a
// compare-and-swap loop, which serves every operation and type (float and double included).
template <class T, class Op>
T update(T* address, uintptr_t pc, Op op) {
    count_atomic(reinterpret_cast<uintptr_t>(address), sizeof(T), pc);
    T old = __atomic_load_n(address, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(address, &old, op(old), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    return old;
}

// Floating-point values are updated through their bits, so that the compare is bitwise (as a GPU's CAS is).
template <class F, class Bits, class Op>
F update_float(F* address, uintptr_t pc, Op op) {
    auto* bits = reinterpret_cast<Bits*>(address);
    return __builtin_bit_cast(
        F, update(bits, pc, [&](Bits old) { return __builtin_bit_cast(Bits, op(__builtin_bit_cast(F, old))); }));
}

}  // namespace
}  // namespace cudaemu

using cudaemu::update;
using cudaemu::update_float;

// The integer operations, each for every type CUDA has it for. CUDAEMU_RA must be read in the function the kernel
// called, so each is written out rather than forwarded.
#define CUDAEMU_ATOMIC(name, T, expr)                                             \
    T name(T* address, T value) {                                                 \
        return update(address, CUDAEMU_RA, [value](T old) -> T { return expr; }); \
    }
CUDAEMU_ATOMIC(atomicAdd, unsigned long long, old + value)
CUDAEMU_ATOMIC(atomicSub, int, static_cast<int>(static_cast<unsigned int>(old) - static_cast<unsigned int>(value)))
CUDAEMU_ATOMIC(atomicSub, unsigned int, old - value)
CUDAEMU_ATOMIC(atomicExch, int, value)
CUDAEMU_ATOMIC(atomicExch, unsigned int, value)
CUDAEMU_ATOMIC(atomicExch, unsigned long long, value)
CUDAEMU_ATOMIC(atomicMin, int, value < old ? value : old)
CUDAEMU_ATOMIC(atomicMin, unsigned int, value < old ? value : old)
CUDAEMU_ATOMIC(atomicMin, long long, value < old ? value : old)
CUDAEMU_ATOMIC(atomicMin, unsigned long long, value < old ? value : old)
CUDAEMU_ATOMIC(atomicMax, int, value > old ? value : old)
CUDAEMU_ATOMIC(atomicMax, unsigned int, value > old ? value : old)
CUDAEMU_ATOMIC(atomicMax, long long, value > old ? value : old)
CUDAEMU_ATOMIC(atomicMax, unsigned long long, value > old ? value : old)
CUDAEMU_ATOMIC(atomicInc, unsigned int, old >= value ? 0u : old + 1)
CUDAEMU_ATOMIC(atomicDec, unsigned int, (old == 0 || old > value) ? value : old - 1)
CUDAEMU_ATOMIC(atomicAnd, int, old& value)
CUDAEMU_ATOMIC(atomicAnd, unsigned int, old& value)
CUDAEMU_ATOMIC(atomicAnd, unsigned long long, old& value)
CUDAEMU_ATOMIC(atomicOr, int, old | value)
CUDAEMU_ATOMIC(atomicOr, unsigned int, old | value)
CUDAEMU_ATOMIC(atomicOr, unsigned long long, old | value)
CUDAEMU_ATOMIC(atomicXor, int, old ^ value)
CUDAEMU_ATOMIC(atomicXor, unsigned int, old ^ value)
CUDAEMU_ATOMIC(atomicXor, unsigned long long, old ^ value)
#undef CUDAEMU_ATOMIC

double atomicAdd(double* address, double value) {
    return update_float<double, uint64_t>(address, CUDAEMU_RA, [value](double old) { return old + value; });
}
float2 atomicAdd(float2* address, float2 value) {
    return update_float<float2, uint64_t>(
        address, CUDAEMU_RA, [value](float2 old) { return make_float2(old.x + value.x, old.y + value.y); });
}
float4 atomicAdd(float4* address, float4 value) {  // two 8-byte updates: each element is atomic, as CUDA promises
    auto* halves = reinterpret_cast<float2*>(address);
    const float2 lo = update_float<float2, uint64_t>(
        halves, CUDAEMU_RA, [value](float2 old) { return make_float2(old.x + value.x, old.y + value.y); });
    const float2 hi = update_float<float2, uint64_t>(
        halves + 1, CUDAEMU_RA, [value](float2 old) { return make_float2(old.x + value.z, old.y + value.w); });
    return make_float4(lo.x, lo.y, hi.x, hi.y);
}
__half atomicAdd(__half* address, __half value) {
    return update_float<__half, uint16_t>(address, CUDAEMU_RA, [value](__half old) { return old + value; });
}
__half2 atomicAdd(__half2* address, __half2 value) {
    return update_float<__half2, uint32_t>(address, CUDAEMU_RA, [value](__half2 old) { return old + value; });
}
__nv_bfloat16 atomicAdd(__nv_bfloat16* address, __nv_bfloat16 value) {
    return update_float<__nv_bfloat16, uint16_t>(address, CUDAEMU_RA,
                                                 [value](__nv_bfloat16 old) { return old + value; });
}
__nv_bfloat162 atomicAdd(__nv_bfloat162* address, __nv_bfloat162 value) {
    return update_float<__nv_bfloat162, uint32_t>(address, CUDAEMU_RA,
                                                  [value](__nv_bfloat162 old) { return old + value; });
}
float atomicExch(float* address, float value) {
    return update_float<float, uint32_t>(address, CUDAEMU_RA, [value](float) { return value; });
}

#define CUDAEMU_ATOMIC_CAS(T)                                                                                 \
    T atomicCAS(T* address, T compare, T value) {                                                             \
        return update(address, CUDAEMU_RA, [compare, value](T old) { return old == compare ? value : old; }); \
    }
CUDAEMU_ATOMIC_CAS(int)
CUDAEMU_ATOMIC_CAS(unsigned int)
CUDAEMU_ATOMIC_CAS(unsigned long long)
CUDAEMU_ATOMIC_CAS(unsigned short)
#undef CUDAEMU_ATOMIC_CAS
