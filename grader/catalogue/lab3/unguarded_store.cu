// Grader catalogue, lab 3, known WRONG: the store to C has no row < M && col < N guard.
// Bug: in edge blocks, threads with no element of C still store; a thread with col >= N writes into
// the next row of C (clobbering a real element), and one with row >= M writes past the end of C.
// Expected diagnosis: out-of-bounds (global writes past the end of C). Loads are correctly guarded.
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab3-boundary -c grader/catalogue/lab3/unguarded_store.cu

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
        if (row < M && a_col < K) {
            As[ty][tx] = A[row * K + a_col];
        } else {
            As[ty][tx] = 0.0f;
        }
        if (b_row < K && col < N) {
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

    C[row * N + col] = sum;  // BUG: no row < M && col < N guard
}

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(TILE_WIDTH, TILE_WIDTH);
    dim3 grid(ceil_div(N, TILE_WIDTH), ceil_div(M, TILE_WIDTH));
    matmul_tiled_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());
}
