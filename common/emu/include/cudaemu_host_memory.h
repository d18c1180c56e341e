// cudaemu_host_memory.h — page-locked and mapped host memory, the device's flags, and occupancy-based launch
// sizing: the parts of the runtime API that cuda_runtime.h includes from here (defined in common/emu/
// host_memory.cpp; the occupancy templates are inline, as in CUDA's header).
//
// The emulator has one address space, as a GPU with unified addressing: every page-locked allocation is mapped,
// and the device pointer of page-locked host memory is its host pointer. Kernels may read and write it; those
// accesses are counted and bounds-checked like global memory's (docs/emulator.md, "Host memory").
#pragma once

// cudaSetDeviceFlags / cudaGetDeviceFlags
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04  // deprecated spelling of cudaDeviceScheduleBlockingSync
#define cudaDeviceScheduleMask 0x07
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaDeviceSyncMemops 0x80
#define cudaDeviceMask 0xff
// cudaHostRegister
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
// cudaOccupancy*WithFlags
#define cudaOccupancyDefault 0x00
#define cudaOccupancyDisableCachingOverride 0x01

extern "C" {
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int* flags);
cudaError_t cudaHostAllocEmulated(void** ptr, size_t bytes, unsigned int flags, const char* name, const char* file,
                                  int line);
cudaError_t cudaHostRegisterEmulated(void* ptr, size_t bytes, unsigned int flags, const char* name, const char* file,
                                     int line);
cudaError_t cudaHostUnregister(void* ptr);
cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags);
cudaError_t cudaHostGetFlags(unsigned int* flags, void* host_ptr);
}

// Macros, as cudaMalloc, so that a report can name the variable and the call site of the memory a kernel overran.
template <class T>
inline cudaError_t cudaemu_host_alloc(T** ptr, size_t bytes, unsigned int flags, const char* name, const char* file,
                                      int line) {
    return cudaHostAllocEmulated(reinterpret_cast<void**>(ptr), bytes, flags, name, file, line);
}
template <class T>
inline cudaError_t cudaemu_malloc_host_args(T** ptr, const char* name, const char* file, int line, size_t bytes,
                                            unsigned int flags = cudaHostAllocDefault) {
    return cudaemu_host_alloc(ptr, bytes, flags, name, file, line);
}
#define cudaHostAlloc(ptr, bytes, flags) cudaemu_host_alloc((ptr), (bytes), (flags), #ptr, __FILE__, __LINE__)
#define cudaMallocHost(ptr, ...) cudaemu_malloc_host_args((ptr), #ptr, __FILE__, __LINE__, __VA_ARGS__)
#define cudaHostRegister(ptr, bytes, flags) cudaHostRegisterEmulated((ptr), (bytes), (flags), #ptr, __FILE__, __LINE__)

// ---------------------------------------------------------------------------------------------------------------
// Occupancy-based sizing, computed as CUDA's header does: try every block size from the largest allowed down, in
// steps of a warp, and keep the one that puts the most threads on a multiprocessor (the first, i.e. the largest,
// among equals). The occupancy of each comes from cudaOccupancyMaxActiveBlocksPerMultiprocessor, which knows no
// register counts here (docs/emulator.md).
// ---------------------------------------------------------------------------------------------------------------
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* num_blocks, T func, int block_size,
                                                                          size_t dynamic_shared_bytes,
                                                                          unsigned int flags) {
    if (flags > cudaOccupancyDisableCachingOverride) return cudaErrorInvalidValue;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(num_blocks, reinterpret_cast<const void*>(func), block_size,
                                                         dynamic_shared_bytes);
}

template <class UnaryFunction, class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(int* min_grid_size, int* block_size, T func,
                                                                           UnaryFunction shared_for_block,
                                                                           int block_size_limit = 0,
                                                                           unsigned int flags = 0) {
    if (!min_grid_size || !block_size || !func) return cudaErrorInvalidValue;
    int device = 0, sm_threads = 0, warp = 0, device_max = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sm_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&device_max, cudaDevAttrMaxThreadsPerBlock, device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaFuncAttributes attr;
    if (e == cudaSuccess) e = cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(func));
    if (e != cudaSuccess) return e;
    int limit = block_size_limit == 0 ? device_max : block_size_limit;
    limit = limit < device_max ? limit : device_max;
    limit = limit < attr.maxThreadsPerBlock ? limit : attr.maxThreadsPerBlock;
    int best_threads = 0, best_size = 0, best_blocks = 0;
    for (int aligned = (limit + warp - 1) / warp * warp; aligned > 0; aligned -= warp) {
        const int size =
            aligned < limit ? aligned : limit;  // the first try is the limit itself, if not a warp multiple
        int blocks = 0;
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, func, size,
                                                                   static_cast<size_t>(shared_for_block(size)), flags);
        if (e != cudaSuccess) return e;
        if (size * blocks > best_threads) best_threads = size * blocks, best_size = size, best_blocks = blocks;
        if (best_threads == sm_threads) break;  // a full multiprocessor: no smaller block does better
    }
    *min_grid_size = best_blocks * sms;
    *block_size = best_size;
    return cudaSuccess;
}

template <class UnaryFunction, class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int* min_grid_size, int* block_size, T func,
                                                                  UnaryFunction shared_for_block,
                                                                  int block_size_limit = 0) {
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(min_grid_size, block_size, func, shared_for_block,
                                                                   block_size_limit, cudaOccupancyDefault);
}

template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int* min_grid_size, int* block_size, T func,
                                                               size_t dynamic_shared_bytes = 0,
                                                               int block_size_limit = 0, unsigned int flags = 0) {
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        min_grid_size, block_size, func, [dynamic_shared_bytes](int) { return dynamic_shared_bytes; }, block_size_limit,
        flags);
}

template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid_size, int* block_size, T func,
                                                      size_t dynamic_shared_bytes = 0, int block_size_limit = 0) {
    return cudaOccupancyMaxPotentialBlockSizeWithFlags(min_grid_size, block_size, func, dynamic_shared_bytes,
                                                       block_size_limit, cudaOccupancyDefault);
}
