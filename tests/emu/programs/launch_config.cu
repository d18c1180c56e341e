// Launch configuration errors: each launch below breaks one limit (more than 1024 threads in a block or in one
// block dimension, block.z > 64, a zero dimension, grid.y or grid.z > 65535). Such a launch never runs; its
// error is returned by the next cudaGetLastError(), which also clears it: launch errors are not sticky.
// The kernel sets a flag so the host can tell whether it ran. The last case is a valid launch.
// For each case `gGXxGYxGZ_bBXxBYxBZ` it prints `_launch` (the error), `_ran` (0 or 1), `_next` (the error after).
//
// Build: nvcc -arch=sm_90 -o launch_config tests/emu/programs/launch_config.cu

#include "program.h"

__global__ void set_flag_kernel(int* flag) {
    *flag = 1;  // every thread writes the same value: no thread depends on another's
}

static void try_launch(int* d_flag, dim3 grid, dim3 block) {
    char key[128];
    std::snprintf(key, sizeof key, "g%ux%ux%u_b%ux%ux%u", grid.x, grid.y, grid.z, block.x, block.y, block.z);
    CHECK(cudaMemset(d_flag, 0, sizeof(int)));
    set_flag_kernel<<<grid, block>>>(d_flag);
    const cudaError_t launch = cudaGetLastError();
    CHECK(cudaDeviceSynchronize());
    int ran = 0;
    CHECK(cudaMemcpy(&ran, d_flag, sizeof(int), cudaMemcpyDeviceToHost));
    const cudaError_t next = cudaGetLastError();
    std::printf("%s_launch: %s\n", key, cudaGetErrorName(launch));
    std::printf("%s_ran: %d\n", key, ran);
    std::printf("%s_next: %s\n", key, cudaGetErrorName(next));
}

int main() {
    int* d_flag = nullptr;
    CHECK(cudaMalloc(&d_flag, sizeof(int)));
    try_launch(d_flag, dim3(1), dim3(1025, 1, 1));
    try_launch(d_flag, dim3(1), dim3(64, 32, 1));  // each dimension is fine, 2048 threads are not
    try_launch(d_flag, dim3(1), dim3(1, 1, 65));
    try_launch(d_flag, dim3(1), dim3(0, 1, 1));
    try_launch(d_flag, dim3(1, 0, 1), dim3(32));
    try_launch(d_flag, dim3(1, 65536, 1), dim3(1));
    try_launch(d_flag, dim3(1, 1, 65536), dim3(1));
    try_launch(d_flag, dim3(4, 1, 1), dim3(32, 1, 1));
    CHECK(cudaFree(d_flag));
    return 0;
}
