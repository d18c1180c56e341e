// Malicious lab 1 kernel: the launcher prints without end. Must get: zero, stopped by the sandbox's output limit.
#include <cstdio>

#include "lab.h"

void matmul(const float*, const float*, float*, int, int, int) {
    for (;;) fputs("all work and no play makes a kernel a dull kernel\n", stdout);
}
