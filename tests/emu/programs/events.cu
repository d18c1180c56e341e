// Events: record one before and one after a kernel, wait for the second, read the elapsed time. The time
// itself differs from run to run and machine to machine, so only whether it is >= 0 is printed.
//
// Build: nvcc -arch=sm_90 -o events tests/emu/programs/events.cu

#include "program.h"

__global__ void scale_kernel(float* x, float factor, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] *= factor;
    }
}

int main() {
    const int n = 4096;
    float* d_x = nullptr;
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMemset(d_x, 0, n * sizeof(float)));

    cudaEvent_t start, stop;
    print_error("create_start", cudaEventCreate(&start));
    print_error("create_stop", cudaEventCreate(&stop));
    print_error("record_start", cudaEventRecord(start));
    scale_kernel<<<n / 256, 256>>>(d_x, 2.0f, n);
    print_error("launch", cudaGetLastError());
    print_error("record_stop", cudaEventRecord(stop));
    print_error("synchronize_stop", cudaEventSynchronize(stop));
    float ms = -1.0f;
    print_error("elapsed_time", cudaEventElapsedTime(&ms, start, stop));
    std::printf("elapsed_nonnegative: %d\n", ms >= 0.0f ? 1 : 0);
    print_error("destroy_start", cudaEventDestroy(start));
    print_error("destroy_stop", cudaEventDestroy(stop));
    CHECK(cudaFree(d_x));
    return 0;
}
