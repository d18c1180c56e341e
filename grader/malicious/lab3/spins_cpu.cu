// Malicious lab 3 kernel: a correct tiled kernel whose launcher, the first time each test program calls it, spins
// for 4 s of CPU before launching. Every test passes under the sandbox's per-process CPU limit, yet the lab would
// take 40 s of CPU to grade where the reference takes under one: a class of such submissions would take hours.
// Must get: stopped by the lab's CPU budget (10 times the reference's CPU time, lab.ini, plus 20 s; plus 5 s in the
// malicious batch), at the third test in the batch; the two before it keep their points.
#include <ctime>

#include "lab.h"

__global__ void matmul_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];
    const int row = blockIdx.y * TILE_WIDTH + threadIdx.y;
    const int col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    float sum = 0.0f;
    for (int phase = 0; phase < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++phase) {
        const int a_col = phase * TILE_WIDTH + threadIdx.x;
        const int b_row = phase * TILE_WIDTH + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = row < M && a_col < K ? A[row * K + a_col] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = b_row < K && col < N ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            sum += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        C[row * N + col] = sum;
    }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    static bool spun = false;
    if (!spun) {  // 4 s of this process's CPU time
        spun = true;
        const clock_t until = clock() + 4 * CLOCKS_PER_SEC;
        while (clock() < until) {
        }
    }
    const dim3 block(TILE_WIDTH, TILE_WIDTH);
    const dim3 grid((N + TILE_WIDTH - 1) / TILE_WIDTH, (M + TILE_WIDTH - 1) / TILE_WIDTH);
    matmul_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
}
