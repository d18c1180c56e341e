// Lab 6 reference solution: warp tiling and double buffering, for any M, N, K >= 1, with the tile and a split of
// K chosen per problem.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// FP32 FFMA only: no tensor cores, no inline PTX.
//
// - One kernel template, instantiated for a few tile shapes (TileShape below). Each block computes a BM×BN tile
//   of C with 8 warps, walking its part of K in slices of BK = 16; warp w computes a WM×WN part of the block tile
//   in WMITER×WNITER steps of a sub-tile that the warp's 32 threads cover as a grid of TM×TN = 4×4 register tiles.
// - Shared memory: A stored transposed (As[k][m]), so every shared load is a 16-byte float4 (LDS.128) of 4
//   consecutive floats. A quarter-warp's float4 loads from As hit 2 addresses (a broadcast each) and from
//   Bs 4 consecutive ones: no bank conflicts. The transposed stores are conflict-free without padding: a
//   warp stores 32 consecutive rows m of As[k], one float per bank.
// - Double buffering: two shared-memory stages. While the warps compute on one stage, each thread already has
//   the next tile's global loads in flight into registers; after the math it stores them into the other stage.
//   One __syncthreads() per phase is enough, because a phase writes only the stage nobody reads in it.
// - Split-K: when the tiles of C are too few to keep every multiprocessor busy, K is cut into `splits` ranges of
//   whole phases (gridDim.z). Each block writes its partial sums to a workspace, and a second kernel adds the
//   partials of each element in split order 0, 1, 2, ...: the same order every run, so the result is
//   deterministic (no atomics). A and B are still read once per block column and row: each split reads only
//   its range of K. The price is the workspace: splits·M·N floats written and read again.
// - Edges: the loads of A can be float4s when K % 4 == 0 (then every row of A starts 16-byte aligned), those of
//   B and the stores of C when N % 4 == 0. The launcher decides for A on its own, so an odd K keeps the float4
//   loads of B and stores of C; an N that is not a multiple of 4 takes scalars for all three. Zero fill past the
//   edges, guarded stores.
//
// The launcher (bottom) chooses the tile shape and the split from M, N, K and the multiprocessor count; its
// comment gives the rule and the H100 measurements behind it (docs/results.md).
//
// Tuning: with -D LAB6_BM=... (all of LAB6_BM, BN, BK, WM, WN, WMITER, WNITER, TM, TN, as `make autotune` passes
// them, and LAB6_MIN_BLOCKS, default 1) every problem uses that one tile shape instead, with K split when its
// tiles leave multiprocessors idle (split_count below).
// The valid space (the static_asserts in TileShape reject everything else):
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

#include <cstddef>
#include <cstdint>

#include "lab.h"

namespace warptiled {

template <int BM_, int BN_, int BK_, int WM_, int WN_, int WMITER_, int WNITER_, int TM_, int TN_, int MIN_BLOCKS_>
struct TileShape {
    static constexpr int BM = BM_, BN = BN_, BK = BK_;        // block tile and K slice
    static constexpr int WM = WM_, WN = WN_;                  // warp tile
    static constexpr int WMITER = WMITER_, WNITER = WNITER_;  // sub-tile steps across the warp tile
    static constexpr int TM = TM_, TN = TN_;                  // a thread's register tile per step
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;            // __launch_bounds__: blocks per multiprocessor

