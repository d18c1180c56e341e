// Dynamic shared memory: `extern __shared__` arrays sized by the launch's third parameter, several declarations
// naming one buffer, the 48 KiB default limit (static + dynamic), the opt-in with cudaFuncSetAttribute up to the
// device's per-block maximum, and the errors past those limits.
//
// Build: nvcc -arch=sm_90 -o dynamic_shared tests/emu/programs/dynamic_shared.cu

#include "program.h"

// Each block reverses its slice of `in` through a dynamic shared array of blockDim.x floats.
__global__ void reverse_kernel(const float* in, float* out) {
    extern __shared__ float tile[];
    const int t = threadIdx.x;
    const int base = blockIdx.x * blockDim.x;
    tile[t] = in[base + t];
    __syncthreads();
    out[base + t] = tile[blockDim.x - 1 - t];
}

// Two arrays carved out of one buffer (the usual way to have several): n floats, then n ints.
__device__ int* int_part(int n) {
    extern __shared__ __align__(16) unsigned char raw[];  // the same memory as `values` below
    return reinterpret_cast<int*>(raw + n * sizeof(float));
}

__global__ void carve_kernel(const float* in, float* out, int n) {
    extern __shared__ float values[];
    int* counts = int_part(n);
    const int t = threadIdx.x;
    values[t] = in[t];
    counts[t] = t * 3;
    __syncthreads();
    out[t] = values[n - 1 - t] + static_cast<float>(counts[(t + 1) % n]);
}

// Touches `words` ints spread over the whole dynamic buffer: a launch with more than 48 KiB needs the opt-in.
__global__ void big_kernel(int* out, int words) {
    extern __shared__ int big[];
    for (int i = threadIdx.x; i < words; i += blockDim.x) big[i] = i ^ 0x5a5a;
    __syncthreads();
    int sum = 0;
    for (int i = threadIdx.x; i < words; i += blockDim.x) sum += big[words - 1 - i] == ((words - 1 - i) ^ 0x5a5a);
    out[threadIdx.x] = sum;
}

