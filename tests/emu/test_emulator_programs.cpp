// test_emulator_programs.cpp: whole programs and what they report. Every feature program runs cleanly; every error
// program gets the right error names and its diagnostic on stderr and in the stats; results do not depend on the
// number of worker threads; CUDAEMU_STATS writes one JSON line per launch with exact counts; the watchdog stops a
// kernel that never ends.

#include <algorithm>
#include <array>
#include <functional>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test_emulator.h"

using namespace emu_test;

namespace {

// The names of tests/emu/programs/*.cu, sorted
std::vector<std::string> program_names() {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(kTestDir / "programs"))
        if (entry.path().extension() == ".cu") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    REQUIRE(!names.empty());
    return names;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

std::string dims_json(const char* key, dim3 d) {
    return "\"" + std::string(key) + "\": [" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " +
           std::to_string(d.z) + "]";
}

}  // namespace

// ===============================================================================================================
// Programs: correct ones, error ones
// ===============================================================================================================
TEST_CASE("every feature program runs cleanly: exit 0, `key: value` lines, no FAIL in any, nothing on stderr") {
    int ran = 0;
    for (const std::string& name : program_names()) {
        if (starts_with(name, "error_") || starts_with(name, "hang_") || name == "device_assert") continue;
        CAPTURE(name);
        const Run r = run({program(name)});
        INFO("stdout:\n", r.out);
        CHECK(r.exit_code == 0);
        CHECK(r.err == "");  // a correct program gets no diagnostics and no warnings
        const std::map<std::string, std::string> out = parse_output(r.out);
        CHECK(!out.empty());
        for (const auto& line : out) {
            INFO(line.first, ": ", line.second);
            CHECK(!contains(line.second, "FAIL"));  // also "(FAIL: not fused)" after a value
        }
        for (const std::string& line : r.stats) CHECK(contains(line, "\"errors\": []"));
        ++ran;
    }
    CHECK(ran > 0);
}

