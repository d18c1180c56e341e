// probe.cu — the PTX matrix instructions of common/mma_ptx.h on chosen and random inputs, written out for
// tools/mma-agreement/compare.py. The same program built with nvcc (on a GPU) and with the emulator's emucc draws
// the same inputs from the same seed; compare.py counts, per case, the outputs whose bits differ.
//
// Writes DIR/NAME.bin for each case: three int32 (the count of input words, of output words, and 1 where the
// outputs are floats' bits, 0 where they are integers), then the input words and the output words (uint32).
//   lanes_mma          mma_m16n8k8_tf32's lane maps, one mma per experiment, its words laid out as mma_* below:
//                      A one-hot (1 in one lane's a[i], zero elsewhere; every B register a different integer,
//                      C zero), B one-hot (every A register a different integer), C alone (A and B zero), and A, B
//                      and C all index-encoded. Every sum is exact, so each d[i] shows which registers met in it.
//   lanes_ldmatrix_x4, lanes_ldmatrix_x2
//                      per experiment, the offset (in 16-bit elements, a multiple of 8) of the row each lane gives,
//                      into a shared buffer whose element i is i; then each lane's r[4] (r[2]). Rows in order,
//                      reversed, XOR-swizzled, on a padded pitch, as blocks of a wider matrix, random, broadcast.
//   cvt_rna_tf32       a sweep of bit patterns (both signs; zero, subnormal, normal, the largest and the all-ones
//                      exponents; mantissas just below, at and above a tie) and random words; then each result.
//   mma_*              random mma_m16n8k8_tf32 products, one per warp: per mma the 32 lanes' a[4], then b[2], then
//                      c[4] (float bits, lane-major), and the lanes' d[4]. `converted` cases pass A and B through
//                      cvt_rna_tf32 first; `truncated` ones pass the floats as they are (the tensor core drops their
//                      low 13 bits).
//
// Usage: probe DIR
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../../common/mma_ptx.h"

