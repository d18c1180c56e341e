// functions.cpp — kernel functions as the runtime API sees them: each kernel's static shared memory (the sizes of
// its __shared__ variables, found in the executable's symbol table), its attributes (cudaFuncSetAttribute,
// cudaFuncGetAttributes), the dynamic shared memory limits a launch is checked against, occupancy; and the
// device's attributes (cudaDeviceGetAttribute), which are cudaGetDeviceProperties' values.
#include <dlfcn.h>
#include <elf.h>

#include <algorithm>
#include <map>
#include <string>

#include "api.h"
#include "kernels.h"
#include "properties.h"
#include "symbols.h"

namespace cudaemu {
namespace {

constexpr size_t kDefaultSharedPerBlock = 48 * 1024;  // without the opt-in, static + dynamic
constexpr size_t kReservedSharedPerBlock = 1024;      // what the device keeps of each block's shared memory

struct KernelInfo {
    bool found = false;        // a function of the executable
    size_t static_shared = 0;  // bytes of its __shared__ variables
    int max_dynamic = 0;       // cudaFuncAttributeMaxDynamicSharedMemorySize
    int carveout = -1;         // cudaFuncAttributePreferredSharedMemoryCarveout
};
std::map<const void*, KernelInfo> g_kernels;  // guarded by g_api_mutex

// A kernel's __shared__ variables are static locals, named after the function in the symbol table:
// `_ZZ6kernelPfE2As` is As in kernel(float*), `_Z6kernelPf`.
KernelInfo& kernel_info(const void* function) {
    auto it = g_kernels.find(function);
    if (it != g_kernels.end()) return it->second;
    KernelInfo k;
    Dl_info info{}, self{};
    if (function && dladdr(function, &info) && dladdr(reinterpret_cast<void*>(&kernel_info), &self) &&
        info.dli_fbase == self.dli_fbase) {
        const uint64_t at = reinterpret_cast<uintptr_t>(function), base = reinterpret_cast<uintptr_t>(info.dli_fbase);
        std::string prefix;
        for (const ElfSymbol& s : executable_symbols()) {
            if (s.type == STT_FUNC && (s.value == at - base || s.value == at)) {
                k.found = true;
                prefix = s.name.compare(0, 2, "_Z") == 0 ? "_ZZ" + s.name.substr(2) + "E"
                                                         : "_ZZ" + std::to_string(s.name.size()) + s.name + "E";
                break;
            }
        }
        for (const ElfSymbol& s : executable_symbols())
            if (k.found && s.type == STT_TLS && s.name.compare(0, prefix.size(), prefix) == 0)
                k.static_shared += s.size;
    }
    k.max_dynamic = static_cast<int>(kDefaultSharedPerBlock - std::min(k.static_shared, kDefaultSharedPerBlock));
    return g_kernels.emplace(function, k).first->second;
}

}  // namespace

cudaError_t dynamic_shared_error(const void* function, size_t dynamic_bytes) {
    const KernelInfo& k = kernel_info(function);
    if (dynamic_bytes > size_t(k.max_dynamic) || k.static_shared + dynamic_bytes > CUDAEMU_DYNAMIC_SHARED_MAX)
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    KernelInfo& k = kernel_info(func);
    if (!k.found) return record(cudaErrorInvalidDeviceFunction);
    switch (attr) {
        case cudaFuncAttributeMaxDynamicSharedMemorySize:
            if (value < 0 || k.static_shared + size_t(value) > CUDAEMU_DYNAMIC_SHARED_MAX)
                return record(cudaErrorInvalidValue);
            k.max_dynamic = value;
            return cudaSuccess;
        case cudaFuncAttributePreferredSharedMemoryCarveout:
            if (value < -1 || value > 100) return record(cudaErrorInvalidValue);
            k.carveout = value;
            return cudaSuccess;
    }
    return record(cudaErrorInvalidValue);
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!attr) return record(cudaErrorInvalidValue);
    const KernelInfo& k = kernel_info(func);
    if (!k.found) return record(cudaErrorInvalidDeviceFunction);
    *attr = cudaFuncAttributes{};
    attr->sharedSizeBytes = k.static_shared;
    attr->maxThreadsPerBlock = 1024;
    attr->maxDynamicSharedSizeBytes = k.max_dynamic;
    attr->preferredShmemCarveout = k.carveout;
    return cudaSuccess;  // registers, local memory and PTX versions: 0, the emulator has none
}

