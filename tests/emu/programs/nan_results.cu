// The NaN a kernel's arithmetic gives, as bits. A GPU's single-precision arithmetic gives one NaN, 0x7fffffff, for
// every NaN result: an invalid operation (0/0, inf - inf, 0 * inf, sqrtf(-1), logf(-1)), a NaN operand whatever its
// sign and payload, a negation or fabsf of a NaN. An x86 CPU gives 0xffc00000 for an invalid operation (printf says
// -nan) and passes an operand's NaN on; the emulator makes each float result the GPU's NaN. A value only moved (loaded
// and stored, __int_as_float) keeps its bits on both, and fminf of a NaN and a number is the number. In double
// precision the GPU's NaN of an invalid operation, 0xfff8000000000000, is the CPU's, and a NaN operand is passed on.
// The inputs are kernel arguments, so that nvcc folds none of it.
//
// Build: nvcc -arch=sm_90 -o nan_results tests/emu/programs/nan_results.cu

#include <cmath>
#include <cstdint>
#include <cstring>

#include "program.h"

constexpr int FLOATS = 14, DOUBLES = 7;

__global__ void nan_kernel(float zero, float inf, float payload, float negative_payload, double dzero, double dinf,
                           double dpayload, uint32_t* f, uint64_t* d) {
    const float r[FLOATS] = {zero / zero,
                             inf - inf,
                             zero * inf,
                             sqrtf(-inf),
                             logf(-1.0f - zero),
                             payload + 1.0f,
                             negative_payload - 1.0f,
                             1.0f + negative_payload,
                             -payload,
                             fabsf(negative_payload),
                             fmaf(zero, inf, 1.0f),
                             payload,
                             __int_as_float(0xffc00001u),
                             fminf(payload, 1.0f)};
    for (int i = 0; i < FLOATS; ++i) memcpy(&f[i], &r[i], sizeof(float));
    const double q[DOUBLES] = {dzero / dzero,     dinf - dinf,    dzero * dinf,          sqrt(-dinf),
                               dpayload + 1.0, dpayload * 2.0, fma(dzero, dinf, 1.0)};
    for (int i = 0; i < DOUBLES; ++i) memcpy(&d[i], &q[i], sizeof(double));
}

int main() {
    const char* float_names[FLOATS] = {"0/0",         "inf-inf",  "0*inf",         "sqrtf(-inf)", "logf(-1)",
                                       "nan+1",       "-nan-1",   "1+(-nan)",      "-nan",        "fabsf(-nan)",
                                       "fmaf(0,inf,1)", "nan moved", "__int_as_float", "fminf(nan,1)"};
    const char* double_names[DOUBLES] = {"0/0", "inf-inf", "0*inf", "sqrt(-inf)", "nan+1", "nan*2", "fma(0,inf,1)"};
    const uint32_t payload_bits = 0x7fc01234u, negative_bits = 0xffc05678u;
    const uint64_t dpayload_bits = 0x7ff8000000001234ull;
    float payload, negative_payload;
    double dpayload;
    memcpy(&payload, &payload_bits, sizeof payload);
    memcpy(&negative_payload, &negative_bits, sizeof negative_payload);
    memcpy(&dpayload, &dpayload_bits, sizeof dpayload);
    uint32_t* d_f = nullptr;
    uint64_t* d_d = nullptr;
    CHECK(cudaMalloc(&d_f, FLOATS * sizeof(uint32_t)));
    CHECK(cudaMalloc(&d_d, DOUBLES * sizeof(uint64_t)));
    nan_kernel<<<1, 1>>>(0.0f, INFINITY, payload, negative_payload, 0.0, INFINITY, dpayload, d_f, d_d);
    print_error("launch", cudaGetLastError());
    uint32_t f[FLOATS];
    uint64_t d[DOUBLES];
    CHECK(cudaMemcpy(f, d_f, sizeof f, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(d, d_d, sizeof d, cudaMemcpyDeviceToHost));
    for (int i = 0; i < FLOATS; ++i) std::printf("float %s: 0x%08x\n", float_names[i], f[i]);
    for (int i = 0; i < DOUBLES; ++i)
        std::printf("double %s: 0x%016llx\n", double_names[i], static_cast<unsigned long long>(d[i]));
    float first;
    memcpy(&first, &f[0], sizeof first);
    std::printf("printed: %f\n", first);
    CHECK(cudaFree(d_f));
    CHECK(cudaFree(d_d));
    return 0;
}