#define CHECK(expr)                                                                       \
    do {                                                                                  \
        const cudaError_t check_err_ = (expr);                                            \
        if (check_err_ != cudaSuccess) {                                                  \
            std::fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #expr, \
                         cudaGetErrorName(check_err_), cudaGetErrorString(check_err_));   \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

constexpr int kMmaIn = 32 * (4 + 2 + 4);  // one mma's input words: every lane's a[4], b[2], c[4]
constexpr int kMmaOut = 32 * 4;           // and its output words: every lane's d[4]
constexpr int kBufferElements = 2048;     // the ldmatrix experiments' shared buffer: 256 rows of 8 16-bit elements

// ============================================================================================================
// Kernels: one warp per mma or ldmatrix experiment
// ============================================================================================================

__global__ void mma_kernel(const uint32_t* in, uint32_t* out, int convert) {
    const int lane = threadIdx.x;
    in += size_t(blockIdx.x) * kMmaIn, out += size_t(blockIdx.x) * kMmaOut;
    uint32_t a[4], b[2];
    float c[4], d[4];
    for (int i = 0; i < 4; ++i) a[i] = in[lane * 4 + i];
    for (int i = 0; i < 2; ++i) b[i] = in[128 + lane * 2 + i];
    for (int i = 0; i < 4; ++i) c[i] = __uint_as_float(in[192 + lane * 4 + i]);
    if (convert) {
        for (int i = 0; i < 4; ++i) a[i] = cvt_rna_tf32(__uint_as_float(a[i]));
        for (int i = 0; i < 2; ++i) b[i] = cvt_rna_tf32(__uint_as_float(b[i]));
    }
    mma_m16n8k8_tf32(d, a, b, c);
    for (int i = 0; i < 4; ++i) out[lane * 4 + i] = __float_as_uint(d[i]);
}

template <int MATRICES>
__global__ void ldmatrix_kernel(const int* offsets, uint32_t* out) {
    static_assert(MATRICES == 2 || MATRICES == 4, "ldmatrix loads two or four matrices");
    __shared__ alignas(16) uint16_t buffer[kBufferElements];
    const int lane = threadIdx.x, slot = blockIdx.x * 32 + lane;
    for (int i = lane; i < kBufferElements; i += 32) buffer[i] = static_cast<uint16_t>(i);
    __syncthreads();
    uint32_t r[MATRICES];
    if constexpr (MATRICES == 4)
        ldmatrix_x4(r, &buffer[offsets[slot]]);
    else
        ldmatrix_x2(r, &buffer[offsets[slot]]);
    for (int i = 0; i < MATRICES; ++i) out[slot * MATRICES + i] = r[i];
}

__global__ void cvt_kernel(const uint32_t* in, uint32_t* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = cvt_rna_tf32(__uint_as_float(in[i]));
}

// ============================================================================================================
// Host: inputs, launches, files
// ============================================================================================================

// Draws from std::mt19937, whose words every standard library gives alike; every value below is made from those
// words with integer operations only (the standard's distributions may differ between libraries).
struct Draw {
    std::mt19937 rng{2026};
    uint32_t word() { return static_cast<uint32_t>(rng()); }
    uint32_t below(uint32_t n) { return word() % n; }
};

uint32_t float_bits(uint32_t sign, uint32_t exponent, uint32_t mantissa) {  // biased exponent, 23-bit mantissa
    return sign << 31 | exponent << 23 | (mantissa & 0x7fffffu);
}

constexpr uint32_t kOne = 0x3f800000u;  // 1.0f

float host_float(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint32_t host_bits(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
}

uint32_t small_integer(int v) {  // the bits of float(v), v in [1, 2^24)
    int e = 0;
    while ((v >> e) > 1) ++e;
    return float_bits(0, 127 + e, static_cast<uint32_t>(v) << (23 - e));
}

template <class T>
T* to_device(const std::vector<T>& h) {
    T* d = nullptr;
    CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
    CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

std::vector<uint32_t> from_device(const uint32_t* d, size_t n) {
    std::vector<uint32_t> h(n);
    CHECK(cudaMemcpy(h.data(), d, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    return h;
}

bool write_case(const std::string& dir, const char* name, const std::vector<uint32_t>& in,
                const std::vector<uint32_t>& out, bool floats) {
    const std::string path = dir + "/" + name + ".bin";
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        std::fprintf(stderr, "probe: cannot write %s\n", path.c_str());
        return false;
    }
    const int32_t header[3] = {static_cast<int32_t>(in.size()), static_cast<int32_t>(out.size()), floats ? 1 : 0};
    std::fwrite(header, sizeof(header), 1, f);
    std::fwrite(in.data(), sizeof(uint32_t), in.size(), f);
    std::fwrite(out.data(), sizeof(uint32_t), out.size(), f);
    return std::fclose(f) == 0;
}

// Runs one mma per kMmaIn words of `in`; returns every lane's d[4] of each.
std::vector<uint32_t> run_mma(const std::vector<uint32_t>& in, int convert) {
    const int mmas = static_cast<int>(in.size() / kMmaIn);
    uint32_t *d_in = to_device(in), *d_out = nullptr;
    CHECK(cudaMalloc(&d_out, size_t(mmas) * kMmaOut * sizeof(uint32_t)));
    mma_kernel<<<mmas, 32>>>(d_in, d_out, convert);
    CHECK(cudaGetLastError());
    std::vector<uint32_t> out = from_device(d_out, size_t(mmas) * kMmaOut);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return out;
}

// One mma's input words, each register's bits from a(lane, i), b(lane, i), c(lane, i).
template <class A, class B, class C>
void add_mma(std::vector<uint32_t>& in, A a, B b, C c) {
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) in.push_back(a(lane, i));
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 2; ++i) in.push_back(b(lane, i));
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) in.push_back(c(lane, i));
}

bool lanes_mma(const std::string& dir) {
    std::vector<uint32_t> in;
    auto zero = [](int, int) { return 0u; };
    auto a_index = [](int lane, int i) { return small_integer(1 + 4 * lane + i); };  // 1 to 128
    auto b_index = [](int lane, int i) { return small_integer(1 + 2 * lane + i); };  // 1 to 64
    for (int one = 0; one < 32 * 4; ++one) {
        auto a_one_hot = [one](int lane, int i) { return 4 * lane + i == one ? kOne : 0u; };
        add_mma(in, a_one_hot, b_index, zero);
    }
    for (int one = 0; one < 32 * 2; ++one) {
        auto b_one_hot = [one](int lane, int i) { return 2 * lane + i == one ? kOne : 0u; };
        add_mma(in, a_index, b_one_hot, zero);
    }
    add_mma(in, zero, zero, a_index);
    add_mma(in, a_index, b_index, a_index);
    return write_case(dir, "lanes_mma", in, run_mma(in, 0), true);
}

template <int MATRICES>
bool lanes_ldmatrix(const std::string& dir, const char* name, Draw& draw) {
    std::vector<int> offsets;
    auto rows = [&](auto row_of_lane) {
        for (int lane = 0; lane < 32; ++lane) offsets.push_back(8 * row_of_lane(lane));
    };
    rows([](int lane) { return lane; });
    rows([](int lane) { return 31 - lane; });
    rows([](int lane) { return lane ^ 0x15; });
    rows([](int lane) { return 3 * lane; });                   // a pitch of 24 elements, 48 bytes
    rows([](int lane) { return 8 * (lane % 8) + lane / 8; });  // matrix m = columns 8m to 8m+7 of a 64-wide one
    rows([](int lane) { return 8 * (lane % 8) + (lane / 8 ^ lane % 4); });  // the same, its blocks XOR-swizzled
    rows([](int) { return 37; });                                           // every lane the same row
    for (int e = 0; e < 4; ++e) {  // random distinct rows: a partial Fisher–Yates shuffle of the 256
        int order[kBufferElements / 8];
        for (int i = 0; i < kBufferElements / 8; ++i) order[i] = i;
        for (int i = 0; i < 32; ++i) {
            const int j = i + static_cast<int>(draw.below(kBufferElements / 8 - i));
            const int t = order[i];
            order[i] = order[j], order[j] = t;
        }
        rows([&](int lane) { return order[lane]; });
    }
    for (int e = 0; e < 4; ++e) rows([&](int) { return static_cast<int>(draw.below(kBufferElements / 8)); });
    const int experiments = static_cast<int>(offsets.size() / 32);
    int* d_offsets = to_device(offsets);
    uint32_t* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, offsets.size() * MATRICES * sizeof(uint32_t)));
    ldmatrix_kernel<MATRICES><<<experiments, 32>>>(d_offsets, d_out);
    CHECK(cudaGetLastError());
    const std::vector<uint32_t> out = from_device(d_out, offsets.size() * MATRICES);
    CHECK(cudaFree(d_offsets));
    CHECK(cudaFree(d_out));
    return write_case(dir, name, std::vector<uint32_t>(offsets.begin(), offsets.end()), out, false);
}

