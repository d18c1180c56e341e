// device_config.cpp — the runtime API's configuration and query calls that change nothing in how the emulator
// runs a kernel: versions, cache and bank-size preferences (hints a GPU may ignore too), device limits (kept and
// reported; the emulator's fiber stacks are its own, CUDAEMU_STACK_KB), and pointer attributes, which say where
// memory lives as a GPU with unified addressing says it, and the default memory pool's attributes (kept and read
// back: cudaMallocAsync's memory is not pooled here, every cudaFreeAsync gives it back at once). Each checks its
// arguments as CUDA does.
#include <cstring>

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

// The device's one memory pool, its default and current pool
struct MemPool {
    int reuse[3] = {1, 1, 1};  // cudaMemPoolReuseFollowEventDependencies, AllowOpportunistic, AllowInternalDependencies
    uint64_t release_threshold = 0;
};
MemPool g_default_pool;
cudaMemPool_t default_pool() { return reinterpret_cast<cudaMemPool_t>(&g_default_pool); }

// Where the default pool keeps attribute `attr`, and its size (an int or a uint64_t); null for one it does not keep.
void* pool_attribute(cudaMemPoolAttr attr, size_t* bytes) {
    switch (attr) {
        case cudaMemPoolReuseFollowEventDependencies:
        case cudaMemPoolReuseAllowOpportunistic:
        case cudaMemPoolReuseAllowInternalDependencies:
            *bytes = sizeof(int);
            return &g_default_pool.reuse[attr - cudaMemPoolReuseFollowEventDependencies];
        case cudaMemPoolAttrReleaseThreshold:
            *bytes = sizeof(uint64_t);
            return &g_default_pool.release_threshold;
    }
    return nullptr;
}

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

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
    if (!pool) return record_locked(cudaErrorInvalidValue);
    if (device != 0) return record_locked(cudaErrorInvalidDevice);
    *pool = default_pool();
    return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
    return cudaDeviceGetDefaultMemPool(pool, device);  // cudaDeviceSetMemPool is refused: the default stays current
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    size_t bytes = 0;
    void* kept = pool_attribute(attr, &bytes);
    if (pool != default_pool() || !value || !kept) return record(cudaErrorInvalidValue);
    std::memcpy(kept, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    size_t bytes = 0;
    const void* kept = pool_attribute(attr, &bytes);
    if (pool != default_pool() || !value || !kept) return record(cudaErrorInvalidValue);
    std::memcpy(value, kept, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t) {
    if (pool != default_pool()) return record_locked(cudaErrorInvalidValue);
    return cudaSuccess;  // the pool holds no freed memory to give back
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
