// Malicious lab 1 kernel: the launcher forks without end. Must get: zero, stopped by a sandbox limit (the process
// limit makes fork fail; the spinning processes then meet the CPU-time or wall-time limit), and every process it
// started is gone afterwards.
#include <unistd.h>

#include "lab.h"

void matmul(const float*, const float*, float*, int, int, int) {
    for (;;) fork();
}
