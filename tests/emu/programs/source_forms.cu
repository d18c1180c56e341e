// Source forms that nvcc accepts and that CUDA's samples use, which common/emu/emucc rewrites: a device-code guard on
// the architecture (`#if __CUDA_ARCH__ >= 700`: true for an sm_90 device), an extern __shared__ array declared with
// its type first (`extern int __shared__ name[];`), a cooperative launch of a kernel cast to `void *`, a device
// function's `static __shared__` buffer (the same as without `static`), and `#ifdef __CUDA_ARCH__` in device
// functions, where it holds (900 on an sm_90 device).
//
// Build: nvcc -arch=sm_90 -o source_forms tests/emu/programs/source_forms.cu

#include <cooperative_groups.h>

#include "program.h"

namespace cg = cooperative_groups;

constexpr int BLOCK = 64;

// ----------------------------------------------------------------------------
// kernels

// out[i] = in[BLOCK - 1 - i] + 1000 * (the guard held), reversed through dynamic shared memory
__global__ void reverse_kernel(const int* in, int* out) {
    extern int __shared__ staged[];  // (BLOCK)
    const int t = threadIdx.x;
    staged[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    int guard = 0;
#if __CUDA_ARCH__ >= 700
    guard = 1;
#endif
    out[blockIdx.x * BLOCK + t] = staged[BLOCK - 1 - t] + 1000 * guard;
}

// the device's architecture, as device code sees it
__device__ int device_arch() {
#ifdef __CUDA_ARCH__
    return __CUDA_ARCH__;
#else
    return -1;
#endif
}

__global__ void arch_kernel(int* arch) {
#if defined(__CUDA_ARCH__)
    *arch = device_arch();
#endif
#ifndef __CUDA_ARCH__
    *arch = -2;
#endif
}

// the block's sum, through a buffer that the device function declares itself, as blog reductions do
template <class T>
__device__ T block_sum(T value) {
    static __shared__ T partial[BLOCK];
    partial[threadIdx.x] = value;
    __syncthreads();
    T sum = 0;
    for (int i = 0; i < BLOCK; ++i) sum += partial[i];
    __syncthreads();
    return sum;
}

__global__ void block_sum_kernel(const int* in, int* sums) {
    const int sum = block_sum(in[blockIdx.x * BLOCK + threadIdx.x]);
    if (threadIdx.x == 0) sums[blockIdx.x] = sum;
}

__global__ void grid_sum_kernel(const int* in, int* partial, int* total) {
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0) partial[blockIdx.x] = in[blockIdx.x];
    grid.sync();
    if (grid.thread_rank() == 0) {
        int s = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) s += partial[b];
        *total = s;
    }
}

// ----------------------------------------------------------------------------
// host

int main() {
    const int blocks = 4, n = blocks * BLOCK;
    std::vector<int> in(n), want(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 13 + 5) % 97;
    for (int i = 0; i < n; ++i) want[i] = in[i - i % BLOCK + BLOCK - 1 - i % BLOCK] + 1000;
    int *d_in = nullptr, *d_out = nullptr, *d_partial = nullptr, *d_total = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMalloc(&d_partial, blocks * sizeof(int)));
    CHECK(cudaMalloc(&d_total, sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    reverse_kernel<<<blocks, BLOCK, BLOCK * sizeof(int)>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> got(n);
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    print_compare("arch_guard_and_type_first_extern_shared", got, want);

    block_sum_kernel<<<blocks, BLOCK>>>(d_in, d_partial);
    std::vector<int> sums(blocks), want_sums(blocks, 0);
    CHECK(cudaMemcpy(sums.data(), d_partial, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) want_sums[i / BLOCK] += in[i];
    print_compare("static_shared_block_sums", sums, want_sums);

    arch_kernel<<<1, 1>>>(d_total);
    int arch = 0;
    CHECK(cudaMemcpy(&arch, d_total, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("device_arch: %d\n", arch);

    void* args[] = {&d_in, &d_partial, &d_total};
    print_error("cooperative_launch_void_cast",
                cudaLaunchCooperativeKernel((void *)grid_sum_kernel, dim3(blocks), dim3(BLOCK), args, 0, 0));
    print_error("cooperative_sync", cudaDeviceSynchronize());
    int total = 0;
    CHECK(cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("grid_sum: %s\n", total == in[0] + in[1] + in[2] + in[3] ? "pass" : "FAIL");
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_partial));
    CHECK(cudaFree(d_total));
    return 0;
}
