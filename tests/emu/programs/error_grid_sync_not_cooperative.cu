// Known WRONG: a kernel that calls grid.sync() launched with <<<...>>>, not with cudaLaunchCooperativeKernel.
// Nothing promises that the blocks are resident at once; CUDA's grid.sync() traps in such a launch. The emulator
// reports it (kind barrier) and ends the launch with cudaErrorLaunchFailure. The program prints only error names.
//
// Build: nvcc -arch=sm_90 -o error_grid_sync_not_cooperative tests/emu/programs/error_grid_sync_not_cooperative.cu

#include <cooperative_groups.h>

#include "program.h"

namespace cg = cooperative_groups;

constexpr int BLOCK = 64;

__global__ void shift_kernel(int* data) {
    cg::grid_group grid = cg::this_grid();
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    const int v = data[i];
    grid.sync();  // BUG: the launch below is not cooperative
    data[(i + BLOCK) % (gridDim.x * BLOCK)] = v;
}

int main() {
    const int blocks = 4;
    const int n = blocks * BLOCK;
    int* d_data = nullptr;
    CHECK(cudaMalloc(&d_data, n * sizeof(int)));
    CHECK(cudaMemset(d_data, 0, n * sizeof(int)));
    shift_kernel<<<blocks, BLOCK>>>(d_data);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_data, n * sizeof(int), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
