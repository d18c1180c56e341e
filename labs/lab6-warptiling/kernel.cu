// Lab 6: warp tiling and double buffering, for any M, N, K >= 1.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// Start from your lab 5 kernel. Two changes:
// - Warp tiling. Each block computes a BM×BN = 128×128 tile of C with 256 threads = 8 warps, and each warp a
//   WM×WN = 64×32 part of it, in WMITER×WNITER = 2×2 steps of a 32×16 sub-tile. The warp's 32 threads cover a
//   sub-tile as an 8×4 grid of TM×TN = 4×4 register tiles, so each thread holds 8×8 outputs in 4×4 pieces.
//   Every shared load is one float4 (As is stored transposed, as in lab 5).
// - Double buffering. Two shared-memory stages: while the warps compute on one, each thread already has the
//   next tile's global loads in flight into registers (load_tile, given), and after the math stores them into
//   the other stage (store_tile, given). One __syncthreads() per phase is then enough.
// Fill in the TODO(student) lines. As handed out it builds, runs, and leaves C untouched,
// so every test fails until the work is done.
//
// Build and test: make lab6
// Compile only:   nvcc -arch=sm_90 -I common -I labs/lab6-warptiling -c labs/lab6-warptiling/kernel.cu

#include <cstdint>

#include "lab.h"

constexpr int WSUBM = WM / WMITER;                   // rows of one warp sub-tile
constexpr int WSUBN = WN / WNITER;                   // columns of one warp sub-tile
constexpr int THREADS = 32 * (BM / WM) * (BN / WN);  // one warp per warp tile
constexpr int THREAD_M = WMITER * TM;                // a thread's outputs: THREAD_M × THREAD_N
constexpr int THREAD_N = WNITER * TN;
constexpr int A_LOADS = BM * BK / 4 / THREADS;  // float4s of the A tile each thread loads per phase
constexpr int B_LOADS = BK * BN / 4 / THREADS;  // float4s of the B tile

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

// Float4 number f of the A tile is rows m = f % BM, columns k = f / BM * 4 .. +3: a warp takes 32 consecutive
// rows, so the stores below go to 32 banks, at a price: each lane's 16 bytes fill half a sector (lesson 6).
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

// __launch_bounds__(THREADS, 2): two blocks per multiprocessor, so the compiler keeps to 65,536 / (2 · 256) = 128
// registers per thread.
template <bool VECTOR>
__global__ void __launch_bounds__(THREADS, 2)
    matmul_warptiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    alignas(16) __shared__ float As[2][BK][BM];  // (2, BK, BM): two stages of the A tile, transposed
    alignas(16) __shared__ float Bs[2][BK][BN];  // (2, BK, BN): two stages of the B tile

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    // TODO(student): place the warp and the thread. The BM/WM × BN/WN warp tiles must cover the block tile with
    //                every warp owning exactly one of them (warp_row, warp_col count warp tiles), and within a
    //                sub-tile the warp's 32 lanes must cover the (WSUBM/TM) × (WSUBN/TN) grid of register tiles,
    //                one lane each (thread_row, thread_col count register tiles). Number both row by row, so that
    //                neighbouring lanes own neighbouring columns and a warp's shared reads of B are contiguous
    //                (about 4 lines)
    const int warp_row = 0;
    const int warp_col = 0;
    const int thread_row = 0;
    const int thread_col = 0;
    const int tile_row = warp_row * WM + thread_row * TM;  // in the block tile, at sub-tile step (0, 0)
    const int tile_col = warp_col * WN + thread_col * TN;

    float acc[THREAD_M][THREAD_N] = {};  // the thread's outputs, in registers
    float a_reg[THREAD_M];               // column k of the thread's rows of A
    float b_reg[THREAD_N];               // row k of the thread's columns of B

    TileRegisters next;
    // TODO(student): before the loop, stage 0 must hold tile 0 and every thread must see all of it: bring it
    //                in through next with the given helpers (about 3 lines)

    const int num_tiles = ceil_div(K, BK);
    for (int tile = 0; tile < num_tiles; ++tile) {
        const int stage = tile % 2;
        const bool more = tile + 1 < num_tiles;  // the same for every thread: a barrier after it stays uniform
        // TODO(student): start the next tile's global loads now, before the math, so that their latency is
        //                hidden behind it; only if there is a next tile (about 1 line)
        // TODO(student): add this phase's share (stage `stage`) to acc. For each k, read into a_reg the thread's
        //                THREAD_M values of A: TM consecutive ones at each of the WMITER sub-tile steps, WSUBM
        //                rows apart, starting at tile_row; likewise b_reg from B at tile_col, WSUBN columns
        //                apart. Read them as float4s (TM and TN are multiples of 4), then make all
        //                THREAD_M·THREAD_N multiply-adds from registers (about 25 lines)
        // TODO(student): put the next tile into the other stage, which nobody reads in this phase, and make the
        //                whole block wait before the next phase reads it. One barrier per phase is enough: it
        //                also keeps this stage from being overwritten until every thread is done with it. The
        //                barrier must be reached by all threads or by none (about 2 lines)
        unused(stage, more);  // marks these as used so this skeleton builds without warnings; delete it
    }

    // TODO(student): write acc to C, as in lab 5. acc[wm * TM + i][wn * TN + j] is the output at row
    //                tile_row + wm * WSUBM + i, column tile_col + wn * WSUBN + j of the block tile (the layout
    //                the loads above gave it); only elements inside C, float4 stores on the VECTOR path
    //                (about 25 lines)

    // Marks these names as used so this skeleton builds without warnings; delete it once your code uses them.
    unused(A, B, C, M, N, warp, lane, tile_row, tile_col, As, Bs, acc, a_reg, b_reg, next);
}

// ----------------------------------------------------------------------------
// launcher

static bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(THREADS);                          // 1-D: the kernel places warps and lanes itself
    dim3 grid(ceil_div(N, BN), ceil_div(M, BM));  // rounds up: edge blocks hang over C
    // every row of A starts 16-byte aligned when K % 4 == 0, every row of B and C when N % 4 == 0
    if (K % 4 == 0 && N % 4 == 0 && aligned16(A) && aligned16(B) && aligned16(C)) {
        matmul_warptiled_kernel<true><<<grid, block>>>(A, B, C, M, N, K);
    } else {
        matmul_warptiled_kernel<false><<<grid, block>>>(A, B, C, M, N, K);
    }
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}
