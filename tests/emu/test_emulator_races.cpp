// test_emulator_races.cpp: races, barriers and shared memory read before it is written. A missing
// __syncthreads() is one race finding that says where the barrier goes; a divergent barrier fails the launch and
// never hangs; a read of shared memory no thread wrote is kind uninitialised; cuda::barrier and <cuda_pipeline.h>
// order accesses (or fail to) as on a GPU; and a race is reported the same with 1 and 2 worker threads.

#include <string>
#include <vector>

#include "kernels.h"
#include "test_emulator.h"

using namespace emu_test;

// ===============================================================================================================
// Diagnostics, in process
// ===============================================================================================================
TEST_CASE("a missing barrier in the tiled matmul is a race between the tile store and the tile read") {
    const int M = 55, K = 48, N = 43;
    const std::vector<float> A = random_floats(M * K, 5), B = random_floats(K * N, 6);
    DeviceArray<float> d_A(A), d_B(B), d_C(M * N);
    TileBarriers barriers;
    SUBCASE("first barrier missing: reads race with this phase's stores") { barriers.after_loads = false; }
    SUBCASE("second barrier missing: the next phase's stores race with this phase's reads") {
        barriers.after_use = false;
    }
    CAPTURE(barriers.after_loads);
    CAPTURE(barriers.after_use);
    cudaemu::clear_launches();
    REQUIRE(matmul_tiled(d_A.ptr, d_B.ptr, d_C.ptr, M, N, K, barriers) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);  // a race is reported, but it is not an error code
    const cudaemu::LaunchReport& r = only_launch();
    INFO(all_messages(r));
    // one finding for the barrier interval, naming every line that raced and where the missing barrier goes
    const std::vector<cudaemu::Diagnostic> races = diagnostics_of_kind(r, "race");
    REQUIRE(races.size() == 1);
    const cudaemu::Diagnostic& d = races[0];
    CHECK(contains(d.file, "kernels.cu"));
    CHECK(d.line > 0);
    const std::string read = ":" + std::to_string(kernels_line("tile_read"));
    for (const std::string store : {"tile_store_A", "tile_store_B"})
        CHECK(contains(d.message, ":" + std::to_string(kernels_line(store))));
    if (!barriers.after_loads) {  // after the loads, before the multiply
        CHECK(contains(d.message, "and before " + read + " orders them"));
        CHECK(!contains(d.message, "end of the loop body"));
    } else {  // after the multiply, before the loop comes back to the loads
        CHECK(contains(d.message, "A __syncthreads() after " + read +
                                      " and before :" + std::to_string(kernels_line("tile_store_A")) +
                                      " orders them: at the end of the loop body"));
    }
}

TEST_CASE("a divergent barrier is reported as kind barrier, fails the launch, and never hangs") {
    const ResetDeviceAtEnd reset_at_end;
    const int n = SHARED_BLOCK;
    DeviceArray<float> in(std::vector<float>(n, 1.0f)), out(n);
    cudaemu::clear_launches();
    std::vector<std::string> lines;
    SUBCASE("half the block returns before __syncthreads()") {
        CHECK(barrier_after_early_exit(in.ptr, out.ptr) == cudaSuccess);
        lines = {kernels_at("early_exit_barrier")};
    }
    SUBCASE("even and odd threads wait at two different __syncthreads()") {
        CHECK(barrier_in_both_branches(in.ptr, out.ptr) == cudaSuccess);
        lines = {kernels_at("even_barrier"), kernels_at("odd_barrier")};
    }
    const cudaemu::LaunchReport& r = only_launch();
    INFO(all_messages(r));
    CHECK(r.error == cudaErrorLaunchFailure);
    const std::vector<cudaemu::Diagnostic> barrier = diagnostics_of_kind(r, "barrier");
    CHECK(barrier.size() == 1);
    for (const cudaemu::Diagnostic& d : barrier) {
        CHECK(contains(d.message, "divergent barrier"));
        for (const std::string& line : lines) CHECK(contains(d.message, line));
    }
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
    CHECK(cudaGetLastError() == cudaErrorLaunchFailure);  // sticky
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
}

