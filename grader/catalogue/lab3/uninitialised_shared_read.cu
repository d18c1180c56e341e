// Grader catalogue, lab 3, known WRONG: the A-tile load has no zero-fill else-branch.
// Bug: a thread whose A element is outside A (row >= M, or a_col >= K in a partial last phase) leaves
// As[ty][tx] unwritten, yet its neighbours read that entry in the dot product. In a block where
// row >= M, or with K < TILE_WIDTH, nobody in the block ever wrote it. Loads of valid elements are
// still guarded, so nothing is read out of bounds.
// Expected diagnosis: uninitialised (shared-memory read of an entry not written in this block), on shapes
// with M % TILE_WIDTH != 0 or K < TILE_WIDTH. Values may or may not come out wrong (garbage × 0 from
// the zero-filled B tile is 0 unless the garbage is Inf or NaN).
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab3-boundary -c grader/catalogue/lab3/uninitialised_shared_read.cu

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
        }  // BUG: no else-branch writing 0.0f, so edge entries of As keep whatever was there
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
