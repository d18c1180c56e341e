// Which product of an add of two products nvcc fuses when both could be: not the one written left, but the one its
// optimiser ranks lower. Before its DAG fuses the left operand, NVVM orders the two operands of each add by rank, as
// LLVM's reassociation ranks values: a kernel argument ranks below every load, a load below the loads after it, and
// a product one above its higher operand. So a*d + b*c of loads a, b, c, d fuses b*c, as does b*c + a*d: the
// imaginary part of a complex product (cuCmulf's a.x*b.y + a.y*b.x) fuses a.y*b.x. A subtract is not reordered, and
// ptxas, fusing what NVVM left (a product with a use other than an add), takes the left operand of the reordered
// add, of two with as many uses.
// Each case prints its result with %a and which product the device fused. Each adds products that need 25 bits
// (u = 1 + 2^-12, u*u = 1 + 2^-11 + 2^-24) and cancel, so that the left fused, the right fused and neither fused are
// three different results.
//
// Build: nvcc -arch=sm_90 -o fma_order tests/emu/programs/fma_order.cu

#include <cmath>
#include <cstring>

#include "program.h"

constexpr int GROUP = 4;  // floats of x per case

__global__ void order_kernel(const float* x, float* out, float s, float t, float m, float n, int loop) {
    const float* q = x;
    float a = q[0], b = q[1], c = q[2], d = q[3];  // loaded in this order
    out[0] = a * d + b * c;                        // b*c ranks lower
    q += GROUP;
    a = q[0], b = q[1], c = q[2], d = q[3];
    out[1] = b * c + a * d;  // b*c still
    q += GROUP;
    a = q[0], b = q[1], c = q[2], d = q[3];
    out[2] = d * c + b * a;  // b*a
    q += GROUP;
    out[3] = q[0] * q[3] + q[1] * q[2];  // loaded as used: q0 and q3 first, so q0*q3
    q += GROUP;
    const float2 f = reinterpret_cast<const float2*>(q)[0], g = reinterpret_cast<const float2*>(q)[1];
    out[4] = f.x * g.y + f.y * g.x;  // a complex product's imaginary part: f.y*g.x
    q += GROUP;
    out[5] = m * n + s * t;  // kernel arguments, in their order: s*t
    q += GROUP;
    a = q[0], b = q[1], c = q[2];
    out[6] = b * c + s * a;  // an argument times a load ranks as the load: s*a
    q += GROUP;
    a = q[0], b = q[1], c = q[2], d = q[3];
    out[7] = c * c * d + a * b;  // (c*c)*d ranks above a*b: a*b
    q += GROUP;
    float acc = q[0];
    const float r = q[1];
    for (int k = 0; k < loop; ++k) acc = q[2 + k] * q[3] + acc * r;  // the loop's acc*r ranks below its loads
    out[8] = acc;
    q += GROUP;
    a = q[0], b = q[1], c = q[2], d = q[3];
    out[9] = d * a - c * b;  // a subtract keeps its order: the left, d*a
    q += GROUP;
    a = q[0], b = q[1], c = q[2], d = q[3];
    const float p1 = d * a, p2 = b * c;  // each also subtracted: left to ptxas
    out[10] = p1 + p2;                   // as many uses: the lower rank, p2
    out[11] = p1 - p2;
}

__global__ void order_kernel_double(const double2* a, const double2* b, double* out) {
    const double2 f = *a, g = *b;
    out[0] = f.x * g.y + f.y * g.x;  // cuCmul's imaginary part, in double: f.y*g.x
}

// The product of p0*p1 + q0*q1 that the device fused, from its result.
const char* which(float got, float p0, float p1, float q0, float q1) {
    auto product = [](float a, float b) {  // rounded (volatile: never fused here)
        volatile float p = a * b;
        return static_cast<float>(p);
    };
    if (got == fmaf(p0, p1, product(q0, q1))) return "the left product fused";
    if (got == fmaf(q0, q1, product(p0, p1))) return "the right product fused";
    if (got == product(p0, p1) + product(q0, q1)) return "not fused";
    return "none of them";
}

