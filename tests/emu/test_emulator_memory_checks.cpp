// test_emulator_memory_checks.cpp: the bounds checks. An access outside an allocation, a __device__ variable,
// the dynamic shared memory or a registered host buffer is reported with the allocation, the element, the thread
// and the line, and its error is sticky until cudaDeviceReset(); what lies beside a registered buffer (a launch's
// arguments on the same stack) is not taken for an overrun; host code that dereferences a device pointer gets a
// host-access warning.

#include <string>
#include <vector>

#include "kernels.h"
#include "test_emulator.h"

using namespace emu_test;

// ===============================================================================================================
// Out of bounds, in process
// ===============================================================================================================
TEST_CASE("an out-of-bounds load names the allocation, element, block, thread and line, and is sticky") {
    const ResetDeviceAtEnd reset_at_end;
    const int n = 1000;  // elements of d_short; the launch covers n + 1
    CAPTURE(n);
    float* d_short = nullptr;
    float* d_out = nullptr;
    REQUIRE(cudaMalloc(&d_short, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_out, (n + 1) * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemset(d_short, 0, n * sizeof(float)) == cudaSuccess);
    cudaemu::clear_launches();
    CHECK(copy_floats(d_short, d_out, n + 1) == cudaSuccess);  // the launch itself is fine

    const cudaemu::LaunchReport& r = only_launch();
    CHECK(r.error == cudaErrorIllegalAddress);
    INFO(all_messages(r));
    const std::vector<cudaemu::Diagnostic> oob = diagnostics_of_kind(r, "out-of-bounds");
    REQUIRE(oob.size() == 1);
    const cudaemu::Diagnostic& d = oob[0];
    CHECK(contains(d.file, "kernels.cu"));
    CHECK(d.line == kernels_line("copy"));
    CHECK(contains(d.message, kernels_at("copy")));
    CHECK(contains(d.message, "'d_short'"));
    CHECK(contains(d.message, "element " + std::to_string(n)));  // thread n reads in[n]
    CHECK(contains(d.message, "thread (" + std::to_string(n % COPY_BLOCK) + ",0,0)"));
    CHECK(contains(d.message, "block (" + std::to_string(n / COPY_BLOCK) + ",0,0)"));
    CHECK(contains(d.message, "load"));

    // sticky: every later call returns it, a valid launch does not run
    CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
    CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
    std::vector<float> host(n);
    CHECK(cudaMemcpy(host.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaErrorIllegalAddress);
    CHECK(copy_floats(d_out, d_out, n) == cudaErrorIllegalAddress);
    CHECK(cudaemu::launches().size() == 1);
    CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);

    CHECK(cudaDeviceReset() == cudaSuccess);  // also frees d_short and d_out
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    DeviceArray<float> in(std::vector<float>(n, 4.0f)), out(n);
    CHECK(copy_floats(in.ptr, out.ptr, n) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(first_mismatch(out.to_host(), n, [](size_t) { return 4.0f; }) == "");
}

// ===============================================================================================================
// Out of bounds in programs: sticky errors, dynamic shared memory, __device__ variables, host memory
// ===============================================================================================================
TEST_CASE("programs/error_sticky.cu: the error stays until cudaDeviceReset(), then everything works again") {
    const Run r = run({program("error_sticky")});
    INFO("stdout:\n", r.out, "stderr:\n", r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == lines({
                       {"launch_bad", "cudaSuccess"},
                       {"sync_after_bad", "cudaErrorIllegalAddress"},
                       {"memcpy_after_bad", "cudaErrorIllegalAddress"},
                       {"launch_valid_after_bad", "cudaErrorIllegalAddress"},
                       {"sync_valid_after_bad", "cudaErrorIllegalAddress"},
                       {"malloc_after_bad", "cudaErrorIllegalAddress"},
                       {"last_error_after_bad", "cudaErrorIllegalAddress"},
                       {"reset", "cudaSuccess"},
                       {"last_error_after_reset", "cudaSuccess"},
                       {"malloc_after_reset", "cudaSuccess"},
                       {"launch_after_reset", "cudaSuccess"},
                       {"sync_after_reset", "cudaSuccess"},
                       {"memcpy_after_reset", "cudaSuccess"},
                       {"values_after_reset", "pass"},
                       {"free_after_reset", "cudaSuccess"},
                   }));
    CHECK(count_of(r.err, "cudaemu: out-of-bounds") == 1);
    // the valid launch while the error was sticky never ran: only the bad launch and the one after the reset
    REQUIRE(r.stats.size() == 2);
    CHECK(contains(r.stats[0], "\"kernel\": \"read_far_kernel\""));
    CHECK(contains(r.stats[1], "\"kernel\": \"fill_kernel\""));
    CHECK(contains(r.stats[1], "\"errors\": []"));
}

TEST_CASE("programs/error_dynamic_shared_oob.cu: the report names the dynamic shared memory and the size asked for") {
    const Run r = run({program("error_dynamic_shared_oob")});
    INFO("stderr:\n", r.err);
    CHECK(contains(r.err, "error_dynamic_shared_oob.cu:12: cudaemu: out-of-bounds in kernel 'halo_sum_kernel'"));
    CHECK(contains(r.err, "byte 1024 of the dynamic shared memory (extern __shared__)"));
    CHECK(contains(r.err, "the launch asked for 1024 bytes"));
}

TEST_CASE("a __device__ variable is bounds-checked like a cudaMalloc allocation") {
    const std::string source =
        "#include <cstdio>\n"
        "__device__ int slots[8];\n"
        "__global__ void k() { slots[threadIdx.x] = 1; }  // [line: store]\n"
        "int main() {\n"
        "    k<<<1, 9>>>();\n"
        "    std::printf(\"sync: %s\\n\", cudaGetErrorName(cudaDeviceSynchronize()));\n"
        "    return 0;\n"
        "}\n";
    const Run build = emucc_build("device_variable_oob", source);
    INFO("emucc stderr:\n", build.err);
    REQUIRE(build.exit_code == 0);
    const Run r = run({(scratch_dir() / "device_variable_oob").string()});
    INFO("stderr:\n", r.err);
    CHECK(r.out == "sync: cudaErrorIllegalAddress\n");
    CHECK(contains(r.err,
                   "device_variable_oob.cu:" + std::to_string(marked_line(source, "store", "device_variable_oob.cu")) +
                       ": cudaemu: out-of-bounds"));
    CHECK(contains(r.err, "element 8 of 'slots' (8 elements of 4 bytes"));
}

TEST_CASE("a float4 past the end is placed by its byte: the allocation's elements need not be float4s") {
    const std::string source =
        "#include <cstdio>\n"
        "__global__ void k(const float* a, float4* out) {\n"
        "    out[threadIdx.x] = reinterpret_cast<const float4*>(a)[threadIdx.x];  // [line: load]\n"
        "}\n"
        "int main() {\n"
        "    float* a;\n"
        "    float4* out;\n"
        "    cudaMalloc(&a, 16 * sizeof(float));\n"
        "    cudaMalloc(&out, 8 * sizeof(float4));\n"
        "    k<<<1, 5>>>(a, out);\n"
        "    std::printf(\"sync: %s\\n\", cudaGetErrorName(cudaDeviceSynchronize()));\n"
        "    return 0;\n"
        "}\n";
    const Run build = emucc_build("float4_past_end", source);
    INFO("emucc stderr:\n", build.err);
    REQUIRE(build.exit_code == 0);
    const Run r = run({(scratch_dir() / "float4_past_end").string()});
    INFO("stderr:\n", r.err);
    CHECK(r.out == "sync: cudaErrorIllegalAddress\n");
    CHECK(contains(r.err, "float4_past_end.cu:" + std::to_string(marked_line(source, "load", "float4_past_end.cu")) +
                              ": cudaemu: out-of-bounds"));
    CHECK(contains(r.err, "byte 64 of 'a' (64 bytes, allocated at "));
    CHECK(!contains(r.err, "elements of 16 bytes"));
    CHECK(!contains(r.err, "elements of 8 bytes"));
}

TEST_CASE("an access in a helper the kernel calls names the helper and the line of the call") {
    // each helper is called from two lines, and only the second call's index runs past the end: a store, and an
    // asynchronous copy (the program's argument picks which runs)
    const std::string source =
        "#include <cstdio>\n"
        "#include <cstring>\n"
        "#include <cuda_pipeline.h>\n"
        "__device__ __forceinline__ void put(float* p, int i, float v) {\n"
        "    p[i] = v;  // [line: store]\n"
        "}\n"
        "__device__ __forceinline__ void copy(float* dst, const float* src, int i) {\n"
        "    __pipeline_memcpy_async(dst, src + i, 4);  // [line: copy]\n"
        "}\n"
        "__global__ void k(const float* in, float* out, bool copies) {\n"
        "    __shared__ float tile[64];\n"
        "    const int t = threadIdx.x;\n"
        "    if (copies) {\n"
        "        copy(&tile[t], in, t);\n"
        "        copy(&tile[32 + t], in, 32 + t + 1);  // [line: second copy]\n"
        "        __pipeline_commit();\n"
        "        __pipeline_wait_prior(0);\n"
        "        return;\n"
        "    }\n"
        "    put(out, t, in[t]);\n"
        "    put(out, t + 33, in[t]);  // [line: second put]\n"
        "}\n"
        "int main(int argc, char** argv) {\n"
        "    float *in, *out;\n"
        "    cudaMalloc(&in, 64 * sizeof(float));\n"
        "    cudaMalloc(&out, 64 * sizeof(float));\n"
        "    cudaMemset(in, 0, 64 * sizeof(float));\n"
        "    k<<<1, 32>>>(in, out, argc > 1 && std::strcmp(argv[1], \"copy\") == 0);\n"
        "    std::printf(\"sync: %s\\n\", cudaGetErrorName(cudaDeviceSynchronize()));\n"
        "    return 0;\n"
        "}\n";
    const std::string file = "helper_call_sites.cu";
    const Run build = emucc_build("helper_call_sites", source);
    INFO("emucc stderr:\n", build.err);
    REQUIRE(build.exit_code == 0);
    auto line = [&](const char* mark) { return std::to_string(marked_line(source, mark, file)); };
    const Run stores = run({(scratch_dir() / "helper_call_sites").string(), "put"});
    INFO("stderr of the stores:\n", stores.err);
    CHECK(stores.out == "sync: cudaErrorIllegalAddress\n");
    CHECK(contains(stores.err,
                   file + ":" + line("store") + " (in put, called at :" + line("second put") + ") by thread"));
    // an asynchronous copy is placed at the line <cuda_pipeline.h> passes by name: the helper's, without its call
    const Run copies = run({(scratch_dir() / "helper_call_sites").string(), "copy"});
    INFO("stderr of the copies:\n", copies.err);
    CHECK(copies.out == "sync: cudaErrorIllegalAddress\n");
    CHECK(contains(copies.err, file + ":" + line("copy") + " by thread"));
}

TEST_CASE("host code in a .cu that dereferences a device pointer gets a host-access warning") {
    const std::string source =
        "#include <cstdio>\n"
        "int main() {\n"
        "    int* d_counter = nullptr;\n"
        "    cudaMalloc(&d_counter, sizeof(int));\n"
        "    cudaMemset(d_counter, 0, sizeof(int));\n"
        "    const int value = *d_counter;  // [line: host_read]\n"
        "    std::printf(\"value: %d\\n\", value);\n"
        "    return 0;\n"
        "}\n";
    const Run build = emucc_build("host_access", source);
    INFO("emucc stderr:\n", build.err);
    REQUIRE(build.exit_code == 0);
    const Run r = run({(scratch_dir() / "host_access").string()});
    INFO("stderr:\n", r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == "value: 0\n");
    CHECK(contains(r.err, "host_access.cu:" + std::to_string(marked_line(source, "host_read", "host_access.cu")) +
                              ": cudaemu: host-access"));
    CHECK(contains(r.err, "'d_counter'"));
    CHECK(count_of(r.err, "\n") == 1);  // one warning, once
}

TEST_CASE(
    "programs/error_registered_host_oob.cu: the report names the registered variable and where it was registered") {
    const Run r = run({program("error_registered_host_oob")});
    INFO("stderr:\n", r.err);
    CHECK(contains(r.err, "element 1000 of 'x' (1000 elements of 4 bytes, registered at "));
    CHECK(contains(r.err, "4 bytes past its end"));
}

TEST_CASE("a kernel reads registered host memory like global memory, and an access just before it is out of bounds") {
    constexpr int n = 1000;
    std::vector<float> host(2 * n + 2048, 0.0f);  // the registered range starts 1024 floats in
    float* in = host.data() + 1024;
    for (int i = 0; i < n; ++i) in[i] = static_cast<float>(3 * i);
    float* d_out = nullptr;
    REQUIRE(cudaMalloc(&d_out, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaHostRegister(in, n * sizeof(float), cudaHostRegisterMapped) == cudaSuccess);
    REQUIRE(copy_floats(in, d_out, n) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<float> got(n);
    REQUIRE(cudaMemcpy(got.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += got[i] != static_cast<float>(3 * i);
    CHECK(wrong == 0);
    // the same copy started one element early reads in[-1], outside the registration
    CHECK(copy_floats(in - 1, d_out, n) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    CHECK(cudaHostUnregister(in) == cudaErrorIllegalAddress);  // sticky, until the reset
    CHECK(cudaDeviceReset() == cudaSuccess);                   // which also ends the registration
    CHECK(cudaHostUnregister(in) == cudaErrorHostMemoryNotRegistered);
    CHECK(cudaGetLastError() == cudaErrorHostMemoryNotRegistered);
}

TEST_CASE("a buffer registered on the launching thread's stack: the kernel's arguments beside it are no overrun") {
    alignas(64) float on_stack[1024];  // the launch's arguments live a little further down this stack
    for (int i = 0; i < 1024; ++i) on_stack[i] = static_cast<float>(i);
    float* d_out = nullptr;
    REQUIRE(cudaMalloc(&d_out, sizeof on_stack) == cudaSuccess);
    REQUIRE(cudaHostRegister(on_stack, sizeof on_stack, cudaHostRegisterMapped) == cudaSuccess);
    CHECK(copy_floats(on_stack, d_out, 1024) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    float back[1024];
    CHECK(cudaMemcpy(back, d_out, sizeof back, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(back[1023] == 1023.0f);
    CHECK(cudaHostUnregister(on_stack) == cudaSuccess);
    CHECK(cudaFree(d_out) == cudaSuccess);
}
