// cudaemu_compat.h — what nvcc's CUDA headers give every program besides the runtime API: version macros,
// __align__ and __grid_constant__, <string.h>, the vector types with their make_* functions, the integer and
// floating-point intrinsics, cache-hinted loads and stores, clock64(). Included at the end of cuda_runtime.h.
//
// Intrinsics compute exactly what CUDA's documentation defines, in the host's IEEE arithmetic. The fast-math ones
// (__expf, __sinf, ...) are more accurate here than on a GPU, which computes them with hardware approximations.
#pragma once

#include <string.h>  // nvcc's cuda_runtime.h brings in <string.h>: memset and memcpy need no include there

#include <chrono>
#include <cstdint>

// The CUDA version this emulator's API follows (cuda_runtime_api.h's value for CUDA 13.0).
#define CUDART_VERSION 13000

#define __align__(n) __attribute__((aligned(n)))
// A kernel parameter that stays in the parameter space (no per-thread copy on a GPU). Each thread here reads its
// own copy of the same value, which a correct program cannot tell apart.
#define __grid_constant__

// ---------------------------------------------------------------------------------------------------------------
// Vector types not in cuda_runtime.h, with CUDA's sizes and alignments (vector_types.h)
// ---------------------------------------------------------------------------------------------------------------
#define CUDAEMU_VECTOR1(name, T, align) \
    struct alignas(align) name {        \
        T x;                            \
    };
#define CUDAEMU_VECTOR2(name, T, align) \
    struct alignas(align) name {        \
        T x, y;                         \
    };
#define CUDAEMU_VECTOR3(name, T) \
    struct name {                \
        T x, y, z;               \
    };
#define CUDAEMU_VECTOR4(name, T, align) \
    struct alignas(align) name {        \
        T x, y, z, w;                   \
    };
CUDAEMU_VECTOR1(char1, signed char, 1)
CUDAEMU_VECTOR2(char2, signed char, 2)
CUDAEMU_VECTOR3(char3, signed char)
CUDAEMU_VECTOR4(char4, signed char, 4)
CUDAEMU_VECTOR1(uchar1, unsigned char, 1)
CUDAEMU_VECTOR2(uchar2, unsigned char, 2)
CUDAEMU_VECTOR3(uchar3, unsigned char)
CUDAEMU_VECTOR4(uchar4, unsigned char, 4)
CUDAEMU_VECTOR1(short1, short, 2)
CUDAEMU_VECTOR2(short2, short, 4)
CUDAEMU_VECTOR3(short3, short)
CUDAEMU_VECTOR4(short4, short, 8)
CUDAEMU_VECTOR1(ushort1, unsigned short, 2)
CUDAEMU_VECTOR2(ushort2, unsigned short, 4)
CUDAEMU_VECTOR3(ushort3, unsigned short)
CUDAEMU_VECTOR4(ushort4, unsigned short, 8)
CUDAEMU_VECTOR1(int1, int, 4)
CUDAEMU_VECTOR3(int3, int)
CUDAEMU_VECTOR1(uint1, unsigned int, 4)
CUDAEMU_VECTOR2(uint2, unsigned int, 8)
CUDAEMU_VECTOR4(uint4, unsigned int, 16)
CUDAEMU_VECTOR1(long1, long, 8)
CUDAEMU_VECTOR2(long2, long, 16)
CUDAEMU_VECTOR3(long3, long)
CUDAEMU_VECTOR4(long4, long, 16)
CUDAEMU_VECTOR1(ulong1, unsigned long, 8)
CUDAEMU_VECTOR2(ulong2, unsigned long, 16)
CUDAEMU_VECTOR3(ulong3, unsigned long)
CUDAEMU_VECTOR4(ulong4, unsigned long, 16)
CUDAEMU_VECTOR1(longlong1, long long, 8)
CUDAEMU_VECTOR2(longlong2, long long, 16)
CUDAEMU_VECTOR3(longlong3, long long)
CUDAEMU_VECTOR4(longlong4, long long, 16)
CUDAEMU_VECTOR1(ulonglong1, unsigned long long, 8)
CUDAEMU_VECTOR2(ulonglong2, unsigned long long, 16)
CUDAEMU_VECTOR3(ulonglong3, unsigned long long)
CUDAEMU_VECTOR4(ulonglong4, unsigned long long, 16)
CUDAEMU_VECTOR1(float1, float, 4)
CUDAEMU_VECTOR3(float3, float)
CUDAEMU_VECTOR1(double1, double, 8)
CUDAEMU_VECTOR2(double2, double, 16)
CUDAEMU_VECTOR3(double3, double)
CUDAEMU_VECTOR4(double4, double, 16)
#undef CUDAEMU_VECTOR1
#undef CUDAEMU_VECTOR2
#undef CUDAEMU_VECTOR3
#undef CUDAEMU_VECTOR4

