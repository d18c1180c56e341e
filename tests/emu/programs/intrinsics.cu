// What nvcc's headers give every program besides the runtime API: CUDART_VERSION, __align__, __grid_constant__,
// <string.h> without an include, the vector types and make_* functions, the integer intrinsics (__mul24, __umul24,
// __mulhi, __popc, __clz, __ffs, __brev, __byte_perm, __sad, __hadd, funnel shifts), bit reinterpretations, the
// cache-hinted loads and stores, and <cuda_profiler_api.h>. Every value is an integer or an exact float.
//
// Build: nvcc -arch=sm_90 -o intrinsics tests/emu/programs/intrinsics.cu

#include <cuda_profiler_api.h>

#include "program.h"

constexpr int N = 257;  // inputs; one more than 256, so the last block is partial
constexpr int RESULTS = 20;

struct __align__(16) Aligned {
    float a;
    int b;
};

struct Params {
    int scale;
    int offset;
};

// ----------------------------------------------------------------------------
// kernels

__global__ void integer_kernel(const unsigned int* in, unsigned int* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned int x = in[i], y = in[(i * 31 + 7) % n];
    unsigned int* o = out + i * RESULTS;
    o[0] = (unsigned)__mul24((int)x, (int)y);  // only the low 24 bits of each count, sign-extended
    o[1] = __umul24(x, y);
    o[2] = (unsigned)__mulhi((int)x, (int)y);
    o[3] = __umulhi(x, y);
    o[4] = (unsigned)__popc(x);
    o[5] = (unsigned)__clz((int)(x >> (i % 32)));
    o[6] = (unsigned)__ffs((int)(x << (i % 32)));
    o[7] = __brev(x);
    o[8] = __byte_perm(x, y, (unsigned)i * 0x1357u);
    o[9] = __sad((int)x, (int)y, 5u);
    o[10] = (unsigned)__hadd((int)x, (int)y);
    o[11] = (unsigned)__rhadd((int)x, (int)y);
    o[12] = __uhadd(x, y);
    o[13] = __funnelshift_l(x, y, (unsigned)i);
    o[14] = __funnelshift_r(x, y, (unsigned)i);
    o[15] = __funnelshift_lc(x, y, (unsigned)i % 40);
    o[16] = (unsigned)__popcll(((unsigned long long)x << 32) | y);
    o[17] = (unsigned)(__umul64hi((unsigned long long)x << 20 | y, (unsigned long long)y << 24 | x) >> 7);
    o[18] = (unsigned)__clzll((long long)x);
    o[19] = __float_as_uint(__uint_as_float(x & 0x3fffffffu) * 2.0f);  // exact: a power of two
}

// Vector loads and stores through the types nvcc's vector_types.h defines, and cache-hinted accesses.
__global__ void vector_kernel(const uint4* in, uint4* out, uchar4* bytes, int4* ints, double2* doubles,
                              __grid_constant__ const Params p, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint4 v = __ldcs(&in[i]);
    __stcs(&out[i], make_uint4(v.w, v.z * p.scale, v.y + p.offset, v.x));
    bytes[i] = make_uchar4((unsigned char)v.x, (unsigned char)(v.y >> 8), (unsigned char)i, 255);
    ints[i] = make_int4(-(int)(v.x % 1000), i, p.scale, p.offset);
    const double2 d = make_double2(0.5 * i, -0.25 * i);
    __stcg(&doubles[i], d);
}

// ----------------------------------------------------------------------------
// host

