// host_memory.cpp — host memory the runtime API hands out or maps: page-locked host memory (cudaMallocHost,
// cudaHostAlloc, cudaHostRegister), managed memory (cudaMallocManaged: device memory, counted and checked in
// kernels, that host code may also read and write), the device's flags (cudaSetDeviceFlags), and cudaMemGetInfo.
//
// As on a GPU with unified addressing, all page-locked memory is mapped, whatever the flags, and its device pointer
// is its host pointer. cudaHostAlloc's memory is an allocation in the device arena (kind kHostAlloc), so kernels'
// accesses to it are counted and bounds-checked as global memory's are; host code may use it freely. Registered
// memory stays where the program put it; checks.cpp finds it in g_registered.
#include <unistd.h>

#include <cstdlib>

#include "api.h"
#include "memory.h"

namespace cudaemu {
namespace {
unsigned g_device_flags = cudaDeviceScheduleAuto;  // guarded by g_api_mutex

// The page-locked memory (kHostAlloc or a registration) holding p, or null.
Allocation* page_locked_at(const void* p) {
    if (in_arena(p)) {
        Allocation* al = live_allocation_containing(p, 1);
        return al && al->kind == Allocation::Kind::kHostAlloc ? al : nullptr;
    }
    Allocation* near = nullptr;
    return registered_range(reinterpret_cast<uintptr_t>(p), 1, &near);
}
}  // namespace
}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

cudaError_t cudaHostAllocEmulated(void** ptr, size_t bytes, unsigned int flags, const char* name, const char* file,
                                  int line) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!ptr || flags > (cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
        return record(cudaErrorInvalidValue);
    if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
    *ptr = nullptr;
    if (bytes == 0) return cudaSuccess;
    Allocation* al = allocate(bytes, name, file, line);
    if (!al) return record(cudaErrorMemoryAllocation);
    al->kind = Allocation::Kind::kHostAlloc;
    al->host_flags = flags;
    *ptr = reinterpret_cast<void*>(al->base);
    return cudaSuccess;
}

// The C entry points CUDA exports; a program's calls go through cudaemu_host_memory.h's macros to the one above.
cudaError_t(cudaHostAlloc)(void** ptr, size_t bytes, unsigned int flags) {
    return cudaHostAllocEmulated(ptr, bytes, flags, "cudaHostAlloc", "", 0);
}
cudaError_t(cudaMallocHost)(void** ptr, size_t bytes) {
    return cudaHostAllocEmulated(ptr, bytes, cudaHostAllocDefault, "cudaMallocHost", "", 0);
}

cudaError_t cudaFreeHost(void* ptr) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
    if (!ptr) return cudaSuccess;
    Allocation* al = live_allocation_containing(ptr, 1);
    if (!al || al->kind != Allocation::Kind::kHostAlloc || al->base != reinterpret_cast<uintptr_t>(ptr))
        return record(cudaErrorInvalidValue);
    release(*al);
    return cudaSuccess;
}

// Page-locks (here: records) the program's own memory. A range that overlaps page-locked memory, registered or
// from cudaHostAlloc, is refused as a GPU refuses it.
cudaError_t cudaHostRegisterEmulated(void* ptr, size_t bytes, unsigned int flags, const char* name, const char* file,
                                     int line) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    // No I/O memory to map here, and no read-only mappings (hostRegisterReadOnlySupported is 0)
    if (!ptr || bytes == 0 || (flags & ~unsigned(cudaHostRegisterPortable | cudaHostRegisterMapped)))
        return record(cudaErrorInvalidValue);
    if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
    const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
    if (a + bytes < a) return record(cudaErrorInvalidValue);
    // cudaMalloc'd, or page-locked already by cudaHostAlloc: the H100 (CUDA 13) answers cudaErrorInvalidValue to both
    if (in_arena(ptr) || a + bytes - g_arena_base <= g_arena_size) return record(cudaErrorInvalidValue);
    Allocation* al = register_host_range(a, bytes, name, file, line);
    if (!al) return record(cudaErrorHostMemoryAlreadyRegistered);
    al->host_flags = flags;
    return cudaSuccess;
}

cudaError_t(cudaHostRegister)(void* ptr, size_t bytes, unsigned int flags) {
    return cudaHostRegisterEmulated(ptr, bytes, flags, "cudaHostRegister", "", 0);
}

cudaError_t cudaHostUnregister(void* ptr) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!ptr) return record(cudaErrorInvalidValue);
    if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
    for (Allocation* al : g_registered) {
        if (al->base == reinterpret_cast<uintptr_t>(ptr)) {
            unregister_host_range(*al);
            return cudaSuccess;
        }
    }
    return record(cudaErrorHostMemoryNotRegistered);
}

cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!device_ptr || !host_ptr || flags != 0) return record(cudaErrorInvalidValue);
    if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
    if (!page_locked_at(host_ptr)) return record(cudaErrorInvalidValue);
    *device_ptr = host_ptr;  // unified addressing: one address in both spaces
    return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned int* flags, void* host_ptr) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!flags || !host_ptr) return record(cudaErrorInvalidValue);
    if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
    // As the H100 (CUDA 13) answers: all page-locked memory is mapped (cudaHostAllocMapped), allocated or registered;
    // write-combining is kept, portability is not reported.
    const Allocation* al = page_locked_at(host_ptr);
    if (!al) return record(cudaErrorInvalidValue);
    *flags = cudaHostAllocMapped |
             (al->kind == Allocation::Kind::kHostAlloc ? al->host_flags & cudaHostAllocWriteCombined : 0u);
    return cudaSuccess;
}

// How the host thread waits for the device (spin, yield or block) makes no difference here, where every call
// returns with its work done; the flags are checked and kept, as a GPU keeps them.
cudaError_t cudaSetDeviceFlags(unsigned int flags) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    const unsigned schedule = flags & cudaDeviceScheduleMask;
    if ((flags & ~unsigned(cudaDeviceMask)) ||
        (schedule != cudaDeviceScheduleAuto && schedule != cudaDeviceScheduleSpin &&
         schedule != cudaDeviceScheduleYield && schedule != cudaDeviceScheduleBlockingSync))
        return record(cudaErrorInvalidValue);
    g_device_flags = flags;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!flags) return record(cudaErrorInvalidValue);
    *flags = g_device_flags | cudaDeviceMapHost;  // mapping is implicit with unified addressing, as CUDA reports it
    return cudaSuccess;
}

cudaError_t cudaMallocManagedEmulated(void** ptr, size_t bytes, unsigned int flags, const char* name, const char* file,
                                      int line) {
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
