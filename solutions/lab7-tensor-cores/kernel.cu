// Lab 7 reference solution: tensor cores through the WMMA API, TF32 inputs and FP32 accumulators, fed by a
// multi-stage pipeline of asynchronous copies, for any M, N, K >= 1.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// WMMA (nvcuda::wmma) and the pipeline primitives of <cuda_pipeline.h> only: no inline PTX.
//
// - One kernel template (TileShape below). Each block computes a BM×BN tile of C with 8 warps, walking K in
//   slices of BK = 32. Warp w computes a WM×WN part of the block tile as FM×FN accumulator fragments of 16×16
//   floats; per slice it takes BK/8 steps of 8 along K, loads FM fragments of A (16×8) and FN of B (8×16) from
//   shared memory and issues FM·FN m16n16k8 multiply-adds, each fragment of A used FN times, each of B FM times.
// - TF32: a tensor core reads 10 of a float's 23 mantissa bits. Each fragment element is rounded to nearest with
//   wmma::__float_to_tf32 after its load; left alone, the hardware would drop the low 13 bits (truncation: a
//   relative error up to 2^-10 instead of 2^-11, always towards zero, so the errors of a dot product add up instead
//   of cancelling). On an H100 at 4096³ the conversion made the kernel about 9 % slower (gemm_bench, against
//   -D LAB7_TRUNCATE), and its worst error, measured against the bench's bound, 2.7 times smaller: the same as
//   cuBLAS TF32's. We keep the rounding: a reference should be as accurate as the library it is compared with.
// - Shared memory (dynamic: more than 48 KiB): STAGES buffers, each holding the A slice As[BM][BK + 4] and the
//   B slice Bs[BK][BN + 8]. The padding shifts consecutive rows by 4 banks (A) and 8 banks (B), so the 32 lanes of a
//   fragment load, which read 8 rows × 4 columns of A or 4 rows × 8 columns of B, hit 32 different banks. It keeps
//   the WMMA rules: every fragment starts on a 32-byte boundary (a 16-row step of As is 16·36·4 bytes, an 8-row step
//   of Bs 8·136·4) and the leading dimensions, 36 and 136 floats, are multiples of 4 floats (16 bytes).
// - The pipeline: __pipeline_memcpy_async copies global to shared memory without passing through registers, and
//   each thread commits its copies of one slice as a group. STAGES − 1 slices are in flight before the loop; each
//   phase waits for the oldest group (__pipeline_wait_prior), then a __syncthreads() makes every thread's copies
//   visible to every warp and tells that nobody still reads the buffer of the previous phase, which then receives
//   the slice STAGES − 1 phases ahead while the tensor cores work on this one. One barrier per phase.
// - Edges: copies are 16 bytes (4 floats) when every row of A starts 16-byte aligned (K % 4 == 0) and every row of
//   B (N % 4 == 0), else 4 bytes. A copy that reaches past the matrix zero-fills (the last argument of
//   __pipeline_memcpy_async: bytes of zeros instead of data), and one wholly outside reads nothing: 0 adds nothing
//   to a dot product. A fragment of C goes straight to global memory with store_matrix_sync when its 16×16 floats
//   lie inside C and N % 4 == 0 (the leading dimension rule; C from cudaMalloc and 16-row steps keep the 32-byte
//   alignment); otherwise through a per-warp 16×16 scratch in shared memory, from which the lanes store the
//   elements inside C one by one.
//
// - What limits it: for TF32, nvcc passes load_matrix_sync a generic pointer (for half it proves the pointer
//   shared), so every fragment element is a generic 32-bit load with its own 64-bit address arithmetic, and the
//   wmma m16n16k8 product is four HMMA.1684 instructions. Most instructions issued are address arithmetic, and
//   the generic loads wait on the long scoreboard like global ones; make profile LAB=7 shows the tensor pipe well
//   short of busy. Closing the gap to cuBLAS takes what the WMMA API does not offer: ldmatrix-style shared loads,
//   wgmma and TMA.
// - What did not help (H100, 4096³, gemm_bench, each against this kernel in the same run, all within 2 %): loading
//   the fragments of step k + 8 before the multiply-adds of step k (two sets of fragment registers); a main loop
//   unrolled by STAGES so that every shared-memory offset is a constant; 128×128 tiles of 4 warps of 64×64, two
//   blocks per multiprocessor; 4 stages; 256×128 tiles. Slower: rounding each slice in shared memory once, by the
//   threads that copied it, before the barrier (about 8 %: the work waits for every warp instead of overlapping the
//   tensor cores), and 16 warps of 64×32 (about 13 %). The accumulators and fragments of a 64×64 warp tile already
//   fill the 255 registers, so there is no room for deeper software pipelining or a larger warp tile.
//
// The launcher (bottom) chooses the tile shape from M, N and the multiprocessor count; its comment gives the rule
// and the H100 measurements behind it.
//
// Tuning: -D LAB7_BM=... (all of LAB7_BM, BN, BK, WM, WN, STAGES, MIN_BLOCKS) makes every problem use that one tile
// shape; -D LAB7_TRUNCATE leaves the inputs to the hardware's truncation instead of rounding them.
//
// Test:         make lab7 KERNEL=solutions/lab7-tensor-cores/kernel.cu
// Compile only: nvcc -arch=sm_90 -std=c++17 -I common -I labs/lab7-tensor-cores -c solutions/lab7-tensor-cores/kernel.cu

