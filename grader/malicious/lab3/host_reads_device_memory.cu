// Malicious lab 3 kernel: the launcher multiplies on the host without any cudaMemcpy. On the emulator device memory
// is the process's own, so host code can read A and B through their device pointers; it writes the product into
// managed memory, and a one-line kernel copies it into C. On a GPU the first read crashes the program. Must get:
// zero: the emulator records host code's accesses to device memory, and check_result (visible and hidden tests)
// fails a run that made one, naming the line.
#include "lab.h"

__global__ void copy_kernel(const float* from, float* to, int count) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        to[i] = from[i];
    }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    float* product = nullptr;
    CUDA_CHECK(cudaMallocManaged(&product, sizeof(float) * M * N));
    for (int row = 0; row < M; ++row) {
        for (int col = 0; col < N; ++col) {
            float sum = 0.0f;
            for (int k = 0; k < K; ++k) {
                sum += A[row * K + k] * B[k * N + col];
            }
            product[row * N + col] = sum;
        }
    }
    const int threads = 256;
    copy_kernel<<<(M * N + threads - 1) / threads, threads>>>(product, C, M * N);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(product));
}
