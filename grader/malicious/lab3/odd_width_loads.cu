// Malicious lab 3 kernel: an untiled kernel that loads each element of A and B through a 5-byte integer
// (unsigned _BitInt(40)), a width the emulator's instrumentation has no callback for, so that a traffic count would
// see none of its loads. Must get: zero, refused at build time: a load of 5 bytes is not allowed.
#include "lab.h"

constexpr int BLOCK_WIDTH = 16;

// the float at p, read as the low 4 bytes of a 5-byte load
__device__ float load_float(const float* p) {
    const unsigned _BitInt(40) raw = *reinterpret_cast<const unsigned _BitInt(40)*>(p);
    return __builtin_bit_cast(float, static_cast<unsigned>(raw));
}

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += load_float(&A[row * K + k]) * load_float(&B[k * N + col]);
        }
        C[row * N + col] = sum;
    }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
