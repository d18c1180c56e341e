// lab.h: lab 6 (warp tiling and double buffering), the contract between your kernel.cu and the harness.
//
// ============================================================================================
//   DO NOT MODIFY. The harness and the grader compile your kernel.cu against this file as is.
// ============================================================================================
#pragma once

#include "lab_common.h"

// The tile shape. Each block computes a BM×BN tile of C, walking K in slices of BK held in two shared-memory
// stages. Each warp computes a WM×WN part of the block tile, in WMITER×WNITER steps of a WM/WMITER × WN/WNITER
// sub-tile; in each, a thread computes TM×TN outputs. So a thread holds (WMITER·TM)×(WNITER·TN) outputs.
// The traffic test allows what a BM×BN block tile reads; a kernel with a bigger block tile reads less.
constexpr int BM = 128;    // rows of C per block
constexpr int BN = 128;    // columns of C per block
constexpr int BK = 16;     // the slice of K per phase
constexpr int WM = 64;     // rows of C per warp
constexpr int WN = 32;     // columns of C per warp
constexpr int WMITER = 2;  // steps down the warp tile
constexpr int WNITER = 2;  // steps across the warp tile
constexpr int TM = 4;      // rows per thread in one step
constexpr int TN = 4;      // columns per thread in one step
constexpr int STAGES = 2;  // shared-memory buffers: one being read while the next tile arrives in the other

// A float's 23 mantissa bits: the kernels multiply the inputs as they are (lab 7's tensor cores keep 10). The
// correctness tests' tolerance follows it.
constexpr int INPUT_MANTISSA_BITS = 23;

// The shapes the harness calls matmul with (the course's tools ask this function too).
constexpr bool valid_shape(int M, int N, int K) { return M >= 1 && N >= 1 && K >= 1; }

// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers.
// Called with any M, N, K >= 1: tiles at the right and bottom edges may be partial. The pointers come from
// cudaMalloc, but a float4 load from A + row*K is only 16-byte aligned when K is a multiple of 4 (B and C:
// when N is).
// The launcher picks the grid and the block, launches the kernel and returns. It does not call
// cudaDeviceSynchronize: the harness synchronises and checks for errors.
void matmul(const float* A, const float* B, float* C, int M, int N, int K);
