// Lab 6 reference solution: warp tiling and double buffering, for any M, N, K >= 1.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// FP32 FFMA only: no tensor cores, no inline PTX.
//
// - Block tile BM×BN (default 128×128) with 256 threads = 8 warps; K walked in slices of BK = 16.
// - Warp tile: warp w computes a WM×WN = 64×32 part of the block tile, in WMITER×WNITER = 2×2 steps of a
//   32×16 sub-tile; the warp's 32 threads cover a sub-tile as an 8×4 grid of TM×TN = 4×4 register tiles. A
//   thread holds (WMITER·TM)×(WNITER·TN) = 8×8 outputs, spread over the warp tile in 4×4 pieces.
// - Shared memory: A stored transposed (As[k][m]), so every shared load is a 16-byte float4 (LDS.128) of 4
//   consecutive floats. A quarter-warp's float4 loads from As hit 2 addresses (a broadcast each) and from
//   Bs 4 consecutive ones: no bank conflicts. The transposed stores are conflict-free without padding: a
//   warp stores 32 consecutive rows m of As[k], one float per bank.
// - Double buffering: two shared-memory stages. While the warps compute on one stage, each thread already has
//   the next tile's global loads in flight into registers; after the math it stores them into the other stage.
//   One __syncthreads() per phase is enough, because a phase writes only the stage nobody reads in it.
// - Edges: global loads are float4 when K % 4 == 0 and N % 4 == 0 (then every row of A, B and C starts
//   16-byte aligned), and guarded scalar loads otherwise; zero fill past the edges, guarded stores.
//
// Tuning: every shape parameter can be set with -D. The defaults are lab.h's. For example, a 128×256 block tile
// with 16×8 outputs per thread: -DLAB6_BN=256 -DLAB6_WN=64 -DLAB6_WMITER=4 -DLAB6_MIN_BLOCKS=1 (with the default
// LAB6_MIN_BLOCKS=2, 128 accumulators do not fit in 128 registers and ptxas spills: check with -Xptxas -v).
//   LAB6_BM, LAB6_BN, LAB6_BK    block tile and K slice                  default 128, 128, 16
//   LAB6_WM, LAB6_WN             warp tile                                default 64, 32
//   LAB6_WMITER, LAB6_WNITER     sub-tile steps across the warp tile     default 2, 2
//   LAB6_TM, LAB6_TN             a thread's register tile per step       default 4, 4
//   LAB6_MIN_BLOCKS              __launch_bounds__ minimum blocks per SM  default 2 (caps registers at 128)
// The valid space (the static_asserts below reject everything else):
//   THREADS = 32·(BM/WM)·(BN/WN) <= 1024, with BM % WM == 0 and BN % WN == 0;
//   WM % WMITER == 0 and WN % WNITER == 0, and a warp's 32 threads exactly cover one sub-tile:
//     (WM/WMITER/TM)·(WN/WNITER/TN) == 32;
//   TM, TN and BK multiples of 4 (float4 loads);
//   every thread loads whole float4s of both tiles: (BM·BK/4) % THREADS == 0 and (BK·BN/4) % THREADS == 0;
//   two stages fit in static shared memory: 2·BK·(BM + BN)·4 bytes <= 48 KiB.
// Not asserted, only slower: BM % 32 != 0 (the transposed stores of A then conflict).
// A block tile smaller than lab.h's BM×BN is correct but reads more than lab 6's traffic test allows.
//
// Test:         make lab6 KERNEL=solutions/lab6-warptiling/kernel.cu
// Compile only: nvcc -arch=sm_90 -I common -I labs/lab6-warptiling -c solutions/lab6-warptiling/kernel.cu

#include <cstdint>

#include "lab.h"

#ifndef LAB6_BM
#define LAB6_BM 128
#endif
#ifndef LAB6_BN
#define LAB6_BN 128
#endif
#ifndef LAB6_BK
#define LAB6_BK 16
#endif
#ifndef LAB6_WM
#define LAB6_WM 64
#endif
#ifndef LAB6_WN
#define LAB6_WN 32
#endif
#ifndef LAB6_WMITER
#define LAB6_WMITER 2
#endif
#ifndef LAB6_WNITER
#define LAB6_WNITER 2
#endif
#ifndef LAB6_TM
#define LAB6_TM 4
#endif
#ifndef LAB6_TN
#define LAB6_TN 4
#endif
#ifndef LAB6_MIN_BLOCKS
#define LAB6_MIN_BLOCKS 2
#endif

