// launch_forms.cuh: a kernel and its launcher in a header, as many samples keep them (launch_forms.cu includes it).
#pragma once

__global__ void add_one_kernel(int* data, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 1;
}

inline void add_one(int* d_data, int n) {
    add_one_kernel<<<(n + 127) / 128, 128>>>(d_data, n);
}
