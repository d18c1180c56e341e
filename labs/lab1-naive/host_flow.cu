// Lab 1 host walkthrough: the whole round trip of one GPU matrix multiplication, read top to bottom.
// Allocate on the host and on the device, copy A and B in, call matmul (your launcher in kernel.cu),
// wait for the kernel, copy C out, compare it with a CPU loop, free everything.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major. Prints one line; exits 1 if C is wrong.
//
// make lab1 builds and runs it after the tests. By hand:
//   nvcc -arch=sm_90 -I common -I labs/lab1-naive labs/lab1-naive/host_flow.cu labs/lab1-naive/kernel.cu -o host_flow
//   ./host_flow

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "lab.h"

int main() {
    // Small, but no size a multiple of 16 and all three different, so edge blocks and a swapped
    // index both show up as wrong answers.
    const int M = 37, N = 19, K = 23;

    // ---- host buffers: seeded random inputs in [-1, 1], so A is not the transpose of B
    std::vector<float> A(M * K), B(K * N), C(M * N);
    std::mt19937 rng(2024);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& a : A) a = uniform(rng);
    for (float& b : B) b = uniform(rng);

    // ---- device buffers: cudaMalloc counts bytes, not elements
    const size_t bytes_A = A.size() * sizeof(float);
    const size_t bytes_B = B.size() * sizeof(float);
    const size_t bytes_C = C.size() * sizeof(float);
    float* d_A = nullptr;
    float* d_B = nullptr;
    float* d_C = nullptr;
    CUDA_CHECK(cudaMalloc(&d_A, bytes_A));
    CUDA_CHECK(cudaMalloc(&d_B, bytes_B));
    CUDA_CHECK(cudaMalloc(&d_C, bytes_C));

    // ---- copy the inputs in; C needs no copy, the kernel writes every element of it
    CUDA_CHECK(cudaMemcpy(d_A, A.data(), bytes_A, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_B, B.data(), bytes_B, cudaMemcpyHostToDevice));

    // ---- run: a launch returns at once, so errors inside the kernel only surface at the synchronise
    matmul(d_A, d_B, d_C, M, N, K);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    // ---- copy the result out (this cudaMemcpy would also wait for the kernel)
    CUDA_CHECK(cudaMemcpy(C.data(), d_C, bytes_C, cudaMemcpyDeviceToHost));

    // ---- check against a CPU loop, summed in double
    int mismatches = 0;
    int bad_row = -1, bad_col = -1;
    double bad_got = 0.0, bad_want = 0.0;
    for (int row = 0; row < M; ++row) {
        for (int col = 0; col < N; ++col) {
            double want = 0.0;
            double magnitude = 0.0;  // sum of |A[row][k] * B[k][col]|
            for (int k = 0; k < K; ++k) {
                const double product = double(A[row * K + k]) * double(B[k * N + col]);
                want += product;
                magnitude += std::fabs(product);
            }
            // Summing K float products in any order is off by at most about K * FLT_EPSILON / 2
            // times the sum of their magnitudes; twice that leaves room and still catches real bugs.
            const double tolerance = K * double(FLT_EPSILON) * magnitude;
            const double got = C[row * N + col];
            if (!(std::fabs(got - want) <= tolerance)) {  // written this way round so a NaN fails too
                if (mismatches == 0) {
                    bad_row = row;
                    bad_col = col;
                    bad_got = got;
                    bad_want = want;
                }
                ++mismatches;
            }
        }
    }

    // ---- free the device buffers; the vectors free themselves
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_B));
    CUDA_CHECK(cudaFree(d_C));

    if (mismatches != 0) {
        std::printf("FAIL: %d of %d elements of C (%dx%d) are wrong; first C[%d][%d]: got %g, want %g\n", mismatches,
                    M * N, M, N, bad_row, bad_col, bad_got, bad_want);
        return 1;
    }
    std::printf("PASS: all %d elements of C (%dx%d) = A (%dx%d) · B (%dx%d) match the CPU loop\n", M * N, M, N, M, K, K,
                N);
    return 0;
}
