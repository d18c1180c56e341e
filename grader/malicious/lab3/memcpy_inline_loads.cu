// Malicious lab 3 kernel: an untiled kernel that loads A and B with __builtin_memcpy_inline, a compiler intrinsic
// (llvm.memcpy.inline) that the emulator's counted copies do not cover. Must get: zero, refused at build time: the
// intrinsic is not among those a kernel may use.
#include "lab.h"

constexpr int BLOCK_WIDTH = 16;

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            float a, b;
            __builtin_memcpy_inline(&a, A + row * K + k, sizeof a);
            __builtin_memcpy_inline(&b, B + k * N + col, sizeof b);
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