bool cvt_sweep(const std::string& dir, Draw& draw) {
    std::vector<uint32_t> in;
    for (uint32_t sign : {0u, 1u})
        for (uint32_t exponent : {0u, 1u, 2u, 100u, 126u, 127u, 128u, 200u, 253u, 254u, 255u})
            for (uint32_t high : {0x0u, 0x1u, 0x155u, 0x3feu, 0x3ffu})                // the 10 mantissa bits TF32 keeps
                for (uint32_t low : {0x0u, 0x1u, 0xfffu, 0x1000u, 0x1001u, 0x1fffu})  // the 13 it drops; 0x1000 a tie
                    in.push_back(float_bits(sign, exponent, high << 13 | low));
    for (int i = 0; i < 4096; ++i) in.push_back(draw.word());
    uint32_t *d_in = to_device(in), *d_out = nullptr;
    CHECK(cudaMalloc(&d_out, in.size() * sizeof(uint32_t)));
    const int n = static_cast<int>(in.size());
    cvt_kernel<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    const std::vector<uint32_t> out = from_device(d_out, in.size());
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return write_case(dir, "cvt_rna_tf32", in, out, true);
}

// The random products' elements, each a float's bits. `role` is the matrix (0 A, 1 B, 2 C); some kinds have four
// variants, one per mma in turn, each probing one rule.
enum class Kind { kUniform, kTies, kSignedZeros, kSubnormals, kWideExponents, kInfNan };

