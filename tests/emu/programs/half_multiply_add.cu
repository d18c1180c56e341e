// Half-precision multiply-adds written with operators (`a * b + c`, `c - a * b`, `s += a * b`, on __half and
// __half2) are fused as nvcc fuses them: one rounding, the bits of __hfma / __hfma2. Seeded inputs; the host
// counts how many of them a product rounded before the add would have changed, so that the check can fail.
//
// Build: nvcc -arch=sm_90 -o half_multiply_add tests/emu/programs/half_multiply_add.cu

#include <cuda_fp16.h>

#include "program.h"

constexpr int N = 256;

// out[i * 6 + k]: k = 0, 1: a * b + c, __hfma(a, b, c); 2, 3: c - a * b, __hfma(-a, b, c);
// 4, 5: the half2 forms' low halves (s += a * b from s = c, and __hfma2)
__global__ void multiply_add_kernel(const __half* a, const __half* b, const __half* c, unsigned short* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const __half x = a[i], y = b[i], z = c[i];
    unsigned short* o = out + i * 6;
    o[0] = __half_as_ushort(x * y + z);
    o[1] = __half_as_ushort(__hfma(x, y, z));
    o[2] = __half_as_ushort(z - x * y);
    o[3] = __half_as_ushort(__hfma(__hneg(x), y, z));
    const __half2 x2 = __halves2half2(x, y), y2 = __halves2half2(y, x);
    __half2 s = __halves2half2(z, z);
    s += x2 * y2;
    o[4] = __half_as_ushort(__low2half(s));
    o[5] = __half_as_ushort(__low2half(__hfma2(x2, y2, __halves2half2(z, z))));
}

int main() {
    std::vector<__half> a(N), b(N), c(N);
    unsigned state = 12345u;
    auto next = [&state] {  // a small LCG: the same inputs on every machine
        state = state * 1664525u + 1013904223u;
        return state >> 8;
    };
    for (int i = 0; i < N; ++i) {
        a[i] = __float2half(1.0f + float(next() % 1024) / 1024.0f);  // 11 significant bits: products need 22
        b[i] = __float2half(1.0f + float(next() % 1024) / 1024.0f);
        c[i] = __float2half(-float(next() % 4096) / 1024.0f);
    }
    a[0] = b[0] = __float2half(1.0f + 1.0f / 1024.0f);  // a * b = 1 + 2^-9 + 2^-20: rounded, 2^-20 is lost
    c[0] = __float2half(-(1.0f + 2.0f / 1024.0f));

    __half *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
    unsigned short* d_out = nullptr;
    CHECK(cudaMalloc(&d_a, N * sizeof(__half)));
    CHECK(cudaMalloc(&d_b, N * sizeof(__half)));
    CHECK(cudaMalloc(&d_c, N * sizeof(__half)));
    CHECK(cudaMalloc(&d_out, N * 6 * sizeof(unsigned short)));
    CHECK(cudaMemcpy(d_a, a.data(), N * sizeof(__half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b.data(), N * sizeof(__half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_c, c.data(), N * sizeof(__half), cudaMemcpyHostToDevice));
    multiply_add_kernel<<<N / 64, 64>>>(d_a, d_b, d_c, d_out);
    print_error("launch", cudaGetLastError());
    std::vector<unsigned short> out(N * 6);
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(unsigned short), cudaMemcpyDeviceToHost));

    std::vector<unsigned short> fused(N), fma(N), fused_sub(N), fma_sub(N), fused2(N), fma2(N);
    int rounded_twice_differs = 0;
    for (int i = 0; i < N; ++i) {
        fused[i] = out[i * 6], fma[i] = out[i * 6 + 1], fused_sub[i] = out[i * 6 + 2], fma_sub[i] = out[i * 6 + 3];
        fused2[i] = out[i * 6 + 4], fma2[i] = out[i * 6 + 5];
        // the product of two halves is exact in float, and so is rounding it to half and adding a half in float
        const __half product = __float2half(__half2float(a[i]) * __half2float(b[i]));
        const __half twice = __float2half(__half2float(product) + __half2float(c[i]));
        rounded_twice_differs += __half_as_ushort(twice) != fma[i];
    }
    print_compare("operators_fused", fused, fma);
    print_compare("subtraction_fused", fused_sub, fma_sub);
    print_compare("half2_fused", fused2, fma2);
    std::printf("first_result_bits: %04x\n", unsigned(fma[0]));  // 2^-20: 0x0010
    std::printf("rounded_twice_would_differ: %d\n", rounded_twice_differs);
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    CHECK(cudaFree(d_out));
    return 0;
}
