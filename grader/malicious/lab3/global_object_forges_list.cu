// Malicious lab 3 kernel: the untouched skeleton, plus a global object whose constructor answers
// --list-test-cases itself with 98 invented correctness cases, so that the real suites' points would move into
// cases it passes. Must get: zero, refused at build time (a global object with a constructor); the grader's list of
// cases comes from the course's own tests anyway.
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

struct ListForger {
    ListForger() {
        FILE* f = fopen("/proc/self/cmdline", "r");
        if (!f) return;
        char cmdline[4096] = {0};
        size_t n = fread(cmdline, 1, sizeof cmdline - 1, f);
        fclose(f);
        if (!memmem(cmdline, n, "--list-test-cases", 17)) return;
        printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<doctest binary=\"tests\">\n");
        for (int i = 0; i < 98; ++i)
            printf("<TestCase name=\"invented %d\" testsuite=\"correctness\" filename=\"t\" line=\"1\"/>\n", i);
        printf("</doctest>\n");
        exit(0);
    }
};
ListForger forger;

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
