"""Writes a CUDA program that finds which math functions end NVVM's basic block where nvcc inlines them (their
libdevice code keeps branches once optimised), for emucc's fusion rule (common/emu/cudaemu_cc/arithmetic.py,
ENDS_DAG_BLOCK). For each function f, in a block of its own: P1 = a*b and P2 = c*d; P1 + P2; f(x), stored; e + P2.
In one DAG block NVVM fuses the adds last to first, P2 into e + P2 as well; where f's call ends the block, P2 is
the addend of P1 + P2's fma and ptxas leaves e + P2 unfused. The inputs make the two give other bits.

Run on a GPU:  python3 tools/fma-blocks/probe.py > probe.cu && nvcc -arch=sm_90 -o probe probe.cu && ./probe
It prints `NAME split` or `NAME one` for each function (float and double versions).
"""
UNARY = ("acos acosh asin asinh atan atanh cbrt ceil cos cosh erf erfc erfcinv erfinv exp exp10 exp2 expm1 fabs floor "
         "lgamma log log10 log1p log2 logb nearbyint rint round sin sinh sqrt tan tanh tgamma trunc rsqrt normcdf "
         "normcdfinv j0 j1 y0 y1 cospi sinpi").split()
BINARY = "atan2 copysign fdim fmax fmin fmod hypot nextafter pow remainder".split()


def functions():
    """(name, type, arity) of each function probed."""
    out = []
    for names, arity in ((UNARY, 1), (BINARY, 2), (["fma"], 3)):
        for f in names:
            out += [(f + "f", "float", arity), (f, "double", arity)]
    return out


def program():
    funcs = functions()
    lines = ["#include <cmath>", "#include <cstdio>", "", "constexpr int N = %d;" % len(funcs), "",
             "__global__ void probe(const float* x, float* o, double* d) {"]
    for i, (name, kind, arity) in enumerate(funcs):
        args = ", ".join("(%s)q[%d]" % (kind, 5 + j) for j in range(arity))
        lines.append("    { const float* q = x + 8 * %d; float p1 = q[0] * q[1], p2 = q[2] * q[3]; o[2 * %d] = p1 + p2;"
                     " d[%d] = %s(%s); o[2 * %d + 1] = q[4] + p2; }" % (i, i, i, name, args, i))
    lines += ["}", "", "const char* const kNames[N] = {%s};" % ", ".join('"%s"' % f[0] for f in funcs), "", """\
int main() {
    const float u = 1.0f + 0x1p-12f, v = -(1.0f + 0x1p-11f);  // fma(u, u, v) = 2^-24; u*u rounded, plus v: 0
    static float x[8 * N], o[2 * N];
    for (int g = 0; g < N; ++g) {
        const float group[8] = {1.0f, 1.0f, u, u, v, 0.3f, 1.7f, 0.4f};
        for (int i = 0; i < 8; ++i) x[8 * g + i] = group[i];
    }
    float *d_x, *d_o;
    double* d_d;
    cudaMalloc(&d_x, sizeof x);
    cudaMalloc(&d_o, sizeof o);
    cudaMalloc(&d_d, N * sizeof(double));
    cudaMemcpy(d_x, x, sizeof x, cudaMemcpyHostToDevice);
    probe<<<1, 1>>>(d_x, d_o, d_d);
    if (cudaMemcpy(o, d_o, sizeof o, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    for (int g = 0; g < N; ++g) std::printf("%s %s\\n", kNames[g], o[2 * g + 1] == fmaf(u, u, v) ? "one" : "split");
    return 0;
}"""]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(program(), end="")
