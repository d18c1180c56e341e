// tests.cpp — lab 7: tensor cores through WMMA (TF32 inputs, FP32 sums), for any M, N, K >= 1.
//
// Correctness allows for TF32: the tensor cores multiply with 10 of a float's 23 mantissa bits, so the tolerance
// is (K·FLT_EPSILON + 2·2^-10)·Σ|a·b| per element (lab.h's INPUT_MANTISSA_BITS; reference_gemm.h says why),
// loose enough for a kernel that leaves the rounding to the hardware, and far tighter than any wrong sum. Shapes:
// K = 32 is one slice (the prologue alone), 33 and 64 two, 97 four with a partial last slice; K or N not a multiple
// of 4 (rows not 16-byte aligned: 4-byte copies), not a multiple of 8 or 16 (partial fragments, zero-filled), and
// M or N not multiples of 16 (tiles of C stored through shared memory).
// On the emulator also traffic (a BM×BN block tile with guarded loads reads at most M·K·⌈N/BN⌉ + K·N·⌈M/BM⌉ floats,
// as in labs 5 and 6: tensor cores change how fast a block computes, not what it reads), stores, and memory safety
// (which covers the warp matrix functions' rules: all 32 lanes at every call, aligned pointers and ldm, a barrier
// between filling a stage and loading fragments from it).
#include "lab_tests.h"

static_assert(BM == 128 && BN == 128, "the traffic tests' names state a 128×128 block tile");

TEST_SUITE("correctness") {
TEST_CASE("width=34 with A = 1, B = 2: every value is 68.0") { expect_constant_case(34, BK, 8); }

TEST_CASE("4x4 with values 1..16: C[0][0] = 90") { expect_counting_case(); }

TEST_CASE("seeded random data, A != B^T, and 1 to 4 slices of K (K = 32, 33, 64, 97)") {
    expect_correct({random_problem(37, 37, 37, 1), random_problem(45, 52, 32, 21), random_problem(45, 52, 33, 22),
                    random_problem(45, 52, 64, 23), random_problem(45, 52, 97, 24)});
}

// K and N multiples of 4 take 16-byte copies (130x36 * 36x260, 48x64 * 64x80: whole fragments of C); the others
// 4-byte copies, also when only one of them is (70x30 * 30x132, 70x132 * 132x30).
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

TEST_CASE("every element of C written exactly once, by kernel code (whole fragments and partial ones)") {
    Problem p = random_problem(55, 43, 48, 9);
    expect(check_written_once(p, run_student(p)));
    Problem q = random_problem(48, 80, 64, 19);
    expect(check_written_once(q, run_student(q)));
}

TEST_CASE(
    "tensor cores: mma_sync does every multiply-add, on inputs rounded to TF32 (130x36 * 36x260, 45x52 * 52x33)") {
    for (const Problem& p : {random_problem(130, 260, 36, 30), random_problem(45, 52, 33, 31)}) {
        Verdict v = check_tensor_cores(p, run_student(p));
        expect(v);
        if (!v.ok) return;
    }
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
TEST_CASE("no race, divergent barrier or warp call, misaligned fragment, uninitialised read or out-of-bounds access") {
    expect_clean({random_problem(1, 1, 1, 10), random_problem(17, 33, 5, 11), random_problem(55, 43, 48, 12),
                  random_problem(130, 260, 36, 15), random_problem(48, 80, 64, 20)});
}

TEST_CASE(
    "the same with 4-byte copies (K, N not multiples of 4) and several slices (70x30 * 30x132, 130x37 * 37x260)") {
    expect_clean({random_problem(70, 132, 30, 27), random_problem(130, 260, 37, 29), random_problem(45, 52, 97, 28)});
}
}
#endif