    static constexpr int WSUBM = WM / WMITER;                   // rows of one warp sub-tile
    static constexpr int WSUBN = WN / WNITER;                   // columns of one warp sub-tile
    static constexpr int THREADS = 32 * (BM / WM) * (BN / WN);  // one warp per warp tile
    static constexpr int THREAD_M = WMITER * TM;                // a thread's outputs: THREAD_M × THREAD_N
    static constexpr int THREAD_N = WNITER * TN;
    static constexpr int A_LOADS = BM * BK / 4 / THREADS;  // float4s of the A tile each thread loads per phase
    static constexpr int B_LOADS = BK * BN / 4 / THREADS;  // float4s of the B tile

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
};

// The shapes the launcher chooses from. Both keep lab.h's 128 rows and at least its 128 columns, so both stay
// within lab 6's traffic bound; a split of K adds blocks without reading A or B again.
// Wide: 8×16 outputs per thread, one block per multiprocessor, 64×64 warp tiles. Among `make autotune`'s fastest
// at 4096³ on an H100, and in `make bench` the best of them at 1024³ and with an odd K (docs/results.md).
using Wide = TileShape<128, 256, 16, 64, 64, 2, 4, 4, 4, 1>;
// Square: lab.h's shape, 8×8 outputs per thread in at most 128 registers, so two blocks share a multiprocessor.
using Square = TileShape<128, 128, 16, 64, 32, 2, 2, 4, 4, 2>;
#ifdef LAB6_BM
#ifndef LAB6_MIN_BLOCKS
#define LAB6_MIN_BLOCKS 1
#endif
using Tuned =
    TileShape<LAB6_BM, LAB6_BN, LAB6_BK, LAB6_WM, LAB6_WN, LAB6_WMITER, LAB6_WNITER, LAB6_TM, LAB6_TN, LAB6_MIN_BLOCKS>;
#endif

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
template <class T>
struct TileRegisters {
    float4 a[T::A_LOADS];
    float4 b[T::B_LOADS];
};

// Float4 number f of the A tile is rows m = f % BM, columns k = f / BM * 4 .. +3: a warp takes 32 consecutive
// rows, so the stores below go to 32 banks, at a price: each lane's 16 bytes fill half a sector (lesson 6).
// Float4 number f of the B tile is row k = f / (BN/4), columns n = f % (BN/4) * 4 .. +3: a warp reads
// consecutive 16-byte pieces of one row of B.
template <class T, bool VECTOR_A, bool VECTOR_B>
__device__ __forceinline__ void load_tile(TileRegisters<T>& r, const float* A, const float* B, int M, int N, int K,
                                          int tile, int tid) {
#pragma unroll
    for (int i = 0; i < T::A_LOADS; ++i) {
        const int f = tid + i * T::THREADS;
        r.a[i] = load_float4<VECTOR_A>(A, blockIdx.y * T::BM + f % T::BM, tile * T::BK + f / T::BM * 4, M, K);
    }
#pragma unroll
    for (int i = 0; i < T::B_LOADS; ++i) {
        const int f = tid + i * T::THREADS;
        r.b[i] =
            load_float4<VECTOR_B>(B, tile * T::BK + f / (T::BN / 4), blockIdx.x * T::BN + f % (T::BN / 4) * 4, K, N);
    }
}

template <class T>
__device__ __forceinline__ void store_tile(const TileRegisters<T>& r, float (&As)[T::BK][T::BM],
                                           float (&Bs)[T::BK][T::BN], int tid) {
#pragma unroll
    for (int i = 0; i < T::A_LOADS; ++i) {
        const int f = tid + i * T::THREADS;
        const int m = f % T::BM, k = f / T::BM * 4;
        // A goes in transposed: its four values along K become four rows of As
        As[k + 0][m] = r.a[i].x;
        As[k + 1][m] = r.a[i].y;
        As[k + 2][m] = r.a[i].z;
        As[k + 3][m] = r.a[i].w;
    }
#pragma unroll
    for (int i = 0; i < T::B_LOADS; ++i) {
        const int f = tid + i * T::THREADS;
        *reinterpret_cast<float4*>(&Bs[f / (T::BN / 4)][f % (T::BN / 4) * 4]) = r.b[i];
    }
}

// ----------------------------------------------------------------------------
// kernels

// Block (x, y) computes the BM×BN tile (y, x) of C. SPLIT: block (x, y, z) computes it over phases
// z·tiles_per_split .. +tiles_per_split only (fewer in the last split) and stores it in the workspace at
// out + z·M·N. Without SPLIT, out is C and the block runs every phase (a separate instantiation: the split's
// bookkeeping in the unsplit kernel made nvcc schedule its main loop a few per cent slower on an H100).
template <class T, bool VECTOR_A, bool VECTOR_B, bool SPLIT>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS)
    matmul_warptiled_kernel(const float* A, const float* B, float* out, int M, int N, int K, int tiles_per_split) {
    alignas(16) __shared__ float As[2][T::BK][T::BM];  // (2, BK, BM): two stages of the A tile, transposed
    alignas(16) __shared__ float Bs[2][T::BK][T::BN];  // (2, BK, BN): two stages of the B tile
    constexpr int BM = T::BM, BN = T::BN, WM = T::WM, WN = T::WN, TM = T::TM, TN = T::TN;
    constexpr int WSUBM = T::WSUBM, WSUBN = T::WSUBN;

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int warp_row = warp / (BN / WN);  // the warp's tile: rows warp_row*WM .., columns warp_col*WN ..
    const int warp_col = warp % (BN / WN);
    const int thread_row = lane / (WSUBN / TN);  // the thread's TM×TN tile within each sub-tile
    const int thread_col = lane % (WSUBN / TN);
    const int tile_row = warp_row * WM + thread_row * TM;  // in the block tile, at sub-tile step (0, 0)
    const int tile_col = warp_col * WN + thread_col * TN;

    // this block's phases; the launcher leaves no split empty, so there is at least one
    const int first_tile = SPLIT ? blockIdx.z * tiles_per_split : 0;
    const int left = ceil_div(K, T::BK) - first_tile;
    const int num_tiles = SPLIT && tiles_per_split < left ? tiles_per_split : left;
    float* C = SPLIT ? out + size_t(blockIdx.z) * M * N : out;

    float acc[T::THREAD_M][T::THREAD_N] = {};  // the thread's outputs, in registers
    float a_reg[T::THREAD_M];                  // column k of the thread's rows of A
    float b_reg[T::THREAD_N];                  // row k of the thread's columns of B

    TileRegisters<T> next;
    load_tile<T, VECTOR_A, VECTOR_B>(next, A, B, M, N, K, first_tile, tid);
    store_tile<T>(next, As[0], Bs[0], tid);
    __syncthreads();  // stage 0 is complete

    for (int tile = 0; tile < num_tiles; ++tile) {
        const int stage = tile % 2;
        const bool more = tile + 1 < num_tiles;  // the same for every thread: the barrier below is uniform
        if (more) load_tile<T, VECTOR_A, VECTOR_B>(next, A, B, M, N, K, first_tile + tile + 1, tid);  // in flight

#pragma unroll
        for (int k = 0; k < T::BK; ++k) {
#pragma unroll
            for (int wm = 0; wm < T::WMITER; ++wm) {
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
            for (int wn = 0; wn < T::WNITER; ++wn) {
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
            for (int m = 0; m < T::THREAD_M; ++m) {
#pragma unroll
                for (int n = 0; n < T::THREAD_N; ++n) acc[m][n] += a_reg[m] * b_reg[n];
            }
        }

        // the other stage: its last readers finished before the previous barrier
        if (more) store_tile<T>(next, As[stage ^ 1], Bs[stage ^ 1], tid);
        __syncthreads();  // the next stage is complete, and nobody still reads this one when it is refilled
    }

#pragma unroll
    for (int wm = 0; wm < T::WMITER; ++wm) {
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = blockIdx.y * BM + tile_row + wm * WSUBM + i;
            if (row >= M) continue;  // edge blocks hold outputs outside C
            const int m = wm * TM + i;
#pragma unroll
            for (int wn = 0; wn < T::WNITER; ++wn) {
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    const int col = blockIdx.x * BN + tile_col + wn * WSUBN + j;
                    const int n = wn * TN + j;
                    float* dst = &C[row * N + col];
                    if (VECTOR_B) {
                        // N % 4 == 0 and col % 4 == 0: the float4 is aligned, all inside C or all outside
                        if (col < N)
                            *reinterpret_cast<float4*>(dst) =
                                make_float4(acc[m][n], acc[m][n + 1], acc[m][n + 2], acc[m][n + 3]);
                    } else {
                        if (col < N) dst[0] = acc[m][n];
                        if (col + 1 < N) dst[1] = acc[m][n + 1];
                        if (col + 2 < N) dst[2] = acc[m][n + 2];
                        if (col + 3 < N) dst[3] = acc[m][n + 3];
                    }
                }
            }
        }
    }
}

