// The runtime's configuration and query calls that programs make around their kernels: versions, cache and
// shared-memory bank preferences, device limits, pointer attributes of each kind of memory, stream priorities and
// flags, and host functions and callbacks enqueued on a stream after a kernel. Prints only what an H100 and the
// emulator agree on (values set and read back, relations, memory types), never a version number or a default.
//
// Build: nvcc -arch=sm_90 -o runtime_config tests/emu/programs/runtime_config.cu

#include <cstdint>

#include "program.h"

__global__ void fill_kernel(int* x, int value, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = value;
}

struct HostWork {
    const int* x;  // read when the host function runs: the kernel before it must have finished
    int n;
    int value;
    int ran = 0;
    int saw_kernel_output = 0;
    cudaError_t callback_status = cudaErrorUnknown;
};

void host_function(void* data) {
    auto* w = static_cast<HostWork*>(data);
    w->ran += 1;
    int same = 1;
    for (int i = 0; i < w->n; ++i) same &= w->x[i] == w->value;
    w->saw_kernel_output = same;
}

void stream_callback(cudaStream_t, cudaError_t status, void* data) {
    auto* w = static_cast<HostWork*>(data);  // printed by main: on a GPU this runs on another thread
    w->callback_status = status;
    w->ran += 1;
}

void print_memory_type(const char* key, const void* p, const void* want_device_pointer,
                       const void* want_host_pointer) {
    cudaPointerAttributes a{};
    const cudaError_t e = cudaPointerGetAttributes(&a, p);
    std::printf("%s: %s type %d device_pointer_ok %d host_pointer_ok %d\n", key, cudaGetErrorName(e),
                static_cast<int>(a.type), a.devicePointer == want_device_pointer ? 1 : 0,
                a.hostPointer == want_host_pointer ? 1 : 0);
}

int main() {
    int runtime = 0, driver = 0;
    print_error("runtime_version", cudaRuntimeGetVersion(&runtime));
    print_error("driver_version", cudaDriverGetVersion(&driver));
    std::printf("runtime_version_is_cudart_version: %d\n", runtime == CUDART_VERSION ? 1 : 0);
    std::printf("driver_supports_runtime: %d\n", driver >= runtime ? 1 : 0);

    print_error("set_cache_config", cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
    cudaFuncCache cache = cudaFuncCachePreferNone;
    print_error("get_cache_config", cudaDeviceGetCacheConfig(&cache));
    std::printf("cache_config_prefer_shared: %d\n", cache == cudaFuncCachePreferShared ? 1 : 0);
    print_error("func_set_cache_config", cudaFuncSetCacheConfig(fill_kernel, cudaFuncCachePreferL1));
    CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferNone));

    print_error("set_limit_stack", cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    size_t limit = 0;
    print_error("get_limit_stack", cudaDeviceGetLimit(&limit, cudaLimitStackSize));
    std::printf("stack_limit_4096: %d\n", limit == 4096 ? 1 : 0);
    print_error("set_limit_heap", cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32u << 20));
    print_error("get_limit_heap", cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
    std::printf("heap_limit_32_mib: %d\n", limit == (32u << 20) ? 1 : 0);

    // where memory lives: one address space, as with unified addressing
    const int n = 1000;
    int *d_x = nullptr, *managed = nullptr, *pinned = nullptr;
    CHECK(cudaMalloc(&d_x, n * sizeof(int)));
    CHECK(cudaMallocManaged(&managed, n * sizeof(int)));
    CHECK(cudaMallocHost(&pinned, n * sizeof(int)));
    const size_t page = 4096;
    void* raw = std::malloc(2 * page);
    int* registered = reinterpret_cast<int*>((reinterpret_cast<uintptr_t>(raw) + page - 1) / page * page);
    CHECK(cudaHostRegister(registered, page, cudaHostRegisterDefault));
    print_memory_type("attributes_device", d_x + 10, d_x + 10, nullptr);
    print_memory_type("attributes_managed", managed, managed, managed);
    print_memory_type("attributes_pinned", pinned + 1, pinned + 1, pinned + 1);
    print_memory_type("attributes_registered", registered, registered, registered);
    cudaPointerAttributes plain{};
    int on_stack = 0;
    print_error("attributes_unregistered", cudaPointerGetAttributes(&plain, &on_stack));
    std::printf("attributes_unregistered_type: %d\n", static_cast<int>(plain.type));
    CHECK(cudaHostUnregister(registered));
    std::free(raw);

    int least = 1, greatest = 1;
    print_error("priority_range", cudaDeviceGetStreamPriorityRange(&least, &greatest));
    std::printf("priority_range_ordered: %d\n", greatest <= least ? 1 : 0);
    cudaStream_t stream;
    print_error("stream_with_priority", cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest));
    int priority = 1;
    unsigned int flags = 0;
    print_error("stream_get_priority", cudaStreamGetPriority(stream, &priority));
    std::printf("stream_priority_is_greatest: %d\n", priority == greatest ? 1 : 0);
    print_error("stream_get_flags", cudaStreamGetFlags(stream, &flags));
    std::printf("stream_flags_non_blocking: %d\n", flags == cudaStreamNonBlocking ? 1 : 0);

    // host work after a kernel on the same stream sees the kernel's results
    HostWork work{managed, n, 7};
    fill_kernel<<<(n + 255) / 256, 256, 0, stream>>>(managed, 7, n);
    print_error("launch", cudaGetLastError());
    print_error("launch_host_func", cudaLaunchHostFunc(stream, host_function, &work));
    print_error("add_callback", cudaStreamAddCallback(stream, stream_callback, &work, 0));
    print_error("stream_sync", cudaStreamSynchronize(stream));
    std::printf("host_work_ran: %d\n", work.ran);
    print_error("callback_status", work.callback_status);
    std::printf("host_function_saw_kernel_output: %d\n", work.saw_kernel_output);
    print_error("stream_destroy", cudaStreamDestroy(stream));

    CHECK(cudaFree(d_x));
    CHECK(cudaFree(managed));
    CHECK(cudaFreeHost(pinned));
    return 0;
}
