// hidden_run.cpp — runs a student's matmul() on one hidden problem and saves C for the grader to judge.
//
//   hidden_run M N K SEED OUT       random_problem(M, N, K, SEED) through the lab's matmul; C goes to OUT
//
// Linked with the student's kernel inside the sandbox. It judges nothing: the sizes and the seed are chosen
// afresh at grade time, and hidden_check (built and run outside the sandbox) compares OUT with the reference.
// OUT: int32 M, N, launch error, sync error, work done outside the kernels (copies of A or B that matmul() made
// with cudaMemcpy, and host code's direct accesses to device memory: the emulator's count; 0 on a GPU), then M·N
// floats (row-major).
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "harness.h"
#include "lab.h"

int main(int argc, char** argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s M N K SEED OUT\n", argv[0]);
        return 2;
    }
    const int M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
    if (!valid_shape(M, N, K)) {  // lab.h's rule: the grader draws only shapes the lab takes
        fprintf(stderr, "%d x %d x %d is not a shape this lab takes (valid_shape in its lab.h)\n", M, N, K);
        return 2;
    }
    const uint32_t seed = static_cast<uint32_t>(strtoul(argv[4], nullptr, 10));
    Run run = run_matmul(random_problem(M, N, K, seed), matmul);
    FILE* out = fopen(argv[5], "wb");
    if (!out) {
        perror(argv[5]);
        return 1;
    }
    const int32_t header[5] = {M, N, static_cast<int32_t>(run.launch_error), static_cast<int32_t>(run.sync_error),
                               static_cast<int32_t>(run.AB_copies.size() + run.host_accesses.size())};
    const bool ok = fwrite(header, sizeof header, 1, out) == 1 &&
                    fwrite(run.C.data(), sizeof(float), run.C.size(), out) == run.C.size();
    return fclose(out) == 0 && ok ? 0 : 1;
}