// C = the sum of the splits' partial products, each M×N in `partials`, one after another. Thread i adds element
// i (VECTOR: elements 4i .. 4i+3, when M·N % 4 == 0) of split 0, then 1, 2, ...: a fixed order, so the same
// inputs give the same bits every run.
template <bool VECTOR>
__global__ void splitk_sum_kernel(const float* partials, float* C, int elements, int splits) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = size_t(elements);
    if (VECTOR) {
        if (4 * i >= elements) return;
        float4 sum = reinterpret_cast<const float4*>(partials)[i];
        for (int s = 1; s < splits; ++s) {
            const float4 p = reinterpret_cast<const float4*>(partials + s * stride)[i];
            sum.x += p.x;
            sum.y += p.y;
            sum.z += p.z;
            sum.w += p.w;
        }
        reinterpret_cast<float4*>(C)[i] = sum;
    } else {
        if (i >= elements) return;
        float sum = partials[i];
        for (int s = 1; s < splits; ++s) sum += partials[s * stride + i];
        C[i] = sum;
    }
}

// ----------------------------------------------------------------------------
// launcher

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// The multiprocessor count of the current device, asked once: cudaGetDeviceProperties is too slow to call per
// launch.
int multiprocessors() {
    static int count = 0;
    if (count == 0) {
        int device = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        cudaDeviceProp prop;
        CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
        count = prop.multiProcessorCount;
    }
    return count;
}

