// Lab 1 demo: your matmul_from_host (kernel.cu) on one small problem, checked against a CPU loop.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, in host memory. Prints one line; exits 1 if C is wrong.
// A failed CUDA_CHECK inside matmul_from_host prints where and why, and exits 1.
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

// Declared weak: with a kernel.cu that does not define it yet, the demo still builds and says so.
__attribute__((weak)) void matmul_from_host(const float* A, const float* B, float* C, int M, int N, int K);

int main() {
    if (!matmul_from_host) {
        std::printf("FAIL: your kernel.cu defines no matmul_from_host (lab.h): lab 1's second part\n");
        return 1;
    }
    // Small, but no size a multiple of 16 and all three different, so edge blocks and a swapped
    // index both show up as wrong answers.
    const int M = 37, N = 19, K = 23;

    // ---- host buffers: seeded random inputs in [-1, 1], so A is not the transpose of B
    // C starts as NaN, so an element nothing writes stands out, as in the tests
    std::vector<float> A(M * K), B(K * N), C(M * N, NAN);
    std::mt19937 rng(2024);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& a : A) a = uniform(rng);
    for (float& b : B) b = uniform(rng);

    // ---- the round trip you wrote: device buffers, copies in, launch, wait, copy out, free
    matmul_from_host(A.data(), B.data(), C.data(), M, N, K);

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

    if (mismatches != 0) {
        std::printf("FAIL: %d of %d elements of C (%dx%d) are wrong; first C[%d][%d]: got %g, want %g%s\n", mismatches,
                    M * N, M, N, bad_row, bad_col, bad_got, bad_want,
                    std::isnan(bad_got) ? " (NaN: nothing reached C there)" : "");
        return 1;
    }
    std::printf("PASS: all %d elements of C (%dx%d) = A (%dx%d) · B (%dx%d) match the CPU loop\n", M * N, M, N, M, K, K,
                N);
    return 0;
}