// 16 KiB of static shared memory next to the dynamic buffer.
__global__ void static_and_dynamic_kernel(int* out) {
    __shared__ int fixed[4096];
    extern __shared__ int extra[];
    fixed[threadIdx.x] = static_cast<int>(threadIdx.x);
    extra[threadIdx.x] = 2 * static_cast<int>(threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = fixed[blockDim.x - 1 - threadIdx.x] + extra[threadIdx.x];
}

int main() {
    const int blocks = 3, threads = 128, n = blocks * threads;
    std::vector<float> h_in(n);
    for (int i = 0; i < n; ++i) h_in[i] = static_cast<float>((i * 37) % 101);
    float *d_in = nullptr, *d_out = nullptr;
    int* d_ints = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMalloc(&d_ints, 1024 * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    reverse_kernel<<<blocks, threads, threads * sizeof(float)>>>(d_in, d_out);
    print_error("reverse_launch", cudaGetLastError());
    print_error("reverse_sync", cudaDeviceSynchronize());
    std::vector<float> got(n), want(n);
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) want[i] = h_in[(i / threads) * threads + threads - 1 - i % threads];
    print_compare("reverse_values", got, want);

    const int m = 96;
    carve_kernel<<<1, m, m * (sizeof(float) + sizeof(int))>>>(d_in, d_out, m);
    print_error("carve_launch", cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    got.assign(m, 0.0f);
    want.assign(m, 0.0f);
    CHECK(cudaMemcpy(got.data(), d_out, m * sizeof(float), cudaMemcpyDeviceToHost));
    for (int t = 0; t < m; ++t) want[t] = h_in[m - 1 - t] + static_cast<float>(((t + 1) % m) * 3);
    print_compare("carve_values", got, want);

    // The default limit: 48 KiB of dynamic shared memory, no more.
    cudaFuncAttributes attr;
    print_error("big_get_attributes", cudaFuncGetAttributes(&attr, big_kernel));
    std::printf("big_static_bytes: %zu\n", attr.sharedSizeBytes);
    std::printf("big_max_dynamic_default: %d\n", attr.maxDynamicSharedSizeBytes);
    big_kernel<<<1, 256, 48 * 1024>>>(d_ints, 48 * 1024 / 4);
    print_error("launch_48k", cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    big_kernel<<<1, 256, 48 * 1024 + 4>>>(d_ints, 48 * 1024 / 4 + 1);
    print_error("launch_48k_plus_4_without_opt_in", cudaGetLastError());
    print_error("sync_after_refused_launch", cudaDeviceSynchronize());

    // The opt-in: up to the device's maximum per block.
    int optin = 0;
    print_error("get_optin", cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("optin_bytes: %d\n", optin);
    std::printf("optin_matches_properties: %d\n", static_cast<size_t>(optin) == prop.sharedMemPerBlockOptin ? 1 : 0);
    print_error("set_above_optin",
                cudaFuncSetAttribute(big_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 1));
    print_error("last_error_after_set_above_optin", cudaGetLastError());
    print_error("set_optin", cudaFuncSetAttribute(big_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    print_error("big_get_attributes_after_set", cudaFuncGetAttributes(&attr, big_kernel));
    std::printf("big_max_dynamic_after_set: %d\n", attr.maxDynamicSharedSizeBytes);
    big_kernel<<<1, 256, optin>>>(d_ints, optin / 4);
    print_error("launch_optin", cudaGetLastError());
    print_error("sync_optin", cudaDeviceSynchronize());
    std::vector<int> sums(256);
    CHECK(cudaMemcpy(sums.data(), d_ints, 256 * sizeof(int), cudaMemcpyDeviceToHost));
    int total = 0;
    for (int s : sums) total += s;
    std::printf("big_words_checked: %d of %d\n", total, optin / 4);
    big_kernel<<<1, 256, optin + 4>>>(d_ints, optin / 4);
    print_error("launch_above_optin", cudaGetLastError());
    print_error("set_lower_again", cudaFuncSetAttribute(big_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024));
    big_kernel<<<1, 256, 2048>>>(d_ints, 512);
    print_error("launch_above_lowered_limit", cudaGetLastError());

    // Static shared memory counts against the same limits.
    print_error("mixed_get_attributes", cudaFuncGetAttributes(&attr, static_and_dynamic_kernel));
    std::printf("mixed_static_bytes: %zu\n", attr.sharedSizeBytes);
    std::printf("mixed_max_dynamic_default: %d\n", attr.maxDynamicSharedSizeBytes);
    static_and_dynamic_kernel<<<1, 256, 32 * 1024>>>(d_ints);
    print_error("mixed_launch_48k_total", cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<int> mixed(256), mixed_want(256);
    CHECK(cudaMemcpy(mixed.data(), d_ints, 256 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 256; ++t) mixed_want[t] = 255 - t + 2 * t;
    print_compare("mixed_values", mixed, mixed_want);
    static_and_dynamic_kernel<<<1, 256, 32 * 1024 + 4>>>(d_ints);
    print_error("mixed_launch_above_48k_total", cudaGetLastError());
    print_error("mixed_set_optin_less_static",
                cudaFuncSetAttribute(static_and_dynamic_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     optin - 16 * 1024));
    print_error("mixed_set_optin", cudaFuncSetAttribute(static_and_dynamic_kernel,
                                                         cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    print_error("last_error_after_mixed_set_optin", cudaGetLastError());
    static_and_dynamic_kernel<<<1, 256, optin - 16 * 1024>>>(d_ints);
    print_error("mixed_launch_optin_total", cudaGetLastError());
    print_error("mixed_sync", cudaDeviceSynchronize());

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_ints));
    return 0;
}
