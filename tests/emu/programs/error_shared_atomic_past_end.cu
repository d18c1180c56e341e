// error_shared_atomic_past_end.cu: a shared-memory histogram whose bin index runs one past its last bin (`value % 257`
// for 256 bins), so that one atomicAdd lands just past the end of the block's shared memory. A GPU faults:
// cudaErrorIllegalAddress from the next synchronising call, and every later call. The emulator reports the atomic
// past the end of shared memory with its line, does not make it, and the program goes on to its next call.
//
// Build: nvcc -arch=sm_90 -o error_shared_atomic_past_end tests/emu/programs/error_shared_atomic_past_end.cu
#include "program.h"

constexpr int kBins = 256;

__global__ void histogram(const unsigned* values, unsigned* bins) {
    __shared__ unsigned counts[kBins];
    counts[threadIdx.x] = 0;
    __syncthreads();
    unsigned* count = counts + values[threadIdx.x] % (kBins + 1);  // meant: % kBins
    atomicAdd(count, 1u);
    __syncthreads();
    bins[threadIdx.x] = counts[threadIdx.x];
}

int main() {
    unsigned values[kBins];
    for (int i = 0; i < kBins; ++i) values[i] = i == 7 ? kBins : i;  // one value falls in the bin past the end
    unsigned *d_values = nullptr, *d_bins = nullptr;
    CHECK(cudaMalloc(&d_values, sizeof values));
    CHECK(cudaMalloc(&d_bins, sizeof values));
    CHECK(cudaMemcpy(d_values, values, sizeof values, cudaMemcpyHostToDevice));
    histogram<<<1, kBins>>>(d_values, d_bins);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    print_error("memcpy", cudaMemcpy(values, d_bins, sizeof values, cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
