// Which element of the matrix each lane's x[i] holds after wmma::load_matrix_sync, and num_elements, for every
// fragment the emulator supports (TF32 m16n16k8; half and __nv_bfloat16 m16n16k16, m32n8k16, m8n32k16; float
// accumulators), loaded row-major and column-major. Each fragment is loaded twice: from a matrix whose elements are
// their row numbers and from one whose elements are their column numbers (small integers: exact in every type).
// Prints one line per fragment: `name: num_elements | lane 0's (row,col) for x[0..] | lane 1's ...`.
// Also stores an accumulator row- and column-major and checks every element lands where it belongs.
//
// Build: nvcc -arch=sm_90 -o wmma_layout tests/emu/programs/wmma_layout.cu

#include <mma.h>

#include <cstdio>
#include <string>

#include "program.h"

using namespace nvcuda;

constexpr int kMaxElements = 16;

// out[lane][i] = (row, col) of x[i], packed as row * 64 + col
template <class Frag, class Elem>
__global__ void map_kernel(const Elem* rows, const Elem* cols, unsigned ldm, int* out) {
    Frag r, c;
    wmma::load_matrix_sync(r, rows, ldm);
    wmma::load_matrix_sync(c, cols, ldm);
    for (int i = 0; i < r.num_elements; ++i)
        out[threadIdx.x * kMaxElements + i] = int(float(r.x[i])) * 64 + int(float(c.x[i]));
}

template <int M, int N, int K>
__global__ void acc_map_kernel(const float* rows, const float* cols, unsigned ldm, wmma::layout_t layout, int* out) {
    wmma::fragment<wmma::accumulator, M, N, K, float> r, c;
    wmma::load_matrix_sync(r, rows, ldm, layout);
    wmma::load_matrix_sync(c, cols, ldm, layout);
    for (int i = 0; i < r.num_elements; ++i)
        out[threadIdx.x * kMaxElements + i] = int(r.x[i]) * 64 + int(c.x[i]);
}

// An accumulator loaded from `in` (row-major, ldm N) and stored with `layout` (ldm M for column-major)
template <int M, int N, int K>
__global__ void store_kernel(const float* in, float* out, wmma::layout_t layout) {
    wmma::fragment<wmma::accumulator, M, N, K, float> f;
    wmma::load_matrix_sync(f, in, N, wmma::mem_row_major);
    wmma::store_matrix_sync(out, f, layout == wmma::mem_row_major ? N : M, layout);
}

int* d_out = nullptr;

void print_map(const char* name, int count) {
    std::vector<int> out(32 * kMaxElements);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
    std::string line = std::string(name) + ": " + std::to_string(count);
    for (int lane = 0; lane < 32; ++lane) {
        line += " |";
        for (int i = 0; i < count; ++i) {
            const int v = out[lane * kMaxElements + i];
            line += " " + std::to_string(v / 64) + "," + std::to_string(v % 64);
        }
    }
    std::printf("%s\n", line.c_str());
}

// A rows×cols matrix in memory with leading dimension ldm (row-major: ldm >= cols; column-major: ldm >= rows),
// holding each element's row number (or column number).
template <class Elem>
Elem* index_matrix(int rows, int cols, bool col_major, unsigned ldm, bool want_row) {
    std::vector<Elem> h(size_t(ldm) * (col_major ? cols : rows), Elem(0.0f));
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) h[col_major ? size_t(c) * ldm + r : size_t(r) * ldm + c] = Elem(float(want_row ? r : c));
    Elem* d = nullptr;
    CHECK(cudaMalloc(&d, h.size() * sizeof(Elem)));
    CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(Elem), cudaMemcpyHostToDevice));
    return d;
}

// matrix_a is M×K, matrix_b K×N; ldm is the minimum rounded up to 16 elements
template <class Use, int M, int N, int K, class T, class Layout, class Elem>
void input_map(const char* name) {
    using Frag = wmma::fragment<Use, M, N, K, T, Layout>;
    const bool a = std::is_same<Use, wmma::matrix_a>::value, col = std::is_same<Layout, wmma::col_major>::value;
    const int rows = a ? M : K, cols = a ? K : N;
    const unsigned ldm = ((col ? rows : cols) + 15) / 16 * 16;
    Elem* r = index_matrix<Elem>(rows, cols, col, ldm, true);
    Elem* c = index_matrix<Elem>(rows, cols, col, ldm, false);
    map_kernel<Frag, Elem><<<1, 32>>>(r, c, ldm, d_out);
    print_map(name, Frag::num_elements);
    CHECK(cudaFree(r));
    CHECK(cudaFree(c));
}

