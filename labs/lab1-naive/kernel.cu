// Lab 1: naive matrix multiplication, one thread per element of C.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// Fill in the TODO(student) lines: the kernel computes one element of C per thread, and the
// launcher starts enough threads to cover all of C. As handed out it builds, runs, and leaves
// C untouched, so every test fails until the work is done.
//
// Build and test: make lab1
// Compile only:   nvcc -arch=sm_90 -I common -I labs/lab1-naive -c labs/lab1-naive/kernel.cu
// make lab1 also builds host_flow.cu with this file and runs it: read that one first.

#include "lab.h"

constexpr int BLOCK_WIDTH = 16;  // a 16×16 block: 256 threads

// ----------------------------------------------------------------------------
// kernel

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO(student): compute row (from the y indices) and col (from the x indices) of the element
    //                of C this thread owns, from blockIdx, blockDim and threadIdx (about 2 lines)
    // TODO(student): only a thread with row < M && col < N may go on: the grid is rounded up to
    //                whole blocks, so edge blocks hold threads past the end of C (about 1 line)
    // TODO(student): add up A[row][k] * B[k][col] for k = 0 .. K-1 in a float and store the sum in
    //                C[row][col]; in row-major storage element [r][c] of a matrix with W columns
    //                is at index r * W + c (about 5 lines)

    // Marks the parameters as used so this skeleton builds without warnings; delete it once your code uses them.
    unused(A, B, C, M, N, K);
}

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    // TODO(student): one thread per element of C: replace this single block with a grid of
    //                ceil_div(N, BLOCK_WIDTH) blocks along x (the columns of C) by
    //                ceil_div(M, BLOCK_WIDTH) blocks along y (the rows of C) (about 1 line)
    dim3 grid(1, 1);
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}
