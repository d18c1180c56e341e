// gemm_bench.cu — times one lab's matmul() next to cuBLAS on the GPU; `make bench` and `make profile` run it.
//
//   gemm_bench --info                                 the device's name, peak FP32 rate and memory bandwidth (JSON)
//   gemm_bench --impl kernel|cublas-fp32|cublas-tf32 --shapes MxNxK[,MxNxK...] [--reps R] [--warmup W]
//              [--input-bits B]
//              one CSV line per shape: impl,M,N,K,reps,median_ms,min_ms,gflops,verified,worst_error_ratio
//   gemm_bench --profile MxNxK                        one call of the kernel and nothing else on the GPU (for ncu)
//
// Every timed result is verified first, on the GPU, against cuBLAS FP32 with pedantic math: element (i, j) passes
// when |c − ref| ≤ (2·u + 2·K·FLT_EPSILON)·(|A|·|B|)(i, j) + 1e-6, the classic bound for a dot product of length K,
// where |A|·|B| is computed by cuBLAS too and u is the rounding of the inputs (2^-10 for TF32, 0 otherwise).
// A kernel whose lab multiplies A and B with fewer mantissa bits than FP32's 23 (lab 7: TF32's 10, its lab.h's
// INPUT_MANTISSA_BITS, which `make bench` passes as --input-bits) gets u = 2^-B, the same allowance as cuBLAS TF32:
// rounding to B bits errs by at most 2^-(B+1) of an input, truncating (what the hardware does to an unrounded float)
// by 2^-B.
// Each repetition is timed alone with CUDA events, after a write of twice the L2 size has flushed the cache.
//
// Build (the Makefile does this): nvcc -O2 -std=c++17 -arch=native -I common -I labs/<lab> \
//                                 tools/perf/gemm_bench.cu <kernel.cu> -lcublas
#include <cublas_v2.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "json_writer.h"
#include "lab.h"

#define CUBLAS_CHECK(expr)                                                                                   \
    do {                                                                                                     \
        cublasStatus_t status_ = (expr);                                                                     \
        if (status_ != CUBLAS_STATUS_SUCCESS) {                                                              \
            fprintf(stderr, "%s:%d: cuBLAS error %s\n", __FILE__, __LINE__, cublasGetStatusString(status_)); \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

struct Shape {
    int M, N, K;
};

// ----------------------------------------------------------------------------
// device helpers: inputs, |x|, verification

__global__ void fill_uniform_kernel(float* x, size_t n, uint32_t seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        uint32_t h = uint32_t(i) * 2654435761u ^ seed * 2246822519u;  // a hash per element: no RNG state
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = (h >> 8) * (2.0f / 16777216.0f) - 1.0f;  // uniform in [-1, 1)
    }
}

__global__ void abs_kernel(const float* x, float* y, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        y[i] = fabsf(x[i]);
}

// counts[0]: elements outside the bound (NaN included); worst[0]: the largest |c − ref| / bound, as float bits
__global__ void verify_kernel(const float* C, const float* ref, const float* abs_ref, size_t n, float rel,
                              unsigned long long* bad, unsigned int* worst) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        const float bound = rel * abs_ref[i] + 1e-6f;
        const float ratio = fabsf(C[i] - ref[i]) / bound;
        if (!(ratio <= 1.0f)) atomicAdd(bad, 1ull);
        if (ratio == ratio) atomicMax(worst, __float_as_uint(ratio));  // non-negative floats order as their bits
    }
}

// ----------------------------------------------------------------------------
// host

void fail(const char* message) {
    fprintf(stderr, "gemm_bench: %s\n", message);
    exit(2);
}

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "gemm_bench: %s: %s (%s)\n", what, cudaGetErrorString(e), cudaGetErrorName(e));
        exit(1);
    }
}

std::vector<Shape> parse_shapes(const char* text) {
    std::vector<Shape> shapes;
    std::string s(text);
    size_t pos = 0;
    while (pos <= s.size()) {
        size_t end = s.find(',', pos);
        if (end == std::string::npos) end = s.size();
        Shape sh{};
        char tail = 0;
        if (sscanf(s.substr(pos, end - pos).c_str(), "%dx%dx%d%c", &sh.M, &sh.N, &sh.K, &tail) != 3 || sh.M < 1 ||
            sh.N < 1 || sh.K < 1)
            fail(("bad shape '" + s.substr(pos, end - pos) + "': want MxNxK with M, N, K >= 1").c_str());
        shapes.push_back(sh);
        pos = end + 1;
    }
    return shapes;
}

const int kBlocks = 1024, kThreads = 256;

