// tests.cpp — lab 4: thread coarsening, each thread computes TM outputs of one column, for any M, N, K >= 1.
//
// Correctness on lab 3's sizes; on the emulator also traffic (a BM×BN block tile with guarded loads reads at most
// M·K·⌈N/64⌉ + K·N·⌈M/64⌉ floats), stores, and memory safety.
#include "lab_tests.h"

static_assert(BM == 64 && BN == 64, "the traffic test's name states a 64×64 block tile");

TEST_SUITE("correctness") {
TEST_CASE("width=34 with A = 1, B = 2: every value is 68.0") { expect_constant_case(34, BK); }

TEST_CASE("4x4 with values 1..16: C[0][0] = 90") { expect_counting_case(); }

TEST_CASE("seeded random data, A != B^T") { expect_correct({random_problem(37, 37, 37, 1)}); }

TEST_CASE("rectangular, M != N != K, and more than one block each way (130x70 * 70x150)") {
    expect_correct({random_problem(55, 43, 48, 2), random_problem(7, 61, 3, 3), random_problem(33, 1, 65, 4),
                    random_problem(130, 150, 70, 13)});
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
TEST_CASE("reads at most M*K*ceil(N/64) + K*N*ceil(M/64) floats (55x48 * 48x43 and 130x70 * 70x150)") {
    for (const Problem& p : {random_problem(55, 43, 48, 8), random_problem(130, 150, 70, 14)}) {
        expect(check_reads_at_most(p, run_student(p), block_tile_floats(p, BM, BN) * sizeof(float),
                                   "a kernel with 64×64 block tiles"));
    }
}

TEST_CASE("coalesced: tile rows loaded and C stored by consecutive lanes (55x48 * 48x43)") {
    Problem p = random_problem(55, 43, 48, 16);
    expect(check_coalesced(p, run_matmul_counting_requests(p, matmul), tile_mapping_sectors(p, BM, BN, BK),
                           "tile rows loaded with consecutive lanes"));
}

TEST_CASE("register reuse: at most (TM+1)/TM shared-memory loads per multiply-add (55x48 * 48x43, 130x70 * 70x150)") {
    for (const Problem& p : {random_problem(55, 43, 48, 21), random_problem(130, 150, 70, 22)}) {
        Verdict v = check_shared_loads_per_fma(p, run_student(p), BM, BN, BK, TM + 1, TM,
                                               "a thread that keeps each value of B in a register for its TM rows");
        expect(v);
        if (!v.ok) return;
    }
}

TEST_CASE("every element of C written exactly once, by kernel code") {
    Problem p = random_problem(55, 43, 48, 9);
    expect(check_written_once(p, run_student(p)));
}

TEST_CASE("the multiply-adds run in your kernels, in float: at least 2*M*N*K FP32 FLOPs (55x48 * 48x43)") {
    Problem p = random_problem(55, 43, 48, 31);
    expect(check_fp32_flops(p, run_student(p)));
}
}

TEST_SUITE("memory safety") {
TEST_CASE("no race, divergent barrier, uninitialised shared read or out-of-bounds access") {
    expect_clean({random_problem(1, 1, 1, 10), random_problem(17, 33, 5, 11), random_problem(55, 43, 48, 12),
                  random_problem(130, 150, 70, 15)});
}
}
#endif
