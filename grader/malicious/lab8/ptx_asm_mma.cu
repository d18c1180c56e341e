// Malicious lab 8 kernel: mma.sync written as inline PTX in kernel.cu (asm volatile, as common/mma_ptx_gpu.h writes
// it for nvcc) instead of called through mma_ptx.h. The emulator cannot see or check an instruction it is not given:
// on the GPU build the tensor cores would do the work, and the emulator's counts would be of a different kernel.
// Must get: zero, refused at build time: inline assembly in kernel.cu, though mma_ptx.h's own is allowed.
#include <cstdint>

#include "lab.h"

// One warp per 16×8 tile of C, K in steps of 8; the fragments loaded from global memory, zero past the edges.
__device__ __forceinline__ void mma_tf32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ uint32_t element(const float* X, int rows, int cols, int r, int c) {
    return r < rows && c < cols ? __float_as_uint(X[size_t(r) * cols + c]) : 0u;
}

__global__ void matmul_asm_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    float d[4] = {};
    for (int k = 0; k < K; k += 8) {
        const uint32_t a[4] = {element(A, M, K, row0 + g, k + t), element(A, M, K, row0 + g + 8, k + t),
                               element(A, M, K, row0 + g, k + t + 4), element(A, M, K, row0 + g + 8, k + t + 4)};
        const uint32_t b[2] = {element(B, K, N, k + t, col0 + g), element(B, K, N, k + t + 4, col0 + g)};
        mma_tf32(d, a, b);
    }
    for (int i = 0; i < 4; ++i) {
        const int row = row0 + g + 8 * (i / 2), col = col0 + 2 * t + i % 2;
        if (row < M && col < N) C[size_t(row) * N + col] = d[i];
    }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 grid(ceil_div(N, 8), ceil_div(M, 16));
    matmul_asm_kernel<<<grid, 32>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());
}
