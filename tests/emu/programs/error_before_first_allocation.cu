// error_before_first_allocation.cu: a kernel that reads one element before the first buffer the program
// allocated (in[i - 1] for i = 0). The emulator reports it as out of bounds with the line, as it does before any
// other allocation, and ends the kernel with cudaErrorIllegalAddress. A Hopper GPU (an H200, CUDA 13.0) did not
// fault (the bytes before the first allocation are mapped: sync printed cudaSuccess), so tests/emu/gpu_check.sh
// shows this one as DIFFERENT; compute-sanitizer's memcheck reported the access "4 bytes before the nearest
// allocation", as the emulator does.
//
// Build: nvcc -arch=sm_90 -o error_before_first_allocation tests/emu/programs/error_before_first_allocation.cu
#include "program.h"

__global__ void shift(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i - 1];  // i = 0 reads in[-1]
}

int main() {
    float *in = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&in, 32 * sizeof(float)));  // the program's first allocation
    CHECK(cudaMalloc(&out, 32 * sizeof(float)));
    CHECK(cudaMemset(in, 0, 32 * sizeof(float)));
    shift<<<1, 32>>>(in, out, 32);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    float host[32];
    print_error("memcpy", cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
