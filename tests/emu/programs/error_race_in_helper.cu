// Known WRONG: a tiled loop with one shared tile and one barrier per phase, whose tile is stored by a helper
// function: a fast thread's store_tile() of the next phase overwrites values slower threads are still reading. The
// store's own line is in the helper, above the loop; the barrier that orders them goes in the loop, between the
// reads and the helper's call, and the emulator's advice names the call's line. A race is not an error code on
// either machine: the program prints only error names, never the (schedule-dependent) data.
//
// Build: nvcc -arch=sm_90 -o error_race_in_helper tests/emu/programs/error_race_in_helper.cu

#include "program.h"

constexpr int TILE = 64;
constexpr int PHASES = 4;

__device__ __forceinline__ void store_tile(float (&tile)[TILE], const float* in, int phase, int t) {
    tile[t] = in[phase * TILE + t];  // the write of the race
}

__global__ void one_tile_in_helper_kernel(const float* in, float* out) {
    __shared__ float tile[TILE];
    const int t = threadIdx.x;
    store_tile(tile, in, 0, t);
    __syncthreads();
    float sum = 0.0f;
    for (int phase = 0; phase < PHASES; ++phase) {
        sum += tile[TILE - 1 - t];  // the read of the race
        // BUG: no __syncthreads() here: the next store_tile overwrites what others still read
        if (phase + 1 < PHASES) store_tile(tile, in, phase + 1, t);
        __syncthreads();
    }
    out[t] = sum;
}

int main() {
    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, PHASES * TILE * sizeof(float)));
    CHECK(cudaMalloc(&d_out, TILE * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, PHASES * TILE * sizeof(float)));
    one_tile_in_helper_kernel<<<1, TILE>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(TILE);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, TILE * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
