// reference_gemm.h — the answer every lab is checked against.
//
// C = A·B computed in double, with the bound on how far a correct float kernel may stray from it.
#pragma once

#include <vector>

struct ReferenceGemm {
    std::vector<double> C;          // M×N, row-major
    std::vector<double> tolerance;  // M×N: how far a correct float result may be from C
};

// A float dot product of length K, summed in any order (with or without FMA), differs from the exact value by at
// most gamma_K · Σ|a·b| where gamma_K ≈ K·u and u = 2^-24 is float's unit roundoff. The bound used here is
// K·FLT_EPSILON·Σ|a·b| (twice that, for margin) plus a tiny absolute term for sums that cancel to zero.
// A kernel that multiplies its inputs with fewer mantissa bits (`input_mantissa_bits` below float's 23: TF32's 10 on
// tensor cores) changes each input by up to 2^-bits of it (truncated; half that when rounded), so each product
// by up to 2·2^-bits: the bound adds 2·2^-bits·Σ|a·b|.
ReferenceGemm reference_gemm(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K,
                             int input_mantissa_bits = 23);
