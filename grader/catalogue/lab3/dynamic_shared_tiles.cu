// Lab 3 catalogue, correct: the tiled kernel with its two tiles in dynamic shared memory, sized at launch time by
// the third launch parameter (`extern __shared__`), as tutorials often write it. Must get: full marks.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).

#include "lab.h"

// ----------------------------------------------------------------------------
// kernel

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    extern __shared__ float tiles[];                 // 2 · TILE_WIDTH² floats, the launch's third parameter
    float* As = tiles;                               // (TILE_WIDTH, TILE_WIDTH): this block's rows of A
    float* Bs = tiles + TILE_WIDTH * TILE_WIDTH;     // (TILE_WIDTH, TILE_WIDTH): this block's columns of B

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE_WIDTH + ty;
    const int col = blockIdx.x * TILE_WIDTH + tx;

    float sum = 0.0f;
    for (int tile = 0; tile < ceil_div(K, TILE_WIDTH); ++tile) {
        const int a_col = tile * TILE_WIDTH + tx;
        const int b_row = tile * TILE_WIDTH + ty;
        As[ty * TILE_WIDTH + tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        Bs[ty * TILE_WIDTH + tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();  // both tiles are complete before any thread reads them

        for (int k = 0; k < TILE_WIDTH; ++k) {
            sum += As[ty * TILE_WIDTH + k] * Bs[k * TILE_WIDTH + tx];
        }
        __syncthreads();  // every thread is done with these tiles before the next phase overwrites them
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
    const size_t shared_bytes = 2 * TILE_WIDTH * TILE_WIDTH * sizeof(float);  // As and Bs
    matmul_tiled_kernel<<<grid, block, shared_bytes>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());
}
