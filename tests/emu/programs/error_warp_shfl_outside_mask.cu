// Known WRONG: the lower half-warp shuffles with mask 0x0000ffff but reads lanes 16-31, which the mask does not
// name. On a GPU the value read is undefined; the emulator reports it (kind warp) and gives the lane its own value.
// The program prints only error names.
//
// Build: nvcc -arch=sm_90 -o error_warp_shfl_outside_mask tests/emu/programs/error_warp_shfl_outside_mask.cu

#include "program.h"

constexpr int BLOCK = 32;

__global__ void swap_halves_kernel(const int* in, int* out) {
    const int lane = threadIdx.x;
    const int v = in[blockIdx.x * BLOCK + lane];
    int got = v;
    if (lane < 16) {
        got = __shfl_sync(0x0000ffffu, v, lane + 16);  // BUG: lane + 16 is not in the mask
    }
    out[blockIdx.x * BLOCK + lane] = got;
}

int main() {
    const int blocks = 2;
    const int n = blocks * BLOCK;
    int* d_in = nullptr;
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(int)));
    swap_halves_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<int> out(n);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
