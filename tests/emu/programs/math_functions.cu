// Device math: sqrtf, expf, rsqrtf against a double reference within a few ulp (the CUDA guide's bounds:
// sqrtf 0 ulp, expf 2 ulp, rsqrtf 2 ulp), and fmaxf, fminf, min, max exactly. Only pass/fail is printed:
// the last bits of expf may differ between a GPU and a CPU.
//
// Build: nvcc -arch=sm_90 -o math_functions tests/emu/programs/math_functions.cu

#include <cfloat>
#include <cmath>

#include "program.h"

enum Result { SQRT, EXP, RSQRT, FMAX, FMIN, FLOAT_MAX, FLOAT_MIN, RESULTS };

// ----------------------------------------------------------------------------
// kernel

// x > 0; out is RESULTS × n floats, imin/imax n ints each.
__global__ void math_kernel(const float* x, const float* y, const int* a, const int* b, float* out, int* imin,
                            int* imax, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[SQRT * n + i] = sqrtf(x[i]);
        out[EXP * n + i] = expf(y[i]);
        out[RSQRT * n + i] = rsqrtf(x[i]);
        out[FMAX * n + i] = fmaxf(x[i], y[i]);
        out[FMIN * n + i] = fminf(x[i], y[i]);
        out[FLOAT_MAX * n + i] = max(x[i], y[i]);
        out[FLOAT_MIN * n + i] = min(x[i], y[i]);
        imin[i] = min(a[i], b[i]);
        imax[i] = max(a[i], b[i]);
    }
}

// ----------------------------------------------------------------------------
// host

// pass when every |got - want| <= ulps * FLT_EPSILON * |want|
static void print_within(const char* key, const float* got, const std::vector<double>& want, double ulps) {
    int bad = 0;
    for (size_t i = 0; i < want.size(); ++i)
        if (!(std::fabs(got[i] - want[i]) <= ulps * FLT_EPSILON * std::fabs(want[i]))) ++bad;
    std::printf("%s: %s\n", key, bad == 0 ? "pass" : "FAIL");
}

int main() {
    const int n = 1000;
    std::vector<float> x(n), y(n), out(RESULTS * n);
    std::vector<int> a(n), b(n), got_min(n), got_max(n), want_min(n), want_max(n);
    for (int i = 0; i < n; ++i) {
        x[i] = 0.001f + 0.37f * float(i);       // (0, 370]: sqrt and rsqrt
        y[i] = -20.0f + 0.04f * float(i);       // [-20, 20): exp without overflow
        a[i] = (i * 7919) % 1000 - 500;
        b[i] = (i * 104729) % 1000 - 500;
        want_min[i] = a[i] < b[i] ? a[i] : b[i];
        want_max[i] = a[i] < b[i] ? b[i] : a[i];
    }

    float *d_x = nullptr, *d_y = nullptr, *d_out = nullptr;
    int *d_a = nullptr, *d_b = nullptr, *d_min = nullptr, *d_max = nullptr;
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, RESULTS * n * sizeof(float)));
    CHECK(cudaMalloc(&d_a, n * sizeof(int)));
    CHECK(cudaMalloc(&d_b, n * sizeof(int)));
    CHECK(cudaMalloc(&d_min, n * sizeof(int)));
    CHECK(cudaMalloc(&d_max, n * sizeof(int)));
    CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_a, a.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    math_kernel<<<(n + 255) / 256, 256>>>(d_x, d_y, d_a, d_b, d_out, d_min, d_max, n);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out.data(), d_out, RESULTS * n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got_min.data(), d_min, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got_max.data(), d_max, n * sizeof(int), cudaMemcpyDeviceToHost));

    std::vector<double> want_sqrt(n), want_exp(n), want_rsqrt(n);
    std::vector<float> want_fmax(n), want_fmin(n);
    for (int i = 0; i < n; ++i) {
        want_sqrt[i] = std::sqrt(double(x[i]));
        want_exp[i] = std::exp(double(y[i]));
        want_rsqrt[i] = 1.0 / std::sqrt(double(x[i]));
        want_fmax[i] = x[i] > y[i] ? x[i] : y[i];
        want_fmin[i] = x[i] < y[i] ? x[i] : y[i];
    }
    print_within("sqrtf", &out[SQRT * n], want_sqrt, 1.0);
    print_within("expf", &out[EXP * n], want_exp, 4.0);
    print_within("rsqrtf", &out[RSQRT * n], want_rsqrt, 4.0);
    print_compare("fmaxf", std::vector<float>(&out[FMAX * n], &out[FMAX * n] + n), want_fmax);
    print_compare("fminf", std::vector<float>(&out[FMIN * n], &out[FMIN * n] + n), want_fmin);
    print_compare("max_float", std::vector<float>(&out[FLOAT_MAX * n], &out[FLOAT_MAX * n] + n), want_fmax);
    print_compare("min_float", std::vector<float>(&out[FLOAT_MIN * n], &out[FLOAT_MIN * n] + n), want_fmin);
    print_compare("min_int", got_min, want_min);
    print_compare("max_int", got_max, want_max);

    for (void* p : {(void*)d_x, (void*)d_y, (void*)d_out, (void*)d_a, (void*)d_b, (void*)d_min, (void*)d_max})
        CHECK(cudaFree(p));
    return 0;
}
