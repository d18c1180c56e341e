// CUDA's math library in device code, bit for bit: each function runs on 4,096 arguments spread over its domain
// (and over the slow paths: sin of arguments up to 2^996, pow of negative bases and integer exponents), and
// one line per function prints a hash of every result's bits. The H100 prints the hashes recorded in
// math_library.h100.out; the emulator prints the same when the CUDA Toolkit's libdevice is installed (it links
// CUDA's own implementations, docs/emulator.md), and other hashes on the host's libm. expf, exp2f, powf, tanf, tanhf,
// erf and the others from expf on build on the GPU's approximations ex2.approx and rcp.approx, which the emulator
// computes from tables measured on an H100 (common/emu/cudaemu_cc/approx.py). Not here: functions that need an
// approximation the emulator does not have (rsqrt.approx in the double asin, acos, hypot, ...), and the __
// intrinsics (__expf, __logf, ...), which stay the host's.
//
// Three more lines print single results whose last bit depends on rcp.approx.ftz.f64, the hardware's 20-bit
// reciprocal that libdevice's log and atan refine (found among 8 million arguments; the emulator's table of it came
// from tools/rcp-approx/probe.cu).
//
// Given a file name, the program also writes every result there (FUNCTIONS x N doubles), to find which differ.
//
// Build: nvcc -arch=sm_90 -o math_library tests/emu/programs/math_library.cu

#include <cmath>
#include <cstdint>
#include <cstring>

#include "program.h"

constexpr int N = 4096;  // arguments per function

enum Function {
    EXP, EXP2, EXP10, EXPM1, LOG, LOG2, LOG10, LOG1P, POW, POW_INT, SQRT, SIN, COS, TAN, SIN_HUGE, SINH, COSH, ATAN,
    ATAN2, FMOD, SINF, COSF, LOGF, LOG2F, LOG10F, POWF_INT, EXPF, EXP2F, POWF, TANF, ATANF, TANHF, EXP10F, EXPM1F,
    ERFF, ERFCF, LGAMMAF, ERF, TANH, FUNCTIONS
};
const char* const kNames[FUNCTIONS] = {
    "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "pow", "pow_double_int", "sqrt",
    "sin", "cos", "tan", "sin_huge", "sinh", "cosh", "atan", "atan2", "fmod", "sinf", "cosf", "logf", "log2f",
    "log10f", "pow_float_int", "expf", "exp2f", "powf", "tanf", "atanf", "tanhf", "exp10f", "expm1f", "erff",
    "erfcf", "lgammaf", "erf", "tanh"};

// ----------------------------------------------------------------------------
// kernel

__device__ double evaluate(int f, double x, double y) {
    switch (f) {
    case EXP: return exp(x);
    case EXP2: return exp2(x);
    case EXP10: return exp10(x);
    case EXPM1: return expm1(x);
    case LOG: return log(x);
    case LOG2: return log2(x);
    case LOG10: return log10(x);
    case LOG1P: return log1p(x);
    case POW: return pow(x, y);
    case POW_INT: return pow(x, int(y));
    case SQRT: return sqrt(x);
    case SIN: return sin(x);
    case COS: return cos(x);
    case TAN: return tan(x);
    case SIN_HUGE: return sin(x);
    case SINH: return sinh(x);
    case COSH: return cosh(x);
    case ATAN: return atan(x);
    case ATAN2: return atan2(x, y);
    case FMOD: return fmod(x, y);
    case SINF: return sinf(float(x));
    case COSF: return cosf(float(x));
    case LOGF: return logf(float(x));
    case LOG2F: return log2f(float(x));
    case LOG10F: return log10f(float(x));
    case POWF_INT: return pow(float(x), int(y));  // as Rodinia's myocyte writes pow(float, 3)
    case EXPF: return expf(float(x));
    case EXP2F: return exp2f(float(x));
    case POWF: return powf(float(x), float(y));
    case TANF: return tanf(float(x));
    case ATANF: return atanf(float(x));
    case TANHF: return tanhf(float(x));
    case EXP10F: return exp10f(float(x));
    case EXPM1F: return expm1f(float(x));
    case ERFF: return erff(float(x));
    case ERFCF: return erfcf(float(x));
    case LGAMMAF: return lgammaf(float(x));
    case ERF: return erf(x);
    case TANH: return tanh(x);
    }
    return 0.0;
}

__global__ void reciprocal_kernel(const double* x, double* out) {
    out[0] = log(x[0]);
    out[1] = atan(x[1]);
    out[2] = atan(x[2]);
}

__global__ void math_kernel(const double* x, const double* y, double* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < FUNCTIONS * N) out[i] = evaluate(i / N, x[i], y[i]);
}

// ----------------------------------------------------------------------------
// host

// An argument of [lo, hi) (exact arithmetic only, so that both machines feed the same arguments):: the i-th point of a low-discrepancy sequence (so that no two functions share a grid)
double spread(int i, double lo, double hi) {
    const double golden = 0.6180339887498949;
    const double u = double(i + 1) * golden - std::floor(double(i + 1) * golden);
    return lo + (hi - lo) * u;
}

// 64-bit FNV-1a over the results' bits
uint64_t hash_bits(const double* v, int n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; ++i) {
        uint64_t bits;
        std::memcpy(&bits, &v[i], sizeof bits);
        for (int b = 0; b < 8; ++b) h = (h ^ ((bits >> (8 * b)) & 0xff)) * 0x100000001b3ull;
    }
    return h;
}

