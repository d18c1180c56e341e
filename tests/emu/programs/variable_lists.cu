// Several __constant__ and __device__ variables in one declaration, as C++ allows and stencil codes write
// (`__constant__ float c_ax, c_bx, c_cx, c_dx;`): scalars, arrays with initialisers, a pointer. Each is its own
// symbol, copied to and from with cudaMemcpyToSymbol/FromSymbol, sized by cudaGetSymbolSize. Prints one verdict
// per check.
//
// Build: nvcc -arch=sm_90 -o variable_lists tests/emu/programs/variable_lists.cu

#include "program.h"

__constant__ float c_a, c_b = 2.0f, c_c, c_d = -1.0f;
__constant__ int c_table[4] = {1, 2, 3, 4}, c_scale[2] = {10, 100};
__device__ int d_hits[3], d_total = 5;
static __device__ int *d_where, d_flag;

// out[0..3]: the scalars; out[4..7]: table * scale[0] + scale[1]
__global__ void read_constants_kernel(float* out) {
    const int i = threadIdx.x;
    const float scalars[4] = {c_a, c_b, c_c, c_d};
    if (i < 4) out[i] = scalars[i];
    else out[i] = float(c_table[i - 4] * c_scale[0] + c_scale[1]);
}

__global__ void count_kernel(int* out) {
    atomicAdd(&d_hits[threadIdx.x % 3], 1);  // 11, 11 and 10 of each block
    if (threadIdx.x == 0) {
        d_where = out;
        d_flag = 1;
        out[0] = d_total;
    }
}

int main() {
    const float a = 0.5f, c = 4.0f;
    CHECK(cudaMemcpyToSymbol(c_a, &a, sizeof(float)));
    CHECK(cudaMemcpyToSymbol(c_c, &c, sizeof(float)));
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, 8 * sizeof(float)));
    read_constants_kernel<<<1, 8>>>(d_out);
    std::vector<float> got(8);
    CHECK(cudaMemcpy(got.data(), d_out, 8 * sizeof(float), cudaMemcpyDeviceToHost));
    print_compare("constants", got, std::vector<float>{0.5f, 2.0f, 4.0f, -1.0f, 110.0f, 120.0f, 130.0f, 140.0f});

    int* d_int = nullptr;
    CHECK(cudaMalloc(&d_int, sizeof(int)));
    count_kernel<<<2, 32>>>(d_int);
    std::vector<int> hits(3);
    int flag = 0, total = 0;
    int* where = nullptr;
    CHECK(cudaMemcpyFromSymbol(hits.data(), d_hits, 3 * sizeof(int)));
    CHECK(cudaMemcpyFromSymbol(&flag, d_flag, sizeof(int)));
    CHECK(cudaMemcpyFromSymbol(&where, d_where, sizeof(int*)));
    CHECK(cudaMemcpy(&total, d_int, sizeof(int), cudaMemcpyDeviceToHost));
    print_compare("device_hits", hits, std::vector<int>{22, 22, 20});
    std::printf("device_scalars: %s\n", flag == 1 && total == 5 && where == d_int ? "pass" : "FAIL");

    size_t sizes[4] = {};
    CHECK(cudaGetSymbolSize(&sizes[0], c_b));
    CHECK(cudaGetSymbolSize(&sizes[1], c_scale));
    CHECK(cudaGetSymbolSize(&sizes[2], d_hits));
    CHECK(cudaGetSymbolSize(&sizes[3], d_where));
    std::printf("symbol_sizes: %zu %zu %zu %zu\n", sizes[0], sizes[1], sizes[2], sizes[3]);
    print_error("last_error", cudaGetLastError());
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_int));
    return 0;
}
