// program.h: the helpers every test program in tests/emu/programs/ prints with.
//
// Each program prints `key: value` lines that must be the same on a GPU and on the CPU emulator, so that
// tests/emu/gpu_check.sh can diff the two runs: error names, pass/fail of checks made on the host, and
// numbers both machines compute exactly. Never a timing, an address, a float that depends on rounding,
// or anything only the emulator knows.
//   print_error(key, err)  `key: cudaErrorName` for a call whose result the program reports.
//   CHECK(expr)            a setup call that must succeed; on failure print it and exit(1).
//   print_compare(key, got, want)   `key: pass`, or `key: FAIL (...)` naming the first bad element once.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

inline void print_error(const char* key, cudaError_t err) {
    std::printf("%s: %s\n", key, cudaGetErrorName(err));
}

#define CHECK(expr)                                                                            \
    do {                                                                                       \
        const cudaError_t check_err_ = (expr);                                                 \
        if (check_err_ != cudaSuccess) {                                                       \
            std::printf("setup_failed: %s:%d: %s: %s\n", __FILE__, __LINE__, #expr,            \
                        cudaGetErrorName(check_err_));                                         \
            std::exit(1);                                                                      \
        }                                                                                      \
    } while (0)

// Exact comparison, element by element: integers, and floats that both machines compute exactly.
template <class T>
void print_compare(const char* key, const std::vector<T>& got, const std::vector<T>& want) {
    int mismatches = 0;
    size_t first_bad = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        if (i >= got.size() || !(got[i] == want[i])) {  // written this way round so a NaN fails too
            if (mismatches == 0) first_bad = i;
            ++mismatches;
        }
    }
    if (mismatches == 0) {
        std::printf("%s: pass\n", key);
    } else {
        std::printf("%s: FAIL (%d of %zu wrong, first at %zu: got %g, want %g)\n", key, mismatches, want.size(),
                    first_bad, first_bad < got.size() ? double(got[first_bad]) : 0.0, double(want[first_bad]));
    }
}
