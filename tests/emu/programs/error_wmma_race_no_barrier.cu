// Known WRONG: the block's 64 threads stage a 16×8 tile of A in shared memory, and warp 0 loads it with
// wmma::load_matrix_sync without a __syncthreads() in between: the rows warp 1 stores may not be there yet. The
// emulator reports the race between warp 1's stores and warp 0's fragment load (kind race).
//
// Build: nvcc -arch=sm_90 -o error_wmma_race_no_barrier tests/emu/programs/error_wmma_race_no_barrier.cu

#include <mma.h>

#include "program.h"

using namespace nvcuda;

__global__ void race_kernel(const float* A, float* out) {
    __shared__ alignas(32) float tile[16 * 8];
    for (int i = threadIdx.x; i < 16 * 8; i += blockDim.x) tile[i] = A[i];
    // BUG: __syncthreads() missing here
    if (threadIdx.x < 32) {
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
        wmma::load_matrix_sync(a, tile, 8);
        out[threadIdx.x] = a.x[0] + a.x[1] + a.x[2] + a.x[3];
    }
}

int main() {
    float *d_A = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_A, 16 * 8 * sizeof(float)));
    CHECK(cudaMalloc(&d_out, 32 * sizeof(float)));
    CHECK(cudaMemset(d_A, 0, 16 * 8 * sizeof(float)));
    race_kernel<<<1, 64>>>(d_A, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(32);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
