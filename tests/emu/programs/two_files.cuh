// two_files.cuh: what two_files.cu and parts/two_files_scale.cu share — a kernel template and a device helper,
// instantiated in both, so that both objects hold the same inline functions (as the CUDA samples' headers do).
#pragma once

__device__ inline int twice(int x) { return 2 * x; }

template <class T>
__global__ void add_kernel(T* data, T amount, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += amount;
}

void scale_twice(int* d_data, int n);  // parts/two_files_scale.cu
