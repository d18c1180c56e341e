// Malicious lab 1 kernel: the launcher allocates and touches host memory without end. Must get: zero, stopped by
// the sandbox's memory limit (new throws std::bad_alloc).
#include <cstring>
#include <vector>

#include "lab.h"

void matmul(const float*, const float*, float*, int, int, int) {
    std::vector<char*> hoard;
    for (;;) {
        char* block = new char[64 << 20];
        memset(block, 1, 64 << 20);  // touched, so the pages are really taken
        hoard.push_back(block);
    }
}
