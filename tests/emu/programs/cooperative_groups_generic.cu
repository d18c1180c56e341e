// Cooperative groups beyond fixed tiles of a warp: the generic thread_group that a block, a tile and a dynamic
// tile convert to (one reduction function for all three, as CUDA's simpleCooperativeGroups sample writes it),
// tiles of several warps (tiled_partition<64> and <128> of a block given block_tile_memory: sync, ranks, cg::reduce)
// and this_grid()'s ranks and sizes. A grid of 3 blocks of 256 threads.
//
// Build: nvcc -arch=sm_90 -o cooperative_groups_generic tests/emu/programs/cooperative_groups_generic.cu

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "program.h"

namespace cg = cooperative_groups;

constexpr int BLOCK = 256;
constexpr int BLOCKS = 3;
constexpr int OUTS = 10;  // values per thread

// ----------------------------------------------------------------------------
// kernels

// The sum of val over g, in rank 0 (-1 elsewhere); x has room for g.size() ints.
__device__ int group_sum(cg::thread_group g, int* x, int val) {
    const int rank = g.thread_rank();
    for (int i = g.size() / 2; i > 0; i /= 2) {
        x[rank] = val;
        g.sync();
        if (rank < i) val += x[rank + i];
        g.sync();
    }
    return rank == 0 ? val : -1;
}

__global__ void groups_kernel(const int* in, int* out) {
    __shared__ int work[BLOCK];  // (BLOCK): each group's reduction space
    __shared__ cg::block_tile_memory<BLOCK> scratch;
    cg::thread_block block = cg::this_thread_block(scratch);
    const int r = block.thread_rank();
    const int v = in[blockIdx.x * BLOCK + r];
    int* o = out + OUTS * (blockIdx.x * BLOCK + r);

    o[0] = group_sum(block, work, v);
    block.sync();
    cg::thread_block_tile<16> tile16 = cg::tiled_partition<16>(block);
    o[1] = group_sum(tile16, work + r - tile16.thread_rank(), v);
    block.sync();
    cg::thread_group eight = cg::tiled_partition(block, 8);
    o[2] = group_sum(eight, work + r - eight.thread_rank(), v) + 1000 * static_cast<int>(eight.size());
    block.sync();
    cg::thread_group four = cg::tiled_partition(tile16, 4);  // a dynamic tile of a tile
    o[3] = group_sum(four, work + r - four.thread_rank(), v) + 1000 * static_cast<int>(four.thread_rank());
    block.sync();

    cg::thread_block_tile<64> tile64 = cg::tiled_partition<64>(block);
    o[4] = cg::reduce(tile64, v, cg::plus<int>());
    o[5] = static_cast<int>(tile64.meta_group_rank() * 1000 + tile64.meta_group_size() * 100) +
           static_cast<int>(tile64.thread_rank()) - r % 64;
    // a tile of four warps orders its shared-memory accesses: each thread reads the value of the thread 100 ranks on
    work[r] = v * 3;
    cg::thread_block_tile<128> tile128 = cg::tiled_partition<128>(block);
    tile128.sync();
    o[6] = work[r - tile128.thread_rank() + (tile128.thread_rank() + 100) % 128];
    o[7] = cg::reduce(tile128, v, cg::greater<int>()) * 1000 + static_cast<int>(tile128.size());

    cg::grid_group grid = cg::this_grid();
    o[8] = static_cast<int>(grid.thread_rank()) - (blockIdx.x * BLOCK + r) +
           static_cast<int>(grid.size()) * 10 + static_cast<int>(grid.num_blocks()) * 100000;
    o[9] = static_cast<int>(grid.block_rank()) + 10 * grid.is_valid();  // valid only in a cooperative launch
}

// ----------------------------------------------------------------------------
// host

int main() {
    const int n = BLOCKS * BLOCK;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 37 + 11) % 101 - 50;
    std::vector<int> want(OUTS * n);
    auto sum_of = [&](int first, int count) {
        int s = 0;
        for (int i = first; i < first + count; ++i) s += in[i];
        return s;
    };
    for (int i = 0; i < n; ++i) {
        const int r = i % BLOCK, b0 = i - r;
        int* w = &want[OUTS * i];
        w[0] = r == 0 ? sum_of(b0, BLOCK) : -1;
        w[1] = r % 16 == 0 ? sum_of(i, 16) : -1;
        w[2] = (r % 8 == 0 ? sum_of(i, 8) : -1) + 8000;
        w[3] = (r % 4 == 0 ? sum_of(i, 4) : -1) + 1000 * (r % 4);
        w[4] = sum_of(i - r % 64, 64);
        w[5] = (r / 64) * 1000 + (BLOCK / 64) * 100;
        w[6] = 3 * in[i - r % 128 + (r % 128 + 100) % 128];
        int hi = in[i - r % 128];
        for (int k = i - r % 128; k < i - r % 128 + 128; ++k) hi = in[k] > hi ? in[k] : hi;
        w[7] = hi * 1000 + 128;
        w[8] = n * 10 + BLOCKS * 100000;
        w[9] = i / BLOCK;
    }
    int* d_in = nullptr;
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, OUTS * n * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    groups_kernel<<<BLOCKS, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> got(OUTS * n);
    CHECK(cudaMemcpy(got.data(), d_out, OUTS * n * sizeof(int), cudaMemcpyDeviceToHost));
    const char* keys[OUTS] = {"thread_group_block_sum", "thread_group_tile16_sum", "dynamic_tile8_sum",
                              "dynamic_tile4_of_tile16_sum", "tile64_reduce_plus", "tile64_ranks",
                              "tile128_sync_shared", "tile128_reduce_greater", "grid_ranks_sizes",
                              "grid_block_rank_not_cooperative"};
    for (int k = 0; k < OUTS; ++k) {
        std::vector<int> g(n), w(n);
        for (int i = 0; i < n; ++i) g[i] = got[OUTS * i + k], w[i] = want[OUTS * i + k];
        print_compare(keys[k], g, w);
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return 0;
}
