// Known WRONG: the kernel reads a buffer that cudaFree has already released.
// Prints the error every runtime call after the launch returns. (A GPU may keep the freed memory mapped and
// read stale values without an error; compute-sanitizer reports it.)
//
// Build: nvcc -arch=sm_90 -o error_use_after_free tests/emu/programs/error_use_after_free.cu

#include "program.h"

__global__ void copy_kernel(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}

int main() {
    const int n = 1000;
    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
    CHECK(cudaFree(d_in));  // BUG: freed before the kernel that reads it
    copy_kernel<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