int main() {
    const float u = 1.0f + 0x1p-12f, c = 1.0f + 0x1p-6f, cc = 1.0f + 0x1p-5f + 0x1p-12f;
    // each case's operands, in the order it reads them (the arguments' case reads none)
    const std::vector<std::vector<float>> groups = {
        {u, -u, u, u}, {u, u, -u, u}, {-u, u, u, u}, {u, -u, u, u}, {u, -u, u, u}, {}, {u, -u, u, 0.0f},
        {-cc, u, c, u}, {u, u, -u, u}, {u, u, u, u}, {u, -u, u, u}};
    std::vector<float> x(GROUP * 11, 0.0f);
    for (size_t g = 0; g < groups.size(); ++g)
        for (size_t i = 0; i < groups[g].size(); ++i) x[GROUP * g + i] = groups[g][i];
    float *d_x = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_x, x.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_out, 12 * sizeof(float)));
    CHECK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    order_kernel<<<1, 1>>>(d_x, d_out, u, u, -u, u, 1);
    print_error("launch", cudaGetLastError());
    float out[12];
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));

    const double du = 1.0 + 0x1p-27;
    const double2 ha = {du, -du}, hb = {du, du};
    double2 *d_a = nullptr, *d_b = nullptr;
    double* d_d = nullptr;
    CHECK(cudaMalloc(&d_a, sizeof ha));
    CHECK(cudaMalloc(&d_b, sizeof hb));
    CHECK(cudaMalloc(&d_d, sizeof(double)));
    CHECK(cudaMemcpy(d_a, &ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, &hb, sizeof hb, cudaMemcpyHostToDevice));
    order_kernel_double<<<1, 1>>>(d_a, d_b, d_d);
    print_error("launch_double", cudaGetLastError());
    double im = 0.0;
    CHECK(cudaMemcpy(&im, d_d, sizeof im, cudaMemcpyDeviceToHost));

    auto q = [&](int g, int i) { return x[GROUP * g + i]; };
    std::printf("a*d + b*c: %a (%s)\n", out[0], which(out[0], q(0, 0), q(0, 3), q(0, 1), q(0, 2)));
    std::printf("b*c + a*d: %a (%s)\n", out[1], which(out[1], q(1, 1), q(1, 2), q(1, 0), q(1, 3)));
    std::printf("d*c + b*a: %a (%s)\n", out[2], which(out[2], q(2, 3), q(2, 2), q(2, 1), q(2, 0)));
    std::printf("q0*q3 + q1*q2: %a (%s)\n", out[3], which(out[3], q(3, 0), q(3, 3), q(3, 1), q(3, 2)));
    std::printf("complex a.x*b.y + a.y*b.x: %a (%s)\n", out[4], which(out[4], q(4, 0), q(4, 3), q(4, 1), q(4, 2)));
    std::printf("arguments m*n + s*t: %a (%s)\n", out[5], which(out[5], -u, u, u, u));
    std::printf("b*c + argument s*a: %a (%s)\n", out[6], which(out[6], q(6, 1), q(6, 2), u, q(6, 0)));
    const float ccd = q(7, 2) * q(7, 2);  // exact: 1 + 2^-5 + 2^-12
    std::printf("c*c*d + a*b: %a (%s)\n", out[7], which(out[7], ccd, q(7, 3), q(7, 0), q(7, 1)));
    std::printf("loop x[k]*w + acc*r: %a (%s)\n", out[8], which(out[8], q(8, 2), q(8, 3), q(8, 0), q(8, 1)));
    std::printf("d*a - c*b: %a (%s)\n", out[9], which(out[9], q(9, 3), q(9, 0), -q(9, 2), q(9, 1)));
    std::printf("p1 + p2, each also subtracted: %a (%s)\n", out[10],
                which(out[10], q(10, 3), q(10, 0), q(10, 1), q(10, 2)));
    std::printf("p1 - p2: %a\n", out[11]);
    auto dproduct = [](double a, double b) {
        volatile double p = a * b;
        return static_cast<double>(p);
    };
    const char* dway = im == fma(du, du, dproduct(-du, du))   ? "the left product fused"
                       : im == fma(-du, du, dproduct(du, du)) ? "the right product fused"
                       : im == dproduct(du, du) + dproduct(-du, du) ? "not fused"
                                                                    : "none of them";
    std::printf("double complex a.x*b.y + a.y*b.x: %a (%s)\n", im, dway);
    return 0;
}
