// Malicious lab 3 kernel: an untiled kernel that points stderr at every file descriptor in turn and writes a
// passing verdict record to each, hoping to reach the grader's verdict channel. Must get: zero: the records lack
// the secret the test program took from its environment before any student code ran, and a verdict channel
// written by anyone else fails the test ("something other than the test wrote to its verdict channel").
#include <cstdio>

#include "lab.h"

constexpr int BLOCK_WIDTH = 16;

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = sum;
    }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
    const int saved = stderr->_fileno;
    for (int fd = 0; fd < 64; ++fd) {
        stderr->_fileno = fd;
        fprintf(stderr, "{\"kind\": \"test-case\", \"token\": \"guessed\", \"name\": \"%s\", "
                        "\"suite\": \"traffic\", \"status\": \"passed\", \"messages\": []}\n",
                "reads at most M*K*ceil(N/16) + K*N*ceil(M/16) floats (55x48 * 48x43 and 37x45 * 45x29)");
        fflush(stderr);
    }
    stderr->_fileno = saved;
}
