// Grader catalogue, lab 3, known RIGHT: boundary-safe tiled kernel with 32×32 tiles (1024 threads per block).
// lab.h fixes TILE_WIDTH at 16; this kernel uses its own, larger tile edge. Bigger tiles mean fewer
// global loads, and 1024 threads is the most a block may hold.
// Expected diagnosis: none; it must pass every check (correctness, traffic, bounds, races, barriers,
// initialised shared reads, written once, written by kernel).
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab3-boundary -c grader/catalogue/lab3/tile32.cu

#include "lab.h"

constexpr int BIG_TILE_WIDTH = 32;  // the tile edge this kernel uses instead of lab.h's TILE_WIDTH
static_assert(BIG_TILE_WIDTH * BIG_TILE_WIDTH <= 1024, "one thread per tile element: a block holds at most 1024 threads");

// ----------------------------------------------------------------------------
// kernel

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[BIG_TILE_WIDTH][BIG_TILE_WIDTH];  // (BIG_TILE_WIDTH, BIG_TILE_WIDTH)
    __shared__ float Bs[BIG_TILE_WIDTH][BIG_TILE_WIDTH];  // (BIG_TILE_WIDTH, BIG_TILE_WIDTH)

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * BIG_TILE_WIDTH + ty;
    const int col = blockIdx.x * BIG_TILE_WIDTH + tx;

    float sum = 0.0f;
    const int num_tiles = ceil_div(K, BIG_TILE_WIDTH);
    for (int tile = 0; tile < num_tiles; ++tile) {
        const int a_col = tile * BIG_TILE_WIDTH + tx;
        const int b_row = tile * BIG_TILE_WIDTH + ty;
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

        for (int k = 0; k < BIG_TILE_WIDTH; ++k) {
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
    dim3 block(BIG_TILE_WIDTH, BIG_TILE_WIDTH);
    dim3 grid(ceil_div(N, BIG_TILE_WIDTH), ceil_div(M, BIG_TILE_WIDTH));
    matmul_tiled_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());
}