#include <cstdint>

#include <cuda_pipeline.h>
#include <mma.h>

#include "lab.h"

namespace tensorcore {

using namespace nvcuda;

constexpr int FRAG = 16;   // a fragment of C is FRAG×FRAG floats
constexpr int FRAG_K = 8;  // m16n16k8: K per multiply-add in TF32
constexpr int A_PAD = 4;   // floats added to each row of As: rows 4 banks apart
constexpr int B_PAD = 8;   // and of Bs: rows 8 banks apart

#ifdef LAB7_TRUNCATE
constexpr bool ROUND_TO_TF32 = false;
#else
constexpr bool ROUND_TO_TF32 = true;
#endif

template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int MIN_BLOCKS_>
struct TileShape {
    static constexpr int BM = BM_, BN = BN_, BK = BK_;  // block tile and K slice
    static constexpr int WM = WM_, WN = WN_;            // warp tile
    static constexpr int STAGES = STAGES_;              // shared-memory buffers in the pipeline
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;      // __launch_bounds__: blocks per multiprocessor

    static constexpr int FM = WM / FRAG, FN = WN / FRAG;        // a warp's fragments of C: FM×FN
    static constexpr int THREADS = 32 * (BM / WM) * (BN / WN);  // one warp per warp tile
    static constexpr int LDA = BK + A_PAD;                      // row length of As, in floats
    static constexpr int LDB = BN + B_PAD;                      // of Bs
    static constexpr int A_FLOATS = BM * LDA;                   // one stage of As
    static constexpr int STAGE_FLOATS = A_FLOATS + BK * LDB;    // one stage: As, then Bs
    static constexpr int SHARED_BYTES = STAGES * STAGE_FLOATS * int(sizeof(float));

    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block tile");
    static_assert(WM % FRAG == 0 && WN % FRAG == 0 && BK % FRAG_K == 0, "fragments cover the warp tile and slice");
    static_assert(THREADS <= 1024, "a block holds at most 1024 threads");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
                  "every thread copies the same whole number of 4-float pieces of each slice");
    static_assert(A_FLOATS % 8 == 0 && STAGE_FLOATS % 8 == 0 && (FRAG * LDA) % 8 == 0 && (FRAG_K * LDB) % 8 == 0,
                  "every fragment in shared memory starts 32 bytes aligned");
    static_assert(STAGES >= 2, "a pipeline needs a buffer to fill while another is read");
    static_assert(STAGES * STAGE_FLOATS >= (THREADS / 32) * FRAG * FRAG, "the epilogue's scratch fits");
};

