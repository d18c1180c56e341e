// tests.cpp — lab 8: tensor cores through mma.sync and ldmatrix (TF32 inputs, FP32 sums), for any M, N, K >= 1.
//
// Correctness allows for TF32 as lab 7's tests do: (K·FLT_EPSILON + 2·2^-10)·Σ|a·b| per element (lab.h's
// INPUT_MANTISSA_BITS; reference_gemm.h says why). Shapes: K = 32 is one slice, 33 and 64 two, 97 four with a
// partial last slice; K or N not a multiple of 4 (4-byte copies), M, N or K not multiples of the 16×8×8 product
// (partial tiles, zero-filled), N odd (C stored float by float).
// On the emulator also traffic (a BM×BN block tile reads at most M·K·⌈N/BN⌉ + K·N·⌈M/BM⌉ floats, as in labs 5 to
// 7), stores, the lab's idea (mma_m16n8k8_tf32 does the product on TF32-rounded inputs, its A fragments loaded by
// ldmatrix; the swizzled tiles read without bank conflicts) and memory safety (which covers the instructions'
// rules: all 32 lanes at every call, ldmatrix rows 16-byte aligned in shared memory, a barrier between filling a
// stage and loading fragments from it).
#include "lab_tests.h"

static_assert(BM == 128 && BN == 128, "the traffic tests' names state a 128×128 block tile");

TEST_SUITE("correctness") {
TEST_CASE("width=34 with A = 1, B = 2: every value is 68.0") { expect_constant_case(34, BK, 8); }

TEST_CASE("4x4 with values 1..16: C[0][0] = 90") { expect_counting_case(); }

TEST_CASE("seeded random data, A != B^T, and 1 to 4 slices of K (K = 32, 33, 64, 97)") {
    expect_correct({random_problem(37, 37, 37, 1), random_problem(45, 52, 32, 21), random_problem(45, 52, 33, 22),
                    random_problem(45, 52, 64, 23), random_problem(45, 52, 97, 24)});
}

// K and N multiples of 4 take 16-byte copies (130x36 * 36x260, 48x64 * 64x80); the others 4-byte copies, also
// when only one of them is (70x30 * 30x132, 70x132 * 132x30); N odd stores C float by float (55x48 * 48x43).
TEST_CASE("rectangular, M != N != K, with 16-byte and 4-byte copies") {
    expect_correct({random_problem(55, 43, 48, 2), random_problem(7, 61, 3, 3), random_problem(33, 1, 65, 4),
                    random_problem(130, 260, 36, 13), random_problem(48, 80, 64, 16), random_problem(70, 132, 30, 17),
                    random_problem(70, 30, 132, 18)});
}

TEST_CASE("sizes 1, 15, 16, 17 and primes") {
    expect_correct(random_squares({1, 15, 16, 17, 31, 97}, 5));
    expect_correct({random_problem(13, 29, 7, 6)});
}

#ifndef CUDAEMU  // about 2 GFLOP: milliseconds on a GPU, minutes on the emulator
TEST_CASE("large: 1000x800 * 800x1200") { expect_correct({random_problem(1000, 1200, 800, 7)}); }
#endif
}

#ifdef CUDAEMU
TEST_SUITE("traffic") {
TEST_CASE("reads at most M*K*ceil(N/128) + K*N*ceil(M/128) floats (55x48 * 48x43 and 130x36 * 36x260)") {
    for (const Problem& p : {random_problem(55, 43, 48, 8), random_problem(130, 260, 36, 14)}) {
        expect(check_reads_at_most(p, run_student(p), block_tile_floats(p, BM, BN) * sizeof(float),
                                   "a kernel with 128×128 block tiles"));
    }
}

TEST_CASE("every element of C written exactly once, by kernel code (whole tiles and partial ones)") {
    Problem p = random_problem(55, 43, 48, 9);
    expect(check_written_once(p, run_student(p)));
    Problem q = random_problem(48, 80, 64, 19);
    expect(check_written_once(q, run_student(q)));
}

TEST_CASE(
    "mma.sync: mma_m16n8k8_tf32 does every multiply-add, on inputs rounded to TF32, its A fragments loaded by "
    "ldmatrix (130x36 * 36x260, 45x52 * 52x33)") {
    for (const Problem& p : {random_problem(130, 260, 36, 30), random_problem(45, 52, 33, 31)}) {
        Verdict v = check_mma_sync_ldmatrix(p, run_student(p), WN);
        expect(v);
        if (!v.ok) return;
    }
}

// Per step of 8 along K a warp loads WM/16 A fragments with ldmatrix_x4 (4 wavefronts each when the 8 rows of every
// phase fall in different banks) and WN/8 B fragments with two 32-bit loads (1 wavefront each when the 4 rows × 8
// columns a load reads fall in 32 different banks): WM/4 + WN/4 wavefronts for WM·WN·8/32 warp-wide multiply-adds,
// (WM + WN)/(WM·WN) each. The bound allows 1/8 more (an epilogue through shared memory, say); rows of 128 floats
// without a swizzle give ldmatrix an 8-way conflict and the B loads a 4-way one.
TEST_CASE(
    "swizzled shared memory: conflict-free fragment loads, at most (WM + WN)/(WM*WN) wavefronts per warp "
    "multiply-add (130x196 * 196x260)") {
    Problem p = random_problem(130, 260, 196, 36);
    expect(check_shared_wavefronts_per_fma(
        p, run_student_counting_requests(p), BM, BN, BK, 9 * (WM + WN), 8 * WM * WN,
        "ldmatrix from a swizzled As and B fragment loads from a swizzled Bs",
        "The lesson's layout takes 4 wavefronts per ldmatrix_x4 and 1 per B fragment load: store chunk c (4 floats) "
        "of row m of As at chunk c ^ (m % 8), and chunk c of row k of Bs at chunk c ^ 2·(k % 4), in the copies and "
        "in the fragment loads alike"));
}

TEST_CASE("odd K (130x37 * 37x260): reads at most M*K*ceil(N/128) + K*N*ceil(M/128) floats, C stored once") {
    Problem p = random_problem(130, 260, 37, 26);
    Run run = run_student(p);
    expect(
        check_reads_at_most(p, run, block_tile_floats(p, BM, BN) * sizeof(float), "a kernel with 128×128 block tiles"));
    expect(check_written_once(p, run));
}
}

TEST_SUITE("memory safety") {
TEST_CASE(
    "no race, divergent barrier or warp call, misaligned ldmatrix row, uninitialised read or out-of-bounds access") {
    expect_clean({random_problem(1, 1, 1, 10), random_problem(17, 33, 5, 11), random_problem(55, 43, 48, 12),
                  random_problem(130, 260, 36, 15), random_problem(48, 80, 64, 20)});
}

TEST_CASE(
    "the same with 4-byte copies (K, N not multiples of 4) and several slices (70x30 * 30x132, 130x37 * 37x260)") {
    expect_clean({random_problem(70, 132, 30, 27), random_problem(130, 260, 37, 29), random_problem(45, 52, 97, 28)});
}
}
#endif
