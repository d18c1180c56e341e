// Known WRONG: a shift left done in place, a[i] = a[i + 1]: the last thread of each block reads the first element
// of the next block's range, which that block stores to in the same launch, and nothing orders blocks, so the
// value read depends on which block runs first (shift from one array into another). A race is not an error code
// on either machine: the program prints only error names and a check that holds whichever order the blocks ran in.
//
// Build: nvcc -arch=sm_90 -o error_blocks_read_race tests/emu/programs/error_blocks_read_race.cu

#include "program.h"

constexpr int BLOCK = 64;

__global__ void shift_left_in_place_kernel(int* a, int n) {
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    int next = 0;
    if (i + 1 < n) next = a[i + 1];  // BUG: the next block may already have shifted a[i + 1]
    __syncthreads();                 // orders this block's threads, not the blocks
    if (i + 1 < n) a[i] = next;
}

int main() {
    const int blocks = 4, n = blocks * BLOCK;
    std::vector<int> a(n);
    for (int i = 0; i < n; ++i) a[i] = i;
    int* d_a = nullptr;
    CHECK(cudaMalloc(&d_a, n * sizeof(int)));
    CHECK(cudaMemcpy(d_a, a.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    shift_left_in_place_kernel<<<blocks, BLOCK>>>(d_a, n);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    print_error("memcpy", cudaMemcpy(a.data(), d_a, n * sizeof(int), cudaMemcpyDeviceToHost));
    bool shifted = true;  // each element holds its right neighbour's old value, or the one after that
    for (int i = 0; i + 1 < n; ++i) shifted &= a[i] == i + 1 || a[i] == i + 2;
    std::printf("shifted_by_one_or_two: %s\n", shifted ? "yes" : "no");
    print_error("last_error", cudaGetLastError());
    return 0;
}
