// flops.cu: floating-point arithmetic whose count can be worked out by hand, one pattern per kernel, each launched
// with one block of 64 threads. test_emulator_counts.cpp checks the emulator's counts in CUDAEMU_STATS against the
// H100's (programs/flops.h100.json, recorded by python3 -m tools.perf.requests_ncu from Nsight Compute's
// sm__sass_thread_inst_executed_op_* counters) and against the figures in the comments.
// Its stdout is the results, exact on both machines (small integers), so tests/emu/gpu_check.sh diffs it too.
//
// Build: nvcc -arch=sm_90 -o flops tests/emu/programs/flops.cu

#include <mma.h>

#include <vector>

#include "program.h"

constexpr int kThreads = 64, kLoop = 10;

// kLoop fused multiply-adds per thread: `s += a * b` is one fma (2 FLOPs)
__global__ void fp32_fma_loop(const float* a, const float* b, float* out, int n) {
    float s = 0;
    for (int j = 0; j < n; ++j) s += a[j] * b[threadIdx.x];
    out[threadIdx.x] = s;
}

// One multiply and one subtract, then one add, per thread. nvcc fuses the multiply into the subtract of the next
// statement, and so does the emulator: one ffma and one fadd.
__global__ void fp32_mul_then_add(const float* a, const float* b, float* out) {
    const float p = a[threadIdx.x] * b[threadIdx.x];
    const float d = p - a[0];
    out[threadIdx.x] = d + b[0];
}

// A multiply whose result is stored (it cannot be fused), and an add: 1 mul, 1 add
__global__ void fp32_mul_and_add(const float* a, const float* b, float* out, float* out2) {
    out[threadIdx.x] = a[threadIdx.x] * b[threadIdx.x];
    out2[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x];
}

// Only the first 20 threads do the 3 fmas: counted per thread that executed them (60)
__global__ void fp32_some_threads(const float* a, float* out) {
    float s = a[threadIdx.x];
    if (threadIdx.x < 20) {
        s = fmaf(s, a[1], a[2]);
        s = __fmaf_rn(s, a[3], a[4]);
        s += a[5] * a[6];
    }
    out[threadIdx.x] = s;
}

// The components of float4s: 4 fmas per thread
__global__ void fp32_float4(const float4* a, const float4* b, float* out) {
    const float4 x = a[threadIdx.x], y = b[threadIdx.x];
    out[threadIdx.x] = x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w;  // 1 mul, 3 fmas
}

// Double precision: 1 fma, 1 mul, 1 add per thread
__global__ void fp64_ops(const double* a, const double* b, double* out, double* out2) {
    const double t = a[threadIdx.x] * b[threadIdx.x] + a[0];
    out[threadIdx.x] = t + b[0];
    out2[threadIdx.x] = a[threadIdx.x] * b[1];
}

// Tensor cores: two warps, each one 16×16×8 TF32 mma_sync (2·16·16·8 FLOPs), then one 16×16×16 half one
__global__ void tensor_tf32(const float* a, const float* b, float* c) {
    using namespace nvcuda;
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 16);
    for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::fill_fragment(fc, 0.0f);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c + threadIdx.x / 32 * 256, fc, 16, wmma::mem_row_major);
}

__global__ void tensor_half(const __half* a, const __half* b, float* c) {
    using namespace nvcuda;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::fill_fragment(fc, 0.0f);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c + threadIdx.x / 32 * 256, fc, 16, wmma::mem_row_major);
}

template <class T>
T* device_copy(const std::vector<T>& host) {
    T* d = nullptr;
    CHECK(cudaMalloc(&d, host.size() * sizeof(T)));
    CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <class T>
void print_sum(const char* key, const T* d, size_t n) {
    std::vector<T> host(n);
    CHECK(cudaMemcpy(host.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    double sum = 0;
    for (const T& x : host) sum += static_cast<double>(x);
    std::printf("%s: %.1f\n", key, sum);
}

int main() {
    std::vector<float> small(8 * kThreads);  // room for two warps' 16×16 tiles of C
    for (size_t i = 0; i < small.size(); ++i) small[i] = static_cast<float>(i % 7) - 3;
    std::vector<double> wide(small.begin(), small.end());
    std::vector<__half> halves(small.size());
    for (size_t i = 0; i < small.size(); ++i) halves[i] = __float2half(small[i]);
    float *a = device_copy(small), *b = device_copy(small), *out = device_copy(small), *out2 = device_copy(small);
    double *da = device_copy(wide), *db = device_copy(wide), *dout = device_copy(wide), *dout2 = device_copy(wide);
    __half *ha = device_copy(halves), *hb = device_copy(halves);

    fp32_fma_loop<<<1, kThreads>>>(a, b, out, kLoop);
    print_sum("fp32_fma_loop", out, kThreads);
    fp32_mul_then_add<<<1, kThreads>>>(a, b, out);
    print_sum("fp32_mul_then_add", out, kThreads);
    fp32_mul_and_add<<<1, kThreads>>>(a, b, out, out2);
    print_sum("fp32_mul_and_add", out2, kThreads);
    fp32_some_threads<<<1, kThreads>>>(a, out);
    print_sum("fp32_some_threads", out, kThreads);
    fp32_float4<<<1, kThreads>>>(reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b), out);
    print_sum("fp32_float4", out, kThreads);
    fp64_ops<<<1, kThreads>>>(da, db, dout, dout2);
    print_sum("fp64_ops", dout, kThreads);
    tensor_tf32<<<1, kThreads>>>(a, b, out);
    print_sum("tensor_tf32", out, 2 * 256);
    tensor_half<<<1, kThreads>>>(ha, hb, out);
    print_sum("tensor_half", out, 2 * 256);
    CHECK(cudaDeviceSynchronize());
    return 0;
}
