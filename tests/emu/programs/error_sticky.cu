// A kernel that touches memory far outside any allocation is a fatal error. The error is sticky: every later
// call (cudaMemcpy, cudaMalloc, a valid launch, a synchronise) returns it, until cudaDeviceReset(). After the
// reset the emulator works again: a new allocation and a valid launch succeed.
// On a GPU the lines after the reset differ: CUDA documents that after such an error the process must be
// restarted (an H100 answered cudaErrorDevicesUnavailable there), and some far addresses fault as
// cudaErrorInvalidAddressSpace rather than cudaErrorIllegalAddress.
//
// Build: nvcc -arch=sm_90 -o error_sticky tests/emu/programs/error_sticky.cu

#include "program.h"

// 1 GiB past the start of a small allocation: unmapped on a GPU too, so both machines fault
constexpr size_t FAR_AWAY = size_t(1) << 28;  // floats

__global__ void read_far_kernel(const float* in, float* out) {
    out[threadIdx.x] = in[FAR_AWAY + threadIdx.x];  // BUG: far outside in
}

__global__ void fill_kernel(float* out, float value, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = value;
    }
}

int main() {
    const int n = 256;
    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));

    read_far_kernel<<<1, 32>>>(d_in, d_out);
    print_error("launch_bad", cudaGetLastError());
    print_error("sync_after_bad", cudaDeviceSynchronize());
    std::vector<float> out(n);
    print_error("memcpy_after_bad", cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    fill_kernel<<<1, n>>>(d_out, 2.0f, n);
    print_error("launch_valid_after_bad", cudaGetLastError());
    print_error("sync_valid_after_bad", cudaDeviceSynchronize());
    float* d_more = nullptr;
    print_error("malloc_after_bad", cudaMalloc(&d_more, n * sizeof(float)));
    print_error("last_error_after_bad", cudaGetLastError());

    print_error("reset", cudaDeviceReset());
    print_error("last_error_after_reset", cudaGetLastError());
    float* d_fresh = nullptr;
    print_error("malloc_after_reset", cudaMalloc(&d_fresh, n * sizeof(float)));
    fill_kernel<<<1, n>>>(d_fresh, 2.0f, n);
    print_error("launch_after_reset", cudaGetLastError());
    print_error("sync_after_reset", cudaDeviceSynchronize());
    print_error("memcpy_after_reset", cudaMemcpy(out.data(), d_fresh, n * sizeof(float), cudaMemcpyDeviceToHost));
    print_compare("values_after_reset", out, std::vector<float>(n, 2.0f));
    print_error("free_after_reset", cudaFree(d_fresh));
    return 0;
}
