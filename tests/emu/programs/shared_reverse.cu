// Static __shared__ memory and __syncthreads(): each block reverses its slice of the input through a shared
// array. Every thread stores one element, the barrier makes them all visible, then each reads another
// thread's element.
//
// Build: nvcc -arch=sm_90 -o shared_reverse tests/emu/programs/shared_reverse.cu

#include "program.h"

constexpr int BLOCK = 128;  // threads per block = elements per slice

// ----------------------------------------------------------------------------
// kernel

__global__ void reverse_block_kernel(const int* in, int* out) {
    __shared__ int slice[BLOCK];  // (BLOCK): this block's part of in
    const int t = threadIdx.x;
    const int base = blockIdx.x * BLOCK;
    slice[t] = in[base + t];
    __syncthreads();  // every element is in place before any thread reads another's
    out[base + t] = slice[BLOCK - 1 - t];
}

// ----------------------------------------------------------------------------
// host

int main() {
    const int blocks = 5;
    const int n = blocks * BLOCK;
    std::vector<int> in(n), want(n), got(n);
    for (int i = 0; i < n; ++i) in[i] = 3 * i + 1;
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < BLOCK; ++t) want[b * BLOCK + t] = in[b * BLOCK + BLOCK - 1 - t];

    int* d_in = nullptr;
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    reverse_block_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    print_compare("reversed", got, want);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return 0;
}
