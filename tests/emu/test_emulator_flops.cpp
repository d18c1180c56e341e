// test_emulator_flops.cpp: the floating-point arithmetic kernels execute, counted per thread and by kind
// (LaunchReport's fp32_fma ... fp64_add and the tensor cores' FLOPs by input type): programs/flops.cu's patterns,
// as the H100 counted them (Nsight Compute, recorded in programs/flops.h100.json by python3 -m
// tools.perf.requests_ncu) and as they are worked out by hand.

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test_emulator.h"

using namespace emu_test;

namespace {

const char* const kFlopKeys[] = {"fp32_fma", "fp32_mul", "fp32_add",          "fp64_fma",
                                 "fp64_mul", "fp64_add", "tensor_tf32_flops", "tensor_f16_flops"};

long long flops(const std::string& line, const std::string& kind) {
    return 2 * json_number(line, kind + "_fma") + json_number(line, kind + "_mul") + json_number(line, kind + "_add");
}

std::vector<std::string> h100_launches() {
    std::vector<std::string> out;  // one JSON object per launch
    std::istringstream in(read_file(kTestDir / "programs" / "flops.h100.json"));
    for (std::string line; std::getline(in, line);)
        if (line.rfind("{", 0) == 0) out.push_back(line);
    return out;
}

}  // namespace

TEST_CASE("flops: every count of flops.cu as on the H100, fused multiply-adds, multiplies and adds apart") {
    const Run r = run({program("flops")});
    REQUIRE(r.exit_code == 0);
    const std::vector<std::string> h100 = h100_launches();
    REQUIRE(h100.size() == r.stats.size());
    for (size_t i = 0; i < r.stats.size(); ++i) {
        CAPTURE(r.stats[i]);
        CAPTURE(h100[i]);
        CHECK(flops(r.stats[i], "fp32") == flops(h100[i], "fp32"));
        CHECK(flops(r.stats[i], "fp64") == flops(h100[i], "fp64"));
        for (const char* key : kFlopKeys) {  // a multiply in one statement and its add in the next: one FFMA too
            CAPTURE(key);
            CHECK(json_number(r.stats[i], key) == json_number(h100[i], key));
        }
    }
}

TEST_CASE("flops: hand-computable counts, per thread that executed them") {
    const Run r = run({program("flops")});
    REQUIRE(r.exit_code == 0);
    REQUIRE(r.stats.size() == 8);
    auto count = [&](size_t launch, const char* key) { return json_number(r.stats[launch], key); };
    const int threads = 64, loop = 10;
    CHECK(count(0, "fp32_fma") == threads * loop);  // `s += a * b`, 10 times
    CHECK(count(0, "fp32_mul") == 0);
    CHECK(count(2, "fp32_mul") == threads);
    CHECK(count(2, "fp32_add") == threads);
    CHECK(count(3, "fp32_fma") == 20 * 3);       // fmaf, __fmaf_rn and a * b + c, in 20 threads of 64
    CHECK(count(4, "fp32_fma") == threads * 3);  // the dot product of two float4s: a mul, then 3 fmas
    CHECK(count(4, "fp32_mul") == threads);
    for (const char* key : {"fp64_fma", "fp64_mul", "fp64_add"}) CHECK(count(5, key) == threads);
    CHECK(count(5, "fp32_fma") + count(5, "fp32_mul") + count(5, "fp32_add") == 0);
    CHECK(count(6, "tensor_tf32_flops") == 2 * (2 * 16 * 16 * 8));  // two warps, one 16×16×8 mma_sync each
    CHECK(count(6, "tensor_flops") == count(6, "tensor_tf32_flops"));
    CHECK(count(7, "tensor_f16_flops") == 2 * (2 * 16 * 16 * 16));
    CHECK(count(7, "tensor_tf32_flops") == 0);
}
