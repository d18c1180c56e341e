// lab_common.h: the two helpers every lab shares.
//   CUDA_CHECK(expr)  run a CUDA runtime call; on failure print where and why, then exit(1) (in the course's
//                     tests: fail that test and go on, see below).
//   ceil_div(a, b)    how many b-sized pieces cover a: blocks in a grid, phases in a tile loop.
//   unused(x, ...)    marks names as used, so that an unfinished skeleton builds without warnings.
//
// Each labs/<lab>/lab.h includes it; builds pass -I common. It compiles under nvcc and, with the
// emulator's <cuda_runtime.h> in place of NVIDIA's, as plain C++.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

// What CUDA_CHECK does with a failed call. The course's test programs define lab_cuda_check_throws(): there it
// throws a CudaCheckFailure, which fails the one test it happened in and lets the others run. Anywhere else it
// prints where and why, and exits with status 1.
extern "C" __attribute__((weak)) void lab_cuda_check_throws();
struct CudaCheckFailure {
    cudaError_t error;
    const char* file;
    int line;
    const char* expr;
};

#define CUDA_CHECK(expr)                                                                                               \
    do {                                                                                                               \
        const cudaError_t cuda_check_err_ = (expr);                                                                    \
        if (cuda_check_err_ != cudaSuccess) {                                                                          \
            if (&lab_cuda_check_throws != nullptr) throw CudaCheckFailure{cuda_check_err_, __FILE__, __LINE__, #expr}; \
            std::fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #expr,                              \
                         cudaGetErrorName(cuda_check_err_), cudaGetErrorString(cuda_check_err_));                      \
            std::exit(1);                                                                                              \
        }                                                                                                              \
    } while (0)

// For a >= 0 and b > 0. Rounds up, so a grid or loop built from it also covers a partial last piece.
__host__ __device__ constexpr inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// The skeletons call it until the student's code uses their names: nvcc warns about a parameter never used and a
// variable set but never read, and a call reads them. Inlined away.
template <class... T>
__host__ __device__ inline void unused(const T&...) {}
