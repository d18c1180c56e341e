// error_shared_past_end.cu: a tile load whose row index is scaled by the tile width twice over (`tile[ty * 16]`),
// which runs far past the end of the block's shared memory. A GPU faults: cudaErrorIllegalAddress from the next
// synchronising call, and every later call. The emulator reports the index outside its dimension and the access
// past the end of shared memory, each with its line, makes neither access, and the program goes on to print what
// the calls return.
//
// Build: nvcc -arch=sm_90 -o error_shared_past_end tests/emu/programs/error_shared_past_end.cu
#include "program.h"

constexpr int kTile = 16;

__global__ void transpose_tile(const float* in, float* out) {
    __shared__ float tile[kTile][kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    tile[ty * kTile][tx] = in[ty * kTile + tx];  // meant: tile[ty][tx]
    __syncthreads();
    out[ty * kTile + tx] = tile[tx][ty];
}

int main() {
    float *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, kTile * kTile * sizeof(float)));
    CHECK(cudaMalloc(&d_out, kTile * kTile * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, kTile * kTile * sizeof(float)));
    transpose_tile<<<1, dim3(kTile, kTile)>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    float out[kTile * kTile];
    print_error("memcpy", cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
