// Matrix products with the warp matrix functions: one warp per 16×16 (or 32×8, 8×32) tile of C, walking K one
// fragment at a time, for TF32, half and __nv_bfloat16 inputs in row- and column-major layouts, with C stored in
// both layouts (a tile 8 columns into a row-major matrix of 16-bit elements is 16 bytes in: not 256-bit aligned,
// so the 8-wide tiles of B come column-major). Small integers: every product and sum is exact on both machines, so C is compared exactly.
// Then the tensor cores' rounding, printed as bits (the same on an H100 and on the emulator):
//   - __float_to_tf32 rounds to nearest, ties away from zero;
//   - a float that was not converted is truncated to TF32;
//   - products are added to the accumulator with one rounding toward zero, after bits far below the largest
//     term are dropped (TF32: in groups of 4 products).
// And a random TF32 product whose every element must be within one unit of rounding (per group) of the exact one.
//
// Build: nvcc -arch=sm_90 -o wmma_gemm tests/emu/programs/wmma_gemm.cu

#include <mma.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "program.h"

using namespace nvcuda;

// C (M×N) = A (M×K) · B (K×N) + C; A stored in LayoutA with ldm lda, B in LayoutB; C in `layout`
template <int FM, int FN, int FK, class T, class LayoutA, class LayoutB, class Elem>
__global__ void gemm_kernel(const Elem* A, const Elem* B, float* C, int M, int N, int K, wmma::layout_t layout,
                            bool convert) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int tiles_n = N / FN, tm = warp / tiles_n * FM, tn = warp % tiles_n * FN;
    if (tm >= M) return;  // whole warps only
    const bool a_col = std::is_same<LayoutA, wmma::col_major>::value;
    const bool b_col = std::is_same<LayoutB, wmma::col_major>::value;
    const bool c_col = layout == wmma::mem_col_major;
    wmma::fragment<wmma::accumulator, FM, FN, FK, float> acc;
    float* c_tile = c_col ? C + size_t(tn) * M + tm : C + size_t(tm) * N + tn;
    wmma::load_matrix_sync(acc, c_tile, c_col ? M : N, layout);
    for (int k = 0; k < K; k += FK) {
        wmma::fragment<wmma::matrix_a, FM, FN, FK, T, LayoutA> a;
        wmma::fragment<wmma::matrix_b, FM, FN, FK, T, LayoutB> b;
        wmma::load_matrix_sync(a, a_col ? A + size_t(k) * M + tm : A + size_t(tm) * K + k, a_col ? M : K);
        wmma::load_matrix_sync(b, b_col ? B + size_t(tn) * K + k : B + size_t(k) * N + tn, b_col ? K : N);
        if (convert) {  // only TF32 fragments are converted (Elem is float)
            for (int i = 0; i < a.num_elements; ++i) a.x[i] = wmma::__float_to_tf32(float(a.x[i]));
            for (int i = 0; i < b.num_elements; ++i) b.x[i] = wmma::__float_to_tf32(float(b.x[i]));
        }
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(c_tile, acc, c_col ? M : N, layout);
}

template <class T>
T* to_device(const std::vector<T>& h) {
    T* d = nullptr;
    CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
    CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

// C = A·B + C on the GPU (row-major host matrices in, row-major out), with the given fragment and layouts.
template <int FM, int FN, int FK, class T, class LayoutA, class LayoutB, class Elem>
std::vector<float> multiply(const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& C,
                            int M, int N, int K, wmma::layout_t layout, bool convert = false) {
    const bool a_col = std::is_same<LayoutA, wmma::col_major>::value;
    const bool b_col = std::is_same<LayoutB, wmma::col_major>::value;
    const bool c_col = layout == wmma::mem_col_major;
    std::vector<Elem> a(M * K), b(K * N);
    std::vector<float> c(M * N);
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) a[a_col ? k * M + i : i * K + k] = Elem(A[i * K + k]);
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j) b[b_col ? j * K + k : k * N + j] = Elem(B[k * N + j]);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) c[c_col ? j * M + i : i * N + j] = C[i * N + j];
    Elem *dA = to_device(a), *dB = to_device(b);
    float* dC = to_device(c);
    const int warps = (M / FM) * (N / FN);
    gemm_kernel<FM, FN, FK, T, LayoutA, LayoutB, Elem><<<(warps + 3) / 4, 128>>>(dA, dB, dC, M, N, K, layout, convert);
    CHECK(cudaMemcpy(c.data(), dC, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
    std::vector<float> out(M * N);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) out[i * N + j] = c[c_col ? j * M + i : i * N + j];
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    return out;
}

std::vector<float> small_integers(int n, int seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> d(-4, 4);
    std::vector<float> v(n);
    for (float& x : v) x = float(d(rng));
    return v;
}

std::vector<float> reference(const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& C,
                             int M, int N, int K) {
    std::vector<float> out(C);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j)
            for (int k = 0; k < K; ++k) out[i * N + j] += A[i * K + k] * B[k * N + j];
    return out;
}

template <int FM, int FN, int FK, class T, class LayoutA, class LayoutB, class Elem>
void exact_case(const char* name, wmma::layout_t layout) {
    const int M = 64, N = 64, K = 64;
    const std::vector<float> A = small_integers(M * K, 1), B = small_integers(K * N, 2), C = small_integers(M * N, 3);
    print_compare(name, multiply<FM, FN, FK, T, LayoutA, LayoutB, Elem>(A, B, C, M, N, K, layout),
                  reference(A, B, C, M, N, K));
}

uint32_t bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

