// cudaemu_minmax.h — CUDA's integer and floating-point min/max, included by cuda_runtime.h.
//
// The same overload set as nvcc's math headers (crt/math_functions.hpp), so that a call resolves to the same
// function as under nvcc: umin/umax, llmin/llmax, ullmin/ullmax, and min/max for every pair of int, long and
// long long of either signedness where CUDA declares one — a signed and an unsigned operand of one width compare
// as unsigned — and for float/double pairs (fminf/fmin: a NaN operand yields the other).
#pragma once

#include <math.h>

inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// For each width: min/max of (U, U), (S, U) and (U, S), computed in the unsigned type U
#define CUDAEMU_MINMAX_MIXED(S, U)                               \
    inline U min(U a, U b) { return a < b ? a : b; }             \
    inline U min(S a, U b) { return min(static_cast<U>(a), b); } \
    inline U min(U a, S b) { return min(a, static_cast<U>(b)); } \
    inline U max(U a, U b) { return a > b ? a : b; }             \
    inline U max(S a, U b) { return max(static_cast<U>(a), b); } \
    inline U max(U a, S b) { return max(a, static_cast<U>(b)); }
CUDAEMU_MINMAX_MIXED(int, unsigned int)
CUDAEMU_MINMAX_MIXED(long, unsigned long)
CUDAEMU_MINMAX_MIXED(long long, unsigned long long)
#undef CUDAEMU_MINMAX_MIXED
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }

inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline double min(float a, double b) { return fmin(static_cast<double>(a), b); }
inline double min(double a, float b) { return fmin(a, static_cast<double>(b)); }
inline double max(float a, double b) { return fmax(static_cast<double>(a), b); }
inline double max(double a, float b) { return fmax(a, static_cast<double>(b)); }
