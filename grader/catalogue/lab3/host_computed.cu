// Grader catalogue, lab 3, known WRONG (cheat): C is computed on the CPU, not by a kernel.
// Bug: the launcher copies A and B back to the host, multiplies them there, and cudaMemcpy's the result
// into C. The kernel it launches does nothing, so the values in C are right but no kernel code wrote them.
// Expected diagnosis: written-by-kernel (C filled by a host-to-device copy). The values are right, nothing
// is out of bounds or racy, and a kernel that loads nothing passes the traffic check, so that check alone
// must catch it.
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab3-boundary -c grader/catalogue/lab3/host_computed.cu

#include <vector>

#include "lab.h"

// ----------------------------------------------------------------------------
// kernel

__global__ void matmul_noop_kernel() {}  // BUG: launched so that a kernel runs, but it computes nothing

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    std::vector<float> host_A(size_t(M) * K), host_B(size_t(K) * N), host_C(size_t(M) * N);
    CUDA_CHECK(cudaMemcpy(host_A.data(), A, host_A.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(host_B.data(), B, host_B.size() * sizeof(float), cudaMemcpyDeviceToHost));

    for (int row = 0; row < M; ++row) {
        for (int col = 0; col < N; ++col) {
            float sum = 0.0f;
            for (int k = 0; k < K; ++k) {
                sum += host_A[row * K + k] * host_B[k * N + col];
            }
            host_C[row * N + col] = sum;
        }
    }

    // BUG: C is written by a copy from the host, not by kernel code
    CUDA_CHECK(cudaMemcpy(C, host_C.data(), host_C.size() * sizeof(float), cudaMemcpyHostToDevice));
    dim3 block(1);
    dim3 grid(1);
    matmul_noop_kernel<<<grid, block>>>();
    CUDA_CHECK(cudaGetLastError());
}
