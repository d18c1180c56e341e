// tests.cpp — lab 6: warp tiling and double buffering, float4 loads, for any M, N, K >= 1.
//
// Correctness on lab 3's sizes, which take the scalar path (K or N not a multiple of 4), and on sizes that take
// the float4 path with partial tiles; on the emulator also traffic (a BM×BN block tile with guarded loads reads at
// most M·K·⌈N/128⌉ + K·N·⌈M/128⌉ floats; on the float4 path at most twice the 32-byte sectors per byte of
// tile rows loaded whole), stores, and memory safety, on both paths. Warp tiling and double
// buffering change shared-memory traffic and latency, not global traffic, so the bound is lab 5's. With BK = 16,
// K = 16 is the prologue alone (no prefetch), K = 17 and 33 end on the second and first stage, and K = 48, 97 and
// 132 take 3, 7 and 9 phases.
// Two shapes stand for what a fast kernel does at every size: a long K under a single tile of C (40×300·300×68,
// 33×301·301×36, and 33×302·302×37 with neither K nor N a multiple of 4), where a kernel may split K across
// blocks and add the partial sums in a workspace (split-K: the reference does, as on the H100, whose 132
// multiprocessors the emulator reports), and an odd K with N a multiple of 4 (130×37·37×260), where the rows of B start 16-byte aligned and
// those of A do not.
#include "lab_tests.h"

// Every element of C stored once, by kernel code. A split-K kernel also stores partial sums to a workspace of its
// own: those are not stores of C, so here only the stores into C are counted against C's size.
static Verdict check_c_stored_once(const Problem& p, Run run) {
    uint64_t c_stores = 0;
    for (uint32_t writes : run.C_writes) c_stores += writes;
    run.bytes_written = c_stores * sizeof(float);
    return check_written_once(p, run);
}

static_assert(BM == 128 && BN == 128, "the traffic tests' names state a 128×128 block tile");

TEST_SUITE("correctness") {
TEST_CASE("width=34 with A = 1, B = 2: every value is 68.0") { expect_constant_case(34, BK); }

TEST_CASE("4x4 with values 1..16: C[0][0] = 90") { expect_counting_case(); }

TEST_CASE("seeded random data, A != B^T, and 1 to 4 double-buffer phases (K = 16, 17, 33, 64)") {
    expect_correct({random_problem(37, 37, 37, 1), random_problem(45, 52, 16, 21), random_problem(45, 52, 17, 22),
                    random_problem(45, 52, 33, 23), random_problem(45, 52, 64, 24)});
}

// K and N multiples of 4 take the float4 path (130x36 * 36x260, 20x12 * 12x8); the others the scalar path, also
// when only one of them is (70x30 * 30x132, 70x132 * 132x30). K and N of every remainder mod 4 over several
// phases and two block columns (67x66 * 66x259, 130x35 * 35x62, 9x50 * 50x257): rows of A and B then start 0, 1,
// 2 or 3 floats before a 16-byte boundary, which a kernel that loads their aligned part in float4s must follow.
TEST_CASE("rectangular, M != N != K, on the float4 path and the scalar path") {
    expect_correct({random_problem(55, 43, 48, 2), random_problem(7, 61, 3, 3), random_problem(33, 1, 65, 4),
                    random_problem(130, 260, 36, 13), random_problem(20, 8, 12, 16), random_problem(70, 132, 30, 17),
                    random_problem(70, 30, 132, 18), random_problem(67, 259, 66, 34), random_problem(130, 62, 35, 35),
                    random_problem(9, 257, 50, 36)});
}

TEST_CASE("a long K under one tile of C, and an odd K with N a multiple of 4") {
    expect_correct(
        {random_problem(40, 68, 300, 30), random_problem(33, 36, 301, 31), random_problem(130, 260, 37, 32)});
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
    Problem p = random_problem(130, 260, 36, 33);
    expect(check_coalesced(p, run_matmul_counting_requests(p, matmul), tile_mapping_sectors(p, BM, BN, BK),
                           "tile rows loaded in float4s", kFloat4Advice));
}

// Warp tiling, per warp and step of k: each thread loads WMITER·TM values of the transposed As and WNITER·TN of Bs,
// as float4s of consecutive words, and no two lanes of a request meet in a bank on different words: one wavefront per
// 32 floats, for its WMITER·TM·WNITER·TN multiply-adds. Lab 5's layout (a thread's TN columns of B TN words apart
// from the next thread's) takes 2.5 times as many.
TEST_CASE(
    "warp tiling: conflict-free shared loads, at most (WMITER*TM + WNITER*TN)/(WMITER*TM*WNITER*TN) "
    "wavefronts per warp multiply-add (130x36 * 36x260)") {
    Problem p = random_problem(130, 260, 36, 36);
    expect(check_shared_wavefronts_per_fma(
        p, run_matmul_counting_requests(p, matmul), BM, BN, BK, WMITER * TM + WNITER * TN, WMITER * TM * WNITER * TN,
        "warp tiling with conflict-free float4 loads from shared memory",
        "The lesson's layout takes 1 wavefront per load: give each warp a WM×WN tile and each lane TM×TN pieces of "
        "it a warp step apart, loaded from shared memory as float4s (As transposed), so that the lanes of a warp "
        "read consecutive words"));
}

TEST_CASE(
    "double buffering: one __syncthreads() per slice of K, the next slice in flight (130x36 * 36x260, 64x100 * "
    "100x64)") {
    for (const Problem& p : {random_problem(130, 260, 36, 34), random_problem(64, 64, 100, 35)}) {
        Verdict v = check_one_barrier_per_slice(p, run_student(p), BK);
        expect(v);
        if (!v.ok) return;
    }
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

TEST_CASE("a long K under one tile of C (40x300 * 300x68): reads at most the bound, C stored once") {
    Problem p = random_problem(40, 68, 300, 25);
    Run run = run_student(p);
    // split K ways, a kernel reads its partial sums back: at most one M×N slab per BK-wide slice of K
    const uint64_t partials = uint64_t(ceil_div(p.K, BK)) * p.M * p.N * sizeof(float);
    expect(check_reads_at_most_with_partials(p, run, block_tile_floats(p, BM, BN) * sizeof(float), partials,
                                             "a kernel with 128×128 block tiles, K split or not,"));
    expect(check_c_stored_once(p, run));
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
TEST_CASE("no race, divergent barrier, uninitialised shared read or out-of-bounds access") {
    expect_clean({random_problem(1, 1, 1, 10), random_problem(17, 33, 5, 11), random_problem(55, 43, 48, 12),
                  random_problem(130, 260, 36, 15), random_problem(70, 132, 30, 20)});
}

TEST_CASE(
    "the same on a long K under one tile (40x300 * 300x68, 33x301 * 301x36, 33x302 * 302x37) and an odd K "
    "(130x37 * 37x260)") {
    expect_clean({random_problem(40, 68, 300, 27), random_problem(33, 36, 301, 28), random_problem(33, 37, 302, 37),
                  random_problem(130, 260, 37, 29)});
}
}
#endif
