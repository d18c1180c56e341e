// The second source file of two_files.cu: a kernel with the same parameter types as one there, and a launch of the
// template both files instantiate.
#include "../two_files.cuh"

__global__ void scale_kernel(int* data, int amount, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = twice(data[i]) * amount;
}

void scale_twice(int* d_data, int n) {
    scale_kernel<<<(n + 127) / 128, 128>>>(d_data, 1, n);
    add_kernel<int><<<(n + 127) / 128, 128>>>(d_data, 1, n);
}
