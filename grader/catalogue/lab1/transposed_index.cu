// Grader catalogue, lab 1, known WRONG: row and col are taken from the wrong axes.
// Bug: the kernel takes row from x and col from y, while the launcher, correctly, sizes the grid's x
// by the columns of C (N) and its y by the rows (M). On square shapes every element is still computed
// (just with uncoalesced accesses); on rectangular ones part of C is never computed.
// Expected diagnosis: correctness (some elements of C are never written, on shapes where
// ceil_div(M, 16) != ceil_div(N, 16)). No out-of-bounds: the guard still holds.
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab1-naive -c grader/catalogue/lab1/transposed_index.cu

#include "lab.h"

constexpr int BLOCK_WIDTH = 16;  // a 16×16 block: 256 threads

// ----------------------------------------------------------------------------
// kernel

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;  // BUG: row must come from y
    const int col = blockIdx.y * blockDim.y + threadIdx.y;  // BUG: col must come from x
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * K + k] * B[k * N + col];
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
