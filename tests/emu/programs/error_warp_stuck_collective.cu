// Known WRONG: the lower half of each warp calls a full-mask __syncwarp() inside a branch the upper half does not
// take; the upper half goes on to the __syncthreads() below. The lanes named in the mask wait at a different
// barrier: on a GPU this hangs or gives garbage (gpu_check.sh does not run it there). The emulator reports where each
// half waits (kind warp) and ends the launch with cudaErrorLaunchFailure, as for a divergent barrier.
//
// Build: nvcc -arch=sm_90 -o error_warp_stuck_collective tests/emu/programs/error_warp_stuck_collective.cu

#include "program.h"

constexpr int BLOCK = 64;

__global__ void stuck_kernel(const int* in, int* out) {
    __shared__ int staged[BLOCK];
    const int t = threadIdx.x;
    staged[t] = in[blockIdx.x * BLOCK + t];
    if (t % 32 < 16) {
        __syncwarp();  // BUG: names lanes 16-31, which never come here
    }
    __syncthreads();
    out[blockIdx.x * BLOCK + t] = staged[BLOCK - 1 - t];
}

int main() {
    const int blocks = 1;  // one block: a fatal error stops the launch, and the counts must not depend on timing
    const int n = blocks * BLOCK;
    int* d_in = nullptr;
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(int)));
    stuck_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
