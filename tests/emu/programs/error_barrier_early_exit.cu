// Known WRONG: the upper half of each block returns before the __syncthreads() the lower half waits at.
// Every thread of a block must reach the same __syncthreads(); this one is undefined behaviour on a GPU.
//
// Build: nvcc -arch=sm_90 -o error_barrier_early_exit tests/emu/programs/error_barrier_early_exit.cu

#include "program.h"

constexpr int BLOCK = 64;

__global__ void early_exit_kernel(const float* in, float* out) {
    __shared__ float buffer[BLOCK];
    const int t = threadIdx.x;
    if (t >= BLOCK / 2) {
        return;  // BUG: these threads never reach the barrier below
    }
    buffer[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    out[blockIdx.x * BLOCK + t] = buffer[BLOCK / 2 - 1 - t];
}

int main() {
    const int blocks = 4;
    const int n = blocks * BLOCK;
    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
    early_exit_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
