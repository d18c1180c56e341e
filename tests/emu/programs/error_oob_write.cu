// Known WRONG: an off-by-one guard (i <= n) lets one thread write out[n], one element past the end.
// Prints the error every runtime call after the launch returns. (A GPU only faults when the address is
// unmapped, which one element past a small allocation usually is not; compute-sanitizer reports it.)
//
// Build: nvcc -arch=sm_90 -o error_oob_write tests/emu/programs/error_oob_write.cu

#include "program.h"

__global__ void fill_off_by_one_kernel(float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {  // BUG: should be i < n
        out[i] = 1.0f;
    }
}

int main() {
    const int n = 1000;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    fill_off_by_one_kernel<<<(n + 1 + 255) / 256, 256>>>(d_out, n);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
