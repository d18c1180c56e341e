// coalesced_threads() and the partitions of a warp: inside a branch the coalesced group is the lanes that took it,
// ranked in lane order (size, thread_rank, shfl, shfl_up, shfl_down, ballot, any, all, cg::reduce over a group
// whose size is not a power of two), a warp-aggregated atomic increment as CUDA's samples write it,
// labeled_partition of a coalesced group and binary_partition of a tile. Two warps per block, two blocks.
//
// Build: nvcc -arch=sm_90 -o coalesced_groups tests/emu/programs/coalesced_groups.cu

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>

#include "program.h"

namespace cg = cooperative_groups;

constexpr int BLOCK = 64;
constexpr int BLOCKS = 2;
constexpr int OUTS = 9;  // values per thread

// ----------------------------------------------------------------------------
// kernels

// One slot of `slots` per calling thread, with one atomicAdd per coalesced group.
__device__ int aggregated_increment(int* counter) {
    cg::coalesced_group active = cg::coalesced_threads();
    int first = 0;
    if (active.thread_rank() == 0) first = atomicAdd(counter, active.size());
    return active.shfl(first, 0) + active.thread_rank();
}

__global__ void coalesced_kernel(const int* in, int* out, int* counter, int* slots) {
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    const int v = in[i];
    int* o = out + OUTS * i;
    for (int k = 0; k < OUTS; ++k) o[k] = -1;
    if (v % 3 != 0) {  // lanes whose value is not a multiple of 3
        cg::coalesced_group g = cg::coalesced_threads();
        o[0] = static_cast<int>(g.size()) * 100 + static_cast<int>(g.thread_rank());
        o[1] = g.shfl(v, 0) * 1000 + g.shfl(v, g.size() - 1);
        o[2] = static_cast<int>(g.ballot(v > 0));
        o[3] = g.any(v == 7) * 10 + g.all(v > -100);
        o[4] = cg::reduce(g, v, cg::plus<int>());
        o[5] = g.shfl_down(v, 1) * 1000 + g.shfl_up(v, 2);
        cg::coalesced_group same = cg::labeled_partition(g, (v % 4 + 4) % 4);
        o[6] = cg::reduce(same, v, cg::greater<int>()) * 100 + static_cast<int>(same.size());
        slots[aggregated_increment(counter)] = i;
    }
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    cg::coalesced_group half = cg::binary_partition(warp, v & 1);
    o[7] = cg::reduce(half, v, cg::plus<int>()) * 100 + static_cast<int>(half.size());
    o[8] = static_cast<int>(half.thread_rank());
}

// ----------------------------------------------------------------------------
// host

int main() {
    const int n = BLOCKS * BLOCK;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 53 + 17) % 89 - 44;
    std::vector<int> want(OUTS * n, -1);
    std::vector<int> want_slots;
    for (int w0 = 0; w0 < n; w0 += 32) {
        std::vector<int> taken, odd, even;  // indices, in lane order
        for (int i = w0; i < w0 + 32; ++i) {
            if (in[i] % 3 != 0) taken.push_back(i);
            ((in[i] & 1) ? odd : even).push_back(i);
        }
        const int size = static_cast<int>(taken.size());
        int sum = 0, ballot = 0, any7 = 0, all = 1;
        for (int k = 0; k < size; ++k) {
            const int x = in[taken[k]];
            sum += x;
            ballot |= (x > 0) << k;
            any7 |= x == 7;
            all &= x > -100;
        }
        for (int k = 0; k < size; ++k) {
            const int i = taken[k], x = in[i];
            int* w = &want[OUTS * i];
            w[0] = size * 100 + k;
            w[1] = in[taken[0]] * 1000 + in[taken[size - 1]];
            w[2] = ballot;
            w[3] = any7 * 10 + all;
            w[4] = sum;
            w[5] = (k + 1 < size ? in[taken[k + 1]] : x) * 1000 + (k >= 2 ? in[taken[k - 2]] : x);
            int hi = -1000, count = 0;
            for (int j : taken)
                if ((in[j] % 4 + 4) % 4 == (x % 4 + 4) % 4) hi = std::max(hi, in[j]), ++count;
            w[6] = hi * 100 + count;
            want_slots.push_back(i);
        }
        for (const std::vector<int>* part : {&odd, &even}) {
            int s = 0;
            for (int i : *part) s += in[i];
            for (size_t k = 0; k < part->size(); ++k) {
                want[OUTS * (*part)[k] + 7] = s * 100 + static_cast<int>(part->size());
                want[OUTS * (*part)[k] + 8] = static_cast<int>(k);
            }
        }
    }
    int *d_in = nullptr, *d_out = nullptr, *d_counter = nullptr, *d_slots = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, OUTS * n * sizeof(int)));
    CHECK(cudaMalloc(&d_counter, sizeof(int)));
    CHECK(cudaMalloc(&d_slots, n * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_counter, 0, sizeof(int)));
    coalesced_kernel<<<BLOCKS, BLOCK>>>(d_in, d_out, d_counter, d_slots);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> got(OUTS * n);
    int count = 0;
    CHECK(cudaMemcpy(got.data(), d_out, OUTS * n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&count, d_counter, sizeof(int), cudaMemcpyDeviceToHost));
    const char* keys[OUTS] = {"coalesced_size_rank", "coalesced_shfl", "coalesced_ballot", "coalesced_any_all",
                              "coalesced_reduce_plus", "coalesced_shfl_down_up", "labeled_partition_reduce",
                              "binary_partition_reduce", "binary_partition_rank"};
    for (int k = 0; k < OUTS; ++k) {
        std::vector<int> g(n), w(n);
        for (int i = 0; i < n; ++i) g[i] = got[OUTS * i + k], w[i] = want[OUTS * i + k];
        print_compare(keys[k], g, w);
    }
    // which thread got which slot depends on the order of the atomics; the set of threads does not
    std::vector<int> slots(count > 0 && count <= n ? count : 0);
    if (!slots.empty()) CHECK(cudaMemcpy(slots.data(), d_slots, slots.size() * sizeof(int), cudaMemcpyDeviceToHost));
    std::sort(slots.begin(), slots.end());
    std::sort(want_slots.begin(), want_slots.end());
    print_compare("aggregated_increment_slots", slots, want_slots);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_counter));
    CHECK(cudaFree(d_slots));
    return 0;
}
