// The ways CUDA code names the kernel it launches: a template whose `<<<` is on the next line, an element of an
// array of kernels, a function pointer, a launch inside a macro, a launch in an included header, template arguments
// that are expressions with `>>` and `>` in them, a kernel overloaded on its parameters (its launch picks the
// overload as a call would), and cudaLaunchKernel with the arguments as an array of pointers to them. Each kernel
// adds a different amount to every element, so the final values say which launches ran, and how often.
//
// Build: nvcc -arch=sm_90 -o launch_forms tests/emu/programs/launch_forms.cu

#include "program.h"
#include "launch_forms.cuh"

// ----------------------------------------------------------------------------
// kernels

template <int AMOUNT>
__global__ void add_kernel(int* data, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += AMOUNT;
}

__global__ void times_two_kernel(int* data, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= 2;
}

__global__ void overloaded_kernel(int* data, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 20000;
}

__global__ void overloaded_kernel(float* data, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = 0.5f;
}

constexpr int SHIFTED = 64;

// ----------------------------------------------------------------------------
// host

#define LAUNCH_1D(kernel, n, ...) kernel<<<((n) + 127) / 128, 128>>>(__VA_ARGS__)

int main() {
    const int n = 1000;
    int* d_data = nullptr;
    CHECK(cudaMalloc(&d_data, n * sizeof(int)));
    CHECK(cudaMemset(d_data, 0, n * sizeof(int)));
    int want = 0;

    add_kernel<100>
        <<<(n + 127) / 128, 128>>>(d_data, n);  // the kernel's name ends the line before
    want += 100;
    print_error("next_line_launch", cudaGetLastError());

    void (*kernels[2])(int*, int) = {add_kernel<10>, times_two_kernel};
    for (int k = 0; k < 2; ++k) {
        kernels[k]<<<(n + 127) / 128, 128>>>(d_data, n);
    }
    want = (want + 10) * 2;
    print_error("array_launch", cudaGetLastError());

    void (*fp)(int*, int) = add_kernel<3>;
    (*fp)<<<(n + 127) / 128, 128>>>(d_data, n);
    fp<<<(n + 127) / 128, 128>>>(d_data, n);
    want += 6;
    print_error("pointer_launch", cudaGetLastError());

    LAUNCH_1D(add_kernel<1000>, n, d_data, n);
    want += 1000;
    print_error("macro_launch", cudaGetLastError());

    add_one(d_data, n);
    want += 1;
    print_error("header_launch", cudaGetLastError());

    add_kernel<(SHIFTED >> 2)><<<(n + 127) / 128, 128>>>(d_data, n);
    add_kernel<(SHIFTED > 2) ? 100 : 200><<<(n + 127) / 128, 128>>>(d_data, n);
    want += 16 + 100;
    print_error("expression_launch", cudaGetLastError());

    float* d_half = nullptr;
    CHECK(cudaMalloc(&d_half, n * sizeof(float)));
    overloaded_kernel<<<(n + 127) / 128, 128>>>(d_data, n);
    overloaded_kernel<<<(n + 127) / 128, 128>>>(d_half, n);
    want += 20000;
    print_error("overloaded_launch", cudaGetLastError());

    int count = n;
    void* arguments[] = {&d_data, &count};
    print_error("launch_kernel", cudaLaunchKernel((const void*)add_kernel<300>, dim3((n + 127) / 128), dim3(128),
                                                  arguments, 0, nullptr));
    want += 300;
    print_error("launch_kernel_too_large", cudaLaunchKernel(reinterpret_cast<const void*>(times_two_kernel), dim3(1),
                                                            dim3(2048), arguments, 0, nullptr));
    print_error("after_refused_launch", cudaGetLastError());
    float half = 0.0f;
    CHECK(cudaMemcpy(&half, d_half + n - 1, sizeof half, cudaMemcpyDeviceToHost));
    std::printf("float_overload: %g\n", half);
    CHECK(cudaFree(d_half));
    print_error("sync", cudaDeviceSynchronize());

    std::vector<int> got(n), expected(n, want);
    CHECK(cudaMemcpy(got.data(), d_data, n * sizeof(int), cudaMemcpyDeviceToHost));
    print_compare("values", got, expected);
    std::printf("value: %d\n", got[n - 1]);
    CHECK(cudaFree(d_data));
    return 0;
}
