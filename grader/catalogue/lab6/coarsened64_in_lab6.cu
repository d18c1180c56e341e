// Grader catalogue, lab 6, known WRONG (slow, not incorrect): lab 4's kernel (64×64 block tiles, 8 outputs per
// thread) handed in for lab 6. Lab 5's kernel passes lab 6 (same 128×128 traffic); this one reads more and must not.
// Bug: 64×64 block tiles read every element of A ⌈N/64⌉ times and of B ⌈M/64⌉ times, about twice as often as
// 128×128 block tiles for large matrices. With M and N at most 128 the two read the same, so this needs the
// traffic case 130×36·36×260.
// Expected diagnosis: traffic only. It is correct, in bounds, race-free and writes each element of C once.
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab6-warptiling -c grader/catalogue/lab6/coarsened64_in_lab6.cu

#include "lab.h"

// Lab 4's tile shape and kernel; inside this namespace these names hide this lab's lab.h.
namespace lab4 {

constexpr int BM = 64;
constexpr int BN = 64;
constexpr int BK = 8;
constexpr int TM = 8;
constexpr int THREADS = BN * (BM / TM);  // one thread per column and group of TM rows: 64 · 8 = 512

static_assert(BM % TM == 0, "a thread's TM rows tile the block's BM rows");
static_assert(THREADS <= 1024, "a block holds at most 1024 threads");
static_assert(BM * BK == THREADS, "each thread loads exactly one element of the A tile per phase");
static_assert(BK == BM / TM, "each thread loads exactly one element of the B tile per phase: Bs[ty][tx]");

// ----------------------------------------------------------------------------
// kernel

__global__ void __launch_bounds__(THREADS) matmul_coarsened_kernel(const float* A, const float* B, float* C,
                                                                   int M, int N, int K) {
    __shared__ float As[BM][BK];  // (BM, BK): this block's rows of A, one slice of K
    __shared__ float Bs[BK][BN];  // (BK, BN): one slice of K, this block's columns of B

    const int tx = threadIdx.x;  // the thread's column in the block tile, 0 .. BN-1
    const int ty = threadIdx.y;  // the thread's group of TM rows, 0 .. BM/TM-1
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
        const int b_row = tile * BK + ty;          // the element of B this thread loads: B[b_row][col]

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
    dim3 block(BN, BM / TM);                     // (64, 8): x along the columns of C, y along groups of rows
    dim3 grid(ceil_div(N, BN), ceil_div(M, BM));  // rounds up: edge blocks hang over C
    matmul_coarsened_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}

}  // namespace lab4

void matmul(const float* A, const float* B, float* C, int M, int N, int K) { lab4::matmul(A, B, C, M, N, K); }
