// Known WRONG: lane 31 of the warp skips a wmma::load_matrix_sync the other lanes make, and goes on to the
// mma_sync. Every lane of a warp must make each warp matrix call together: on a GPU the result is undefined. The
// emulator reports where the two groups of lanes wait (kind warp) and ends the launch with
// cudaErrorLaunchFailure, as for a divergent barrier.
//
// Build: nvcc -arch=sm_90 -o error_wmma_lane_skips_collective tests/emu/programs/error_wmma_lane_skips_collective.cu

#include <mma.h>

#include "program.h"

using namespace nvcuda;

__global__ void skip_kernel(const float* A, const float* B, float* C) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::fill_fragment(b, 0.0f);
    wmma::load_matrix_sync(a, A, 8);
    if (threadIdx.x != 31) wmma::load_matrix_sync(b, B, 16);  // BUG: lane 31 does not take part
    wmma::mma_sync(acc, a, b, acc);
    wmma::store_matrix_sync(C, acc, 16, wmma::mem_row_major);
}

int main() {
    float *d_A = nullptr, *d_B = nullptr, *d_C = nullptr;
    CHECK(cudaMalloc(&d_A, 16 * 8 * sizeof(float)));
    CHECK(cudaMalloc(&d_B, 8 * 16 * sizeof(float)));
    CHECK(cudaMalloc(&d_C, 16 * 16 * sizeof(float)));
    CHECK(cudaMemset(d_A, 0, 16 * 8 * sizeof(float)));
    CHECK(cudaMemset(d_B, 0, 8 * 16 * sizeof(float)));
    skip_kernel<<<1, 32>>>(d_A, d_B, d_C);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(16 * 16);
    print_error("memcpy", cudaMemcpy(out.data(), d_C, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
