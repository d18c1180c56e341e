// Malicious lab 3 kernel: an untiled kernel with a static constructor that reads /proc/self/cmdline and prints a
// passing doctest report for whatever --test-case it is asked for, then exits before the real test runs. Must get:
// zero, refused at build time: a static constructor runs before main(), where nothing can be trusted.
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

// a passing doctest XML report for whichever --test-case the grader asked for
static void print_passing_report(const char* name) {
    printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<doctest binary=\"tests\">\n"
           "<TestSuite><TestCase name=\"%s\" filename=\"tests.cpp\" line=\"1\">\n"
           "<OverallResultsAsserts successes=\"1\" failures=\"0\" test_case_success=\"true\"/>\n"
           "</TestCase></TestSuite>\n"
           "<OverallResultsAsserts successes=\"1\" failures=\"0\"/>\n<OverallResultsTestCases successes=\"1\" failures=\"0\"/>\n"
           "</doctest>\n", name);
}

__attribute__((constructor)) static void forge() {
    char cmdline[4096] = {0};
    FILE* f = fopen("/proc/self/cmdline", "r");
    if (!f) return;
    size_t n = fread(cmdline, 1, sizeof cmdline - 1, f);
    fclose(f);
    for (size_t i = 0; i < n; i += strlen(cmdline + i) + 1) {
        if (strncmp(cmdline + i, "--test-case=", 12) == 0) {
            print_passing_report(cmdline + i + 12);
            exit(0);
        }
    }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
