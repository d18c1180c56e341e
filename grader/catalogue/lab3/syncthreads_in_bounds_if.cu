// Grader catalogue, lab 3, known WRONG: the whole phase loop, barriers included, sits inside if (row < M && col < N).
// Bug: in edge blocks, threads with no element of C skip the loop, so the others reach __syncthreads()
// without them (a barrier not reached by every thread of the block is undefined behaviour). The
// skipping threads also never load their share of As and Bs, which their neighbours then read.
// Expected diagnosis: divergent barrier (on shapes where M or N is not a multiple of TILE_WIDTH).
// Uninitialised shared reads and wrong values may be reported as well.
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab3-boundary -c grader/catalogue/lab3/syncthreads_in_bounds_if.cu

#include "lab.h"

// ----------------------------------------------------------------------------
// kernel

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE_WIDTH][TILE_WIDTH];  // (TILE_WIDTH, TILE_WIDTH)
    __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];  // (TILE_WIDTH, TILE_WIDTH)

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE_WIDTH + ty;
    const int col = blockIdx.x * TILE_WIDTH + tx;

    if (row < M && col < N) {  // BUG: the barriers below must be reached by every thread of the block
        float sum = 0.0f;
        const int num_tiles = ceil_div(K, TILE_WIDTH);
        for (int tile = 0; tile < num_tiles; ++tile) {
            const int a_col = tile * TILE_WIDTH + tx;
            const int b_row = tile * TILE_WIDTH + ty;
            if (a_col < K) {
                As[ty][tx] = A[row * K + a_col];
            } else {
                As[ty][tx] = 0.0f;
            }
            if (b_row < K) {
                Bs[ty][tx] = B[b_row * N + col];
            } else {
                Bs[ty][tx] = 0.0f;
            }
            __syncthreads();

            for (int k = 0; k < TILE_WIDTH; ++k) {
                sum += As[ty][k] * Bs[k][tx];
            }
            __syncthreads();
        }
        C[row * N + col] = sum;
    }
}

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(TILE_WIDTH, TILE_WIDTH);
    dim3 grid(ceil_div(N, TILE_WIDTH), ceil_div(M, TILE_WIDTH));
    matmul_tiled_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());
}