namespace {

// What each error program's faulty launch must produce: the diagnostic kind (on stderr and in the stats) and what
// cudaDeviceSynchronize returns after it. The later calls (cudaMemcpy, cudaGetLastError) return the same.
// (error_sticky.cu has its own test.)
struct ErrorProgram {
    const char* name;
    const char* kind;
    cudaError_t sync;
    size_t launches = 1;
    // worker threads: 1 where which block runs first decides whether a race between blocks is seen (the emulator
    // judges a store against another block's only once that block has ended)
    const char* threads = "2";
};
const ErrorProgram kErrorPrograms[] = {
    {"error_oob_read", "out-of-bounds", cudaErrorIllegalAddress},
    {"error_oob_write", "out-of-bounds", cudaErrorIllegalAddress},
    {"error_use_after_free", "out-of-bounds", cudaErrorIllegalAddress},
    {"error_null_pointer", "out-of-bounds", cudaErrorIllegalAddress},
    {"error_before_first_allocation", "out-of-bounds", cudaErrorIllegalAddress},
    {"error_shared_past_end", "out-of-bounds", cudaErrorIllegalAddress},
    {"error_shared_atomic_past_end", "out-of-bounds", cudaErrorIllegalAddress},
    {"error_barrier_early_exit", "barrier", cudaErrorLaunchFailure},
    {"error_barrier_two_sites", "barrier", cudaErrorLaunchFailure},
    {"error_race_missing_barrier", "race", cudaSuccess},
    {"error_race_in_helper", "race", cudaSuccess},
    {"error_race_same_element", "race", cudaSuccess},
    {"error_uninitialised_shared", "uninitialised", cudaSuccess},
    {"error_misaligned_float4", "misaligned", cudaErrorMisalignedAddress},
    {"error_misaligned_float2", "misaligned", cudaErrorMisalignedAddress},
    {"error_warp_exited_lane", "warp", cudaSuccess},
    {"error_warp_shfl_outside_mask", "warp", cudaSuccess},
    {"error_warp_race_no_syncwarp", "race", cudaSuccess},
    {"error_warp_stuck_collective", "warp", cudaErrorLaunchFailure},
    {"error_dynamic_shared_oob", "out-of-bounds", cudaErrorIllegalAddress},
    {"error_dynamic_shared_uninitialised", "uninitialised", cudaSuccess},
    {"error_registered_host_oob", "out-of-bounds", cudaErrorIllegalAddress},
    {"error_cg_shfl_outside_group", "warp", cudaSuccess},
    {"error_tile_stuck_sync", "warp", cudaErrorLaunchFailure},
    {"error_grid_sync_not_cooperative", "barrier", cudaErrorLaunchFailure},
    {"error_grid_sync_block_exits", "barrier", cudaErrorLaunchFailure},
    {"error_cg_tile_size", "warp", cudaErrorLaunchFailure},
    {"error_barrier_wait_never_completes", "barrier", cudaErrorLaunchFailure},
    {"error_async_copy_read_before_wait", "race", cudaSuccess},
    {"error_async_copy_wait_leaves_batch", "race", cudaSuccess},
    {"error_wmma_lane_skips_collective", "warp", cudaErrorLaunchFailure},
    {"error_wmma_lanes_disagree", "warp", cudaSuccess},
    {"error_wmma_ldm", "misaligned", cudaErrorMisalignedAddress},
    {"error_wmma_oob", "out-of-bounds", cudaErrorIllegalAddress},
    {"error_wmma_race_no_barrier", "race", cudaSuccess},
    {"error_index_outside_dimension", "out-of-bounds", cudaSuccess},
    {"error_index_block_swapped", "out-of-bounds", cudaSuccess},
    {"error_vector_outside_dimension", "out-of-bounds", cudaSuccess},
    {"error_ldmatrix_misaligned", "misaligned", cudaErrorMisalignedAddress},
    {"error_mma_sync_lane_skips", "warp", cudaSuccess},
    {"error_blocks_store_race", "race", cudaSuccess, 2, "1"},
    {"error_blocks_read_race", "race", cudaSuccess, 1, "1"},
};

}  // namespace

TEST_CASE("programs/rodinia_forms.cu: the forms Rodinia's programs write build and run as on the H100") {
    const Run r = run({program("rodinia_forms")});
    INFO("stdout:\n", r.out, "stderr:\n", r.err);
    REQUIRE(r.exit_code == 0);
    const std::map<std::string, std::string> out = parse_output(r.out);
    const std::vector<std::pair<std::string, std::string>> want = {
        {"driver_types_h", "defined"},  // NVIDIA's helper_cuda.h defines checkCudaErrors only then
        {"cuda_runtime_h", "defined"},
        {"reversed_floats", "pass"},  // two kernels' extern __shared__ `buffer_bytes`, as floats and as ints
        {"reversed_ints", "pass"},    // launched `<< <...>> >`, with host variables named gridDim and blockDim
        {"scaled_floats", "pass"},    // one template kernel, its T deduced as float, then as int
        {"scaled_ints", "pass"},
        {"add_no_bias", "cudaSuccess"},  // a literal 0 for a pointer parameter
        {"biased_ints", "pass"},
    };
    check_values(out, want);
}

// Runs programs/NAME and checks each of its `key: value` lines against NAME.h100.out, what the H100 printed; a key
// for which needs_libdevice is true is checked only where emucc found the CUDA Toolkit's libdevice (without it,
// device code calls the host's libm). Returns how many lines are the H100's.
int check_against_h100(const std::string& name, const std::function<bool(const std::string&)>& needs_libdevice) {
    const Run where = run({emucc(), "--print-libdevice"});
    REQUIRE(where.exit_code == 0);
    const Run r = run({program(name)});
    INFO("stdout:\n", r.out, "stderr:\n", r.err);
    REQUIRE(r.exit_code == 0);
    const std::map<std::string, std::string> out = parse_output(r.out);
    const std::map<std::string, std::string> h100 =
        parse_output(read_file(kTestDir / "programs" / (name + ".h100.out")));
    REQUIRE(h100.size() == out.size());
    int same = 0;
    for (const auto& line : h100) {
        const std::string& key = line.first;
        CAPTURE(key);
        REQUIRE(out.count(key) == 1);
        if (where.out != "none\n" || !needs_libdevice(key)) CHECK(out.at(key) == line.second);
        same += out.at(key) == line.second;
    }
    MESSAGE(name, ": libdevice: ", where.out, same, " of ", h100.size(), " lines as the H100 printed them");
    return same;
}