TEST_CASE("reading shared memory no thread wrote is reported as kind uninitialised") {
    const int n = SHARED_BLOCK;
    DeviceArray<float> in(std::vector<float>(n, 1.0f)), out(n);
    cudaemu::clear_launches();
    REQUIRE(read_unwritten_shared(in.ptr, out.ptr) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);  // reported, but not an error code
    const cudaemu::LaunchReport& r = only_launch();
    INFO(all_messages(r));
    const std::vector<cudaemu::Diagnostic> uninit = diagnostics_of_kind(r, "uninitialised");
    REQUIRE(uninit.size() == 1);
    CHECK(contains(uninit[0].file, "kernels.cu"));
    CHECK(uninit[0].line == kernels_line("unwritten_read"));
    CHECK(contains(uninit[0].message, "'half_filled'"));
    CHECK(contains(uninit[0].message, "thread (" + std::to_string(SHARED_BLOCK / 2) + ",0,0)"));  // the first reader
    CHECK(diagnostics_of_kind(r, "race").empty());
}

TEST_CASE("two lines storing one element ask about their indices; a barrier only where one value replaces another") {
    SUBCASE("the two branches of one if index the tile apart: no barrier is offered between them") {
        const int n = TILE_WIDTH * TILE_WIDTH;
        DeviceArray<float> in(std::vector<float>(n, 1.0f)), out(n);
        cudaemu::clear_launches();
        REQUIRE(fill_tile_by_branches(in.ptr, out.ptr, TILE_WIDTH / 2) == cudaSuccess);
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        const cudaemu::LaunchReport& r = only_launch();
        INFO(all_messages(r));
        const std::vector<cudaemu::Diagnostic> races = diagnostics_of_kind(r, "race");
        REQUIRE(races.size() == 1);
        CHECK(contains(races[0].message, "both write 'tile'"));
        CHECK(contains(races[0].message, "Both accesses store (:" + std::to_string(kernels_line("branch_load")) +
                                             " and :" + std::to_string(kernels_line("branch_zero")) +
                                             "): do their indices give two threads the same element"));
        CHECK(contains(races[0].message, "Two branches of one if that fill an array must index it alike"));
        // the element one branch should have stored is unwritten; reading it follows from the collision
        CHECK(diagnostics_of_kind(r, "uninitialised").empty());
    }
    SUBCASE("a slot cleared by one thread and stored by another: the barrier between the lines is named") {
        DeviceArray<float> in(std::vector<float>(SHARED_BLOCK, 1.0f)), out(SHARED_BLOCK);
        cudaemu::clear_launches();
        REQUIRE(clear_then_store(in.ptr, out.ptr) == cudaSuccess);
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        const cudaemu::LaunchReport& r = only_launch();
        INFO(all_messages(r));
        const std::vector<cudaemu::Diagnostic> races = diagnostics_of_kind(r, "race");
        REQUIRE(races.size() == 1);
        const std::string clear = ":" + std::to_string(kernels_line("clear_slot")),
                          store = ":" + std::to_string(kernels_line("store_slot"));
        CHECK(contains(races[0].message, "do their indices give two threads the same element"));
        CHECK(contains(races[0].message,
                       "Only if one value is meant to replace the other does a __syncthreads() "
                       "after " +
                           clear + " and before " + store + " order them"));
    }
}

// ===============================================================================================================
// Races in programs: the same with 1 and 2 worker threads
// ===============================================================================================================
TEST_CASE("races are reported identically with 1 and 2 worker threads") {
    const Run one = run({program("error_race_missing_barrier")}, Settings{/*threads*/ "1"});
    const Run two = run({program("error_race_missing_barrier")}, Settings{/*threads*/ "2"});
    CHECK(count_of(one.err, "cudaemu: race") >= 1);
    CHECK(contains(one.err, "A __syncthreads() after :15 and before :17 orders them"));  // where the barrier goes
    CHECK(one.err == two.err);
    CHECK(one.stats == two.stats);
    CHECK(one.out == two.out);
}

