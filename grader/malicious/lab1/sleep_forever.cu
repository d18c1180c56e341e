// Malicious lab 1 kernel: the launcher sleeps instead of launching, using no CPU. Must get: zero, stopped by the
// sandbox's wall-time limit.
#include <unistd.h>

#include "lab.h"

void matmul(const float*, const float*, float*, int, int, int) {
    for (;;) sleep(1000);
}
