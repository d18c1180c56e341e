// Malicious lab 3 kernel: an untiled kernel whose loads from A and B are GNU inline assembly (__asm__
// __volatile__), which the emulator's instrumentation cannot see, so that the traffic check would count nothing.
// Must get: zero, refused at build time: inline assembly, in any spelling.
#include "lab.h"

constexpr int BLOCK_WIDTH = 16;

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            float a, b;
            __asm__ __volatile__("movss (%1), %0" : "=x"(a) : "r"(A + row * K + k));
            __asm__ __volatile__("movss (%1), %0" : "=x"(b) : "r"(B + k * N + col));
            sum += a * b;
        }
        C[row * N + col] = sum;
    }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
