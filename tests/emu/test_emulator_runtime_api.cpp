// test_emulator_runtime_api.cpp: the runtime API as a GPU answers it. Invalid launch configurations (the table
// below), the last error, streams and events, cudaMemcpy's directions and bounds, host memory calls,
// configuration and query calls, and clock(): what each call returns, checked against what an H100 returned.

#include <cstdio>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernels.h"
#include "test_emulator.h"

using namespace emu_test;

// ===============================================================================================================
// Launch configuration errors
// ===============================================================================================================
namespace {

// ---------------------------------------------------------------------------------------------------------------
// LAUNCH CONFIGURATION TABLE: what a GPU returns, and so what the emulator must return (common/emu/api.cpp, valid_launch()).
// Seen on an H100 (driver 580.159.04, CUDA 13.0): every invalid case below answered cudaErrorInvalidValue.
// tests/emu/gpu_check.sh diffs programs/launch_config.cu, which tries the same cases, between nvcc and the
// emulator. If a GPU answers differently, fix the emulator and this table together.
// ---------------------------------------------------------------------------------------------------------------
struct LaunchCase {
    dim3 grid, block;
    cudaError_t error;  // cudaGetLastError() right after the launch
    bool runs;
};
const LaunchCase kLaunchCases[] = {
    {dim3(1), dim3(1025, 1, 1), cudaErrorInvalidValue, false},   // block.x > 1024
    {dim3(1), dim3(64, 32, 1), cudaErrorInvalidValue, false},    // 2048 threads in a block
    {dim3(1), dim3(1, 1, 65), cudaErrorInvalidValue, false},     // block.z > 64
    {dim3(1), dim3(0, 1, 1), cudaErrorInvalidValue, false},      // empty block
    {dim3(1, 0, 1), dim3(32), cudaErrorInvalidValue, false},     // empty grid
    {dim3(1, 65536, 1), dim3(1), cudaErrorInvalidValue, false},  // grid.y > 65535
    {dim3(1, 1, 65536), dim3(1), cudaErrorInvalidValue, false},  // grid.z > 65535
    {dim3(4, 1, 1), dim3(32, 1, 1), cudaSuccess, true},          // valid
};

std::string launch_case_key(const LaunchCase& c) {  // as programs/launch_config.cu prints it
    char key[128];
    std::snprintf(key, sizeof key, "g%ux%ux%u_b%ux%ux%u", c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y,
                  c.block.z);
    return key;
}

}  // namespace

TEST_CASE("launch configuration errors: returned by cudaGetLastError, the kernel does not run, not sticky") {
    DeviceArray<int> flag(1);
    for (const LaunchCase& c : kLaunchCases) {
        CAPTURE(launch_case_key(c));
        REQUIRE(cudaMemset(flag.ptr, 0, sizeof(int)) == cudaSuccess);
        cudaemu::clear_launches();
        CHECK(set_flag(c.grid, c.block, flag.ptr) == c.error);
        // the refused launch's report says which grid, which block, and the rule; a launch that runs says nothing
        const cudaemu::LaunchReport& r = only_launch();
        CHECK(r.diagnostics.empty());
        if (c.error != cudaSuccess) {
            const std::string grid = "grid (" + std::to_string(c.grid.x) + "," + std::to_string(c.grid.y) + "," +
                                     std::to_string(c.grid.z) + ") and block (" + std::to_string(c.block.x) + "," +
                                     std::to_string(c.block.y) + "," + std::to_string(c.block.z) + ")";
            CHECK(contains(r.refused, grid + " was refused with cudaErrorInvalidValue: "));
        } else {
            CHECK(r.refused.empty());
        }
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(flag.to_host()[0] == (c.runs ? 1 : 0));
        CHECK(cudaGetLastError() == cudaSuccess);
    }
}

TEST_CASE("programs/launch_config.cu reports every case of the table") {
    const Run run_result = run({program("launch_config")});
    REQUIRE(run_result.exit_code == 0);
    CHECK(run_result.err == "");  // a refused launch is the program's to report, as on a GPU
    const std::map<std::string, std::string> out = parse_output(run_result.out);
    CHECK(out.size() == 3 * std::size(kLaunchCases));  // no case the table lacks
    for (const LaunchCase& c : kLaunchCases) {
        const std::string key = launch_case_key(c);
        CAPTURE(key);
        REQUIRE(out.count(key + "_launch") == 1);
        CHECK(out.at(key + "_launch") == name_of(c.error));
        CHECK(out.at(key + "_ran") == (c.runs ? "1" : "0"));
        CHECK(out.at(key + "_next") == "cudaSuccess");
    }
}

