// Occupancy-based launch sizing: cudaOccupancyMaxPotentialBlockSize (and its VariableSMem form) suggests the block
// size that puts the most threads on a multiprocessor, and the smallest grid that fills the device at it; the
// suggestion then launches a grid-stride kernel that covers every element. Prints only what does not depend on the
// number of multiprocessors (the grid in multiples of it), for a kernel that needs few registers.
//
// Build: nvcc -arch=sm_90 -o occupancy_block_size tests/emu/programs/occupancy_block_size.cu

#include "program.h"

__global__ void scale_kernel(const float* in, float* out, float factor, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = in[i] * factor;
}

int zero_shared(int) { return 0; }

int main() {
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

    int min_grid = 0, block = 0;
    print_error("potential_block_size", cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, scale_kernel));
    std::printf("block_size: %d\n", block);
    std::printf("min_grid_per_sm: %d\n", min_grid % sms == 0 ? min_grid / sms : -1);
    int active = 0;  // the suggestion is consistent with the occupancy query
    print_error("active_blocks", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, scale_kernel, block, 0));
    std::printf("active_blocks_times_sms_is_min_grid: %d\n", active * sms == min_grid ? 1 : 0);

    // a limit that is not a multiple of the warp size: 200 is tried first, then 192, 160, 128 (full at 128)
    print_error("potential_block_size_limit_200",
                cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, scale_kernel, 0, 200));
    std::printf("block_size_limit_200: %d\n", block);
    std::printf("min_grid_per_sm_limit_200: %d\n", min_grid % sms == 0 ? min_grid / sms : -1);

    print_error("potential_block_size_variable",
                cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &block, scale_kernel, zero_shared));
    std::printf("block_size_variable: %d\n", block);

    const int n = 1 << 20;
    float *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    std::vector<float> in(n), want(n);
    for (int i = 0; i < n; ++i) {
        in[i] = static_cast<float>(i % 1000);
        want[i] = in[i] * 0.5f;
    }
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    scale_kernel<<<min_grid, block>>>(d_in, d_out, 0.5f, n);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> got(n);
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    print_compare("scaled", got, want);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return 0;
}
