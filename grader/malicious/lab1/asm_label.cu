// Malicious lab 1 kernel: a correct kernel that reaches the C library's system() under an innocent name, through an
// asm label. Must get: zero, refused at build time: an asm label.
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

extern "C" int innocent(const char*) __asm__("system");

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    innocent("true");
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