// ===============================================================================================================
// Runtime API semantics
// ===============================================================================================================
TEST_CASE("an error from any runtime call also becomes the last error") {
    REQUIRE(cudaGetLastError() == cudaSuccess);
    SUBCASE("cudaMemcpy with a null pointer") {
        std::vector<float> host(4);
        CHECK(cudaMemcpy(host.data(), nullptr, sizeof(float), cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
        CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    }
    SUBCASE("cudaGetDeviceProperties of a device that does not exist") {
        int count = 0;
        REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
        cudaDeviceProp prop;
        CHECK(cudaGetDeviceProperties(&prop, count) == cudaErrorInvalidDevice);  // ordinals are 0..count-1
        CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
    }
    CHECK(cudaGetLastError() == cudaSuccess);  // and cudaGetLastError clears it
}

// ===============================================================================================================
// Streams and events; cudaMemcpy's directions and bounds
// ===============================================================================================================
TEST_CASE("programs/streams.cu: streams run in issue order and give a correct program the H100's results") {
    const Run r = run({program("streams")});
    INFO("stdout:\n", r.out, "stderr:\n", r.err);
    REQUIRE(r.exit_code == 0);
    const std::map<std::string, std::string> out = parse_output(r.out);
    const std::vector<std::pair<std::string, std::string>> want = {
        {"stream_values", "pass"},
        {"default_stream_values", "pass"},
        {"managed_values", "pass"},
        {"stream_query_s1", "cudaSuccess"},
        {"event_query_never_recorded", "cudaSuccess"},
        {"elapsed_untimed", "cudaErrorInvalidResourceHandle"},
        {"attribute_of_missing_device", "cudaErrorInvalidDevice"},
        {"occupancy_256_threads", "8"},
        {"occupancy_256_threads_100k_shared", "0"},  // more than the kernel's 48 KiB without the opt-in
        {"occupancy_1024_threads", "2"},
    };
    check_values(out, want);
    // the launch on a stream counts like any other; the managed allocation is named after its variable
    REQUIRE(r.stats.size() == 5);
    CHECK(json_number(r.stats[0], "global_load_bytes") == 4096 * 4);
    CHECK(
        contains(r.stats[4], "{\"name\": \"managed\", \"bytes\": 4000, \"load_bytes\": 4000, \"store_bytes\": 4000}"));
}

TEST_CASE("programs/memcpy_errors.cu: reversed directions and copies past an allocation's end, as on the H100") {
    const Run r = run({program("memcpy_errors")});
    INFO("stdout:\n", r.out, "stderr:\n", r.err);
    REQUIRE(r.exit_code == 0);
    const std::map<std::string, std::string> out = parse_output(r.out);
    // what the H100 printed
    const std::vector<std::pair<std::string, std::string>> want = {
        {"host_to_device_reversed", "cudaErrorInvalidValue"},
        {"last_error_after_reversed", "cudaErrorInvalidValue"},
        {"last_error_again", "cudaSuccess"},
        {"device_to_host_reversed", "cudaErrorInvalidValue"},
        {"host_to_device_past_end", "cudaErrorInvalidValue"},
        {"last_error_after_past_end", "cudaErrorInvalidValue"},
        {"device_to_host_past_end", "cudaErrorInvalidValue"},
        {"host_to_device_whole", "cudaSuccess"},
        {"round_trip_values", "pass"},
        {"free_twice", "cudaErrorInvalidValue"},
        // page-locked and managed memory go either way; ordinary host memory must be on the side named
        {"pinned_host_to_device_reversed", "cudaSuccess"},
        {"pinned_after_reversed_copy_out", "pass"},
        {"pinned_device_to_host_reversed", "cudaSuccess"},
        {"device_after_reversed_copy_in", "pass"},
        {"pinned_device_to_device", "cudaSuccess"},
        {"pinned_host_to_host", "cudaSuccess"},
        {"pageable_device_to_device", "cudaErrorInvalidValue"},
        {"managed_host_to_device_reversed", "cudaSuccess"},
        {"managed_device_to_host_reversed", "cudaSuccess"},
        {"managed_from_pageable_device_to_device", "cudaErrorInvalidValue"},
    };
    check_values(out, want);
}

TEST_CASE("a launch on a destroyed stream is refused with cudaErrorInvalidResourceHandle") {
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
    CHECK(cudaStreamSynchronize(stream) == cudaErrorInvalidResourceHandle);
    CHECK(cudaMemsetAsync(nullptr, 0, 0, stream) == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("programs/malloc_async.cu: stream-ordered allocation and the default pool, as on the H100") {
    const Run r = run({program("malloc_async")});
    INFO("stdout:\n", r.out, "stderr:\n", r.err);
    REQUIRE(r.exit_code == 0);
    const std::map<std::string, std::string> out = parse_output(r.out);
    const std::vector<std::pair<std::string, std::string>> want = {
        {"memory_pools_supported", "1"},
        {"release_threshold_default", "0"},
        {"release_threshold_set", "67108864"},  // 64 MiB, kept though it changes nothing here
        {"malloc_async_null_stream", "cudaSuccess"},
        {"null_stream_values", "pass"},
        {"malloc_async_stream", "cudaSuccess"},
        {"free_async_in", "cudaSuccess"},  // made on the null stream, freed on another: allowed
        {"free_async_out", "cudaSuccess"},
        {"stream_values", "pass"},
        {"malloc_async_again", "cudaSuccess"},
        {"again_values", "pass"},
        {"free_async_per_thread_stream", "cudaSuccess"},
        {"sync_after_frees", "cudaSuccess"},
        {"malloc_async_null_pointer", "cudaErrorInvalidValue"},
        {"last_error_after_null_pointer", "cudaErrorInvalidValue"},
        {"free_async_host_pointer", "cudaErrorInvalidValue"},
        {"last_error_after_host_pointer", "cudaErrorInvalidValue"},
        {"last_error_cleared", "cudaSuccess"},
    };
    check_values(out, want);
}

TEST_CASE("cudaMallocAsync names its allocation as cudaMalloc does, and cudaFreeAsync's memory is reported freed") {
    const ResetDeviceAtEnd reset_at_end;
    const int n = 512;
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    float* d_in = nullptr;
    float* d_out = nullptr;
    const int made_at = __LINE__ + 1;
    REQUIRE(cudaMallocAsync(&d_in, n * sizeof(float), stream) == cudaSuccess);
    REQUIRE(cudaMallocAsync(&d_out, n * sizeof(float), cudaStreamLegacy) == cudaSuccess);
    const cudaemu::DeviceAllocation made = cudaemu::device_allocations().at(cudaemu::device_allocations().size() - 2);
    CHECK(made.name == "d_in");
    CHECK(made.bytes == n * sizeof(float));
    CHECK(contains(made.file, "test_emulator_runtime_api.cpp"));
    CHECK(made.line == made_at);

    // a destroyed stream is refused, as by every stream call; the pointer is left as it was
    cudaStream_t gone;
    REQUIRE(cudaStreamCreate(&gone) == cudaSuccess);
    REQUIRE(cudaStreamDestroy(gone) == cudaSuccess);
    float* d_never = nullptr;
    CHECK(cudaMallocAsync(&d_never, 64, gone) == cudaErrorInvalidResourceHandle);
    CHECK(d_never == nullptr);
    CHECK(cudaFreeAsync(d_in, gone) == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    // zero bytes and a null pointer to free: as cudaMalloc and cudaFree answer them
    float* d_empty = d_in;
    CHECK(cudaMallocAsync(&d_empty, 0, stream) == cudaSuccess);
    CHECK(d_empty == nullptr);
    CHECK(cudaFreeAsync(nullptr, stream) == cudaSuccess);

    // freed on its stream, then read by a kernel: the report names the allocation and says it was freed
    REQUIRE(cudaMemsetAsync(d_in, 0, n * sizeof(float), stream) == cudaSuccess);
    REQUIRE(cudaFreeAsync(d_in, stream) == cudaSuccess);
    CHECK(cudaFreeAsync(d_in, stream) == cudaErrorInvalidValue);  // twice
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    cudaemu::clear_launches();
    CHECK(copy_floats(d_in, d_out, n) == cudaSuccess);
    const cudaemu::LaunchReport& r = only_launch();
    CHECK(r.error == cudaErrorIllegalAddress);
    INFO(all_messages(r));
    const std::vector<cudaemu::Diagnostic> freed = diagnostics_of_kind(r, "out-of-bounds");
    REQUIRE(freed.size() >= 1);
    CHECK(contains(freed[0].message, "'d_in'"));
    CHECK(contains(freed[0].message, "freed"));
    CHECK(contains(freed[0].message, "test_emulator_runtime_api.cpp:" + std::to_string(made_at)));

    // the error is sticky for stream-ordered allocation too
    CHECK(cudaStreamSynchronize(stream) == cudaErrorIllegalAddress);
    float* d_after = nullptr;
    CHECK(cudaMallocAsync(&d_after, 64, stream) == cudaErrorIllegalAddress);
    CHECK(cudaFreeAsync(d_out, stream) == cudaErrorIllegalAddress);
}

TEST_CASE("the default memory pool: one pool, its attributes kept and read back, others' arguments refused") {
    cudaMemPool_t pool = nullptr, current = nullptr;
    REQUIRE(cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess);
    CHECK(pool != nullptr);
    CHECK(cudaDeviceGetMemPool(&current, 0) == cudaSuccess);
    CHECK(current == pool);
    CHECK(cudaDeviceGetDefaultMemPool(nullptr, 0) == cudaErrorInvalidValue);
    CHECK(cudaDeviceGetDefaultMemPool(&current, 1) == cudaErrorInvalidDevice);

    uint64_t saved = 0, threshold = 0;
    REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &saved) == cudaSuccess);
    uint64_t all = UINT64_MAX;  // keep everything: the usual setting before a loop of cudaMallocAsync
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &all) == cudaSuccess);
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) == cudaSuccess);
    CHECK(threshold == UINT64_MAX);
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &saved) == cudaSuccess);

    int reuse = -1;
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &reuse) == cudaSuccess);
    CHECK(reuse == 1);  // on by default, as in CUDA
    CHECK(cudaMemPoolTrimTo(pool, 0) == cudaSuccess);

    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, nullptr) == cudaErrorInvalidValue);
    CHECK(cudaMemPoolGetAttribute(pool, static_cast<cudaMemPoolAttr>(0x7), &threshold) == cudaErrorInvalidValue);
    cudaMemPool_t not_a_pool = reinterpret_cast<cudaMemPool_t>(&threshold);
    CHECK(cudaMemPoolSetAttribute(not_a_pool, cudaMemPoolAttrReleaseThreshold, &all) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaSuccess);
}

