// Malicious lab 3 kernel: an untiled kernel that reads device-to-device copies of A and B (cudaMemcpy into buffers
// of its own) instead of A and B, so that a traffic count of the buffers named A and B sees nothing. Must get:
// zero: the emulator records the copies out of A and B during matmul(), and check_result fails the run.
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
    float *a = nullptr, *b = nullptr;
    CUDA_CHECK(cudaMalloc(&a, sizeof(float) * M * K));
    CUDA_CHECK(cudaMalloc(&b, sizeof(float) * K * N));
    CUDA_CHECK(cudaMemcpy(a, A, sizeof(float) * M * K, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpy(b, B, sizeof(float) * K * N, cudaMemcpyDeviceToDevice));
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(a, b, C, M, N, K);
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
}
