// Grader catalogue, lab 3, known WRONG (slow, not incorrect): the tiles are loaded down their columns.
// Bug: thread (tx, ty) loads element [tx][ty] of each tile instead of [ty][tx]. The tiles hold the same values,
// so C is right, but the 32 lanes of a warp (consecutive tx) now read 16 different rows of A and of B: each load
// request takes about 16 sectors of 32 bytes where the row-wise load takes 2 or 3.
// Expected diagnosis: traffic (coalescing: the loads of A and of B name their sectors per request). Correctness and
// memory safety pass.
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab3-boundary -c grader/catalogue/lab3/tiles_loaded_by_column.cu

#include "lab.h"

static_assert(TILE_WIDTH * TILE_WIDTH <= 1024, "one thread per tile element: a block holds at most 1024 threads");

// ----------------------------------------------------------------------------
// kernel

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE_WIDTH][TILE_WIDTH];  // (TILE_WIDTH, TILE_WIDTH): this block's rows of A, one slice of K
    __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];  // (TILE_WIDTH, TILE_WIDTH): one slice of K, this block's columns of B

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE_WIDTH + ty;
    const int col = blockIdx.x * TILE_WIDTH + tx;

    float sum = 0.0f;
    const int num_tiles = ceil_div(K, TILE_WIDTH);  // rounds up: the last phase may cover a partial tile
    for (int tile = 0; tile < num_tiles; ++tile) {
        // the bug: thread (tx, ty) fills As[tx][ty] and Bs[tx][ty], so consecutive lanes walk down a column
        const int a_row = blockIdx.y * TILE_WIDTH + tx, a_col = tile * TILE_WIDTH + ty;
        const int b_row = tile * TILE_WIDTH + tx, b_col = blockIdx.x * TILE_WIDTH + ty;
        if (a_row < M && a_col < K) {
            As[tx][ty] = A[a_row * K + a_col];
        } else {
            As[tx][ty] = 0.0f;
        }
        if (b_row < K && b_col < N) {
            Bs[tx][ty] = B[b_row * N + b_col];
        } else {
            Bs[tx][ty] = 0.0f;
        }
        __syncthreads();  // both tiles are complete before any thread reads them

        // always TILE_WIDTH steps: the zero-filled entries of a partial tile add nothing
        for (int k = 0; k < TILE_WIDTH; ++k) {
            sum += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();  // every thread is done with these tiles before the next phase overwrites them
    }

    // edge blocks hold threads with no element of C; they only helped with the loads
    if (row < M && col < N) {
        C[row * N + col] = sum;
    }
}

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(TILE_WIDTH, TILE_WIDTH);
    dim3 grid(ceil_div(N, TILE_WIDTH), ceil_div(M, TILE_WIDTH));  // rounds up: edge blocks hang over C
    matmul_tiled_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}