// C = A·B, row-major, through cuBLAS's column-major API: Cᵀ = Bᵀ·Aᵀ.
void cublas_matmul(cublasHandle_t h, const float* A, const float* B, float* C, Shape s) {
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.N, s.M, s.K, &one, B, s.N, A, s.K, &zero, C, s.N));
}

void print_info() {
    int dev = 0, sms = 0, clock_khz = 0, mem_khz = 0, bus_bits = 0, l2 = 0, major = 0, minor = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "SM count");
    check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev), "clock rate");
    check(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev), "memory clock rate");
    check(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev), "memory bus width");
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), "L2 size");
    check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), "compute capability");
    check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev), "compute capability");
    json::Writer w;
    w.begin_object()
        .field("name", prop.name)
        .field("compute_capability", std::to_string(major) + "." + std::to_string(minor))
        .field("sms", sms)
        .field("clock_khz", clock_khz)
        .field("memory_clock_khz", mem_khz)
        .field("memory_bus_bits", bus_bits)
        .field("l2_bytes", l2)
        .end_object();
    printf("%s\n", w.str().c_str());
}

int main(int argc, char** argv) {
    const char* impl = "kernel";
    const char* shapes_text = nullptr;
    const char* profile_shape = nullptr;
    int reps = 20, warmup = 3;
    int input_bits = 0;  // 0: the kernel multiplies the inputs as they are, in FP32
    for (int i = 1; i < argc; ++i) {
        auto value = [&]() -> const char* {
            if (i + 1 >= argc) fail((std::string(argv[i]) + " needs a value").c_str());
            return argv[++i];
        };
        if (!strcmp(argv[i], "--info")) {
            print_info();
            return 0;
        } else if (!strcmp(argv[i], "--impl")) {
            impl = value();
        } else if (!strcmp(argv[i], "--shapes")) {
            shapes_text = value();
        } else if (!strcmp(argv[i], "--reps")) {
            reps = atoi(value());
        } else if (!strcmp(argv[i], "--warmup")) {
            warmup = atoi(value());
        } else if (!strcmp(argv[i], "--input-bits")) {
            input_bits = atoi(value());
        } else if (!strcmp(argv[i], "--profile")) {
            profile_shape = value();
        } else {
            fail((std::string("unknown argument '") + argv[i] + "'").c_str());
        }
    }
    const bool kernel = !strcmp(impl, "kernel"), fp32 = !strcmp(impl, "cublas-fp32"),
               tf32 = !strcmp(impl, "cublas-tf32");
    if (!kernel && !fp32 && !tf32) fail("--impl must be kernel, cublas-fp32 or cublas-tf32");
    if (reps < 1 || warmup < 0) fail("--reps must be >= 1 and --warmup >= 0");
    if (input_bits < 0 || input_bits > 23) fail("--input-bits must be 0 to 23 (0: the kernel keeps all of FP32)");

    if (profile_shape) {
        // Only the kernel runs on the GPU: inputs are copied from the host, so ncu sees no other kernel.
        const Shape s = parse_shapes(profile_shape).at(0);
        std::vector<float> a(size_t(s.M) * s.K), b(size_t(s.K) * s.N);
        uint32_t x = 1;
        for (float& v : a) v = ((x = x * 1664525u + 1013904223u) >> 8) * (2.0f / 16777216.0f) - 1.0f;
        for (float& v : b) v = ((x = x * 1664525u + 1013904223u) >> 8) * (2.0f / 16777216.0f) - 1.0f;
        float *A, *B, *C;
        check(cudaMalloc(&A, a.size() * 4), "cudaMalloc A");
        check(cudaMalloc(&B, b.size() * 4), "cudaMalloc B");
        check(cudaMalloc(&C, size_t(s.M) * s.N * 4), "cudaMalloc C");
        check(cudaMemcpy(A, a.data(), a.size() * 4, cudaMemcpyHostToDevice), "copy A");
        check(cudaMemcpy(B, b.data(), b.size() * 4, cudaMemcpyHostToDevice), "copy B");
        matmul(A, B, C, s.M, s.N, s.K);
        check(cudaGetLastError(), "launch");
        check(cudaDeviceSynchronize(), "kernel");
        return 0;
    }
    if (!shapes_text) fail("give --info, --shapes MxNxK[,...] or --profile MxNxK");

    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    int l2_bytes = 0;
    check(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, 0), "L2 size");
    const size_t flush_bytes = 2 * size_t(l2_bytes);
    void* flush = nullptr;
    check(cudaMalloc(&flush, flush_bytes), "cudaMalloc L2 flush buffer");
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "event");
    check(cudaEventCreate(&stop), "event");
    unsigned long long* bad;
    unsigned int* worst;
    check(cudaMalloc(&bad, sizeof(*bad)), "cudaMalloc");
    check(cudaMalloc(&worst, sizeof(*worst)), "cudaMalloc");

    for (const Shape& s : parse_shapes(shapes_text)) {
        const size_t na = size_t(s.M) * s.K, nb = size_t(s.K) * s.N, nc = size_t(s.M) * s.N;
        float *A, *B, *C, *absA, *absB, *ref, *abs_ref;
        for (auto [p, n] :
             {std::pair{&A, na}, {&B, nb}, {&C, nc}, {&absA, na}, {&absB, nb}, {&ref, nc}, {&abs_ref, nc}})
            check(cudaMalloc(p, n * sizeof(float)), "cudaMalloc (is the shape too large for the GPU?)");
        fill_uniform_kernel<<<kBlocks, kThreads>>>(A, na, 1);
        fill_uniform_kernel<<<kBlocks, kThreads>>>(B, nb, 2);
        abs_kernel<<<kBlocks, kThreads>>>(A, absA, na);
        abs_kernel<<<kBlocks, kThreads>>>(B, absB, nb);
        CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
        cublas_matmul(handle, A, B, ref, s);
        cublas_matmul(handle, absA, absB, abs_ref, s);
        CUBLAS_CHECK(cublasSetMathMode(handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH));

        auto call = [&] {
            if (kernel) {
                matmul(A, B, C, s.M, s.N, s.K);
                check(cudaGetLastError(), "launch");
            } else {
                cublas_matmul(handle, A, B, C, s);
            }
        };
        // verified before timing: a wrong kernel's speed means nothing
        check(cudaMemset(C, 0xff, nc * sizeof(float)), "cudaMemset C");  // NaN: an unwritten element fails
        call();
        check(cudaDeviceSynchronize(), "kernel");
        check(cudaMemset(bad, 0, sizeof(*bad)), "cudaMemset");
        check(cudaMemset(worst, 0, sizeof(*worst)), "cudaMemset");
        const float input_rounding = tf32                                      ? 1.0f / 1024
                                     : kernel && input_bits && input_bits < 23 ? ldexpf(1.0f, -input_bits)
                                                                               : 0.0f;
        verify_kernel<<<kBlocks, kThreads>>>(C, ref, abs_ref, nc, 2 * input_rounding + 2 * s.K * FLT_EPSILON, bad,
                                             worst);
        unsigned long long bad_host = 0;
        unsigned int worst_bits = 0;
        check(cudaMemcpy(&bad_host, bad, sizeof(bad_host), cudaMemcpyDeviceToHost), "verify");
        check(cudaMemcpy(&worst_bits, worst, sizeof(worst_bits), cudaMemcpyDeviceToHost), "verify");
        float worst_ratio;
        memcpy(&worst_ratio, &worst_bits, sizeof(worst_ratio));

        std::vector<float> ms;
        if (bad_host == 0) {
            for (int r = 0; r < warmup + reps; ++r) {
                check(cudaMemsetAsync(flush, r & 0xff, flush_bytes), "L2 flush");
                check(cudaEventRecord(start), "event");
                call();
                check(cudaEventRecord(stop), "event");
                check(cudaEventSynchronize(stop), "kernel");
                float t = 0;
                check(cudaEventElapsedTime(&t, start, stop), "event");
                if (r >= warmup) ms.push_back(t);
            }
        } else {
            fprintf(stderr, "gemm_bench: %s is wrong at %dx%dx%d: %llu of %zu elements outside the bound; not timed\n",
                    impl, s.M, s.N, s.K, bad_host, nc);
        }
        std::sort(ms.begin(), ms.end());
        const double median = ms.empty() ? 0 : (ms[(ms.size() - 1) / 2] + ms[ms.size() / 2]) / 2;
        const double gflops = ms.empty() ? 0 : 2.0 * s.M * s.N * s.K / (median * 1e-3) / 1e9;
        printf("%s,%d,%d,%d,%d,%.5f,%.5f,%.1f,%s,%.4f\n", impl, s.M, s.N, s.K, int(ms.size()), median,
               ms.empty() ? 0.0 : ms[0], gflops, bad_host == 0 ? "yes" : "no", worst_ratio);
        fflush(stdout);
        for (float* p : {A, B, C, absA, absB, ref, abs_ref}) check(cudaFree(p), "cudaFree");
    }
    CUBLAS_CHECK(cublasDestroy(handle));
    return 0;
}
