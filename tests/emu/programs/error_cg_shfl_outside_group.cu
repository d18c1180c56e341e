// Known WRONG: inside a branch that half of the warp takes, each lane of the coalesced group of 16 reads the rank
// 4 above its own, and ranks 12-15 read past the group. On a GPU the value read is undefined; the emulator reports it (kind warp) and gives the lane its own
// value. The program prints only error names.
//
// Build: nvcc -arch=sm_90 -o error_cg_shfl_outside_group tests/emu/programs/error_cg_shfl_outside_group.cu

#include <cooperative_groups.h>

#include "program.h"

namespace cg = cooperative_groups;

constexpr int BLOCK = 32;

__global__ void rotate_kernel(const int* in, int* out) {
    const int lane = threadIdx.x;
    const int v = in[blockIdx.x * BLOCK + lane];
    int got = v;
    if (lane % 2 == 0) {
        cg::coalesced_group even = cg::coalesced_threads();
        got = even.shfl(v, even.thread_rank() + 4);  // BUG: ranks 12-15 read ranks 16-19 of a group of 16
    }
    out[blockIdx.x * BLOCK + lane] = got;
}

int main() {
    const int blocks = 2;
    const int n = blocks * BLOCK;
    int* d_in = nullptr;
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(int)));
    rotate_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
