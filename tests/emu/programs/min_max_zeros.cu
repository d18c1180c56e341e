// fminf, fmaxf, fmin and fmax of zeros of both signs, and of a NaN: a GPU orders -0 below +0, whichever operand it
// is, so fminf(0, -0) and fminf(-0, 0) are both -0 and fmaxf of them +0; a NaN operand gives the other. Printed with
// %g, which shows the sign of a zero.
//
// Build: nvcc -arch=sm_90 -o min_max_zeros tests/emu/programs/min_max_zeros.cu

#include <cmath>

#include "program.h"

constexpr int PAIRS = 5;

__global__ void min_max_kernel(const float* x, const float* y, float* f, const double* dx, const double* dy,
                               double* d) {
    const int i = threadIdx.x;
    f[4 * i] = fminf(x[i], y[i]);
    f[4 * i + 1] = fmaxf(x[i], y[i]);
    f[4 * i + 2] = fminf(y[i], x[i]);
    f[4 * i + 3] = fmaxf(y[i], x[i]);
    d[4 * i] = fmin(dx[i], dy[i]);
    d[4 * i + 1] = fmax(dx[i], dy[i]);
    d[4 * i + 2] = fmin(dy[i], dx[i]);
    d[4 * i + 3] = fmax(dy[i], dx[i]);
}

int main() {
    const float hx[PAIRS] = {-0.0f, 0.0f, NAN, 1.0f, -2.0f};
    const float hy[PAIRS] = {0.0f, -0.0f, -0.0f, NAN, -2.0f};
    double hdx[PAIRS], hdy[PAIRS];
    for (int i = 0; i < PAIRS; ++i) hdx[i] = hx[i], hdy[i] = hy[i];
    float *x = nullptr, *y = nullptr, *f = nullptr;
    double *dx = nullptr, *dy = nullptr, *d = nullptr;
    CHECK(cudaMalloc(&x, sizeof hx));
    CHECK(cudaMalloc(&y, sizeof hy));
    CHECK(cudaMalloc(&f, 4 * sizeof hx));
    CHECK(cudaMalloc(&dx, sizeof hdx));
    CHECK(cudaMalloc(&dy, sizeof hdy));
    CHECK(cudaMalloc(&d, 4 * sizeof hdx));
    CHECK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y, hy, sizeof hy, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dx, hdx, sizeof hdx, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, hdy, sizeof hdy, cudaMemcpyHostToDevice));
    min_max_kernel<<<1, PAIRS>>>(x, y, f, dx, dy, d);
    print_error("launch", cudaGetLastError());
    float hf[4 * PAIRS];
    double hd[4 * PAIRS];
    CHECK(cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost));
    for (int i = 0; i < PAIRS; ++i) {
        std::printf("float %g, %g: fminf %g %g, fmaxf %g %g\n", hx[i], hy[i], hf[4 * i], hf[4 * i + 2], hf[4 * i + 1],
                    hf[4 * i + 3]);
        std::printf("double %g, %g: fmin %g %g, fmax %g %g\n", hdx[i], hdy[i], hd[4 * i], hd[4 * i + 2],
                    hd[4 * i + 1], hd[4 * i + 3]);
    }
    return 0;
}
