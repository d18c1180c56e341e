// Known WRONG: a cuda::barrier initialised for every thread of the block, but the last warp returns before
// arriving, so the phase the others wait for never completes. On a GPU this hangs; the emulator ends the block
// and names the wait.
//
// Build: nvcc -arch=sm_90 -o error_barrier_wait_never_completes tests/emu/programs/error_barrier_wait_never_completes.cu

#include <cuda/barrier>

#include "program.h"

constexpr int BLOCK = 64;

__global__ void missing_arrival_kernel(const float* in, float* out) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ float buffer[BLOCK];
    const int t = threadIdx.x;
    if (t == 0) init(&bar, BLOCK);
    __syncthreads();
    if (t >= BLOCK - 32) {
        return;  // BUG: the barrier expects these threads too (arrive_and_drop() would let them leave)
    }
    buffer[t] = in[blockIdx.x * BLOCK + t];
    bar.arrive_and_wait();
    out[blockIdx.x * BLOCK + t] = buffer[BLOCK - 33 - t];
}

int main() {
    const int blocks = 2;
    const int n = blocks * BLOCK;
    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
    missing_arrival_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
