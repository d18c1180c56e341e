// Known WRONG: only the first half of each block fills the shared array, but every thread reads its own slot,
// so the second half reads shared memory no thread has written. Not an error code on either machine: the
// program prints only error names, never the (undefined) data.
//
// Build: nvcc -arch=sm_90 -o error_uninitialised_shared tests/emu/programs/error_uninitialised_shared.cu

#include "program.h"

constexpr int BLOCK = 64;

__global__ void half_filled_kernel(const float* in, float* out) {
    __shared__ float buffer[BLOCK];
    const int t = threadIdx.x;
    if (t < BLOCK / 2) {
        buffer[t] = in[blockIdx.x * BLOCK + t];  // BUG: the other half of buffer is never written
    }
    __syncthreads();
    out[blockIdx.x * BLOCK + t] = buffer[t];
}

int main() {
    const int blocks = 4;
    const int n = blocks * BLOCK;
    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
    half_filled_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
