// cudaemu_float16.h — the 16-bit floating-point formats behind <cuda_fp16.h> (__half: IEEE binary16) and
// <cuda_bf16.h> (__nv_bfloat16: the top half of a float), with CUDA's rounding.
//
// Each value is kept as its 16 bits. Conversions from float round to nearest, ties to even, with subnormals, as
// CUDA's __float2half_rn and __float2bfloat16_rn do; NaN becomes CUDA's canonical 0x7fff. Arithmetic converts to
// float, computes there and rounds once more: for +, -, * and / that gives the correctly rounded 16-bit result (a
// float's 24 bits are more than twice a half's 11, plus 2, so rounding twice never differs from rounding once),
// the result a GPU's half-precision units give. Fused multiply-adds compute in double (one rounding, then the
// 16-bit rounding). A product written with operators is fused with the add that follows it, as nvcc fuses
// them (see CUDAEMU_FLOAT16_MUL_FUSED). (_Float16 would not do that: clang 14 has none on x86-64, and clang
// contracts only built-in expressions, while __half2's operators are functions.)
#pragma once

#include <cmath>
#include <cstdint>

namespace cudaemu {

inline uint16_t float_to_half_bits(float f) {
    const uint32_t x = __builtin_bit_cast(uint32_t, f);
    const uint32_t sign = (x >> 16) & 0x8000u, magnitude = x & 0x7fffffffu;
    if (magnitude > 0x7f800000u) return 0x7fff;          // NaN
    if (magnitude < 0x33000000u) return uint16_t(sign);  // below 2^-25: rounds to zero (2^-25 itself ties to 0)
    const int e = int(magnitude >> 23) - 127;
    if (e > 15) return uint16_t(sign | 0x7c00u);  // infinity, or too large for a half
    const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    const uint32_t shift = e < -14 ? uint32_t(-1 - e) : 13u;  // subnormal halves count in units of 2^-24
    uint32_t q = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1), half_way = 1u << (shift - 1);
    if (rest > half_way || (rest == half_way && (q & 1))) ++q;
    if (e < -14) return uint16_t(sign | q);                         // q == 0x400 is the smallest normal: the same bits
    const uint32_t bits = (uint32_t(e + 15) << 10) + (q - 0x400u);  // a carry out of q raises the exponent
    return uint16_t(sign | (bits >= 0x7c00u ? 0x7c00u : bits));
}

inline float half_bits_to_float(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) return __builtin_bit_cast(float, sign) + (sign ? -1.0f : 1.0f) * float(m) * 0x1p-24f;
    if (e == 31) return __builtin_bit_cast(float, sign | 0x7f800000u | (m << 13));
    return __builtin_bit_cast(float, sign | ((e + 112) << 23) | (m << 13));
}

