// Mapped and registered host memory: kernels that read and write page-locked host memory through the device
// pointer cudaHostGetDevicePointer gives (cudaHostAlloc with cudaHostAllocMapped, and malloc'd memory registered
// with cudaHostRegister), an atomic counter in mapped memory, the device flags, and the errors a GPU gives for
// registering twice and unregistering what was never registered.
//
// Build: nvcc -arch=sm_90 -o mapped_host_memory tests/emu/programs/mapped_host_memory.cu

#include <cstdint>

#include "program.h"

__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void square_in_place_kernel(int* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i];
}

__global__ void count_odd_kernel(const int* x, int n, unsigned int* odd) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (x[i] & 1)) atomicAdd(odd, 1u);
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("can_map_host_memory: %d\n", prop.canMapHostMemory);
    int value = -1;
    print_error("attribute_can_map", cudaDeviceGetAttribute(&value, cudaDevAttrCanMapHostMemory, 0));
    std::printf("attribute_can_map_value: %d\n", value);
    print_error("attribute_host_register", cudaDeviceGetAttribute(&value, cudaDevAttrHostRegisterSupported, 0));
    std::printf("attribute_host_register_value: %d\n", value);
    print_error("attribute_gpu_overlap", cudaDeviceGetAttribute(&value, cudaDevAttrGpuOverlap, 0));
    std::printf("attribute_gpu_overlap_value: %d\n", value);
    print_error("attribute_async_engines", cudaDeviceGetAttribute(&value, cudaDevAttrAsyncEngineCount, 0));
    std::printf("async_engines_at_least_two: %d\n", value >= 2 ? 1 : 0);

    print_error("set_device_flags", cudaSetDeviceFlags(cudaDeviceMapHost | cudaDeviceScheduleBlockingSync));
    unsigned int flags = 0;
    print_error("get_device_flags", cudaGetDeviceFlags(&flags));
    std::printf("device_flags_schedule_blocking_sync: %d\n",
                (flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync ? 1 : 0);
    std::printf("device_flags_map_host: %d\n", (flags & cudaDeviceMapHost) ? 1 : 0);

    // cudaHostAlloc'd mapped memory, used by a kernel through its device pointers
    const int n = 3000;  // not a multiple of the block size
    const size_t bytes = n * sizeof(float);
    float *a = nullptr, *b = nullptr, *c = nullptr;
    print_error("host_alloc_a", cudaHostAlloc(&a, bytes, cudaHostAllocMapped));
    print_error("host_alloc_b", cudaHostAlloc(&b, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    print_error("host_alloc_c", cudaHostAlloc(&c, bytes, cudaHostAllocMapped | cudaHostAllocWriteCombined));
    for (int i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i % 97);
        b[i] = static_cast<float>(3 * i % 89);
        c[i] = -1.0f;
    }
    float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
    print_error("device_pointer_a", cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_a), a, 0));
    print_error("device_pointer_b", cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_b), b, 0));
    print_error("device_pointer_c", cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_c), c, 0));
    unsigned int alloc_flags = 0;
    print_error("host_get_flags_b", cudaHostGetFlags(&alloc_flags, b));
    std::printf("host_flags_b_mapped_portable: %d\n",
                (alloc_flags & (cudaHostAllocMapped | cudaHostAllocPortable)) ==
                        (cudaHostAllocMapped | cudaHostAllocPortable)
                    ? 1
                    : 0);
    add_kernel<<<(n + 255) / 256, 256>>>(d_a, d_b, d_c, n);
    print_error("launch_mapped", cudaGetLastError());
    print_error("sync_mapped", cudaDeviceSynchronize());
    std::vector<float> got(c, c + n), want(n);
    for (int i = 0; i < n; ++i) want[i] = static_cast<float>(i % 97) + static_cast<float>(3 * i % 89);
    print_compare("mapped_sum", got, want);
    // page-locked memory is already registered
    print_error("register_host_alloc", cudaHostRegister(a, bytes, cudaHostRegisterDefault));
    print_error("last_error_after_register_host_alloc", cudaGetLastError());

    // malloc'd memory, registered and mapped: squared in place, then its odd squares counted in mapped memory
    const int m = 5000;
    const size_t page = 4096;
    const size_t m_bytes = (m * sizeof(int) + page - 1) / page * page;
    void* raw = std::malloc(m_bytes + page);
    int* x = reinterpret_cast<int*>((reinterpret_cast<uintptr_t>(raw) + page - 1) / page * page);
    for (int i = 0; i < m; ++i) x[i] = i - 2500;
    print_error("register", cudaHostRegister(x, m_bytes, cudaHostRegisterMapped));
    print_error("register_again", cudaHostRegister(x, m_bytes, cudaHostRegisterMapped));
    print_error("last_error_after_register_again", cudaGetLastError());
    int* d_x = nullptr;
    print_error("device_pointer_x", cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_x), x, 0));
    unsigned int* odd = nullptr;
    print_error("malloc_host_counter", cudaMallocHost(&odd, sizeof(unsigned int)));
    *odd = 0;
    square_in_place_kernel<<<(m + 127) / 128, 128>>>(d_x, m);
    count_odd_kernel<<<(m + 127) / 128, 128>>>(d_x, m, odd);  // the host pointer: one address space
    print_error("launch_registered", cudaGetLastError());
    print_error("sync_registered", cudaDeviceSynchronize());
    std::vector<int> got_x(x, x + m), want_x(m);
    unsigned int want_odd = 0;
    for (int i = 0; i < m; ++i) {
        want_x[i] = (i - 2500) * (i - 2500);
        want_odd += want_x[i] & 1;
    }
    print_compare("registered_squares", got_x, want_x);
    std::printf("odd_count_matches: %d\n", *odd == want_odd ? 1 : 0);

    print_error("unregister", cudaHostUnregister(x));
    print_error("unregister_again", cudaHostUnregister(x));
    print_error("last_error_after_unregister_again", cudaGetLastError());
    int on_stack = 0;
    print_error("unregister_never_registered", cudaHostUnregister(&on_stack));
    print_error("last_error_after_never_registered", cudaGetLastError());
    print_error("last_error_cleared", cudaGetLastError());
    std::free(raw);

    print_error("free_host_a", cudaFreeHost(a));
    print_error("free_host_b", cudaFreeHost(b));
    print_error("free_host_c", cudaFreeHost(c));
    print_error("free_host_counter", cudaFreeHost(odd));
    return 0;
}