TEST_CASE("programs/math_library.cu: device math gives the H100's bits where the CUDA Toolkit's libdevice is there") {
    // on the host's libm, only the exactly rounded functions agree
    check_against_h100("math_library", [](const std::string& key) {
        return key != "sqrt" && key != "fmod" && key != "launch" && key != "sync";
    });
}

TEST_CASE(
    "programs/host_device_copies.cu: a __host__ __device__ function computes as the host compiler's on the host") {
    check_against_h100("host_device_copies", [](const std::string& key) { return key == "exp"; });  // in kernels
}

TEST_CASE("programs/fma_order.cu: of two products added, the one nvcc ranks lower is fused, as on the H100") {
    check_against_h100("fma_order", [](const std::string&) { return false; });
}

TEST_CASE("programs/min_max_zeros.cu: fminf and fmaxf order -0 below +0 in either operand, as on the H100") {
    check_against_h100("min_max_zeros", [](const std::string&) { return false; });
}

TEST_CASE("programs/integer_division.cu: a division by 0 or of INT_MIN by -1 gives the H100's result, no SIGFPE") {
    check_against_h100("integer_division", [](const std::string&) { return false; });
}

TEST_CASE("programs/integer_shifts.cu: a shift by the width or more clamps as PTX's do, as on the H100") {
    check_against_h100("integer_shifts", [](const std::string&) { return false; });
}

TEST_CASE(
    "programs/pitched_memory.cu: cudaMallocPitch's pitches, 2-D copies and sets, and their errors, as on the H100") {
    check_against_h100("pitched_memory", [](const std::string&) { return false; });
}

TEST_CASE("programs/half_warps_atomics.cu: 16-bit shuffles and atomics, and float2/float4 atomics, as on the H100") {
    check_against_h100("half_warps_atomics", [](const std::string&) { return false; });
}

TEST_CASE("programs/device_assert.cu: a failing assert() in a kernel gives the H100's message and cudaErrorAssert") {
    const Run r = run({program("device_assert")});
    CHECK(r.exit_code == 0);  // the program goes on, as on a GPU
    CHECK(r.out == lines({{"holds", "cudaSuccess"},
                          {"launch", "cudaSuccess"},
                          {"sync", "cudaErrorAssert"},
                          {"memcpy", "cudaErrorAssert"},
                          {"last_error", "cudaErrorAssert"}}));
    // what the H100 printed on standard error, and nothing else
    CHECK(r.err ==
          "tests/emu/programs/device_assert.cu:10: void check_non_negative(const int *): block: [0,0,0], thread: "
          "[17,0,0] Assertion `values[threadIdx.x] >= 0` failed.\n");
}

TEST_CASE("programs/nan_results.cu: a kernel's float arithmetic gives the GPU's NaN, 0x7fffffff") {
    check_against_h100("nan_results", [](const std::string&) { return false; });
}

