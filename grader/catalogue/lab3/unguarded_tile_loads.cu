// Grader catalogue, lab 3, known WRONG: the tile loads have no bounds checks (lab 2's loads kept in lab 3).
// Bug: in edge blocks, threads past the last row of A or the last column of B, and every thread in a
// partial last phase along K, read A and B at indices outside the matrices (or wrap into the next row).
// Expected diagnosis: out-of-bounds (global reads past the end of A or B). Results are also wrong
// whenever K is not a multiple of TILE_WIDTH.
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab3-boundary -c grader/catalogue/lab3/unguarded_tile_loads.cu

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

    float sum = 0.0f;
    const int num_tiles = ceil_div(K, TILE_WIDTH);
    for (int tile = 0; tile < num_tiles; ++tile) {
        const int a_col = tile * TILE_WIDTH + tx;
        const int b_row = tile * TILE_WIDTH + ty;
        // BUG: neither load checks row < M && a_col < K or b_row < K && col < N
        As[ty][tx] = A[row * K + a_col];
        Bs[ty][tx] = B[b_row * N + col];
        __syncthreads();

        for (int k = 0; k < TILE_WIDTH; ++k) {
            sum += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }

    if (row < M && col < N) {
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
