// properties.cpp — the cudaDeviceProp fields CUDA 13 documents, beyond those api.cpp sets. Two rules pick a
// value: a field that promises an API or a behaviour says what the emulator does (mapped and registered host
// memory, cooperative launches, memory pools: yes; no cluster launches, no pools shared between processes: 0), so
// that a program that checks before it uses a feature takes the path that works here; a field that only describes
// hardware a program cannot observe (alignments, caches, copy engines) has an H100's value. docs/emulator.md lists
// them.
#include "properties.h"

#include "include/cuda_runtime.h"

namespace cudaemu {

void set_documented_properties(cudaDeviceProp* prop) {
    // hardware a program cannot observe: an H100's values
    prop->memPitch = 2147483647;
    prop->textureAlignment = 512;
    prop->texturePitchAlignment = 32;
    prop->surfaceAlignment = 512;
    prop->globalL1CacheSupported = 1;
    prop->localL1CacheSupported = 1;
    prop->reservedSharedMemPerBlock = 1024;
    prop->l2CacheSize = 50 * 1024 * 1024;
    prop->memoryBusWidth = 5120;  // bits; with kLegacyProperties.memoryClockRate, the H100's 3.35 TB/s peak
    // Copies may overlap kernels on a GPU. Here every call finishes its work before it returns, which is one of the
    // orders a GPU may run streams in; the streamed path a program takes after checking this works, unoverlapped.
    prop->asyncEngineCount =
        2;  // at least 2 on an H100 (samples print "two copies can overlap"); only >1 is observable
    // what the emulator does
    prop->integrated = 0;             // device memory is its own arena: copies are needed, as on a discrete GPU
    prop->unifiedAddressing = 1;      // one address space: cudaMemcpyDefault tells host from device pointers
    prop->canMapHostMemory = 1;       // page-locked memory is mapped, its device pointer its host pointer
    prop->hostRegisterSupported = 1;  // cudaHostRegister
    prop->canUseHostPointerForRegisteredMem = 1;
    prop->cooperativeLaunch = 1;     // cudaLaunchCooperativeKernel and grid.sync() (cooperative.cpp)
    prop->memoryPoolsSupported = 1;  // cudaMallocAsync and the default pool (streams.cpp, device_config.cpp)
    // api.cpp sets the limits and features that dynamic shared memory, managed memory and streams bring
    // (sharedMemPerBlockOptin, maxBlocksPerMultiProcessor, managedMemory, concurrentKernels).
    // Features the emulator does not have are 0 (value-initialised): clusterLaunch, memoryPoolSupportedHandleTypes
    // (no pool is shared between processes), pageable memory access (a kernel may not use malloc'd memory that is
    // not registered), IPC, ECC, PCI location, persisting L2
}

}  // namespace cudaemu