TEST_CASE("error programs: the right error names after the launch, and the diagnostic on stderr and in the stats") {
    for (const std::string& name : program_names()) {  // a new error program needs a row in the table
        if (!starts_with(name, "error_") || name == "error_sticky") continue;
        CAPTURE(name);
        CHECK(std::count_if(std::begin(kErrorPrograms), std::end(kErrorPrograms),
                            [&](const ErrorProgram& p) { return name == p.name; }) == 1);
    }
    for (const ErrorProgram& p : kErrorPrograms) {
        const std::string name = p.name;
        CAPTURE(name);
        Settings settings;
        settings.threads = p.threads;
        const Run r = run({program(p.name)}, settings);
        INFO("stdout:\n", r.out, "stderr:\n", r.err);
        CHECK(r.exit_code == 0);
        const std::map<std::string, std::string> out = parse_output(r.out);
        CHECK(out.count("launch") == 1);
        if (out.count("launch")) CHECK(out.at("launch") == "cudaSuccess");  // the launch itself is valid
        std::string got_after, want_after;  // one line each, so a wrong error shows once
        for (const std::string after : {"sync", "memcpy", "last_error"}) {
            got_after += after + ": " + (out.count(after) ? out.at(after) : std::string("(missing)")) + "; ";
            want_after += after + ": " + name_of(p.sync) + "; ";
        }
        CHECK(got_after == want_after);
        CHECK(contains(r.err, std::string("cudaemu: ") + p.kind + " in kernel '"));
        CHECK(contains(r.err, std::string(p.name) + ".cu:"));
        REQUIRE(r.stats.size() == p.launches);
        for (const std::string& line : r.stats) {
            CHECK(contains(line, std::string("\"kind\": \"") + p.kind + "\""));
            CHECK(contains(line, "\"error\": \"" + name_of(p.sync) + "\""));
        }

        const Run quiet = run({program(p.name)}, Settings{p.threads, /*timeout*/ "30", /*quiet*/ true});
        CHECK(quiet.err == "");  // CUDAEMU_QUIET silences the diagnostics, and changes nothing else
        CHECK(quiet.out == r.out);
    }
    const Run freed = run({program("error_use_after_free")});
    CHECK(contains(freed.err, "'d_in'"));
    CHECK(contains(freed.err, "freed"));
    const Run misaligned = run({program("error_misaligned_float4")});  // in bounds, but not 16-byte aligned
    CHECK(contains(misaligned.err, "'d_A' (byte "));
    CHECK(contains(misaligned.err, "8 bytes past a multiple of 16"));
    CHECK(contains(misaligned.err, "error_misaligned_float4.cu:14"));
    CHECK(contains(misaligned.err, "is the row length a multiple of 4?"));
    // a float2 at an odd column of an even row length: the question names the column, not only the row length
    const Run pair = run({program("error_misaligned_float2")});
    CHECK(contains(pair.err, "error_misaligned_float2.cu:13"));
    CHECK(contains(pair.err, "'d_C' (byte 4) is 4 bytes past a multiple of 8"));
    CHECK(contains(pair.err, "are the row length and the column it starts at both even?"));
    CHECK(!contains(pair.err, "multiple of 4?"));
    // an index outside its own dimension, though the address is inside the array: named as written, with the
    // dimension's range, and never reported as the race or the barrier its symptom looks like
    const Run index = run({program("error_index_outside_dimension")});
    CHECK(contains(index.err, "error_index_outside_dimension.cu:21: cudaemu: out-of-bounds"));
    CHECK(contains(index.err, "As[.][.][32]: index 32 outside 0..31"));
    CHECK(contains(index.err, "error_index_outside_dimension.cu:28: cudaemu: out-of-bounds"));
    CHECK(contains(index.err, "acc[.][4]: index 4 outside 0..3"));
    CHECK(!contains(index.err, "cudaemu: race"));
    CHECK(!contains(index.err, "cudaemu: uninitialised"));
    CHECK(!contains(index.err, "__syncthreads"));
    CHECK(!contains(index.err, "block shape"));  // a block of one dimension: only the index can be wrong
    // the same with every index right for the block shape it was written for, launched with x and y swapped: the
    // finding names the launch's shape as the other thing to fix
    const Run swapped = run({program("error_index_block_swapped")});
    CHECK(contains(swapped.err, "error_index_block_swapped.cu:18: cudaemu: out-of-bounds"));
    CHECK(contains(swapped.err, "tile[.][4]: index 4 outside 0..3"));
    CHECK(contains(swapped.err,
                   "or the launch's block shape if the index was written for another (these blocks are "
                   "4×16 threads)"));
    CHECK(!contains(swapped.err, "cudaemu: race"));
    CHECK(!contains(swapped.err, "__syncthreads"));
    // an index that reaches past the end of shared memory: the index and the fault, at the line; the store is not
    // made (it would land on the emulator's own thread-local variables), and the program goes on to its next call
    const Run past = run({program("error_shared_past_end")});
    CHECK(contains(past.err, "error_shared_past_end.cu:15: cudaemu: out-of-bounds"));
    CHECK(contains(past.err, "tile[16][.]: index 16 outside 0..15"));
    CHECK(
        contains(past.err, "4 bytes past the end of the block's shared memory (1024 bytes, its __shared__ variables)"));
    const Run atomic = run({program("error_shared_atomic_past_end")});  // an atomic, through a pointer
    CHECK(contains(atomic.err, "error_shared_atomic_past_end.cu:16: cudaemu: out-of-bounds"));
    CHECK(contains(atomic.err, "out-of-bounds store of 4 bytes"));
    CHECK(contains(atomic.err, "4 bytes past the end of the block's shared memory (1024 bytes"));
    // a float4 through an element's address, past that element's row: each access with the elements it spans, shared
    // and a thread's own array, loads and stores; the float4 that ends at its row's end is no error
    const Run vector = run({program("error_vector_outside_dimension")});
    for (const char* line : {"27", "28", "29", "35", "36"})
        CHECK(contains(vector.err,
                       std::string("error_vector_outside_dimension.cu:") + line + ": cudaemu: out-of-bounds"));
    CHECK(contains(vector.err, "As[.][28..31] (one access 4 elements wide): index 31 outside 0..29"));
    CHECK(contains(vector.err, "Bs[.][28..31] (one access 4 elements wide): index 31 outside 0..29"));
    CHECK(contains(vector.err, "acc[.][4..7] (one access 4 elements wide): index 7 outside 0..5"));
    CHECK(!contains(vector.err, "error_vector_outside_dimension.cu:25"));
    CHECK(!contains(vector.err, "cudaemu: race"));
    // two blocks storing different values to one element, with nothing to order them: a race on global memory,
    // named with the blocks and the element, with no barrier advice (no barrier orders blocks); the second launch's
    // finding is not printed again, but counted when the program ends
    // a block loading an element that another block stores to in the same launch: reported at the load (the other
    // block stored first) or at the store (the load came first), whichever order the blocks ran in
    Settings one_worker;
    one_worker.threads = "1";
    const Run shift = run({program("error_blocks_read_race")}, one_worker);
    CHECK((contains(shift.err, "error_blocks_read_race.cu:15: cudaemu: race") ||
           contains(shift.err, "error_blocks_read_race.cu:17: cudaemu: race")));
    CHECK(contains(shift.err, "race on global memory between blocks: block ("));
    CHECK(contains(shift.err, "'d_a'["));
    CHECK(contains(shift.err, "read from one buffer and store to another, or split the work into two launches"));
    CHECK(!contains(shift.err, "__syncthreads"));
    const Run blocks = run({program("error_blocks_store_race")}, one_worker);
    CHECK(contains(blocks.err,
                   "error_blocks_store_race.cu:21: cudaemu: race in kernel 'row_sums_without_atomic_kernel'"));
    CHECK(contains(blocks.err, "race on global memory between blocks ("));
    CHECK(contains(blocks.err, "both store to 'd_row_sum'["));
    CHECK(contains(blocks.err, "combined with an atomic"));
    CHECK(!contains(blocks.err, "__syncthreads"));
    CHECK(count_of(blocks.err, "race on global memory") == 1);
    CHECK(contains(blocks.err,
                   "error_blocks_store_race.cu:21: cudaemu: race in kernel "
                   "'row_sums_without_atomic_kernel': the finding printed above, again in 1 later launch\n"));
    // a race whose write is in a helper function: the barrier's place is named in the loop that calls it, between
    // the read and the call, never at the helper's own line
    const Run helper = run({program("error_race_in_helper")});
    CHECK(contains(helper.err, "between tests/emu/programs/error_race_in_helper.cu:25 and :15"));
    CHECK(contains(helper.err, "A __syncthreads() after :25 and before :27 (the call that reaches :15) orders them"));
    // two threads storing to one element from one line: the index is the question, never a barrier, and the reads
    // of the elements left unwritten are not reported as uninitialised
    const Run same = run({program("error_race_same_element")});
    CHECK(contains(same.err, "error_race_same_element.cu:15: cudaemu: race"));
    CHECK(contains(same.err, "both write 'tile'"));
    CHECK(contains(same.err, "Both stores are :15's: does its index give two threads the same element"));
    CHECK(!contains(same.err, "__syncthreads() missing"));
    CHECK(!contains(same.err, "A __syncthreads() after"));
    CHECK(!contains(same.err, "cudaemu: uninitialised"));
    // a race at a fragment load of shared memory asks about the fragment's pointer, ldm and layout first
    const Run fragment = run({program("error_wmma_race_no_barrier")});
    CHECK(contains(fragment.err,
                   "reads its rows (or columns) ldm elements apart from its pointer: are those where "
                   "and how the tile was stored? If they are: "));
}

