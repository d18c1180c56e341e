// Grader catalogue, lab 3, known WRONG: the phase loop runs K / TILE_WIDTH times, rounding down.
// Bug: when K is not a multiple of TILE_WIDTH the partial last tile along K is never loaded, so its
// terms are missing from every dot product (and for K < TILE_WIDTH no phase runs at all: C = 0).
// Expected diagnosis: correctness (wrong values whenever K % TILE_WIDTH != 0). Loads and store are guarded.
// Its traffic tests pass on their own (K = 48 there), yet it scores 0 for traffic and safety too: those points
// need every correctness test of the lab to pass, and the grader says so in each withheld test's report.
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab3-boundary -c grader/catalogue/lab3/truncating_phase_loop.cu

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
    const int num_tiles = K / TILE_WIDTH;  // BUG: rounds down; must be ceil_div(K, TILE_WIDTH)
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
