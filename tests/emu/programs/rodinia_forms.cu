// Forms of valid CUDA that Rodinia's programs use (the suite of Che et al., 2009), each in a small kernel: two
// kernels that declare the same `extern __shared__` array, a template kernel launched with its template
// arguments deduced, a launch written `<< < ... >> >`, host variables named gridDim and blockDim, a literal 0 for a
// pointer argument, and the include guards of CUDA's driver_types.h and cuda_runtime.h, which NVIDIA's helper_cuda.h
// tests before it defines checkCudaErrors and findCudaDevice.
//
// Build: nvcc -arch=sm_90 -o rodinia_forms tests/emu/programs/rodinia_forms.cu

#include "program.h"

// Each kernel reverses its block's slice through dynamic shared memory, one of floats and one of ints, both through
// the bytes of `buffer` (each declaration is the same block's one buffer).
__global__ void reverse_floats_kernel(float* data) {
    extern __shared__ unsigned char buffer_bytes[];
    float* buffer = reinterpret_cast<float*>(buffer_bytes);
    const int t = threadIdx.x;
    buffer[t] = data[blockIdx.x * blockDim.x + t];
    __syncthreads();
    data[blockIdx.x * blockDim.x + t] = buffer[blockDim.x - 1 - t];
}

__global__ void reverse_ints_kernel(int* data) {
    extern __shared__ unsigned char buffer_bytes[];
    int* buffer = reinterpret_cast<int*>(buffer_bytes);
    const int t = threadIdx.x;
    buffer[t] = data[blockIdx.x * blockDim.x + t];
    __syncthreads();
    data[blockIdx.x * blockDim.x + t] = buffer[blockDim.x - 1 - t];
}

// out[i] = factor * in[i]: T and its factor deduced from the launch's arguments
template <typename T>
__global__ void scale_kernel(const T* in, T* out, T factor, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = factor * in[i];
}

// out[i] += bias[i], or += 1 where no bias is given (a null pointer)
__global__ void add_bias_kernel(int* out, const int* bias, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += bias ? bias[i] : 1;
}

int main() {
#ifdef __DRIVER_TYPES_H__
    std::printf("driver_types_h: defined\n");
#else
    std::printf("driver_types_h: not defined\n");
#endif
#ifdef __CUDA_RUNTIME_H__
    std::printf("cuda_runtime_h: defined\n");
#else
    std::printf("cuda_runtime_h: not defined\n");
#endif
    const int n = 256, block = 64;

    std::vector<float> floats(n);
    std::vector<int> ints(n);
    for (int i = 0; i < n; ++i) {
        floats[i] = static_cast<float>(i);
        ints[i] = 3 * i;
    }
    float* d_floats = nullptr;
    int* d_ints = nullptr;
    CHECK(cudaMalloc(&d_floats, n * sizeof(float)));
    CHECK(cudaMalloc(&d_ints, n * sizeof(int)));
    CHECK(cudaMemcpy(d_floats, floats.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_ints, ints.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    // host variables named like the built-in ones, as Rodinia's hotspot and srad name theirs
    dim3 gridDim(n / block), blockDim(block);
    reverse_floats_kernel<<<gridDim, blockDim, block * sizeof(float)>>>(d_floats);
    print_error("reverse_floats", cudaGetLastError());
    reverse_ints_kernel<< <gridDim, blockDim, block * sizeof(int)>> >(d_ints);  // spaced as Rodinia's bfs writes it
    print_error("reverse_ints", cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> got_floats(n), want_floats(n);
    std::vector<int> got_ints(n), want_ints(n);
    CHECK(cudaMemcpy(got_floats.data(), d_floats, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got_ints.data(), d_ints, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        const int mirrored = (i / block) * block + block - 1 - i % block;
        want_floats[i] = floats[mirrored];
        want_ints[i] = ints[mirrored];
    }
    print_compare("reversed_floats", got_floats, want_floats);
    print_compare("reversed_ints", got_ints, want_ints);

    // the template arguments deduced: T = float, then T = int
    float* d_scaled_floats = nullptr;
    int* d_scaled_ints = nullptr;
    CHECK(cudaMalloc(&d_scaled_floats, n * sizeof(float)));
    CHECK(cudaMalloc(&d_scaled_ints, n * sizeof(int)));
    scale_kernel<<<gridDim, blockDim>>>(d_floats, d_scaled_floats, 0.5f, n);
    print_error("scale_floats", cudaGetLastError());
    scale_kernel<<<gridDim, blockDim>>>(d_ints, d_scaled_ints, 2, n);
    print_error("scale_ints", cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got_floats.data(), d_scaled_floats, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got_ints.data(), d_scaled_ints, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        want_floats[i] *= 0.5f;  // halves of integers: exact
        want_ints[i] *= 2;
    }
    print_compare("scaled_floats", got_floats, want_floats);
    print_compare("scaled_ints", got_ints, want_ints);

    // a literal 0 for the bias pointer: no bias, every element + 1; then the ints themselves as the bias
    add_bias_kernel<<<gridDim, blockDim>>>(d_scaled_ints, 0, n);
    print_error("add_no_bias", cudaGetLastError());
    add_bias_kernel<<<gridDim, blockDim>>>(d_scaled_ints, d_ints, n);
    print_error("add_bias", cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got_ints.data(), d_scaled_ints, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) want_ints[i] += 1 + want_ints[i] / 2;
    print_compare("biased_ints", got_ints, want_ints);

    CHECK(cudaFree(d_floats));
    CHECK(cudaFree(d_ints));
    CHECK(cudaFree(d_scaled_floats));
    CHECK(cudaFree(d_scaled_ints));
    return 0;
}
