// cuda_fp16.h — the CPU emulator's half precision: __half and __half2 (IEEE binary16), their conversions and
// arithmetic, rounded as CUDA rounds them (see cudaemu_float16.h for how).
#pragma once

#include <cuda_runtime.h>

#include "cudaemu_float16.h"

typedef __half half;
typedef __half2 half2;
struct __half_raw {
    unsigned short x;
};

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline __half __double2half(double d) { return __half(float(d)); }
inline float __half2float(__half h) { return float(h); }
inline __half __int2half_rn(int i) { return __half(float(i)); }
inline int __half2int_rz(__half h) { return int(float(h)); }
inline int __half2int_rn(__half h) { return int(nearbyintf(float(h))); }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline __half __ushort_as_half(unsigned short x) {
    __half h;
    h.__x = x;
    return h;
}
inline short __half_as_short(__half h) { return short(h.__x); }
inline __half __short_as_half(short x) { return __ushort_as_half((unsigned short)x); }

inline __half2 make_half2(__half x, __half y) { return __half2(x, y); }
inline __half2 __halves2half2(__half lo, __half hi) { return __half2(lo, hi); }
inline __half2 __half2half2(__half h) { return __half2(h, h); }
inline __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
inline __half2 __floats2half2_rn(float lo, float hi) { return __half2(__half(lo), __half(hi)); }
inline float2 __half22float2(__half2 h) { return float2{float(h.x), float(h.y)}; }
inline __half2 __float22half2_rn(float2 f) { return __half2(__half(f.x), __half(f.y)); }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
inline __half2 __lowhigh2highlow(__half2 h) { return __half2(h.y, h.x); }