// Blocks of `block_size` threads that fit on one multiprocessor at once, by threads and by shared memory (the
// emulator knows no register counts); the limits are cudaGetDeviceProperties'.
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, const void* func, int block_size,
                                                          size_t dynamic_shared_bytes) {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!num_blocks) return record(cudaErrorInvalidValue);
    const KernelInfo& k = kernel_info(func);
    if (!k.found) return record(cudaErrorInvalidDeviceFunction);
    if (block_size <= 0) return record(cudaErrorInvalidValue);
    if (block_size > prop.maxThreadsPerBlock) {
        *num_blocks = 0;
        return cudaSuccess;
    }
    const int warps = (block_size + prop.warpSize - 1) / prop.warpSize;
    int blocks = std::min(prop.maxBlocksPerMultiProcessor, prop.maxThreadsPerMultiProcessor / prop.warpSize / warps);
    if (dynamic_shared_bytes > size_t(k.max_dynamic)) {  // such a launch would fail
        *num_blocks = 0;
        return cudaSuccess;
    }
    const size_t shared = k.static_shared + dynamic_shared_bytes;
    if (shared > 0)
        blocks = std::min<int>(blocks, int(prop.sharedMemPerMultiprocessor / (shared + kReservedSharedPerBlock)));
    *num_blocks = blocks;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
    if (!value) return record_locked(cudaErrorInvalidValue);
    cudaDeviceProp p;
    if (cudaError_t e = cudaGetDeviceProperties(&p, device); e != cudaSuccess) return e;
    switch (attr) {
        case cudaDevAttrMaxThreadsPerBlock:
            *value = p.maxThreadsPerBlock;
            break;
        case cudaDevAttrMaxBlockDimX:
            *value = p.maxThreadsDim[0];
            break;
        case cudaDevAttrMaxBlockDimY:
            *value = p.maxThreadsDim[1];
            break;
        case cudaDevAttrMaxBlockDimZ:
            *value = p.maxThreadsDim[2];
            break;
        case cudaDevAttrMaxGridDimX:
            *value = p.maxGridSize[0];
            break;
        case cudaDevAttrMaxGridDimY:
            *value = p.maxGridSize[1];
            break;
        case cudaDevAttrMaxGridDimZ:
            *value = p.maxGridSize[2];
            break;
        case cudaDevAttrMaxSharedMemoryPerBlock:
            *value = int(p.sharedMemPerBlock);
            break;
        case cudaDevAttrTotalConstantMemory:
            *value = int(p.totalConstMem);
            break;
        case cudaDevAttrWarpSize:
            *value = p.warpSize;
            break;
        case cudaDevAttrMaxRegistersPerBlock:
            *value = p.regsPerBlock;
            break;
        case cudaDevAttrClockRate:
            *value = kLegacyProperties.clockRate;
            break;
        case cudaDevAttrMultiProcessorCount:
            *value = p.multiProcessorCount;
            break;
        case cudaDevAttrConcurrentKernels:
            *value = p.concurrentKernels;
            break;
        case cudaDevAttrMemoryClockRate:
            *value = kLegacyProperties.memoryClockRate;
            break;
        case cudaDevAttrGlobalMemoryBusWidth:
            *value = p.memoryBusWidth;
            break;
        case cudaDevAttrL2CacheSize:
            *value = p.l2CacheSize;
            break;
        case cudaDevAttrMaxThreadsPerMultiProcessor:
            *value = p.maxThreadsPerMultiProcessor;
            break;
        case cudaDevAttrUnifiedAddressing:
            *value = p.unifiedAddressing;
            break;
        case cudaDevAttrComputeCapabilityMajor:
            *value = p.major;
            break;
        case cudaDevAttrComputeCapabilityMinor:
            *value = p.minor;
            break;
        case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
            *value = int(p.sharedMemPerMultiprocessor);
            break;
        case cudaDevAttrMaxRegistersPerMultiprocessor:
            *value = p.regsPerMultiprocessor;
            break;
        case cudaDevAttrManagedMemory:
            *value = p.managedMemory;
            break;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin:
            *value = int(p.sharedMemPerBlockOptin);
            break;
        case cudaDevAttrMaxBlocksPerMultiprocessor:
            *value = p.maxBlocksPerMultiProcessor;
            break;
        case cudaDevAttrMaxPitch:
            *value = int(p.memPitch);
            break;
        case cudaDevAttrTextureAlignment:
            *value = int(p.textureAlignment);
            break;
        case cudaDevAttrGpuOverlap:
            *value = kLegacyProperties.deviceOverlap;
            break;
        case cudaDevAttrKernelExecTimeout:
            *value = kLegacyProperties.kernelExecTimeoutEnabled;
            break;
        case cudaDevAttrIntegrated:
            *value = p.integrated;
            break;
        case cudaDevAttrCanMapHostMemory:
            *value = p.canMapHostMemory;
            break;
        case cudaDevAttrComputeMode:
            *value = kLegacyProperties.computeMode;
            break;
        case cudaDevAttrSurfaceAlignment:
            *value = int(p.surfaceAlignment);
            break;
        case cudaDevAttrEccEnabled:
            *value = p.ECCEnabled;
            break;
        case cudaDevAttrPciBusId:
            *value = p.pciBusID;
            break;
        case cudaDevAttrPciDeviceId:
            *value = p.pciDeviceID;
            break;
        case cudaDevAttrTccDriver:
            *value = p.tccDriver;
            break;
        case cudaDevAttrAsyncEngineCount:
            *value = p.asyncEngineCount;
            break;
        case cudaDevAttrPciDomainId:
            *value = p.pciDomainID;
            break;
        case cudaDevAttrTexturePitchAlignment:
            *value = int(p.texturePitchAlignment);
            break;
        case cudaDevAttrStreamPrioritiesSupported:
            *value = p.streamPrioritiesSupported;
            break;
        case cudaDevAttrGlobalL1CacheSupported:
            *value = p.globalL1CacheSupported;
            break;
        case cudaDevAttrLocalL1CacheSupported:
            *value = p.localL1CacheSupported;
            break;
        case cudaDevAttrIsMultiGpuBoard:
            *value = p.isMultiGpuBoard;
            break;
        case cudaDevAttrMultiGpuBoardGroupID:
            *value = p.multiGpuBoardGroupID;
            break;
        case cudaDevAttrHostNativeAtomicSupported:
            *value = p.hostNativeAtomicSupported;
            break;
        case cudaDevAttrSingleToDoublePrecisionPerfRatio:
            *value = kLegacyProperties.singleToDoublePrecisionPerfRatio;
            break;
        case cudaDevAttrPageableMemoryAccess:
            *value = p.pageableMemoryAccess;
            break;
        case cudaDevAttrConcurrentManagedAccess:
            *value = p.concurrentManagedAccess;
            break;
        case cudaDevAttrComputePreemptionSupported:
            *value = p.computePreemptionSupported;
            break;
        case cudaDevAttrCanUseHostPointerForRegisteredMem:
            *value = p.canUseHostPointerForRegisteredMem;
            break;
        case cudaDevAttrCooperativeLaunch:
            *value = p.cooperativeLaunch;
            break;
        case cudaDevAttrCooperativeMultiDeviceLaunch:
            *value = kLegacyProperties.cooperativeMultiDeviceLaunch;
            break;
        case cudaDevAttrCanFlushRemoteWrites:
            *value = 0;
            break;
        case cudaDevAttrHostRegisterSupported:
            *value = p.hostRegisterSupported;
            break;
        case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
            *value = p.pageableMemoryAccessUsesHostPageTables;
            break;
        case cudaDevAttrDirectManagedMemAccessFromHost:
            *value = p.directManagedMemAccessFromHost;
            break;
        case cudaDevAttrMaxPersistingL2CacheSize:
            *value = p.persistingL2CacheMaxSize;
            break;
        case cudaDevAttrMaxAccessPolicyWindowSize:
            *value = p.accessPolicyMaxWindowSize;
            break;
        case cudaDevAttrReservedSharedMemoryPerBlock:
            *value = int(p.reservedSharedMemPerBlock);
            break;
        case cudaDevAttrSparseCudaArraySupported:
            *value = p.sparseCudaArraySupported;
            break;
        case cudaDevAttrHostRegisterReadOnlySupported:
            *value = p.hostRegisterReadOnlySupported;
            break;
        case cudaDevAttrTimelineSemaphoreInteropSupported:
            *value = p.timelineSemaphoreInteropSupported;
            break;
        case cudaDevAttrMemoryPoolsSupported:
            *value = p.memoryPoolsSupported;
            break;
        case cudaDevAttrGPUDirectRDMASupported:
            *value = p.gpuDirectRDMASupported;
            break;
        case cudaDevAttrGPUDirectRDMAFlushWritesOptions:
            *value = int(p.gpuDirectRDMAFlushWritesOptions);
            break;
        case cudaDevAttrGPUDirectRDMAWritesOrdering:
            *value = p.gpuDirectRDMAWritesOrdering;
            break;
        case cudaDevAttrMemoryPoolSupportedHandleTypes:
            *value = int(p.memoryPoolSupportedHandleTypes);
            break;
        case cudaDevAttrClusterLaunch:
            *value = p.clusterLaunch;
            break;
        case cudaDevAttrDeferredMappingCudaArraySupported:
            *value = p.deferredMappingCudaArraySupported;
            break;
        default:
            return record_locked(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

}  // extern "C"
