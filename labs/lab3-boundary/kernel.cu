// Lab 3: boundary-safe tiled matrix multiplication, for any M, N, K >= 1.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// Start from your lab 2 kernel. Three things change when sizes are not multiples of TILE_WIDTH:
// the last phase along K covers a partial tile; a load from outside A or B must put 0 in the tile
// instead; a thread whose element is outside C must not store. Each load and the store have their
// own bounds: A is M×K, B is K×N, C is M×N.
// Fill in the TODO(student) lines. As handed out it builds, runs, and leaves C untouched,
// so every test fails until the work is done.
//
// Build and test: make lab3
// Compile only:   nvcc -arch=sm_90 -I common -I labs/lab3-boundary -c labs/lab3-boundary/kernel.cu

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
    // TODO(student): the loop must visit every column of A (every row of B), also the last few when K is not a
    //                multiple of TILE_WIDTH; as written it stops one phase short for such K (about 1 line)
    const int num_tiles = K / TILE_WIDTH;
    for (int tile = 0; tile < num_tiles; ++tile) {
        // TODO(student): fill As as in lab 2, but the block's tile of A may now hang over A's bottom or right
        //                edge. An element outside A is not yours to read (it belongs to another row, or to no
        //                allocation at all); put a value in its slot that adds nothing to any dot product.
        //                Every slot must still be written: the tile is shared, and an unwritten slot holds
        //                whatever the last phase or block left there (about 6 lines)
        // TODO(student): fill Bs the same way; B has its own bounds, different from A's (about 6 lines)
        // TODO(student): no thread may read a tile before every thread of the block has written its element
        //                into it (about 1 line)
        // TODO(student): add this phase's share of the dot product to sum, reading only the shared tiles; the
        //                padding makes a partial tile safe to use whole (about 3 lines)
        // TODO(student): the next phase overwrites As and Bs; no thread may start its next loads while another
        //                thread is still reading this phase's tiles. Every thread of the block must reach each
        //                barrier, also the ones whose element of C is outside C (about 1 line)
    }

    // TODO(student): write the result to the thread's element of C, but only if that element exists: edge blocks
    //                have threads past C's last row or column, and their store would land in another row of C
    //                or outside it (about 3 lines)

    // Marks these names as used so this skeleton builds without warnings; delete it once your code uses them.
    unused(A, B, C, M, N, row, col, As, Bs, sum);
}

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(TILE_WIDTH, TILE_WIDTH);
    dim3 grid(ceil_div(N, TILE_WIDTH), ceil_div(M, TILE_WIDTH));  // rounds up: edge blocks hang over C
    matmul_tiled_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}
