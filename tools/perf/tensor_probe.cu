// tensor_probe.cu — the tensor cores' TF32 rate with no memory in the way, on a Hopper GPU: how fast mma.sync
// (lab 8's instruction) and wgmma (Hopper's warpgroup MMA) can go, so that a kernel's GFLOP/s can be read against
// the instruction's ceiling rather than the datasheet's.
//
//   mma.sync   m16n8k8 TF32 from registers: every warp issues 8 independent products per step, each adding into its
//              own accumulators, for ITERS steps; 8 warps per block, blocks enough to fill every multiprocessor.
//   wgmma      m64n256k8 TF32 (wgmma.mma_async), A and B read from shared memory through matrix descriptors
//              (no swizzle, K-major: 8×16-byte core matrices), one warpgroup of 4 warps per block adding into its
//              128 accumulator registers per thread, 2 blocks per multiprocessor; batches of 16 products between
//              waits.
// Neither touches global memory in its loop; the inputs are zeros and small integers (what they hold does not
// change the rate). Each is timed with CUDA events over 5 runs after a warm-up; the best run is reported, as
// GFLOP/s (2·m·n·k per product) and as a share of cuBLAS TF32 at 4096³ when --cublas-gflops gives it.
//
// Build (sm_90a: wgmma needs the architecture-specific target):
//   nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o build/tensor_probe tools/perf/tensor_probe.cu
// Run: build/tensor_probe [--cublas-gflops G]
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

constexpr int kIters = 4096;  // steps per thread of each kernel's loop

// ----------------------------------------------------------------------------
// mma.sync m16n8k8 TF32 from registers

__global__ void __launch_bounds__(256) mma_sync_probe(float* out, int iters) {
    uint32_t a[4], b[2];
    for (int i = 0; i < 4; ++i) a[i] = __float_as_uint(float((threadIdx.x + i) % 3));
    for (int i = 0; i < 2; ++i) b[i] = __float_as_uint(float((threadIdx.x + 2 * i) % 5));
    float acc[8][4] = {};
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            asm volatile(
                "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                "{%0, %1, %2, %3};\n"
                : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]), "+f"(acc[j][3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        }
    }
    float sum = 0;
    for (int j = 0; j < 8; ++j)
        for (int i = 0; i < 4; ++i) sum += acc[j][i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // keeps the products live
}

// ----------------------------------------------------------------------------
// wgmma m64n256k8 TF32, A and B from shared memory

constexpr int kWgM = 64, kWgN = 256, kWgK = 8;

// A matrix descriptor (PTX ISA, "Matrix Descriptor Format"): the start address, the leading-dimension byte offset
// (between core matrices next to each other along K) and the stride-dimension byte offset (along M or N), each in
// units of 16 bytes; no swizzle.
__device__ uint64_t descriptor(const void* smem, uint32_t leading_bytes, uint32_t stride_bytes) {
    const uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
    return uint64_t((address >> 4) & 0x3fff) | uint64_t((leading_bytes >> 4) & 0x3fff) << 16 |
           uint64_t((stride_bytes >> 4) & 0x3fff) << 32;
}

__global__ void __launch_bounds__(128) wgmma_probe(float* out, int iters) {
    // K-major core matrices of 8 rows × 16 bytes (4 TF32), stored one after another: for each group of 8 rows,
    // the 2 core matrices that cover K = 8, then the next group of rows
    __shared__ alignas(128) float As[kWgM * kWgK];
    __shared__ alignas(128) float Bs[kWgN * kWgK];
    for (int i = threadIdx.x; i < kWgM * kWgK; i += blockDim.x) As[i] = float(i % 3);
    for (int i = threadIdx.x; i < kWgN * kWgK; i += blockDim.x) Bs[i] = float(i % 5);
    __syncthreads();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // the stores above, visible to wgmma's reads
    const uint64_t a = descriptor(As, 128, 256), b = descriptor(Bs, 128, 256);
    float d[128];
    for (int i = 0; i < 128; ++i) d[i] = 0.0f;
    for (int it = 0; it < iters / 16; ++it) {
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            asm volatile(
                "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
                "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, "
                "%31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, "
                "%51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, "
                "%71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, "
                "%91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, "
                "%109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, "
                "%126, %127}, %128, %129, 1, 1, 1;\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
                  "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                  "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
                  "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
                  "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]),
                  "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]),
                  "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]),
                  "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]),
                  "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]),
                  "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]),
                  "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]),
                  "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]),
                  "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                : "l"(a), "l"(b));
        }
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    }
    float sum = 0;
    for (int i = 0; i < 128; ++i) sum += d[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// ----------------------------------------------------------------------------
// timing

template <class Launch>
double best_ms(Launch launch) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    launch();  // warm-up
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    float best = 1e30f;
    for (int r = 0; r < 5; ++r) {
        CHECK(cudaEventRecord(start));
        launch();
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (ms < best) best = ms;
    }
    CHECK(cudaGetLastError());
    return best;
}

void report(const char* what, double flops, double ms, double cublas) {
    const double gflops = flops / (ms * 1e6);
    printf("%-48s %10.0f GFLOP/s", what, gflops);
    if (cublas > 0) printf("  (%.0f %% of cuBLAS TF32)", 100.0 * gflops / cublas);
    printf("\n");
}

int main(int argc, char** argv) {
    double cublas = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--cublas-gflops") && i + 1 < argc) {
            cublas = atof(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--cublas-gflops G]\n", argv[0]);
            return 2;
        }
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d multiprocessors\n", prop.name, prop.multiProcessorCount);
    const int sms = prop.multiProcessorCount;
    float* out = nullptr;
    CHECK(cudaMalloc(&out, size_t(sms) * 8 * 256 * sizeof(float)));

    for (int per_sm : {1, 2}) {  // blocks of 8 warps per multiprocessor
        const int blocks = sms * per_sm;
        const double ms = best_ms([&] { mma_sync_probe<<<blocks, 256>>>(out, kIters); });
        const double flops = double(blocks) * 8 * kIters * 8 * (2.0 * 16 * 8 * 8);
        char what[96];
        snprintf(what, sizeof what, "mma.sync m16n8k8 TF32, %d warps per SM", 8 * per_sm);
        report(what, flops, ms, cublas);
    }
    for (int per_sm : {1, 2}) {  // warpgroups per multiprocessor
        const int blocks = sms * per_sm;
        const double ms = best_ms([&] { wgmma_probe<<<blocks, 128>>>(out, kIters); });
        const double flops = double(blocks) * kIters * (2.0 * kWgM * kWgN * kWgK);
        char what[96];
        snprintf(what, sizeof what, "wgmma m64n256k8 TF32, %d warpgroup(s) per SM", per_sm);
        report(what, flops, ms, cublas);
    }
    CHECK(cudaFree(out));
    return 0;
}
