// Which multiply-adds of a longer expression become fused multiply-adds, and in which order: nvcc (-fmad=true)
// contracts fadd(a*b, c*d) into fma(a, b, c*d), the left multiply (of two with one use each), fadd(x, y*z) and
// fadd(y*z, x) into fma(y, z, x), a - b*c into fma(-b, c, a), and each operand before the sum that uses it: a chain
// a*b + c*d + e*f is fma(e, f, fma(a, b, c*d)). The inputs make every other order give other bits: with
// u = 1 + 2^-12, u*u needs 25 bits, so fma(u, u, -(1 + 2^-11)) is 2^-24 and the rounded u*u minus 1 + 2^-11 is 0.
// Each expression's result is printed with %a and checked against the same order computed on the host with fmaf.
// Every expression reads operands of its own (GROUP floats each), so that no product is shared by accident.
// Beyond one expression (what an H100 showed, each line naming the way the device went, or FAIL): a multiply in one
// statement is fused into its add in the next, into each of two adds that use it, into its add in another basic
// block, and a loop-invariant multiply into its add inside the loop (where an optimiser could have computed the
// product once, before the loop); of an earlier statement's product plus this statement's, and of a product with
// two uses plus one with one, the left is fused; a product that is also stored is fused into no add. And after
// inlining: a product that a device function returns, or stores through a reference, is fused into the caller's add.
// Two stages decide the rest (docs/emulator.md): NVVM fuses a product whose uses, at most four, are all adds of its
// basic block, each add's left product first, the block's adds from last to first; ptxas then fuses what is left in
// program order, a product with fewer uses before one with more, and never a product that an add keeps as a value,
// nor one made before a division that lies between it and its subtract (ptxas expands a division with a call),
// even where it fused the product into a subtract before the division.
// A product of two constants is no multiply at all: nvcc computes it first. A call of a math function whose
// libdevice code keeps branches (powf, not expf) ends NVVM's block.
//
// Build: nvcc -arch=sm_90 -o fma_contraction tests/emu/programs/fma_contraction.cu

#include <cmath>
#include <cstring>

#include "program.h"

constexpr int GROUP = 10;   // floats of x per expression
constexpr int GROUPS = 30;  // expressions
constexpr int LOOP = 4;     // passes of the loop, a kernel argument so that the loop stays one

// A product made in another function: nvcc inlines it first, and then it is the caller's to fuse.
__device__ float product_of(float a, float b) { return a * b; }
__device__ void product_into(float a, float b, float& p) { p = a * b; }

