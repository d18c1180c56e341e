// Lab 2: tiled matrix multiplication through shared memory.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// M, N and K are multiples of TILE_WIDTH here, so every tile is full and nothing needs a bounds check.
// Each block computes one TILE_WIDTH×TILE_WIDTH tile of C, walking along K one phase at a time:
// load a tile of A and a tile of B into shared memory, wait, multiply them, wait, move on.
// Fill in the TODO(student) lines. As handed out it builds, runs, and leaves C untouched,
// so every test fails until the work is done.
//
// Build and test: make lab2
// Compile only:   nvcc -arch=sm_90 -I common -I labs/lab2-tiled -c labs/lab2-tiled/kernel.cu

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
        // TODO(student): load A[row][tile * TILE_WIDTH + tx] into As[ty][tx] (about 1 line)
        // TODO(student): load B[tile * TILE_WIDTH + ty][col] into Bs[ty][tx] (about 1 line)
        // TODO(student): wait until the whole block has loaded both tiles (about 1 line)
        // TODO(student): add As[ty][k] * Bs[k][tx] to sum for k = 0 .. TILE_WIDTH-1 (about 3 lines)
        // TODO(student): wait until every thread is done with these tiles, before the next
        //                phase overwrites them (about 1 line)
    }

    // TODO(student): store sum in C[row][col] (about 1 line)

    // Marks these names as used so this skeleton builds without warnings; delete it once your code uses them.
    unused(A, B, C, N, row, col, As, Bs, sum);
}

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(TILE_WIDTH, TILE_WIDTH);
    dim3 grid(ceil_div(N, TILE_WIDTH), ceil_div(M, TILE_WIDTH));  // x covers columns, y covers rows
    matmul_tiled_kernel<<<grid, block>>>(A, B, C, N, K);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}
