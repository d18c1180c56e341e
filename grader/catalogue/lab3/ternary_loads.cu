// Grader catalogue, lab 3, known RIGHT: the guarded, zero-filled loads written as conditional expressions.
// Same kernel as the reference solution, with each if/else load folded into one line with ?: .
// Only the chosen branch is evaluated, so the out-of-range read is never made.
// Expected diagnosis: none; it must pass every check (correctness, traffic, bounds, races, barriers,
// initialised shared reads, written once, written by kernel).
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab3-boundary -c grader/catalogue/lab3/ternary_loads.cu

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
        As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
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