__global__ void contraction_kernel(const float* x, float* out, float s, float t, int loop) {
    const float* q = x;
    out[0] = q[0] * q[1] + q[2] * q[3];  // fma(q0, q1, q2*q3): the left multiply
    q += GROUP;
    out[1] = q[0] * q[1] + q[2] * q[3];  // the same, its products the other way round
    q += GROUP;
    out[2] = q[0] * q[1] + q[2] * q[3] + q[4];  // fma(q0, q1, q2*q3) + q4
    q += GROUP;
    out[3] = q[0] + q[1] * q[2];  // fma(q1, q2, q0)
    q += GROUP;
    out[4] = q[0] * q[1] - q[2] * q[3];  // fma(q0, q1, -(q2*q3))
    q += GROUP;
    out[5] = q[0] * q[1] - q[2];  // fma(q0, q1, -q2)
    q += GROUP;
    out[6] = q[0] - q[1] * q[2];  // fma(-q1, q2, q0)
    q += GROUP;
    out[7] = q[0] * q[1] + q[2] * q[3] + q[4] * q[5] + q[6] * q[7] + q[8] * q[9];  // a chain, as hotspot3D's
    q += GROUP;
    const float product = q[0] * q[1];  // a multiply in one statement ...
    out[8] = product + q[2];            // ... and its add in the next
    q += GROUP;
    for (int k = 0; k < loop; ++k) out[9 + k] = q[k] + s * t;  // s*t: the same in every pass, as hotspot3D's ct*amb
    q += GROUP;
    float* more = out + 9 + loop;
    const float earlier = q[0] * q[1];  // an earlier statement's product against this statement's
    more[0] = earlier + q[2] * q[3];
    q += GROUP;
    const float shared = q[0] * q[1];  // a product with two uses against one with one
    more[1] = shared + q[2] * q[3];
    more[2] = shared + q[4];
    q += GROUP;
    const float twice = q[0] * q[1];  // a product added and subtracted
    more[3] = twice + q[2];
    more[4] = twice - q[3];
    q += GROUP;
    const float branch = q[0] * q[1];  // a product and its add in another basic block
    if (loop > 0) more[5] = branch + q[2];
    q += GROUP;
    const float kept = q[0] * q[1];  // a product stored as well as added
    more[6] = kept;
    more[7] = kept + q[2];
    q += GROUP;
    more[8] = product_of(q[0], q[1]) + q[2];  // a product returned by a device function
    q += GROUP;
    float through;
    product_into(q[0], q[1], through);  // a product stored through a reference
    more[9] = through + q[2];
    q += GROUP;
    {  // a*b written three times is one product (3 uses), c*d one of 2 uses: ptxas fuses c*d and keeps a*b
        const float a = q[0], b = q[1], c = q[2], d = q[3], e = q[4];
        more[10] = a * b - c * d;
        more[11] = a * b + c * d;
        more[12] = a * b + e;  // a*b is a value now: not fused
    }
    q += GROUP;
    {  // the same, the lone add first: in program order, a*b is not kept yet
        const float a = q[0], b = q[1], c = q[2], d = q[3], e = q[4];
        more[13] = a * b + e;
        more[14] = a * b - c * d;
        more[15] = a * b + c * d;
    }
    q += GROUP;
    {  // NVVM fuses the last add first: p into p + r, which makes r an fma's addend, so r + q4 is not fused
        const float p = q[0] * q[1], r = q[2] * q[3];
        more[16] = r + q[4];
        more[17] = p + r;
    }
    q += GROUP;
    {  // a product of four adds: NVVM fuses it into each, the lone product s is the addend
        const float p = q[0] * q[1], s = q[2] * q[3];
        more[18] = p + s;
        more[19] = p + q[4];
        more[20] = p + q[5];
        more[21] = p + q[6];
    }
    q += GROUP;
    {  // of five adds: NVVM leaves p and fuses s into p + s, so p is a value and ptxas fuses it into none
        const float p = q[0] * q[1], s = q[2] * q[3];
        more[22] = p + s;
        more[23] = p + q[4];
        more[24] = p + q[5];
        more[25] = p + q[6];
        more[26] = p + q[7];
    }
    q += GROUP;
    {  // subtracts leave both to ptxas: r (2 uses) is fused into p + r before p (3 uses), which stays a value
        const float p = q[0] * q[1], r = q[2] * q[3];
        more[27] = p + r;
        more[28] = p - q[4];
        more[29] = p - q[5];
        more[30] = r - q[6];
    }
    q += GROUP;
    more[31] = q[0] * q[1] - q[2] / q[3];  // a product before a division, subtracted after it: ptxas leaves it
    q += GROUP;
    {  // the division first: fused
        const float d = q[2] / q[3];
        more[32] = q[0] * q[1] - d;
    }
    q += GROUP;
    {  // a product of two constants: nvcc computes it before it fuses, so no multiply is left to fuse
        const float c = 1.0f + 0x1p-12f;
        more[33] = q[0] + c * c;
    }
    q += GROUP;
    {  // a call of powf ends NVVM's block (libdevice's powf keeps its branches): NVVM fuses p into p + s, and s, the
       // addend now, is not fused into its add after the call
        const float p = q[0] * q[1], s = q[2] * q[3];
        more[34] = p + s;
        more[35] = powf(q[5], q[6]);
        more[36] = q[4] + s;
    }
    q += GROUP;
    {  // expf has no branches: one block, whose adds NVVM fuses last to first, s into both
        const float p = q[0] * q[1], s = q[2] * q[3];
        more[37] = p + s;
        more[38] = expf(q[5]);
        more[39] = q[4] + s;
    }
    q += GROUP;
    {  // a product subtracted before a division and after it: the division stops the second
        const float p = q[0] * q[1];
        more[40] = p - q[2];
        more[41] = q[3] / q[4];
        more[42] = p - q[5];
    }
    q += GROUP;
    more[43] = 2.0f * q[2] + q[0] * q[1];  // 2*x is a product like any other: the left one is fused
}

