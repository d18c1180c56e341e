// Known WRONG: a tile of 64 threads (two warps) syncs, but its second warp waits at a __syncthreads() instead.
// A GPU hangs; the emulator reports where each side waits (kind warp) and ends the block with
// cudaErrorLaunchFailure. The program prints only error names.
//
// Build: nvcc -arch=sm_90 -o error_tile_stuck_sync tests/emu/programs/error_tile_stuck_sync.cu

#include <cooperative_groups.h>

#include "program.h"

namespace cg = cooperative_groups;

constexpr int BLOCK = 64;

__global__ void stuck_kernel(int* out) {
    __shared__ int staged[BLOCK];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
    staged[threadIdx.x] = threadIdx.x;
    if (threadIdx.x < 32) {
        tile.sync();  // BUG: threads 32-63 of the tile never reach this sync
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = staged[(threadIdx.x + 1) % BLOCK];
}

int main() {
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, BLOCK * sizeof(int)));
    stuck_kernel<<<1, BLOCK>>>(d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> out(BLOCK);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, BLOCK * sizeof(int), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
