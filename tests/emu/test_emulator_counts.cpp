// test_emulator_counts.cpp: exact traffic counts. kernels.cu's launchers run in process, and
// cudaemu::launches() must report the global and shared bytes each kernel's source implies, per launch, per
// thread, per allocation and per source line; cudaemu::element_counts() must show which words kernel code read
// and wrote, and only those. Last, atomics, in a kernel compiled here with emucc.

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels.h"
#include "test_emulator.h"

using namespace emu_test;

namespace {

// "" when C = A·B within the rounding bound of K float products; otherwise the first bad element.
std::string matmul_mismatch(const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& C,
                            int M, int N, int K) {
    for (int row = 0; row < M; ++row) {
        for (int col = 0; col < N; ++col) {
            double want = 0.0, magnitude = 0.0;
            for (int k = 0; k < K; ++k) {
                const double product = double(A[row * K + k]) * double(B[k * N + col]);
                want += product;
                magnitude += std::fabs(product);
            }
            const double got = C[row * N + col];
            if (!(std::fabs(got - want) <= K * double(FLT_EPSILON) * magnitude)) {
                return "C[" + std::to_string(row) + "][" + std::to_string(col) + "] = " + std::to_string(got) +
                       ", want " + std::to_string(want);
            }
        }
    }
    return "";
}

}  // namespace

