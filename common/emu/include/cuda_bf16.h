// cuda_bf16.h — the CPU emulator's bfloat16: __nv_bfloat16 and __nv_bfloat162 (a float's top 16 bits), their
// conversions and arithmetic, rounded as CUDA rounds them (see cudaemu_float16.h for how).
#pragma once

#include <cuda_runtime.h>

#include "cudaemu_float16.h"

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16(float(d)); }
inline float __bfloat162float(__nv_bfloat16 b) { return float(b); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.__x; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short x) {
    __nv_bfloat16 b;
    b.__x = x;
    return b;
}

inline __nv_bfloat162 make_bfloat162(__nv_bfloat16 x, __nv_bfloat16 y) { return __nv_bfloat162(x, y); }
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 lo, __nv_bfloat16 hi) { return __nv_bfloat162(lo, hi); }
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 b) { return __nv_bfloat162(b, b); }
inline __nv_bfloat162 __float2bfloat162_rn(float f) { return __nv_bfloat162(__nv_bfloat16(f), __nv_bfloat16(f)); }
inline __nv_bfloat162 __floats2bfloat162_rn(float lo, float hi) {
    return __nv_bfloat162(__nv_bfloat16(lo), __nv_bfloat16(hi));
}
inline float2 __bfloat1622float2(__nv_bfloat162 b) { return float2{float(b.x), float(b.y)}; }
inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 b) { return b.x; }
inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 b) { return b.y; }
