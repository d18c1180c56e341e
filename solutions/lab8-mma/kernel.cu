// Lab 8 reference solution: tensor cores through the warp-level mma.sync instruction (m16n8k8, TF32 inputs, FP32
// sums), its A fragments loaded by ldmatrix from a swizzled shared memory, fed by lab 7's pipeline of asynchronous
// copies, for any M, N, K >= 1.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// The instructions come from common/mma_ptx.h (no inline assembly here); the copies from <cuda_pipeline.h>.
//
// - One kernel template (TileShape below). Each block computes a BM×BN tile of C, walking K in slices of BK = 32.
//   Warp w computes a 64×64 part of the block tile as FM×FN = 4×8 accumulator tiles of 16×8 floats
//   (mma_m16n8k8_tf32's D: 4 floats per lane, 128 per lane in all). Per slice it takes BK/8 steps of 8 along K; in
//   each it loads FM A fragments (16×8, ldmatrix_x4) and FN B fragments (8×8, two 32-bit shared loads per lane) and
//   issues FM·FN multiply-adds, each A fragment used FN times and each B fragment FM times. The fragments of the
//   next step are loaded before the multiply-adds of this one (two sets of fragment registers).
// - Fragments, with g = lane / 4 and t = lane % 4 (mma_ptx.h): a lane holds A[g (+8)][t (+4)], B[t (+4)][g] and
//   C[g (+8)][2t, 2t + 1] of its 16×8×8 product. ldmatrix_x4 reads four 8×4 blocks of floats (8 rows of 16 bytes
//   each) and leaves every lane exactly its four A elements: lane l gives the address of row l % 16, columns
//   4·(l / 16) .. +3. B is stored k-major (Bs[k][n], as it is in global memory), where ldmatrix's 16-bit transpose
//   cannot help (it would mix halves of different floats), so each lane loads its two B elements itself.
// - TF32: each fragment element is rounded to nearest after its load (to_tf32: cvt_rna_tf32's rounding without
//   its test for NaN and infinity); left alone, the tensor core would drop the low 13 bits (truncation, an error always
//   towards zero that adds up along a dot product).
// - Shared memory (dynamic: more than 48 KiB): STAGES buffers, each holding the A slice As[BM][BK] and the B slice
//   Bs[BK][BN], unpadded, with the 16-byte chunks of every row permuted by an XOR swizzle (a_index, b_index):
//     As: chunk c of row m is stored at chunk c ^ (m % 8). An ldmatrix phase reads one chunk of 8 consecutive
//         rows; rows 128 bytes long would put all 8 in the same 4 banks (8-way conflict), the swizzle puts them
//         in 8 different groups of 4 banks.
//     Bs: chunk c of row k is stored at chunk c ^ 2·(k % 4). A B fragment load reads 4 rows (t) × 8 consecutive
//         floats (g), two chunks per row; rows 512 bytes long would give a 4-way conflict, the swizzle spreads the
//         4 rows' pairs of chunks over all 8 groups.
//   A swizzle moves whole 16-byte chunks, so the copies stay 16 bytes and conflict-free too (8 lanes write the 8
//   chunks of one row, permuted), and no byte of shared memory is spent on padding.
// - The pipeline is lab 7's: __pipeline_memcpy_async from global to shared memory, STAGES − 1 slices in flight,
//   one __pipeline_wait_prior and one __syncthreads() per phase.
// - Edges: copies are 16 bytes when every row of A (K % 4 == 0) and of B (N % 4 == 0) starts 16-byte aligned,
//   else 4 bytes; a copy past the matrix zero-fills. The accumulators go straight from registers to C: a lane's
//   two neighbouring floats as one 8-byte store when N is even and both lie inside C, else one by one.
//
// The launcher (bottom) chooses the tile shape from M, N and the multiprocessor count, as lab 7's does.
//
// Tuning: -D LAB8_BM=... (all of LAB8_BM, BN, BK, WM, WN, STAGES, MIN_BLOCKS) makes every problem use that one tile
// shape; -D LAB8_TRUNCATE leaves the inputs to the hardware's truncation instead of rounding them.
//
// Test:         make lab8 KERNEL=solutions/lab8-mma/kernel.cu
// Compile only: nvcc -arch=sm_90 -std=c++17 -I common -I labs/lab8-mma -c solutions/lab8-mma/kernel.cu

