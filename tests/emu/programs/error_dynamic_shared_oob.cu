// Known WRONG: the launch asks for blockDim.x floats of dynamic shared memory, but the kernel's tile has a halo
// of one element on each side, so the last thread writes one float past the end. (A GPU only faults past the
// block's whole shared memory allocation, which one element past it usually is not; compute-sanitizer reports it.)
//
// Build: nvcc -arch=sm_90 -o error_dynamic_shared_oob tests/emu/programs/error_dynamic_shared_oob.cu

#include "program.h"

__global__ void halo_sum_kernel(const float* in, float* out, int n) {
    extern __shared__ float tile[];  // BUG: needs blockDim.x + 2 floats, the launch gives blockDim.x
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x + 1] = i < n ? in[i] : 0.0f;
    if (threadIdx.x == 0) tile[0] = 0.0f;
    __syncthreads();
    if (i < n) out[i] = tile[threadIdx.x] + tile[threadIdx.x + 1];
}

int main() {
    const int n = 1024;
    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
    halo_sum_kernel<<<n / 256, 256, 256 * sizeof(float)>>>(d_in, d_out, n);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
