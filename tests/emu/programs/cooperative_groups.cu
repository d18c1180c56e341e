// Cooperative groups as a course uses them: this_thread_block() (sync, thread_rank, size), tiled_partition<32>,
// <16> and <4> with their shuffles, votes, meta_group_rank and cg::reduce (plus, less, greater), and the dynamic
// tiled_partition(block, 8) with sync and thread_rank. A 96-thread block: three warps, six tiles of 16.
//
// Build: nvcc -arch=sm_90 -o cooperative_groups tests/emu/programs/cooperative_groups.cu

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "program.h"

namespace cg = cooperative_groups;

constexpr int BLOCK = 96;
constexpr int OUTS = 12;  // values per thread

// ----------------------------------------------------------------------------
// kernels

__global__ void groups_kernel(const int* in, int* out) {
    __shared__ int staged[BLOCK];  // (BLOCK): the block's values, rotated by one through shared memory
    cg::thread_block block = cg::this_thread_block();
    const int r = block.thread_rank();
    const int v = in[blockIdx.x * BLOCK + r];
    int* o = out + OUTS * (blockIdx.x * BLOCK + r);
    staged[r] = v;
    block.sync();
    o[0] = staged[(r + 1) % BLOCK] + 1000 * static_cast<int>(block.size());

    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    o[1] = cg::reduce(warp, v, cg::plus<int>());
    o[2] = warp.shfl(v, 5) + 100 * static_cast<int>(warp.meta_group_rank());
    o[3] = warp.shfl_down(v, 1) - warp.shfl_up(v, 1);
    o[4] = static_cast<int>(warp.ballot(v > 0));
    o[5] = warp.any(v == 3) * 2 + warp.all(v > -50);

    cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
    o[6] = cg::reduce(half, v, cg::less<int>()) * 1000 + cg::reduce(half, v, cg::greater<int>());
    o[7] = half.shfl_xor(v, 1) + 100 * static_cast<int>(half.meta_group_rank() * 16 + half.thread_rank());

    cg::thread_block_tile<4> quad = cg::tiled_partition<4>(warp);
    o[8] = cg::reduce(quad, static_cast<float>(v), cg::plus<float>()) > 0.0f;
    o[9] = static_cast<int>(quad.meta_group_rank() * 4 + quad.thread_rank()) - r % 32;

    cg::thread_group eight = cg::tiled_partition(block, 8);
    block.sync();  // every thread has read staged above before it is overwritten
    staged[r] = v * 2;
    eight.sync();  // a group of 8 lanes: orders its own shared-memory accesses
    o[10] = staged[r - eight.thread_rank() + (eight.thread_rank() + 1) % 8];
    o[11] = static_cast<int>(eight.size());
}

// ----------------------------------------------------------------------------
// host

int main() {
    const int blocks = 2;
    const int n = blocks * BLOCK;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 29 + 3) % 61 - 30;
    std::vector<int> want(OUTS * n);
    for (int i = 0; i < n; ++i) {
        const int r = i % BLOCK, b0 = i - r, lane = r % 32, w0 = i - lane, h0 = i - r % 16, q0 = i - r % 4;
        int* w = &want[OUTS * i];
        w[0] = in[b0 + (r + 1) % BLOCK] + 1000 * BLOCK;
        int sum = 0, hmin = in[h0], hmax = in[h0], qsum = 0;
        unsigned ballot = 0;
        bool any3 = false, all = true;
        for (int l = 0; l < 32; ++l) {
            sum += in[w0 + l];
            if (in[w0 + l] > 0) ballot |= 1u << l;
            any3 = any3 || in[w0 + l] == 3;
            all = all && in[w0 + l] > -50;
        }
        for (int l = 0; l < 16; ++l) {
            hmin = in[h0 + l] < hmin ? in[h0 + l] : hmin;
            hmax = in[h0 + l] > hmax ? in[h0 + l] : hmax;
        }
        for (int l = 0; l < 4; ++l) qsum += in[q0 + l];
        w[1] = sum;
        w[2] = in[w0 + 5] + 100 * (r / 32);
        w[3] = (lane < 31 ? in[i + 1] : in[i]) - (lane > 0 ? in[i - 1] : in[i]);
        w[4] = static_cast<int>(ballot);
        w[5] = any3 * 2 + all;
        w[6] = hmin * 1000 + hmax;
        w[7] = in[h0 + ((r % 16) ^ 1)] + 100 * r;
        w[8] = qsum > 0;
        w[9] = 0;
        w[10] = 2 * in[i - r % 8 + (r % 8 + 1) % 8];
        w[11] = 8;
    }
    int* d_in = nullptr;
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, OUTS * n * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    groups_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> got(OUTS * n);
    CHECK(cudaMemcpy(got.data(), d_out, OUTS * n * sizeof(int), cudaMemcpyDeviceToHost));
    const char* keys[OUTS] = {"block_sync_rank_size", "warp_reduce_plus", "warp_shfl_meta_rank", "warp_shfl_up_down",
                              "warp_ballot", "warp_any_all", "tile16_reduce_less_greater", "tile16_shfl_xor_ranks",
                              "tile4_of_warp_reduce_float", "tile4_ranks", "dynamic_tile8_sync", "dynamic_tile8_size"};
    for (int k = 0; k < OUTS; ++k) {
        std::vector<int> g(n), w(n);
        for (int i = 0; i < n; ++i) g[i] = got[OUTS * i + k], w[i] = want[OUTS * i + k];
        print_compare(keys[k], g, w);
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return 0;
}