// The kernel's tile shape. Inside this namespace these names hide lab.h's, which are the defaults.
namespace tuned {

constexpr int BM = LAB6_BM;
constexpr int BN = LAB6_BN;
constexpr int BK = LAB6_BK;
constexpr int WM = LAB6_WM;
constexpr int WN = LAB6_WN;
constexpr int WMITER = LAB6_WMITER;
constexpr int WNITER = LAB6_WNITER;
constexpr int TM = LAB6_TM;
constexpr int TN = LAB6_TN;

constexpr int WSUBM = WM / WMITER;                   // rows of one warp sub-tile
constexpr int WSUBN = WN / WNITER;                   // columns of one warp sub-tile
constexpr int THREADS = 32 * (BM / WM) * (BN / WN);  // one warp per warp tile
constexpr int THREAD_M = WMITER * TM;                // a thread's outputs: THREAD_M × THREAD_N
constexpr int THREAD_N = WNITER * TN;
constexpr int A_LOADS = BM * BK / 4 / THREADS;       // float4s of the A tile each thread loads per phase
constexpr int B_LOADS = BK * BN / 4 / THREADS;       // float4s of the B tile

static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block tile");
static_assert(THREADS <= 1024, "a block holds at most 1024 threads");
static_assert(WM % WMITER == 0 && WN % WNITER == 0, "WMITER×WNITER sub-tiles cover the warp tile");
static_assert(WSUBM % TM == 0 && WSUBN % TN == 0, "TM×TN register tiles cover a sub-tile");
static_assert((WSUBM / TM) * (WSUBN / TN) == 32, "a warp's 32 threads cover exactly one sub-tile");
static_assert(TM % 4 == 0 && TN % 4 == 0, "shared loads into registers are float4s");
static_assert(BK % 4 == 0, "A is loaded from global memory in float4s along K");
static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
              "every thread loads the same whole number of float4s of each tile");
static_assert(2 * BK * (BM + BN) * sizeof(float) <= 48 * 1024, "two stages fit in 48 KiB of static shared memory");

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

// One tile of A and one of B on their way from global to shared memory, held in registers in between.
struct TileRegisters {
    float4 a[A_LOADS];
    float4 b[B_LOADS];
};

// Float4 number f of the A tile is rows m = f % BM, columns k = f / BM * 4 .. +3: a warp takes 32
// consecutive rows, so the transposed stores below go to 32 different banks.
// Float4 number f of the B tile is row k = f / (BN/4), columns n = f % (BN/4) * 4 .. +3: a warp reads
// consecutive 16-byte pieces of one row of B.
template <bool VECTOR>
__device__ __forceinline__ void load_tile(TileRegisters& r, const float* A, const float* B, int M, int N, int K,
                                          int tile, int tid) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
        const int f = tid + i * THREADS;
        r.a[i] = load_float4<VECTOR>(A, blockIdx.y * BM + f % BM, tile * BK + f / BM * 4, M, K);
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
        const int f = tid + i * THREADS;
        r.b[i] = load_float4<VECTOR>(B, tile * BK + f / (BN / 4), blockIdx.x * BN + f % (BN / 4) * 4, K, N);
    }
}

__device__ __forceinline__ void store_tile(const TileRegisters& r, float (&As)[BK][BM], float (&Bs)[BK][BN], int tid) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
        const int f = tid + i * THREADS;
        const int m = f % BM, k = f / BM * 4;
        // A goes in transposed: its four values along K become four rows of As
        As[k + 0][m] = r.a[i].x;
        As[k + 1][m] = r.a[i].y;
        As[k + 2][m] = r.a[i].z;
        As[k + 3][m] = r.a[i].w;
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
        const int f = tid + i * THREADS;
        *reinterpret_cast<float4*>(&Bs[f / (BN / 4)][f % (BN / 4) * 4]) = r.b[i];
    }
}

// ----------------------------------------------------------------------------
// kernel

