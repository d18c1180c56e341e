// api.cpp — the CUDA runtime API outside device memory (memory.cpp): configuration, the error state, kernel
// launches (validated, run on the worker pool, reported), synchronisation, error names, device properties, events.
#include "api.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "include/cudaemu.h"
#include "kernels.h"
#include "memory.h"
#include "properties.h"
#include "report.h"
#include "scheduler.h"

namespace cudaemu {

namespace {

uint32_t g_launch_serial = 0;  // launches so far (Launch::serial)

// Each worker maps 1024 fiber stacks, each with a guard page: about 2 × 1024 memory mappings. Linux allows a process
// vm.max_map_count of them (65,530 by default), and cudaMalloc and the libraries need some too: past that, every
// allocation fails. The most workers whose stacks fit with room to spare.
unsigned most_workers() {
    long mappings = 65530;
    if (FILE* f = fopen("/proc/sys/vm/max_map_count", "r")) {
        if (fscanf(f, "%ld", &mappings) != 1) mappings = 65530;
        fclose(f);
    }
    const long per_worker = 2 * 1024 + 16, reserve = 4096;
    return static_cast<unsigned>(std::max(1L, (mappings - reserve) / per_worker));
}

}  // namespace

const Config& config() {
    static const Config c = [] {
        Config c;
        unsigned hw = std::thread::hardware_concurrency();
        c.workers = hw ? hw : 1;
        if (const char* s = getenv("CUDAEMU_THREADS"); s && atoi(s) > 0) c.workers = static_cast<unsigned>(atoi(s));
        c.workers = std::min(c.workers, most_workers());  // a 32-thread machine would otherwise run out of mappings
        if (const char* s = getenv("CUDAEMU_TIMEOUT"); s && atof(s) > 0) c.timeout_s = atof(s);
        if (const char* s = getenv("CUDAEMU_STATS"); s && *s) c.stats_path = s;
        if (const char* s = getenv("CUDAEMU_QUIET"); s && *s && strcmp(s, "0") != 0) c.quiet = true;
        if (const char* s = getenv("CUDAEMU_REQUESTS"); s && *s && strcmp(s, "0") != 0) c.requests = true;
        if (const char* s = getenv("CUDAEMU_STACK_KB"); s && atoi(s) >= 16) c.stack_bytes = size_t(atoi(s)) * 1024;
        return c;
    }();
    return c;
}

std::mutex g_api_mutex;
cudaError_t g_last_error = cudaSuccess;
cudaError_t g_sticky_error = cudaSuccess;
cudaError_t g_pending_error = cudaSuccess;  // from the last launch, returned by the next synchronising call

cudaError_t record(cudaError_t e) {
    if (e != cudaSuccess) g_last_error = e;  // the latest error, as on a GPU (tests/emu/programs/constant_memory.cu)
    return e;
}

cudaError_t record_locked(cudaError_t e) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    return record(e);
}

// A synchronising call (cudaDeviceSynchronize, cudaMemcpy, ...) first reports what a kernel did.
cudaError_t sync_status() {
    if (g_pending_error != cudaSuccess) {
        g_sticky_error = g_pending_error;
        g_pending_error = cudaSuccess;
    }
    return g_sticky_error;
}

