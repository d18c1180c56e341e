// kernels.h: the kernels of the emulator's in-process tests (tests/emu/test_emulator_*.cpp), behind plain host
// launchers. Each launcher builds its grid, launches, and returns cudaGetLastError(): the launch's own error.
// It does not synchronise. All pointers are device pointers; n counts elements of the pointed-to type.
#pragma once

#include <cuda_runtime.h>

constexpr int COPY_BLOCK = 256;   // threads per block of every 1-D launcher below
constexpr int TILE_WIDTH = 16;    // tile edge of the tiled matmul, and its block is TILE_WIDTH × TILE_WIDTH
constexpr int SHARED_BLOCK = 64;  // threads per block of the shared-memory kernels

struct Vec3 {  // 12 bytes: a struct copy that is not a multiple of 16 bytes
    float x, y, z;
};

// ---- one load and one store per element, of each width
cudaError_t copy_floats(const float* in, float* out, int n);
cudaError_t copy_float2(const float2* in, float2* out, int n);
cudaError_t copy_float4(const float4* in, float4* out, int n);
cudaError_t copy_chars(const char* in, char* out, int n);
cudaError_t copy_doubles(const double* in, double* out, int n);
cudaError_t copy_vec3(const Vec3* in, Vec3* out, int n);  // whole-struct assignment out[i] = in[i]

// ---- loads the source makes a known number of times
cudaError_t copy_even_floats(const float* in, float* out, int n);           // only even i load in[i] and store out[i]
cudaError_t add_to_itself(const float* in, float* out, int n);              // out[i] = in[i] + in[i]: two loads
cudaError_t sum_repeated(const float* in, float* out, int n, int repeats);  // `repeats` loads of in[i]

// ---- matrix multiplication: C = A·B; A is M×K, B is K×N, C is M×N, all row-major
cudaError_t matmul_naive(const float* A, const float* B, float* C, int M, int N, int K);
// Boundary-safe 16×16 tiles. The two barriers can be left out, to provoke the races they prevent.
struct TileBarriers {
    bool after_loads = true;  // between storing the tiles and reading them
    bool after_use = true;    // between reading the tiles and the next phase overwriting them
};
cudaError_t matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K, TileBarriers barriers = {});

// ---- shared memory
cudaError_t reverse_blocks(const float* in, float* out, int blocks);  // SHARED_BLOCK elements per block

// ---- known-wrong kernels (one SHARED_BLOCK-thread block each unless said otherwise)
cudaError_t barrier_after_early_exit(const float* in, float* out);  // the upper half returns before the barrier
cudaError_t barrier_in_both_branches(const float* in, float* out);  // if/else, each with its own __syncthreads()
cudaError_t read_unwritten_shared(const float* in, float* out);     // the upper half reads slots nobody wrote
cudaError_t fill_tile_by_branches(const float* in, float* out, int valid);  // if/else store one element apart
cudaError_t clear_then_store(const float* in, float* out);  // two lines store one slot; a barrier orders them

// ---- any launch configuration: every thread that runs sets *flag = 1
cudaError_t set_flag(dim3 grid, dim3 block, int* flag);
