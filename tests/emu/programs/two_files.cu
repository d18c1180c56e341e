// A program of two .cu files (this one and parts/two_files_scale.cu) whose kernels have the same parameter types
// and which both instantiate the same kernel template and device helper: they must link and run, as under nvcc.
//
// Build: nvcc -arch=sm_90 -o two_files tests/emu/programs/two_files.cu tests/emu/programs/parts/two_files_scale.cu

#include "program.h"
#include "two_files.cuh"

// ----------------------------------------------------------------------------
// kernels

__global__ void offset_kernel(int* data, int amount, int n) {  // the same parameter types as scale_kernel
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = twice(data[i]) + amount;
}

// ----------------------------------------------------------------------------
// host

int main() {
    const int n = 300;
    std::vector<int> values(n), want(n);
    for (int i = 0; i < n; ++i) {
        values[i] = i - 150;
        want[i] = 2 * (2 * (values[i] + 3) + 5) + 1;  // add 3, offset, scale twice, add 1
    }
    int* d_data = nullptr;
    CHECK(cudaMalloc(&d_data, n * sizeof(int)));
    CHECK(cudaMemcpy(d_data, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    add_kernel<int><<<(n + 127) / 128, 128>>>(d_data, 3, n);
    offset_kernel<<<(n + 127) / 128, 128>>>(d_data, 5, n);
    scale_twice(d_data, n);
    print_error("launches", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> got(n);
    CHECK(cudaMemcpy(got.data(), d_data, n * sizeof(int), cudaMemcpyDeviceToHost));
    print_compare("values", got, want);
    CHECK(cudaFree(d_data));
    return 0;
}
