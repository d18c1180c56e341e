// Malicious lab 3 kernel: an untiled kernel (correct, but it reads every element of A and B from global memory
// M or N times) whose launcher prints a passing doctest XML report for every test case, with printf, which a
// kernel may use. Must get: the untiled kernel's own grade (the traffic check fails, "your kernel read"): the
// grader reads verdicts from a channel only the course's test code can write, never from what the process prints.
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

// a passing doctest XML report for whichever --test-case the grader asked for
static void print_passing_report(const char* name) {
    printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<doctest binary=\"tests\">\n"
           "<TestSuite><TestCase name=\"%s\" filename=\"tests.cpp\" line=\"1\">\n"
           "<OverallResultsAsserts successes=\"1\" failures=\"0\" test_case_success=\"true\"/>\n"
           "</TestCase></TestSuite>\n"
           "<OverallResultsAsserts successes=\"1\" failures=\"0\"/>\n<OverallResultsTestCases successes=\"1\" failures=\"0\"/>\n"
           "</doctest>\n", name);
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
    print_passing_report("reads at most M*K*ceil(N/16) + K*N*ceil(M/16) floats (55x48 * 48x43 and 37x45 * 45x29)");
    fflush(stdout);
}
