// Known WRONG: each thread copies two slices into two shared buffers with <cuda_pipeline.h>, one batch each, then
// waits with __pipeline_wait_prior(1), which leaves the newest batch in flight on purpose, and reads the second
// buffer, the one that batch fills. On a GPU the copy may not have landed; the emulator copies at once, so its
// results are right, and it reports the read as a race whose wording names what the wait left in flight.
//
// Build: nvcc -arch=sm_90 -o error_async_copy_wait_leaves_batch tests/emu/programs/error_async_copy_wait_leaves_batch.cu

#include <cuda_pipeline.h>

#include "program.h"

constexpr int BLOCK = 64;

__global__ void wait_leaves_batch_kernel(const float* in, float* out) {
    __shared__ float buffers[2][BLOCK];  // (2, BLOCK): one slice each
    const int t = threadIdx.x;
    for (int s = 0; s < 2; ++s) {
        __pipeline_memcpy_async(&buffers[s][t], &in[s * BLOCK + t], sizeof(float));
        __pipeline_commit();
    }
    __pipeline_wait_prior(1);  // the first slice has landed
    __syncthreads();
    out[t] = buffers[1][BLOCK - 1 - t];  // BUG: the second slice, whose batch the wait left in flight
    __pipeline_wait_prior(0);
}

int main() {
    const int n = 2 * BLOCK;
    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, BLOCK * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
    wait_leaves_batch_kernel<<<1, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(BLOCK);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, BLOCK * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
