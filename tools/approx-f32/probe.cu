// probe.cu — measures the GPU's ex2.approx.ftz.f32 and rcp.approx.ftz.f32 (MUFU.EX2 and MUFU.RCP), on which
// libdevice's expf, exp2f, powf, tanf, atanf, tanhf, ... build, for the CPU emulator, which must give the same bits
// for those functions to agree (common/emu/cudaemu_cc/approx.py states the rules this program checks).
//
// ex2: T(k) = ex2(1 + k * 2^-23) / 2 for the 2^23 values of k is the hardware's table, in [1, 2); the program
// writes its steps T(k+1) - T(k) in units of the last place, 2 bits each (0 to 3), little-endian, T(0) being 1.
// rcp: the result for significand 1 + k * 2^-23 is the reciprocal truncated to 24 bits or one unit above it; the
// program writes which k round up, as a bitmap (bit k % 32 of little-endian word k / 32).
// Then it checks the rules with those tables against the GPU: ex2 at every k for n + k * 2^-23 and its negative
// (n = 0..140, where the float is exact), ex2.approx.f32 (no FTZ) at every float in [-160, -100], rcp at every
// significand at every exponent and sign; and prints what the rules give for zeros, infinities, NaNs, subnormals.
//
// Build and run on a GPU:  nvcc -arch=sm_90 -o probe tools/approx-f32/probe.cu && ./probe STEPS BITMAP
// then: xz -9e < STEPS > common/emu/ex2_approx_f32.xz; xz -9e < BITMAP > common/emu/rcp_approx_f32.xz
#include <cstdint>
#include <cstdio>
#include <vector>

constexpr uint32_t kSignificands = 1u << 23;

__device__ float ex2(float x) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}
__device__ float ex2_no_ftz(float x) {
    float r;
    asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}
__device__ float rcp(float x) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

// T(k) as a 24-bit integer, from the GPU
__device__ uint32_t table_entry(uint32_t k) {
    return (__float_as_uint(ex2(__uint_as_float(0x3f800000u | k))) & 0x7fffffu) | 0x800000u;
}
__device__ uint64_t truncated_reciprocal(uint32_t k) { return k == 0 ? 1ull << 24 : (1ull << 47) / ((1ull << 23) + k); }

__global__ void measure(uint32_t* steps, uint32_t* rounds_up, unsigned long long* other) {
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= kSignificands) return;
    const uint32_t step = k + 1 < kSignificands ? table_entry(k + 1) - table_entry(k) : 0;
    if (step > 3) atomicAdd(&other[0], 1);
    atomicOr(&steps[k / 16], (step & 3) << (2 * (k % 16)));
    const uint32_t got = __float_as_uint(rcp(__uint_as_float(0x3f800000u | k)));
    const uint64_t want = truncated_reciprocal(k) & 0x7fffffu;
    const uint32_t exponent = k == 0 ? 127 : 126;
    if (got == ((exponent << 23) | uint32_t(want)) + 1)
        atomicOr(&rounds_up[k / 32], 1u << (k % 32));
    else if (got != ((exponent << 23) | uint32_t(want)))
        atomicAdd(&other[1], 1);
}

// T(k) from the measured steps
__device__ uint32_t table(const uint32_t* steps, uint32_t k) {
    uint32_t t = 1u << 23;  // (slow but simple: the check runs once)
    for (uint32_t w = 0; w < k / 16; ++w) t += __popc(steps[w] & 0x55555555u) + 2 * __popc(steps[w] & 0xaaaaaaaau);
    const uint32_t part = steps[k / 16] & ((1u << (2 * (k % 16))) - 1);
    return t + __popc(part & 0x55555555u) + 2 * __popc(part & 0xaaaaaaaau);
}

__global__ void prefix(const uint32_t* steps, uint32_t* entries) {
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < kSignificands && k % 4096 == 0) entries[k / 4096] = table(steps, k);
}

__global__ void expand(const uint32_t* steps, const uint32_t* starts, uint32_t* entries) {
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= kSignificands) return;
    uint32_t t = starts[k / 4096];
    for (uint32_t i = k / 4096 * 4096; i < k; ++i) t += (steps[i / 16] >> (2 * (i % 16))) & 3;
    entries[k] = t;
}

__device__ uint32_t ex2_rule(const uint32_t* entries, float x) {
    const double a = fabs(double(x)) < 256.0 ? fabs(double(x)) : 256.0;
    const int n = int(floor(a));
    const uint32_t k = uint32_t(floor((a - n) * 8388608.0));
    const bool negative = __float_as_uint(x) >> 31;
    const int e = !negative ? n : k == 0 ? -n : -n - 1;
    const uint32_t t = entries[!negative ? k : k == 0 ? 0 : kSignificands - 1 - k];
    if (x != x) return 0x7fffffffu;
    if (e + 127 >= 255) return 0x7f800000u;
    if (e + 127 <= 0) return 0;
    return (uint32_t(e + 127) << 23) | (t & 0x7fffffu);
}

