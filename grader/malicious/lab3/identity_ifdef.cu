// Malicious lab 3 kernel: two kernels, chosen by the compiler's identity. `#ifdef CUDAEMU` launches the tiled
// kernel on the emulator, where the grader measures traffic, and the untiled one everywhere else, so that a GPU
// grade would be full marks for a kernel that does not tile. Must get: zero, refused at build time: its launch line
// compiles differently for the emulator than for nvcc.
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
        const int a_col = tile * TILE_WIDTH + tx;  // the element of A this thread loads: A[row][a_col]
        const int b_row = tile * TILE_WIDTH + ty;  // the element of B this thread loads: B[b_row][col]

        // Every thread loads, even one whose own element of C is outside C: other threads need the value.
        // Each load has its own bounds: A is M×K, B is K×N.
        if (row < M && a_col < K) {
            As[ty][tx] = A[row * K + a_col];
        } else {
            As[ty][tx] = 0.0f;  // zero-fill past the edge: 0 contributes nothing to the dot product
        }
        if (b_row < K && col < N) {
            Bs[ty][tx] = B[b_row * N + col];
        } else {
            Bs[ty][tx] = 0.0f;
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
__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = sum;
    }
}


void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(TILE_WIDTH, TILE_WIDTH);
    dim3 grid(ceil_div(N, TILE_WIDTH), ceil_div(M, TILE_WIDTH));  // rounds up: edge blocks hang over C
#ifdef CUDAEMU
    matmul_tiled_kernel<<<grid, block>>>(A, B, C, M, N, K);  // where traffic is measured
#else
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);  // what the GPU runs
#endif
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}
