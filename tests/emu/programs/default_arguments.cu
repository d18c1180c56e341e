// Launches that leave parameters to the kernel's default arguments, as CUDA allows for any function: a plain
// kernel, a template, one in a namespace, one launched through a macro. The arguments given are evaluated once
// on the host and converted to their parameter types (a double to float, an int to a pointer's null). Prints one
// verdict per launch.
//
// Build: nvcc -arch=sm_90 -o default_arguments tests/emu/programs/default_arguments.cu

#include "program.h"

constexpr int N = 64;

// out[i] = i * scale + offset; a second output only when given
__global__ void affine_kernel(int* out, int scale = 2, int offset = 7, int* copy = nullptr) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = i * scale + offset;
    if (copy) copy[i] = out[i];
}

template <class T>
__global__ void fill_kernel(T* out, T value = T(3)) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

namespace kernels {
__global__ void halve_kernel(float* out, float by = 0.5f) {
    out[threadIdx.x] = float(threadIdx.x) * by;
}
}  // namespace kernels

#define LAUNCH_ONE_BLOCK(kernel, ...) kernel<<<1, N>>>(__VA_ARGS__)

int host_calls = 0;
int next_scale() {  // an argument with a side effect: a GPU launch evaluates it once
    return ++host_calls + 4;
}

std::vector<int> affine(int scale, int offset) {
    std::vector<int> want(N);
    for (int i = 0; i < N; ++i) want[i] = i * scale + offset;
    return want;
}

int main() {
    int* d_out = nullptr;
    int* d_copy = nullptr;
    float* d_f = nullptr;
    CHECK(cudaMalloc(&d_out, N * sizeof(int)));
    CHECK(cudaMalloc(&d_copy, N * sizeof(int)));
    CHECK(cudaMalloc(&d_f, N * sizeof(float)));
    std::vector<int> got(N), copy(N);
    std::vector<float> got_f(N), want_f(N);

    affine_kernel<<<2, N / 2>>>(d_out);  // every default
    CHECK(cudaMemcpy(got.data(), d_out, N * sizeof(int), cudaMemcpyDeviceToHost));
    print_compare("all_defaults", got, affine(2, 7));

    affine_kernel<<<2, N / 2>>>(d_out, next_scale());  // scale given (5), offset and copy default
    CHECK(cudaMemcpy(got.data(), d_out, N * sizeof(int), cudaMemcpyDeviceToHost));
    print_compare("one_given", got, affine(5, 7));
    std::printf("evaluated_once: %s\n", host_calls == 1 ? "pass" : "FAIL");

    CHECK(cudaMemset(d_copy, 0, N * sizeof(int)));
    affine_kernel<<<1, N, 0, 0>>>(d_out, 3, -1, d_copy);  // every argument given
    CHECK(cudaMemcpy(copy.data(), d_copy, N * sizeof(int), cudaMemcpyDeviceToHost));
    print_compare("all_given", copy, affine(3, -1));

    affine_kernel<<<1, N>>>(d_out, 1.9, 'A');  // converted as for a call: 1.9 -> 1, 'A' -> 65
    CHECK(cudaMemcpy(got.data(), d_out, N * sizeof(int), cudaMemcpyDeviceToHost));
    print_compare("converted", got, affine(1, 65));

    fill_kernel<int><<<1, N>>>(d_out);
    CHECK(cudaMemcpy(got.data(), d_out, N * sizeof(int), cudaMemcpyDeviceToHost));
    print_compare("template_default", got, std::vector<int>(N, 3));

    LAUNCH_ONE_BLOCK(kernels::halve_kernel, d_f);
    CHECK(cudaMemcpy(got_f.data(), d_f, N * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i) want_f[i] = float(i) * 0.5f;
    print_compare("namespace_macro_default", got_f, want_f);

    LAUNCH_ONE_BLOCK(kernels::halve_kernel, d_f, 2.0);
    CHECK(cudaMemcpy(got_f.data(), d_f, N * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i) want_f[i] = float(i) * 2.0f;
    print_compare("namespace_macro_given", got_f, want_f);

    print_error("last_error", cudaGetLastError());
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_copy));
    CHECK(cudaFree(d_f));
    return 0;
}