template <bool VECTOR>
__global__ void __launch_bounds__(THREADS, LAB6_MIN_BLOCKS)
    matmul_warptiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    alignas(16) __shared__ float As[2][BK][BM];  // (2, BK, BM): two stages of the A tile, transposed
    alignas(16) __shared__ float Bs[2][BK][BN];  // (2, BK, BN): two stages of the B tile

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int warp_row = warp / (BN / WN);  // the warp's tile: rows warp_row*WM .., columns warp_col*WN ..
    const int warp_col = warp % (BN / WN);
    const int thread_row = lane / (WSUBN / TN);  // the thread's TM×TN tile within each sub-tile
    const int thread_col = lane % (WSUBN / TN);
    const int tile_row = warp_row * WM + thread_row * TM;  // in the block tile, at sub-tile step (0, 0)
    const int tile_col = warp_col * WN + thread_col * TN;

    float acc[THREAD_M][THREAD_N] = {};  // the thread's outputs, in registers
    float a_reg[THREAD_M];               // column k of the thread's rows of A
    float b_reg[THREAD_N];               // row k of the thread's columns of B

    TileRegisters next;
    load_tile<VECTOR>(next, A, B, M, N, K, 0, tid);
    store_tile(next, As[0], Bs[0], tid);
    __syncthreads();  // stage 0 is complete

    const int num_tiles = ceil_div(K, BK);
    for (int tile = 0; tile < num_tiles; ++tile) {
        const int stage = tile % 2;
        const bool more = tile + 1 < num_tiles;  // the same for every thread: the barrier below is uniform
        if (more) load_tile<VECTOR>(next, A, B, M, N, K, tile + 1, tid);  // in flight during the math below

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int wm = 0; wm < WMITER; ++wm) {
#pragma unroll
                for (int i = 0; i < TM; i += 4) {
                    const float4 v = *reinterpret_cast<const float4*>(&As[stage][k][tile_row + wm * WSUBM + i]);
                    a_reg[wm * TM + i + 0] = v.x;
                    a_reg[wm * TM + i + 1] = v.y;
                    a_reg[wm * TM + i + 2] = v.z;
                    a_reg[wm * TM + i + 3] = v.w;
                }
            }
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn) {
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    const float4 v = *reinterpret_cast<const float4*>(&Bs[stage][k][tile_col + wn * WSUBN + j]);
                    b_reg[wn * TN + j + 0] = v.x;
                    b_reg[wn * TN + j + 1] = v.y;
                    b_reg[wn * TN + j + 2] = v.z;
                    b_reg[wn * TN + j + 3] = v.w;
                }
            }
            // an outer product: (THREAD_M + THREAD_N) floats from shared memory feed THREAD_M·THREAD_N FFMAs
#pragma unroll
            for (int m = 0; m < THREAD_M; ++m) {
#pragma unroll
                for (int n = 0; n < THREAD_N; ++n) acc[m][n] += a_reg[m] * b_reg[n];
            }
        }

        // the other stage: its last readers finished before the previous barrier
        if (more) store_tile(next, As[stage ^ 1], Bs[stage ^ 1], tid);
        __syncthreads();  // the next stage is complete, and nobody still reads this one when it is refilled
    }

#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm) {
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = blockIdx.y * BM + tile_row + wm * WSUBM + i;
            if (row >= M) continue;  // edge blocks hold outputs outside C
            const int m = wm * TM + i;
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn) {
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    const int col = blockIdx.x * BN + tile_col + wn * WSUBN + j;
                    const int n = wn * TN + j;
                    float* out = &C[row * N + col];
                    if (VECTOR) {
                        // N % 4 == 0 and col % 4 == 0: the float4 is aligned, all inside C or all outside
                        if (col < N) *reinterpret_cast<float4*>(out) = make_float4(acc[m][n], acc[m][n + 1],
                                                                                   acc[m][n + 2], acc[m][n + 3]);
                    } else {
                        if (col < N) out[0] = acc[m][n];
                        if (col + 1 < N) out[1] = acc[m][n + 1];
                        if (col + 2 < N) out[2] = acc[m][n + 2];
                        if (col + 3 < N) out[3] = acc[m][n + 3];
                    }
                }
            }
        }
    }
}

}  // namespace tuned

// ----------------------------------------------------------------------------
// launcher

static bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(tuned::THREADS);                                 // 1-D: the kernel places warps and lanes itself
    dim3 grid(ceil_div(N, tuned::BN), ceil_div(M, tuned::BM));  // rounds up: edge blocks hang over C
    // every row of A starts 16-byte aligned when K % 4 == 0, every row of B and C when N % 4 == 0
    if (K % 4 == 0 && N % 4 == 0 && aligned16(A) && aligned16(B) && aligned16(C)) {
        tuned::matmul_warptiled_kernel<true><<<grid, block>>>(A, B, C, M, N, K);
    } else {
        tuned::matmul_warptiled_kernel<false><<<grid, block>>>(A, B, C, M, N, K);
    }
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}
