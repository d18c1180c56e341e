// Lab 2 reference solution: tiled matrix multiplication through shared memory.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// M, N and K are multiples of TILE_WIDTH here, so every tile is full and nothing is bounds-checked.
// Each block computes one TILE_WIDTH×TILE_WIDTH tile of C. It walks along K one phase at a time:
// the block loads a tile of A and a tile of B into shared memory, and every value loaded is then
// used by TILE_WIDTH threads instead of being fetched from global memory by each of them.
//
// Test:         make lab2 KERNEL=solutions/lab2-tiled/kernel.cu
// Compile only: nvcc -arch=sm_90 -I common -I labs/lab2-tiled -c solutions/lab2-tiled/kernel.cu

#include "lab.h"

static_assert(TILE_WIDTH * TILE_WIDTH <= 1024, "one thread per tile element: a block holds at most 1024 threads");

// ----------------------------------------------------------------------------
// kernel

// No M parameter: the grid covers exactly M rows, so the kernel never needs it.
__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int N, int K) {
    __shared__ float As[TILE_WIDTH][TILE_WIDTH];  // (TILE_WIDTH, TILE_WIDTH): this block's rows of A, one slice of K
    __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];  // (TILE_WIDTH, TILE_WIDTH): one slice of K, this block's columns of B

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE_WIDTH + ty;
    const int col = blockIdx.x * TILE_WIDTH + tx;

    float sum = 0.0f;
    const int num_tiles = K / TILE_WIDTH;  // exact: K is a multiple of TILE_WIDTH in this lab
    for (int tile = 0; tile < num_tiles; ++tile) {
        // each thread loads one element of each tile; the block as a whole loads both tiles
        As[ty][tx] = A[row * K + tile * TILE_WIDTH + tx];
        Bs[ty][tx] = B[(tile * TILE_WIDTH + ty) * N + col];
        __syncthreads();  // both tiles are complete before any thread reads them

        for (int k = 0; k < TILE_WIDTH; ++k) {
            sum += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();  // every thread is done with these tiles before the next phase overwrites them
    }

    C[row * N + col] = sum;
}

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(TILE_WIDTH, TILE_WIDTH);
    dim3 grid(ceil_div(N, TILE_WIDTH), ceil_div(M, TILE_WIDTH));  // x covers columns, y covers rows
    matmul_tiled_kernel<<<grid, block>>>(A, B, C, N, K);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}
