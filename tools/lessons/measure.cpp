// measure.cpp — run one lab's matmul on the emulator and print, as one JSON object, everything the lesson tools
// compare and draw: the launch's grid and block, its global and shared traffic, its warp-level requests and 32-byte
// sectors for A, B and C, and per element how often A and B were read and which block wrote C.
//
//   measure M N K            (the order of the matmul contract; seeded random inputs)
//   measure M N K --requests per launch and source line, the warp-level requests and the lanes' offsets in the
//                            line's first request (what make coalescing draws)
//   measure M N K --totals   only the totals, for large sizes: no check against the CPU reference ("correct" is
//                            null) and no per-element lists (what make bench and make profile need)
//
// Built by tools/lessons/emulator.py with common/emu/emucc against any kernel of a lab.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cudaemu.h>

#include "harness.h"
#include "lab.h"

namespace {

template <typename T>
std::string json_list(const std::vector<T>& values) {
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
    return out + "]";
}

int positive(const char* text) {
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    return (*end == '\0' && n >= 1 && n <= 1 << 20) ? int(n) : 0;
}

}  // namespace

// --requests: per launch, every source line's warp-level requests and its first request lane by lane (make coalescing)
int print_requests(const Problem& p, const Run& run) {
    std::printf("{\"correct\": %s, \"launches\": [", check_result(p, run).ok ? "true" : "false");
    bool first_launch = true;
    for (const cudaemu::LaunchReport& r : cudaemu::launches()) {
        std::printf("%s\n {\"kernel\": \"%s\", \"lines\": [", first_launch ? "" : ",", r.kernel.c_str());
        first_launch = false;
        for (size_t i = 0; i < r.line_requests.size(); ++i) {
            const cudaemu::LineRequests& l = r.line_requests[i];
            std::printf(
                "%s\n  {\"file\": \"%s\", \"line\": %d, \"shared\": %s, \"store\": %s, \"allocation\": \"%s\", "
                "\"requests\": %llu, \"units\": %llu, \"ideal\": %llu, \"access_bytes\": %d, \"first_request\": %s}",
                i ? "," : "", l.file.c_str(), l.line, l.shared ? "true" : "false", l.store ? "true" : "false",
                l.allocation.c_str(), (unsigned long long)l.requests, (unsigned long long)l.sectors,
                (unsigned long long)l.ideal, l.access_bytes, json_list(l.first_request).c_str());
        }
        std::printf("]}");
    }
    std::printf("]}\n");
    return 0;
}

int main(int argc, char** argv) {
    const std::string mode = argc == 5 ? argv[4] : "";
    const bool totals = mode == "--totals", per_line = mode == "--requests";
    const bool shape = argc == 4 || totals || per_line;
    const int M = shape ? positive(argv[1]) : 0, N = shape ? positive(argv[2]) : 0, K = shape ? positive(argv[3]) : 0;
    if (!M || !N || !K)
        return std::fprintf(stderr, "usage: %s M N K [--totals | --requests]   (each >= 1)\n", argv[0]), 2;

    const Problem p = random_problem(M, N, K, 1);
    const Run run = totals ? run_matmul(p, matmul) : run_matmul_counting_requests(p, matmul);
    if (per_line) return print_requests(p, run);
    uint64_t shared_loads = 0, shared_stores = 0;
    for (const cudaemu::LaunchReport& r : cudaemu::launches()) {
        shared_loads += r.shared_load_bytes;
        shared_stores += r.shared_store_bytes;
    }
    // the first launch is the product (a split-K kernel adds a second, the sum of the splits): its grid and block
    // are the ones the tools compare, and its grid.z the number of splits of K
    const dim3 grid = run.kernel_launches ? cudaemu::launches().front().grid : dim3(0, 0, 0);
    const dim3 block = run.kernel_launches ? cudaemu::launches().front().block : dim3(0, 0, 0);

    // a kernel that failed leaves no element counts; what the tools can show then is why it failed
    const cudaError_t error = run.launch_error != cudaSuccess ? run.launch_error : run.sync_error;
    std::string why = error == cudaSuccess ? "" : cudaGetErrorName(error);
    if (!run.diagnostics.empty()) why += ": " + run.diagnostics.front();
    std::string quoted;
    for (char c : why) quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);

    const char* correct = totals ? "null" : check_result(p, run).ok ? "true" : "false";
    std::printf("{\"M\": %d, \"N\": %d, \"K\": %d, \"correct\": %s, \"launches\": %d, \"failure\": \"%s\",\n", M, N, K,
                correct, run.kernel_launches, quoted.c_str());
    std::printf(" \"grid\": [%u, %u], \"splits\": %u, \"block\": [%u, %u],\n", grid.x, grid.y, grid.z, block.x,
                block.y);
    unsigned long long sectors[3] = {}, requests[3] = {};  // A and B loads, C stores: warp-level (cudaemu.h)
    for (const Run::LineRequests& l : run.ABC_requests) {
        const int m = l.matrix == "A" ? 0 : l.matrix == "B" ? 1 : 2;
        sectors[m] += l.sectors, requests[m] += l.requests;
    }
    std::printf(
        " \"sectors\": {\"A\": %llu, \"B\": %llu, \"C\": %llu}, \"requests\": {\"A\": %llu, \"B\": %llu, "
        "\"C\": %llu},\n",
        sectors[0], sectors[1], sectors[2], requests[0], requests[1], requests[2]);
    std::printf(
        " \"read_bytes_AB\": %llu, \"read_bytes\": %llu, \"written_bytes\": %llu, \"shared_load_bytes\": %llu, "
        "\"shared_store_bytes\": %llu%s\n",
        (unsigned long long)run.bytes_read_AB, (unsigned long long)run.bytes_read,
        (unsigned long long)run.bytes_written, (unsigned long long)shared_loads, (unsigned long long)shared_stores,
        totals ? "}" : ",");
    if (totals) return 0;
    std::printf(" \"A_reads\": %s,\n \"B_reads\": %s,\n \"C_writes\": %s,\n \"C_writer\": %s}\n",
                json_list(run.A_reads).c_str(), json_list(run.B_reads).c_str(), json_list(run.C_writes).c_str(),
                json_list(run.C_writer).c_str());
    return 0;
}
