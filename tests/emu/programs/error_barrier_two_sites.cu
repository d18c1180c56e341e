// Known WRONG: even and odd threads wait at two different __syncthreads() calls, one in each branch of an if.
// They are two different barriers; every thread of a block must reach the same one.
//
// Build: nvcc -arch=sm_90 -o error_barrier_two_sites tests/emu/programs/error_barrier_two_sites.cu

#include "program.h"

constexpr int BLOCK = 64;

__global__ void two_barriers_kernel(const float* in, float* out) {
    __shared__ float buffer[BLOCK];
    const int t = threadIdx.x;
    buffer[t] = in[blockIdx.x * BLOCK + t];
    if (t % 2 == 0) {
        __syncthreads();  // BUG: the odd threads wait at the other one
        out[blockIdx.x * BLOCK + t] = buffer[t + 1];
    } else {
        __syncthreads();
        out[blockIdx.x * BLOCK + t] = buffer[t - 1];
    }
}

int main() {
    const int blocks = 4;
    const int n = blocks * BLOCK;
    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
    two_barriers_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
