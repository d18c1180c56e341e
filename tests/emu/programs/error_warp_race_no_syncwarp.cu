// Known WRONG: the classic warp-synchronous reduction that broke on Volta. The last 32 partial sums are added by
// the first warp through a volatile pointer with no __syncwarp() between steps: before Volta the warp ran in
// lockstep, so each step read the previous one's results; with independent thread scheduling a lane may read a
// neighbour's slot before the neighbour has written it. The emulator reports a race between lanes of one warp
// (kind race). The program prints only error names (the sum depends on the schedule).
//
// Build: nvcc -arch=sm_90 -o error_warp_race_no_syncwarp tests/emu/programs/error_warp_race_no_syncwarp.cu

#include "program.h"

constexpr int BLOCK = 128;

__global__ void block_sum_kernel(const int* in, int* out) {
    __shared__ int partial[BLOCK];
    const int t = threadIdx.x;
    partial[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 32; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t < 32) {
        volatile int* v = partial;
        v[t] += v[t + 32];  // BUG: no __syncwarp() between these steps
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}

int main() {
    const int blocks = 4;
    const int n = blocks * BLOCK;
    int* d_in = nullptr;
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, blocks * sizeof(int)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(int)));
    block_sum_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> out(blocks);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