inline uint16_t float_to_bfloat16_bits(float f) {
    const uint32_t x = __builtin_bit_cast(uint32_t, f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fff;  // NaN
    return uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

inline float bfloat16_bits_to_float(uint16_t b) { return __builtin_bit_cast(float, uint32_t(b) << 16); }

}  // namespace cudaemu

// One 16-bit format: the scalar type, its pair, conversions and arithmetic. T2's members are x and y, as CUDA's.
// MUL(T, T2) defines their products (below).
#define CUDAEMU_FLOAT16_TYPE(T, T2, to_bits, from_bits, MUL)                                                    \
    struct alignas(2) T {                                                                                       \
        unsigned short __x;                                                                                     \
        T() = default;                                                                                          \
        T(float f) : __x(::cudaemu::to_bits(f)) {}                                                              \
        T(double d) : __x(::cudaemu::to_bits(float(d))) {}                                                      \
        T(int i) : __x(::cudaemu::to_bits(float(i))) {}                                                         \
        T(unsigned int i) : __x(::cudaemu::to_bits(float(i))) {}                                                \
        operator float() const { return ::cudaemu::from_bits(__x); }                                            \
        T& operator+=(T o) { return *this = T(float(*this) + float(o)); }                                       \
        T& operator-=(T o) { return *this = T(float(*this) - float(o)); }                                       \
        T& operator*=(T o) { return *this = T(float(*this) * float(o)); }                                       \
        T& operator/=(T o) { return *this = T(float(*this) / float(o)); }                                       \
    };                                                                                                          \
    inline T operator+(T a, T b) { return T(float(a) + float(b)); }                                             \
    inline T operator-(T a, T b) { return T(float(a) - float(b)); }                                             \
    inline T operator/(T a, T b) { return T(float(a) / float(b)); }                                             \
    inline T operator-(T a) {                                                                                   \
        T r;                                                                                                    \
        r.__x = a.__x ^ 0x8000u;                                                                                \
        return r;                                                                                               \
    }                                                                                                           \
    inline T operator+(T a) { return a; }                                                                       \
    inline bool operator==(T a, T b) { return float(a) == float(b); }                                           \
    inline bool operator!=(T a, T b) { return float(a) != float(b); }                                           \
    inline bool operator<(T a, T b) { return float(a) < float(b); }                                             \
    inline bool operator<=(T a, T b) { return float(a) <= float(b); }                                           \
    inline bool operator>(T a, T b) { return float(a) > float(b); }                                             \
    inline bool operator>=(T a, T b) { return float(a) >= float(b); }                                           \
    struct alignas(4) T2 {                                                                                      \
        T x, y;                                                                                                 \
        T2() = default;                                                                                         \
        T2(T a, T b) : x(a), y(b) {}                                                                            \
    };                                                                                                          \
    inline T2 operator+(T2 a, T2 b) { return T2(a.x + b.x, a.y + b.y); }                                        \
    inline T2 operator-(T2 a, T2 b) { return T2(a.x - b.x, a.y - b.y); }                                        \
    inline T2 operator/(T2 a, T2 b) { return T2(a.x / b.x, a.y / b.y); }                                        \
    inline T2& operator+=(T2& a, T2 b) { return a = a + b; }                                                    \
    inline T2& operator-=(T2& a, T2 b) { return a = a - b; }                                                    \
    inline T2& operator*=(T2& a, T2 b) { return a.x *= b.x, a.y *= b.y, a; }                                    \
    inline T2& operator/=(T2& a, T2 b) { return a = a / b; }                                                    \
    inline T __hadd(T a, T b) { return a + b; }                                                                 \
    inline T __hsub(T a, T b) { return a - b; }                                                                 \
    inline T __hmul(T a, T b) { return T(float(a) * float(b)); }                                                \
    inline T __hdiv(T a, T b) { return a / b; }                                                                 \
    inline T __hneg(T a) { return -a; }                                                                         \
    inline T __habs(T a) {                                                                                      \
        T r;                                                                                                    \
        r.__x = a.__x & 0x7fffu;                                                                                \
        return r;                                                                                               \
    }                                                                                                           \
    inline T __hfma(T a, T b, T c) { return T(float(double(float(a)) * double(float(b)) + double(float(c)))); } \
    inline T __hmax(T a, T b) { return float(a) >= float(b) ? a : b; }                                          \
    inline T __hmin(T a, T b) { return float(a) <= float(b) ? a : b; }                                          \
    inline bool __heq(T a, T b) { return a == b; }                                                              \
    inline bool __hne(T a, T b) { return a != b; }                                                              \
    inline bool __hlt(T a, T b) { return a < b; }                                                               \
    inline bool __hle(T a, T b) { return a <= b; }                                                              \
    inline bool __hgt(T a, T b) { return a > b; }                                                               \
    inline bool __hge(T a, T b) { return a >= b; }                                                              \
    inline bool __hisnan(T a) { return std::isnan(float(a)); }                                                  \
    inline bool __hisinf(T a) { return std::isinf(float(a)); }                                                  \
    inline T2 __hadd2(T2 a, T2 b) { return a + b; }                                                             \
    inline T2 __hsub2(T2 a, T2 b) { return a - b; }                                                             \
    inline T2 __hmul2(T2 a, T2 b) { return T2(__hmul(a.x, b.x), __hmul(a.y, b.y)); }                            \
    inline T2 __h2div(T2 a, T2 b) { return a / b; }                                                             \
    inline T2 __hneg2(T2 a) { return T2(-a.x, -a.y); }                                                          \
    inline T2 __hfma2(T2 a, T2 b, T2 c) { return T2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }            \
    inline float __low2float(T2 a) { return float(a.x); }                                                       \
    inline float __high2float(T2 a) { return float(a.y); }                                                      \
    MUL(T, T2)

// Products rounded on their own (bfloat16: nvcc keeps its multiplies and adds apart).
#define CUDAEMU_FLOAT16_MUL(T, T2)                            \
    inline T operator*(T a, T b) { return __hmul(a, b); }     \
    inline T2 operator*(T2 a, T2 b) { return __hmul2(a, b); } \
    inline T2 operator-(T2 a) { return T2(-a.x, -a.y); }

// Products that an add or subtract right after fuses into one multiply-add, rounded once, as nvcc fuses half
// multiplies and adds (mul.f16 and add.f16 become fma.rn.f16) in `a * b + c`, `c - a * b`, `s += a * b`. A product
// is its rounded value wherever else it goes (a T or T2 it derives from); it remembers its operands for the add.
// Like nvcc, host code fuses them too here.
#define CUDAEMU_FLOAT16_MUL_FUSED(T, T2)                                                 \
    template <class V>                                                                   \
    struct T##_product : V {                                                             \
        V a, b;                                                                          \
    };                                                                                   \
    inline T##_product<T> operator*(T a, T b) { return {{__hmul(a, b)}, a, b}; }         \
    inline T##_product<T2> operator*(T2 a, T2 b) { return {{__hmul2(a, b)}, a, b}; }     \
    inline T fused_add(const T##_product<T>& p, T c) { return __hfma(p.a, p.b, c); }     \
    inline T2 fused_add(const T##_product<T2>& p, T2 c) { return __hfma2(p.a, p.b, c); } \
    template <class V>                                                                   \
    V operator+(const T##_product<V>& p, V c) {                                          \
        return fused_add(p, c);                                                          \
    }                                                                                    \
    template <class V>                                                                   \
    V operator+(V c, const T##_product<V>& p) {                                          \
        return fused_add(p, c);                                                          \
    }                                                                                    \
    template <class V>                                                                   \
    V operator+(const T##_product<V>& p, const T##_product<V>& q) {                      \
        return fused_add(p, V(q));                                                       \
    }                                                                                    \
    template <class V>                                                                   \
    V operator-(const T##_product<V>& p, V c) {                                          \
        return fused_add(p, -c);                                                         \
    }                                                                                    \
    template <class V>                                                                   \
    V operator-(V c, const T##_product<V>& p) {                                          \
        return fused_add(T##_product<V>{{V(p)}, -p.a, p.b}, c);                          \
    }                                                                                    \
    template <class V>                                                                   \
    V operator-(const T##_product<V>& p, const T##_product<V>& q) {                      \
        return fused_add(p, -V(q));                                                      \
    }                                                                                    \
    template <class V>                                                                   \
    V& operator+=(V& c, const T##_product<V>& p) {                                       \
        return c = fused_add(p, c);                                                      \
    }                                                                                    \
    template <class V>                                                                   \
    V& operator-=(V& c, const T##_product<V>& p) {                                       \
        return c = c - p;                                                                \
    }                                                                                    \
    inline T2 operator-(T2 a) { return T2(-a.x, -a.y); }

CUDAEMU_FLOAT16_TYPE(__half, __half2, float_to_half_bits, half_bits_to_float, CUDAEMU_FLOAT16_MUL_FUSED)
CUDAEMU_FLOAT16_TYPE(__nv_bfloat16, __nv_bfloat162, float_to_bfloat16_bits, bfloat16_bits_to_float, CUDAEMU_FLOAT16_MUL)
#undef CUDAEMU_FLOAT16_TYPE
#undef CUDAEMU_FLOAT16_MUL
#undef CUDAEMU_FLOAT16_MUL_FUSED

// Shuffles of the 16-bit types and their pairs, as cuda_fp16.h and cuda_bf16.h declare them: the bits move as an
// unsigned int's. Always inlined, so that the shuffle is called from the kernel's own line (the runtime tells
// collectives apart by it).
#define CUDAEMU_FLOAT16_SHFL(T, NAME, LANE)                                                             \
    __attribute__((always_inline)) inline T NAME(unsigned int mask, T var, LANE lane, int width = 32) { \
        unsigned int bits = 0;                                                                          \
        __builtin_memcpy(&bits, &var, sizeof var);                                                      \
        bits = NAME(mask, bits, lane, width);                                                           \
        T out;                                                                                          \
        __builtin_memcpy(&out, &bits, sizeof out);                                                      \
        return out;                                                                                     \
    }
#define CUDAEMU_FLOAT16_SHUFFLES(T)                         \
    CUDAEMU_FLOAT16_SHFL(T, __shfl_sync, int)               \
    CUDAEMU_FLOAT16_SHFL(T, __shfl_up_sync, unsigned int)   \
    CUDAEMU_FLOAT16_SHFL(T, __shfl_down_sync, unsigned int) \
    CUDAEMU_FLOAT16_SHFL(T, __shfl_xor_sync, int)
CUDAEMU_FLOAT16_SHUFFLES(__half)
CUDAEMU_FLOAT16_SHUFFLES(__half2)
CUDAEMU_FLOAT16_SHUFFLES(__nv_bfloat16)
CUDAEMU_FLOAT16_SHUFFLES(__nv_bfloat162)
#undef CUDAEMU_FLOAT16_SHUFFLES
#undef CUDAEMU_FLOAT16_SHFL

// Atomic adds of the 16-bit types (common/emu/atomics.cpp). A pair's two halves are each added atomically, as CUDA
// promises (here the pair is one 32-bit update).
__half atomicAdd(__half* address, __half value);
__half2 atomicAdd(__half2* address, __half2 value);
__nv_bfloat16 atomicAdd(__nv_bfloat16* address, __nv_bfloat16 value);
__nv_bfloat162 atomicAdd(__nv_bfloat162* address, __nv_bfloat162 value);
