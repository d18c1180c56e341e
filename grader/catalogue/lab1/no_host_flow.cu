// Grader catalogue, lab 1, known WRONG: no matmul_from_host at all (lab 1's second part not written).
// Bug: the kernel and its launcher are right, but the round trip from host memory that lab.h asks for is missing.
// The tests declare it weak, so the file still builds and the two host-flow tests say what is missing.
// Expected diagnosis: correctness (your kernel.cu defines no matmul_from_host()); every test of matmul passes.
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab1-naive -c grader/catalogue/lab1/no_host_flow.cu

#include "lab.h"

constexpr int BLOCK_WIDTH = 16;  // a 16×16 block: 256 threads

// ----------------------------------------------------------------------------
// kernel

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    // col from x: threads next to each other in a warp read neighbouring B and write neighbouring C
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;

    // the grid is rounded up to whole blocks, so edge blocks hold threads past the end of C
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
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));  // x covers columns, y covers rows
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}
