// requests_driver.cpp — one run of a lab's matmul on seeded random M×K·K×N inputs, nothing else: what
// tools/perf/requests_ncu.py counts, on the emulator (CUDAEMU_STATS) and on a GPU (Nsight Compute).
//
//   requests_driver M N K
#include <cstdio>
#include <cstdlib>

#include "harness.h"
#include "lab.h"

int main(int argc, char** argv) {
    const int M = argc == 4 ? std::atoi(argv[1]) : 0, N = argc == 4 ? std::atoi(argv[2]) : 0,
              K = argc == 4 ? std::atoi(argv[3]) : 0;
    if (M < 1 || N < 1 || K < 1) return std::fprintf(stderr, "usage: %s M N K   (each >= 1)\n", argv[0]), 2;
    set_input_mantissa_bits(INPUT_MANTISSA_BITS);  // lab 7 multiplies TF32 inputs: its tolerance
    const Problem p = random_problem(M, N, K, 1);
    const Verdict v = check_result(p, run_matmul(p, matmul));
    std::printf("%s\n", v.ok ? "correct" : v.message.c_str());
    return v.ok ? 0 : 1;
}
