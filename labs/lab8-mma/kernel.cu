// Lab 8: tensor cores through the warp-level mma.sync instruction (m16n8k8, TF32 inputs, FP32 sums), its A
// fragments loaded by ldmatrix from a swizzled shared memory, for any M, N, K >= 1.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// The block tile is lab.h's, BM×BN = 128×128 with 4 warps, each computing a WM×WN = 64×64 part of it as FM×FN =
// 4×8 accumulator tiles of 16×8 floats (4 floats per lane each, 128 per lane in all). For every 8 values of K a
// warp loads FM A fragments (16×8, one ldmatrix_x4 each) and FN B fragments (8×8, two 32-bit shared loads per lane)
// and issues FM·FN mma_m16n8k8_tf32, each a 16×8×8 product. The instructions are common/mma_ptx.h's, with their
// lane maps (g = lane / 4, t = lane % 4).
// Given: the copies that bring each slice of K into one of STAGES buffers (load_tile), the pipeline's prologue, the
// launcher, and the index helpers a_index and b_index without their swizzle. Fill in the TODO(student) lines: the
// swizzle, when a slice may be read, the fragments and the products, and the stores of C. As handed out it builds,
// runs, and leaves C untouched, so every test fails until the work is done.
//
// Build and test: make lab8
// Compile only:   nvcc -arch=sm_90 -std=c++17 -I common -I labs/lab8-mma -c labs/lab8-mma/kernel.cu

#include <cstdint>

#include <cuda_pipeline.h>

#include "lab.h"
#include "mma_ptx.h"

constexpr int TILE_M = 16, TILE_N = 8, TILE_K = 8;  // m16n8k8: one accumulator tile, K per multiply-add
constexpr int CHUNK = 4;                            // floats in a 16-byte chunk, what the swizzle moves
constexpr int FM = WM / TILE_M;                     // a warp's accumulator tiles: FM×FN
constexpr int FN = WN / TILE_N;
constexpr int THREADS = 32 * (BM / WM) * (BN / WN);  // one warp per warp tile
constexpr int A_FLOATS = BM * BK;                    // one stage of As: BM rows of BK floats, no padding
constexpr int STAGE_FLOATS = A_FLOATS + BK * BN;     // one stage: As, then Bs (BK rows of BN floats)
constexpr int SHARED_BYTES = STAGES * STAGE_FLOATS * int(sizeof(float));

static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block tile");
static_assert(WM % TILE_M == 0 && WN % TILE_N == 0 && BK % TILE_K == 0, "tiles cover the warp tile and the slice");
static_assert(BK == 8 * CHUNK, "a row of As is 8 chunks: the swizzle's XOR with m % 8 stays inside it");
static_assert(BN % (8 * CHUNK) == 0, "a row of Bs is whole groups of 8 chunks: b_index's XOR stays inside them");
static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
              "every thread copies the same whole number of 4-float pieces of each slice");

// Where element (m, k) of the A slice lives in As (BK floats a row). The swizzle: chunk k / 4 of row m is stored at
// chunk (k / 4) ^ (m % 8), so that the 8 rows an ldmatrix phase reads lie in 8 different groups of 4 banks.
__device__ __forceinline__ int a_index(int m, int k) {
    // TODO(student): the swizzle: replace the chunk k / CHUNK by (k / CHUNK) ^ (m % 8), keeping k % CHUNK (1 line)
    return m * BK + k;
}

// Where element (k, n) of the B slice lives in Bs (BN floats a row). The swizzle: chunk n / 4 of row k is stored at
// chunk (n / 4) ^ 2·(k % 4), so that the 4 rows a B fragment load reads lie in different banks.
__device__ __forceinline__ int b_index(int k, int n) {
    // TODO(student): the swizzle: the column n becomes n ^ (2 * CHUNK * (k % 4)), that is chunk n / 4 moves to
    //                (n / 4) ^ 2·(k % 4) (1 line)
    return k * BN + n;
}

// An asynchronous copy of BYTES bytes from matrix[index] (global) to shared dst, or, outside the matrix, BYTES
// zeros (the zero-fill argument, equal to the size, reads nothing; the matrix's first element stands in as the
// source).
template <int BYTES>
__device__ __forceinline__ void copy_or_zero(float* dst, const float* matrix, size_t index, bool inside) {
    if (inside) {
        __pipeline_memcpy_async(dst, matrix + index, BYTES);
    } else {
        __pipeline_memcpy_async(dst, matrix, BYTES, BYTES);  // zero-fill past the edge: 0 adds nothing
    }
}

