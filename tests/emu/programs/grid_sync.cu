// A grid-wide barrier: cudaLaunchCooperativeKernel and cooperative_groups::this_grid().sync(). Eight blocks pass
// values around a ring through global memory over three grid.sync() rounds, while each block keeps its own
// values in static and dynamic shared memory and in registers across the barriers; then a grid one block larger
// than the device holds at once is refused with cudaErrorCooperativeLaunchTooLarge, as on a GPU.
//
// Build: nvcc -arch=sm_90 -o grid_sync tests/emu/programs/grid_sync.cu

#include <cooperative_groups.h>

#include "program.h"

namespace cg = cooperative_groups;

constexpr int BLOCK = 128;
constexpr int BLOCKS = 8;
constexpr int ROUNDS = 3;

// ----------------------------------------------------------------------------
// kernels

// ring: BLOCKS x BLOCK ints; out: the same, the final values. Each round every thread adds the value of the thread
// at the same position in the previous block, read after a grid.sync() and written after another.
__global__ void ring_kernel(int* ring, int* out, int* kept) {
    __shared__ int own[BLOCK];           // (BLOCK): this block's values, kept across grid.sync()
    extern __shared__ int doubled[];     // (BLOCK): twice each value, in dynamic shared memory
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    const int t = threadIdx.x, b = blockIdx.x;
    int mine = ring[b * BLOCK + t];      // a register, kept across grid.sync()
    own[t] = mine;
    doubled[t] = 2 * mine;
    for (int round = 0; round < ROUNDS; ++round) {
        grid.sync();  // every block has written its values
        const int left = ring[((b + BLOCKS - 1) % BLOCKS) * BLOCK + t];
        grid.sync();  // every block has read before any writes
        mine += left;
        ring[b * BLOCK + t] = mine;
    }
    block.sync();
    out[b * BLOCK + t] = mine;
    kept[b * BLOCK + t] = own[(t + 1) % BLOCK] * 1000 + doubled[(t + 2) % BLOCK] - 2 * own[(t + 2) % BLOCK] +
                          static_cast<int>(grid.is_valid()) * 7;
}

__global__ void count_kernel(int* counter) {
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0) atomicAdd(counter, 1);
    grid.sync();
}

// ----------------------------------------------------------------------------
// host

int main() {
    const int n = BLOCKS * BLOCK;
    std::vector<int> ring(n), want(n), want_kept(n);
    for (int i = 0; i < n; ++i) ring[i] = (i * 7 + 3) % 23;
    std::vector<int> cur = ring;
    for (int round = 0; round < ROUNDS; ++round) {
        std::vector<int> next(n);
        for (int i = 0; i < n; ++i) next[i] = cur[i] + cur[((i / BLOCK + BLOCKS - 1) % BLOCKS) * BLOCK + i % BLOCK];
        cur = next;
    }
    want = cur;
    for (int i = 0; i < n; ++i) want_kept[i] = ring[i - i % BLOCK + (i % BLOCK + 1) % BLOCK] * 1000 + 7;

    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("cooperative_launch_property: %d\n", prop.cooperativeLaunch);

    int *d_ring = nullptr, *d_out = nullptr, *d_kept = nullptr, *d_counter = nullptr;
    CHECK(cudaMalloc(&d_ring, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMalloc(&d_kept, n * sizeof(int)));
    CHECK(cudaMalloc(&d_counter, sizeof(int)));
    CHECK(cudaMemcpy(d_ring, ring.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    void* args[] = {&d_ring, &d_out, &d_kept};
    print_error("launch", cudaLaunchCooperativeKernel(ring_kernel, dim3(BLOCKS), dim3(BLOCK), args, BLOCK * sizeof(int)));
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> got(n), kept(n);
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(kept.data(), d_kept, n * sizeof(int), cudaMemcpyDeviceToHost));
    print_compare("ring_after_grid_syncs", got, want);
    print_compare("shared_and_registers_kept", kept, want_kept);

    // as many blocks as the device holds at once, then one more
    int per_sm = 0, sms = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, count_kernel, BLOCK, 0));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int most = per_sm * sms;
    CHECK(cudaMemset(d_counter, 0, sizeof(int)));
    void* count_args[] = {&d_counter};
    print_error("launch_most", cudaLaunchCooperativeKernel(count_kernel, dim3(most), dim3(BLOCK), count_args));
    print_error("sync_most", cudaDeviceSynchronize());
    int counted = 0;
    CHECK(cudaMemcpy(&counted, d_counter, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("blocks_counted: %s\n", counted == most ? "all" : "FAIL");
    print_error("launch_too_large", cudaLaunchCooperativeKernel(count_kernel, dim3(most + 1), dim3(BLOCK), count_args));
    print_error("last_error_after_too_large", cudaGetLastError());
    print_error("last_error_again", cudaGetLastError());
    print_error("sync_after_too_large", cudaDeviceSynchronize());
    CHECK(cudaFree(d_ring));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_kept));
    CHECK(cudaFree(d_counter));
    return 0;
}
