// Known WRONG: an off-by-one guard (i <= n) lets one thread write x[n], one element past the end of host memory
// registered with cudaHostRegister and used through its mapped device pointer.
// Prints the error every runtime call after the launch returns. (A GPU maps registered memory by whole pages, so
// it only faults past the last page; the bytes after the range here lie in the same page, and a GPU writes them.)
//
// Build: nvcc -arch=sm_90 -o error_registered_host_oob tests/emu/programs/error_registered_host_oob.cu

#include <cstdint>

#include "program.h"

__global__ void fill_off_by_one_kernel(int* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {  // BUG: should be i < n
        x[i] = i;
    }
}

int main() {
    const int n = 1000;
    const size_t page = 4096;
    void* raw = std::malloc(2 * page + n * sizeof(int));  // room past the range, so the GPU's write harms nothing
    int* x = reinterpret_cast<int*>((reinterpret_cast<uintptr_t>(raw) + page - 1) / page * page);
    CHECK(cudaHostRegister(x, n * sizeof(int), cudaHostRegisterMapped));
    int* d_x = nullptr;
    CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_x), x, 0));
    int* d_copy = nullptr;
    CHECK(cudaMalloc(&d_copy, n * sizeof(int)));
    fill_off_by_one_kernel<<<(n + 1 + 255) / 256, 256>>>(d_x, n);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    print_error("memcpy", cudaMemcpy(d_copy, x, n * sizeof(int), cudaMemcpyHostToDevice));
    print_error("last_error", cudaGetLastError());
    return 0;
}
