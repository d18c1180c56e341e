// cuda::barrier<cuda::thread_scope_block> (<cuda/barrier>): a block-wide barrier with split arrive and wait, used
// instead of __syncthreads(). Each block stages its slice in shared memory, arrives, does independent work, waits,
// then reads its neighbours' values; reduces the slice with arrive_and_wait() between the steps; then the upper
// half leaves with arrive_and_drop() and the lower half goes on with a barrier that expects only them. A
// completion function counts the completed phases. Prints one verdict per check.
//
// Build: nvcc -arch=sm_90 -o arrive_wait_barrier tests/emu/programs/arrive_wait_barrier.cu

#include <cuda/barrier>

#include <utility>

#include "program.h"

constexpr int BLOCK = 128;

// Runs when a phase completes, by the thread whose arrival completed it.
struct CountPhases {
    int* phases;
    __device__ void operator()() noexcept { ++*phases; }
};
using Barrier = cuda::barrier<cuda::thread_scope_block, CountPhases>;

// neighbours[i] = in[i + 1 within the block]; sums[b] = the block's sum; halves[b] = the lower half's sum of squares;
// phases[b] = the barrier's completed phases.
__global__ void barrier_kernel(const int* in, int* neighbours, int* sums, int* halves, int* phases) {
    __shared__ Barrier bar;
    __shared__ int phase_count;
    __shared__ int s[BLOCK];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * BLOCK + tid;
    if (tid == 0) {
        phase_count = 0;
        init(&bar, BLOCK, CountPhases{&phase_count});
    }
    __syncthreads();

    s[tid] = in[i];
    Barrier::arrival_token token = bar.arrive();  // phase 1
    const int own = in[i] * 2;                    // work that needs no other thread's value
    bar.wait(std::move(token));
    neighbours[i] = s[(tid + 1) % BLOCK] + own - in[i] * 2;
    bar.arrive_and_wait();  // phase 2: every neighbour read before the reduction overwrites s

    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {  // phases 3 to 9
        if (tid < stride) s[tid] += s[tid + stride];
        bar.arrive_and_wait();
    }
    const int sum = s[0];
    bar.arrive_and_wait();  // phase 10: s[0] read by all before it is overwritten
    if (tid == 0) sums[blockIdx.x] = sum;

    if (tid >= BLOCK / 2) {
        bar.arrive_and_drop();  // phase 11 for the lower half; later phases expect BLOCK / 2 threads
        return;
    }
    s[tid] = in[i] * in[i];
    bar.arrive_and_wait();  // phase 11
    for (int stride = BLOCK / 4; stride > 0; stride /= 2) {  // phases 12 to 17
        if (tid < stride) s[tid] += s[tid + stride];
        bar.arrive_and_wait();
    }
    if (tid == 0) {
        halves[blockIdx.x] = s[0];
        phases[blockIdx.x] = phase_count;
    }
}

int main() {
    const int blocks = 3, n = blocks * BLOCK;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 37 + 11) % 101 - 50;
    int *d_in = nullptr, *d_neighbours = nullptr, *d_sums = nullptr, *d_halves = nullptr, *d_phases = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_neighbours, n * sizeof(int)));
    CHECK(cudaMalloc(&d_sums, blocks * sizeof(int)));
    CHECK(cudaMalloc(&d_halves, blocks * sizeof(int)));
    CHECK(cudaMalloc(&d_phases, blocks * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    barrier_kernel<<<blocks, BLOCK>>>(d_in, d_neighbours, d_sums, d_halves, d_phases);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());

    std::vector<int> neighbours(n), sums(blocks), halves(blocks), phases(blocks);
    CHECK(cudaMemcpy(neighbours.data(), d_neighbours, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sums.data(), d_sums, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(halves.data(), d_halves, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(phases.data(), d_phases, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    std::vector<int> want_neighbours(n), want_sums(blocks, 0), want_halves(blocks, 0);
    for (int b = 0; b < blocks; ++b) {
        for (int t = 0; t < BLOCK; ++t) {
            const int v = in[b * BLOCK + t];
            want_neighbours[b * BLOCK + t] = in[b * BLOCK + (t + 1) % BLOCK];
            want_sums[b] += v;
            if (t < BLOCK / 2) want_halves[b] += v * v;
        }
    }
    print_compare("split_arrive_wait", neighbours, want_neighbours);
    print_compare("arrive_and_wait_sums", sums, want_sums);
    print_compare("arrive_and_drop_sums", halves, want_halves);
    print_compare("completion_phases", phases, std::vector<int>(blocks, 17));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_neighbours));
    CHECK(cudaFree(d_sums));
    CHECK(cudaFree(d_halves));
    CHECK(cudaFree(d_phases));
    return 0;
}
