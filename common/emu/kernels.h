// kernels.h — what the launch path asks of the parts that know about kernel functions (functions.cpp: their
// static shared memory and attributes) and streams (streams.cpp).
#pragma once
#include "include/cuda_runtime.h"

namespace cudaemu {

// cudaSuccess, or the error a GPU gives for launching `function` with this much dynamic shared memory: more than
// its cudaFuncAttributeMaxDynamicSharedMemorySize (48 KiB less its static shared memory unless raised), or more
// than the device's per-block maximum with its static shared memory. g_api_mutex held.
cudaError_t dynamic_shared_error(const void* function, size_t dynamic_bytes);
// The null stream, cudaStreamLegacy, cudaStreamPerThread, or a stream created and not yet destroyed.
// g_api_mutex held.
bool valid_stream(cudaStream_t stream);

}  // namespace cudaemu
