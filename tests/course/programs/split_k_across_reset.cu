// split_k_across_reset.cu — a lab's matmul() across cudaDeviceReset(), as the harness resets the GPU after a
// kernel faults: 128×512 · 512×128 (one tile of C, K split wherever the launcher splits it), a reset, the same
// problem again. Prints both calls' errors and whether the two results have the same bits; a launcher that keeps
// device memory from call to call in a static writes to freed memory after the reset.
// Build: emucc (or nvcc) -I common -I labs/lab6-warptiling <kernel.cu> split_k_across_reset.cu
#include <cstdio>
#include <cstring>
#include <vector>

#include "lab.h"

constexpr int kN = 128, kK = 512;  // M = N = 128, K = 512

std::vector<float> multiply(const std::vector<float>& a, const std::vector<float>& b, cudaError_t* error) {
    float *A = nullptr, *B = nullptr, *C = nullptr;
    cudaMalloc(&A, a.size() * sizeof(float));
    cudaMalloc(&B, b.size() * sizeof(float));
    cudaMalloc(&C, kN * kN * sizeof(float));
    cudaMemcpy(A, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(B, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);
    matmul(A, B, C, kN, kN, kK);
    *error = cudaDeviceSynchronize();
    std::vector<float> c(kN * kN);
    cudaMemcpy(c.data(), C, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    return c;
}

int main() {
    std::vector<float> a(kN * kK), b(kK * kN);
    unsigned state = 1;
    for (std::vector<float>* m : {&a, &b}) {
        for (float& x : *m) {
            state = state * 1664525u + 1013904223u;  // a fixed sequence in [-0.5, 0.5)
            x = float(state >> 8) / 16777216.0f - 0.5f;
        }
    }
    cudaError_t before = cudaSuccess, after = cudaSuccess;
    const std::vector<float> first = multiply(a, b, &before);
    cudaDeviceReset();
    const std::vector<float> second = multiply(a, b, &after);
    const bool same = memcmp(first.data(), second.data(), first.size() * sizeof(float)) == 0;
    printf("before the reset: %s\nafter the reset: %s\nsame bits: %s\n", cudaGetErrorName(before),
           cudaGetErrorName(after), same ? "yes" : "no");
    return 0;
}
