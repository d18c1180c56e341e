// __constant__ and __device__ variables: initial values, cudaMemcpyToSymbol / cudaMemcpyFromSymbol (with an
// offset), cudaGetSymbolAddress and cudaGetSymbolSize, a 1D convolution whose mask is in constant memory (PMPP's
// example), a __device__ counter updated with atomics, and the errors for a wrong symbol, size or direction.
//
// Build: nvcc -arch=sm_90 -o constant_memory tests/emu/programs/constant_memory.cu

#include "program.h"

constexpr int kMaskWidth = 5;
__constant__ float mask[kMaskWidth];
__constant__ int scale = 3;
__device__ int hits = 0;
__device__ float table[4] = {0.5f, 1.5f, 2.5f, 3.5f};
int host_only = 7;  // not a symbol

// out[i] = scale * sum_j mask[j] * in[i + j - 2], zero outside the input
__global__ void convolution_kernel(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float sum = 0.0f;
        for (int j = 0; j < kMaskWidth; ++j) {
            const int k = i + j - kMaskWidth / 2;
            if (k >= 0 && k < n) sum += mask[j] * in[k];
        }
        out[i] = static_cast<float>(scale) * sum;
        atomicAdd(&hits, 1);
    }
}

__global__ void table_kernel(float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = table[i % 4];
        table[i % 4] += 0.0f;  // __device__ variables are writable
    }
}

int main() {
    const int n = 1000;
    std::vector<float> h_in(n);
    for (int i = 0; i < n; ++i) h_in[i] = static_cast<float>(i % 17) - 8.0f;
    const float h_mask[kMaskWidth] = {1.0f, 2.0f, 4.0f, 2.0f, 1.0f};
    float *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    int initial_scale = 0;
    print_error("from_symbol_initial", cudaMemcpyFromSymbol(&initial_scale, scale, sizeof(int)));
    std::printf("initial_scale: %d\n", initial_scale);
    float initial_table[4] = {};
    print_error("from_symbol_table", cudaMemcpyFromSymbol(initial_table, table, sizeof initial_table));
    std::printf("initial_table: %g %g %g %g\n", initial_table[0], initial_table[1], initial_table[2], initial_table[3]);

    // The mask in two copies: the first two weights, then the other three at an offset.
    print_error("to_symbol_head", cudaMemcpyToSymbol(mask, h_mask, 2 * sizeof(float)));
    print_error("to_symbol_tail", cudaMemcpyToSymbol(mask, h_mask + 2, 3 * sizeof(float), 2 * sizeof(float)));
    convolution_kernel<<<(n + 127) / 128, 128>>>(d_in, d_out, n);
    print_error("convolution_launch", cudaGetLastError());
    print_error("convolution_sync", cudaDeviceSynchronize());
    std::vector<float> got(n), want(n);
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        float sum = 0.0f;
        for (int j = 0; j < kMaskWidth; ++j) {
            const int k = i + j - kMaskWidth / 2;
            if (k >= 0 && k < n) sum += h_mask[j] * h_in[k];
        }
        want[i] = 3.0f * sum;  // small integers: exact on both machines
    }
    print_compare("convolution_values", got, want);
    int h_hits = 0;
    print_error("from_symbol_hits", cudaMemcpyFromSymbol(&h_hits, hits, sizeof(int)));
    std::printf("hits: %d\n", h_hits);

    table_kernel<<<1, 8>>>(d_out, 8);
    CHECK(cudaDeviceSynchronize());
    got.assign(8, 0.0f);
    CHECK(cudaMemcpy(got.data(), d_out, 8 * sizeof(float), cudaMemcpyDeviceToHost));
    print_compare("table_values", got, std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f, 0.5f, 1.5f, 2.5f, 3.5f});

    // A symbol's address is an ordinary device pointer.
    int* d_hits = nullptr;
    print_error("symbol_address", cudaGetSymbolAddress(reinterpret_cast<void**>(&d_hits), hits));
    print_error("memset_through_address", cudaMemset(d_hits, 0, sizeof(int)));
    print_error("from_symbol_after_memset", cudaMemcpyFromSymbol(&h_hits, hits, sizeof(int)));
    std::printf("hits_after_memset: %d\n", h_hits);
    size_t mask_bytes = 0, table_bytes = 0;
    print_error("symbol_size_mask", cudaGetSymbolSize(&mask_bytes, mask));
    print_error("symbol_size_table", cudaGetSymbolSize(&table_bytes, table));
    std::printf("symbol_sizes: %zu %zu\n", mask_bytes, table_bytes);

    // Errors: past the symbol's end, not a symbol, the wrong direction.
    print_error("to_symbol_too_long", cudaMemcpyToSymbol(mask, h_mask, 6 * sizeof(float)));
    print_error("last_error_after_too_long", cudaGetLastError());
    print_error("to_symbol_offset_past_end", cudaMemcpyToSymbol(mask, h_mask, sizeof(float), 5 * sizeof(float)));
    print_error("to_host_variable", cudaMemcpyToSymbol(host_only, h_mask, sizeof(int)));
    print_error("last_error_after_host_variable", cudaGetLastError());
    print_error("address_of_host_variable", cudaGetSymbolAddress(reinterpret_cast<void**>(&d_hits), host_only));
    print_error("to_symbol_device_to_host", cudaMemcpyToSymbol(mask, h_mask, sizeof(float), 0, cudaMemcpyDeviceToHost));
    print_error("last_error_cleared", cudaGetLastError());

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return 0;
}