// The shapes the launcher chooses from, both with 8 warps and BK = 32.
// Wide: 128×256, 64×64 warp tiles (4×4 fragments: 128 accumulator registers per thread), one block per
// multiprocessor. Square: lab.h's 128×128 with 64×32 warp tiles (4×2 fragments), two blocks per multiprocessor.
using Wide = TileShape<128, 256, 32, 64, 64, 3, 1>;
using Square = TileShape<BM, BN, BK, WM, WN, STAGES, 2>;
#ifdef LAB7_BM
using Tuned = TileShape<LAB7_BM, LAB7_BN, LAB7_BK, LAB7_WM, LAB7_WN, LAB7_STAGES, LAB7_MIN_BLOCKS>;
#endif

// An asynchronous copy of BYTES bytes from matrix[index] (global) to shared dst, or, outside the matrix, BYTES
// zeros: the copy then reads 0 bytes (the zero-fill argument equals the size) and is given the matrix's first
// element, so no pointer past the matrix is ever formed. Both calls have a constant zero-fill: a value known only
// at run time costs a switch over every possible one inside <cuda_pipeline.h>.
template <int BYTES>
__device__ __forceinline__ void copy_or_zero(float* dst, const float* matrix, size_t index, bool inside) {
    if (inside) {
        __pipeline_memcpy_async(dst, matrix + index, BYTES);
    } else {
        __pipeline_memcpy_async(dst, matrix, BYTES, BYTES);  // zero-fill past the edge: 0 adds nothing
    }
}

// Starts the copy of slice `tile` of A and B into one stage (As, Bs) of shared memory. Piece f of the A slice is
// row f / (BK/4) of the block tile, columns f % (BK/4) · 4 .. +3 of the slice: 8 consecutive threads copy one row's
// 128 contiguous bytes, and so do those of B. VECTOR: one 16-byte copy per piece (the launcher guarantees
// K % 4 == 0 and N % 4 == 0, so a piece lies wholly inside or outside its matrix); else four 4-byte copies.
template <class T, bool VECTOR>
__device__ __forceinline__ void load_tile(float* As, float* Bs, const float* A, const float* B, int M, int N, int K,
                                          int tile, int tid) {
    constexpr int A_PIECES = T::BM * T::BK / 4 / T::THREADS, B_PIECES = T::BK * T::BN / 4 / T::THREADS;
    const int k0 = tile * T::BK;
#pragma unroll
    for (int i = 0; i < A_PIECES; ++i) {
        const int f = tid + i * T::THREADS;
        const int m = f / (T::BK / 4), k = f % (T::BK / 4) * 4;
        const int row = blockIdx.y * T::BM + m, col = k0 + k;
        float* dst = &As[m * T::LDA + k];
        if (VECTOR) {
            copy_or_zero<16>(dst, A, size_t(row) * K + col, row < M && col < K);
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) copy_or_zero<4>(dst + j, A, size_t(row) * K + col + j, row < M && col + j < K);
        }
    }
#pragma unroll
    for (int i = 0; i < B_PIECES; ++i) {
        const int f = tid + i * T::THREADS;
        const int k = f / (T::BN / 4), n = f % (T::BN / 4) * 4;
        const int row = k0 + k, col = blockIdx.x * T::BN + n;
        float* dst = &Bs[k * T::LDB + n];
        if (VECTOR) {
            copy_or_zero<16>(dst, B, size_t(row) * N + col, row < K && col < N);
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) copy_or_zero<4>(dst + j, B, size_t(row) * N + col + j, row < K && col + j < N);
        }
    }
}

template <class Fragment>
__device__ __forceinline__ void round_to_tf32(Fragment& frag) {
    if (ROUND_TO_TF32) {
#pragma unroll
        for (int t = 0; t < frag.num_elements; ++t) frag.x[t] = wmma::__float_to_tf32(frag.x[t]);
    }
}

