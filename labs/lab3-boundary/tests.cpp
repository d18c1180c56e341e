// tests.cpp — lab 3: boundary-safe tiling for any M, N, K >= 1.
//
// Correctness on sizes that leave partial tiles at every edge; on the emulator also traffic (guarded loads skip
// what lies outside the matrices: at most M·K·⌈N/16⌉ + K·N·⌈M/16⌉ floats), stores, and memory safety.
#include "lab_tests.h"

TEST_SUITE("correctness") {
TEST_CASE("width=34 with A = 1, B = 2: every value is 68.0") { expect_constant_case(34, TILE_WIDTH); }

TEST_CASE("4x4 with values 1..16: C[0][0] = 90") { expect_counting_case(); }

TEST_CASE("seeded random data, A != B^T") { expect_correct({random_problem(37, 37, 37, 1)}); }

TEST_CASE("rectangular, M != N != K") {
    expect_correct({random_problem(55, 43, 48, 2), random_problem(7, 61, 3, 3), random_problem(33, 1, 65, 4)});
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
// the second shape has no side a multiple of 16: a kernel that tiles whole slices of K but reads the rest of K
// straight from global memory is caught there
TEST_CASE("reads at most M*K*ceil(N/16) + K*N*ceil(M/16) floats (55x48 * 48x43 and 37x45 * 45x29)") {
    for (const Problem& p : {random_problem(55, 43, 48, 8), random_problem(37, 29, 45, 17)}) {
        uint64_t tiled_floats =
            uint64_t(p.M) * p.K * ceil_div(p.N, TILE_WIDTH) + uint64_t(p.K) * p.N * ceil_div(p.M, TILE_WIDTH);
        Verdict v = check_reads_at_most(p, run_student(p), tiled_floats * sizeof(float), "a 16×16 tiled kernel");
        expect(v);
        if (!v.ok) return;
    }
}

TEST_CASE("coalesced: tile rows loaded and C stored by consecutive lanes (55x48 * 48x43)") {
    Problem p = random_problem(55, 43, 48, 16);
    expect(check_coalesced(p, run_matmul_counting_requests(p, matmul),
                           tile_mapping_sectors(p, TILE_WIDTH, TILE_WIDTH, TILE_WIDTH),
                           "tile rows loaded with consecutive lanes"));
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
    expect_clean({random_problem(1, 1, 1, 10), random_problem(17, 33, 5, 11), random_problem(55, 43, 48, 12)});
}
}
#endif
