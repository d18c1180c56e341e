// test_emulator_warps.cpp: warps and cooperative groups. Each warp or group diagnostic (a collective some lanes
// never reach, a lane that has exited, a shuffle outside the mask, a grid.sync() without a cooperative launch, ...)
// names the lanes and the lines involved, identically with 1 and 2 worker threads; correct warp programs give the
// same results either way.

#include <string>
#include <vector>

#include "test_emulator.h"

using namespace emu_test;

namespace {

// A stats line's launch error and findings: what must not depend on the number of workers
std::string findings_of(const std::string& line) {
    const size_t error = line.find("\"error\": "), errors = line.find("\"errors\": [");
    if (error == std::string::npos || errors == std::string::npos) return line;
    return line.substr(error, line.find(',', error) - error) + " " + line.substr(errors);
}

}  // namespace

// ===============================================================================================================
// Warps: each diagnostic names the lanes and the lines involved, whatever the number of worker threads
// ===============================================================================================================
TEST_CASE("warp diagnostics name the lanes and the lines, identically with 1 and 2 worker threads") {
    struct WarpCase {
        const char* program;
        std::vector<std::string> says;  // each must appear on stderr
    };
    const WarpCase cases[] = {
        {"error_warp_stuck_collective",
         {"lanes 0-15 of warp 0 of block (0,0,0) wait at __syncwarp(mask 0xffffffff) at "
          "tests/emu/programs/error_warp_stuck_collective.cu:17",
          "lanes 16-31 named in the mask wait at __syncthreads() at "
          "tests/emu/programs/error_warp_stuck_collective.cu:19"}},
        {"error_warp_exited_lane",
         {"error_warp_exited_lane.cu:17, but lanes 16-31 named in the mask have already exited",
          "reads lane 16, which has already exited"}},
        {"error_warp_shfl_outside_mask",
         {"calls __shfl_sync(mask 0x0000ffff) at", "reads lane 16, which is not named in the mask"}},
        {"error_warp_race_no_syncwarp",
         {"(lanes 0 and 1 of warp 0: a warp does not run in lockstep", "error_warp_race_no_syncwarp.cu:24"}},
        {"error_cg_shfl_outside_group",
         {"error_cg_shfl_outside_group.cu:21: coalesced_group::shfl reads rank 16 of a group of 16 threads",
          "(7 more like it)"}},
        {"error_tile_stuck_sync",
         {"thread (0,0,0) of block (0,0,0) waits at the sync of a thread_block_tile<64> at "
          "tests/emu/programs/error_tile_stuck_sync.cu:21, but thread (32,0,0) of the tile waits at __syncthreads() at "
          "tests/emu/programs/error_tile_stuck_sync.cu:23"}},
        {"error_grid_sync_not_cooperative",
         {"grid.sync() at tests/emu/programs/error_grid_sync_not_cooperative.cu:19 in kernel 'shift_kernel', which was "
          "not launched with cudaLaunchCooperativeKernel"}},
        {"error_cg_tile_size",
         {"error_cg_tile_size.cu:16: tiled_partition(parent, n): n must be a power of two from 1 to 32, not 48"}},
        {"error_grid_sync_block_exits",
         {"block (0,0,0) waits at grid.sync() at tests/emu/programs/error_grid_sync_block_exits.cu:20, but block "
          "(3,0,0) has finished without reaching it"}},
        {"error_wmma_lane_skips_collective",
         {"lanes 0-30 of warp 0 of block (0,0,0) wait at wmma::load_matrix_sync at "
          "tests/emu/programs/error_wmma_lane_skips_collective.cu:21, but lane 31 of the warp waits at wmma::mma_sync "
          "at tests/emu/programs/error_wmma_lane_skips_collective.cu:22"}},
        {"error_wmma_lanes_disagree",
         {"wmma::load_matrix_sync at tests/emu/programs/error_wmma_lanes_disagree.cu:17 by warp 0 of block (0,0,0): "
          "lane 16 passes a pointer 512 bytes from lane 0's"}},
        {"error_wmma_ldm",
         {"misaligned wmma::load_matrix_sync at tests/emu/programs/error_wmma_ldm.cu:16",
          "ldm must be a multiple of 16 bytes (4 elements of float (TF32)), and it is 6"}},
    };
    for (const WarpCase& c : cases) {
        const std::string name = c.program;
        CAPTURE(name);
        const Run one = run({program(c.program)}, Settings{/*threads*/ "1"});
        const Run two = run({program(c.program)}, Settings{/*threads*/ "2"});
        INFO("stderr:\n", one.err);
        for (const std::string& text : c.says) CHECK(contains(one.err, text));
        CHECK(one.err == two.err);
        // After an error ends a launch, whether another worker had already started a later block (and what it
        // loaded) depends on timing, as on a GPU; the launch's error and findings do not.
        REQUIRE(one.stats.size() == two.stats.size());
        for (size_t i = 0; i < one.stats.size(); ++i) CHECK(findings_of(one.stats[i]) == findings_of(two.stats[i]));
        CHECK(one.out == two.out);
    }
    // the stuck collective ends its block before the __syncthreads(), and the launch with an error
    const Run stuck = run({program("error_warp_stuck_collective")});
    CHECK(count_of(stuck.err, "cudaemu: warp") == 1);
    CHECK(count_of(stuck.err, "cudaemu: barrier") == 0);
}

