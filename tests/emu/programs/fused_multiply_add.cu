// Device code fuses `a * b + c` into one fused multiply-add (one rounding), as nvcc does by default (-fmad=true);
// host code does not (the host compiler has no FMA instruction on baseline x86-64). The inputs are chosen so
// that the fused and the unfused results differ: (1 + 2^-12)^2 - 1 needs 25 bits. Also double, a multiply-add
// in a __device__ function and in a loop (a dot product, where each step's rounding shows in the sum).
//
// Build: nvcc -arch=sm_90 -o fused_multiply_add tests/emu/programs/fused_multiply_add.cu

#include "program.h"

constexpr int K = 1000;  // dot product length

// ----------------------------------------------------------------------------
// kernels

__device__ float axpy(float a, float x, float y) { return a * x + y; }

__global__ void multiply_add_kernel(const float* f, const double* d, float* out_f, double* out_d) {
    out_f[0] = f[0] * f[1] + f[2];
    out_f[1] = axpy(f[0], f[1], f[2]);
    out_d[0] = d[0] * d[1] + d[2];
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += f[3 + k] * f[3 + K + k];
    out_f[2] = sum;
}

// ----------------------------------------------------------------------------
// host

int main() {
    std::vector<float> f(3 + 2 * K);
    f[0] = 1.0f + 0x1p-12f, f[1] = 1.0f + 0x1p-12f, f[2] = -1.0f;
    unsigned int state = 7u;
    for (int i = 3; i < 3 + 2 * K; ++i) {
        state = state * 1664525u + 1013904223u;
        f[i] = float(state >> 8) * 0x1p-24f - 0.5f;
    }
    const double d[3] = {1.0 + 0x1p-27, 1.0 + 0x1p-27, -1.0};
    float *d_f = nullptr, *d_out_f = nullptr;
    double *d_d = nullptr, *d_out_d = nullptr;
    CHECK(cudaMalloc(&d_f, f.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_d, 3 * sizeof(double)));
    CHECK(cudaMalloc(&d_out_f, 3 * sizeof(float)));
    CHECK(cudaMalloc(&d_out_d, sizeof(double)));
    CHECK(cudaMemcpy(d_f, f.data(), f.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_d, d, 3 * sizeof(double), cudaMemcpyHostToDevice));
    multiply_add_kernel<<<1, 1>>>(d_f, d_d, d_out_f, d_out_d);
    print_error("launch", cudaGetLastError());
    float out_f[3];
    double out_d;
    CHECK(cudaMemcpy(out_f, d_out_f, sizeof out_f, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&out_d, d_out_d, sizeof out_d, cudaMemcpyDeviceToHost));

    // the fused results, each computed with one rounding (fma), and the host's own a * b + c
    const float fused = fmaf(f[0], f[1], f[2]);
    float fused_sum = 0.0f;
    for (int k = 0; k < K; ++k) fused_sum = fmaf(f[3 + k], f[3 + K + k], fused_sum);
    const float host = f[0] * f[1] + f[2];
    std::printf("device_float: %a (%s)\n", out_f[0], out_f[0] == fused ? "fused" : "FAIL: not fused");
    std::printf("device_function: %a (%s)\n", out_f[1], out_f[1] == fused ? "fused" : "FAIL: not fused");
    std::printf("device_double: %a (%s)\n", out_d, out_d == fma(d[0], d[1], d[2]) ? "fused" : "FAIL: not fused");
    std::printf("device_dot: %a (%s)\n", out_f[2], out_f[2] == fused_sum ? "fused" : "FAIL: not fused");
    std::printf("host_float: %a (%s)\n", host, host == fused ? "fused" : "not fused");

    CHECK(cudaFree(d_f));
    CHECK(cudaFree(d_d));
    CHECK(cudaFree(d_out_f));
    CHECK(cudaFree(d_out_d));
    return 0;
}
