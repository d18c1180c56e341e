// Lab 4: thread coarsening (1D register blocking), for any M, N, K >= 1.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (contract in lab.h).
// Start from your lab 3 kernel. Each block now computes a BM×BN = 64×64 tile of C with 512 threads, and
// each thread computes TM = 8 outputs: rows first_row .. first_row+7 of column col. It keeps the 8 sums in
// registers, and in the inner loop loads one value of Bs into a register and uses it 8 times.
// The tiles are no longer square: As is BM×BK (64×8) and Bs is BK×BN (8×64), and each thread loads one
// element of each per phase. Boundary handling is lab 3's: zero-filled loads, guarded stores.
// Fill in the TODO(student) lines. As handed out it builds, runs, and leaves C untouched,
// so every test fails until the work is done.
//
// Build and test: make lab4
// Compile only:   nvcc -arch=sm_90 -I common -I labs/lab4-coarsening -c labs/lab4-coarsening/kernel.cu

#include "lab.h"

constexpr int THREADS = BN * (BM / TM);  // one thread per column and group of TM rows: 64 · 8 = 512

static_assert(BM % TM == 0, "a thread's TM rows tile the block's BM rows");
static_assert(THREADS <= 1024, "a block holds at most 1024 threads");
static_assert(BM * BK == THREADS, "each thread loads exactly one element of the A tile per phase");
static_assert(BK == BM / TM, "each thread loads exactly one element of the B tile per phase: Bs[ty][tx]");

// ----------------------------------------------------------------------------
// kernel

__global__ void __launch_bounds__(THREADS)
    matmul_coarsened_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[BM][BK];  // (BM, BK): this block's rows of A, one slice of K
    __shared__ float Bs[BK][BN];  // (BK, BN): one slice of K, this block's columns of B

    const int tx = threadIdx.x;                       // the thread's column in the block tile, 0 .. BN-1
    const int ty = threadIdx.y;                       // the thread's group of TM rows, 0 .. BM/TM-1
    const int first_row = blockIdx.y * BM + ty * TM;  // the thread computes rows first_row .. first_row+TM-1
    const int col = blockIdx.x * BN + tx;

    // The A tile is BM×BK, not the block's shape: number the threads 0..THREADS-1 and give each one element.
    const int tid = ty * BN + tx;
    const int a_ty = tid / BK;  // row of As this thread fills
    const int a_tx = tid % BK;  // column of As this thread fills

    float sum[TM] = {};  // TM outputs in registers: every index is a compile-time constant after unrolling
    const int num_tiles = ceil_div(K, BK);
    for (int tile = 0; tile < num_tiles; ++tile) {
        // TODO(student): fill As. It is BM×BK, not the block's shape, so the thread fills the slot (a_ty, a_tx)
        //                given above: the element of A at that place in the block's rows of A and this phase's
        //                slice of K. As in lab 3, a slot outside A gets a value that adds nothing, and every
        //                slot is written (about 8 lines)
        // TODO(student): fill Bs (BK×BN, the block's shape): the thread's slot is (ty, tx), from this phase's slice
        //                of K and the block's columns of B; zero-filled outside B (about 6 lines)
        // TODO(student): no thread may read a tile before every thread of the block has written its element
        //                into it (about 1 line)
        // TODO(student): add this phase's share to the thread's TM sums (rows first_row .. first_row+TM-1 of
        //                column col). The TM dot products share one column of Bs: read each of its values from
        //                shared memory once and reuse it from a register TM times, which is what makes this
        //                kernel faster than lab 3's. Keep every index into sum a compile-time constant, so the
        //                sums stay in registers (about 7 lines)
        // TODO(student): the next phase overwrites As and Bs; no thread may start its next loads while another
        //                thread is still reading this phase's tiles (about 1 line)
    }

    // TODO(student): write the thread's TM results to their elements of C, each only if it lies inside C: rows
    //                of an edge block can pass C's last row while the column is still inside, or the other
    //                way round (about 6 lines)

    // Marks these names as used so this skeleton builds without warnings; delete it once your code uses them.
    unused(A, B, C, M, N, first_row, col, a_ty, a_tx, As, Bs, sum);
}

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BN, BM / TM);                      // (64, 8): x along the columns of C, y along groups of rows
    dim3 grid(ceil_div(N, BN), ceil_div(M, BM));  // rounds up: edge blocks hang over C
    matmul_coarsened_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}
