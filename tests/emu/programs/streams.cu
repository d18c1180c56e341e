// Streams, events and host memory: work issued on two streams (kernels, cudaMemcpyAsync, cudaMemsetAsync), an
// event one stream waits for, stream and event queries after synchronising, pinned and managed memory, and the
// device and function queries a program makes to size its launches (only values both machines agree on).
//
// Build: nvcc -arch=sm_90 -o streams tests/emu/programs/streams.cu

#include "program.h"

__global__ void add_kernel(float* x, float value, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += value;
}

__global__ void scale_kernel(int* x, int factor, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}

__global__ void dynamic_kernel(float* out) {
    extern __shared__ float scratch[];
    scratch[threadIdx.x] = static_cast<float>(threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = scratch[blockDim.x - 1 - threadIdx.x];
}

int main() {
    const int n = 4096;
    const size_t bytes = n * sizeof(float);
    float* h_a = nullptr;
    float* h_b = nullptr;
    print_error("malloc_host", cudaMallocHost(&h_a, bytes));
    print_error("host_alloc", cudaHostAlloc(&h_b, bytes, cudaHostAllocDefault));
    for (int i = 0; i < n; ++i) h_a[i] = static_cast<float>(i % 100);
    float *d_a = nullptr, *d_b = nullptr;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));

    cudaStream_t s1, s2;
    cudaEvent_t copied, start, stop;
    print_error("stream_create", cudaStreamCreate(&s1));
    print_error("stream_create_non_blocking", cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    print_error("event_create", cudaEventCreate(&copied));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));

    // s1: copy in, add 1, record `copied`. s2: zero d_b, wait for `copied`, copy d_a to d_b, add 2, copy out.
    print_error("record_start", cudaEventRecord(start, s1));
    print_error("memcpy_async_in", cudaMemcpyAsync(d_a, h_a, bytes, cudaMemcpyHostToDevice, s1));
    add_kernel<<<n / 256, 256, 0, s1>>>(d_a, 1.0f, n);
    print_error("launch_s1", cudaGetLastError());
    print_error("record_copied", cudaEventRecord(copied, s1));
    print_error("memset_async", cudaMemsetAsync(d_b, 0, bytes, s2));
    print_error("stream_wait_event", cudaStreamWaitEvent(s2, copied, 0));
    print_error("memcpy_async_d2d", cudaMemcpyAsync(d_b, d_a, bytes, cudaMemcpyDeviceToDevice, s2));
    add_kernel<<<n / 256, 256, 0, s2>>>(d_b, 2.0f, n);
    print_error("launch_s2", cudaGetLastError());
    print_error("memcpy_async_out", cudaMemcpyAsync(h_b, d_b, bytes, cudaMemcpyDeviceToHost, s2));
    print_error("record_stop", cudaEventRecord(stop, s2));
    print_error("stream_sync_s2", cudaStreamSynchronize(s2));
    print_error("stream_sync_s1", cudaStreamSynchronize(s1));
    print_error("stream_query_s1", cudaStreamQuery(s1));
    print_error("event_query_stop", cudaEventQuery(stop));
    print_error("event_sync_stop", cudaEventSynchronize(stop));
    float ms = -1.0f;
    print_error("elapsed", cudaEventElapsedTime(&ms, start, stop));
    std::printf("elapsed_nonnegative: %d\n", ms >= 0.0f ? 1 : 0);
    std::vector<float> got(h_b, h_b + n), want(n);
    for (int i = 0; i < n; ++i) want[i] = static_cast<float>(i % 100) + 3.0f;
    print_compare("stream_values", got, want);

    // The null stream and the per-thread default stream take launches too.
    add_kernel<<<n / 256, 256, 0, 0>>>(d_a, 1.0f, n);
    add_kernel<<<n / 256, 256, 0, cudaStreamPerThread>>>(d_a, 1.0f, n);
    print_error("launch_default_streams", cudaGetLastError());
    print_error("stream_sync_per_thread", cudaStreamSynchronize(cudaStreamPerThread));
    CHECK(cudaMemcpy(got.data(), d_a, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) want[i] = static_cast<float>(i % 100) + 3.0f;
    print_compare("default_stream_values", got, want);

    // An event without timing cannot give an elapsed time.
    cudaEvent_t untimed;
    print_error("event_create_disable_timing", cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
    CHECK(cudaEventRecord(untimed, s1));
    print_error("elapsed_untimed", cudaEventElapsedTime(&ms, start, untimed));
    print_error("last_error_after_untimed", cudaGetLastError());
    cudaEvent_t never;
    CHECK(cudaEventCreate(&never));
    print_error("event_query_never_recorded", cudaEventQuery(never));

    print_error("stream_destroy_s1", cudaStreamDestroy(s1));
    print_error("stream_destroy_s2", cudaStreamDestroy(s2));
    for (cudaEvent_t e : {copied, start, stop, untimed, never}) CHECK(cudaEventDestroy(e));

    // Managed memory: written by the host, changed by a kernel, read by the host after synchronising.
    int* managed = nullptr;
    print_error("malloc_managed", cudaMallocManaged(&managed, 1000 * sizeof(int)));
    for (int i = 0; i < 1000; ++i) managed[i] = i;
    scale_kernel<<<4, 256>>>(managed, 3, 1000);
    print_error("managed_launch", cudaGetLastError());
    print_error("managed_sync", cudaDeviceSynchronize());
    std::vector<int> got_managed(managed, managed + 1000), want_managed(1000);
    for (int i = 0; i < 1000; ++i) want_managed[i] = 3 * i;
    print_compare("managed_values", got_managed, want_managed);
    print_error("free_managed", cudaFree(managed));

    print_error("free_host_a", cudaFreeHost(h_a));
    print_error("free_host_b", cudaFreeHost(h_b));

    // Queries.
    size_t free_bytes = 0, total_bytes = 0;
    print_error("mem_get_info", cudaMemGetInfo(&free_bytes, &total_bytes));
    std::printf("mem_info_ok: %d\n", total_bytes > 0 && free_bytes <= total_bytes ? 1 : 0);
    int value = 0;
    print_error("attribute_warp_size", cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 0));
    std::printf("warp_size: %d\n", value);
    print_error("attribute_max_threads", cudaDeviceGetAttribute(&value, cudaDevAttrMaxThreadsPerBlock, 0));
    std::printf("max_threads_per_block: %d\n", value);
    print_error("attribute_shared_per_block", cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlock, 0));
    std::printf("shared_per_block: %d\n", value);
    print_error("attribute_max_grid_y", cudaDeviceGetAttribute(&value, cudaDevAttrMaxGridDimY, 0));
    std::printf("max_grid_y: %d\n", value);
    print_error("attribute_managed", cudaDeviceGetAttribute(&value, cudaDevAttrManagedMemory, 0));
    std::printf("managed_memory: %d\n", value);
    print_error("attribute_of_missing_device", cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 99));
    print_error("last_error_after_missing_device", cudaGetLastError());
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("sm_count_matches_properties: %d\n", sms == prop.multiProcessorCount ? 1 : 0);

    cudaFuncAttributes attr;
    print_error("func_attributes", cudaFuncGetAttributes(&attr, dynamic_kernel));
    std::printf("func_static_shared: %zu\n", attr.sharedSizeBytes);
    std::printf("func_max_threads: %d\n", attr.maxThreadsPerBlock);
    int blocks = -1;
    print_error("occupancy_256", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, dynamic_kernel, 256, 0));
    std::printf("occupancy_256_threads: %d\n", blocks);
    print_error("occupancy_100k", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, dynamic_kernel, 256,
                                                                                100 * 1024));
    std::printf("occupancy_256_threads_100k_shared: %d\n", blocks);
    print_error("occupancy_1024", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, dynamic_kernel, 1024, 0));
    std::printf("occupancy_1024_threads: %d\n", blocks);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    return 0;
}
