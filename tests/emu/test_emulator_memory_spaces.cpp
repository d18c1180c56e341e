// test_emulator_memory_spaces.cpp: the memory spaces beyond cudaMalloc, through the programs whose output
// gpu_check.sh compares with an H100's: dynamic shared memory, __constant__ symbols, mapped and registered host
// memory, and asynchronous copies into shared memory. Here the values the H100 printed, and the counts.

#include <map>
#include <string>
#include <utility>

#include "test_emulator.h"

using namespace emu_test;

// ===============================================================================================================
// Dynamic shared memory, __constant__ and __device__ variables
// ===============================================================================================================
TEST_CASE("programs/dynamic_shared.cu: the 48 KiB default, the opt-in, static + dynamic, and the counts") {
    const Run r = run({program("dynamic_shared")});
    INFO("stdout:\n", r.out, "stderr:\n", r.err);
    REQUIRE(r.exit_code == 0);
    const std::map<std::string, std::string> out = parse_output(r.out);
    const std::vector<std::pair<std::string, std::string>> want = {
        {"reverse_values", "pass"},
        {"carve_values", "pass"},
        {"big_max_dynamic_default", "49152"},
        {"launch_48k", "cudaSuccess"},
        {"launch_48k_plus_4_without_opt_in", "cudaErrorInvalidValue"},
        {"sync_after_refused_launch", "cudaSuccess"},  // a refused launch is not sticky
        {"set_above_optin", "cudaErrorInvalidValue"},
        {"launch_optin", "cudaSuccess"},
        {"launch_above_optin", "cudaErrorInvalidValue"},
        {"launch_above_lowered_limit", "cudaErrorInvalidValue"},
        {"mixed_static_bytes", "16384"},
        {"mixed_max_dynamic_default", "32768"},
        {"mixed_launch_48k_total", "cudaSuccess"},
        {"mixed_launch_above_48k_total", "cudaErrorInvalidValue"},
        {"mixed_set_optin", "cudaErrorInvalidValue"},
        {"mixed_launch_optin_total", "cudaSuccess"},
    };
    check_values(out, want);
    REQUIRE(out.count("optin_bytes") == 1);
    const std::string words = std::to_string(std::stoi(out.at("optin_bytes")) / 4);  // every int of the buffer
    CHECK(out.at("big_words_checked") == words + " of " + words);
    // dynamic shared memory is counted like static: reverse_kernel stores and loads one float per thread
    REQUIRE(!r.stats.empty());
    CHECK(contains(r.stats[0], "\"kernel\": \"reverse_kernel\""));
    CHECK(json_number(r.stats[0], "shared_store_bytes") == 3 * 128 * 4);
    CHECK(json_number(r.stats[0], "shared_load_bytes") == 3 * 128 * 4);
    // the refused launches are in the stats with their error, and ran nothing
    int refused = 0;
    for (const std::string& line : r.stats)
        if (contains(line, "\"error\": \"cudaErrorInvalidValue\"")) {
            ++refused;
            CHECK(json_number(line, "shared_store_bytes") == 0);
        }
    CHECK(refused == 4);
}

TEST_CASE("programs/constant_memory.cu: symbols work as on the H100, and constant loads are their own space") {
    const Run r = run({program("constant_memory")});
    INFO("stdout:\n", r.out, "stderr:\n", r.err);
    REQUIRE(r.exit_code == 0);
    const std::map<std::string, std::string> out = parse_output(r.out);
    const std::vector<std::pair<std::string, std::string>> want = {
        {"initial_scale", "3"},
        {"initial_table", "0.5 1.5 2.5 3.5"},
        {"convolution_values", "pass"},
        {"hits", "1000"},
        {"table_values", "pass"},
        {"hits_after_memset", "0"},
        {"symbol_sizes", "20 16"},
        {"to_symbol_too_long", "cudaErrorInvalidValue"},
        {"to_symbol_offset_past_end", "cudaErrorInvalidValue"},
        {"to_host_variable", "cudaErrorInvalidSymbol"},
        {"last_error_after_host_variable", "cudaErrorInvalidSymbol"},  // the latest error, not the first
        {"address_of_host_variable", "cudaErrorInvalidSymbol"},
        {"to_symbol_device_to_host", "cudaErrorInvalidMemcpyDirection"},
        {"last_error_cleared", "cudaErrorInvalidMemcpyDirection"},
    };
    check_values(out, want);
    // convolution_kernel: per output, one mask[j] (constant) and one in[k] (global) load per tap inside the input,
    // one load of `scale` (constant), and an atomicAdd on `hits` (a global load and store)
    const int n = 1000, width = 5;
    int64_t taps = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < width; ++j) taps += (i + j - width / 2 >= 0 && i + j - width / 2 < n);
    REQUIRE(r.stats.size() == 2);
    const std::string& line = r.stats[0];
    CAPTURE(line);
    CHECK(json_number(line, "constant_load_bytes") == (taps + n) * 4);
    CHECK(json_number(line, "global_load_bytes") == (taps + n) * 4);
    CHECK(json_number(line, "global_store_bytes") == 2 * n * 4);
    CHECK(json_number(line, "max_thread_load_bytes") == 5 * 4 + 4);  // global only: 5 taps and the atomic
    CHECK(contains(line, "{\"name\": \"mask\", \"bytes\": 20, \"load_bytes\": " + std::to_string(taps * 4) +
                             ", \"store_bytes\": 0}"));
    CHECK(contains(line, "{\"name\": \"hits\", \"bytes\": 4, \"load_bytes\": 4000, \"store_bytes\": 4000}"));
    CHECK(json_number(r.stats[1], "constant_load_bytes") == 0);  // table_kernel reads a __device__ variable
    CHECK(json_number(r.stats[1], "global_load_bytes") == 8 * 4 * 2);
}