#include <cstdint>

#include <cuda_pipeline.h>

#include "lab.h"
#include "mma_ptx.h"

namespace mma {

constexpr int TILE_M = 16, TILE_N = 8, TILE_K = 8;  // m16n8k8: one accumulator tile, K per multiply-add
constexpr int CHUNK = 4;                            // floats in a 16-byte chunk, what the swizzle moves

#ifdef LAB8_TRUNCATE
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

    static constexpr int FM = WM / TILE_M, FN = WN / TILE_N;    // a warp's accumulator tiles: FM×FN
    static constexpr int THREADS = 32 * (BM / WM) * (BN / WN);  // one warp per warp tile
    static constexpr int A_FLOATS = BM * BK;                    // one stage of As
    static constexpr int STAGE_FLOATS = A_FLOATS + BK * BN;     // one stage: As, then Bs
    static constexpr int SHARED_BYTES = STAGES * STAGE_FLOATS * int(sizeof(float));

    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block tile");
    static_assert(WM % TILE_M == 0 && WN % TILE_N == 0 && BK % TILE_K == 0, "tiles cover the warp tile and slice");
    static_assert(BK == 8 * CHUNK, "a row of As is 8 chunks: the swizzle's XOR with m % 8 stays inside it");
    static_assert(BN % (8 * CHUNK) == 0 && WN % 32 == 0,
                  "a row of Bs, and a warp's columns, are whole groups of 8 chunks (b_index's XOR stays inside)");
    static_assert(THREADS <= 1024, "a block holds at most 1024 threads");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
                  "every thread copies the same whole number of 4-float pieces of each slice");
    static_assert(STAGES >= 2, "a pipeline needs a buffer to fill while another is read");
};

// The shapes the launcher chooses from, both with 64×64 warp tiles (4×8 accumulator tiles: 128 registers per
// thread) and BK = 32. Wide: 128×256, 8 warps, one block per multiprocessor. Square: lab.h's 128×128, 4 warps, two
// blocks per multiprocessor.
using Wide = TileShape<128, 256, 32, 64, 64, 3, 1>;
using Square = TileShape<BM, BN, BK, WM, WN, STAGES, 2>;
#ifdef LAB8_BM
using Tuned = TileShape<LAB8_BM, LAB8_BN, LAB8_BK, LAB8_WM, LAB8_WN, LAB8_STAGES, LAB8_MIN_BLOCKS>;
#endif

// Where element (m, k) of the A slice lives in As (BK floats a row): chunk k / 4 of row m moves to chunk
// (k / 4) ^ (m % 8).
template <class T>
__device__ __forceinline__ int a_index(int m, int k) {
    return m * T::BK + ((k / CHUNK) ^ (m % 8)) * CHUNK + k % CHUNK;
}

// Where element (k, n) of the B slice lives in Bs (BN floats a row): chunk n / 4 of row k moves to chunk
// (n / 4) ^ 2·(k % 4), that is, n to n ^ 8·(k % 4).
template <class T>
__device__ __forceinline__ int b_index(int k, int n) {
    return k * T::BN + (n ^ (2 * CHUNK * (k % 4)));
}

// An asynchronous copy of BYTES bytes from matrix[index] (global) to shared dst, or, outside the matrix, BYTES
// zeros (the copy then reads nothing, from the matrix's first element: no pointer past the matrix is formed).
template <int BYTES>
__device__ __forceinline__ void copy_or_zero(float* dst, const float* matrix, size_t index, bool inside) {
    if (inside) {
        __pipeline_memcpy_async(dst, matrix + index, BYTES);
    } else {
        __pipeline_memcpy_async(dst, matrix, BYTES, BYTES);  // zero-fill past the edge: 0 adds nothing
    }
}

