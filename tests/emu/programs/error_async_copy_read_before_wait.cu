// Known WRONG: each thread stages its element in shared memory with cuda::memcpy_async, but the block reads the
// tile before the pipeline's consumer_wait(): on a GPU the copies may not have landed yet, and the sums are
// garbage or right by luck. The emulator copies at once, so its results are right; it reports the reads of
// memory a copy may still be filling.
//
// Build: nvcc -arch=sm_90 -o error_async_copy_read_before_wait tests/emu/programs/error_async_copy_read_before_wait.cu

#include <cuda/pipeline>

#include "program.h"

constexpr int BLOCK = 64;

__global__ void read_before_wait_kernel(const float* in, float* out) {
    __shared__ float tile[BLOCK];
    const int t = threadIdx.x;
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(&tile[t], &in[blockIdx.x * BLOCK + t], cuda::aligned_size_t<4>(sizeof(float)), pipe);
    pipe.producer_commit();
    __syncthreads();
    out[blockIdx.x * BLOCK + t] = tile[BLOCK - 1 - t];  // BUG: before consumer_wait()
    pipe.consumer_wait();
    pipe.consumer_release();
}

int main() {
    const int blocks = 2;
    const int n = blocks * BLOCK;
    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
    read_before_wait_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
