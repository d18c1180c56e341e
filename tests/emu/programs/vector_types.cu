// float2 and float4: vector loads and stores, both through float2*/float4* parameters and through
// reinterpret_cast of a float* (the usual way to load 16 bytes at once), and values built with make_float4.
// All arithmetic is on small integers in float, so both machines get exactly the same results.
//
// Build: nvcc -arch=sm_90 -o vector_types tests/emu/programs/vector_types.cu

#include "program.h"

// ----------------------------------------------------------------------------
// kernels

// out4[i] = in4[i] with its components reversed and doubled; one float4 load and one float4 store per thread.
__global__ void reverse_float4_kernel(const float* in, float* out, int n4) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        const float4 v = reinterpret_cast<const float4*>(in)[i];  // in must be 16-byte aligned: cudaMalloc is
        reinterpret_cast<float4*>(out)[i] = make_float4(2.0f * v.w, 2.0f * v.z, 2.0f * v.y, 2.0f * v.x);
    }
}

// out[i] = (in[i].y, in[i].x + in[i].y); one float2 load and one float2 store per thread.
__global__ void swap_float2_kernel(const float2* in, float2* out, int n2) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        const float2 v = in[i];
        out[i] = make_float2(v.y, v.x + v.y);
    }
}

// ----------------------------------------------------------------------------
// host

int main() {
    const int n4 = 1000;  // float4 elements; not a multiple of the block, so the guard matters
    const int n = 4 * n4;  // floats
    std::vector<float> in(n), got(n), want(n);
    for (int i = 0; i < n; ++i) in[i] = float(i % 97 - 48);

    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    reverse_float4_kernel<<<(n4 + 127) / 128, 128>>>(d_in, d_out, n4);
    print_error("float4_launch", cudaGetLastError());
    print_error("float4_sync", cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n4; ++i)
        for (int c = 0; c < 4; ++c) want[4 * i + c] = 2.0f * in[4 * i + 3 - c];
    print_compare("float4_values", got, want);

    const int n2 = n / 2;  // float2 elements
    swap_float2_kernel<<<(n2 + 127) / 128, 128>>>(reinterpret_cast<const float2*>(d_in),
                                                  reinterpret_cast<float2*>(d_out), n2);
    print_error("float2_launch", cudaGetLastError());
    print_error("float2_sync", cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n2; ++i) {
        want[2 * i] = in[2 * i + 1];
        want[2 * i + 1] = in[2 * i] + in[2 * i + 1];
    }
    print_compare("float2_values", got, want);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return 0;
}
