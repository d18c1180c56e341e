// Device queries: only facts that hold on every supported GPU and on the emulator are printed (an sm_90 GPU's
// limits: 1024 threads per block, 48 KiB of static shared memory per block, grid.y and grid.z up to 65535).
// Asking for a device that does not exist is an error, and like every runtime error it becomes the last error.
//
// Build: nvcc -arch=sm_90 -o device_query tests/emu/programs/device_query.cu

#include "program.h"

int main() {
    int count = 0;
    print_error("get_device_count", cudaGetDeviceCount(&count));
    std::printf("device_count_ok: %d\n", count >= 1 ? 1 : 0);
    int device = -1;
    print_error("get_device", cudaGetDevice(&device));
    std::printf("current_device: %d\n", device);
    print_error("set_device_0", cudaSetDevice(0));

    cudaDeviceProp prop;
    print_error("get_properties", cudaGetDeviceProperties(&prop, 0));
    std::printf("warp_size: %d\n", prop.warpSize);
    std::printf("max_threads_per_block: %d\n", prop.maxThreadsPerBlock);
    std::printf("max_threads_dim: %d %d %d\n", prop.maxThreadsDim[0], prop.maxThreadsDim[1], prop.maxThreadsDim[2]);
    std::printf("max_grid_size: %d %d %d\n", prop.maxGridSize[0], prop.maxGridSize[1], prop.maxGridSize[2]);
    std::printf("shared_mem_per_block: %zu\n", prop.sharedMemPerBlock);
    std::printf("multiprocessors_ok: %d\n", prop.multiProcessorCount >= 1 ? 1 : 0);
    std::printf("global_memory_ok: %d\n", prop.totalGlobalMem > 0 ? 1 : 0);
    int memory_clock_khz = 0;
    print_error("get_memory_clock", cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, 0));
    // a textbook's peak bandwidth, 2 x memory clock x bus width, and the L2 cache are known (an H100's here)
    std::printf("memory_described: %d\n", memory_clock_khz > 0 && prop.memoryBusWidth > 0 && prop.l2CacheSize > 0);
    int mode = -1;  // NVIDIA's helper_cuda.h picks a device this way
    print_error("get_compute_mode", cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0));
    std::printf("compute_mode_allows_use: %d\n", mode != cudaComputeModeProhibited ? 1 : 0);

    print_error("clear_last_error", cudaGetLastError());
    print_error("get_properties_of_missing_device", cudaGetDeviceProperties(&prop, count));  // ordinals 0..count-1
    print_error("last_error_after_missing_device", cudaGetLastError());
    print_error("last_error_cleared", cudaGetLastError());
    return 0;
}
