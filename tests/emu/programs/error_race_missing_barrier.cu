// Known WRONG: a block reverse with the __syncthreads() between the shared store and the shared read left out,
// so a thread may read its partner's slot before the partner has written it. A race is not an error code on
// either machine: the program prints only error names, never the (schedule-dependent) data.
//
// Build: nvcc -arch=sm_90 -o error_race_missing_barrier tests/emu/programs/error_race_missing_barrier.cu

#include "program.h"

constexpr int BLOCK = 128;

__global__ void reverse_without_barrier_kernel(const int* in, int* out) {
    __shared__ int slice[BLOCK];
    const int t = threadIdx.x;
    const int base = blockIdx.x * BLOCK;
    slice[t] = in[base + t];
    // BUG: no __syncthreads() here
    out[base + t] = slice[BLOCK - 1 - t];
}

int main() {
    const int blocks = 8;
    const int n = blocks * BLOCK;
    int* d_in = nullptr;
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(int)));
    reverse_without_barrier_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
