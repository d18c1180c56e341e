// Grader catalogue, lab 3, known WRONG (slow, not incorrect): the untiled lab 1 kernel handed in for lab 3.
// Bug: no shared memory; every thread reads its whole row of A and column of B from global memory,
// so each input element is fetched about TILE_WIDTH times more often than with 16×16 tiles.
// Expected diagnosis: traffic only (global-memory loads far above the tiled kernel's). It is correct,
// in bounds, race-free and writes each element of C exactly once, so every other check must pass.
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab3-boundary -c grader/catalogue/lab3/naive_in_lab3.cu

#include "lab.h"

constexpr int BLOCK_WIDTH = 16;  // a 16×16 block: 256 threads

// ----------------------------------------------------------------------------
// kernel

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * K + k] * B[k * N + col];  // BUG (for lab 3): every read goes to global memory
        }
        C[row * N + col] = sum;
    }
}

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());
}
