// Grader catalogue, lab 2, known WRONG: the barrier between loading the tiles and reading them is missing.
// Bug: a thread starts its dot product while other threads are still writing As and Bs, so it can
// read an entry before this phase's value is there.
// Expected diagnosis: race (shared-memory read-after-write without a barrier between). Results may
// still come out right on a given run, so correctness alone must not be what catches it.
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab2-tiled -c grader/catalogue/lab2/missing_first_barrier.cu

#include "lab.h"

// ----------------------------------------------------------------------------
// kernel

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int N, int K) {
    __shared__ float As[TILE_WIDTH][TILE_WIDTH];  // (TILE_WIDTH, TILE_WIDTH)
    __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];  // (TILE_WIDTH, TILE_WIDTH)

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE_WIDTH + ty;
    const int col = blockIdx.x * TILE_WIDTH + tx;

    float sum = 0.0f;
    const int num_tiles = K / TILE_WIDTH;
    for (int tile = 0; tile < num_tiles; ++tile) {
        As[ty][tx] = A[row * K + tile * TILE_WIDTH + tx];
        Bs[ty][tx] = B[(tile * TILE_WIDTH + ty) * N + col];
        // BUG: no __syncthreads() here, so the reads below race with other threads' loads

        for (int k = 0; k < TILE_WIDTH; ++k) {
            sum += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }

    C[row * N + col] = sum;
}

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(TILE_WIDTH, TILE_WIDTH);
    dim3 grid(ceil_div(N, TILE_WIDTH), ceil_div(M, TILE_WIDTH));
    matmul_tiled_kernel<<<grid, block>>>(A, B, C, N, K);
    CUDA_CHECK(cudaGetLastError());
}
