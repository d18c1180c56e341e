// atomicAdd on int, unsigned int and float: a histogram, a count, and a sum of 1.0f. Every partial sum of
// 1.0f below 2^24 is an exact float, so the float total does not depend on the order the additions happen in.
//
// Build: nvcc -arch=sm_90 -o atomics tests/emu/programs/atomics.cu

#include "program.h"

constexpr int BINS = 7;

// ----------------------------------------------------------------------------
// kernels

__global__ void histogram_kernel(const int* values, int* bins, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&bins[values[i]], 1);
    }
}

__global__ void count_and_sum_kernel(unsigned int* count, float* sum, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(count, 1u);
        atomicAdd(sum, 1.0f);
    }
}

// ----------------------------------------------------------------------------
// host

int main() {
    const int n = 10007;  // prime: the last block is partial
    std::vector<int> values(n), want_bins(BINS, 0), got_bins(BINS);
    for (int i = 0; i < n; ++i) {
        values[i] = (i * i + 3 * i) % BINS;
        want_bins[values[i]]++;
    }

    int* d_values = nullptr;
    int* d_bins = nullptr;
    unsigned int* d_count = nullptr;
    float* d_sum = nullptr;
    CHECK(cudaMalloc(&d_values, n * sizeof(int)));
    CHECK(cudaMalloc(&d_bins, BINS * sizeof(int)));
    CHECK(cudaMalloc(&d_count, sizeof(unsigned int)));
    CHECK(cudaMalloc(&d_sum, sizeof(float)));
    CHECK(cudaMemcpy(d_values, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_bins, 0, BINS * sizeof(int)));
    CHECK(cudaMemset(d_count, 0, sizeof(unsigned int)));
    CHECK(cudaMemset(d_sum, 0, sizeof(float)));  // all-zero bytes are 0.0f

    histogram_kernel<<<(n + 255) / 256, 256>>>(d_values, d_bins, n);
    print_error("histogram_launch", cudaGetLastError());
    count_and_sum_kernel<<<(n + 255) / 256, 256>>>(d_count, d_sum, n);
    print_error("count_launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());

    unsigned int count = 0;
    float sum = 0.0f;
    CHECK(cudaMemcpy(got_bins.data(), d_bins, BINS * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&count, d_count, sizeof(unsigned int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
    print_compare("histogram", got_bins, want_bins);
    std::printf("count: %u\n", count);
    std::printf("float_sum: %.1f\n", sum);
    std::printf("float_sum_exact: %s\n", sum == float(n) ? "pass" : "FAIL");

    CHECK(cudaFree(d_values));
    CHECK(cudaFree(d_bins));
    CHECK(cudaFree(d_count));
    CHECK(cudaFree(d_sum));
    return 0;
}
