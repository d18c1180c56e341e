// probe.cu — measures the GPU's rcp.approx.ftz.f64 (the 20-bit reciprocal that libdevice's log, pow, tan, atan, ...
// refine with Newton steps) for the CPU emulator, which must give the same bits for those functions to agree.
// The PTX ISA says the instruction reads the operand's top 32 bits and writes the top 32 bits of the result. On an
// H100 the result is the double reciprocal of those top bits, truncated to 20 bits of mantissa, plus one unit of
// the 20th bit for some mantissas, by the mantissa alone (it is the f32 reciprocal approximation's value). This
// program writes which mantissas round up, as a bitmap (bit m % 32 of little-endian word m / 32, m the operand's
// 20 mantissa bits), and checks that the rule with that bitmap gives every result the GPU gives, for every
// mantissa at 8 exponents and both signs, and for zeros, infinities and NaN.
//
// Build and run on a GPU:  nvcc -arch=sm_90 -o probe tools/rcp-approx/probe.cu && ./probe BITMAP
// then: xz -9 < BITMAP > common/emu/rcp_approx_f64.xz
#include <cstdint>
#include <cstdio>
#include <cstring>

constexpr int kMantissas = 1 << 20;

__device__ double rcp_approx(double x) {
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    return r;
}

// The operand's top 32 bits, its reciprocal truncated to its top 32 bits (flushed to zero where subnormal)
__host__ __device__ uint64_t truncated_reciprocal(uint64_t bits) {
    uint64_t top = bits & 0xffffffff00000000ull;
    if (((bits >> 52) & 0x7ff) == 0) top &= 0x8000000000000000ull;  // ftz: a subnormal operand is a zero
    double x, q;
    std::memcpy(&x, &top, sizeof x);
    q = 1.0 / x;
    uint64_t r;
    std::memcpy(&r, &q, sizeof r);
    if (((r >> 52) & 0x7ff) == 0) r &= 0x8000000000000000ull;
    return r & 0xffffffff00000000ull;
}

__global__ void measure(unsigned* rounds_up, int* other) {
    const unsigned m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= kMantissas) return;
    const uint64_t bits = (1023ull << 52) | (uint64_t(m) << 32);
    const uint64_t got = uint64_t(__double_as_longlong(rcp_approx(__longlong_as_double(bits))));
    const uint64_t want = truncated_reciprocal(bits);
    if (got == want + (1ull << 32))
        atomicOr(&rounds_up[m / 32], 1u << (m % 32));
    else if (got != want)
        atomicAdd(other, 1);  // neither the truncation nor one unit above it
}

__global__ void check(const unsigned* rounds_up, const uint64_t* operands, int n, int* wrong) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint64_t bits = operands[i];
    const unsigned exponent = (bits >> 52) & 0x7ff, m = (bits >> 32) & 0xfffff;
    uint64_t want = truncated_reciprocal(bits);
    if (exponent != 0 && exponent != 0x7ff && ((want >> 52) & 0x7ff) != 0 && (rounds_up[m / 32] >> (m % 32)) & 1)
        want += 1ull << 32;
    const uint64_t got = uint64_t(__double_as_longlong(rcp_approx(__longlong_as_double(bits))));
    if (got != want && !(got << 1 > 0xffe0000000000000ull && want << 1 > 0xffe0000000000000ull))  // NaNs
        atomicAdd(wrong, 1);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: probe BITMAP\n");
        return 2;
    }
    unsigned* d_rounds_up;
    int *d_other, *d_wrong;
    cudaMalloc(&d_rounds_up, kMantissas / 8);
    cudaMalloc(&d_other, sizeof(int));
    cudaMalloc(&d_wrong, sizeof(int));
    cudaMemset(d_rounds_up, 0, kMantissas / 8);
    cudaMemset(d_other, 0, sizeof(int));
    cudaMemset(d_wrong, 0, sizeof(int));
    measure<<<kMantissas / 256, 256>>>(d_rounds_up, d_other);

    // every mantissa at 8 exponents and both signs, each with 3 patterns of the ignored low bits; then specials
    const int exponents[8] = {1, 2, 500, 1000, 1023, 1030, 1500, 2045};
    const uint64_t lows[3] = {0, 0xffffffffull, 0x12345678ull};
    const int n = 8 * 2 * kMantissas + 8;
    static uint64_t operands[8 * 2 * kMantissas + 8];
    int k = 0;
    for (int e = 0; e < 8; ++e)
        for (uint64_t sign = 0; sign < 2; ++sign)
            for (uint64_t m = 0; m < kMantissas; ++m, ++k)
                operands[k] = (sign << 63) | (uint64_t(exponents[e]) << 52) | (m << 32) | lows[k % 3];
    const uint64_t specials[8] = {0,
                                  1ull << 63,
                                  0x7ff0000000000000ull,
                                  0xfff0000000000000ull,
                                  0x7ff8000000000000ull,
                                  1,
                                  0x000fffffffffffffull,
                                  0x7fefffffffffffffull};
    for (int s = 0; s < 8; ++s) operands[k++] = specials[s];
    uint64_t* d_operands;
    cudaMalloc(&d_operands, sizeof operands);
    cudaMemcpy(d_operands, operands, sizeof operands, cudaMemcpyHostToDevice);
    check<<<(n + 255) / 256, 256>>>(d_rounds_up, d_operands, n, d_wrong);

    static unsigned rounds_up[kMantissas / 32];
    int other = 0, wrong = 0;
    cudaMemcpy(rounds_up, d_rounds_up, sizeof rounds_up, cudaMemcpyDeviceToHost);
    cudaMemcpy(&other, d_other, sizeof other, cudaMemcpyDeviceToHost);
    if (cudaMemcpy(&wrong, d_wrong, sizeof wrong, cudaMemcpyDeviceToHost) != cudaSuccess) {
        std::fprintf(stderr, "probe: the GPU run failed\n");
        return 1;
    }
    int ups = 0;
    for (unsigned w : rounds_up) ups += __builtin_popcount(w);
    std::printf("mantissas that round up: %d of %d\n", ups, kMantissas);
    std::printf("results neither truncated nor one unit up: %d\n", other);
    std::printf("operands the rule gets wrong: %d of %d\n", wrong, n);
    FILE* f = std::fopen(argv[1], "wb");
    if (f == nullptr || std::fwrite(rounds_up, 1, sizeof rounds_up, f) != sizeof rounds_up) return 1;
    std::fclose(f);
    return other == 0 && wrong == 0 ? 0 : 1;
}