TEST_CASE("a double buffer's store into the stage being read asks about the stage, not for a second barrier") {
    // One block of 64 threads walks 4 tiles: each pass reads another thread's element of stage tile % stages (in
    // `rows_of_one_tile`, of row 0 or 1 by the thread's parity), then stores the next tile (at the case's index), with
    // one __syncthreads() per pass, at its end (line 12).
    struct Case {
        const char* name;
        int stages;           // the buffer's first dimension; 0: a buffer without one
        const char* read;     // the read's first index
        const char* store;    // the store's first index
        const char* wording;  // "": no race
        bool asks_stage;      // the wording is the stage question
    };
    const Case cases[] = {
        // the bug: the next tile goes into the stage this pass reads
        {"stage_being_read", 2, "[s]", "[s]",
         "'buf' has 2 stages (the first dimension), and in one pass :10 reads a stage that :11 then writes: a pass "
         "of a double buffer writes only a stage it does not read. Should :11 write the other stage, or :10 read "
         "the other one? (If one stage is meant, a __syncthreads() after :10 and before :11 orders them.)",
         true},
        {"stage_being_read_of_three", 3, "[s]", "[s]", "Should :11 write another stage, or :10 read another?", true},
        {"other_stage", 2, "[s]", "[(s + 1) % 2]", "", false},  // the double buffer as meant
        // one buffer: a barrier between the read and the store is the fix
        {"one_buffer", 0, "", "", "A __syncthreads() after :10 and before :11 orders them", false},
        // a first dimension of 8 is no count of stages: rows of a tile
        {"rows", 8, "[s]", "[s]", "A __syncthreads() after :10 and before :11 orders them", false},
        // nor is one of 4 whose rows a pass reads together: one tile of BK = 4 rows, single-buffered
        {"rows_of_one_tile", 4, "[t & 1]", "[s]", "A __syncthreads() after :10 and before :11 orders them", false},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        const std::string n = std::to_string(c.stages);
        const std::string first = c.stages == 4 ? "[0][t] = buf[1]" : c.stages ? "[0]" : "";  // rows 0 and 1 filled
        const std::string source =
            "#include <cstdio>\n"
            "__global__ void passes(const float* in, float* out, int tiles) {\n"
            "    __shared__ float buf" +
            (c.stages ? "[" + n + "]" : "") +
            "[64];\n"
            "    const int t = threadIdx.x;\n"
            "    buf" +
            first +
            "[t] = in[t];\n"
            "    float sum = 0.0f;\n"
            "    __syncthreads();\n"
            "    for (int tile = 0; tile < tiles; ++tile) {\n"
            "        const int s = tile % " +
            (c.stages ? n : "1") +
            ";\n"
            "        sum += buf" +
            c.read +
            "[63 - t] + float(s);\n"
            "        if (tile + 1 < tiles) buf" +
            c.store +
            "[t] = in[(tile + 1) * 64 + t];\n"
            "        __syncthreads();\n"
            "    }\n"
            "    out[t] = sum;\n"
            "}\n"
            "int main() {\n"
            "    float *in, *out;\n"
            "    cudaMalloc(&in, 4 * 64 * sizeof(float));\n"
            "    cudaMalloc(&out, 64 * sizeof(float));\n"
            "    cudaMemset(in, 0, 4 * 64 * sizeof(float));\n"
            "    passes<<<1, 64>>>(in, out, 4);\n"
            "    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;\n"
            "}\n";
        const Run built = emucc_build(c.name, source);
        INFO("stderr:\n", built.err);
        REQUIRE(built.exit_code == 0);
        const Run r = run({(scratch_dir() / c.name).string()});
        INFO("stderr:\n", r.err);
        CHECK(r.exit_code == 0);
        if (std::string(c.wording).empty()) {
            CHECK(!contains(r.err, "cudaemu: race"));
            continue;
        }
        CHECK(count_of(r.err, "cudaemu: race") == 1);
        CHECK(contains(r.err, c.wording));
        CHECK(contains(r.err, "stages") == c.asks_stage);
    }
}

