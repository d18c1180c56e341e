// Malicious lab 3 kernel: a tiled kernel that computes C in double (fewer float FLOPs than the product needs), and
// calls the emulator's arithmetic counter itself to add the float FLOPs it did not execute. Must get: zero: the
// counter is the emulator's own (emucc calls it with constants and no source line), and confinement refuses any
// other use of it by name and line.
#include "lab.h"

extern "C" void __cudaemu_flops(unsigned, unsigned, unsigned, unsigned, unsigned, unsigned);

__global__ void matmul_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];
    const int row = blockIdx.y * TILE_WIDTH + threadIdx.y;
    const int col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    double sum = 0.0;
    for (int phase = 0; phase < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++phase) {
        const int a_col = phase * TILE_WIDTH + threadIdx.x;
        const int b_row = phase * TILE_WIDTH + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = row < M && a_col < K ? A[row * K + a_col] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = b_row < K && col < N ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            sum += static_cast<double>(As[threadIdx.y][k]) * Bs[k][threadIdx.x];
        }
        __syncthreads();
    }
    __cudaemu_flops(static_cast<unsigned>(K), 0, 0, 0, 0, 0);
    if (row < M && col < N) {
        C[row * N + col] = static_cast<float>(sum);
    }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    const dim3 block(TILE_WIDTH, TILE_WIDTH);
    const dim3 grid((N + TILE_WIDTH - 1) / TILE_WIDTH, (M + TILE_WIDTH - 1) / TILE_WIDTH);
    matmul_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
}
