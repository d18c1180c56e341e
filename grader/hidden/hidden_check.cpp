// hidden_check.cpp — judges what hidden_run saved, outside the sandbox, against the double-precision reference.
//
//   hidden_check M N K SEED FILE [BITS]    exit 0 when C is right; otherwise prints why and exits 1
//   (BITS: the lab's INPUT_MANTISSA_BITS, 23 when not given: how many mantissa bits its kernels multiply with)
//
// FILE was written by code the grader does not trust, so every byte of it is checked before use: its size
// must be exactly what M and N imply, and the error codes are only reported, never looked up.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "harness.h"

int main(int argc, char** argv) {
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: %s M N K SEED FILE [BITS]\n", argv[0]);
        return 2;
    }
    if (argc == 7) set_input_mantissa_bits(atoi(argv[6]));
    const int M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
    const uint32_t seed = static_cast<uint32_t>(strtoul(argv[4], nullptr, 10));
    const Problem p = random_problem(M, N, K, seed);
    FILE* in = fopen(argv[5], "rb");
    if (!in) {
        printf("%s: the test program saved no result\n", p.description.c_str());
        return 1;
    }
    int32_t header[5] = {0, 0, 0, 0, 0};
    Run run;
    run.C.resize(size_t(M) * N);
    const bool complete = fread(header, sizeof header, 1, in) == 1 &&
                          fread(run.C.data(), sizeof(float), run.C.size(), in) == run.C.size() && fgetc(in) == EOF;
    fclose(in);
    if (!complete || header[0] != M || header[1] != N) {
        printf("%s: the test program's result is malformed\n", p.description.c_str());
        return 1;
    }
    if (header[2] != 0 || header[3] != 0) {
        printf("%s: the %s failed with CUDA error %d\n", p.description.c_str(), header[2] ? "launch" : "kernel",
               header[2] ? header[2] : header[3]);
        return 1;
    }
    if (header[4] != 0) {
        printf(
            "%s: matmul() copied A or B with cudaMemcpy, or its host code used device pointers as host memory (%d "
            "times): compute C in your kernels on the device, reading A and B where they are\n",
            p.description.c_str(), header[4]);
        return 1;
    }
    const Verdict v = check_result(p, run);
    if (!v.ok) printf("%s\n", v.message.c_str());
    return v.ok ? 0 : 1;
}