// ===============================================================================================================
// Exact counts: one load per element, of every width
// ===============================================================================================================
TEST_CASE("a scalar copy loads and stores 4 bytes per element, and records who wrote each word") {
    for (const int n : {1, 17, COPY_BLOCK - 1, COPY_BLOCK + 1, 1025, 1000}) {  // with a partial last block
        CAPTURE(n);
        std::vector<float> host(n);
        for (int i = 0; i < n; ++i) host[i] = float(i);
        DeviceArray<float> in(host), out(n);
        cudaemu::clear_launches();
        REQUIRE(copy_floats(in.ptr, out.ptr, n) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const cudaemu::LaunchReport& r = only_launch();
        CHECK(r.global_load_bytes == 4ull * n);
        CHECK(r.global_store_bytes == 4ull * n);
        CHECK(r.max_thread_load_bytes == 4);
        CHECK(r.max_thread_store_bytes == 4);
        CHECK(r.shared_load_bytes == 0);
        CHECK(r.diagnostics.empty());
        const cudaemu::ElementCounts reads = cudaemu::element_counts(in.ptr);
        const cudaemu::ElementCounts writes = cudaemu::element_counts(out.ptr);
        CHECK(first_mismatch(reads.reads, n, [](size_t) { return 1u; }) == "");
        CHECK(first_mismatch(reads.writes, n, [](size_t) { return 0u; }) == "");
        CHECK(first_mismatch(writes.writes, n, [](size_t) { return 1u; }) == "");
        CHECK(first_mismatch(writes.reads, n, [](size_t) { return 0u; }) == "");
        CHECK(first_mismatch(writes.writer_block, n, [](size_t i) { return int64_t(i / COPY_BLOCK); }) == "");
        CHECK(first_mismatch(reads.writer_block, n, [](size_t) { return int64_t(-1); }) == "");
        CHECK(first_mismatch(out.to_host(), n, [&](size_t i) { return host[i]; }) == "");
    }
}

TEST_CASE("float2 and float4 accesses count 8 and 16 bytes, each word once") {
    const int n = 1025;
    CAPTURE(n);
    SUBCASE("float2") {
        DeviceArray<float2> in(std::vector<float2>(n, float2{1.0f, 2.0f})), out(n);
        cudaemu::clear_launches();
        REQUIRE(copy_float2(in.ptr, out.ptr, n) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const cudaemu::LaunchReport& r = only_launch();
        CHECK(r.global_load_bytes == sizeof(float2) * n);
        CHECK(r.global_store_bytes == sizeof(float2) * n);
        CHECK(r.max_thread_load_bytes == sizeof(float2));
        const size_t words = n * sizeof(float2) / 4;
        CHECK(first_mismatch(cudaemu::element_counts(in.ptr).reads, words, [](size_t) { return 1u; }) == "");
        CHECK(first_mismatch(cudaemu::element_counts(out.ptr).writes, words, [](size_t) { return 1u; }) == "");
    }
    SUBCASE("float4") {
        DeviceArray<float4> in(std::vector<float4>(n, float4{1.0f, 2.0f, 3.0f, 4.0f})), out(n);
        cudaemu::clear_launches();
        REQUIRE(copy_float4(in.ptr, out.ptr, n) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const cudaemu::LaunchReport& r = only_launch();
        CHECK(r.global_load_bytes == sizeof(float4) * n);
        CHECK(r.global_store_bytes == sizeof(float4) * n);
        CHECK(r.max_thread_load_bytes == sizeof(float4));
        const size_t words = n * sizeof(float4) / 4;
        CHECK(first_mismatch(cudaemu::element_counts(in.ptr).reads, words, [](size_t) { return 1u; }) == "");
        CHECK(first_mismatch(cudaemu::element_counts(out.ptr).writes, words, [](size_t) { return 1u; }) == "");
        CHECK(first_mismatch(cudaemu::element_counts(out.ptr).writer_block, words,
                             [](size_t w) { return int64_t(w / 4 / COPY_BLOCK); }) == "");
    }
}

TEST_CASE("char and double accesses count 1 and 8 bytes") {
    const int n = 1023;  // chars: the last word is only partly covered
    CAPTURE(n);
    SUBCASE("char") {
        DeviceArray<char> in(std::vector<char>(n, 'x')), out(n);
        cudaemu::clear_launches();
        REQUIRE(copy_chars(in.ptr, out.ptr, n) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const cudaemu::LaunchReport& r = only_launch();
        CHECK(r.global_load_bytes == uint64_t(n));
        CHECK(r.global_store_bytes == uint64_t(n));
        CHECK(r.max_thread_load_bytes == 1);
        // a 4-byte word holds 4 chars, so it is touched by one load per char in it
        const size_t words = ceil_div(n, 4);
        CHECK(first_mismatch(cudaemu::element_counts(in.ptr).reads, words,
                             [&](size_t w) { return uint32_t(std::min<size_t>(4, n - 4 * w)); }) == "");
    }
    SUBCASE("double") {
        DeviceArray<double> in(std::vector<double>(n, 0.5)), out(n);
        cudaemu::clear_launches();
        REQUIRE(copy_doubles(in.ptr, out.ptr, n) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const cudaemu::LaunchReport& r = only_launch();
        CHECK(r.global_load_bytes == sizeof(double) * n);
        CHECK(r.global_store_bytes == sizeof(double) * n);
        CHECK(r.max_thread_load_bytes == sizeof(double));
        const size_t words = n * sizeof(double) / 4;
        CHECK(first_mismatch(cudaemu::element_counts(in.ptr).reads, words, [](size_t) { return 1u; }) == "");
    }
}

TEST_CASE("a struct copied from global memory counts the struct's size") {
    static_assert(sizeof(Vec3) % 16 != 0, "the struct should not be a whole number of 16-byte chunks");
    const int n = 300;
    CAPTURE(n);
    CAPTURE(sizeof(Vec3));
    DeviceArray<Vec3> in(std::vector<Vec3>(n, Vec3{1.0f, 2.0f, 3.0f})), out(n);
    cudaemu::clear_launches();
    REQUIRE(copy_vec3(in.ptr, out.ptr, n) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const cudaemu::LaunchReport& r = only_launch();
    CHECK(r.global_load_bytes == sizeof(Vec3) * n);
    CHECK(r.global_store_bytes == sizeof(Vec3) * n);
    CHECK(r.max_thread_load_bytes == sizeof(Vec3));
    const size_t words = n * sizeof(Vec3) / 4;
    CHECK(first_mismatch(cudaemu::element_counts(in.ptr).reads, words, [](size_t) { return 1u; }) == "");
    CHECK(first_mismatch(cudaemu::element_counts(out.ptr).writes, words, [](size_t) { return 1u; }) == "");
}

// ===============================================================================================================
// Exact counts: loads the source makes a known number of times
// ===============================================================================================================
TEST_CASE("a load only some threads make counts only for them: even threads only") {
    for (const int n : {1, 1024, 1025}) {
        CAPTURE(n);
        DeviceArray<float> in(std::vector<float>(n, 1.0f)), out(n);
        cudaemu::clear_launches();
        REQUIRE(copy_even_floats(in.ptr, out.ptr, n) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const cudaemu::LaunchReport& r = only_launch();
        const uint64_t evens = ceil_div(n, 2);  // 0, 2, 4, ... < n
        CHECK(r.global_load_bytes == 4 * evens);
        CHECK(r.global_store_bytes == 4 * evens);
        CHECK(first_mismatch(cudaemu::element_counts(in.ptr).reads, n, [](size_t i) { return i % 2 == 0 ? 1u : 0u; }) ==
              "");
    }
}

TEST_CASE("every load in the source counts: in[i] + in[i] is two loads") {
    const int n = 1000;
    CAPTURE(n);
    DeviceArray<float> in(std::vector<float>(n, 1.5f)), out(n);
    cudaemu::clear_launches();
    REQUIRE(add_to_itself(in.ptr, out.ptr, n) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const cudaemu::LaunchReport& r = only_launch();
    CHECK(r.global_load_bytes == 2ull * 4 * n);
    CHECK(r.global_store_bytes == 4ull * n);
    CHECK(r.max_thread_load_bytes == 2 * 4);
    CHECK(first_mismatch(cudaemu::element_counts(in.ptr).reads, n, [](size_t) { return 2u; }) == "");
    CHECK(first_mismatch(out.to_host(), n, [](size_t) { return 3.0f; }) == "");
}

TEST_CASE("a loop that reads the same element k times counts k loads") {
    const int n = 300;
    for (const int repeats : {0, 1, 7}) {
        CAPTURE(n);
        CAPTURE(repeats);
        DeviceArray<float> in(std::vector<float>(n, 1.0f)), out(n);
        cudaemu::clear_launches();
        REQUIRE(sum_repeated(in.ptr, out.ptr, n, repeats) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const cudaemu::LaunchReport& r = only_launch();
        CHECK(r.global_load_bytes == 4ull * n * repeats);
        CHECK(r.max_thread_load_bytes == 4ull * repeats);
        CHECK(first_mismatch(cudaemu::element_counts(in.ptr).reads, n, [&](size_t) { return uint32_t(repeats); }) ==
              "");
        CHECK(first_mismatch(out.to_host(), n, [&](size_t) { return float(repeats); }) == "");
    }
}

// ===============================================================================================================
// Exact counts: matrix multiplication, per launch, per thread, per allocation
// ===============================================================================================================
TEST_CASE("naive matmul reads 2·M·N·K floats: K of A and K of B per thread, named per allocation") {
    const int M = 5, N = 7, K = 3;
    CAPTURE(M);
    CAPTURE(N);
    CAPTURE(K);
    const std::vector<float> A = random_floats(M * K, 1), B = random_floats(K * N, 2);
    float *d_A = nullptr, *d_B = nullptr, *d_C = nullptr;
    REQUIRE(cudaMalloc(&d_A, A.size() * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_B, B.size() * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_C, M * N * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemcpy(d_A, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(d_B, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);

    cudaemu::clear_launches();
    REQUIRE(matmul_naive(d_A, d_B, d_C, M, N, K) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const cudaemu::LaunchReport& r = only_launch();
    CHECK(r.global_load_bytes == 2ull * M * N * K * sizeof(float));
    CHECK(r.global_store_bytes == 1ull * M * N * sizeof(float));
    CHECK(r.max_thread_load_bytes == 2ull * K * sizeof(float));
    CHECK(r.max_thread_store_bytes == sizeof(float));
    CHECK(r.diagnostics.empty());

    // every element of A is read once per column of C, every element of B once per row of C
    CHECK(first_mismatch(cudaemu::element_counts(d_A).reads, A.size(), [&](size_t) { return uint32_t(N); }) == "");
    CHECK(first_mismatch(cudaemu::element_counts(d_B).reads, B.size(), [&](size_t) { return uint32_t(M); }) == "");
    CHECK(first_mismatch(cudaemu::element_counts(d_C).writes, M * N, [](size_t) { return 1u; }) == "");

    // allocations the kernel touched, in allocation order, named after the variable given to cudaMalloc
    REQUIRE(r.allocations.size() == 3);
    CHECK(r.allocations[0].name == "d_A");
    CHECK(r.allocations[0].bytes == A.size() * sizeof(float));
    CHECK(r.allocations[0].load_bytes == 1ull * M * N * K * sizeof(float));
    CHECK(r.allocations[0].store_bytes == 0);
    CHECK(r.allocations[1].name == "d_B");
    CHECK(r.allocations[1].load_bytes == 1ull * M * N * K * sizeof(float));
    CHECK(r.allocations[2].name == "d_C");
    CHECK(r.allocations[2].load_bytes == 0);
    CHECK(r.allocations[2].store_bytes == 1ull * M * N * sizeof(float));

    // global loads by source line and allocation: both matrices are read on the dot product's line
    REQUIRE(r.line_loads.size() == 2);
    for (const cudaemu::LineTraffic& l : r.line_loads) {
        CAPTURE(l.allocation);
        CHECK(contains(l.file, "kernels.cu"));
        CHECK(l.line == 93);
        CHECK(l.load_bytes == 1ull * M * N * K * sizeof(float));
    }
    CHECK(r.line_loads[0].allocation == "d_A");
    CHECK(r.line_loads[1].allocation == "d_B");

    std::vector<float> C(M * N);
    REQUIRE(cudaMemcpy(C.data(), d_C, C.size() * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(matmul_mismatch(A, B, C, M, N, K) == "");

    SUBCASE("name_allocation renames an allocation in later reports") {
        cudaemu::name_allocation(d_B, "weights");
        cudaemu::clear_launches();
        REQUIRE(matmul_naive(d_A, d_B, d_C, M, N, K) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        REQUIRE(only_launch().allocations.size() == 3);
        CHECK(only_launch().allocations[0].name == "d_A");
        CHECK(only_launch().allocations[1].name == "weights");
    }
    CHECK(cudaFree(d_A) == cudaSuccess);
    CHECK(cudaFree(d_B) == cudaSuccess);
    CHECK(cudaFree(d_C) == cudaSuccess);
}

TEST_CASE("boundary-safe tiled matmul at 55×48·48×43: exact global and shared traffic, no diagnostics") {
    const int M = 55, K = 48, N = 43;
    CAPTURE(M);
    CAPTURE(N);
    CAPTURE(K);
    const std::vector<float> A = random_floats(M * K, 3), B = random_floats(K * N, 4);
    DeviceArray<float> d_A(A), d_B(B), d_C(M * N);
    cudaemu::clear_launches();
    REQUIRE(matmul_tiled(d_A.ptr, d_B.ptr, d_C.ptr, M, N, K) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const cudaemu::LaunchReport& r = only_launch();

    // each block column reads all of A's rows it covers, each block row all of B's columns it covers
    const uint64_t floats_read = uint64_t(M) * K * ceil_div(N, TILE_WIDTH) + uint64_t(K) * N * ceil_div(M, TILE_WIDTH);
    CHECK(r.global_load_bytes == floats_read * sizeof(float));       // cross-check: 64,704 bytes at these sizes
    CHECK(r.global_store_bytes == uint64_t(M) * N * sizeof(float));  // cross-check: 9,460 bytes
    const uint64_t phases = ceil_div(K, TILE_WIDTH);
    CHECK(r.max_thread_load_bytes == 2 * phases * sizeof(float));

    // per phase, every thread of every block stores one element of each tile and reads a row and a column
    const uint64_t thread_phases =
        uint64_t(ceil_div(M, TILE_WIDTH)) * ceil_div(N, TILE_WIDTH) * TILE_WIDTH * TILE_WIDTH * phases;
    CHECK(r.shared_store_bytes == thread_phases * 2 * sizeof(float));
    CHECK(r.shared_load_bytes == thread_phases * 2 * TILE_WIDTH * sizeof(float));

    INFO(all_messages(r));
    CHECK(diagnostics_of_kind(r, "race").empty());
    CHECK(diagnostics_of_kind(r, "uninitialised").empty());
    CHECK(r.diagnostics.empty());
    CHECK(matmul_mismatch(A, B, d_C.to_host(), M, N, K) == "");
}

TEST_CASE("shared memory traffic of a block reverse: one 4-byte store and one load per thread") {
    const int blocks = 3;
    const int n = blocks * SHARED_BLOCK;
    CAPTURE(n);
    std::vector<float> host(n);
    for (int i = 0; i < n; ++i) host[i] = float(i);
    DeviceArray<float> in(host), out(n);
    cudaemu::clear_launches();
    REQUIRE(reverse_blocks(in.ptr, out.ptr, blocks) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const cudaemu::LaunchReport& r = only_launch();
    CHECK(r.shared_store_bytes == 4ull * n);
    CHECK(r.shared_load_bytes == 4ull * n);
    CHECK(r.global_load_bytes == 4ull * n);
    CHECK(r.global_store_bytes == 4ull * n);
    CHECK(r.diagnostics.empty());
    CHECK(first_mismatch(out.to_host(), n, [&](size_t i) {
              return host[i / SHARED_BLOCK * SHARED_BLOCK + SHARED_BLOCK - 1 - i % SHARED_BLOCK];
          }) == "");
}

// ===============================================================================================================
// Anti-cheat: element counts show what kernel code wrote, and only that
// ===============================================================================================================
TEST_CASE("element counts show which words kernel code wrote; copies and memsets write none") {
    const int n = 1000;
    CAPTURE(n);
    const std::vector<float> host(n, 2.0f);
    DeviceArray<float> in(host), by_kernel(n), by_copy(n), by_memset(n);
    REQUIRE(copy_even_floats(in.ptr, by_kernel.ptr, n) == cudaSuccess);
    REQUIRE(cudaMemcpy(by_copy.ptr, host.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(by_copy.ptr, in.ptr, n * sizeof(float), cudaMemcpyDeviceToDevice) == cudaSuccess);
    REQUIRE(cudaMemset(by_memset.ptr, 0, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);

    const cudaemu::ElementCounts kernel = cudaemu::element_counts(by_kernel.ptr);
    CHECK(first_mismatch(kernel.writes, n, [](size_t i) { return i % 2 == 0 ? 1u : 0u; }) == "");
    CHECK(first_mismatch(kernel.writer_block, n,
                         [](size_t i) { return i % 2 == 0 ? int64_t(i / COPY_BLOCK) : int64_t(-1); }) == "");
    for (const float* copied : {by_copy.ptr, by_memset.ptr}) {
        const cudaemu::ElementCounts c = cudaemu::element_counts(copied);
        CHECK(first_mismatch(c.writes, n, [](size_t) { return 0u; }) == "");
        CHECK(first_mismatch(c.reads, n, [](size_t) { return 0u; }) == "");
        CHECK(first_mismatch(c.writer_block, n, [](size_t) { return int64_t(-1); }) == "");
    }
    // cudaMemcpy reading `in` did not count as a kernel read either: only copy_even_floats' loads did
    CHECK(first_mismatch(cudaemu::element_counts(in.ptr).reads, n, [](size_t i) { return i % 2 == 0 ? 1u : 0u; }) ==
          "");

    cudaemu::reset_element_counts(by_kernel.ptr);
    const cudaemu::ElementCounts cleared = cudaemu::element_counts(by_kernel.ptr);
    CHECK(first_mismatch(cleared.writes, n, [](size_t) { return 0u; }) == "");
    CHECK(first_mismatch(cleared.writer_block, n, [](size_t) { return int64_t(-1); }) == "");
}

// ===============================================================================================================
// Atomics: a load and a store each, compiled here with emucc
// ===============================================================================================================
TEST_CASE("atomics count a load and a store of their width each, and are never a race with one another") {
    const int threads = 64;
    const Run build = emucc_build("atomic_counts",
                                  "#include <cstdio>\n"
                                  "__global__ void k(unsigned long long* g, int* out) {\n"
                                  "    __shared__ int s;\n"
                                  "    if (threadIdx.x == 0) s = 0;\n"
                                  "    __syncthreads();\n"
                                  "    atomicCAS(g, 0ull, 1ull);\n"
                                  "    atomicExch(&s, (int)threadIdx.x);\n"
                                  "    atomicMax(&s, 0);\n"
                                  "    __syncthreads();\n"
                                  "    if (threadIdx.x == 0) out[0] = s;\n"
                                  "}\n"
                                  "int main() {\n"
                                  "    unsigned long long* g; int* out;\n"
                                  "    cudaMalloc(&g, 8); cudaMalloc(&out, 4); cudaMemset(g, 0, 8);\n"
                                  "    k<<<1, " +
                                      std::to_string(threads) +
                                      ">>>(g, out);\n"
                                      "    unsigned long long v = 0; cudaMemcpy(&v, g, 8, cudaMemcpyDeviceToHost);\n"
                                      "    std::printf(\"g: %llu\\n\", v);\n"
                                      "    return 0;\n"
                                      "}\n");
    INFO("emucc stderr:\n", build.err);
    REQUIRE(build.exit_code == 0);
    const Run r = run({(scratch_dir() / "atomic_counts").string()});
    INFO("stderr:\n", r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == "g: 1\n");
    REQUIRE(r.stats.size() == 1);
    const std::string& line = r.stats[0];
    CAPTURE(line);
    CHECK(json_number(line, "global_load_bytes") == threads * 8);           // atomicCAS on 8 bytes
    CHECK(json_number(line, "global_store_bytes") == threads * 8 + 4);      // ... and out[0]
    CHECK(json_number(line, "shared_load_bytes") == threads * 2 * 4 + 4);   // two 4-byte atomics, s read
    CHECK(json_number(line, "shared_store_bytes") == 4 + threads * 2 * 4);  // s = 0, two atomics
    CHECK(contains(line, "\"errors\": []"));
}