// ===============================================================================================================
// Determinism: the same results with 1, 2 and 64 worker threads
// ===============================================================================================================
TEST_CASE("the tiled matmul gives bit-identical C with 1 and 2 worker threads") {
    const Run one = run({program("tiled_matmul")}, Settings{/*threads*/ "1"});
    const Run two = run({program("tiled_matmul")}, Settings{/*threads*/ "2"});
    REQUIRE(one.exit_code == 0);
    REQUIRE(two.exit_code == 0);
    CHECK(contains(one.out, "c_hash_0: "));  // the output holds a hash of C's bits
    CHECK(one.out == two.out);
    CHECK(one.stats == two.stats);
}

// Every worker maps 1024 fiber stacks with a guard page each: asked for more workers than the process's memory
// mappings allow (vm.max_map_count: about 30 at Linux's default), the emulator makes fewer, and every allocation
// and launch still succeeds (before, a machine with 32 hardware threads saw cudaErrorMemoryAllocation).
TEST_CASE("asked for 64 worker threads, launches and allocations still succeed, with the same results") {
    const Run many = run({program("tiled_matmul")}, Settings{/*threads*/ "64"});
    const Run two = run({program("tiled_matmul")}, Settings{/*threads*/ "2"});
    REQUIRE(many.exit_code == 0);
    CHECK(!contains(many.err, "cudaErrorMemoryAllocation"));
    CHECK(many.out == two.out);
}

