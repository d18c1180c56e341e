// reference_gemm.cpp — double-precision GEMM on the CPU, with per-element tolerances.
#include "reference_gemm.h"

#include <cfloat>
#include <cmath>

ReferenceGemm reference_gemm(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K,
                             int input_mantissa_bits) {
    ReferenceGemm ref;
    ref.C.assign(size_t(M) * N, 0.0);
    ref.tolerance.assign(size_t(M) * N, 0.0);
    std::vector<double> magnitude(size_t(M) * N, 0.0);  // Σ|a·b| for each output
    for (int row = 0; row < M; ++row) {
        for (int k = 0; k < K; ++k) {  // row-major friendly order: stream through a row of B
            double a = A[size_t(row) * K + k];
            for (int col = 0; col < N; ++col) {
                double product = a * B[size_t(k) * N + col];
                ref.C[size_t(row) * N + col] += product;
                magnitude[size_t(row) * N + col] += std::fabs(product);
            }
        }
    }
    const double inputs = input_mantissa_bits < 23 ? 2.0 * std::ldexp(1.0, -input_mantissa_bits) : 0.0;
    for (size_t i = 0; i < ref.C.size(); ++i)
        ref.tolerance[i] = (double(K) * FLT_EPSILON + inputs) * magnitude[i] + 1e-6;
    return ref;
}
