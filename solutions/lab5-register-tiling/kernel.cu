// Lab 5 reference solution: 2D register tiling with float4 loads, for any M, N, K >= 1.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// Each block computes a BM×BN = 128×128 tile of C with 256 threads; each thread a TM×TN = 8×8 tile in
// registers. Per step k a thread loads TM values of A and TN values of B from shared memory into registers
// and makes TM·TN multiply-adds with them: 16 shared loads for 64 multiply-adds (lab 4: 9 for 8).
// Global loads are float4: one of A and one of B per thread and phase. A is stored transposed in shared
// memory (As[k][m]), so the TM values a thread needs at step k sit next to each other, like those of B.
// A float4 load needs a 16-byte aligned address: A + row*K + col is aligned only when K % 4 == 0 (B and C:
// N % 4 == 0). The launcher picks the float4 path when both hold, and a path of guarded scalar loads
// otherwise; the two differ only in load_float4() and the store.
//
// Test:         make lab5 KERNEL=solutions/lab5-register-tiling/kernel.cu
// Compile only: nvcc -arch=sm_90 -I common -I labs/lab5-register-tiling -c solutions/lab5-register-tiling/kernel.cu

#include <cstdint>

#include "lab.h"

constexpr int THREADS = (BM / TM) * (BN / TN);  // one thread per TM×TN tile of C: 16 · 16 = 256

static_assert(BM % TM == 0 && BN % TN == 0, "the threads' TM×TN tiles cover the block tile");
static_assert(THREADS <= 1024, "a block holds at most 1024 threads");
static_assert(BK % 4 == 0 && BN % 4 == 0 && TN % 4 == 0, "tiles are loaded and stored in float4s");
static_assert(BM * BK / 4 == THREADS, "each thread loads one float4 of the A tile per phase");
static_assert(BK * BN / 4 == THREADS, "each thread loads one float4 of the B tile per phase");

// ----------------------------------------------------------------------------
// kernel

// src[row][col .. col+3] of a rows×cols row-major matrix, with 0 for the elements outside it.
// VECTOR: one float4 load. The launcher guarantees cols % 4 == 0 (and src 16-byte aligned), so with col a
// multiple of 4 the address is aligned and the four floats lie all inside the matrix or all outside it.
// Otherwise: four scalar loads, each with its own bounds check.
template <bool VECTOR>
__device__ __forceinline__ float4 load_float4(const float* src, int row, int col, int rows, int cols) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);  // zero-fill past the edge: 0 adds nothing
    if (row >= rows) return v;
    const float* p = &src[row * cols + col];
    if (VECTOR) {
        if (col < cols) v = *reinterpret_cast<const float4*>(p);
    } else {
        if (col < cols) v.x = p[0];
        if (col + 1 < cols) v.y = p[1];
        if (col + 2 < cols) v.z = p[2];
        if (col + 3 < cols) v.w = p[3];
    }
    return v;
}

template <bool VECTOR>
__global__ void __launch_bounds__(THREADS)
    matmul_register_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    alignas(16) __shared__ float As[BK][BM];  // (BK, BM): this block's rows of A, one slice of K, transposed
    alignas(16) __shared__ float Bs[BK][BN];  // (BK, BN): one slice of K, this block's columns of B

    const int tx = threadIdx.x;                       // the thread's group of TN columns, 0 .. BN/TN-1
    const int ty = threadIdx.y;                       // the thread's group of TM rows, 0 .. BM/TM-1
    const int first_row = blockIdx.y * BM + ty * TM;  // the thread computes C[first_row .. +TM-1][first_col .. +TN-1]
    const int first_col = blockIdx.x * BN + tx * TN;

    // Which float4 of each tile this thread loads. Consecutive threads take consecutive float4s of a row,
    // so a warp's loads of B cover whole rows of the tile.
    const int tid = ty * (BN / TN) + tx;
    const int a_ty = tid / (BK / 4);      // row of the A tile, 0 .. BM-1
    const int a_tx = tid % (BK / 4) * 4;  // first of its four columns, a multiple of 4
    const int b_ty = tid / (BN / 4);      // row of the B tile, 0 .. BK-1
    const int b_tx = tid % (BN / 4) * 4;  // first of its four columns, a multiple of 4

    float acc[TM][TN] = {};  // the thread's TM×TN outputs, in registers
    float a_reg[TM];         // column k of the thread's rows of A
    float b_reg[TN];         // row k of the thread's columns of B

    const int num_tiles = ceil_div(K, BK);
    for (int tile = 0; tile < num_tiles; ++tile) {
        const float4 a = load_float4<VECTOR>(A, blockIdx.y * BM + a_ty, tile * BK + a_tx, M, K);
        const float4 b = load_float4<VECTOR>(B, tile * BK + b_ty, blockIdx.x * BN + b_tx, K, N);
        // A goes in transposed: its four values along K become four rows of As
        As[a_tx + 0][a_ty] = a.x;
        As[a_tx + 1][a_ty] = a.y;
        As[a_tx + 2][a_ty] = a.z;
        As[a_tx + 3][a_ty] = a.w;
        *reinterpret_cast<float4*>(&Bs[b_ty][b_tx]) = b;  // one 16-byte shared store
        __syncthreads();                                  // both tiles are complete before any thread reads them

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) a_reg[i] = As[k][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) b_reg[j] = Bs[k][tx * TN + j];
                // an outer product: TM + TN values from shared memory feed TM·TN multiply-adds
#pragma unroll
            for (int i = 0; i < TM; ++i) {
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_reg[i] * b_reg[j];
            }
        }
        __syncthreads();  // every thread is done with these tiles before the next phase overwrites them
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = first_row + i;
        if (row >= M) break;  // rows grow with i: the rest are outside C too
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const int col = first_col + j;
            float* out = &C[row * N + col];
            if (VECTOR) {
                // N % 4 == 0 and col % 4 == 0: the float4 is aligned, all inside C or all outside
                if (col < N) {
                    *reinterpret_cast<float4*>(out) =
                        make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
                }
            } else {
                if (col < N) out[0] = acc[i][j];
                if (col + 1 < N) out[1] = acc[i][j + 1];
                if (col + 2 < N) out[2] = acc[i][j + 2];
                if (col + 3 < N) out[3] = acc[i][j + 3];
            }
        }
    }
}

// ----------------------------------------------------------------------------
// launcher

static bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BN / TN, BM / TM);                 // (16, 16): x along the columns of C, y along the rows
    dim3 grid(ceil_div(N, BN), ceil_div(M, BM));  // rounds up: edge blocks hang over C
    // every row of A starts 16-byte aligned when K % 4 == 0, every row of B and C when N % 4 == 0
    if (K % 4 == 0 && N % 4 == 0 && aligned16(A) && aligned16(B) && aligned16(C)) {
        matmul_register_tiled_kernel<true><<<grid, block>>>(A, B, C, M, N, K);
    } else {
        matmul_register_tiled_kernel<false><<<grid, block>>>(A, B, C, M, N, K);
    }
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}
