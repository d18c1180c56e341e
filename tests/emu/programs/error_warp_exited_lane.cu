// Known WRONG: the upper half of each warp returns early, then the lower half reduces with a full-mask
// __shfl_down_sync, reading lanes that have exited. On a GPU the values read from exited lanes are undefined; the
// emulator reports the collective (kind warp) and the shuffle's source lanes. The program prints only error names.
//
// Build: nvcc -arch=sm_90 -o error_warp_exited_lane tests/emu/programs/error_warp_exited_lane.cu

#include "program.h"

constexpr int BLOCK = 64;

__global__ void half_warp_sum_kernel(const int* in, int* out) {
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    if (threadIdx.x % 32 >= 16) {
        return;  // BUG: these lanes are still named in the mask below
    }
    int sum = in[i];
    for (int d = 16; d > 0; d /= 2) sum += __shfl_down_sync(0xffffffffu, sum, d);
    if (threadIdx.x % 32 == 0) out[i / 32] = sum;
}

int main() {
    const int blocks = 2;
    const int n = blocks * BLOCK;
    int* d_in = nullptr;
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n / 32 * sizeof(int)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(int)));
    half_warp_sum_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> out(n / 32);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n / 32 * sizeof(int), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
