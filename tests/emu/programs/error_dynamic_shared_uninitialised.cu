// Known WRONG: every thread reads its right neighbour's slot of a dynamic shared array, but the last thread's
// neighbour slot is never written (the load that should fill it is missing). Dynamic shared memory is checked
// like static: the read of a value no thread wrote is reported. (A GPU reads whatever was there.)
//
// Build: nvcc -arch=sm_90 -o error_dynamic_shared_uninitialised tests/emu/programs/error_dynamic_shared_uninitialised.cu

#include "program.h"

__global__ void neighbour_kernel(const int* in, int* out) {
    extern __shared__ int values[];  // blockDim.x + 1 ints
    values[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = values[threadIdx.x + 1] > 0 ? 1 : 0;  // BUG: values[blockDim.x]
}

int main() {
    const int n = 512;
    int* d_in = nullptr;
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(int)));
    neighbour_kernel<<<n / 128, 128, (128 + 1) * sizeof(int)>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