// ===============================================================================================================
// Split barriers and asynchronous copies (<cuda/barrier>, <cuda/pipeline>)
// ===============================================================================================================
TEST_CASE("a barrier wait that never completes names the wait, what it still expects, and the exited threads") {
    const Run r = run({program("error_barrier_wait_never_completes")});
    INFO("stderr:\n", r.err);
    CHECK(contains(r.err, "waits at cuda::barrier::arrive_and_wait() at "));
    CHECK(contains(r.err, "error_barrier_wait_never_completes.cu:23 for a phase that still expects 32 of its 64"));
    CHECK(contains(r.err, "32 have exited"));
    const Run read = run({program("error_async_copy_read_before_wait")});
    INFO("stderr:\n", read.err);
    CHECK(contains(read.err, "error_async_copy_read_before_wait.cu:22: cudaemu: race"));
    CHECK(contains(read.err, "the memcpy_async of thread (63,0,0) at "));
    CHECK(contains(read.err, "wait for the copy first"));  // no wait at all: the wait is what is missing
    // a wait that left the batch in flight on purpose: the count, or the buffer read, is what is wrong
    const Run left = run({program("error_async_copy_wait_leaves_batch")});
    INFO("stderr:\n", left.err);
    CHECK(contains(left.err, "error_async_copy_wait_leaves_batch.cu:23: cudaemu: race"));
    CHECK(contains(left.err,
                   "its batch is the newest, which the copying thread's last __pipeline_wait_prior(1) "
                   "left in flight"));
    CHECK(contains(left.err, "or this access is to a buffer still being filled"));
    CHECK(!contains(left.err, "wait for the copy first"));
}

TEST_CASE("cuda::barrier: a use before init() in the block, and a completed phase as an ordering for the races") {
    const Run uninit =
        emucc_build("barrier_no_init",
                    "#include <cuda/barrier>\n"
                    "__global__ void k() {\n"
                    "    __shared__ cuda::barrier<cuda::thread_scope_block> bar;\n"
                    "    bar.arrive_and_wait();\n"
                    "}\n"
                    "int main() { k<<<1, 32>>>(); return cudaDeviceSynchronize() != cudaErrorLaunchFailure; }\n");
    REQUIRE(uninit.exit_code == 0);
    const Run ru = run({(scratch_dir() / "barrier_no_init").string()});
    INFO("stderr:\n", ru.err);
    CHECK(ru.exit_code == 0);
    CHECK(contains(ru.err, "barrier_no_init.cu:4"));
    CHECK(contains(ru.err, "a barrier this block has not initialised"));
    // the same exchange through shared memory: ordered by a phase, a race without one
    const std::string kernel_head =
        "#include <cuda/barrier>\n"
        "__global__ void k(int* out) {\n"
        "    __shared__ cuda::barrier<cuda::thread_scope_block> bar;\n"
        "    __shared__ int s[64];\n"
        "    if (threadIdx.x == 0) init(&bar, blockDim.x);\n"
        "    __syncthreads();\n"
        "    s[threadIdx.x] = threadIdx.x;\n";
    const std::string kernel_tail =
        "    out[threadIdx.x] = s[63 - threadIdx.x];\n"
        "}\n"
        "int main() { int* d; cudaMalloc(&d, 256); k<<<1, 64>>>(d); return cudaDeviceSynchronize(); }\n";
    for (const bool with_wait : {true, false}) {
        CAPTURE(with_wait);
        const std::string name = with_wait ? "barrier_orders" : "barrier_missing";
        REQUIRE(emucc_build(
                    name, kernel_head + (with_wait ? "    bar.arrive_and_wait();\n" : "    (void)bar;\n") + kernel_tail)
                    .exit_code == 0);
        const Run r = run({(scratch_dir() / name).string()});
        INFO("stderr:\n", r.err);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.err, "cudaemu: race") == !with_wait);
    }
}