TEST_CASE("warp programs give the same results with 1 and 2 worker threads, and no diagnostics") {
    // (not grid_sync: its largest cooperative grid follows the multiprocessors, one per worker thread)
    for (const char* name : {"warp_shuffle", "warp_vote", "cooperative_groups", "cooperative_groups_generic",
                             "coalesced_groups", "wmma_layout", "wmma_gemm", "mma_sync_tf32"}) {
        CAPTURE(name);
        const Run one = run({program(name)}, Settings{/*threads*/ "1"});
        const Run two = run({program(name)}, Settings{/*threads*/ "2"});
        CHECK(one.exit_code == 0);
        CHECK(one.err == "");
        CHECK(one.out == two.out);
        CHECK(one.stats == two.stats);
    }
}

// ===============================================================================================================
// Warp matrix functions: each lane loads and stores its own elements, once
// ===============================================================================================================
TEST_CASE("wmma loads and stores count each element of the tile once, a half fragment's second copies not at all") {
    const Run r = run({program("wmma_layout")});
    REQUIRE(r.exit_code == 0);
    // wmma_layout.cu's launches: 18 input fragments, 4 accumulators (each loaded twice: rows, then columns), then
    // for 3 accumulator shapes a load and a row-major store, a load and a column-major store
    REQUIRE(r.stats.size() == 18 + 4 + 3 * 2);
    const long long tf32_a = 16 * 8 * 4, half_a = 16 * 16 * 2, accumulator = 16 * 16 * 4;
    CHECK(json_number(r.stats[0], "global_load_bytes") == 2 * tf32_a);       // tf32_a_16x16x8_row
    CHECK(json_number(r.stats[2], "global_load_bytes") == 2 * tf32_a);       // tf32_b_16x16x8_row: 8×16
    CHECK(json_number(r.stats[4], "global_load_bytes") == 2 * half_a);       // 16 elements a lane, 8 different
    CHECK(json_number(r.stats[8], "global_load_bytes") == 2 * 32 * 16 * 2);  // half_a_32x8x16_row
    CHECK(json_number(r.stats[9], "global_load_bytes") == 2 * 16 * 8 * 2);   // half_b_32x8x16_col: 4 different
    CHECK(json_number(r.stats[18], "global_load_bytes") == 2 * accumulator);
    CHECK(json_number(r.stats[18], "global_store_bytes") == 32 * 8 * 4);  // the kernel stores each x[i] it holds
    for (int store = 22; store < 28; ++store) {
        CAPTURE(store);
        CHECK(json_number(r.stats[store], "global_load_bytes") == accumulator);
        CHECK(json_number(r.stats[store], "global_store_bytes") == accumulator);
    }
}

// ===============================================================================================================
// The PTX instructions of common/mma_ptx.h: an ldmatrix row is one 16-byte shared load of the lane that gives it
// ===============================================================================================================
TEST_CASE("ldmatrix counts each row once, as a 16-byte load of its lane; mma_m16n8k8_tf32 counts TF32 FLOPs") {
    const Run r = run({program("mma_sync_tf32")}, Settings{/*threads*/ "2", /*timeout*/ "30", /*quiet*/ false,
                                                           /*requests*/ true});
    REQUIRE(r.exit_code == 0);
    // mma_sync_tf32.cu's launches: ldmatrix_kernel, cvt_kernel, then mma_kernel three times
    REQUIRE(r.stats.size() == 5);
    const long long row = 16, x4 = 32 * row, x2 = 16 * row, wavefront = 128;
    // ldmatrix_kernel: one x4 and one x2 of packed 8×8 matrices, whose rows fill every bank once per 8 lanes
    CHECK(json_number(r.stats[0], "shared_load_bytes") == x4 + x2);
    CHECK(json_number(r.stats[0], "shared_load_requests") == 2);
    CHECK(json_number(r.stats[0], "shared_load_wavefronts") == (x4 + x2) / wavefront);
    CHECK(json_number(r.stats[0], "tensor_flops") == 0);
    CHECK(json_number(r.stats[0], "ldmatrix_bytes") == x4 + x2);
    CHECK(json_number(r.stats[1], "ldmatrix_bytes") == 0);  // cvt_kernel
    // mma_kernel: rows of 8 floats (32 bytes), so rows r and r + 4 of a matrix share banks: twice the wavefronts
    CHECK(json_number(r.stats[2], "shared_load_bytes") == x4 + x2);
    CHECK(json_number(r.stats[2], "shared_load_wavefronts") == 2 * (x4 + x2) / wavefront);
    for (int launch = 2; launch < 5; ++launch) {
        CAPTURE(launch);
        CHECK(json_number(r.stats[launch], "tensor_flops") == 2 * 16 * 8 * 8);
        CHECK(json_number(r.stats[launch], "tensor_tf32_flops") == 2 * 16 * 8 * 8);
        CHECK(json_number(r.stats[launch], "ptx_mma_flops") == 2 * 16 * 8 * 8);
    }
    // the second mma passes A[0][0] = 1 + 3/4 of TF32's step as it is (one input with bits TF32 drops); the third
    // rounds it with cvt_rna_tf32 first
    CHECK(json_number(r.stats[2], "tf32_unrounded_inputs") == 0);
    CHECK(json_number(r.stats[3], "tf32_unrounded_inputs") == 1);
    CHECK(json_number(r.stats[3], "tf32_unrounded_a_inputs") == 1);  // it is A's
    CHECK(json_number(r.stats[4], "tf32_unrounded_inputs") == 0);
}
