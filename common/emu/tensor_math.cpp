// tensor_math.cpp — the tensor cores' arithmetic (tensor_math.h).
#include "tensor_math.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cudaemu {
namespace {

float round_toward_zero(double s) {
    float f = static_cast<float>(s);
    if (std::fabs(static_cast<double>(f)) > std::fabs(s)) f = std::nextafter(f, 0.0f);
    return f;
}

}  // namespace

float tf32_input(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    if ((b & 0x7f800000u) != 0x7f800000u) b &= ~0x1fffu;
    memcpy(&f, &b, 4);
    return f;
}

uint64_t unrounded(const void* x, int n) {
    uint64_t count = 0;
    for (int i = 0; i < n; ++i) {
        uint32_t b;
        memcpy(&b, static_cast<const float*>(x) + i, 4);
        count += (b & 0x1fffu) != 0;
    }
    return count;
}

// Each term a multiple of 2^(emax-25) below 2^(emax+1): integers below 2^31 in all, exact in a double.
float add_group(float acc, const double* products, int n) {
    double plain = acc;
    bool special = !std::isfinite(acc);
    int emax = acc != 0 ? std::ilogb(acc) : INT32_MIN;
    for (int i = 0; i < n; ++i) {
        plain += products[i];
        special |= !std::isfinite(products[i]);
        if (products[i] != 0) emax = std::max(emax, std::ilogb(products[i]));
    }
    if (special || emax == INT32_MIN) return static_cast<float>(plain);
    const double q = std::ldexp(1.0, emax - 25);
    double sum = std::trunc(acc / q) * q;
    for (int i = 0; i < n; ++i) sum += std::trunc(products[i] / q) * q;
    return round_toward_zero(sum);
}

}  // namespace cudaemu
