// Known WRONG: the lanes of a warp pass different pointers to one wmma::load_matrix_sync (each half of the warp
// its own tile, as if a fragment were per lane). The pointer, ldm and layout must be the same for the whole warp:
// a GPU computes garbage. The emulator reports which lane differs and how (kind warp), lets each lane load from
// its own pointer, and the launch succeeds, as on a GPU.
//
// Build: nvcc -arch=sm_90 -o error_wmma_lanes_disagree tests/emu/programs/error_wmma_lanes_disagree.cu

#include <mma.h>

#include "program.h"

using namespace nvcuda;

__global__ void disagree_kernel(const float* A, float* out) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    const float* tile = A + (threadIdx.x / 16) * 16 * 8;  // BUG: lanes 16-31 point at the second tile
    wmma::load_matrix_sync(a, tile, 8);
    out[threadIdx.x] = a.x[0];
}

int main() {
    float *d_A = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_A, 2 * 16 * 8 * sizeof(float)));
    CHECK(cudaMalloc(&d_out, 32 * sizeof(float)));
    CHECK(cudaMemset(d_A, 0, 2 * 16 * 8 * sizeof(float)));
    disagree_kernel<<<1, 32>>>(d_A, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(32);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
