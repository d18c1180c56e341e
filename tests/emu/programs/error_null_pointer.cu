// error_null_pointer.cu: a kernel that stores through a null pointer, the buffer never allocated (a cudaMalloc
// left out). A GPU faults: cudaErrorIllegalAddress from the next synchronising call, and every later call. The
// emulator reports it with the line, and the program goes on to print what the calls return.
//
// Build: nvcc -arch=sm_90 -o error_null_pointer tests/emu/programs/error_null_pointer.cu
#include "program.h"

__global__ void fill(float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 1.0f;
}

int main() {
    float* d_out = nullptr;  // never allocated
    float* d_other = nullptr;
    CHECK(cudaMalloc(&d_other, 32 * sizeof(float)));
    fill<<<1, 32>>>(d_out, 32);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    float out[32];
    print_error("memcpy", cudaMemcpy(out, d_other, sizeof out, cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
