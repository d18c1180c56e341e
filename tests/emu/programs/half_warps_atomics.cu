// The 16-bit types in warp shuffles and atomics, and the vector atomics of compute capability 9.x: a warp sum of
// __half by __shfl_xor_sync, of __half2 by __shfl_down_sync, a broadcast of __nv_bfloat16 by __shfl_sync, and
// atomicAdd on __half, __half2, __nv_bfloat16, __nv_bfloat162, float2 and float4 from every thread. Every value is a
// small whole number, so each sum is exact in any order.
//
// Build: nvcc -arch=sm_90 -o half_warps_atomics tests/emu/programs/half_warps_atomics.cu

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "program.h"

constexpr int THREADS = 64;

struct Sums {
    __half h;
    __half2 h2;
    __nv_bfloat16 b;
    __nv_bfloat162 b2;
    float2 f2;
    float4 f4;
};

__global__ void warp_kernel(float* out) {
    const int lane = threadIdx.x % 32;
    __half h = __float2half(static_cast<float>(lane));
    for (int offset = 16; offset > 0; offset /= 2) h = __hadd(h, __shfl_xor_sync(0xffffffffu, h, offset));
    __half2 h2 = __floats2half2_rn(1.0f, static_cast<float>(lane % 4));
    for (int offset = 16; offset > 0; offset /= 2) h2 = __hadd2(h2, __shfl_down_sync(0xffffffffu, h2, offset));
    const __nv_bfloat16 b = __shfl_sync(0xffffffffu, __float2bfloat16(static_cast<float>(lane * 3)), 5);
    if (threadIdx.x == 33) {
        out[0] = __half2float(h);
        out[1] = __low2float(h2);
        out[2] = __high2float(h2);
        out[3] = __bfloat162float(b);
    }
}

__global__ void atomic_kernel(Sums* sums) {
    const float t = static_cast<float>(threadIdx.x % 8);
    atomicAdd(&sums->h, __float2half(t));
    atomicAdd(&sums->h2, __floats2half2_rn(1.0f, t));
    atomicAdd(&sums->b, __float2bfloat16(1.0f));  // bfloat16 has 8 bits: sums of 1 and 2 stay exact to 256
    atomicAdd(&sums->b2, __floats2bfloat162_rn(1.0f, 2.0f));
    atomicAdd(&sums->f2, make_float2(t, 1.0f));
    atomicAdd(&sums->f4, make_float4(1.0f, t, 2.0f, -t));
}

int main() {
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, 4 * sizeof(float)));
    warp_kernel<<<1, THREADS>>>(d_out);
    print_error("warp_launch", cudaGetLastError());
    float out[4];
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    std::printf("half_xor_sum: %g\n", out[0]);
    std::printf("half2_down_sum: %g %g\n", out[1], out[2]);
    std::printf("bfloat16_broadcast: %g\n", out[3]);

    Sums* d_sums = nullptr;
    CHECK(cudaMalloc(&d_sums, sizeof(Sums)));
    CHECK(cudaMemset(d_sums, 0, sizeof(Sums)));
    atomic_kernel<<<2, THREADS>>>(d_sums);
    print_error("atomic_launch", cudaGetLastError());
    Sums s;
    CHECK(cudaMemcpy(&s, d_sums, sizeof s, cudaMemcpyDeviceToHost));
    std::printf("atomic_half: %g\n", __half2float(s.h));
    std::printf("atomic_half2: %g %g\n", __low2float(s.h2), __high2float(s.h2));
    std::printf("atomic_bfloat16: %g\n", __bfloat162float(s.b));
    std::printf("atomic_bfloat162: %g %g\n", __low2float(s.b2), __high2float(s.b2));
    std::printf("atomic_float2: %g %g\n", s.f2.x, s.f2.y);
    std::printf("atomic_float4: %g %g %g %g\n", s.f4.x, s.f4.y, s.f4.z, s.f4.w);
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_sums));
    return 0;
}
