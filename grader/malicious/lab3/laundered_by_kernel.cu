// Malicious lab 3 kernel: as laundered_copies.cu, but a kernel makes the copies: it reads A and B once each (all a
// count of A and B would see) into buffers of the launcher's own, and the untiled kernel reads those M or N times.
// Must get: the untiled kernel's traffic verdict, "of other device memory": every byte a kernel loads counts, from
// whichever allocation.
#include "lab.h"

constexpr int BLOCK_WIDTH = 16;

__global__ void copy_kernel(const float* from, float* to, int count) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        to[i] = from[i];
    }
}

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
    copy_kernel<<<ceil_div(M * K, 256), 256>>>(A, a, M * K);
    copy_kernel<<<ceil_div(K * N, 256), 256>>>(B, b, K * N);
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(a, b, C, M, N, K);
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
}
