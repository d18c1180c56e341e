// device_variable_forms.cu: `__device__` variables declared in forms beside the plain one. A `volatile` one, the
// usual flag between blocks or launches, set by a kernel and read back with cudaMemcpyFromSymbol, then set from the
// host with cudaMemcpyToSymbol and read by a kernel; and arrays with `__align__(16)` before or after the type, read
// as a float4.
//
// Build: nvcc -arch=sm_90 -o device_variable_forms tests/emu/programs/device_variable_forms.cu
#include "program.h"

__device__ volatile int flag;
__device__ volatile float level[2] = {1.5f, 2.5f};
__device__ __align__(16) float weights[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ float __align__(16) offsets[4];

__global__ void raise_flag(int value) { flag = value; }
__global__ void read_back(int* out) {
    out[0] = flag;
    out[1] = static_cast<int>(level[0] * 10.0f + level[1]);
    const float4 w = *reinterpret_cast<const float4*>(weights), o = *reinterpret_cast<const float4*>(offsets);
    out[2] = static_cast<int>(w.x + 10.0f * w.y + 100.0f * w.z + 1000.0f * w.w + o.x + o.y + o.z + o.w);
}

int main() {
    raise_flag<<<1, 1>>>(42);
    CHECK(cudaDeviceSynchronize());
    int got = 0;
    print_error("from_symbol", cudaMemcpyFromSymbol(&got, flag, sizeof got));
    std::printf("flag after the kernel: %d\n", got);
    const int set = 7;
    print_error("to_symbol", cudaMemcpyToSymbol(flag, &set, sizeof set));
    const float shift[4] = {0.25f, 0.25f, 0.25f, 0.25f};
    print_error("offsets_to_symbol", cudaMemcpyToSymbol(offsets, shift, sizeof shift));
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, 3 * sizeof(int)));
    read_back<<<1, 1>>>(d_out);
    int out[3];
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    std::printf("flag the kernel read: %d\n", out[0]);
    std::printf("levels: %d\n", out[1]);
    std::printf("weights and offsets: %d\n", out[2]);
    return 0;
}
