// Malicious lab 1 kernel: the launcher writes through a null pointer. Must get: zero, "the test program crashed
// (SIGSEGV)" for every test.
#include "lab.h"

void matmul(const float*, const float*, float*, int, int, int) {
    volatile int* nowhere = nullptr;
    *nowhere = 1;
}
