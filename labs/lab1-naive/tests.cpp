// tests.cpp — lab 1: a naive kernel, one thread per element of C.
//
// Correctness on any size, of matmul and of matmul_from_host (the round trip from host memory); on the emulator
// also exact traffic (each thread reads its row of A and its column of B straight from global memory: 2·M·N·K
// floats in all), stores, and memory safety, of the kernel and of the host flow (its device buffers).
#include "lab_tests.h"

// Declared weak here: a kernel.cu without lab 1's second part still builds, and its host-flow tests say what is missing.
__attribute__((weak)) void matmul_from_host(const float* A, const float* B, float* C, int M, int N, int K);

namespace {

void expect_host_flow_correct(const std::vector<Problem>& problems) {
    for (const Problem& p : problems) {
        Verdict v = check_result(p, run_host_flow(p, matmul_from_host));
        expect(v);
        if (!v.ok) return;
    }
}

}  // namespace

TEST_SUITE("correctness") {
TEST_CASE("width=34 with A = 1, B = 2: every value is 68.0") { expect_constant_case(34); }

TEST_CASE("4x4 with values 1..16: C[0][0] = 90") { expect_counting_case(); }

TEST_CASE("seeded random data, A != B^T") { expect_correct({random_problem(37, 37, 37, 1)}); }

TEST_CASE("rectangular, M != N != K") { expect_correct({random_problem(55, 43, 48, 2), random_problem(7, 61, 3, 3)}); }

TEST_CASE("sizes 1, 15, 16, 17 and primes") {
    expect_correct(random_squares({1, 15, 16, 17, 31, 97}, 4));
    expect_correct({random_problem(13, 29, 7, 5)});
}

TEST_CASE("host flow: matmul_from_host brings the right C back to host memory") {
    expect_host_flow_correct({random_problem(37, 19, 23, 12), random_problem(1, 1, 1, 13)});
}

#ifndef CUDAEMU  // about 2 GFLOP: seconds on a GPU, minutes on the emulator
TEST_CASE("large: 1000x800 * 800x1200") { expect_correct({random_problem(1000, 1200, 800, 6)}); }
#endif
}

#ifdef CUDAEMU
TEST_SUITE("traffic") {
TEST_CASE("reads at most 2*M*N*K floats (37x29 * 29x23)") {
    Problem p = random_problem(37, 23, 29, 7);
    uint64_t naive_bytes = 2ull * p.M * p.N * p.K * sizeof(float);
    expect(check_reads_at_most(p, run_student(p), naive_bytes, "a naive kernel (one thread per element of C)"));
}

TEST_CASE("coalesced: a warp's loads and stores fall in few 32-byte sectors (37x29 * 29x23)") {
    Problem p = random_problem(37, 23, 29, 15);
    expect(check_coalesced(p, run_matmul_counting_requests(p, matmul), naive_mapping_sectors(p, dim3(16, 16)),
                           "the taught mapping (col from threadIdx.x, 16x16 blocks)"));
}

TEST_CASE("every element of C written exactly once, by kernel code") {
    Problem p = random_problem(37, 23, 29, 8);
    expect(check_written_once(p, run_student(p)));
}

TEST_CASE("the multiply-adds run in your kernels, in float: at least 2*M*N*K FP32 FLOPs (37x29 * 29x23)") {
    Problem p = random_problem(37, 23, 29, 31);
    expect(check_fp32_flops(p, run_student(p)));
}
}

TEST_SUITE("memory safety") {
TEST_CASE("no out-of-bounds access on any size") {
    expect_clean({random_problem(1, 1, 1, 9), random_problem(17, 33, 5, 10), random_problem(37, 23, 29, 11)});
}

TEST_CASE("host flow: every CUDA call checked, device buffers sized in bytes and all freed") {
    const Problem p = random_problem(29, 31, 17, 14);
    expect(check_host_flow_clean(p, run_host_flow(p, matmul_from_host)));
}
}
#endif
