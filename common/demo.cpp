// demo.cpp — the lab's matmul on a WIDTH×WIDTH problem with A = a and B = b: every value of C must be a·b·WIDTH.
//
//   demo WIDTH A B          e.g. demo 34 1 2: every value is 68.0
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "harness.h"
#include "lab.h"

int main(int argc, char** argv) {
    if (argc != 4 || !valid_shape(atoi(argv[1]), atoi(argv[1]), atoi(argv[1]))) {
        fprintf(stderr, "usage: %s WIDTH A B   (WIDTH a size this lab takes: see valid_shape in its lab.h)\n", argv[0]);
        return 2;
    }
    const int width = atoi(argv[1]);
    const float a = static_cast<float>(atof(argv[2])), b = static_cast<float>(atof(argv[3]));
    const float want = a * b * static_cast<float>(width);
    Run run = run_matmul(constant_problem(width, width, width, a, b), matmul);
    if (run.launch_error != cudaSuccess || run.sync_error != cudaSuccess) {
        cudaError_t e = run.launch_error != cudaSuccess ? run.launch_error : run.sync_error;
        printf("width=%d: the kernel failed: %s (%s)\n", width, cudaGetErrorName(e), cudaGetErrorString(e));
        return 1;
    }
    if (!run.findings.empty()) {
        // The emulator's report is on stderr, or, under `make labN` (CUDAEMU_QUIET), in the tests' report above.
        printf(
            "width=%d: the emulator found %zu error%s in the kernel (%s; %s): its results mean nothing "
            "until %s fixed\n",
            width, run.findings.size(), run.findings.size() == 1 ? "" : "s", run.findings.front().kind.c_str(),
            std::getenv("CUDAEMU_QUIET") ? "see the tests above" : "reported above",
            run.findings.size() == 1 ? "it is" : "they are");
        return 1;
    }
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < run.C.size(); ++i)
        if (run.C[i] != want && !wrong++) first = i;
    if (wrong) {
        printf("width=%d: %zu of %zu values are not %.1f; the first is C[%zu][%zu] = %g%s\n", width, wrong,
               run.C.size(), want, first / width, first % width, run.C[first], nan_hint(run, first).c_str());
        return 1;
    }
    printf("width=%d, A = %g, B = %g: all %s values of C are %.1f\n", width, a, b, with_commas(run.C.size()).c_str(),
           want);
    return 0;
}
