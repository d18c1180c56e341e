// driver.cpp — times a lab's matmul() on the emulator: `driver N REPS` prints "N seconds".
//
// The first launch of a program starts the emulator's worker pool; a small warm-up launch keeps that out of the
// timing. Each size is run REPS times and the fastest run is reported.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "harness.h"
#include "lab.h"

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s N REPS\n", argv[0]);
        return 2;
    }
    const int n = atoi(argv[1]), reps = atoi(argv[2]);
    run_matmul(random_problem(16, 16, 16, 1), matmul);  // warm-up
    Problem p = random_problem(n, n, n, 2);
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        auto start = std::chrono::steady_clock::now();
        Run run = run_matmul(p, matmul);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!check_result(p, run).ok) {
            fprintf(stderr, "wrong result at n=%d\n", n);
            return 1;
        }
        best = s < best ? s : best;
    }
    printf("%d %.6f\n", n, best);
    return 0;
}
