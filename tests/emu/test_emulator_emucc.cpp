// test_emulator_emucc.cpp: the compiler driver, common/emu/emucc, on sources written here: what it refuses and how
// it names it (in a .cu or in a program's own header), what it takes as nvcc does, and its rewrites keeping every
// line where it was, so that a diagnostic names the line the student wrote.

#include <fstream>
#include <string>

#include "test_emulator.h"

using namespace emu_test;

// ===============================================================================================================
// What emucc refuses, and how it says so
// ===============================================================================================================
TEST_CASE("emucc rejects what the emulator does not support, and names it") {
    struct Unsupported {
        const char* name;
        const char* construct;  // stderr must name it
        const char* source;
    };
    const Unsupported cases[] = {
        {"extern_device_variable", "extern __device__",
         "extern __device__ float weights[4];\n"
         "__global__ void k(float* out) { out[threadIdx.x] = weights[threadIdx.x % 4]; }\n"
         "int main() { return 0; }\n"},
        {"cluster_group", "this_cluster",
         "#include <cooperative_groups.h>\n"
         "__global__ void k(float* out) {\n"
         "    auto cluster = cooperative_groups::this_cluster();\n"
         "    out[threadIdx.x] = 1.0f;\n"
         "}\n"
         "int main() { return 0; }\n"},
        {"legacy_shuffle", "__shfl",
         "__global__ void k(float* out) { out[threadIdx.x] = __shfl(out[threadIdx.x], 0); }\n"
         "int main() { return 0; }\n"},
        {"half_accumulator", "wmma::fragment",  // the emulator's tensor cores accumulate in float only
         "#include <mma.h>\n"
         "__global__ void k(float* out) {\n"
         "    nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, __half> acc;\n"
         "    nvcuda::wmma::fill_fragment(acc, __half(0.0f));\n"
         "}\n"
         "int main() { return 0; }\n"},
        {"double_fragment", "wmma::fragment",
         "#include <mma.h>\n"
         "__global__ void k(float* out) {\n"
         "    nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 8, 8, 4, double, nvcuda::wmma::row_major> a;\n"
         "}\n"
         "int main() { return 0; }\n"},
        {"managed_variable", "__managed__",
         "__managed__ int counter;\n"
         "__global__ void k() { counter = 1; }\n"
         "int main() { return 0; }\n"},
        {"pool_of_its_own", "cudaMallocFromPoolAsync",  // cudaMallocAsync takes the default pool's memory
         "int main() {\n"
         "    cudaMemPool_t pool;\n"
         "    cudaDeviceGetDefaultMemPool(&pool, 0);\n"
         "    int* p = nullptr;\n"
         "    cudaMallocFromPoolAsync(&p, 16, pool, 0);\n"
         "    return 0;\n"
         "}\n"},
    };
    for (const Unsupported& c : cases) {
        const std::string name = c.name;
        CAPTURE(name);
        const Run r = emucc_build(c.name, c.source);
        INFO("stderr:\n", r.err);
        CHECK(r.exit_code != 0);
        CHECK(contains(r.err, c.construct));
        CHECK(contains(r.err, "not supported"));
    }
}

TEST_CASE("inline assembly in device code is refused at its line in every spelling; the host's own is kept") {
    const char* const spellings[] = {"__asm__ __volatile__", "__asm__", "__asm", "asm __volatile__"};
    for (const std::string spelling : spellings) {
        CAPTURE(spelling);
        // "+f": an operand constraint the CPU's back end does not know (it crashed on it before the check)
        const std::string source =
            "__device__ float twice(float v) {\n"
            "    " +
            spelling +
            "(\"add.f32 %0, %0, %0;\" : \"+f\"(v));\n"
            "    return v;\n"
            "}\n"
            "__global__ void k(float* x) { x[0] = twice(x[0]); }\n"
            "int main() { return 0; }\n";
        const Run r = emucc_build("device_asm", source);
        INFO("stderr:\n", r.err);
        CHECK(r.exit_code == 1);
        CHECK(contains(r.err, "device_asm.cu:2: error: inline PTX (asm) is not supported by the CPU emulator"));
        CHECK(!contains(r.err, "Stack dump"));
    }
    const std::string host_source =
        "#include <cstdint>\n"
        "static uint64_t ticks() {\n"
        "    uint32_t lo, hi;\n"
        "    __asm__ __volatile__(\"rdtsc\" : \"=a\"(lo), \"=d\"(hi));\n"
        "    return (uint64_t(hi) << 32) | lo;\n"
        "}\n"
        "__global__ void k(float* x) { x[0] = 1.0f; }\n"
        "int main() { return ticks() > 0 ? 0 : 1; }\n";
    const Run host = emucc_build("host_asm", host_source);
    INFO("stderr:\n", host.err);
    CHECK(host.exit_code == 0);
}

TEST_CASE("a kernel's store to a __constant__ variable does not compile (nvcc warns that it cannot store there)") {
    const Run r = emucc_build("constant_store",
                              "__constant__ float weights[4];\n"
                              "__global__ void k(float* out) {\n"
                              "    weights[threadIdx.x % 4] = 1.0f;\n"
                              "    out[threadIdx.x] = weights[0];\n"
                              "}\n"
                              "int main() { return 0; }\n");
    INFO("stderr:\n", r.err);
    CHECK(r.exit_code != 0);
    CHECK(contains(r.err, "constant_store.cu:3:"));
    CHECK(contains(r.err, "'weights' with const-qualified type"));
}