// ===============================================================================================================
// Host memory calls; the device's clock
// ===============================================================================================================
TEST_CASE("host memory calls check their arguments as a GPU does") {
    CHECK(cudaSetDeviceFlags(0x100) == cudaErrorInvalidValue);  // outside cudaDeviceMask
    CHECK(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield) == cudaErrorInvalidValue);
    CHECK(cudaGetDeviceFlags(nullptr) == cudaErrorInvalidValue);
    CHECK(cudaSetDeviceFlags(cudaDeviceScheduleYield) == cudaSuccess);
    unsigned int flags = 0;
    CHECK(cudaGetDeviceFlags(&flags) == cudaSuccess);
    CHECK((flags & cudaDeviceScheduleMask) == cudaDeviceScheduleYield);
    CHECK(cudaSetDeviceFlags(cudaDeviceScheduleAuto) == cudaSuccess);

    std::vector<float> plain(1024, 1.0f);
    void* device_ptr = nullptr;
    CHECK(cudaHostGetDevicePointer(&device_ptr, plain.data(), 0) == cudaErrorInvalidValue);  // not page-locked
    CHECK(cudaHostRegister(plain.data(), 0, cudaHostRegisterDefault) == cudaErrorInvalidValue);
    CHECK(cudaHostRegister(plain.data(), 4096, cudaHostRegisterReadOnly) == cudaErrorInvalidValue);  // unsupported
    CHECK(cudaHostRegister(plain.data(), 4096, cudaHostRegisterIoMemory) == cudaErrorInvalidValue);
    REQUIRE(cudaHostRegister(plain.data(), 4096, cudaHostRegisterPortable) == cudaSuccess);
    CHECK(cudaHostRegister(plain.data() + 512, 64, cudaHostRegisterDefault) == cudaErrorHostMemoryAlreadyRegistered);
    CHECK(cudaHostGetDevicePointer(&device_ptr, plain.data() + 100, 0) == cudaSuccess);  // inside the range
    CHECK(device_ptr == plain.data() + 100);
    CHECK(cudaHostGetDevicePointer(&device_ptr, plain.data(), 1) == cudaErrorInvalidValue);  // flags must be 0
    CHECK(cudaHostUnregister(plain.data() + 1) == cudaErrorHostMemoryNotRegistered);         // not its start
    CHECK(cudaHostUnregister(plain.data()) == cudaSuccess);

    // page-locked memory is host memory to cudaFree and cudaFreeHost; cudaMemcpy copies it whichever direction is
    // named, as the H100 does (programs/memcpy_errors.cu), but not past its end
    float* pinned = nullptr;
    float* device = nullptr;
    REQUIRE(cudaMallocHost(&pinned, 1024 * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&device, 1024 * sizeof(float)) == cudaSuccess);
    for (int i = 0; i < 1024; ++i) pinned[i] = static_cast<float>(i);
    CHECK(cudaMemcpy(device, pinned, 1024 * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaMemcpy(pinned, device, 1024 * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(cudaMemcpy(pinned, device, 1024 * sizeof(float), cudaMemcpyDeviceToDevice) == cudaSuccess);
    CHECK(cudaMemcpy(pinned, device, 2048 * sizeof(float), cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
    CHECK(cudaFree(pinned) == cudaErrorInvalidValue);
    CHECK(cudaFreeHost(device) == cudaErrorInvalidValue);
    CHECK(cudaFreeHost(pinned + 1) == cudaErrorInvalidValue);
    CHECK(cudaFreeHost(pinned) == cudaSuccess);
    CHECK(cudaFree(device) == cudaSuccess);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("programs/device_clock.cu: a kernel's clock() counts at clockRate, in step with clock64()") {
    const Run r = run({program("device_clock")});
    INFO("stdout:\n", r.out, "stderr:\n", r.err);
    REQUIRE(r.exit_code == 0);
    const std::map<std::string, std::string> out = parse_output(r.out);
    CHECK(out.at("threads_waited_a_millisecond") == "32");
    CHECK(out.at("clock64_advanced_at_least_as_far") == "32");
}

// ===============================================================================================================
// Configuration and query calls: versions, cache and limit settings, pointer attributes, host functions on streams
// ===============================================================================================================
TEST_CASE("programs/runtime_config.cu: settings read back, memory types, host work after a kernel on its stream") {
    const Run r = run({program("runtime_config")});
    INFO("stdout:\n", r.out, "stderr:\n", r.err);
    REQUIRE(r.exit_code == 0);
    const std::map<std::string, std::string> out = parse_output(r.out);
    const std::vector<std::pair<std::string, std::string>> want = {
        {"cache_config_prefer_shared", "1"},
        {"stack_limit_4096", "1"},
        {"attributes_device", "cudaSuccess type 2 device_pointer_ok 1 host_pointer_ok 1"},
        {"attributes_managed", "cudaSuccess type 3 device_pointer_ok 1 host_pointer_ok 1"},
        {"attributes_pinned", "cudaSuccess type 1 device_pointer_ok 1 host_pointer_ok 1"},
        {"attributes_registered", "cudaSuccess type 1 device_pointer_ok 1 host_pointer_ok 1"},
        {"attributes_unregistered_type", "0"},
        {"stream_flags_non_blocking", "1"},
        {"host_work_ran", "2"},
        {"host_function_saw_kernel_output", "1"},
        {"callback_status", "cudaSuccess"},
    };
    check_values(out, want);
}

namespace {
void count_call(void* counter) { ++*static_cast<int*>(counter); }
}  // namespace

TEST_CASE("configuration calls check their arguments as a GPU does") {
    CHECK(cudaDeviceSetCacheConfig(static_cast<cudaFuncCache>(7)) == cudaErrorInvalidValue);
    int not_a_kernel = 0;
    CHECK(cudaFuncSetCacheConfig(&not_a_kernel, cudaFuncCachePreferL1) == cudaErrorInvalidDeviceFunction);
    CHECK(cudaDeviceSetSharedMemConfig(static_cast<cudaSharedMemConfig>(3)) == cudaErrorInvalidValue);
    CHECK(cudaDeviceSetLimit(static_cast<cudaLimit>(7), 1) == cudaErrorInvalidValue);
    CHECK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, 48) == cudaErrorInvalidValue);  // not a power of two
    CHECK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, 64) == cudaSuccess);
    size_t value = 0;
    CHECK(cudaDeviceGetLimit(&value, cudaLimitMaxL2FetchGranularity) == cudaSuccess);
    CHECK(value == 64);
    CHECK(cudaDeviceGetLimit(nullptr, cudaLimitStackSize) == cudaErrorInvalidValue);
    CHECK(cudaPointerGetAttributes(nullptr, &value) == cudaErrorInvalidValue);

    int calls = 0;
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    CHECK(cudaLaunchHostFunc(stream, nullptr, &calls) == cudaErrorInvalidValue);
    CHECK(cudaLaunchHostFunc(stream, count_call, &calls) == cudaSuccess);
    CHECK(calls == 1);  // run at the call: the stream's earlier work is done
    CHECK(cudaStreamAddCallback(
              stream, [](cudaStream_t, cudaError_t, void*) {}, nullptr, 1) == cudaErrorInvalidValue);
    REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
    CHECK(cudaLaunchHostFunc(stream, count_call, &calls) == cudaErrorInvalidResourceHandle);
    CHECK(calls == 1);
    unsigned int flags = 0;
    CHECK(cudaStreamGetFlags(stream, &flags) == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaSuccess);
}
