// Correct variant of lab 1: a naive kernel written the way a student debugs it, with assert() in the kernel,
// printf from the launcher and a host buffer from malloc. Must score full marks: confinement
// (grader/confine_allowlist.txt) allows all of these.
#include <cassert>
#include <cstdio>
#include <cstdlib>

#include "lab.h"

constexpr int BLOCK_WIDTH = 16;

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    assert(blockDim.x == BLOCK_WIDTH);
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = sum;
    }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    const int shape[3] = {M, N, K};
    int* launches = static_cast<int*>(malloc(sizeof(int)));
    *launches = 1;
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());
    if (shape[0] < 0) printf("launch %d: %d×%d·%d×%d\n", *launches, shape[0], shape[2], shape[2], shape[1]);
    free(launches);
}
