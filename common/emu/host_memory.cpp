// host_memory.cpp — host memory the runtime API hands out: pinned host memory (cudaMallocHost, cudaHostAlloc:
// ordinary host memory here, there being no DMA to pin it for), managed memory (cudaMallocManaged: device memory,
// counted and checked in kernels, that host code may also read and write), and cudaMemGetInfo.
#include <unistd.h>

#include <cstdlib>
#include <set>

#include "api.h"
#include "memory.h"

namespace cudaemu {
namespace {
std::set<void*> g_host_allocations;  // guarded by g_api_mutex
}  // namespace
}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned int flags) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  if (!ptr || flags > (cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
    return record(cudaErrorInvalidValue);
  if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
  *ptr = nullptr;
  if (bytes == 0) return cudaSuccess;
  void* p = nullptr;
  if (posix_memalign(&p, 4096, bytes) != 0) return record(cudaErrorMemoryAllocation);
  g_host_allocations.insert(p);
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, size_t bytes) { return cudaHostAlloc(ptr, bytes, cudaHostAllocDefault); }

cudaError_t cudaFreeHost(void* ptr) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
  if (!ptr) return cudaSuccess;
  if (!g_host_allocations.erase(ptr)) return record(cudaErrorInvalidValue);
  free(ptr);
  return cudaSuccess;
}

cudaError_t cudaMallocManagedEmulated(void** ptr, size_t bytes, unsigned int flags, const char* name,
                                      const char* file, int line) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  if (!ptr || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)) return record(cudaErrorInvalidValue);
  if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
  *ptr = nullptr;
  if (bytes == 0) return record(cudaErrorInvalidValue);
  Allocation* al = allocate(bytes, name, file, line);
  if (!al) return record(cudaErrorMemoryAllocation);
  al->kind = Allocation::Kind::kManaged;
  *ptr = reinterpret_cast<void*>(al->base);
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  std::lock_guard<std::mutex> api(g_api_mutex);
  if (!free_bytes || !total_bytes) return record(cudaErrorInvalidValue);
  if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
  long pages = sysconf(_SC_PHYS_PAGES), available = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  *total_bytes = pages > 0 && page > 0 ? size_t(pages) * size_t(page) : 0;
  *free_bytes = available > 0 && page > 0 ? size_t(available) * size_t(page) : 0;
  return cudaSuccess;
}

}  // extern "C"
