// Stream-ordered allocation: cudaMallocAsync on the null stream and on a created stream, kernels that write and
// read the memory in stream order, cudaFreeAsync and a second allocation after it, the default memory pool's
// release threshold set and read back, and the errors a GPU gives for a null pointer and for memory the runtime
// did not allocate.
//
// Build: nvcc -arch=sm_90 -o malloc_async tests/emu/programs/malloc_async.cu

#include <cstdint>

#include "program.h"

__global__ void fill_kernel(int* x, int value, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = value + i;
}

__global__ void scale_kernel(const int* in, int* out, int factor, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * factor;
}

int main() {
    const int n = 3000;  // not a multiple of the block: the last block's guard matters
    const size_t bytes = n * sizeof(int);
    const int blocks = (n + 255) / 256;

    int pools = -1;
    print_error("attribute_memory_pools", cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0));
    std::printf("memory_pools_supported: %d\n", pools);

    // The default pool keeps freed memory up to its release threshold (0 by default: none past a synchronisation)
    cudaMemPool_t pool;
    print_error("default_mem_pool", cudaDeviceGetDefaultMemPool(&pool, 0));
    uint64_t threshold = 1;
    print_error("get_release_threshold", cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    std::printf("release_threshold_default: %llu\n", static_cast<unsigned long long>(threshold));
    uint64_t keep = uint64_t(64) << 20;
    print_error("set_release_threshold", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    threshold = 0;
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    std::printf("release_threshold_set: %llu\n", static_cast<unsigned long long>(threshold));

    // The null stream: allocate, fill, copy back
    int* d_in = nullptr;
    print_error("malloc_async_null_stream", cudaMallocAsync(&d_in, bytes, 0));
    fill_kernel<<<blocks, 256, 0, 0>>>(d_in, 7, n);
    print_error("launch_fill", cudaGetLastError());
    std::vector<int> got(n), want(n);
    CHECK(cudaMemcpy(got.data(), d_in, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) want[i] = 7 + i;
    print_compare("null_stream_values", got, want);

    // A created stream: its allocation is usable by the work that follows it on the stream
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaDeviceSynchronize());  // d_in's fill, on the null stream, is done before the other stream reads it
    int* d_out = nullptr;
    print_error("malloc_async_stream", cudaMallocAsync(&d_out, bytes, stream));
    scale_kernel<<<blocks, 256, 0, stream>>>(d_in, d_out, 3, n);
    print_error("launch_scale", cudaGetLastError());
    print_error("memcpy_async_out", cudaMemcpyAsync(got.data(), d_out, bytes, cudaMemcpyDeviceToHost, stream));
    print_error("free_async_in", cudaFreeAsync(d_in, stream));
    print_error("free_async_out", cudaFreeAsync(d_out, stream));
    print_error("stream_sync", cudaStreamSynchronize(stream));
    for (int i = 0; i < n; ++i) want[i] = 3 * (7 + i);
    print_compare("stream_values", got, want);

    // A second allocation after the frees, through a void** as C code writes it, freed on another stream
    void* d_again = nullptr;
    print_error("malloc_async_again", cudaMallocAsync(&d_again, bytes, stream));
    fill_kernel<<<blocks, 256, 0, stream>>>(static_cast<int*>(d_again), -5, n);
    print_error("launch_fill_again", cudaGetLastError());
    print_error("memcpy_async_again", cudaMemcpyAsync(got.data(), d_again, bytes, cudaMemcpyDeviceToHost, stream));
    print_error("stream_sync_again", cudaStreamSynchronize(stream));
    for (int i = 0; i < n; ++i) want[i] = -5 + i;
    print_compare("again_values", got, want);
    print_error("free_async_per_thread_stream", cudaFreeAsync(d_again, cudaStreamPerThread));
    print_error("sync_after_frees", cudaDeviceSynchronize());

    // Errors: nowhere to put the pointer; memory the runtime did not allocate. Neither is sticky.
    print_error("malloc_async_null_pointer", cudaMallocAsync(static_cast<void**>(nullptr), bytes, stream));
    print_error("last_error_after_null_pointer", cudaGetLastError());
    std::vector<int> host(16);
    print_error("free_async_host_pointer", cudaFreeAsync(host.data(), stream));
    print_error("last_error_after_host_pointer", cudaGetLastError());
    print_error("last_error_cleared", cudaGetLastError());

    print_error("stream_destroy", cudaStreamDestroy(stream));
    return 0;
}