uint32_t element(Kind kind, int role, int variant, Draw& draw) {
    const uint32_t sign = draw.word() & 1, mantissa = draw.word() & 0x7fffff, pick = draw.below(32);
    const uint32_t uniform = float_bits(sign, 123 + draw.below(5), mantissa);  // magnitude in [2^-4, 1)
    const uint32_t subnormal = float_bits(sign, 0, mantissa);
    switch (kind) {
        case Kind::kUniform:
            return uniform;
        case Kind::kTies: {  // the bits TF32 drops exactly half its step, or one either side of it
            static const uint32_t lows[] = {0x1000, 0x1000, 0x1000, 0x0fff, 0x1001, 0x1fff, 0x0000, 0x0001};
            return role == 2 ? uniform : (uniform & ~0x1fffu) | lows[pick % 8];
        }
        case Kind::kSignedZeros:
            switch (variant) {
                case 0:  // every element ±0: the sign of a sum of zeros
                    return sign << 31;
                case 1:  // A and C -0, B positive: every term -0
                    return role == 1 ? uniform & 0x7fffffffu : 0x80000000u;
                case 2:  // A ±0, B nonzero, C -0
                    return role == 1 ? uniform : role == 0 ? sign << 31 : 0x80000000u;
                default:  // half of them ±0
                    return pick < 16 ? sign << 31 : uniform;
            }
        case Kind::kSubnormals:
            switch (variant) {
                case 0:  // A subnormal (or just above), B huge, C normal: products from subnormal inputs count
                    return role == 0   ? (pick < 24 ? subnormal : float_bits(sign, 1 + pick % 4, mantissa))
                           : role == 1 ? float_bits(sign, 230 + draw.below(10), mantissa)
                                       : float_bits(sign, 100 + draw.below(10), mantissa);
                case 1:  // A subnormal, B about 1, C subnormal: subnormal sums
                    return role == 1 ? float_bits(sign, 126 + draw.below(2), mantissa) : subnormal;
                case 2:  // A and B small normals whose products fall below the normals, C subnormal
                    return role == 2 ? subnormal : float_bits(sign, 40 + draw.below(40), mantissa);
                default:  // a third each subnormal, tiny normal and huge
                    return pick < 11   ? subnormal
                           : pick < 22 ? float_bits(sign, 1 + draw.below(24), mantissa)
                                       : float_bits(sign, 200 + draw.below(55), mantissa);
            }
        case Kind::kWideExponents:  // any normal exponent (products overflow and underflow), or 2^-63 to 2^64
            return variant % 2 ? float_bits(sign, 64 + draw.below(128), mantissa)
                               : float_bits(sign, 1 + draw.below(254), mantissa);
        case Kind::kInfNan: {  // one in 32 infinite, a NaN (quiet or signalling, either sign) or zero
            static const uint32_t specials[] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                                0x7f800001u, 0x7fa00000u, 0x00000000u, 0x80000000u};
            return pick == 0 ? specials[draw.below(8)] : uniform;
        }
    }
    return uniform;
}

