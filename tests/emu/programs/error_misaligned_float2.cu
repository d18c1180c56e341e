// Known WRONG: each thread stores a pair of neighbouring floats as one float2, at column 2·t + 1 of a row of 8
// floats: the row length is even, so every row starts 8-byte aligned, but the pair's odd first column puts the
// float2 4 bytes past an 8-byte boundary. Every store stays inside the matrix; a GPU's 8-byte store needs an
// 8-byte-aligned address and faults with cudaErrorMisalignedAddress.
//
// Build: nvcc -arch=sm_90 -o error_misaligned_float2 tests/emu/programs/error_misaligned_float2.cu

#include "program.h"

__global__ void store_pairs_kernel(float* C, int cols) {
    const int row = blockIdx.x, t = threadIdx.x;
    const int col = 2 * t + 1;  // BUG: a pair starts at an even column, 2·t
    if (col + 1 < cols) *reinterpret_cast<float2*>(&C[row * cols + col]) = make_float2(1.0f, 2.0f);
}

int main() {
    const int rows = 2, cols = 8;
    float* d_C = nullptr;
    CHECK(cudaMalloc(&d_C, rows * cols * sizeof(float)));
    store_pairs_kernel<<<rows, cols / 2>>>(d_C, cols);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> C(rows * cols);
    print_error("memcpy", cudaMemcpy(C.data(), d_C, rows * cols * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
