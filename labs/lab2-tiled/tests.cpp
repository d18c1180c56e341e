// tests.cpp — lab 2: shared-memory tiling, called only with M, N and K multiples of TILE_WIDTH.
//
// Correctness; on the emulator also traffic (tiling reads each A and B element once per tile row or column of C:
// at most 2·M·N·K/TILE_WIDTH floats), stores, and memory safety (races, barriers, uninitialised shared reads).
#include "lab_tests.h"

TEST_SUITE("correctness") {
TEST_CASE("width=32 with A = 1, B = 2: every value is 64.0") { expect_constant_case(32, TILE_WIDTH); }

TEST_CASE("16x16 with values 1..256") { expect_correct({counting_problem(16, 16, 16)}); }

TEST_CASE("seeded random data, A != B^T") { expect_correct({random_problem(64, 64, 64, 1)}); }

TEST_CASE("rectangular multiples of 16, M != N != K") {
    expect_correct({random_problem(48, 16, 32, 2), random_problem(16, 80, 64, 3)});
}

TEST_CASE("sizes 16, 32, 48, 112") { expect_correct(random_squares({16, 32, 48, 112}, 4)); }

#ifndef CUDAEMU  // about 2 GFLOP: seconds on a GPU, minutes on the emulator
TEST_CASE("large: 1008x800 * 800x1200") { expect_correct({random_problem(1008, 1200, 800, 6)}); }
#endif
}

#ifdef CUDAEMU
TEST_SUITE("traffic") {
TEST_CASE("reads at most 2*M*N*K/16 floats (64x48 * 48x32)") {
    Problem p = random_problem(64, 32, 48, 7);
    uint64_t tiled_bytes = 2ull * p.M * p.N * p.K / TILE_WIDTH * sizeof(float);
    expect(check_reads_at_most(p, run_student(p), tiled_bytes, "a 16×16 tiled kernel"));
}

TEST_CASE("coalesced: tile rows loaded and C stored by consecutive lanes (64x48 * 48x32)") {
    Problem p = random_problem(64, 32, 48, 16);
    expect(check_coalesced(p, run_matmul_counting_requests(p, matmul),
                           tile_mapping_sectors(p, TILE_WIDTH, TILE_WIDTH, TILE_WIDTH),
                           "tile rows loaded with consecutive lanes"));
}

TEST_CASE("every element of C written exactly once, by kernel code") {
    Problem p = random_problem(48, 32, 64, 8);
    expect(check_written_once(p, run_student(p)));
}

TEST_CASE("the multiply-adds run in your kernels, in float: at least 2*M*N*K FP32 FLOPs (64x48 * 48x32)") {
    Problem p = random_problem(64, 32, 48, 31);
    expect(check_fp32_flops(p, run_student(p)));
}
}

TEST_SUITE("memory safety") {
TEST_CASE("no race, divergent barrier, uninitialised shared read or out-of-bounds access") {
    expect_clean({random_problem(16, 16, 16, 9), random_problem(48, 32, 64, 10)});
}
}
#endif
