// device_assert.cu: assert() in a kernel. Where it fails, a GPU prints the file, line, function, block and thread
// and the expression on standard error, stops the kernel, and the next synchronising call returns cudaErrorAssert,
// as does every later call. The program itself goes on. Where it holds, nothing is printed.
//
// Build: nvcc -arch=sm_90 -o device_assert tests/emu/programs/device_assert.cu
#include <cassert>

#include "program.h"

__global__ void check_non_negative(const int* values) { assert(values[threadIdx.x] >= 0); }

int main() {
    int host[32];
    for (int i = 0; i < 32; ++i) host[i] = i;
    int* d_values = nullptr;
    CHECK(cudaMalloc(&d_values, sizeof host));
    CHECK(cudaMemcpy(d_values, host, sizeof host, cudaMemcpyHostToDevice));
    check_non_negative<<<1, 32>>>(d_values);  // every value is non-negative
    print_error("holds", cudaDeviceSynchronize());

    host[17] = -1;  // one thread's assertion fails
    CHECK(cudaMemcpy(d_values, host, sizeof host, cudaMemcpyHostToDevice));
    check_non_negative<<<1, 32>>>(d_values);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    print_error("memcpy", cudaMemcpy(host, d_values, sizeof host, cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