// Starts the copies of slice `tile` of A and B into one stage (As, Bs), each element where a_index or b_index puts
// it. Piece f of the A slice is row f / (BK/4), columns f % (BK/4) · 4 .. +3; of B, row f / (BN/4), columns
// f % (BN/4) · 4 .. +3. A piece is one 16-byte chunk, and the swizzle moves whole chunks, so the 16-byte copies
// stay whole. VECTOR: 16-byte copies (the launcher guarantees K % 4 == 0 and N % 4 == 0: a piece is wholly inside
// or outside); else four 4-byte copies, each checked on its own.
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
        float* dst = &As[a_index(m, k)];
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
        float* dst = &Bs[b_index(k, n)];
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

// Block (x, y) computes the BM×BN tile (y, x) of C.
template <bool VECTOR>
__global__ void __launch_bounds__(THREADS, 2)
    matmul_mma_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    extern __shared__ __align__(128) float smem[];  // STAGES × (As (BM, BK), then Bs (BK, BN)), swizzled

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int g = lane / 4, t = lane % 4;   // the lane's place in every fragment (common/mma_ptx.h)
    const int warp_row = warp / (BN / WN);  // the warp's tile: rows warp_row*WM .., columns warp_col*WN ..
    const int warp_col = warp % (BN / WN);
    const int num_tiles = ceil_div(K, BK);

    float acc[FM][FN][4];  // accumulator tile (i, j): C[g (+8)][2t, 2t + 1] of it, as mma_m16n8k8_tf32's d
    for (int i = 0; i < FM; ++i)
        for (int j = 0; j < FN; ++j)
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

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

        const float* As = smem + tile % STAGES * STAGE_FLOATS;  // (BM, BK): this slice of A, swizzled
        const float* Bs = As + A_FLOATS;                        // (BK, BN): this slice of B, swizzled
        for (int k = 0; k < BK; k += TILE_K) {
            uint32_t a[FM][4], b[FN][2];  // the fragments of this step, as the bits of TF32 values
            // TODO(student): the A fragments (about 2 lines): for each i, ldmatrix_x4(a[i], address) where lane
            //                gives the address of row warp_row*WM + i*TILE_M + lane % 16 of As, column
            //                k + CHUNK * (lane / 16): &As[a_index(row, column)].
            // TODO(student): the B fragments (about 3 lines): for each j, with n = warp_col*WN + j*TILE_N + g,
            //                b[j][0] = B[k + t][n] and b[j][1] = B[k + t + 4][n], each one 32-bit load of
            //                Bs[b_index(.., n)] (__float_as_uint gives its bits).
            // TODO(student): round every element of a and b to TF32: x = cvt_rna_tf32(__uint_as_float(x)).
            // TODO(student): acc[i][j] += a[i]·b[j] for every i, j: mma_m16n8k8_tf32(acc[i][j], a[i], b[j],
            //                acc[i][j]).
            (void)a, (void)b, (void)As, (void)Bs, (void)k;
        }
    }

    // The epilogue: every accumulator tile from registers to C, nothing through shared memory. Lane (g, t) holds
    // C[g][2t], C[g][2t + 1], C[g + 8][2t] and C[g + 8][2t + 1] of tile (i, j): acc[i][j][0 .. 3].
    for (int i = 0; i < FM; ++i) {
        for (int j = 0; j < FN; ++j) {
            const int row = blockIdx.y * BM + warp_row * WM + i * TILE_M + g;  // this lane's first row and column
            const int col = blockIdx.x * BN + warp_col * WN + j * TILE_N + 2 * t;
            // TODO(student): store acc[i][j][2h + e] to C[row + 8h][col + e] for h, e in {0, 1}, each only when
            //                its row is below M and its column below N (about 4 lines).
            (void)row, (void)col;
        }
    }
}

// ----------------------------------------------------------------------------
// launcher

bool aligned(const void* p, int bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

template <bool VECTOR>
void launch(const float* A, const float* B, float* C, int M, int N, int K) {
    // more than 48 KiB of dynamic shared memory must be asked for; the attribute stays set, so ask once
    static bool attribute_set = false;
    if (!attribute_set) {
        CUDA_CHECK(
            cudaFuncSetAttribute(matmul_mma_kernel<VECTOR>, cudaFuncAttributeMaxDynamicSharedMemorySize, SHARED_BYTES));
        attribute_set = true;
    }
    dim3 grid(ceil_div(N, BN), ceil_div(M, BM));  // rounds up: edge blocks hang over C
    matmul_mma_kernel<VECTOR><<<grid, THREADS, SHARED_BYTES>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    // every row of A starts 16-byte aligned when K % 4 == 0, every row of B when N % 4 == 0
    const bool vector = K % 4 == 0 && N % 4 == 0 && aligned(A, 16) && aligned(B, 16);
    if (vector) {
        launch<true>(A, B, C, M, N, K);
    } else {
        launch<false>(A, B, C, M, N, K);
    }
}
