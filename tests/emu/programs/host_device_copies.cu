// A __host__ __device__ function is compiled twice by nvcc: the device copy fuses a multiply and an add into one
// fused multiply-add and calls CUDA's math library, the host compiler's copy does neither (x86-64 has no FMA in its
// baseline instruction set). Each line prints what host code and what a kernel get from the same function, with %a.
// With u = 1 + 2^-12, u*u needs 25 bits: fused, u*u - (1 + 2^-11) is 2^-24; rounded first, it is 0.
//   mad        a*b + c in a __host__ __device__ function
//   nested     a __host__ __device__ function that calls another one
//   method     a member function (an operator of a vector type, as programs write them)
//   templated  a function template, instantiated for float
//   static     a namespace-scope variable that host code initialises by calling the function before main
//   exp        a hash of exp() over 4,096 arguments: glibc's last bits on the host, libdevice's in the kernel
// Rodinia's cfd fills its far-field constants on the host with a __host__ __device__ function of this kind.
//
// Build: nvcc -arch=sm_90 -o host_device_copies tests/emu/programs/host_device_copies.cu

#include <cmath>
#include <cstdint>
#include <cstring>

#include "program.h"

constexpr int N = 4096;  // arguments of exp

__host__ __device__ inline float mad(float a, float b, float c) { return a * b + c; }

__host__ __device__ inline float nested(float a, float b, float c) { return mad(a, b, c) * 2.0f; }

struct Pair {
    float x, y;
    __host__ __device__ Pair operator*(const Pair& o) const { return {x * o.x - y * o.y, x * o.y + y * o.x}; }
};

template <typename T>
__host__ __device__ T templated(T a, T b, T c) {
    return c + a * b;
}

__host__ __device__ inline double exp_argument(int i) { return -40.0 + 80.0 * i / N; }

__host__ __device__ inline uint64_t hash_exp(int n) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the results' bits
    for (int i = 0; i < n; ++i) {
        const double y = exp(exp_argument(i));
        uint64_t bits;
        memcpy(&bits, &y, sizeof bits);
        h = (h ^ bits) * 1099511628211ull;
    }
    return h;
}

constexpr float u = 1.0f + 1.0f / 4096, v = -(1.0f + 1.0f / 2048);
const float at_start = mad(u, u, v);  // set before main, by host code

// u and v come as arguments: nvcc rounds a product of two constants when it folds it, before any fusing (on an H100,
// mad(u, u, v) with the namespace's constexpr u and v gives 0 in a kernel too).
__global__ void device_side(float u, float v, float* f, unsigned long long* h) {
    f[0] = mad(u, u, v);
    f[1] = nested(u, u, v);
    f[2] = templated(u, u, v);
    *h = hash_exp(N);
}

// The method has a kernel of its own: nvcc fuses after inlining, and in device_side u*u would be one value with the
// method's uses and mad's (a multiply with more uses is left unfused there, docs/emulator.md).
__global__ void device_method(float u, float v, float* f) {
    const Pair p = Pair{u, v} * Pair{u, u};
    f[3] = p.x;
    f[4] = p.y;
}

int main() {
    float* d_f;
    unsigned long long* d_h;
    CHECK(cudaMalloc(&d_f, 5 * sizeof(float)));
    CHECK(cudaMalloc(&d_h, sizeof(unsigned long long)));
    device_side<<<1, 1>>>(u, v, d_f, d_h);
    device_method<<<1, 1>>>(u, v, d_f);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    float f[5];
    unsigned long long h;
    CHECK(cudaMemcpy(f, d_f, sizeof f, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&h, d_h, sizeof h, cudaMemcpyDeviceToHost));
    const Pair p = Pair{u, v} * Pair{u, u};
    std::printf("mad: host %a device %a\n", mad(u, u, v), f[0]);
    std::printf("nested: host %a device %a\n", nested(u, u, v), f[1]);
    std::printf("method: host %a %a device %a %a\n", p.x, p.y, f[3], f[4]);
    std::printf("templated: host %a device %a\n", templated(u, u, v), f[2]);
    std::printf("static: host %a\n", at_start);
    std::printf("exp: host %016llx device %016llx\n", (unsigned long long)hash_exp(N), h);
    CHECK(cudaFree(d_f));
    CHECK(cudaFree(d_h));
    return 0;
}
