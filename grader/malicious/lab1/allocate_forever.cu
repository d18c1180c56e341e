// Malicious lab 1 kernel: the launcher allocates host memory without end, 512 MiB at a time. Must get: zero,
// stopped by the sandbox's memory limit (new throws std::bad_alloc). The memory limit counts what is reserved
// (RLIMIT_DATA), so a few large steps reach it at once, long before any CPU-time or wall-time limit could fire,
// however busy the machine is.
#include <vector>

#include "lab.h"

void matmul(const float*, const float*, float*, int, int, int) {
    std::vector<char*> hoard;
    for (;;) {
        char* block = new char[size_t(512) << 20];
        block[0] = 1;  // used, so the compiler keeps the allocation
        hoard.push_back(block);
    }
}