TEST_CASE("<cuda_pipeline.h>: reading a copy's destination before __pipeline_wait_prior covers it is a race") {
    for (const bool waits : {true, false}) {
        CAPTURE(waits);
        const std::string name = waits ? "primitive_waits" : "primitive_reads_early";
        const std::string source =
            "#include <cuda_pipeline.h>\n"
            "__global__ void k(const float* in, float* out) {\n"
            "    __shared__ float tile[32];\n"
            "    __pipeline_memcpy_async(&tile[threadIdx.x], &in[threadIdx.x], sizeof(float));\n"
            "    __pipeline_commit();\n" +
            std::string(waits ? "    __pipeline_wait_prior(0);\n" : "    (void)0;\n") +
            "    __syncthreads();\n"
            "    out[threadIdx.x] = tile[31 - threadIdx.x];\n"
            "    __pipeline_wait_prior(0);\n"
            "}\n"
            "int main() { float* d; cudaMalloc(&d, 256); k<<<1, 32>>>(d, d + 32); return cudaDeviceSynchronize(); }\n";
        REQUIRE(emucc_build(name, source).exit_code == 0);
        const Run r = run({(scratch_dir() / name).string()});
        INFO("stderr:\n", r.err);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.err, name + ".cu:8: cudaemu: race") == !waits);
        if (!waits) CHECK(contains(r.err, name + ".cu:4 may still be filling"));
    }
}

TEST_CASE(
    "<cuda_pipeline.h>: a pass that copies into the buffer it reads is asked about the copy's index, not a wait") {
    for (const int ahead : {1, 2}) {  // 1: the next slice into the other buffer; 2: into the buffer this pass reads
        CAPTURE(ahead);
        const std::string name = "primitive_next_" + std::to_string(ahead);
        const std::string source =
            "#include <cuda_pipeline.h>\n"
            "__global__ void k(const float* in, float* out, int tiles, int ahead) {\n"
            "    __shared__ float buf[2][32];\n"
            "    const int t = threadIdx.x;\n"
            "    __pipeline_memcpy_async(&buf[0][t], &in[t], sizeof(float));\n"
            "    __pipeline_commit();\n"
            "    float sum = 0.0f;\n"
            "    for (int tile = 0; tile < tiles; ++tile) {\n"
            "        __pipeline_wait_prior(0);\n"
            "        __syncthreads();\n"
            "        const int next = tile + ahead;\n"
            "        if (next < tiles) __pipeline_memcpy_async(&buf[next % 2][t], &in[next * 32 + t], 4);\n"
            "        __pipeline_commit();\n"
            "        sum += buf[tile % 2][31 - t];\n"
            "        __syncthreads();\n"
            "    }\n"
            "    out[t] = sum;\n"
            "}\n"
            "int main() {\n"
            "    float* d;\n"
            "    cudaMalloc(&d, 160 * sizeof(float));\n"
            "    cudaMemset(d, 0, 160 * sizeof(float));\n"
            "    k<<<1, 32>>>(d, d + 128, 4, " +
            std::to_string(ahead) +
            ");\n"
            "    return cudaDeviceSynchronize();\n"
            "}\n";
        REQUIRE(emucc_build(name, source).exit_code == 0);
        const Run r = run({(scratch_dir() / name).string()});
        INFO("stderr:\n", r.err);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.err, name + ".cu:14: cudaemu: race") == (ahead == 2));
        if (ahead == 2) {
            CHECK(contains(r.err,
                           "the copy was issued in this pass, after the copying thread's last "
                           "__pipeline_wait_prior and the block's last __syncthreads()"));
            CHECK(contains(r.err, "does the copy's index (its stage or slice) pick the buffer this pass reads?"));
            CHECK(!contains(r.err, "wait for the copy first"));
            CHECK(!contains(r.err, "missing?"));
        }
    }
}
