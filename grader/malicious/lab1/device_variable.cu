// Lab 1 kernel that is right but keeps a value in a __constant__ variable. The emulator sets such variables up
// before main(), where no student code may run, so confinement refuses them in a lab's kernel.cu with a reason
// that says what to do instead. Must get: zero, "__device__ and __constant__ variables are not allowed".

#include "lab.h"

constexpr int BLOCK_WIDTH = 16;    // a 16×16 block: 256 threads
__constant__ float kScale = 1.0f;  // a factor every product is multiplied by

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