int main() {
    const float u = 1.0f + 0x1p-12f, v = -(1.0f + 0x1p-11f), w = 1.0f + 0x1p-11f, tiny = 0x1p-24f;
    const std::vector<std::vector<float>> groups = {
        {u, u, v, 1.0f},        {v, 1.0f, u, u}, {u, u, v, 1.0f, tiny}, {v, u, u}, {u, u, w, 1.0f},
        {u, u, w},              {w, u, u},
        {u, u, v, 1.0f, tiny, 1.0f, u, u, v, 1.0f},  // each fused step keeps a bit a rounded product loses
        {u, u, v},              {v, v, v, v},
        {u, u, -u, u},          {u, u, -u, u, v}, {u, u, v, w}, {u, u, v}, {u, u, v}, {u, u, v}, {u, u, v},
        {u, u, v, u, v},        {u, u, v, u, v}, {1.0f, 1.0f, u, u, v}, {u, u, 1.0f, 1.0f, v, v, v},
        {u, u, 1.0f, 1.0f, v, v, v, v}, {u, u, 1.0f, 1.0f, w, w, 1.0f}, {u, u, 2.0f * w, 2.0f},
        {u, u, 2.0f * w, 2.0f}, {v}, {1.0f, 1.0f, u, u, v, 1.5f, 2.5f}, {1.0f, 1.0f, u, u, v, 0.5f},
        {u, u, v, 2.0f * w, 2.0f, -v}, {u, u, 0.5f * v}};
    std::vector<float> x(GROUP * GROUPS, 0.0f);
    for (size_t g = 0; g < groups.size(); ++g)
        for (size_t i = 0; i < groups[g].size(); ++i) x[GROUP * g + i] = groups[g][i];
    const int outputs = 9 + LOOP + 44;
    float *d_x = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_x, x.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_out, outputs * sizeof(float)));
    CHECK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    contraction_kernel<<<1, 1>>>(d_x, d_out, u, u, LOOP);
    print_error("launch", cudaGetLastError());
    std::vector<float> out(outputs);
    CHECK(cudaMemcpy(out.data(), d_out, outputs * sizeof(float), cudaMemcpyDeviceToHost));

    // nvcc's order, one fmaf per fused multiply-add; a product of its own is rounded (volatile: never fused here)
    auto product = [](float a, float b) {
        volatile float p = a * b;
        return static_cast<float>(p);
    };
    auto q = [&](int g, int i) { return x[GROUP * g + i]; };
    float chain = fmaf(q(7, 0), q(7, 1), product(q(7, 2), q(7, 3)));
    for (int i = 4; i < GROUP; i += 2) chain = fmaf(q(7, i), q(7, i + 1), chain);
    const float want[8] = {fmaf(q(0, 0), q(0, 1), product(q(0, 2), q(0, 3))),
                           fmaf(q(1, 0), q(1, 1), product(q(1, 2), q(1, 3))),
                           fmaf(q(2, 0), q(2, 1), product(q(2, 2), q(2, 3))) + q(2, 4),
                           fmaf(q(3, 1), q(3, 2), q(3, 0)),
                           fmaf(q(4, 0), q(4, 1), -product(q(4, 2), q(4, 3))),
                           fmaf(q(5, 0), q(5, 1), -q(5, 2)),
                           fmaf(-q(6, 1), q(6, 2), q(6, 0)),
                           chain};
    const char* names[8] = {"a*b + c*d",     "c*d + a*b", "a*b + c*d + e", "e + a*b",
                            "a*b - c*d",     "a*b - c",   "c - a*b",       "chain of five products"};
    for (int i = 0; i < 8; ++i)
        std::printf("%s: %a (%s)\n", names[i], out[i], out[i] == want[i] ? "nvcc's order" : "FAIL: another order");
    // beyond one expression: which way the device went, against the way nvcc went
    auto way = [&](float got, float fused, float apart) {
        return got == fused ? "fused" : got == apart ? "not fused" : "neither";
    };
    auto both = [&](int g, float got) {  // q0*q1 + q2*q3, three ways
        return got == fmaf(q(g, 0), q(g, 1), product(q(g, 2), q(g, 3)))   ? "the left product fused"
               : got == fmaf(q(g, 2), q(g, 3), product(q(g, 0), q(g, 1))) ? "the right product fused"
               : got == product(q(g, 0), q(g, 1)) + product(q(g, 2), q(g, 3)) ? "not fused"
                                                                            : "none of them";
    };
    auto plus = [&](int g, float got, float c) {  // q0*q1 + c
        return way(got, fmaf(q(g, 0), q(g, 1), c), product(q(g, 0), q(g, 1)) + c);
    };
    auto report = [](const char* name, float got, const char* how, const char* nvcc) {
        std::printf("%s: %a (%s%s)\n", name, got, std::strcmp(how, nvcc) == 0 ? "" : "FAIL: ", how);
    };
    const float* more = out.data() + 9 + LOOP;
    report("across two statements", out[8], plus(8, out[8], q(8, 2)), "fused");
    report("loop-invariant multiply", out[9], way(out[9], fmaf(u, u, q(9, 0)), q(9, 0) + product(u, u)), "fused");
    report("earlier product + this statement's", more[0], both(10, more[0]), "the left product fused");
    report("product of two uses + product of one", more[1], both(11, more[1]), "the left product fused");
    report("its other use", more[2], plus(11, more[2], q(11, 4)), "fused");
    report("product added", more[3], plus(12, more[3], q(12, 2)), "fused");
    report("same product subtracted", more[4], plus(12, more[4], -q(12, 3)), "fused");
    report("add in another block", more[5], plus(13, more[5], q(13, 2)), "fused");
    report("product also stored", more[6], more[6] == product(q(14, 0), q(14, 1)) ? "rounded" : "not rounded",
           "rounded");
    report("its add", more[7], plus(14, more[7], q(14, 2)), "not fused");
    report("product returned by a call", more[8], plus(15, more[8], q(15, 2)), "fused");
    report("product stored through a reference", more[9], plus(16, more[9], q(16, 2)), "fused");
    report("product of three uses, kept by an add", more[12], plus(17, more[12], q(17, 4)), "not fused");
    report("the same, its lone add first", more[13], plus(18, more[13], q(18, 4)), "fused");
    auto plus_r = [&](int g, float got, float c) {  // q2*q3 + c
        return way(got, fmaf(q(g, 2), q(g, 3), c), product(q(g, 2), q(g, 3)) + c);
    };
    report("product added before NVVM fuses its fma", more[16], plus_r(19, more[16], q(19, 4)), "not fused");
    report("product of four adds", more[19], plus(20, more[19], q(20, 4)), "fused");
    report("product of five adds", more[23], plus(21, more[23], q(21, 4)), "not fused");
    report("product of more uses, subtracted", more[28], plus(22, more[28], -q(22, 4)), "not fused");
    report("product before a division, subtracted after it", more[31], plus(23, more[31], -w), "not fused");
    report("product after a division", more[32], plus(24, more[32], -w), "fused");
    report("product of two constants", more[33], way(more[33], fmaf(u, u, v), v + product(u, u)), "not fused");
    report("product added after a call of powf", more[36], plus_r(26, more[36], v), "not fused");
    report("product added after a call of expf", more[39], plus_r(27, more[39], v), "fused");
    report("product after a division, fused before it", more[42], plus(28, more[42], v), "not fused");
    report("its subtract before the division", more[40], plus(28, more[40], -v), "fused");
    report("2*x + product", more[43], plus(29, more[43], v), "not fused");
    return 0;
}
