// Stores of several blocks to one element that are no race, each as CUDA programs write them: every block storing
// the same value (a "changed" flag, as Rodinia's bfs sets its), the last block of a reduction storing the total
// over block 0's part after a fence and an atomic (as NVIDIA's threadFenceReduction does), blocks adding with
// atomics, two launches in a row storing to the same element from different blocks, and a shift that reads its
// neighbours' elements from one array and stores to another. The emulator must report none of them (test_emulator_programs.cpp: a feature program has nothing on stderr).
//
// Build: nvcc -arch=sm_90 -o block_stores tests/emu/programs/block_stores.cu

#include "program.h"

constexpr int BLOCK = 64;

__global__ void flag_changes_kernel(const int* in, int* changed) {
    if (in[blockIdx.x * BLOCK + threadIdx.x] % 3 == 0) *changed = 1;  // the same value from every block
}

__device__ unsigned int blocks_done = 0;

// Block b stores its sum in part[b]; the last block to finish adds the parts and stores the total in part[0].
__global__ void sum_last_block_kernel(const int* in, int* part) {
    __shared__ int partial[BLOCK];
    __shared__ bool last;
    partial[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        part[blockIdx.x] = partial[0];
        __threadfence();  // the part is visible to every block before the count says so
        last = atomicInc(&blocks_done, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        int total = 0;
        for (int b = 0; b < int(gridDim.x); ++b) total += part[b];
        part[0] = total;
    }
}

__global__ void add_atomically_kernel(const int* in, int* total) { atomicAdd(total, in[blockIdx.x * BLOCK + threadIdx.x]); }

__global__ void store_block_index_kernel(int* out, int block) {
    if (blockIdx.x == block && threadIdx.x == 0) out[0] = block;
}

__global__ void shift_left_kernel(const int* in, int* out, int n) {
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i + 1 < n) out[i] = in[i + 1];  // the next block's element, from an array no block stores to
}

int main() {
    const int blocks = 8, n = blocks * BLOCK;
    std::vector<int> in(n);
    long long want_total = 0;
    for (int i = 0; i < n; ++i) in[i] = i % 97, want_total += in[i];
    int *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, blocks * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    int got = 0;

    CHECK(cudaMemset(d_out, 0, sizeof(int)));
    flag_changes_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    CHECK(cudaMemcpy(&got, d_out, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("same_value_flag: %d\n", got);

    sum_last_block_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    CHECK(cudaMemcpy(&got, d_out, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("last_block_total: %s\n", got == want_total ? "pass" : "FAIL");

    CHECK(cudaMemset(d_out, 0, sizeof(int)));
    add_atomically_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    CHECK(cudaMemcpy(&got, d_out, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("atomic_total: %s\n", got == want_total ? "pass" : "FAIL");

    store_block_index_kernel<<<blocks, BLOCK>>>(d_out, 2);
    store_block_index_kernel<<<blocks, BLOCK>>>(d_out, 5);  // another launch, another block: ordered by the stream
    CHECK(cudaMemcpy(&got, d_out, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("second_launch_stays: %d\n", got);

    int* d_shifted = nullptr;
    CHECK(cudaMalloc(&d_shifted, n * sizeof(int)));
    shift_left_kernel<<<blocks, BLOCK>>>(d_in, d_shifted, n);
    std::vector<int> shifted(n - 1), want_shifted(in.begin() + 1, in.end());
    CHECK(cudaMemcpy(shifted.data(), d_shifted, (n - 1) * sizeof(int), cudaMemcpyDeviceToHost));
    print_compare("shift_to_another_array", shifted, want_shifted);
    print_error("last_error", cudaGetLastError());
    return 0;
}
