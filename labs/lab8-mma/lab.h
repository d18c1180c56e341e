// lab.h: lab 8 (tensor cores through mma.sync, ldmatrix and a swizzled shared memory, TF32), the contract between
// your kernel.cu and the harness.
//
// ============================================================================================
//   DO NOT MODIFY. The harness and the grader compile your kernel.cu against this file as is.
// ============================================================================================
#pragma once

#include "lab_common.h"

// The tile shape. Each block computes a BM×BN tile of C, walking K in slices of BK that asynchronous copies
// (cp.async) bring into STAGES shared-memory buffers, as in lab 7. Each warp computes a WM×WN part of the block
// tile as (WM/16)×(WN/8) accumulator tiles of 16×8 floats, taking K in steps of 8: one mma_m16n8k8_tf32
// (common/mma_ptx.h) per accumulator tile and step, its A fragment loaded with ldmatrix_x4 from a swizzled tile.
// The traffic test allows what a BM×BN block tile reads; a kernel with a bigger block tile reads less.
constexpr int BM = 128;    // rows of C per block
constexpr int BN = 128;    // columns of C per block
constexpr int BK = 32;     // the slice of K per phase
constexpr int WM = 64;     // rows of C per warp
constexpr int WN = 64;     // columns of C per warp
constexpr int STAGES = 3;  // shared-memory buffers: one being read while the next ones arrive

// The tensor cores multiply A and B as TF32: 10 mantissa bits of FP32's 23 (the sums stay FP32). The tests, and
// `make bench`'s check against cuBLAS, allow for that rounding of the inputs.
constexpr int INPUT_MANTISSA_BITS = 10;

// The shapes the harness calls matmul with (the course's tools ask this function too).
constexpr bool valid_shape(int M, int N, int K) { return M >= 1 && N >= 1 && K >= 1; }

// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers.
// Called with any M, N, K >= 1: tiles at the right and bottom edges may be partial. The pointers come from
// cudaMalloc, but a row of A starts 16-byte aligned only when K is a multiple of 4 (of B and C: when N is).
// The launcher picks the grid and the block, launches the kernel and returns. It does not call
// cudaDeviceSynchronize: the harness synchronises and checks for errors.
void matmul(const float* A, const float* B, float* C, int M, int N, int K);
