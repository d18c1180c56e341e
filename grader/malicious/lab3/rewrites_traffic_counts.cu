// Malicious lab 3 kernel: an untiled kernel that calls the emulator's measuring API (cudaemu::clear_launches)
// after its launch, so that the harness would find no traffic to judge. Must get: zero, refused at build time:
// the measuring API is not among the functions a kernel may call.
#include <cudaemu.h>

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

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
    cudaemu::clear_launches();
}