// The device's default memory pool, which cudaMallocAsync draws on, keeps the memory given back to it instead
// of returning it to the GPU at the next synchronisation (its release threshold, 0 by default); otherwise every
// call maps the workspace afresh, which halved the speed at 512³ on an H100. Set on every call that splits: a
// cudaDeviceReset() forgets it.
void keep_pool_memory() {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaMemPool_t pool;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    uint64_t keep_all = UINT64_MAX;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
}

// K cut into ranges of ceil(phases / splits) phases: 9 phases asked to split 4 ways are 3 ranges of 3, so no
// range is empty.
int splits_made(int phases, int splits) { return ceil_div(phases, ceil_div(phases, splits)); }

// How many ranges to cut K into for a grid of `tiles` output tiles when `slots` blocks run at once: enough to
// fill the slots, but every range keeps at least MIN_SPLIT_PHASES phases, so the prologue and the partials'
// stores stay small next to the math.
constexpr int MIN_SPLIT_PHASES = 4;

int split_count(int tiles, int slots, int phases) {
    if (tiles >= slots) return 1;
    const int wanted = slots / tiles;
    const int longest = phases / MIN_SPLIT_PHASES;
    return longest < 2 ? 1 : (wanted < longest ? wanted : longest);
}

// Tile shape T over the whole of K, straight into C; VECTOR_A: float4 loads of A (K % 4 == 0), B and C always
// float4 (N % 4 == 0).
template <class T, bool VECTOR_A>
void launch_unsplit(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 grid(ceil_div(N, T::BN), ceil_div(M, T::BM));  // rounds up: edge blocks hang over C
    matmul_warptiled_kernel<T, VECTOR_A, true, false><<<grid, T::THREADS>>>(A, B, C, M, N, K, ceil_div(K, T::BK));
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}

