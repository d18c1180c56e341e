// Lab 4 reference solution: thread coarsening (1D register blocking), for any M, N, K >= 1.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// Each block computes a BM×BN tile of C with BN·(BM/TM) = 512 threads. Each thread keeps TM sums in
// registers, for TM rows of one column. Per step k it loads one value of Bs into a register and uses it
// TM times, so the inner loop makes TM + 1 shared loads for TM multiply-adds instead of lab 3's 2 for 1.
// Boundary handling is lab 3's: zero-filled loads, guarded stores.
//
// Test:         make lab4 KERNEL=solutions/lab4-coarsening/kernel.cu
// Compile only: nvcc -arch=sm_90 -I common -I labs/lab4-coarsening -c solutions/lab4-coarsening/kernel.cu

#include "lab.h"

constexpr int THREADS = BN * (BM / TM);  // one thread per column and group of TM rows: 64 · 8 = 512

static_assert(BM % TM == 0, "a thread's TM rows tile the block's BM rows");
static_assert(THREADS <= 1024, "a block holds at most 1024 threads");
static_assert(BM * BK == THREADS, "each thread loads exactly one element of the A tile per phase");
static_assert(BK == BM / TM, "each thread loads exactly one element of the B tile per phase: Bs[ty][tx]");

// ----------------------------------------------------------------------------
// kernel

__global__ void __launch_bounds__(THREADS)
    matmul_coarsened_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[BM][BK];  // (BM, BK): this block's rows of A, one slice of K
    __shared__ float Bs[BK][BN];  // (BK, BN): one slice of K, this block's columns of B

    const int tx = threadIdx.x;                       // the thread's column in the block tile, 0 .. BN-1
    const int ty = threadIdx.y;                       // the thread's group of TM rows, 0 .. BM/TM-1
    const int first_row = blockIdx.y * BM + ty * TM;  // the thread computes rows first_row .. first_row+TM-1
    const int col = blockIdx.x * BN + tx;

    // The A tile is BM×BK, not the block's shape: number the threads 0..THREADS-1 and give each one element.
    const int tid = ty * BN + tx;
    const int a_ty = tid / BK;  // row of As this thread fills
    const int a_tx = tid % BK;  // column of As this thread fills

    float sum[TM] = {};  // TM outputs in registers: every index is a compile-time constant after unrolling
    const int num_tiles = ceil_div(K, BK);
    for (int tile = 0; tile < num_tiles; ++tile) {
        const int a_row = blockIdx.y * BM + a_ty;  // the element of A this thread loads: A[a_row][a_col]
        const int a_col = tile * BK + a_tx;
        const int b_row = tile * BK + ty;  // the element of B this thread loads: B[b_row][col]

        // every thread loads, even one whose outputs lie outside C: other threads need the value
        if (a_row < M && a_col < K) {
            As[a_ty][a_tx] = A[a_row * K + a_col];
        } else {
            As[a_ty][a_tx] = 0.0f;  // zero-fill past the edge: 0 contributes nothing to the dot product
        }
        if (b_row < K && col < N) {
            Bs[ty][tx] = B[b_row * N + col];
        } else {
            Bs[ty][tx] = 0.0f;
        }
        __syncthreads();  // both tiles are complete before any thread reads them

        for (int k = 0; k < BK; ++k) {
            const float b = Bs[k][tx];  // one shared load, reused for TM multiply-adds
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                sum[i] += As[ty * TM + i][k] * b;  // the same As value for every thread of a row: a broadcast
            }
        }
        __syncthreads();  // every thread is done with these tiles before the next phase overwrites them
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = first_row + i;
        if (row < M && col < N) {  // edge blocks hold outputs outside C; they only helped with the loads
            C[row * N + col] = sum[i];
        }
    }
}

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BN, BM / TM);                      // (64, 8): x along the columns of C, y along groups of rows
    dim3 grid(ceil_div(N, BN), ceil_div(M, BM));  // rounds up: edge blocks hang over C
    matmul_coarsened_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}
