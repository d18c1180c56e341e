// Lab 7: tensor cores through WMMA, TF32 inputs and FP32 sums, for any M, N, K >= 1.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// The block tile is lab 6's, BM×BN = 128×128 with 8 warps, and each warp computes a WM×WN = 64×32 part of it; but
// the warp's multiply-adds are now tensor-core instructions. A warp holds its 64×32 outputs as FM×FN = 4×2
// accumulator fragments of 16×16 floats, and for every 8 values of K it loads FM fragments of A (16×8) and FN of B
// (8×16) from shared memory and issues FM·FN wmma::mma_sync, each a 16×16×8 product.
// Given: the shared-memory layout, the asynchronous copies that bring each slice of K into one of STAGES buffers
// (load_tile), the pipeline's prologue, and the launcher. Fill in the TODO(student) lines: when a slice may be
// read, the fragments and the products, and the stores of C. As handed out it builds, runs, and leaves C untouched,
// so every test fails until the work is done.
//
// Build and test: make lab7
// Compile only:   nvcc -arch=sm_90 -std=c++17 -I common -I labs/lab7-tensor-cores -c labs/lab7-tensor-cores/kernel.cu

#include <cstdint>

#include <cuda_pipeline.h>
#include <mma.h>

#include "lab.h"

using namespace nvcuda;

constexpr int FRAG = 16;       // a fragment of C is FRAG×FRAG floats
constexpr int FRAG_K = 8;      // m16n16k8: 8 values of K per TF32 product
constexpr int FM = WM / FRAG;  // a warp's fragments of C: FM×FN
constexpr int FN = WN / FRAG;
constexpr int THREADS = 32 * (BM / WM) * (BN / WN);  // one warp per warp tile
constexpr int LDA = BK + 4;                          // row length of As in floats: rows 4 banks apart
constexpr int LDB = BN + 8;                          // of Bs: rows 8 banks apart
constexpr int A_FLOATS = BM * LDA;                   // one stage of As
constexpr int STAGE_FLOATS = A_FLOATS + BK * LDB;    // one stage: As, then Bs
constexpr int SHARED_BYTES = STAGES * STAGE_FLOATS * int(sizeof(float));

static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block tile");
static_assert(WM % FRAG == 0 && WN % FRAG == 0 && BK % FRAG_K == 0, "fragments cover the warp tile and the slice");
static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
              "every thread copies the same whole number of 4-float pieces of each slice");
// load_matrix_sync and store_matrix_sync need a 32-byte aligned pointer and a leading dimension that is a multiple
// of 16 bytes (4 floats): true of every fragment below when these hold
static_assert(A_FLOATS % 8 == 0 && STAGE_FLOATS % 8 == 0 && (FRAG * LDA) % 8 == 0 && (FRAG_K * LDB) % 8 == 0,
              "every fragment in shared memory starts 32 bytes aligned");
static_assert(LDA % 4 == 0 && LDB % 4 == 0, "leading dimensions are multiples of 16 bytes");

// An asynchronous copy of BYTES bytes from matrix[index] to shared dst, or, outside the matrix, BYTES zeros (the
// zero-fill argument, equal to the size, reads nothing; the matrix's first element stands in as the source).
template <int BYTES>
__device__ __forceinline__ void copy_or_zero(float* dst, const float* matrix, size_t index, bool inside) {
    if (inside) {
        __pipeline_memcpy_async(dst, matrix + index, BYTES);
    } else {
        __pipeline_memcpy_async(dst, matrix, BYTES, BYTES);  // zero-fill past the edge: 0 adds nothing
    }
}

// Starts the copies of slice `tile` of A and B into one stage (As: BM rows of LDA, Bs: BK rows of LDB). Piece f of
// the A slice is row f / (BK/4), columns f % (BK/4) · 4 .. +3; of B, row f / (BN/4), columns f % (BN/4) · 4 .. +3.
// VECTOR: 16-byte copies (the launcher guarantees K % 4 == 0 and N % 4 == 0: a piece is wholly inside or outside);
// else four 4-byte copies, each checked on its own.
template <bool VECTOR>
__device__ __forceinline__ void load_tile(float* As, float* Bs, const float* A, const float* B, int M, int N, int K,
                                          int tile, int tid) {
    constexpr int A_PIECES = BM * BK / 4 / THREADS, B_PIECES = BK * BN / 4 / THREADS;
    const int k0 = tile * BK;
#pragma unroll
    for (int i = 0; i < A_PIECES; ++i) {
        const int f = tid + i * THREADS;
        const int m = f / (BK / 4), k = f % (BK / 4) * 4;
        const int row = blockIdx.y * BM + m, col = k0 + k;
        float* dst = &As[m * LDA + k];
        if (VECTOR) {
            copy_or_zero<16>(dst, A, size_t(row) * K + col, row < M && col < K);
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) copy_or_zero<4>(dst + j, A, size_t(row) * K + col + j, row < M && col + j < K);
        }
    }
#pragma unroll
    for (int i = 0; i < B_PIECES; ++i) {
        const int f = tid + i * THREADS;
        const int k = f / (BN / 4), n = f % (BN / 4) * 4;
        const int row = k0 + k, col = blockIdx.x * BN + n;
        float* dst = &Bs[k * LDB + n];
        if (VECTOR) {
            copy_or_zero<16>(dst, B, size_t(row) * N + col, row < K && col < N);
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) copy_or_zero<4>(dst + j, B, size_t(row) * N + col + j, row < K && col + j < N);
        }
    }
}

// ----------------------------------------------------------------------------
// kernel