// ===============================================================================================================
// CUDAEMU_STATS, watchdog
// ===============================================================================================================
TEST_CASE("CUDAEMU_STATS: one JSON line per launch with the documented keys and exact counts") {
    SUBCASE("a correct program: the counts follow from the sizes it prints") {
        const Run r = run({program("tiled_matmul")});
        REQUIRE(r.exit_code == 0);
        const std::map<std::string, std::string> out = parse_output(r.out);
        REQUIRE(out.count("tile_width") == 1);
        const int tile = std::stoi(out.at("tile_width"));
        std::vector<std::array<int, 3>> cases;  // M, N, K of each launch, in order
        for (int i = 0; out.count("sizes_" + std::to_string(i)); ++i) {
            std::istringstream s(out.at("sizes_" + std::to_string(i)));
            std::array<int, 3> mnk{};
            s >> mnk[0] >> mnk[1] >> mnk[2];
            cases.push_back(mnk);
        }
        REQUIRE(!cases.empty());
        REQUIRE(r.stats.size() == cases.size());
        for (size_t i = 0; i < cases.size(); ++i) {
            const int M = cases[i][0], N = cases[i][1], K = cases[i][2];
            CAPTURE(M);
            CAPTURE(N);
            CAPTURE(K);
            const std::string& line = r.stats[i];
            CAPTURE(line);
            const dim3 grid(ceil_div(N, tile), ceil_div(M, tile));
            const uint64_t phases = ceil_div(K, tile);
            const uint64_t thread_phases = uint64_t(grid.x) * grid.y * tile * tile * phases;
            CHECK(contains(line, "\"kernel\": \"matmul_tiled_kernel\""));
            CHECK(contains(line, dims_json("grid", grid)));
            CHECK(contains(line, dims_json("block", dim3(tile, tile))));
            CHECK(json_number(line, "global_load_bytes") ==
                  (int64_t(M) * K * grid.x + int64_t(K) * N * grid.y) * int64_t(sizeof(float)));
            CHECK(json_number(line, "global_store_bytes") == int64_t(M) * N * int64_t(sizeof(float)));
            CHECK(json_number(line, "shared_store_bytes") == int64_t(thread_phases * 2 * sizeof(float)));
            CHECK(json_number(line, "shared_load_bytes") == int64_t(thread_phases * 2 * tile * sizeof(float)));
            CHECK(contains(line, "\"errors\": []"));
        }
    }
    SUBCASE("a program with a race: each error has kind, message, file and line") {
        const Run r = run({program("error_race_missing_barrier")});
        REQUIRE(r.stats.size() == 1);
        const std::string& line = r.stats[0];
        CAPTURE(line);
        for (const char* key : {"\"kernel\": \"reverse_without_barrier_kernel\"", "\"grid\": [", "\"block\": [",
                                "\"global_load_bytes\": ", "\"global_store_bytes\": ", "\"shared_load_bytes\": ",
                                "\"shared_store_bytes\": ", "\"errors\": [{"}) {
            CHECK(contains(line, key));
        }
        const int races = count_of(line, "\"kind\": \"race\"");
        CHECK(races >= 1);
        CHECK(count_of(line, "\"message\": \"race on shared memory") == races);
        CHECK(count_of(line, "\"file\": \"tests/emu/programs/error_race_missing_barrier.cu\"") == races);
        CHECK(json_number(line, "line") > 0);
    }
}

