// Malicious lab 1 kernel: a right kernel whose __constant__ factor is computed by host code before main() (a dynamic
// initialiser: here it reads the environment, and could do anything else). nvcc refuses such a variable ("dynamic
// initialization is not supported"), and so does emucc: the initial value of a __device__ or __constant__ variable
// must be a constant, data that no code computes. Must get: zero, "kernel.cu does not build" (the variable "does not
// have a constant initializer").
#include <cstdlib>

#include "lab.h"

constexpr int BLOCK_WIDTH = 16;    // a 16×16 block: 256 threads
// 1, unless the environment says otherwise; runs before main()
static float scale_from_environment() {
    const char* s = getenv("KERNEL_SCALE");
    return s ? static_cast<float>(atof(s)) : 1.0f;
}

__constant__ float kScale = scale_from_environment();  // a factor every product is multiplied by

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = kScale * sum;
    }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());
}