int main() {
    std::printf("cudart_version_at_least_12: %s\n", CUDART_VERSION >= 12000 ? "yes" : "no");
#ifdef CUDA_VERSION
    std::printf("cuda_version_defined: yes\n");
#else
    std::printf("cuda_version_defined: no\n");
#endif
    std::printf("aligned_struct: size %zu align %zu\n", sizeof(Aligned), alignof(Aligned));
    std::printf("vector_sizes: uint4 %zu/%zu uchar4 %zu/%zu short2 %zu/%zu int3 %zu/%zu double2 %zu/%zu "
                "longlong2 %zu/%zu float3 %zu/%zu ushort4 %zu/%zu\n",
                sizeof(uint4), alignof(uint4), sizeof(uchar4), alignof(uchar4), sizeof(short2), alignof(short2),
                sizeof(int3), alignof(int3), sizeof(double2), alignof(double2), sizeof(longlong2),
                alignof(longlong2), sizeof(float3), alignof(float3), sizeof(ushort4), alignof(ushort4));
    print_error("profiler_start", cudaProfilerStart());

    std::vector<unsigned int> in(N);
    unsigned int state = 12345u;
    for (int i = 0; i < N; ++i) {
        state = state * 1664525u + 1013904223u;  // a full-range 32-bit sequence, high bits set half the time
        in[i] = state;
    }
    in[0] = 0;  // __clz(0), __ffs(0), __brev(0)
    in[1] = 0xffffffffu;

    unsigned int *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, N * sizeof(unsigned int)));
    CHECK(cudaMalloc(&d_out, N * RESULTS * sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_in, in.data(), N * sizeof(unsigned int), cudaMemcpyHostToDevice));
    integer_kernel<<<(N + 127) / 128, 128>>>(d_in, d_out, N);
    print_error("integer_launch", cudaGetLastError());
    std::vector<unsigned int> out(N * RESULTS);
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    // one checksum per intrinsic: FNV-1a over its N results, so that any wrong bit shows
    const char* names[RESULTS] = {"__mul24", "__umul24", "__mulhi", "__umulhi", "__popc", "__clz", "__ffs",
                                  "__brev", "__byte_perm", "__sad", "__hadd", "__rhadd", "__uhadd",
                                  "__funnelshift_l", "__funnelshift_r", "__funnelshift_lc", "__popcll",
                                  "__umul64hi", "__clzll", "__float_as_uint"};
    for (int k = 0; k < RESULTS; ++k) {
        unsigned int h = 2166136261u;
        for (int i = 0; i < N; ++i) h = (h ^ out[i * RESULTS + k]) * 16777619u;
        std::printf("%s: %08x (first %u, last %u)\n", names[k], h, out[k], out[(N - 1) * RESULTS + k]);
    }

    // vector types
    std::vector<uint4> vin(N), vout(N);
    for (int i = 0; i < N; ++i) vin[i] = make_uint4(in[i], in[(i + 1) % N], (unsigned)i, 7u * i);
    uint4 *d_vin = nullptr, *d_vout = nullptr;
    uchar4* d_bytes = nullptr;
    int4* d_ints = nullptr;
    double2* d_doubles = nullptr;
    CHECK(cudaMalloc(&d_vin, N * sizeof(uint4)));
    CHECK(cudaMalloc(&d_vout, N * sizeof(uint4)));
    CHECK(cudaMalloc(&d_bytes, N * sizeof(uchar4)));
    CHECK(cudaMalloc(&d_ints, N * sizeof(int4)));
    CHECK(cudaMalloc(&d_doubles, N * sizeof(double2)));
    CHECK(cudaMemcpy(d_vin, vin.data(), N * sizeof(uint4), cudaMemcpyHostToDevice));
    const Params p{3, -5};
    vector_kernel<<<(N + 127) / 128, 128>>>(d_vin, d_vout, d_bytes, d_ints, d_doubles, p, N);
    print_error("vector_launch", cudaGetLastError());
    std::vector<uchar4> bytes(N);
    std::vector<int4> ints(N);
    std::vector<double2> doubles(N);
    CHECK(cudaMemcpy(vout.data(), d_vout, N * sizeof(uint4), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(bytes.data(), d_bytes, N * sizeof(uchar4), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ints.data(), d_ints, N * sizeof(int4), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(doubles.data(), d_doubles, N * sizeof(double2), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < N; ++i) {
        const uint4 v = vin[i];
        bad += vout[i].x != v.w || vout[i].y != v.z * 3 || vout[i].z != v.y - 5 || vout[i].w != v.x;
        bad += bytes[i].x != (unsigned char)v.x || bytes[i].y != (unsigned char)(v.y >> 8) ||
               bytes[i].z != (unsigned char)i || bytes[i].w != 255;
        bad += ints[i].x != -(int)(v.x % 1000) || ints[i].y != i || ints[i].z != 3 || ints[i].w != -5;
        bad += doubles[i].x != 0.5 * i || doubles[i].y != -0.25 * i;
    }
    std::printf("vector_types: %s\n", bad == 0 ? "pass" : "FAIL");

    // memset and memcpy without #include <cstring>, as nvcc's cuda_runtime.h allows
    char text[8];
    memset(text, 'x', sizeof text);
    memcpy(text, "cuda", 5);
    std::printf("string_h: %s\n", text);
    print_error("profiler_stop", cudaProfilerStop());

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_vin));
    CHECK(cudaFree(d_vout));
    CHECK(cudaFree(d_bytes));
    CHECK(cudaFree(d_ints));
    CHECK(cudaFree(d_doubles));
    return 0;
}
