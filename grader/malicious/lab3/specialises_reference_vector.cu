// Malicious lab 3 kernel: an empty launcher that also specialises a member of std::vector<double> that the
// reference GEMM's object instantiates (a weak, template copy there): its strong definition would win at link time,
// so that the reference's assign() leaves the expected C and every tolerance as they were. Must get: zero, refused
// at build time: it defines a name the course's own code defines.
#include <vector>

#include "lab.h"

template <>
void std::vector<double>::_M_fill_assign(size_t, const double&) {}

void matmul(const float*, const float*, float*, int, int, int) {}