__global__ void to_tf32_kernel(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = wmma::__float_to_tf32(in[i]);
}

// One TF32 product of a 16×8 A and an 8×16 B whose only nonzero row and column are given; D[0][0] as bits.
std::string tf32_dot(const std::vector<float>& a_row, const std::vector<float>& b_col, float c, bool convert) {
    std::vector<float> A(16 * 8, 0.0f), B(8 * 16, 0.0f), C(16 * 16, 0.0f);
    for (int k = 0; k < 8; ++k) A[k] = a_row[k], B[k * 16] = b_col[k];
    C[0] = c;
    using tf32 = wmma::precision::tf32;
    const float d = multiply<16, 16, 8, tf32, wmma::row_major, wmma::row_major, float>(A, B, C, 16, 16, 8,
                                                                                       wmma::mem_row_major, convert)[0];
    char text[16];
    std::snprintf(text, sizeof text, "%08x", bits(d));
    return text;
}

int main() {
    using wmma::col_major;
    using wmma::row_major;
    using tf32 = wmma::precision::tf32;
    using bf16 = __nv_bfloat16;
    exact_case<16, 16, 8, tf32, row_major, col_major, float>("tf32_row_col_store_row", wmma::mem_row_major);
    exact_case<16, 16, 8, tf32, col_major, row_major, float>("tf32_col_row_store_col", wmma::mem_col_major);
    exact_case<16, 16, 16, half, row_major, row_major, half>("half_16x16x16_row_row", wmma::mem_row_major);
    exact_case<32, 8, 16, half, col_major, col_major, half>("half_32x8x16_col_col", wmma::mem_col_major);
    exact_case<8, 32, 16, half, row_major, col_major, half>("half_8x32x16_row_col", wmma::mem_row_major);
    exact_case<16, 16, 16, bf16, col_major, col_major, bf16>("bf16_16x16x16_col_col", wmma::mem_row_major);
    exact_case<32, 8, 16, bf16, row_major, col_major, bf16>("bf16_32x8x16_row_col", wmma::mem_col_major);
    exact_case<8, 32, 16, bf16, row_major, row_major, bf16>("bf16_8x32x16_row_row", wmma::mem_row_major);

    // __float_to_tf32: ties away from zero (1 + 2^-11 is halfway between two TF32 values), up, down, specials
    const std::vector<float> in = {1.0f + 0x1p-11f, -(1.0f + 0x1p-11f), 1.0f + 0x1p-12f, 1.0f + 3 * 0x1p-12f,
                                   1.0f + 0x1p-10f + 0x1p-11f, 3.4028235e38f, 1e-40f, INFINITY, -0.0f, 0.1f};
    float *d_in = to_device(in), *d_out = nullptr;
    CHECK(cudaMalloc(&d_out, in.size() * sizeof(float)));
    to_tf32_kernel<<<1, 32>>>(d_in, d_out, int(in.size()));
    std::vector<float> out(in.size());
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    std::string line;
    for (float f : out) {
        char text[16];
        std::snprintf(text, sizeof text, " %08x", bits(f));
        line += text;
    }
    std::printf("float_to_tf32:%s\n", line.c_str());

    const std::vector<float> e0(8, 0.0f);
    std::vector<float> one = e0, x = e0, tiny = e0, halves = e0;
    one[0] = 1.0f;
    x[0] = 1.0f + 3 * 0x1p-12f;  // not a TF32 value
    std::printf("unconverted_input_truncated: %s\n", tf32_dot(x, one, 0.0f, false).c_str());
    std::printf("converted_input_rounded: %s\n", tf32_dot(x, one, 0.0f, true).c_str());
    tiny[0] = 0x1p-12f;
    halves[0] = 1.5f * 0x1p-12f;  // the product, 1.5·2^-24, is three quarters of a unit of 1.0f
    std::printf("sum_rounds_toward_zero: %s\n", tf32_dot(tiny, halves, 1.0f, false).c_str());
    std::printf("sum_rounds_toward_zero_negative: %s\n", tf32_dot(tiny, halves, -1.0f, false).c_str());
    const std::vector<float> small(8, 0x1p-13f);  // 8 products of 2^-26: exactly one unit of 1.0f in all
    std::printf("far_below_largest_term_dropped: %s\n", tf32_dot(small, small, 1.0f, false).c_str());

    // random TF32 inputs in [-1, 1], K = 64: each element within one unit of rounding per group of 4 of the exact
    // sum of the truncated inputs' products
    const int M = 32, N = 32, K = 64;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> A(M * K), B(K * N), C(M * N);
    for (float& v : A) v = u(rng);
    for (float& v : B) v = u(rng);
    for (float& v : C) v = u(rng);
    const std::vector<float> D = multiply<16, 16, 8, tf32, row_major, row_major, float>(A, B, C, M, N, K,
                                                                                        wmma::mem_row_major);
    auto truncated = [](float f) {
        uint32_t b = bits(f) & ~0x1fffu;
        float t;
        std::memcpy(&t, &b, 4);
        return double(t);
    };
    int outside = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double exact = C[i * N + j], magnitude = std::fabs(exact);
            for (int k = 0; k < K; ++k) {
                const double p = truncated(A[i * K + k]) * truncated(B[k * N + j]);
                exact += p, magnitude += std::fabs(p);
            }
            if (std::fabs(D[i * N + j] - exact) > (K / 4) * magnitude * 0x1p-23) ++outside;
        }
    std::printf("random_tf32_within_one_unit_per_group: %s\n", outside == 0 ? "pass" : "FAIL");
    return 0;
}