TEST_CASE("watchdog: a kernel that never ends is stopped after CUDAEMU_TIMEOUT") {
    SUBCASE("spinning on global memory: stopped, cudaErrorLaunchTimeout") {
        const Run r = run({program("hang_global_flag")}, Settings{/*threads*/ "2", /*timeout*/ "1"}, 30);
        INFO("stdout:\n", r.out, "stderr:\n", r.err);
        CHECK(r.seconds < 10);
        CHECK(r.exit_code == 0);
        CHECK(r.out == lines({{"launch", "cudaSuccess"},
                              {"sync", "cudaErrorLaunchTimeout"},
                              {"last_error", "cudaErrorLaunchTimeout"}}));
        CHECK(contains(r.err, "spin_on_flag_kernel"));
        CHECK(contains(r.err, "timeout"));
        REQUIRE(r.stats.size() == 1);
        CHECK(contains(r.stats[0], "\"kind\": \"timeout\""));
    }
    SUBCASE("spinning in registers: the program is ended with exit code 124") {
        const Run r = run({program("hang_registers")}, Settings{/*threads*/ "2", /*timeout*/ "1"}, 30);
        INFO("stdout:\n", r.out, "stderr:\n", r.err);
        CHECK(r.seconds < 10);
        CHECK(r.exit_code == 124);
        CHECK(contains(r.err, "spin_in_registers_kernel"));
        CHECK(contains(r.err, "timeout"));
    }
}
