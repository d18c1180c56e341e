// variables.cpp — __device__ and __constant__ variables: device memory that emucc allocates for each one
// while the program starts (an allocation of its own, named after the variable, never freed), and the runtime
// API that reaches them by symbol (cudaMemcpyToSymbol, cudaMemcpyFromSymbol, cudaGetSymbolAddress,
// cudaGetSymbolSize). Kernel loads from a __constant__ variable count as constant traffic, not global.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "api.h"
#include "memory.h"

namespace cudaemu {

void* define_device_variable(const void* init, size_t bytes, size_t align, bool constant, const char* name,
                             const char* file, int line) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    // Allocations start on 1 MiB slots, so every alignment a type can ask for holds.
    Allocation* al = allocate(bytes ? bytes : 1, name, file, line);
    if (!al || align > kSlotBytes) {
        fprintf(stderr, "cudaemu: cannot allocate device memory for the %s variable '%s' (%zu bytes)\n",
                constant ? "__constant__" : "__device__", name, bytes);
        exit(2);
    }
    al->kind = constant ? Allocation::Kind::kConstant : Allocation::Kind::kDeviceVariable;
    al->global_mask = constant ? 0 : ~uint64_t(0);
    memcpy(reinterpret_cast<void*>(al->base), init, bytes);
    return reinterpret_cast<void*>(al->base);
}

namespace {

// The variable whose device copy starts at `symbol`, or null: anything else is not a symbol.
Allocation* variable_at(const void* symbol) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    Allocation* al = live_allocation_containing(symbol, 1);
    if (!al || al->base != reinterpret_cast<uintptr_t>(symbol)) return nullptr;
    if (al->kind != Allocation::Kind::kDeviceVariable && al->kind != Allocation::Kind::kConstant) return nullptr;
    return al;
}

}  // namespace
}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t bytes, size_t offset, cudaMemcpyKind kind) {
    Allocation* al = variable_at(symbol);
    if (!al) return record_locked(cudaErrorInvalidSymbol);
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return record_locked(cudaErrorInvalidMemcpyDirection);
    if (offset > al->bytes || bytes > al->bytes - offset) return record_locked(cudaErrorInvalidValue);
    return cudaMemcpy(reinterpret_cast<char*>(al->base) + offset, src, bytes, kind);
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t bytes, size_t offset, cudaMemcpyKind kind) {
    Allocation* al = variable_at(symbol);
    if (!al) return record_locked(cudaErrorInvalidSymbol);
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return record_locked(cudaErrorInvalidMemcpyDirection);
    if (offset > al->bytes || bytes > al->bytes - offset) return record_locked(cudaErrorInvalidValue);
    return cudaMemcpy(dst, reinterpret_cast<const char*>(al->base) + offset, bytes, kind);
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t bytes, size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t stream) {
    if (cudaError_t e = cudaStreamQuery(stream); e == cudaErrorInvalidResourceHandle) return e;
    return cudaMemcpyToSymbol(symbol, src, bytes, offset, kind);
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t bytes, size_t offset, cudaMemcpyKind kind,
                                      cudaStream_t stream) {
    if (cudaError_t e = cudaStreamQuery(stream); e == cudaErrorInvalidResourceHandle) return e;
    return cudaMemcpyFromSymbol(dst, symbol, bytes, offset, kind);
}

cudaError_t cudaGetSymbolAddress(void** dev_ptr, const void* symbol) {
    if (!dev_ptr) return record_locked(cudaErrorInvalidValue);
    Allocation* al = variable_at(symbol);
    if (!al) return record_locked(cudaErrorInvalidSymbol);
    *dev_ptr = reinterpret_cast<void*>(al->base);
    return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t* bytes, const void* symbol) {
    if (!bytes) return record_locked(cudaErrorInvalidValue);
    Allocation* al = variable_at(symbol);
    if (!al) return record_locked(cudaErrorInvalidSymbol);
    *bytes = al->bytes;
    return cudaSuccess;
}

}  // extern "C"
