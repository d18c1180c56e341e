// Known WRONG: a wmma::load_matrix_sync whose ldm, 6 floats, is not a multiple of 16 bytes, against the CUDA
// programming guide's rule for warp matrix loads and stores. An H100 happens to load a TF32 A fragment one float
// at a time and does not fault (gpu_check.sh shows the difference); the emulator enforces the guide's rule (kind
// misaligned) and ends the launch with cudaErrorMisalignedAddress, as a GPU does for a misaligned access.
//
// Build: nvcc -arch=sm_90 -o error_wmma_ldm tests/emu/programs/error_wmma_ldm.cu

#include <mma.h>

#include "program.h"

using namespace nvcuda;

__global__ void ldm_kernel(const float* A, float* out) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::load_matrix_sync(a, A, 6);  // BUG: rows of 6 floats (24 bytes), and a row of A is 8 floats anyway
    out[threadIdx.x] = a.x[0];
}

int main() {
    float *d_A = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_A, 16 * 8 * sizeof(float)));
    CHECK(cudaMalloc(&d_out, 32 * sizeof(float)));
    CHECK(cudaMemset(d_A, 0, 16 * 8 * sizeof(float)));
    ldm_kernel<<<1, 32>>>(d_A, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(32);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
