// Half precision and bfloat16 (<cuda_fp16.h>, <cuda_bf16.h>): conversions from float round to nearest even, with
// subnormals, overflow to infinity and ties; arithmetic on __half, __half2 and __nv_bfloat16 rounds once, as a GPU's
// half-precision units do. Every result is printed as a checksum of its bits, so that one wrong bit shows.
//
// Build: nvcc -arch=sm_90 -o half_precision tests/emu/programs/half_precision.cu

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstring>

#include "program.h"

constexpr int OPS = 12;

// ----------------------------------------------------------------------------
// kernels

__global__ void half_kernel(const float* a, const float* b, const float* c, unsigned short* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const __half x = __float2half_rn(a[i]), y = __float2half(b[i]), z = __float2half(c[i]);
    unsigned short* o = out + i * OPS;
    o[0] = __half_as_ushort(x);
    o[1] = __half_as_ushort(__hadd(x, y));
    o[2] = __half_as_ushort(__hmul(x, y));
    o[3] = __half_as_ushort(__hfma(x, y, z));
    o[4] = __half_as_ushort(-((x - y) * z));  // operators (no multiply-add: nvcc would fuse it, docs/emulator.md)
    o[5] = __half_as_ushort(__float2half(__half2float(x) * 0.1f));
    const __half2 p = __halves2half2(x, y), q = __floats2half2_rn(c[i], a[i]);
    const __half2 s = __hfma2(p, q, __hadd2(p, q));
    o[6] = __half_as_ushort(__low2half(s));
    o[7] = __half_as_ushort(__high2half(s));
    const __nv_bfloat16 bx = __float2bfloat16(a[i]), by = __float2bfloat16_rn(b[i]), bz = __float2bfloat16(c[i]);
    o[8] = __bfloat16_as_ushort(bx);
    o[9] = __bfloat16_as_ushort(__hadd(bx, by));
    o[10] = __bfloat16_as_ushort(__hmul(bx, by));
    o[11] = __bfloat16_as_ushort(__hfma(bx, by, bz));
}

__global__ void to_float_kernel(const unsigned short* bits, float* half_out, float* bf16_out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    half_out[i] = __half2float(__ushort_as_half(bits[i]));
    bf16_out[i] = __bfloat162float(__ushort_as_bfloat16(bits[i]));
}

// ----------------------------------------------------------------------------
// host

unsigned int fnv(const unsigned short* p, int n, int stride) {
    unsigned int h = 2166136261u;
    for (int i = 0; i < n; ++i) h = (h ^ p[i * stride]) * 16777619u;
    return h;
}

int main() {
    // edge cases first: zeros, the largest half and what rounds to it or past it, subnormals and the ties
    // between them, ties between normals, values too small for a half
    std::vector<float> edge = {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 65519.0f, 65520.0f, -70000.0f, 0x1p-24f,
                               0x1p-25f, 0x1.8p-25f, 0x1.8p-24f, 0x1p-14f, 0x1.ffcp-15f, 1.0f + 0x1p-11f,
                               1.0f + 0x3p-11f, 1e-9f, 3.14159265f, 0.1f, 1.0f / 3.0f};
    const int n = 4096;
    std::vector<float> a(n), b(n), c(n);
    unsigned int state = 2024u;
    auto uniform = [&state](float lo, float hi) {
        state = state * 1664525u + 1013904223u;
        return lo + (hi - lo) * float(state >> 8) * 0x1p-24f;
    };
    for (int i = 0; i < n; ++i) {
        const float scale = std::ldexp(1.0f, (i % 40) - 26);  // magnitudes from subnormal halves to past 65504
        a[i] = i < (int)edge.size() ? edge[i] : uniform(-1.0f, 1.0f) * scale;
        b[i] = uniform(-4.0f, 4.0f);
        c[i] = uniform(-8.0f, 8.0f) * std::ldexp(1.0f, (i % 7) - 3);
    }
    float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
    unsigned short* d_out = nullptr;
    CHECK(cudaMalloc(&d_a, n * sizeof(float)));
    CHECK(cudaMalloc(&d_b, n * sizeof(float)));
    CHECK(cudaMalloc(&d_c, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * OPS * sizeof(unsigned short)));
    CHECK(cudaMemcpy(d_a, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_c, c.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    half_kernel<<<(n + 255) / 256, 256>>>(d_a, d_b, d_c, d_out, n);
    print_error("half_launch", cudaGetLastError());
    std::vector<unsigned short> out(n * OPS);
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(unsigned short), cudaMemcpyDeviceToHost));

    std::printf("edge_to_half:");
    for (size_t i = 0; i < edge.size(); ++i) std::printf(" %04x", out[i * OPS]);
    std::printf("\n");
    const char* names[OPS] = {"__float2half_rn", "__hadd", "__hmul", "__hfma", "operators", "__half2float",
                              "__hfma2_low", "__hfma2_high", "__float2bfloat16", "__hadd_bf16", "__hmul_bf16",
                              "__hfma_bf16"};
    for (int k = 0; k < OPS; ++k) std::printf("%s: %08x\n", names[k], fnv(out.data() + k, n, OPS));

    // every 16-bit pattern back to float (NaNs only counted: their payloads are not compared)
    const int patterns = 65536;
    std::vector<unsigned short> bits(patterns);
    for (int i = 0; i < patterns; ++i) bits[i] = (unsigned short)i;
    unsigned short* d_bits = nullptr;
    float *d_half_f = nullptr, *d_bf16_f = nullptr;
    CHECK(cudaMalloc(&d_bits, patterns * sizeof(unsigned short)));
    CHECK(cudaMalloc(&d_half_f, patterns * sizeof(float)));
    CHECK(cudaMalloc(&d_bf16_f, patterns * sizeof(float)));
    CHECK(cudaMemcpy(d_bits, bits.data(), patterns * sizeof(unsigned short), cudaMemcpyHostToDevice));
    to_float_kernel<<<patterns / 256, 256>>>(d_bits, d_half_f, d_bf16_f, patterns);
    print_error("to_float_launch", cudaGetLastError());
    std::vector<float> half_f(patterns), bf16_f(patterns);
    CHECK(cudaMemcpy(half_f.data(), d_half_f, patterns * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(bf16_f.data(), d_bf16_f, patterns * sizeof(float), cudaMemcpyDeviceToHost));
    for (const auto* v : {&half_f, &bf16_f}) {
        unsigned int h = 2166136261u, nans = 0;
        for (float f : *v) {
            unsigned int u;
            std::memcpy(&u, &f, sizeof u);
            if (f != f) ++nans, u = 0;
            h = (h ^ u) * 16777619u;
        }
        std::printf("%s_to_float: %08x nans %u\n", v == &half_f ? "half" : "bfloat16", h, nans);
    }

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_bits));
    CHECK(cudaFree(d_half_f));
    CHECK(cudaFree(d_bf16_f));
    return 0;
}
