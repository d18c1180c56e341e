// clock() and clock64() in a kernel: each of 32 threads spins until clock() has advanced by one millisecond's
// worth of ticks at the device's clockRate (as simpleHyperQ's kernels spin for 10 ms), then checks that clock64()
// advanced at least as far over the same interval. Host code's clock() is the C library's processor time.
//
// Build: nvcc -arch=sm_90 -o device_clock tests/emu/programs/device_clock.cu

#include <ctime>

#include "program.h"

__global__ void spin_kernel(unsigned int ticks, unsigned int* waited, long long* elapsed64) {
    const long long t0 = clock64();
    const unsigned int c0 = static_cast<unsigned int>(clock());
    unsigned int w = 0;
    while (w < ticks) w = static_cast<unsigned int>(clock()) - c0;  // 32-bit difference: correct across a wrap
    elapsed64[threadIdx.x] = clock64() - t0;
    waited[threadIdx.x] = w;
}

int main() {
    int khz = 0;
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    const unsigned int ticks = static_cast<unsigned int>(khz);  // kHz: ticks in one millisecond
    const int threads = 32;
    unsigned int* d_waited = nullptr;
    long long* d_elapsed = nullptr;
    CHECK(cudaMalloc(&d_waited, threads * sizeof(unsigned int)));
    CHECK(cudaMalloc(&d_elapsed, threads * sizeof(long long)));
    spin_kernel<<<1, threads>>>(ticks, d_waited, d_elapsed);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<unsigned int> waited(threads);
    std::vector<long long> elapsed(threads);
    CHECK(cudaMemcpy(waited.data(), d_waited, threads * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(elapsed.data(), d_elapsed, threads * sizeof(long long), cudaMemcpyDeviceToHost));
    int short_waits = 0, clock64_behind = 0;
    for (int t = 0; t < threads; ++t) {
        short_waits += waited[t] < ticks;
        clock64_behind += elapsed[t] < static_cast<long long>(waited[t]);
    }
    std::printf("threads_waited_a_millisecond: %d\n", threads - short_waits);
    std::printf("clock64_advanced_at_least_as_far: %d\n", threads - clock64_behind);
    std::printf("host_clock_nonnegative: %d\n", std::clock() >= 0 ? 1 : 0);
    CHECK(cudaFree(d_waited));
    CHECK(cudaFree(d_elapsed));
    return 0;
}
