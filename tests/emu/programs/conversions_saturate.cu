// conversions_saturate.cu: the float and double to integer intrinsics saturate, as PTX's cvt does: a value past the
// integer type's range gives its nearest limit and a NaN gives 0 (the host's own conversion gives 0x80000000 for
// both). Also __frsqrt_rn, the reciprocal square root rounded once.
//
// Build: nvcc -arch=sm_90 -o conversions_saturate tests/emu/programs/conversions_saturate.cu
#include <cmath>

#include "program.h"

constexpr int kInputs = 7;

__global__ void convert(const float* f, const double* d, int* i, unsigned* u, float* r) {
    const int t = threadIdx.x;
    i[6 * t + 0] = __float2int_rn(f[t]);
    i[6 * t + 1] = __float2int_rz(f[t]);
    i[6 * t + 2] = __float2int_rd(f[t]);
    i[6 * t + 3] = __float2int_ru(f[t]);
    i[6 * t + 4] = __double2int_rn(d[t]);
    i[6 * t + 5] = __double2int_rz(d[t]);
    u[2 * t + 0] = __float2uint_rn(f[t]);
    u[2 * t + 1] = __float2uint_rz(f[t]);
    r[t] = __frsqrt_rn(fabsf(f[t]));
}

int main() {
    const float f[kInputs] = {1e10f, -1e10f, NAN, -0.7f, 123.7f, -5.5f, 0x1.000002p+0f};
    const double d[kInputs] = {1e10, -1e20, NAN, -0.7, 2147483647.4, -2147483648.6, 4294967296.0};
    float *d_f = nullptr, *d_r = nullptr;
    double* d_d = nullptr;
    int* d_i = nullptr;
    unsigned* d_u = nullptr;
    CHECK(cudaMalloc(&d_f, sizeof f));
    CHECK(cudaMalloc(&d_d, sizeof d));
    CHECK(cudaMalloc(&d_i, 6 * kInputs * sizeof(int)));
    CHECK(cudaMalloc(&d_u, 2 * kInputs * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_r, kInputs * sizeof(float)));
    CHECK(cudaMemcpy(d_f, f, sizeof f, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_d, d, sizeof d, cudaMemcpyHostToDevice));
    convert<<<1, kInputs>>>(d_f, d_d, d_i, d_u, d_r);
    CHECK(cudaDeviceSynchronize());
    int i[6 * kInputs];
    unsigned u[2 * kInputs];
    float r[kInputs];
    CHECK(cudaMemcpy(i, d_i, sizeof i, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(u, d_u, sizeof u, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(r, d_r, sizeof r, cudaMemcpyDeviceToHost));
    for (int t = 0; t < kInputs; ++t)
        std::printf("input %d: float2int rn %d rz %d rd %d ru %d, double2int rn %d rz %d, float2uint rn %u rz %u, "
                    "frsqrt_rn %a\n",
                    t, i[6 * t], i[6 * t + 1], i[6 * t + 2], i[6 * t + 3], i[6 * t + 4], i[6 * t + 5], u[2 * t],
                    u[2 * t + 1], r[t]);
    return 0;
}
