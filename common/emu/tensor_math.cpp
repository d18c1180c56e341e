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
    b &= ~0x1fffu;  // also of an infinity or a NaN: a NaN whose payload was all in those bits reads as infinite
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

float tf32_dot(float c, const float* a, const float* b, int n) {
    bool special = !std::isfinite(c);
    for (int k = 0; k < n; ++k) special |= !std::isfinite(a[k]) || !std::isfinite(b[k]);
    if (special) {  // IEEE's rules on the exact products; every NaN is the GPU's one NaN
        bool nan = std::isnan(c);
        double total = c;
        for (int k = 0; k < n; ++k) {
            const double p = static_cast<double>(a[k]) * b[k];
            nan |= std::isnan(p);
            if (!std::isnan(p)) total += p;
        }
        if (nan || std::isnan(total)) {
            const uint32_t canonical = 0x7fffffffu;
            float f;
            memcpy(&f, &canonical, 4);
            return f;
        }
        return static_cast<float>(total);
    }
    // the exponents as the float formats hold them: a subnormal's is the smallest normal one's
    auto exponent = [](float x) { return std::max(std::ilogb(x), -126); };
    int emax = INT32_MIN;
    if (c != 0) emax = exponent(c);
    for (int k = 0; k < n; ++k)
        if (a[k] != 0 && b[k] != 0) emax = std::max(emax, exponent(a[k]) + exponent(b[k]));
    if (emax == INT32_MIN) return 0.0f;
    // each term a multiple of q below 2^(emax+2): integers below 2^31 in all, exact in a double
    const double q = std::ldexp(1.0, emax - 25);
    double sum = std::trunc(c / q) * q;
    for (int k = 0; k < n; ++k) sum += std::trunc(static_cast<double>(a[k]) * b[k] / q) * q;
    if (sum == 0) return 0.0f;
    if (std::fabs(sum) >= 0x1p128) return std::copysign(INFINITY, static_cast<float>(sum));
    return round_toward_zero(sum);
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