// ===============================================================================================================
// Host memory: page-locked, mapped and registered
// ===============================================================================================================
TEST_CASE("programs/constant_dims.cu: M, N, K in constant memory and constant-initialised variables, as on the H100") {
    const Run r = run({program("constant_dims")});
    INFO("stdout:\n", r.out, "stderr:\n", r.err);
    REQUIRE(r.exit_code == 0);
    const std::map<std::string, std::string> out = parse_output(r.out);
    const std::vector<std::pair<std::string, std::string>> want = {
        {"initial", "scale 2, offsets 1 2, histogram 10 20 30 40"},  // the initial values, before any kernel
        {"unset", "0 0 0 0"},                                        // structs without one: zero
        {"square_16", "pass"},
        {"square_16_dims_read_back", "16 16 16"},
        {"rectangular_13x7x5", "pass"},
        {"rectangular_13x7x5_dims_read_back", "13 7 5"},
        {"single_1x1x1", "pass"},
        {"launches", "3"},
        {"histogram", "pass"},
    };
    check_values(out, want);
}

TEST_CASE("programs/mapped_host_memory.cu: kernels use mapped and registered host memory, counted per allocation") {
    const Run r = run({program("mapped_host_memory")});
    INFO("stdout:\n", r.out, "stderr:\n", r.err);
    REQUIRE(r.exit_code == 0);
    const std::map<std::string, std::string> out = parse_output(r.out);
    const std::vector<std::pair<std::string, std::string>> want = {
        {"can_map_host_memory", "1"},
        {"attribute_gpu_overlap_value", "1"},
        {"device_flags_schedule_blocking_sync", "1"},
        {"mapped_sum", "pass"},
        {"register_host_alloc", "cudaErrorInvalidValue"},
        {"register_again", "cudaErrorHostMemoryAlreadyRegistered"},
        {"registered_squares", "pass"},
        {"odd_count_matches", "1"},
        {"unregister_again", "cudaErrorHostMemoryNotRegistered"},
        {"unregister_never_registered", "cudaErrorHostMemoryNotRegistered"},
        {"last_error_cleared", "cudaSuccess"},
    };
    check_values(out, want);
    // Accesses to mapped memory count as global traffic, named after the host variables; an atomic is a load and
    // a store.
    REQUIRE(r.stats.size() == 3);
    CHECK(json_number(r.stats[0], "global_load_bytes") == 2 * 3000 * 4);
    CHECK(contains(r.stats[0], "{\"name\": \"c\", \"bytes\": 12000, \"load_bytes\": 0, \"store_bytes\": 12000}"));
    CHECK(contains(r.stats[1], "{\"name\": \"x\", \"bytes\": 20480, \"load_bytes\": 40000, \"store_bytes\": 20000}"));
    CHECK(contains(r.stats[2], "{\"name\": \"odd\", \"bytes\": 4, \"load_bytes\": 10000, \"store_bytes\": 10000}"));
}

// ===============================================================================================================
// Asynchronous copies (<cuda/pipeline>, <cuda/barrier>): counted like the loads and stores they are
// ===============================================================================================================
TEST_CASE("programs/pipeline_copy.cu: asynchronous copies are counted like the loads and stores they are") {
    const Run r = run({program("pipeline_copy")});
    INFO("stdout:\n", r.out, "stderr:\n", r.err);
    REQUIRE(r.stats.size() == 1);
    // 4 rows of 12 floats staged in 16-byte pieces: the 12 pieces inside A are read, the 4 zero-filled ones are not
    CHECK(contains(r.stats[0], "\"global_load_bytes\": 192,"));
    CHECK(contains(r.stats[0], "\"shared_store_bytes\": 256,"));  // all 16 pieces land in the tile
}

TEST_CASE("programs/async_copies.cu: memcpy_async counts a global load and a shared store per byte copied") {
    const Run r = run({program("async_copies")});
    INFO("stdout:\n", r.out, "stderr:\n", r.err);
    REQUIRE(r.stats.size() == 4);
    const long long matrix = 32 * 48 * 4;  // ROWS * COLS floats, each copied once by every kernel
    for (const std::string& line : r.stats) {
        CAPTURE(line);
        CHECK(json_number(line, "global_load_bytes") == matrix);
        CHECK(json_number(line, "shared_store_bytes") == matrix);
        CHECK(contains(line, "\"errors\": []"));
    }
}
