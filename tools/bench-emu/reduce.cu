// reduce.cu — times a warp-shuffle sum reduction on the emulator: `bench_emu_reduce N REPS` prints
// "N seconds" (the fastest of REPS launches, after a warm-up launch) and exits 1 if the sum is wrong.
//
// Each block of 256 threads sums its elements with __shfl_down_sync (five steps per warp), combines the eight warp
// sums through shared memory, and adds its total to the result with one atomicAdd.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int BLOCK = 256;
constexpr unsigned FULL = 0xffffffffu;

__device__ int warp_sum(int v) {
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(FULL, v, d);
    return v;
}

__global__ void reduce_kernel(const int* in, int* out, int n) {
    __shared__ int warp_sums[BLOCK / 32];
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int v = warp_sum(i < n ? in[i] : 0);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum(lane < BLOCK / 32 ? warp_sums[lane] : 0);
        if (lane == 0) atomicAdd(out, v);
    }
}

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s N REPS\n", argv[0]);
        return 2;
    }
    const int n = atoi(argv[1]), reps = atoi(argv[2]);
    std::vector<int> host(n);
    long long want = 0;
    for (int i = 0; i < n; ++i) want += host[i] = i % 7 - 3;
    int *d_in = nullptr, *d_out = nullptr;
    if (cudaMalloc(&d_in, n * sizeof(int)) != cudaSuccess || cudaMalloc(&d_out, sizeof(int)) != cudaSuccess) return 1;
    cudaMemcpy(d_in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    const int blocks = (n + BLOCK - 1) / BLOCK;
    double best = 1e30;
    for (int r = -1; r < reps; ++r) {  // r = -1: warm-up
        cudaMemset(d_out, 0, sizeof(int));
        const auto start = std::chrono::steady_clock::now();
        reduce_kernel<<<blocks, BLOCK>>>(d_in, d_out, n);
        cudaDeviceSynchronize();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        int got = 0;
        cudaMemcpy(&got, d_out, sizeof(int), cudaMemcpyDeviceToHost);
        if (got != want) {
            fprintf(stderr, "wrong sum at n=%d: got %d, want %lld\n", n, got, want);
            return 1;
        }
        if (r >= 0 && s < best) best = s;
    }
    printf("%d %.6f\n", n, best);
    return 0;
}
