// lab_tests.h — what every lab's tests.cpp shares: run the student's matmul() and turn verdicts into doctest checks.
#pragma once

#include <doctest/doctest.h>

#include <initializer_list>
#include <vector>

#include "harness.h"
#include "lab.h"

// Runs the student's matmul(); check_result then allows for the input rounding of this lab's kernels (lab.h:
// INPUT_MANTISSA_BITS).
inline Run run_student(const Problem& p) {
    set_input_mantissa_bits(INPUT_MANTISSA_BITS);
    return run_matmul(p, matmul);
}

// The same, counting every warp's memory requests (the coalescing and bank-conflict tests). The grader runs each
// test case in a process of its own, so every run of the student's matmul() sets the rounding it allows.
inline Run run_student_counting_requests(const Problem& p) {
    set_input_mantissa_bits(INPUT_MANTISSA_BITS);
    return run_matmul_counting_requests(p, matmul);
}

// n×n·n×n seeded random problems, one per size.
inline std::vector<Problem> random_squares(std::initializer_list<int> sizes, uint32_t seed) {
    std::vector<Problem> out;
    for (int n : sizes) out.push_back(random_problem(n, n, n, seed));
    return out;
}

// Floats a kernel reads from A and B when each block computes a bm×bn tile of C and loads only elements inside
// A and B: every block row reads its rows of A once, every block column its columns of B once.
inline uint64_t block_tile_floats(const Problem& p, int bm, int bn) {
    return uint64_t(p.M) * p.K * ceil_div(p.N, bn) + uint64_t(p.K) * p.N * ceil_div(p.M, bm);
}

// One doctest check per verdict, so a failure is reported once with the whole story; the test case's verdict record
// names the check that failed (case_record()).
inline void expect(const Verdict& v) {
    if (!v.ok) case_record().add_failed_check(v.check);
    CHECK_MESSAGE(v.ok, v.message);
}

// Checks the problems in order and stops at the first wrong one: one clear failure beats ten similar ones.
inline void expect_correct(const std::vector<Problem>& problems) {
    for (const Problem& p : problems) {
        CAPTURE(p.M);
        CAPTURE(p.N);
        CAPTURE(p.K);
        Verdict v = check_result(p, run_student(p));
        expect(v);
        if (!v.ok) return;
    }
}

// A·B with every A element 1 and every B element 2: each output is 2·K, which float represents exactly. A lab whose
// kernel works in phases passes its slice of K (and the k its inner loop takes per step), so that a result short by
// some products can be laid against the phases.
inline void expect_constant_case(int width, int k_slice = 0, int k_step = 1) {
    CAPTURE(width);
    Problem p = constant_problem(width, width, width, 1.0f, 2.0f);
    p.k_slice = k_slice;
    p.k_step = k_step;
    Run run = run_student(p);
    Verdict v = check_result(p, run);
    expect(v);
    if (!v.ok) return;
    const float want = 2.0f * float(width);
    size_t off = 0;
    for (float c : run.C) off += (c != want);
    if (off) case_record().add_failed_check("correctness");
    CHECK_MESSAGE(off == 0, off << " values differ from exactly " << want);
}

// A = B = the 4×4 matrix 1..16 in row-major order: C[0][0] = 1·1 + 2·5 + 3·9 + 4·13.
inline void expect_counting_case() {
    Problem p = counting_problem(4, 4, 4);
    Run run = run_student(p);
    Verdict v = check_result(p, run);
    expect(v);
    if (!v.ok) return;
    float want = 0;
    for (int k = 0; k < 4; ++k) want += p.A[k] * p.B[size_t(k) * 4];
    if (run.C[0] != want) case_record().add_failed_check("correctness");
    CHECK_MESSAGE(run.C[0] == want, "C[0][0] is " << run.C[0] << ", want " << want);
}

inline void expect_clean(const std::vector<Problem>& problems) {
    for (const Problem& p : problems) {
        CAPTURE(p.M);
        CAPTURE(p.N);
        CAPTURE(p.K);
        Verdict v = check_clean(p, run_student(p));
        expect(v);
        if (!v.ok) return;
    }
}