namespace {

std::string dims(dim3 d) {
    return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// Whether a GPU would start this launch; if not, the error it gives and the rule that was broken, in words.
bool valid_launch(const void* function, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, cudaError_t* error,
                  std::string* rule) {
    // CUDA 13 on an H100 answers every one of these with cudaErrorInvalidValue (older runtimes said
    // cudaErrorInvalidConfiguration); checked on the device with tests/emu/programs/launch_config.cu.
    uint64_t threads = uint64_t(block.x) * block.y * block.z;
    *error = cudaErrorInvalidValue;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0)
        *rule =
            "every grid dimension must be at least 1 (a grid of N / TILE blocks rounds down to 0 when N < TILE, and "
            "leaves the last partial tile out otherwise; ceil_div rounds up)";
    else if (block.x == 0 || block.y == 0 || block.z == 0)
        *rule = "every block dimension must be at least 1";
    else if (block.x > 1024 || block.y > 1024 || block.z > 64 || threads > 1024)
        *rule = "a block has at most 1024 threads (x and y at most 1024, z at most 64); this one has " +
                std::to_string(threads);
    else if (grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535)
        *rule = "a grid is at most 2147483647 blocks in x and 65535 in y and z";
    else if ((*error = dynamic_shared_error(function, shmem)) != cudaSuccess)
        *rule = std::to_string(shmem) +
                " bytes of dynamic shared memory is more than the kernel may use (48 KB in all "
                "without cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes))";
    else if (!valid_stream(stream))
        *error = cudaErrorInvalidResourceHandle, *rule = "the stream is not one the program created and still has";
    else
        return (*error = cudaSuccess), true;
    return false;
}

}  // namespace

namespace {

// max_blocks: a cooperative launch's limit (every block resident at once), or 0 for an ordinary launch.
cudaError_t launch_grid(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                        ThreadEntry entry, void* closure, uint64_t max_blocks) {
    if (Worker* w = tls_worker; w && w->current) {  // a kernel launching a kernel
        add_diag(*w, DiagKind::kUnsupported, w->current->linear, 0, 0,
                 "kernel code at " + std::string(site.file) + ":" + std::to_string(site.line) + " launches kernel '" +
                     site.kernel + "': dynamic parallelism is not supported by the CPU emulator");
        abort_block(*w, cudaErrorLaunchFailure);
    }
    std::lock_guard<std::mutex> api(g_api_mutex);
    LaunchReport report;
    report.kernel = site.kernel;
    report.grid = grid;
    report.block = block;
    cudaError_t error = cudaSuccess;
    if (g_sticky_error != cudaSuccess || g_pending_error != cudaSuccess)
        return record(g_sticky_error != cudaSuccess ? g_sticky_error : g_pending_error);
    std::string rule;
    if (valid_launch(site.function, grid, block, shmem, stream, &error, &rule) && max_blocks &&
        uint64_t(grid.x) * grid.y * grid.z > max_blocks) {
        error = cudaErrorCooperativeLaunchTooLarge;
        rule = "a cooperative launch may have at most " + std::to_string(max_blocks) +
               " blocks, as many as the device holds at once";
    }
    if (error != cudaSuccess) {
        record(error);
        report.error = error;
        report.refused = "the launch at " + std::string(site.file) + ":" + std::to_string(site.line) + " with grid " +
                         dims(grid) + " and block " + dims(block) + " was refused with " + cudaGetErrorName(error) +
                         ": " + rule;
        g_reports.push_back(report);
        write_stats_line(report);
        return error;
    }
    Launch L;
    L.site = site;
    L.grid = grid;
    L.block = block;
    L.threads_per_block = block.x * block.y * block.z;
    L.total_blocks = uint64_t(grid.x) * grid.y * grid.z;
    L.entry = entry;
    L.closure = closure;
    L.dynamic_shared_bytes = shmem;
    L.start = std::chrono::steady_clock::now();
    L.cooperative = max_blocks != 0;
    L.serial = ++g_launch_serial;
    if (!L.cooperative && L.total_blocks > 1 && L.total_blocks <= Launch::kOrderedBlocksMax) {
        L.orders.reset(new std::atomic<uint8_t>[L.total_blocks]());
        L.finished.reset(new std::atomic<uint8_t>[L.total_blocks]());
    }
    g_abort_kernel.store(false);
    watch(&L);
    run_grid(L);
    watch(nullptr);
    finish_report(report, all_workers());
    if (report.error != cudaSuccess) g_pending_error = report.error;
    print_report(report);
    write_stats_line(report);
    g_reports.push_back(std::move(report));
    return cudaSuccess;  // a fault in the kernel shows at the next synchronising call, as on a GPU
}

}  // namespace