// Tile shape T with K cut into (up to) `splits` ranges of whole phases; one range writes C directly. VECTOR_A:
// float4 loads of A (K % 4 == 0); VECTOR_B: float4 loads of B and float4 stores of C and the partials
// (N % 4 == 0). (Each instantiation of these kernels costs the emulator's compiler about two seconds, so the
// launcher uses five of the eight combinations of tile, split and paths; not an aligned A with an unaligned B.)
// The partials' workspace is allocated in stream order (cudaMallocAsync) and given back after the kernel that adds
// them: no call waits for the device, the pool hands the same memory to the next call, and nothing is kept from
// call to call that a cudaDeviceReset() could take away (a buffer kept in a static would be freed by it, and the
// next call would write to freed memory).
template <class T, bool VECTOR_A, bool VECTOR_B>
void launch_split(const float* A, const float* B, float* C, int M, int N, int K, int splits) {
    const int phases = ceil_div(K, T::BK);
    const int tiles_per_split = ceil_div(phases, splits);
    splits = splits_made(phases, splits);
    float* out = C;
    if (splits > 1) {
        keep_pool_memory();
        CUDA_CHECK(cudaMallocAsync(&out, size_t(splits) * M * N * sizeof(float), 0));
    }
    dim3 grid(ceil_div(N, T::BN), ceil_div(M, T::BM), splits);  // z: the ranges of K
    matmul_warptiled_kernel<T, VECTOR_A, VECTOR_B, true><<<grid, T::THREADS>>>(A, B, out, M, N, K, tiles_per_split);
    CUDA_CHECK(cudaGetLastError());
    if (splits == 1) return;
    const int elements = M * N, threads = 256;
    if (VECTOR_B) {  // M·N % 4 == 0
        splitk_sum_kernel<true><<<ceil_div(elements / 4, threads), threads>>>(out, C, elements, splits);
    } else {
        splitk_sum_kernel<false><<<ceil_div(elements, threads), threads>>>(out, C, elements, splits);
    }
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaFreeAsync(out, 0));
}

}  // namespace warptiled

// The choice, from M, N, K, the pointers' alignment and the multiprocessor count (132 on an H100):
// - The wide 128×256 tile, one block of 8×16 outputs per thread on each multiprocessor, is the fastest when its
//   tiles alone keep at least 3/4 of the multiprocessors busy (2048³: 128 tiles for 132 SMs) and B and C take
//   float4s; A's loads are float4s or scalars as K allows.
// - Otherwise lab.h's 128×128 tile (8×8 outputs per thread, two blocks per multiprocessor), with K split to fill
//   2 × 132 slots: 512³ has 16 tiles, split 8 ways (32 phases, 4 each) into 128 blocks, one on each of 128 SMs,
//   where the wide tile would have kept 8 busy; 1000×800·800×1200 has 80 tiles, split 3 ways.
void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    using namespace warptiled;
    const int sms = multiprocessors();
    // every row of A starts 16-byte aligned when K % 4 == 0, every row of B, C and the partials when N % 4 == 0
    const bool vector_a = K % 4 == 0 && aligned16(A);
    const bool vector_b = N % 4 == 0 && aligned16(B) && aligned16(C);
#ifdef LAB6_BM
    using Split = Tuned;  // -D LAB6_...: every problem on that one shape
#else
    using Split = Square;
    const int wide_tiles = ceil_div(M, Wide::BM) * ceil_div(N, Wide::BN);
    const int busy = wide_tiles < sms ? wide_tiles : sms;  // multiprocessors with a block to run
    if (vector_b && 4 * busy >= 3 * sms) {
        if (vector_a) {
            launch_unsplit<Wide, true>(A, B, C, M, N, K);
        } else {
            launch_unsplit<Wide, false>(A, B, C, M, N, K);
        }
        return;
    }
#endif
    const int phases = ceil_div(K, Split::BK);
    const int tiles = ceil_div(M, Split::BM) * ceil_div(N, Split::BN);
    const int splits = split_count(tiles, sms * Split::MIN_BLOCKS, phases);
    if (vector_a && vector_b) {
        launch_split<Split, true, true>(A, B, C, M, N, K, splits);
    } else if (vector_b) {
        launch_split<Split, false, true>(A, B, C, M, N, K, splits);  // an odd K: B and C stay float4s
    } else {
        launch_split<Split, false, false>(A, B, C, M, N, K, splits);
    }
}
