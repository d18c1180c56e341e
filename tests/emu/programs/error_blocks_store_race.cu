// Known WRONG: a histogram of block sums where every block stores its sum into the one bin its row maps to,
// with a plain store: the blocks of a row all store to the same element, different values, and nothing orders
// blocks, so which sum stays depends on which block runs last (atomicAdd is the fix). A race is not an error code
// on either machine: the program prints only error names and a check that holds whichever block won. It runs the
// kernel twice, as a program that repeats a step does (the emulator prints the finding once, and counts the repeat).
//
// Build: nvcc -arch=sm_90 -o error_blocks_store_race tests/emu/programs/error_blocks_store_race.cu

#include "program.h"

constexpr int BLOCK = 64;

__global__ void row_sums_without_atomic_kernel(const int* in, int* row_sum, int blocks_per_row) {
    __shared__ int partial[BLOCK];
    partial[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) row_sum[blockIdx.x / blocks_per_row] = partial[0];  // BUG: atomicAdd(&row_sum[...], ...)
}

int main() {
    const int rows = 2, blocks_per_row = 4, n = rows * blocks_per_row * BLOCK;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = i / BLOCK + 1;  // block b sums to (b + 1) * BLOCK: every block differs
    int* d_in = nullptr;
    int* d_row_sum = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_row_sum, rows * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_row_sum, 0, rows * sizeof(int)));
    for (int step = 0; step < 2; ++step)
        row_sums_without_atomic_kernel<<<rows * blocks_per_row, BLOCK>>>(d_in, d_row_sum, blocks_per_row);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> row_sum(rows);
    print_error("memcpy", cudaMemcpy(row_sum.data(), d_row_sum, rows * sizeof(int), cudaMemcpyDeviceToHost));
    bool one_block_each = true;  // each bin holds one block's sum, whichever block stored last
    for (int r = 0; r < rows; ++r)
        one_block_each &= row_sum[r] % BLOCK == 0 && row_sum[r] / BLOCK > r * blocks_per_row &&
                          row_sum[r] / BLOCK <= (r + 1) * blocks_per_row;
    std::printf("one_block_sum_per_bin: %s\n", one_block_each ? "yes" : "no");
    print_error("last_error", cudaGetLastError());
    return 0;
}
