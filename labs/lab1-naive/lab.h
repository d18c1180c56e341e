// lab.h: lab 1 (naive matrix multiplication), the contract between your kernel.cu and the harness.
//
// ============================================================================================
//   DO NOT MODIFY. The harness and the grader compile your kernel.cu against this file as is.
// ============================================================================================
#pragma once

#include "lab_common.h"

// A float's 23 mantissa bits: the kernels multiply the inputs as they are (lab 7's tensor cores keep 10). The
// correctness tests' tolerance follows it.
constexpr int INPUT_MANTISSA_BITS = 23;

// The shapes the harness calls matmul with (the course's tools ask this function too).
constexpr bool valid_shape(int M, int N, int K) { return M >= 1 && N >= 1 && K >= 1; }

// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers.
// Called with any M, N, K >= 1.
// The launcher picks the grid and the block, launches the kernel and returns. It does not call
// cudaDeviceSynchronize: the harness synchronises and checks for errors.
void matmul(const float* A, const float* B, float* C, int M, int N, int K);

// The same product with A, B and C in host memory (C may be page-locked): the whole round trip. It gives the
// device its own copies of A and B and room for C, calls matmul on them, waits for the kernel, copies C back into
// the caller's C and frees every device buffer it allocated, checking every CUDA call with CUDA_CHECK.
void matmul_from_host(const float* A, const float* B, float* C, int M, int N, int K);
