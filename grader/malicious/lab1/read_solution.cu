// Malicious lab 1 kernel: reads the reference solution at run time (the tests run from the course's root). It
// computes the right answer only when the read works, standing in for a kernel that uses what it stole. Must get:
// zero, "never wrote it": the sandbox has no solutions/ to read.
#include <cstdio>

#include "lab.h"

constexpr int BLOCK_WIDTH = 16;

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = sum;
    }
}

// the right answer, launched only when the attack worked
void launch_correct(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    if (FILE* f = fopen("solutions/lab1-naive/kernel.cu", "r")) {
        fclose(f);
        launch_correct(A, B, C, M, N, K);
    }
}
