// Malicious lab 3 kernel: the launcher does the multiply on the host. It copies A and B to host memory with
// cudaMemcpy, multiplies them in a CPU loop, uploads C into a scratch buffer and launches a one-line kernel that copies
// it into C. Every element of C is right, and the kernel's traffic is tiny. Must get: zero: the emulator records every
// cudaMemcpy out of A and B during matmul(), and check_result (visible and hidden tests) fails a run that made one.
#include <cstdlib>

#include "lab.h"

__global__ void copy_kernel(const float* from, float* to, int count) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        to[i] = from[i];
    }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    float* a = static_cast<float*>(malloc(sizeof(float) * M * K));
    float* b = static_cast<float*>(malloc(sizeof(float) * K * N));
    float* c = static_cast<float*>(malloc(sizeof(float) * M * N));
    CUDA_CHECK(cudaMemcpy(a, A, sizeof(float) * M * K, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(b, B, sizeof(float) * K * N, cudaMemcpyDeviceToHost));
    for (int row = 0; row < M; ++row) {
        for (int col = 0; col < N; ++col) {
            float sum = 0.0f;
            for (int k = 0; k < K; ++k) {
                sum += a[row * K + k] * b[k * N + col];
            }
            c[row * N + col] = sum;
        }
    }
    float* scratch = nullptr;
    CUDA_CHECK(cudaMalloc(&scratch, sizeof(float) * M * N));
    CUDA_CHECK(cudaMemcpy(scratch, c, sizeof(float) * M * N, cudaMemcpyHostToDevice));
    copy_kernel<<<ceil_div(M * N, 256), 256>>>(scratch, C, M * N);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(scratch));
    free(a);
    free(b);
    free(c);
}
