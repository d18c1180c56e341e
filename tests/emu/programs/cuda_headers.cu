// cuda_headers.cu: headers and keywords that correct CUDA programs use besides the runtime API: <cuda.h> (for its
// version macro), <device_launch_parameters.h> (threadIdx and the other built-ins) and a __noinline__ device
// function next to a library header that writes __attribute__((__noinline__)) itself (<memory>).
//
// Build: nvcc -arch=sm_90 -o cuda_headers tests/emu/programs/cuda_headers.cu
#include <cuda.h>
#include <device_launch_parameters.h>

#include <memory>
#include <vector>

#include "program.h"

__device__ __noinline__ int twice_plus(int x, int y) { return 2 * x + y; }

__global__ void built_ins(int* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = twice_plus(i, gridDim.x);
}

int main() {
    std::printf("cuda_version_at_least_12: %d\n", CUDA_VERSION >= 12000 ? 1 : 0);
    const auto shared = std::make_shared<int>(64);  // <memory>'s shared_ptr: the header's own __noinline__
    int* d = nullptr;
    CHECK(cudaMalloc(&d, *shared * sizeof(int)));
    built_ins<<<2, 32>>>(d);
    CHECK(cudaGetLastError());
    std::vector<int> got(*shared), want(*shared);
    CHECK(cudaMemcpy(got.data(), d, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < *shared; ++i) want[i] = 2 * i + 2;
    print_compare("built_ins", got, want);
    CHECK(cudaFree(d));
    return 0;
}
