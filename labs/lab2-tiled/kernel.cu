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
        // TODO(student): fill this phase's tiles. Every thread of the block puts exactly one element of A and one
        //                of B into shared memory: the ones at its own (ty, tx) place in As and Bs. As must hold
        //                the block's rows of A over this phase's slice of K, Bs the same slice of K over the
        //                block's columns of B, so that the product of the two tiles is this phase's share of
        //                the block's tile of C. Each element is read from global memory once per block, not
        //                once per thread that needs it: that is the point of tiling (about 2 lines)
        // TODO(student): no thread may read a tile before every thread of the block has written its element
        //                into it; otherwise it reads another thread's slot before it is filled (about 1 line)
        // TODO(student): add this phase's share of the dot product for C[row][col] to sum, reading only the
        //                shared tiles: the thread's row of As against its column of Bs (about 3 lines)
        // TODO(student): the next phase overwrites As and Bs; no thread may start its next loads while another
        //                thread is still reading this phase's tiles (about 1 line)
    }

    // TODO(student): after the last phase sum is the whole dot product; each thread owns exactly one element of
    //                C, at (row, col), and writes it (about 1 line)

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