bool mma_case(const std::string& dir, const char* name, Kind kind, int convert, Draw& draw) {
    constexpr int mmas = 128;
    std::vector<uint32_t> in;
    for (int m = 0; m < mmas; ++m) {
        const int variant = m % 4;
        auto a = [&](int, int) { return element(kind, 0, variant, draw); };
        auto b = [&](int, int) { return element(kind, 1, variant, draw); };
        auto c = [&](int, int) { return element(kind, 2, variant, draw); };
        add_mma(in, a, b, c);
    }
    return write_case(dir, name, in, run_mma(in, convert), true);
}

// C = -(A·B) as a float, from the lane maps mma_ptx.h documents: D is what the tensor core's alignment and
// rounding leave of sums that cancel to about a float's rounding error.
bool mma_cancelling(const std::string& dir, Draw& draw) {
    constexpr int mmas = 128;
    std::vector<uint32_t> in;
    for (int m = 0; m < mmas; ++m) {
        auto uniform = [&](int, int) { return element(Kind::kUniform, 0, 0, draw) & ~0x1fffu; };  // exact in TF32
        auto zero = [](int, int) { return 0u; };
        add_mma(in, uniform, uniform, zero);
        uint32_t* regs = &in[in.size() - kMmaIn];
        auto value = [](uint32_t bits) { return static_cast<double>(host_float(bits)); };
        double A[16][8], B[8][8];
        for (int lane = 0; lane < 32; ++lane) {
            const int g = lane / 4, t = lane % 4;
            for (int i = 0; i < 4; ++i) A[g + 8 * (i % 2)][t + 4 * (i / 2)] = value(regs[lane * 4 + i]);
            for (int i = 0; i < 2; ++i) B[t + 4 * i][g] = value(regs[128 + lane * 2 + i]);
        }
        for (int lane = 0; lane < 32; ++lane) {
            const int g = lane / 4, t = lane % 4;
            for (int i = 0; i < 4; ++i) {
                const int row = g + 8 * (i / 2), col = 2 * t + i % 2;
                double sum = 0;
                for (int k = 0; k < 8; ++k) sum += A[row][k] * B[k][col];
                regs[192 + lane * 4 + i] = host_bits(-static_cast<float>(sum));
            }
        }
    }
    return write_case(dir, "mma_cancelling_truncated", in, run_mma(in, 0), true);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: probe DIR\n");
        return 2;
    }
    const std::string dir = argv[1];
    Draw draw;
    bool ok = lanes_mma(dir);
    ok &= lanes_ldmatrix<4>(dir, "lanes_ldmatrix_x4", draw);
    ok &= lanes_ldmatrix<2>(dir, "lanes_ldmatrix_x2", draw);
    ok &= cvt_sweep(dir, draw);
    ok &= mma_case(dir, "mma_uniform_truncated", Kind::kUniform, 0, draw);
    ok &= mma_case(dir, "mma_uniform_converted", Kind::kUniform, 1, draw);
    ok &= mma_case(dir, "mma_ties_truncated", Kind::kTies, 0, draw);
    ok &= mma_case(dir, "mma_ties_converted", Kind::kTies, 1, draw);
    ok &= mma_case(dir, "mma_signed_zeros_truncated", Kind::kSignedZeros, 0, draw);
    ok &= mma_case(dir, "mma_subnormals_truncated", Kind::kSubnormals, 0, draw);
    ok &= mma_case(dir, "mma_subnormals_converted", Kind::kSubnormals, 1, draw);
    ok &= mma_case(dir, "mma_wide_exponents_truncated", Kind::kWideExponents, 0, draw);
    ok &= mma_case(dir, "mma_wide_exponents_converted", Kind::kWideExponents, 1, draw);
    ok &= mma_case(dir, "mma_inf_nan_truncated", Kind::kInfNan, 0, draw);
    ok &= mma_case(dir, "mma_inf_nan_converted", Kind::kInfNan, 1, draw);
    ok &= mma_cancelling(dir, draw);
    return ok ? 0 : 1;
}