cudaError_t launch(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, ThreadEntry entry,
                   void* closure) {
    return launch_grid(site, grid, block, shmem, stream, entry, closure, 0);
}

// A cooperative launch may have as many blocks as the device holds at once: the occupancy API's blocks per
// multiprocessor times the multiprocessors.
cudaError_t launch_cooperative(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                               ThreadEntry entry, void* closure) {
    int per_sm = 0;
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    const cudaError_t occupancy =
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, site.function, int(block.x * block.y * block.z), shmem);
    const uint64_t max_blocks =
        occupancy == cudaSuccess ? std::max<uint64_t>(1, uint64_t(per_sm) * prop.multiProcessorCount) : 1;
    return launch_grid(site, grid, block, shmem, stream, entry, closure, max_blocks);
}

}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

cudaError_t cudaDeviceSynchronize(void) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    return record(sync_status());
}

cudaError_t cudaDeviceReset(void) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    for (auto& al : g_allocations)  // __device__ and __constant__ variables stay, as the program's module does
        if (al->live && al->kind != Allocation::Kind::kDeviceVariable && al->kind != Allocation::Kind::kConstant)
            release(*al);
    while (!g_registered.empty()) unregister_host_range(*g_registered.back());  // the context's registrations too
    g_last_error = g_sticky_error = g_pending_error = cudaSuccess;
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    cudaError_t e = g_sticky_error != cudaSuccess ? g_sticky_error : g_last_error;
    g_last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    return g_sticky_error != cudaSuccess ? g_sticky_error : g_last_error;
}

const char* cudaGetErrorName(cudaError_t error) {
    switch (error) {
#define CUDAEMU_NAME(e) \
    case e:             \
        return #e;
        CUDAEMU_NAME(cudaSuccess)
        CUDAEMU_NAME(cudaErrorInvalidValue)
        CUDAEMU_NAME(cudaErrorMemoryAllocation)
        CUDAEMU_NAME(cudaErrorInitializationError)
        CUDAEMU_NAME(cudaErrorInvalidConfiguration)
        CUDAEMU_NAME(cudaErrorInvalidPitchValue)
        CUDAEMU_NAME(cudaErrorInvalidSymbol)
        CUDAEMU_NAME(cudaErrorInvalidDevicePointer)
        CUDAEMU_NAME(cudaErrorInvalidMemcpyDirection)
        CUDAEMU_NAME(cudaErrorInvalidDeviceFunction)
        CUDAEMU_NAME(cudaErrorNoDevice)
        CUDAEMU_NAME(cudaErrorInvalidDevice)
        CUDAEMU_NAME(cudaErrorInvalidResourceHandle)
        CUDAEMU_NAME(cudaErrorNotReady)
        CUDAEMU_NAME(cudaErrorIllegalAddress)
        CUDAEMU_NAME(cudaErrorLaunchOutOfResources)
        CUDAEMU_NAME(cudaErrorLaunchTimeout)
        CUDAEMU_NAME(cudaErrorAssert)
        CUDAEMU_NAME(cudaErrorIllegalInstruction)
        CUDAEMU_NAME(cudaErrorMisalignedAddress)
        CUDAEMU_NAME(cudaErrorHostMemoryAlreadyRegistered)
        CUDAEMU_NAME(cudaErrorHostMemoryNotRegistered)
        CUDAEMU_NAME(cudaErrorLaunchFailure)
        CUDAEMU_NAME(cudaErrorCooperativeLaunchTooLarge)
        CUDAEMU_NAME(cudaErrorUnknown)
#undef CUDAEMU_NAME
    }
    return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
    switch (error) {
        case cudaSuccess:
            return "no error";
        case cudaErrorInvalidValue:
            return "invalid argument";
        case cudaErrorMemoryAllocation:
            return "out of memory";
        case cudaErrorInitializationError:
            return "initialization error";
        case cudaErrorInvalidConfiguration:
            return "invalid configuration argument";
        case cudaErrorInvalidPitchValue:
            return "invalid pitch argument";
        case cudaErrorInvalidSymbol:
            return "invalid device symbol";
        case cudaErrorInvalidDevicePointer:
            return "invalid device pointer";
        case cudaErrorInvalidMemcpyDirection:
            return "invalid copy direction for memcpy";
        case cudaErrorInvalidDeviceFunction:
            return "invalid device function";
        case cudaErrorNoDevice:
            return "no CUDA-capable device is detected";
        case cudaErrorInvalidDevice:
            return "invalid device ordinal";
        case cudaErrorInvalidResourceHandle:
            return "invalid resource handle";
        case cudaErrorNotReady:
            return "device not ready";
        case cudaErrorIllegalAddress:
            return "an illegal memory access was encountered";
        case cudaErrorLaunchOutOfResources:
            return "too many resources requested for launch";
        case cudaErrorLaunchTimeout:
            return "the launch timed out and was terminated";
        case cudaErrorAssert:
            return "device-side assert triggered";
        case cudaErrorIllegalInstruction:
            return "an illegal instruction was encountered";
        case cudaErrorMisalignedAddress:
            return "misaligned address";
        case cudaErrorHostMemoryAlreadyRegistered:
            return "part or all of the requested memory range is already mapped";
        case cudaErrorHostMemoryNotRegistered:
            return "pointer does not correspond to a registered memory region";
        case cudaErrorLaunchFailure:
            return "unspecified launch failure";
        case cudaErrorCooperativeLaunchTooLarge:
            return "too many blocks in cooperative launch";
        case cudaErrorUnknown:
            return "unknown error";
    }
    return "unknown error";
}

