// tests.cpp — lab 5: 2D register tiling with float4 loads, for any M, N, K >= 1.
//
// Correctness on lab 3's sizes, which take the scalar path (K or N not a multiple of 4), and on sizes that take
// the float4 path with partial tiles; on the emulator also traffic (a BM×BN block tile with guarded loads reads at
// most M·K·⌈N/128⌉ + K·N·⌈M/128⌉ floats; on the float4 path at most twice the 32-byte sectors per byte of
// tile rows loaded whole), stores, and memory safety, on both paths.
#include "lab_tests.h"

static_assert(BM == 128 && BN == 128, "the traffic tests' names state a 128×128 block tile");

TEST_SUITE("correctness") {
TEST_CASE("width=34 with A = 1, B = 2: every value is 68.0") { expect_constant_case(34, BK); }

TEST_CASE("4x4 with values 1..16: C[0][0] = 90") { expect_counting_case(); }

TEST_CASE("seeded random data, A != B^T") { expect_correct({random_problem(37, 37, 37, 1)}); }

// K and N multiples of 4 take the float4 path (130x36 * 36x260, 20x12 * 12x8); the others the scalar path, also
// when only one of them is (70x30 * 30x132, 70x132 * 132x30).
TEST_CASE("rectangular, M != N != K, on the float4 path and the scalar path") {
    expect_correct({random_problem(55, 43, 48, 2), random_problem(7, 61, 3, 3), random_problem(33, 1, 65, 4),
                    random_problem(130, 260, 36, 13), random_problem(20, 8, 12, 16), random_problem(70, 132, 30, 17),
                    random_problem(70, 30, 132, 18)});
}

TEST_CASE("sizes 1, 15, 16, 17 and primes") {
    expect_correct(random_squares({1, 15, 16, 17, 31, 97}, 5));
    expect_correct({random_problem(13, 29, 7, 6)});
}

#ifndef CUDAEMU  // about 2 GFLOP: seconds on a GPU, minutes on the emulator
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

TEST_CASE("coalesced: float4 loads along tile rows and float4 stores of C (130x36 * 36x260)") {
    Problem p = random_problem(130, 260, 36, 21);
    expect(check_coalesced(p, run_matmul_counting_requests(p, matmul), tile_mapping_sectors(p, BM, BN, BK),
                           "tile rows loaded in float4s", kFloat4Advice));
}

TEST_CASE(
    "register reuse: at most (TM+TN)/(TM*TN) shared-memory loads per multiply-add (55x48 * 48x43, 130x36 * "
    "36x260)") {
    for (const Problem& p : {random_problem(55, 43, 48, 22), random_problem(130, 260, 36, 23)}) {
        Verdict v = check_shared_loads_per_fma(p, run_student(p), BM, BN, BK, TM + TN, TM * TN,
                                               "a thread that keeps TM values of A and TN of B in registers for its "
                                               "TM×TN outputs");
        expect(v);
        if (!v.ok) return;
    }
}

// The lesson's layout, per warp (2 rows of 16 threads) and step of k: TM loads of the transposed As, each a broadcast
// of 2 words in different banks (1 wavefront), and TN loads of Bs[k][tx * TN + j], 16 words TN apart: TN / 2 banks
// hold them 4 each, TN / 2 wavefronts; for the warp's 32·TM·TN multiply-adds. As not transposed puts a warp's 2 rows
// of A in the same bank: 2 wavefronts a load.
TEST_CASE(
    "bank conflicts: A transposed in shared memory, at most (TM + TN*TN/2)/(TM*TN) wavefronts per warp "
    "multiply-add (130x36 * 36x260)") {
    Problem p = random_problem(130, 260, 36, 24);
    expect(check_shared_wavefronts_per_fma(
        p, run_matmul_counting_requests(p, matmul), BM, BN, BK, TM + TN * TN / 2, TM * TN,
        "the lesson's layout (As transposed, so that a warp's loads of A are broadcasts)",
        "The lesson's layout takes 1 wavefront per load of A (a warp's two rows of threads read two words in "
        "different banks) and TN/2 = 4 per load of B: store the tile of A transposed (As[k][row]), so that a warp's "
        "loads of A for one k fall in different banks or share a word"));
}

TEST_CASE("every element of C written exactly once, by kernel code") {
    Problem p = random_problem(55, 43, 48, 9);
    expect(check_written_once(p, run_student(p)));
    Problem q = random_problem(130, 260, 36, 19);
    expect(check_written_once(q, run_student(q)));
}

TEST_CASE("the multiply-adds run in your kernels, in float: at least 2*M*N*K FP32 FLOPs (55x48 * 48x43)") {
    Problem p = random_problem(55, 43, 48, 31);
    expect(check_fp32_flops(p, run_student(p)));
}
}

TEST_SUITE("memory safety") {
TEST_CASE("no race, divergent barrier, uninitialised shared read or out-of-bounds access") {
    expect_clean({random_problem(1, 1, 1, 10), random_problem(17, 33, 5, 11), random_problem(55, 43, 48, 12),
                  random_problem(130, 260, 36, 15), random_problem(70, 132, 30, 20)});
}
}
#endif
