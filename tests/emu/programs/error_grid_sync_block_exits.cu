// Known WRONG: in a cooperative launch, the last block returns before the grid.sync() that the others wait at.
// A GPU waits forever; the emulator reports which block waits where and which one has finished (kind barrier),
// and ends the launch with cudaErrorLaunchFailure. The program prints only error names.
//
// Build: nvcc -arch=sm_90 -o error_grid_sync_block_exits tests/emu/programs/error_grid_sync_block_exits.cu

#include <cooperative_groups.h>

#include "program.h"

namespace cg = cooperative_groups;

constexpr int BLOCK = 64;

__global__ void shift_kernel(int* data) {
    cg::grid_group grid = cg::this_grid();
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    if (blockIdx.x == gridDim.x - 1) return;  // BUG: this block never reaches the grid.sync()
    const int v = data[i];
    grid.sync();
    data[(i + BLOCK) % (gridDim.x * BLOCK)] = v;
}

int main() {
    const int blocks = 4;
    const int n = blocks * BLOCK;
    int* d_data = nullptr;
    CHECK(cudaMalloc(&d_data, n * sizeof(int)));
    CHECK(cudaMemset(d_data, 0, n * sizeof(int)));
    void* args[] = {&d_data};
    print_error("launch", cudaLaunchCooperativeKernel(shift_kernel, dim3(blocks), dim3(BLOCK), args));
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_data, n * sizeof(int), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
