// error_race_same_element.cu: a tile load whose element index takes the wrong row length (`ty * 8 + tx` in a block
// 16 threads wide), so that threads (8,0,0) and (0,1,0) store to one element and the last rows of the tile are never
// written. No barrier fixes that: the emulator names the line both stores come from and asks about its index, and
// does not report the unwritten rows' reads, which follow from it. The GPU runs it without an error; which thread's
// value an element keeps is up to the schedule, so the program prints the calls' results only.
//
// Build: nvcc -arch=sm_90 -o error_race_same_element tests/emu/programs/error_race_same_element.cu
#include "program.h"

constexpr int kTile = 16;

__global__ void copy_tile(const float* in, float* out) {
    __shared__ float tile[kTile * kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    tile[ty * 8 + tx] = in[ty * kTile + tx];  // meant: tile[ty * kTile + tx]
    __syncthreads();
    out[ty * kTile + tx] = tile[ty * kTile + tx];
}

int main() {
    float *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, kTile * kTile * sizeof(float)));
    CHECK(cudaMalloc(&d_out, kTile * kTile * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, kTile * kTile * sizeof(float)));
    copy_tile<<<1, dim3(kTile, kTile)>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    float out[kTile * kTile];
    print_error("memcpy", cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
