// Malicious lab 1 kernel: every thread spins forever. Must get: zero, stopped by the sandbox's CPU-time limit
// (or the emulator's watchdog, whichever comes first); the lab's remaining tests are not run.
#include "lab.h"

__global__ void spin_kernel(float* C) {
    volatile int forever = 1;  // volatile: the loop cannot be optimised away
    while (forever) {
    }
    C[0] = 0.0f;
}

void matmul(const float*, const float*, float* C, int, int, int) { spin_kernel<<<1, 1>>>(C); }