int main(int argc, char** argv) {
    std::vector<double> x(FUNCTIONS * N), y(FUNCTIONS * N, 0.0), out(FUNCTIONS * N);
    for (int i = 0; i < N; ++i) {
        x[EXP * N + i] = spread(i, -700.0, 700.0);
        x[EXP2 * N + i] = spread(i, -1000.0, 1000.0);
        x[EXP10 * N + i] = spread(i, -300.0, 300.0);
        x[EXPM1 * N + i] = spread(i, -2.0, 2.0);
        x[LOG * N + i] = std::ldexp(spread(i, 1.0, 2.0), i % 2040 - 1020);
        x[LOG2 * N + i] = std::ldexp(spread(i, 1.0, 2.0), i % 2040 - 1020);
        x[LOG10 * N + i] = std::ldexp(spread(i, 1.0, 2.0), i % 2040 - 1020);
        x[LOG1P * N + i] = spread(i, -0.99, 3.0);
        x[POW * N + i] = spread(i, 0.0, 50.0), y[POW * N + i] = spread(N - i, -20.0, 20.0);
        x[POW_INT * N + i] = spread(i, -8.0, 8.0), y[POW_INT * N + i] = double(i % 13 - 6);
        x[SQRT * N + i] = spread(i, 0.0, 1e6);
        x[SIN * N + i] = spread(i, -100.0, 100.0);
        x[COS * N + i] = spread(i, -100.0, 100.0);
        x[TAN * N + i] = spread(i, -10.0, 10.0);
        x[SIN_HUGE * N + i] = std::ldexp(spread(i, 1.0, 2.0), i % 997);  // Payne-Hanek reduction, up to 2^996
        x[SINH * N + i] = spread(i, -20.0, 20.0);
        x[COSH * N + i] = spread(i, -20.0, 20.0);
        x[ATAN * N + i] = spread(i, -50.0, 50.0);
        x[ATAN2 * N + i] = spread(i, -5.0, 5.0), y[ATAN2 * N + i] = spread(N - i, -5.0, 5.0);
        x[FMOD * N + i] = spread(i, -1e6, 1e6), y[FMOD * N + i] = spread(N - i, 0.5, 30.0);
        x[SINF * N + i] = spread(i, -1e4, 1e4);
        x[COSF * N + i] = spread(i, -1e4, 1e4);
        x[LOGF * N + i] = std::ldexp(spread(i, 1.0, 2.0), i % 250 - 125);
        x[LOG2F * N + i] = std::ldexp(spread(i, 1.0, 2.0), i % 250 - 125);
        x[LOG10F * N + i] = std::ldexp(spread(i, 1.0, 2.0), i % 250 - 125);
        x[POWF_INT * N + i] = spread(i, -4.0, 4.0), y[POWF_INT * N + i] = double(i % 9 - 4);
        x[EXPF * N + i] = spread(i, -110.0, 92.0);  // past both ends: 0, subnormals and infinity
        x[EXP2F * N + i] = spread(i, -160.0, 130.0);
        x[POWF * N + i] = spread(i, 0.0, 50.0), y[POWF * N + i] = spread(N - i, -20.0, 20.0);
        x[TANF * N + i] = spread(i, -1e4, 1e4);
        x[ATANF * N + i] = spread(i, -50.0, 50.0);
        x[TANHF * N + i] = spread(i, -12.0, 12.0);
        x[EXP10F * N + i] = spread(i, -46.0, 40.0);
        x[EXPM1F * N + i] = spread(i, -20.0, 20.0);
        x[ERFF * N + i] = spread(i, -5.0, 5.0);
        x[ERFCF * N + i] = spread(i, -3.0, 12.0);
        x[LGAMMAF * N + i] = spread(i, -20.0, 40.0);
        x[ERF * N + i] = spread(i, -7.0, 7.0);
        x[TANH * N + i] = spread(i, -25.0, 25.0);
    }
    double *d_x = nullptr, *d_y = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_x, x.size() * sizeof(double)));
    CHECK(cudaMalloc(&d_y, y.size() * sizeof(double)));
    CHECK(cudaMalloc(&d_out, out.size() * sizeof(double)));
    CHECK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, y.data(), y.size() * sizeof(double), cudaMemcpyHostToDevice));
    math_kernel<<<(FUNCTIONS * N + 255) / 256, 256>>>(d_x, d_y, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(double), cudaMemcpyDeviceToHost));
    for (int f = 0; f < FUNCTIONS; ++f)
        std::printf("%s: %016llx\n", kNames[f], (unsigned long long)hash_bits(&out[f * N], N));

    const uint64_t reciprocal_bits[3] = {0x40488ff58adc9bc9ull, 0x400ead0460000000ull, 0x3ff2a942eef7ee6cull};
    double reciprocal[3];
    std::memcpy(reciprocal, reciprocal_bits, sizeof reciprocal);
    CHECK(cudaMemcpy(d_x, reciprocal, sizeof reciprocal, cudaMemcpyHostToDevice));
    reciprocal_kernel<<<1, 1>>>(d_x, d_out);
    CHECK(cudaMemcpy(reciprocal, d_out, sizeof reciprocal, cudaMemcpyDeviceToHost));
    const char* const reciprocal_names[3] = {"log_49.12468086025144", "atan_3.8344810009002686",
                                             "atan_1.1663235983568496"};
    for (int r = 0; r < 3; ++r) {
        uint64_t bits;
        std::memcpy(&bits, &reciprocal[r], sizeof bits);
        std::printf("%s: %016llx\n", reciprocal_names[r], (unsigned long long)bits);
    }
    if (argc > 1) {  // every result, to find which differ: math_library FILE
        FILE* file = std::fopen(argv[1], "wb");
        if (file == nullptr || std::fwrite(out.data(), sizeof(double), out.size(), file) != out.size()) return 1;
        std::fclose(file);
    }
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_out));
    return 0;
}