#define CUDAEMU_MAKE1(name, T) \
    inline name make_##name(T x) { return name{x}; }
#define CUDAEMU_MAKE2(name, T) \
    inline name make_##name(T x, T y) { return name{x, y}; }
#define CUDAEMU_MAKE3(name, T) \
    inline name make_##name(T x, T y, T z) { return name{x, y, z}; }
#define CUDAEMU_MAKE4(name, T) \
    inline name make_##name(T x, T y, T z, T w) { return name{x, y, z, w}; }
#define CUDAEMU_MAKE_ALL(prefix, T) \
    CUDAEMU_MAKE1(prefix##1, T) CUDAEMU_MAKE2(prefix##2, T) CUDAEMU_MAKE3(prefix##3, T) CUDAEMU_MAKE4(prefix##4, T)
CUDAEMU_MAKE_ALL(char, signed char)
CUDAEMU_MAKE_ALL(uchar, unsigned char)
CUDAEMU_MAKE_ALL(short, short)
CUDAEMU_MAKE_ALL(ushort, unsigned short)
CUDAEMU_MAKE_ALL(long, long)
CUDAEMU_MAKE_ALL(ulong, unsigned long)
CUDAEMU_MAKE_ALL(longlong, long long)
CUDAEMU_MAKE_ALL(ulonglong, unsigned long long)
CUDAEMU_MAKE_ALL(double, double)
CUDAEMU_MAKE1(int1, int)
CUDAEMU_MAKE3(int3, int)
CUDAEMU_MAKE1(uint1, unsigned int)
CUDAEMU_MAKE2(uint2, unsigned int)
CUDAEMU_MAKE4(uint4, unsigned int)
CUDAEMU_MAKE1(float1, float)
CUDAEMU_MAKE3(float3, float)
#undef CUDAEMU_MAKE1
#undef CUDAEMU_MAKE2
#undef CUDAEMU_MAKE3
#undef CUDAEMU_MAKE4
#undef CUDAEMU_MAKE_ALL

// ---------------------------------------------------------------------------------------------------------------
// Integer intrinsics (CUDA Math API, "Integer Intrinsics")
// ---------------------------------------------------------------------------------------------------------------
// 24-bit multiplies: the product of the low 24 bits of each operand (sign-extended for __mul24), low 32 bits kept.
inline int __mul24(int a, int b) {
    const int64_t a24 = static_cast<int32_t>(static_cast<uint32_t>(a) << 8) >> 8;
    const int64_t b24 = static_cast<int32_t>(static_cast<uint32_t>(b) << 8) >> 8;
    return static_cast<int>(static_cast<uint32_t>(a24 * b24));
}
inline unsigned int __umul24(unsigned int a, unsigned int b) {
    return static_cast<unsigned int>(uint64_t(a & 0xffffffu) * uint64_t(b & 0xffffffu));
}
inline int __mulhi(int a, int b) { return static_cast<int>((int64_t(a) * int64_t(b)) >> 32); }
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
    return static_cast<unsigned int>((uint64_t(a) * uint64_t(b)) >> 32);
}
inline long long __mul64hi(long long a, long long b) {
    return static_cast<long long>((static_cast<__int128>(a) * b) >> 64);
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
inline unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
// Byte s of the result is byte (s's selector nibble & 7) of the eight bytes y:x.
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    const uint64_t bytes = (uint64_t(y) << 32) | x;
    unsigned int r = 0;
    for (int i = 0; i < 4; ++i) r |= static_cast<unsigned int>((bytes >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}
inline unsigned int __sad(int x, int y, unsigned int z) {
    return z + static_cast<unsigned int>(x > y ? int64_t(x) - y : int64_t(y) - x);
}
inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return z + (x > y ? x - y : y - x); }
// Averages without overflow: (x + y) >> 1 and (x + y + 1) >> 1 computed in a wider type.
inline int __hadd(int x, int y) { return static_cast<int>((int64_t(x) + y) >> 1); }
inline int __rhadd(int x, int y) { return static_cast<int>((int64_t(x) + y + 1) >> 1); }
inline unsigned int __uhadd(unsigned int x, unsigned int y) {
    return static_cast<unsigned int>((uint64_t(x) + y) >> 1);
}
inline unsigned int __urhadd(unsigned int x, unsigned int y) {
    return static_cast<unsigned int>((uint64_t(x) + y + 1) >> 1);
}
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
    return static_cast<unsigned int>((((uint64_t(hi) << 32) | lo) << (shift & 31)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
    return static_cast<unsigned int>(((uint64_t(hi) << 32) | lo) >> (shift & 31));
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
    return static_cast<unsigned int>((((uint64_t(hi) << 32) | lo) << (shift > 32 ? 32 : shift)) >> 32);
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
    return static_cast<unsigned int>(((uint64_t(hi) << 32) | lo) >> (shift > 32 ? 32 : shift));
}

// ---------------------------------------------------------------------------------------------------------------
// Floating-point intrinsics and conversions. Round-to-nearest forms only: the host computes in that mode.
// ---------------------------------------------------------------------------------------------------------------
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
// rounded once, as the GPU's: in double the reciprocal square root of a float is close enough to round correctly
inline float __frsqrt_rn(float x) { return static_cast<float>(1.0 / sqrt(static_cast<double>(x))); }
inline float __tanf(float x) { return tanf(x); }
inline float __exp10f(float x) { return exp10f(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline void __sincosf(float x, float* s, float* c) { sincosf(x, s, c); }
inline float fdividef(float a, float b) { return a / b; }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __drcp_rn(double x) { return 1.0 / x; }
inline double __dsqrt_rn(double x) { return sqrt(x); }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline int __float2int_rz(float x) { return cudaemu_saturated<int>(truncf(x)); }
inline int __float2int_rd(float x) { return cudaemu_saturated<int>(floorf(x)); }
inline int __float2int_ru(float x) { return cudaemu_saturated<int>(ceilf(x)); }
inline unsigned int __float2uint_rn(float x) { return cudaemu_saturated<unsigned int>(nearbyintf(x)); }
inline unsigned int __float2uint_rz(float x) { return cudaemu_saturated<unsigned int>(truncf(x)); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline float __uint2float_rn(unsigned int x) { return static_cast<float>(x); }
inline float __double2float_rn(double x) { return static_cast<float>(x); }
inline int __double2int_rn(double x) { return cudaemu_saturated<int>(nearbyint(x)); }
inline int __double2int_rz(double x) { return cudaemu_saturated<int>(trunc(x)); }
inline unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
inline float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
inline long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
inline double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }

// ---------------------------------------------------------------------------------------------------------------
// Cache-hinted loads and stores: plain, counted accesses (the hint changes caching, never the value)
// ---------------------------------------------------------------------------------------------------------------
template <class T>
__forceinline__ T __ldcg(const T* p) {
    return *p;
}
template <class T>
__forceinline__ T __ldca(const T* p) {
    return *p;
}
template <class T>
__forceinline__ T __ldcs(const T* p) {
    return *p;
}
template <class T>
__forceinline__ T __ldlu(const T* p) {
    return *p;
}
template <class T>
__forceinline__ T __ldcv(const T* p) {
    return *p;
}
template <class T>
__forceinline__ void __stwb(T* p, T value) {
    *p = value;
}
template <class T>
__forceinline__ void __stcg(T* p, T value) {
    *p = value;
}
template <class T>
__forceinline__ void __stcs(T* p, T value) {
    *p = value;
}
template <class T>
__forceinline__ void __stwt(T* p, T value) {
    *p = value;
}

// ---------------------------------------------------------------------------------------------------------------
// Timing: clock64() counts nanoseconds of the host's steady clock (a GPU counts its SM's cycles). Programs use
// differences of it, in ticks of the device's clockRate; here one tick is one nanosecond.
// ---------------------------------------------------------------------------------------------------------------
inline long long clock64() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
// A hint: a GPU sleeps for about `ns` (0 to 2·ns); sleeping 0 is within what CUDA promises.
inline void __nanosleep(unsigned int) {}

// ---------------------------------------------------------------------------------------------------------------
// Launch entry with a reserved name, which a macro parameter named `kernel` cannot shadow
// (`#define LAUNCH(kernel, n, ...) kernel<<<...>>>(__VA_ARGS__)`); emucc's rewritten launches call it.
// ---------------------------------------------------------------------------------------------------------------
namespace cudaemu {
template <class... Params>
auto __launch_site(void (*k)(Params...), const char* name, const char* file, int line) {
    return kernel(k, name, file, line);
}

// A launch with fewer arguments than the kernel has parameters leaves the rest to the kernel's default arguments,
// which its function pointer does not carry: emucc also passes `caller`, a generic lambda that calls the kernel
// by name. The arguments given are converted to their parameter types once, on the host, as nvcc does; the default
// arguments are evaluated by each thread's call (the same values for the constant defaults kernels have).
template <class Caller, class... Params>
struct DefaultArgumentLaunch {
    void (*kernel)(Params...);
    LaunchSite site;
    dim3 grid, block;
    size_t shmem;
    cudaStream_t stream;
    Caller caller;

    template <class Tuple, size_t... I>
    static std::tuple<std::tuple_element_t<I, Tuple>...> first(std::index_sequence<I...>);

    // every argument given: converted at the call, as in any call (a literal 0 for a pointer is a null pointer)
    void operator()(Params... args) const {
        KernelLaunch<Params...>(kernel, site, grid, block, shmem, stream)(args...);
    }

    template <class... Args, std::enable_if_t<(sizeof...(Args) < sizeof...(Params)), int> = 0>
    void operator()(Args&&... args) const {
        using Given = decltype(first<std::tuple<std::decay_t<Params>...>>(std::index_sequence_for<Args...>()));
        Given params(std::forward<Args>(args)...);
        struct Closure {
            const Caller* caller;
            Given* params;
        } closure{&caller, &params};
        launch(
            site, grid, block, shmem, stream,
            [](void* p) {
                auto* c = static_cast<Closure*>(p);
                std::apply(*c->caller, *c->params);
            },
            &closure);
    }
};

template <class Caller, class... Params>
struct DefaultArgumentKernelRef {
    KernelRef<Params...> ref;
    Caller caller;
    DefaultArgumentLaunch<Caller, Params...> operator()(dim3 grid, dim3 block, size_t shmem = 0,
                                                        cudaStream_t stream = 0) const {
        return {ref.kernel, ref.site, grid, block, shmem, stream, caller};
    }
};

template <class Caller, class... Params>
auto __launch_site(void (*k)(Params...), const char* name, const char* file, int line, Caller caller) {
    return DefaultArgumentKernelRef<Caller, Params...>{kernel(k, name, file, line), caller};
}

// A template kernel launched by name alone (`scale<<<grid, block>>>(d_x, 2.0f, n)`): no function pointer can be
// taken before the arguments deduce its template arguments, so each thread calls it through `caller`, with copies
// of the arguments made once, on the host, as nvcc makes them. The launch has no function to look its attributes
// up in (cudaFuncSetAttribute on the specialisation does not reach it): the defaults hold.
template <class Caller>
struct DeducedLaunch {
    LaunchSite site;
    dim3 grid, block;
    size_t shmem;
    cudaStream_t stream;
    Caller caller;

    template <class... Args>
    void operator()(Args&&... args) const {
        std::tuple<std::decay_t<Args>...> params(std::forward<Args>(args)...);
        struct Closure {
            const Caller* caller;
            std::tuple<std::decay_t<Args>...>* params;
        } closure{&caller, &params};
        launch(
            site, grid, block, shmem, stream,
            [](void* p) {
                auto* c = static_cast<Closure*>(p);
                std::apply(*c->caller, *c->params);
            },
            &closure);
    }
};

template <class Caller>
struct DeducedKernelRef {
    LaunchSite site;
    Caller caller;
    DeducedLaunch<Caller> operator()(dim3 grid, dim3 block, size_t shmem = 0, cudaStream_t stream = 0) const {
        return {site, grid, block, shmem, stream, caller};
    }
};

template <class Caller>
auto __launch_deduced(const char* name, const char* file, int line, Caller caller) {
    return DeducedKernelRef<Caller>{LaunchSite{name, file, line}, caller};
}
}  // namespace cudaemu

// ---------------------------------------------------------------------------------------------------------------
// Outside the subset, besides cuda_runtime.h's list: named at compile time
// ---------------------------------------------------------------------------------------------------------------
#define CUDAEMU_REFUSED(name, why)                                                                     \
    template <class... Args>                                                                           \
    inline cudaError_t name(Args...) {                                                                 \
        static_assert(sizeof...(Args) > 1000000, #name " is not supported by the CPU emulator: " why); \
        return cudaErrorUnknown;                                                                       \
    }
#undef CUDAEMU_REFUSED
