// Known WRONG: an off-by-one guard (i <= n) lets one thread read in[n], one element past the end.
// Prints the error every runtime call after the launch returns. (A GPU only faults when the address is
// unmapped, which one element past a small allocation usually is not; compute-sanitizer reports it.)
//
// Build: nvcc -arch=sm_90 -o error_oob_read tests/emu/programs/error_oob_read.cu

#include "program.h"

__global__ void copy_off_by_one_kernel(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {  // BUG: should be i < n
        out[i % n] = in[i];
    }
}

int main() {
    const int n = 1000;
    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
    copy_off_by_one_kernel<<<(n + 1 + 255) / 256, 256>>>(d_in, d_out, n);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