__device__ uint32_t rcp_rule(const uint32_t* rounds_up, uint32_t bits) {
    const uint32_t sign = bits & 0x80000000u, e = (bits >> 23) & 0xff, k = bits & 0x7fffffu;
    if (e == 0) return sign | 0x7f800000u;
    if (e == 255) return k ? 0x7fffffffu : sign;
    const int exponent = (k == 0 ? 254 : 253) - int(e);
    if (exponent <= 0) return sign;
    const uint32_t significand = uint32_t(truncated_reciprocal(k)) + ((rounds_up[k / 32] >> (k % 32)) & 1);
    return sign | (uint32_t(exponent) << 23) | (significand & 0x7fffffu);
}

__global__ void check(const uint32_t* entries, const uint32_t* rounds_up, unsigned long long* wrong) {
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= kSignificands) return;
    for (int n = 0; n <= 140; ++n) {
        const float x = float(n) + float(k) * 0x1p-23f;
        if (double(x) != double(n) + double(k) * 0x1p-23) continue;
        if (__float_as_uint(ex2(x)) != ex2_rule(entries, x)) atomicAdd(&wrong[0], 1);
        if (__float_as_uint(ex2(-x)) != ex2_rule(entries, -x)) atomicAdd(&wrong[0], 1);
    }
    for (uint32_t b = 0xc2c80000u + k; b <= 0xc3200000u; b += kSignificands) {  // [-100, -160]: no FTZ
        const float x = __uint_as_float(b);
        const float h = __uint_as_float(ex2_rule(entries, x * 0.5f));
        const float want = x < -126.0f ? __fmul_rn(h, h) : __uint_as_float(ex2_rule(entries, x));
        if (__float_as_uint(ex2_no_ftz(x)) != __float_as_uint(want)) atomicAdd(&wrong[1], 1);
    }
    for (uint32_t e = 0; e < 256; ++e)
        for (uint32_t sign = 0; sign < 2; ++sign) {
            const uint32_t bits = (sign << 31) | (e << 23) | k;
            const uint32_t got = __float_as_uint(rcp(__uint_as_float(bits)));
            if (got != rcp_rule(rounds_up, bits) && !(e == 255 && k != 0 && (got & 0x7fffffffu) > 0x7f800000u))
                atomicAdd(&wrong[2], 1);
        }
}

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: probe STEPS BITMAP\n");
        return 2;
    }
    uint32_t *d_steps, *d_rounds_up, *d_starts, *d_entries;
    unsigned long long* d_counts;
    cudaMalloc(&d_steps, kSignificands / 4);
    cudaMalloc(&d_rounds_up, kSignificands / 8);
    cudaMalloc(&d_starts, kSignificands / 4096 * 4);
    cudaMalloc(&d_entries, kSignificands * 4);
    cudaMalloc(&d_counts, 5 * sizeof(unsigned long long));
    cudaMemset(d_steps, 0, kSignificands / 4);
    cudaMemset(d_rounds_up, 0, kSignificands / 8);
    cudaMemset(d_counts, 0, 5 * sizeof(unsigned long long));
    measure<<<kSignificands / 256, 256>>>(d_steps, d_rounds_up, d_counts);
    prefix<<<kSignificands / 256, 256>>>(d_steps, d_starts);
    expand<<<kSignificands / 256, 256>>>(d_steps, d_starts, d_entries);
    check<<<kSignificands / 256, 256>>>(d_entries, d_rounds_up, d_counts + 2);
    std::vector<uint32_t> steps(kSignificands / 16), rounds_up(kSignificands / 32);
    unsigned long long counts[5];
    cudaMemcpy(steps.data(), d_steps, kSignificands / 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(rounds_up.data(), d_rounds_up, kSignificands / 8, cudaMemcpyDeviceToHost);
    if (cudaMemcpy(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost) != cudaSuccess) {
        std::fprintf(stderr, "probe: the GPU run failed\n");
        return 1;
    }
    int ups = 0;
    for (uint32_t w : rounds_up) ups += __builtin_popcount(w);
    std::printf("ex2 steps above 3 units: %llu\n", counts[0]);
    std::printf("rcp significands that round up: %d of %u; neither truncated nor one unit up: %llu\n", ups,
                kSignificands, counts[1]);
    std::printf("results the rules get wrong: ex2 %llu, ex2 without FTZ %llu, rcp %llu\n", counts[2], counts[3],
                counts[4]);
    for (int w = 0; w < 2; ++w) {
        FILE* f = std::fopen(argv[1 + w], "wb");
        const std::vector<uint32_t>& v = w ? rounds_up : steps;
        if (f == nullptr || std::fwrite(v.data(), 4, v.size(), f) != v.size()) return 1;
        std::fclose(f);
    }
    return counts[0] + counts[1] + counts[2] + counts[3] + counts[4] == 0 ? 0 : 1;
}