// Block (x, y) computes the BM×BN tile (y, x) of C. store_direct: C's rows allow store_matrix_sync straight to
// global memory (N % 4 == 0, C 32-byte aligned).
template <bool VECTOR>
__global__ void __launch_bounds__(THREADS, 2)
    matmul_wmma_kernel(const float* A, const float* B, float* C, int M, int N, int K, bool store_direct) {
    extern __shared__ __align__(128) float smem[];  // STAGES × (As (BM, LDA), then Bs (BK, LDB))

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int warp_row = warp / (BN / WN);  // the warp's tile: rows warp_row*WM .., columns warp_col*WN ..
    const int warp_col = warp % (BN / WN);
    const int num_tiles = ceil_div(K, BK);

    wmma::fragment<wmma::accumulator, FRAG, FRAG, FRAG_K, float> acc[FM][FN];
    for (int i = 0; i < FM; ++i)
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    // the first STAGES − 1 slices in flight; a group is committed even when empty, so that "all but the newest
    // STAGES − 2 groups" always means the slice about to be used
    for (int s = 0; s < STAGES - 1; ++s) {
        float* stage = smem + s * STAGE_FLOATS;
        if (s < num_tiles) load_tile<VECTOR>(stage, stage + A_FLOATS, A, B, M, N, K, s, tid);
        __pipeline_commit();
    }

    for (int tile = 0; tile < num_tiles; ++tile) {
        // TODO(student): make slice `tile` safe to read. This thread's copies of it must have landed (wait for all
        //                but the newest STAGES − 2 groups: __pipeline_wait_prior), and so must every other
        //                thread's; and no warp may still be reading the buffer that the copies below overwrite (the
        //                one slice tile − 1 used). One call each.

        const int next = tile + STAGES - 1;  // into the buffer slice tile − 1 used
        if (next < num_tiles) {
            float* stage = smem + next % STAGES * STAGE_FLOATS;
            load_tile<VECTOR>(stage, stage + A_FLOATS, A, B, M, N, K, next, tid);
        }
        __pipeline_commit();

        const float* As = smem + tile % STAGES * STAGE_FLOATS;  // (BM, LDA): this slice of A
        const float* Bs = As + A_FLOATS;                        // (BK, LDB): this slice of B
        for (int k = 0; k < BK; k += FRAG_K) {
            wmma::fragment<wmma::matrix_a, FRAG, FRAG, FRAG_K, wmma::precision::tf32, wmma::row_major> a[FM];
            wmma::fragment<wmma::matrix_b, FRAG, FRAG, FRAG_K, wmma::precision::tf32, wmma::row_major> b[FN];
            // TODO(student): load the warp's FM fragments of A (rows warp_row*WM + i*FRAG .. +15 of As, columns
            //                k .. k+7) and FN fragments of B (rows k .. k+7 of Bs, columns warp_col*WN + j*FRAG
            //                .. +15) with wmma::load_matrix_sync (pointer to the fragment's first element, leading
            //                dimension LDA or LDB); round every element of each to TF32 with
            //                wmma::__float_to_tf32 (x[t] for t < num_elements); then acc[i][j] += a[i]·b[j] with
            //                wmma::mma_sync for every i, j.
            (void)a, (void)b, (void)Bs;
        }
    }

    // The epilogue stores C. A fragment whose 16×16 floats all lie inside C goes straight to global memory when
    // store_direct; the others (at the right and bottom edges, or all of them when N % 4 != 0) go through this
    // warp's 16×16 scratch in shared memory, which reuses the pipeline's buffers once no copy is in flight and no
    // warp reads a slice any more.
    __pipeline_wait_prior(0);
    __syncthreads();
    float* scratch = smem + warp * FRAG * FRAG;  // (FRAG, FRAG): this warp's, 32-byte aligned
    for (int i = 0; i < FM; ++i) {
        for (int j = 0; j < FN; ++j) {
            const int row = blockIdx.y * BM + warp_row * WM + i * FRAG;  // the fragment's first element
            const int col = blockIdx.x * BN + warp_col * WN + j * FRAG;
            // TODO(student): skip a fragment wholly outside C. If store_direct and it lies wholly inside,
            //                wmma::store_matrix_sync it to &C[row * N + col] (leading dimension N, row-major).
            //                Otherwise store it to the scratch (leading dimension FRAG), __syncwarp(), copy the
            //                elements inside C to C with the warp's 32 lanes, and __syncwarp() again before the
            //                next fragment overwrites the scratch.
            (void)row, (void)col, (void)scratch, (void)lane;
        }
    }
}

// ----------------------------------------------------------------------------
// launcher

bool aligned(const void* p, int bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

template <bool VECTOR>
void launch(const float* A, const float* B, float* C, int M, int N, int K, bool store_direct) {
    // more than 48 KiB of dynamic shared memory must be asked for; the attribute stays set, so ask once
    static bool attribute_set = false;
    if (!attribute_set) {
        CUDA_CHECK(cudaFuncSetAttribute(matmul_wmma_kernel<VECTOR>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        SHARED_BYTES));
        attribute_set = true;
    }
    dim3 grid(ceil_div(N, BN), ceil_div(M, BM));  // rounds up: edge blocks hang over C
    matmul_wmma_kernel<VECTOR><<<grid, THREADS, SHARED_BYTES>>>(A, B, C, M, N, K, store_direct);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    // every row of A starts 16-byte aligned when K % 4 == 0, every row of B when N % 4 == 0
    const bool vector = K % 4 == 0 && N % 4 == 0 && aligned(A, 16) && aligned(B, 16);
    const bool store_direct = N % 4 == 0 && aligned(C, 32);
    if (vector) {
        launch<true>(A, B, C, M, N, K, store_direct);
    } else {
        launch<false>(A, B, C, M, N, K, store_direct);
    }
}
