// Lab 5: 2D register tiling with float4 loads, for any M, N, K >= 1.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// Start from your lab 4 kernel. Each block now computes a BM×BN = 128×128 tile of C with 256 threads, and
// each thread a TM×TN = 8×8 tile of C in registers. Per step k it loads TM values of A and TN values of B
// from shared memory into registers and makes TM·TN multiply-adds with them: an outer product.
// Global loads are float4: one of A and one of B per thread and phase (load_float4, given). A is stored
// transposed in shared memory (As[k][m]), so the TM values a thread needs at step k sit side by side.
// A float4 load needs a 16-byte aligned address: A + row*K + col is aligned only when K % 4 == 0 (B and C:
// N % 4 == 0). The launcher (given) picks the float4 path when both hold, and guarded scalar loads otherwise.
// Fill in the TODO(student) lines. As handed out it builds, runs, and leaves C untouched,
// so every test fails until the work is done.
//
// Build and test: make lab5
// Compile only:   nvcc -arch=sm_90 -I common -I labs/lab5-register-tiling -c labs/lab5-register-tiling/kernel.cu

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
        // TODO(student): put a into As. a holds four consecutive elements of one row of A, columns a_tx .. a_tx+3
        //                of this phase's slice, row a_ty of the block's rows; As is stored transposed (As[k][m]),
        //                so the four go into four different rows of As, one column. That is what lets each
        //                thread later read its TM values of A for one k side by side (about 4 lines)
        // TODO(student): put b into Bs: four consecutive elements of row b_ty of the B tile, columns b_tx .. +3,
        //                stored as they are, in one 16-byte store (about 1 line)
        // TODO(student): no thread may read a tile before every thread of the block has written its element
        //                into it (about 1 line)
        // TODO(student): add this phase's share to the thread's TM×TN tile of C (rows ty*TM .., columns tx*TN ..
        //                of the block tile). For each k, first read the TM values of A and the TN values of B
        //                that the tile needs from shared memory into a_reg and b_reg, then make all TM·TN
        //                multiply-adds from registers: TM+TN shared reads for TM·TN products (an outer product)
        //                is this lab's gain over lab 4 (about 12 lines)
        // TODO(student): the next phase overwrites As and Bs; no thread may start its next loads while another
        //                thread is still reading this phase's tiles (about 1 line)
        unused(a, b);  // marks a and b as used so this skeleton builds without warnings; delete it
    }

    // TODO(student): write the thread's TM×TN results to C at rows first_row .., columns first_col .., each only
    //                if it lies inside C. On the VECTOR path, write each row's four consecutive results with one
    //                16-byte store (its address is aligned there, and the four are all inside C or all outside);
    //                otherwise one by one, each with its own bounds check (about 20 lines)

    // Marks these names as used so this skeleton builds without warnings; delete it once your code uses them.
    unused(C, first_row, first_col, As, Bs, acc, a_reg, b_reg);
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