// Starts the copy of slice `tile` of A and B into one stage (As, Bs). Piece f of the A slice is row f / (BK/4),
// chunk f % (BK/4) of the block tile: 8 consecutive threads copy one row's 128 contiguous bytes, and 8 consecutive
// threads 128 bytes of a row of B. VECTOR: one 16-byte copy per piece (the launcher guarantees K % 4 == 0 and
// N % 4 == 0, so a piece lies wholly inside or outside its matrix); else four 4-byte copies.
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
        float* dst = &As[a_index<T>(m, k)];
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
        float* dst = &Bs[b_index<T>(k, n)];
        if (VECTOR) {
            copy_or_zero<16>(dst, B, size_t(row) * N + col, row < K && col < N);
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) copy_or_zero<4>(dst + j, B, size_t(row) * N + col + j, row < K && col + j < N);
        }
    }
}

// A float's bits as a tensor core should read them: rounded to TF32, nearest with ties away from zero (what
// cvt_rna_tf32 computes), by adding half of TF32's last place (bit 12) and clearing the 13 bits below it; or, with
// LAB8_TRUNCATE, as they are, for the hardware to truncate. On an H100 ptxas compiles cvt.rna.tf32.f32 to these
// same two instructions behind a third, a test that the float is finite: at 4096³ the kernel ran 10 % faster
// without it. Only NaNs differ: 0x7fffffff (a GPU's 0/0) wraps to ±0 here, a payload in the low 12 bits becomes an
// infinity, where cvt_rna_tf32 keeps both NaNs. A product of finite matrices, the lab's, never meets them.
__device__ __forceinline__ uint32_t to_tf32(uint32_t bits) {
    return ROUND_TO_TF32 ? (bits + 0x1000u) & 0xffffe000u : bits;
}

// Loads this warp's fragments for step k of a slice (As, Bs: the stage's tiles): FM A fragments with ldmatrix_x4,
// lane l giving the address of row l % 16 of the fragment, columns 4·(l / 16) .. +3; and FN B fragments, B[t][g]
// and B[t + 4][g] of each, with 32-bit loads. Each element rounded to TF32.
template <class T>
__device__ __forceinline__ void load_fragments(uint32_t (&a)[T::FM][4], uint32_t (&b)[T::FN][2], const float* As,
                                               const float* Bs, int k, int warp_row, int warp_col, int lane) {
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < T::FM; ++i) {
        ldmatrix_x4(a[i], &As[a_index<T>(warp_row * T::WM + i * TILE_M + lane % 16, k + CHUNK * (lane / 16))]);
#pragma unroll
        for (int e = 0; e < 4; ++e) a[i][e] = to_tf32(a[i][e]);
    }
#pragma unroll
    for (int j = 0; j < T::FN; ++j) {
        const int n = warp_col * T::WN + j * TILE_N + g;
#pragma unroll
        for (int e = 0; e < 2; ++e) b[j][e] = to_tf32(__float_as_uint(Bs[b_index<T>(k + t + 4 * e, n)]));
    }
}

// Stores one accumulator tile's 4 floats of this lane: C[row][col, col + 1] and C[row + 8][col, col + 1].
__device__ __forceinline__ void store_pair(float* C, const float* d, int row, int col, int M, int N, bool pairs) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int r = row + 8 * h;
        if (r >= M) continue;
        float* dst = &C[size_t(r) * N + col];
        if (pairs && col + 1 < N) {
            *reinterpret_cast<float2*>(dst) = make_float2(d[2 * h], d[2 * h + 1]);
        } else {
            if (col < N) dst[0] = d[2 * h];
            if (col + 1 < N) dst[1] = d[2 * h + 1];
        }
    }
}

// ----------------------------------------------------------------------------
// kernel