cudaError_t cudaGetDeviceCount(int* count) {
    if (!count) return record_locked(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
    if (!device) return record_locked(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    return device == 0 ? cudaSuccess : record(cudaErrorInvalidDevice);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
    if (!prop) return record_locked(cudaErrorInvalidValue);
    if (device != 0) return record_locked(cudaErrorInvalidDevice);
    *prop = cudaDeviceProp{};
    set_documented_properties(prop);  // properties.cpp; the fields set below come after it
    snprintf(prop->name, sizeof prop->name, "cudaemu CPU emulator (%u worker threads)", config().workers);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    prop->totalGlobalMem = pages > 0 && page > 0 ? size_t(pages) * size_t(page) : 0;
    prop->sharedMemPerBlock = 48 * 1024;
    prop->regsPerBlock = 65536;
    prop->warpSize = 32;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = 1024, prop->maxThreadsDim[1] = 1024, prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 2147483647, prop->maxGridSize[1] = 65535, prop->maxGridSize[2] = 65535;
    prop->totalConstMem = 64 * 1024;
    prop->major = 9;  // an H100's: the semantics the emulator follows (what sm_90 adds beyond them is refused by name)
    prop->minor = 0;
    // An H100 SXM's 132, whatever the worker count: a program that sizes its work by the multiprocessors (a split of
    // K, a grid-stride grid, a cooperative grid) then makes the same choices here as on the GPU, and on every
    // machine, so a student's run and the class's grading (one worker) take the same path.
    prop->multiProcessorCount = 132;
    prop->maxThreadsPerMultiProcessor = 2048;
    prop->sharedMemPerMultiprocessor = 233472;  // an H100's: the opt-in per-block maximum and 1 KiB reserved
    prop->regsPerMultiprocessor = 65536;
    prop->sharedMemPerBlockOptin = CUDAEMU_DYNAMIC_SHARED_MAX;
    prop->maxBlocksPerMultiProcessor = 32;
    prop->managedMemory = 1;
    prop->concurrentKernels = 1;
    prop->unifiedAddressing = 1;
    return cudaSuccess;
}

}  // extern "C"