// ----------------------------------------------------------------------------
// kernel

// Block (x, y) computes the BM×BN tile (y, x) of C. VECTOR: 16-byte copies of A and B (see load_tile).
template <class T, bool VECTOR>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS)
    matmul_wmma_kernel(const float* A, const float* B, float* C, int M, int N, int K, bool store_direct) {
    extern __shared__ __align__(128) float smem[];  // STAGES × (As (BM, BK + 4), then Bs (BK, BN + 8))
    constexpr int FM = T::FM, FN = T::FN;

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int warp_row = warp / (T::BN / T::WN);  // the warp's tile: rows warp_row*WM .., columns warp_col*WN ..
    const int warp_col = warp % (T::BN / T::WN);
    const int num_tiles = ceil_div(K, T::BK);
    const float* a_warp = smem + warp_row * T::WM * T::LDA;  // in stage 0
    const float* b_warp = smem + T::A_FLOATS + warp_col * T::WN;

    wmma::fragment<wmma::accumulator, FRAG, FRAG, FRAG_K, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    }

    // the first STAGES − 1 slices in flight; a group is committed even when empty, so that "all but the newest
    // STAGES − 2 groups" below always means the slice about to be used
#pragma unroll
    for (int s = 0; s < T::STAGES - 1; ++s) {
        float* stage = smem + s * T::STAGE_FLOATS;
        if (s < num_tiles) load_tile<T, VECTOR>(stage, stage + T::A_FLOATS, A, B, M, N, K, s, tid);
        __pipeline_commit();
    }

    for (int tile = 0; tile < num_tiles; ++tile) {
        __pipeline_wait_prior(T::STAGES - 2);  // this thread's copies of slice `tile` have landed
        __syncthreads();  // everyone's have, and nobody still reads the buffer of slice tile − 1 either

        const int next = tile + T::STAGES - 1;  // into the buffer slice tile − 1 used
        if (next < num_tiles) {
            float* stage = smem + next % T::STAGES * T::STAGE_FLOATS;
            load_tile<T, VECTOR>(stage, stage + T::A_FLOATS, A, B, M, N, K, next, tid);
        }
        __pipeline_commit();

        // this warp's rows of the A slice and columns of the B slice; every fragment below is a constant offset
        const float* As = a_warp + tile % T::STAGES * T::STAGE_FLOATS;  // (WM, LDA)
        const float* Bs = b_warp + tile % T::STAGES * T::STAGE_FLOATS;  // (BK, LDB), columns from warp_col*WN
#pragma unroll
        for (int k = 0; k < T::BK; k += FRAG_K) {
            wmma::fragment<wmma::matrix_a, FRAG, FRAG, FRAG_K, wmma::precision::tf32, wmma::row_major> a[FM];
            wmma::fragment<wmma::matrix_b, FRAG, FRAG, FRAG_K, wmma::precision::tf32, wmma::row_major> b[FN];
#pragma unroll
            for (int i = 0; i < FM; ++i) {
                wmma::load_matrix_sync(a[i], As + i * FRAG * T::LDA + k, T::LDA);
                round_to_tf32(a[i]);
            }
#pragma unroll
            for (int j = 0; j < FN; ++j) {
                wmma::load_matrix_sync(b[j], Bs + k * T::LDB + j * FRAG, T::LDB);
                round_to_tf32(b[j]);
            }
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
    }

    // The epilogue. The scratch reuses the pipeline's buffers: wait until no copy is left in flight (the last
    // groups are empty, but the rule is the rule) and no warp still reads a slice.
    __pipeline_wait_prior(0);
    __syncthreads();
    float* scratch = smem + warp * FRAG * FRAG;  // (FRAG, FRAG): this warp's, 1 KiB, 32-byte aligned
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int row = blockIdx.y * T::BM + warp_row * T::WM + i * FRAG;  // the fragment's first element
            const int col = blockIdx.x * T::BN + warp_col * T::WN + j * FRAG;
            if (row >= M || col >= N) continue;  // wholly outside C (the same for the whole warp)
            if (store_direct && row + FRAG <= M && col + FRAG <= N) {
                wmma::store_matrix_sync(&C[size_t(row) * N + col], acc[i][j], N, wmma::mem_row_major);
            } else {
                wmma::store_matrix_sync(scratch, acc[i][j], FRAG, wmma::mem_row_major);
                __syncwarp();  // the fragment is in the scratch for every lane
                for (int e = lane; e < FRAG * FRAG; e += 32) {
                    const int r = row + e / FRAG, c = col + e % FRAG;
                    if (r < M && c < N) C[size_t(r) * N + c] = scratch[e];
                }
                __syncwarp();  // every lane has read the scratch before the next fragment overwrites it
            }
        }
    }
}