TEST_CASE("emucc treats a program's own headers like its .cu: an unsupported construct there is named with its line") {
    const fs::path header = scratch_dir() / "inline_ptx.cuh";
    std::ofstream(header) << "#pragma once\n"
                             "__device__ inline unsigned lane() {\n"
                             "    unsigned id;\n"
                             "    asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(id));\n"
                             "    return id;\n"
                             "}\n";
    const Run r = emucc_build("header_refusal",
                              "#include \"inline_ptx.cuh\"\n"
                              "__global__ void k(unsigned* out) { out[threadIdx.x] = lane(); }\n"
                              "int main() { return 0; }\n");
    INFO("stderr:\n", r.err);
    CHECK(r.exit_code != 0);
    CHECK(contains(r.err, "inline_ptx.cuh:4: error: inline PTX (asm) is not supported"));
}

TEST_CASE("what the emulator still lacks is refused at compile time by name") {
    struct Unsupported {
        const char* name;
        const char* call;
    };
    const Unsupported cases[] = {
        {"cooperative_launch_void_pointer", "cudaLaunchCooperativeKernel(kernel_address, 1, 1, nullptr)"},
    };
    for (const Unsupported& c : cases) {
        const std::string name = c.name;
        CAPTURE(name);
        const Run r = emucc_build(c.name, std::string("__global__ void k() {}\nint main() { void* kernel_address = "
                                                      "(void*)k; (void)kernel_address; ") +
                                              c.call + "; }\n");
        INFO("stderr:\n", r.err);
        CHECK(r.exit_code != 0);
        CHECK(contains(r.err, std::string(c.call).substr(0, std::string(c.call).find('(')) +
                                  " is not supported by the CPU emulator"));
    }
}

// ===============================================================================================================
// What emucc takes as nvcc does, keeping every line in place
// ===============================================================================================================
TEST_CASE("emucc takes `extern T __shared__ name[]` (the type before __shared__) as dynamic shared memory") {
    const Run build =
        emucc_build("extern_type_first",
                    "#include <cstdio>\n"
                    "__global__ void k(int* out) {\n"
                    "    extern float __shared__ buffer[];\n"
                    "    buffer[threadIdx.x] = threadIdx.x;\n"
                    "    __syncthreads();\n"
                    "    out[threadIdx.x] = buffer[blockDim.x - 1 - threadIdx.x];\n"
                    "}\n"
                    "int main() {\n"
                    "    int* d = nullptr;\n"
                    "    cudaMalloc(&d, 64 * sizeof(int));\n"
                    "    k<<<1, 64, 64 * sizeof(float)>>>(d);\n"
                    "    int h[64];\n"
                    "    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n"
                    "    std::printf(\"%d %d %s\\n\", h[0], h[63], cudaGetErrorName(cudaGetLastError()));\n"
                    "    return 0;\n"
                    "}\n");
    INFO("emucc stderr:\n", build.err);
    REQUIRE(build.exit_code == 0);
    const Run r = run({(scratch_dir() / "extern_type_first").string()});
    INFO("stderr:\n", r.err);
    CHECK(r.out == "63 0 cudaSuccess\n");
    CHECK(r.err == "");  // shared memory to the checks: written before it is read, no race
    REQUIRE(r.stats.size() == 1);
    CHECK(json_number(r.stats[0], "shared_store_bytes") == 64 * 4);
    CHECK(json_number(r.stats[0], "shared_load_bytes") == 64 * 4);
}

TEST_CASE("emucc: a launch with fewer arguments than parameters and no default for them does not compile") {
    const Run r = emucc_build("too_few_arguments",
                              "__global__ void k(int* out, int n) { out[0] = n; }\n"
                              "int main() { int* d = nullptr; k<<<1, 1>>>(d); return 0; }\n");
    INFO("stderr:\n", r.err);
    CHECK(r.exit_code != 0);
    CHECK(contains(r.err, "too_few_arguments.cu:2:"));
    CHECK(contains(r.err, "no matching function for call to 'k'"));
}

TEST_CASE("emucc's rewrites (variable lists, alignas after __shared__, launches by name) keep every line in place") {
    const std::string source =
        "__constant__ float c_a = 1.0f, c_b[2] = {2.0f,\n"
        "                                          3.0f}, c_c;\n"
        "__device__ int d_x, d_y[4];\n"
        "__global__ void k(float* out, int n = 4) {\n"
        "    __shared__ alignas(16) float tile[4];\n"
        "    tile[threadIdx.x] = c_a + c_b[1] + c_c + float(d_y[3]);\n"
        "    __syncthreads();\n"
        "    out[threadIdx.x + n] = tile[threadIdx.x];  // [line 8: one past the end for the last thread]\n"
        "}\n"
        "int main() {\n"
        "    float* d = nullptr;\n"
        "    cudaMalloc(&d, 7 * sizeof(float));\n"
        "    k<<<1, 4>>>(d, 3);\n"
        "    k<<<1, 4>>>(d);\n"
        "    return cudaDeviceSynchronize() == cudaErrorIllegalAddress ? 0 : 1;\n"
        "}\n";
    REQUIRE(emucc_build("rewrites_keep_lines", source).exit_code == 0);
    const Run r = run({(scratch_dir() / "rewrites_keep_lines").string()});
    INFO("stderr:\n", r.err);
    CHECK(r.exit_code == 0);
    CHECK(contains(r.err, "rewrites_keep_lines.cu:8: cudaemu: out-of-bounds"));
    REQUIRE(r.stats.size() == 2);
    CHECK(contains(r.stats[0], "\"errors\": []"));     // n = 3: the last thread writes element 6 of 7
    CHECK(contains(r.stats[1], "\"out-of-bounds\""));  // n = 4 by default: element 7
}
