// device_config.cpp — the runtime API's configuration and query calls that change nothing in how the emulator
// runs a kernel: versions, cache and bank-size preferences (hints a GPU may ignore too), device limits (kept and
// reported; the emulator's fiber stacks are its own, CUDAEMU_STACK_KB), and pointer attributes, which say where
// memory lives as a GPU with unified addressing says it. Each checks its arguments as CUDA does.
#include "api.h"
#include "memory.h"

namespace cudaemu {
namespace {
// All guarded by g_api_mutex. Limits start at an H100's defaults under CUDA 12 and 13.
cudaFuncCache g_cache_config = cudaFuncCachePreferNone;
size_t g_limits[] = {
    1024,     // cudaLimitStackSize: bytes per thread
    1048576,  // cudaLimitPrintfFifoSize
    8388608,  // cudaLimitMallocHeapSize
    2,        // cudaLimitDevRuntimeSyncDepth
    2048,     // cudaLimitDevRuntimePendingLaunchCount
    32,       // cudaLimitMaxL2FetchGranularity: bytes
    0,        // cudaLimitPersistingL2CacheSize: persistingL2CacheMaxSize is 0
};
constexpr int kLimits = sizeof g_limits / sizeof g_limits[0];

bool valid_cache_config(cudaFuncCache c) { return c >= cudaFuncCachePreferNone && c <= cudaFuncCachePreferEqual; }
}  // namespace
}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

cudaError_t cudaRuntimeGetVersion(int* version) {
    if (!version) return record_locked(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}

// The newest CUDA the "driver" supports: the emulator is its own driver, for the API it implements.
cudaError_t cudaDriverGetVersion(int* version) {
    if (!version) return record_locked(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop) {
    if (!device || !prop) return record_locked(cudaErrorInvalidValue);
    *device = 0;  // the only one
    return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!valid_cache_config(config)) return record(cudaErrorInvalidValue);
    g_cache_config = config;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!config) return record(cudaErrorInvalidValue);
    *config = g_cache_config;
    return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache config) {
    cudaFuncAttributes attr;
    if (cudaError_t e = cudaFuncGetAttributes(&attr, func); e != cudaSuccess) return e;  // not a kernel
    if (!valid_cache_config(config)) return record_locked(cudaErrorInvalidValue);
    return cudaSuccess;  // a preference; shared memory here is never short of L1
}

cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config) {
    if (config < cudaSharedMemBankSizeDefault || config > cudaSharedMemBankSizeEightByte)
        return record_locked(cudaErrorInvalidValue);
    return cudaSuccess;  // ignored, as on Volta and newer, whose banks are 4 bytes wide
}

cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig* config) {
    if (!config) return record_locked(cudaErrorInvalidValue);
    *config = cudaSharedMemBankSizeFourByte;  // what Volta and newer report: their banks are 4 bytes wide
    return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (limit < 0 || limit >= kLimits) return record(cudaErrorInvalidValue);
    if (limit == cudaLimitMaxL2FetchGranularity && (value > 128 || (value & (value - 1))))
        return record(cudaErrorInvalidValue);  // a power of two from 0 to 128 bytes
    if (limit == cudaLimitPersistingL2CacheSize && value != 0) return record(cudaErrorInvalidValue);
    g_limits[limit] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!value || limit < 0 || limit >= kLimits) return record(cudaErrorInvalidValue);
    *value = g_limits[limit];
    return cudaSuccess;
}

// Device memory (cudaMalloc, __device__ and __constant__ variables), managed memory, page-locked host memory
// (cudaHostAlloc, cudaHostRegister), or memory the runtime does not know (cudaMemoryTypeUnregistered, not an
// error since CUDA 11).
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!attributes) return record(cudaErrorInvalidValue);
    *attributes = cudaPointerAttributes{cudaMemoryTypeUnregistered, -2, nullptr, nullptr};  // -2: no device
    void* p = const_cast<void*>(ptr);
    const Allocation* al = nullptr;
    if (in_arena(ptr)) {
        al = live_allocation_containing(ptr, 1);
    } else {
        Allocation* near = nullptr;
        al = registered_range(reinterpret_cast<uintptr_t>(ptr), 1, &near);
    }
    if (!al) return cudaSuccess;
    attributes->device = 0;
    switch (al->kind) {
        case Allocation::Kind::kManaged:
            attributes->type = cudaMemoryTypeManaged, attributes->devicePointer = p, attributes->hostPointer = p;
            break;
        case Allocation::Kind::kHostAlloc:
        case Allocation::Kind::kRegistered:
            attributes->type = cudaMemoryTypeHost, attributes->devicePointer = p, attributes->hostPointer = p;
            break;
        default:
            attributes->type = cudaMemoryTypeDevice, attributes->devicePointer = p;
            break;
    }
    return cudaSuccess;
}

}  // extern "C"