// ----------------------------------------------------------------------------
// launcher

bool aligned(const void* p, int bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

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

template <class T, bool VECTOR>
void launch(const float* A, const float* B, float* C, int M, int N, int K, bool store_direct) {
    // more than 48 KiB of dynamic shared memory must be asked for; the attribute stays set, so ask once
    static bool attribute_set = false;
    if (!attribute_set) {
        CUDA_CHECK(cudaFuncSetAttribute(matmul_wmma_kernel<T, VECTOR>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        T::SHARED_BYTES));
        attribute_set = true;
    }
    dim3 grid(ceil_div(N, T::BN), ceil_div(M, T::BM));  // rounds up: edge blocks hang over C
    matmul_wmma_kernel<T, VECTOR><<<grid, T::THREADS, T::SHARED_BYTES>>>(A, B, C, M, N, K, store_direct);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}

template <class T>
void launch(const float* A, const float* B, float* C, int M, int N, int K) {
    // every row of A starts 16-byte aligned when K % 4 == 0, every row of B when N % 4 == 0
    const bool vector = K % 4 == 0 && N % 4 == 0 && aligned(A, 16) && aligned(B, 16);
    // store_matrix_sync: leading dimension a multiple of 4 floats, the pointer 32-byte aligned
    const bool store_direct = N % 4 == 0 && aligned(C, 32);
    if (vector) {
        launch<T, true>(A, B, C, M, N, K, store_direct);
    } else {
        launch<T, false>(A, B, C, M, N, K, store_direct);
    }
}

}  // namespace tensorcore

// The choice, from M, N and the multiprocessor count (132 on an H100):
// - The wide 128×256 tile, one block per multiprocessor, when its tiles alone keep at least 3/4 of the
//   multiprocessors busy (4096³: 512 tiles for 132 SMs).
// - Otherwise lab.h's 128×128 tile, two blocks per multiprocessor: twice the blocks for a problem too small to fill
//   the GPU with wide tiles (1024³: 64 square tiles instead of 32 wide ones).
// K is never split: at 512³ the 16 blocks leave most multiprocessors idle, and there lab 6's split-K reference is
// the faster one (make bench).
// The shapes were chosen by timing at 4096³ on an H100 (-D LAB7_...): 128×256 and 256×128 with 64×64 warp tiles
// and 3 or 4 stages came out within a few per cent of each other; 128×128 tiles, one or two blocks per
// multiprocessor, and BK = 16 were slower.
void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    using namespace tensorcore;
#ifdef LAB7_BM
    launch<Tuned>(A, B, C, M, N, K);  // -D LAB7_...: every problem on that one shape
#else
    const int sms = multiprocessors();
    const int wide_tiles = ceil_div(M, Wide::BM) * ceil_div(N, Wide::BN);
    if (4 * wide_tiles >= 3 * sms) {
        launch<Wide>(A, B, C, M, N, K);
    } else {
        launch<Square>(A, B, C, M, N, K);
    }
#endif
}
