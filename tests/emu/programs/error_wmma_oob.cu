// Known WRONG: a warp loads a 16×8 TF32 tile of A from a matrix of only 15 rows: the lanes that hold row 15 read
// past the allocation. The emulator reports the lane's load at the load_matrix_sync's line (kind out-of-bounds) and
// ends the launch with cudaErrorIllegalAddress; a GPU reads whatever is there, or faults.
//
// Build: nvcc -arch=sm_90 -o error_wmma_oob tests/emu/programs/error_wmma_oob.cu

#include <mma.h>

#include "program.h"

using namespace nvcuda;

__global__ void oob_kernel(const float* A, float* out) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::load_matrix_sync(a, A, 8);  // BUG: A has 15 rows of 8, the fragment 16
    out[threadIdx.x] = a.x[0];
}

int main() {
    float *d_A = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_A, 15 * 8 * sizeof(float)));
    CHECK(cudaMalloc(&d_out, 32 * sizeof(float)));
    CHECK(cudaMemset(d_A, 0, 15 * 8 * sizeof(float)));
    oob_kernel<<<1, 32>>>(d_A, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(32);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
