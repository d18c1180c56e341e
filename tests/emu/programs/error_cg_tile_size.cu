// Known WRONG: tiled_partition(block, 48): a dynamic tile's size must be a power of two up to 32. CUDA aborts the
// kernel (cudaErrorLaunchFailure); the emulator reports it (kind warp) and ends the block the same way. The program
// prints only error names.
//
// Build: nvcc -arch=sm_90 -o error_cg_tile_size tests/emu/programs/error_cg_tile_size.cu

#include <cooperative_groups.h>

#include "program.h"

namespace cg = cooperative_groups;

constexpr int BLOCK = 96;

__global__ void rank_kernel(int* out) {
    cg::thread_group tile = cg::tiled_partition(cg::this_thread_block(), 48);  // BUG: 48 is not a power of two
    out[threadIdx.x] = static_cast<int>(tile.thread_rank());
}

int main() {
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, BLOCK * sizeof(int)));
    rank_kernel<<<1, BLOCK>>>(d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> out(BLOCK);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, BLOCK * sizeof(int), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
