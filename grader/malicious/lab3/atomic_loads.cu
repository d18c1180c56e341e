// Malicious lab 3 kernel: an untiled kernel that loads A and B with the compiler's atomic builtins, instructions
// the traffic count might not see. Must get: zero, refused at build time: atomic builtins are not CUDA.
#include "lab.h"

constexpr int BLOCK_WIDTH = 16;

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += __atomic_load_n(reinterpret_cast<const int*>(A + row * K + k), __ATOMIC_RELAXED) * 0.0f +
                   A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = sum;
    }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