// Block (x, y) computes the BM×BN tile (y, x) of C. VECTOR: 16-byte copies of A and B (see load_tile). PAIRS: N is
// even, so a lane's two neighbouring floats of C are one 8-byte store.
template <class T, bool VECTOR>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS)
    matmul_mma_kernel(const float* A, const float* B, float* C, int M, int N, int K, bool pairs) {
    extern __shared__ __align__(128) float smem[];  // STAGES × (As (BM, BK), then Bs (BK, BN)), swizzled
    constexpr int FM = T::FM, FN = T::FN;

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int g = lane / 4, t = lane % 4;
    const int warp_row = warp / (T::BN / T::WN);  // the warp's tile: rows warp_row*WM .., columns warp_col*WN ..
    const int warp_col = warp % (T::BN / T::WN);
    const int num_tiles = ceil_div(K, T::BK);

    float acc[FM][FN][4];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

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

        // The slice's BK/8 steps, the fragments of step s + 1 loaded before the multiply-adds of step s (two sets
        // of fragment registers), so that the shared-memory loads are in flight while the tensor cores work.
        const float* As = smem + tile % T::STAGES * T::STAGE_FLOATS;
        const float* Bs = As + T::A_FLOATS;
        uint32_t a[2][FM][4], b[2][FN][2];
        load_fragments<T>(a[0], b[0], As, Bs, 0, warp_row, warp_col, lane);
#pragma unroll
        for (int s = 0; s < T::BK / TILE_K; ++s) {
            const int cur = s % 2;
            if (s + 1 < T::BK / TILE_K)
                load_fragments<T>(a[1 - cur], b[1 - cur], As, Bs, (s + 1) * TILE_K, warp_row, warp_col, lane);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) mma_m16n8k8_tf32(acc[i][j], a[cur][i], b[cur][j], acc[i][j]);
        }
    }

    // The epilogue: every accumulator tile from registers to C, nothing through shared memory.
#pragma unroll
    for (int i = 0; i < FM; ++i) {
        const int row = blockIdx.y * T::BM + warp_row * T::WM + i * TILE_M + g;
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int col = blockIdx.x * T::BN + warp_col * T::WN + j * TILE_N + 2 * t;
            store_pair(C, acc[i][j], row, col, M, N, pairs);
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
void launch(const float* A, const float* B, float* C, int M, int N, int K, bool pairs) {
    // more than 48 KiB of dynamic shared memory must be asked for; the attribute stays set, so ask once
    static bool attribute_set = false;
    if (!attribute_set) {
        CUDA_CHECK(cudaFuncSetAttribute(matmul_mma_kernel<T, VECTOR>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        T::SHARED_BYTES));
        attribute_set = true;
    }
    dim3 grid(ceil_div(N, T::BN), ceil_div(M, T::BM));  // rounds up: edge blocks hang over C
    matmul_mma_kernel<T, VECTOR><<<grid, T::THREADS, T::SHARED_BYTES>>>(A, B, C, M, N, K, pairs);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}

template <class T>
void launch(const float* A, const float* B, float* C, int M, int N, int K) {
    // every row of A starts 16-byte aligned when K % 4 == 0, every row of B when N % 4 == 0
    const bool vector = K % 4 == 0 && N % 4 == 0 && aligned(A, 16) && aligned(B, 16);
    const bool pairs = N % 2 == 0 && aligned(C, 8);  // every even column of C starts 8 bytes aligned
    if (vector) {
        launch<T, true>(A, B, C, M, N, K, pairs);
    } else {
        launch<T, false>(A, B, C, M, N, K, pairs);
    }
}

}  // namespace mma

// The choice, from M, N and the multiprocessor count (132 on an H100), as in lab 7:
// - The wide 128×256 tile, one block per multiprocessor, when its tiles alone keep at least 3/4 of the
//   multiprocessors busy (4096³: 512 tiles for 132 SMs).
// - Otherwise lab.h's 128×128 tile, two blocks per multiprocessor: twice the blocks for a problem too small to fill
//   the GPU with wide tiles (1024³: 64 square tiles instead of 32 wide ones).
// Measured at 4096³ on an H100 (-D LAB8_...): 256×128 tiles within 2 % of 128×256, 4 stages no faster than 3, and
// 128×128 tiles of 8 warps of 64×32 slower at every size (the B fragments are read from shared memory twice as
// often per multiply-add).
void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    using namespace mma;
#ifdef LAB8_BM
    launch<Tuned>(A, B, C, M, N, K);  // -D LAB8_...: every problem on that one shape
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
