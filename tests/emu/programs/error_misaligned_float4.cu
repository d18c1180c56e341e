// Known WRONG: float4 loads from rows of a matrix whose row length (6 floats, 24 bytes) is not a multiple of 4,
// so row 1 starts 8 bytes past a 16-byte boundary. Every float4 stays inside the matrix: nothing is out of
// bounds, but a GPU's 16-byte load needs a 16-byte-aligned address and faults with cudaErrorMisalignedAddress.
// The emulator checks the alignment the compiler gave each access, also when a float4 copy is split into floats.
//
// Build: nvcc -arch=sm_90 -o error_misaligned_float4 tests/emu/programs/error_misaligned_float4.cu

#include "program.h"

__global__ void row_sums_float4_kernel(const float* A, float* sums, int rows, int cols) {
    const int row = threadIdx.x;
    if (row < rows) {
        // BUG: A + row * cols is only 16-byte aligned when cols is a multiple of 4
        const float4 v = *reinterpret_cast<const float4*>(&A[row * cols]);
        sums[row] = v.x + v.y + v.z + v.w;
    }
}

int main() {
    const int rows = 4, cols = 6;
    float* d_A = nullptr;
    float* d_sums = nullptr;
    CHECK(cudaMalloc(&d_A, rows * cols * sizeof(float)));
    CHECK(cudaMalloc(&d_sums, rows * sizeof(float)));
    CHECK(cudaMemset(d_A, 0, rows * cols * sizeof(float)));
    row_sums_float4_kernel<<<1, rows>>>(d_A, d_sums, rows, cols);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> sums(rows);
    print_error("memcpy", cudaMemcpy(sums.data(), d_sums, rows * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
