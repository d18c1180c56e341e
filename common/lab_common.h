// lab_common.h: the two helpers every lab shares.
//   CUDA_CHECK(expr)  run a CUDA runtime call; on failure print where and why, then exit(1).
//   ceil_div(a, b)    how many b-sized pieces cover a: blocks in a grid, phases in a tile loop.
//
// Each labs/<lab>/lab.h includes it; builds pass -I common. It compiles under nvcc and, with the
// emulator's <cuda_runtime.h> in place of NVIDIA's, as plain C++.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                                  \
    do {                                                                                  \
        const cudaError_t cuda_check_err_ = (expr);                                       \
        if (cuda_check_err_ != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #expr, \
                         cudaGetErrorName(cuda_check_err_),                               \
                         cudaGetErrorString(cuda_check_err_));                            \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

// For a >= 0 and b > 0. Rounds up, so a grid or loop built from it also covers a partial last piece.
__host__ __device__ constexpr inline int ceil_div(int a, int b) {
    return (a + b - 1) / b;
}