template <int M, int N, int K>
void accumulator_map(const char* name, bool col) {
    const unsigned ldm = col ? M : N;
    float* r = index_matrix<float>(M, N, col, ldm, true);
    float* c = index_matrix<float>(M, N, col, ldm, false);
    acc_map_kernel<M, N, K><<<1, 32>>>(r, c, ldm, col ? wmma::mem_col_major : wmma::mem_row_major, d_out);
    print_map(name, wmma::fragment<wmma::accumulator, M, N, K, float>::num_elements);
    CHECK(cudaFree(r));
    CHECK(cudaFree(c));
}

template <int M, int N, int K>
void store_check(const char* name) {
    std::vector<float> h(M * N);
    for (int i = 0; i < M * N; ++i) h[i] = float(i);
    float *in = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&in, M * N * sizeof(float)));
    CHECK(cudaMalloc(&out, M * N * sizeof(float)));
    CHECK(cudaMemcpy(in, h.data(), M * N * sizeof(float), cudaMemcpyHostToDevice));
    for (bool col : {false, true}) {
        store_kernel<M, N, K><<<1, 32>>>(in, out, col ? wmma::mem_col_major : wmma::mem_row_major);
        std::vector<float> got(M * N), want(M * N);
        CHECK(cudaMemcpy(got.data(), out, M * N * sizeof(float), cudaMemcpyDeviceToHost));
        for (int r = 0; r < M; ++r)
            for (int c = 0; c < N; ++c) want[col ? c * M + r : r * N + c] = float(r * N + c);
        print_compare((std::string(name) + (col ? "_store_col" : "_store_row")).c_str(), got, want);
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
}

int main() {
    using wmma::col_major;
    using wmma::matrix_a;
    using wmma::matrix_b;
    using wmma::row_major;
    using tf32 = wmma::precision::tf32;
    using bf16 = __nv_bfloat16;
    CHECK(cudaMalloc(&d_out, 32 * kMaxElements * sizeof(int)));
    input_map<matrix_a, 16, 16, 8, tf32, row_major, float>("tf32_a_16x16x8_row");
    input_map<matrix_a, 16, 16, 8, tf32, col_major, float>("tf32_a_16x16x8_col");
    input_map<matrix_b, 16, 16, 8, tf32, row_major, float>("tf32_b_16x16x8_row");
    input_map<matrix_b, 16, 16, 8, tf32, col_major, float>("tf32_b_16x16x8_col");
    input_map<matrix_a, 16, 16, 16, half, row_major, half>("half_a_16x16x16_row");
    input_map<matrix_a, 16, 16, 16, half, col_major, half>("half_a_16x16x16_col");
    input_map<matrix_b, 16, 16, 16, half, row_major, half>("half_b_16x16x16_row");
    input_map<matrix_b, 16, 16, 16, half, col_major, half>("half_b_16x16x16_col");
    input_map<matrix_a, 32, 8, 16, half, row_major, half>("half_a_32x8x16_row");
    input_map<matrix_b, 32, 8, 16, half, col_major, half>("half_b_32x8x16_col");
    input_map<matrix_a, 8, 32, 16, half, col_major, half>("half_a_8x32x16_col");
    input_map<matrix_b, 8, 32, 16, half, row_major, half>("half_b_8x32x16_row");
    input_map<matrix_a, 16, 16, 16, bf16, row_major, bf16>("bf16_a_16x16x16_row");
    input_map<matrix_b, 16, 16, 16, bf16, col_major, bf16>("bf16_b_16x16x16_col");
    input_map<matrix_a, 32, 8, 16, bf16, row_major, bf16>("bf16_a_32x8x16_row");
    input_map<matrix_b, 32, 8, 16, bf16, row_major, bf16>("bf16_b_32x8x16_row");
    input_map<matrix_a, 8, 32, 16, bf16, row_major, bf16>("bf16_a_8x32x16_row");
    input_map<matrix_b, 8, 32, 16, bf16, col_major, bf16>("bf16_b_8x32x16_col");
    accumulator_map<16, 16, 8>("acc_16x16x8_row", false);
    accumulator_map<16, 16, 16>("acc_16x16x16_col", true);
    accumulator_map<32, 8, 16>("acc_32x8x16_row", false);
    accumulator_map<8, 32, 16>("acc_8x32x16_col", true);
    store_check<16, 16, 8>("acc_16x16x8");
    store_check<32, 8, 16>("acc_32x8x16");
    store_check<8, 32, 16>("acc_8x32x16");
    CHECK(cudaFree(d_out));
    return 0;
}
