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
// "failure" is why the run went wrong ("" when it did not): the CUDA error, then the emulator's first finding; "error"
// the error alone and "findings" every finding, with its file and line.
//
// Built by tools/lessons/emulator.py with common/emu/emucc against any kernel of a lab.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cudaemu.h>

#include "harness.h"
#include "json_writer.h"
#include "lab.h"

namespace {

template <typename T>
void write_list(json::Writer& w, const std::vector<T>& values) {
    w.begin_array();
    for (const T& v : values) w.value(v);
    w.end_array();
}

int positive(const char* text) {
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    return (*end == '\0' && n >= 1 && n <= 1 << 20) ? int(n) : 0;
}

}  // namespace

// --requests: per launch, every source line's warp-level requests and its first request lane by lane (make coalescing)
int print_requests(const Problem& p, const Run& run) {
    json::Writer w;
    w.begin_object().field("correct", check_result(p, run).ok).key("launches").begin_array();
    for (const cudaemu::LaunchReport& r : cudaemu::launches()) {
        w.begin_object().field("kernel", r.kernel).key("lines").begin_array();
        for (const cudaemu::LineRequests& l : r.line_requests) {
            w.begin_object()
                .field("file", l.file)
                .field("line", l.line)
                .field("shared", l.shared)
                .field("store", l.store)
                .field("allocation", l.allocation)
                .field("requests", l.requests)
                .field("units", l.sectors)
                .field("ideal", l.ideal)
                .field("access_bytes", l.access_bytes)
                .key("first_request");
            write_list(w, l.first_request);
            w.end_object();
        }
        w.end_array().end_object();
    }
    w.end_array().end_object();
    std::printf("%s\n", w.str().c_str());
    return 0;
}

int main(int argc, char** argv) {
    const std::string mode = argc == 5 ? argv[4] : "";
    const bool totals = mode == "--totals", per_line = mode == "--requests";
    const bool shape = argc == 4 || totals || per_line;
    const int M = shape ? positive(argv[1]) : 0, N = shape ? positive(argv[2]) : 0, K = shape ? positive(argv[3]) : 0;
    if (!M || !N || !K)
        return std::fprintf(stderr, "usage: %s M N K [--totals | --requests]   (each >= 1)\n", argv[0]), 2;

    set_input_mantissa_bits(INPUT_MANTISSA_BITS);  // "correct" as the lab's tests judge it (lab 7: TF32 inputs)
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

    // a kernel that failed (an error) leaves no element counts; what the tools can show then is why it failed. A
    // finding without an error (a race, a read of uninitialised memory) lets the kernel finish: its counts are there
    const cudaError_t error = run.launch_error != cudaSuccess ? run.launch_error : run.sync_error;
    std::string why = error == cudaSuccess ? "" : cudaGetErrorName(error);
    if (!run.findings.empty()) why += ": " + run.findings.front().text();

    json::Writer w;
    w.begin_object().field("M", M).field("N", N).field("K", K).key("correct");
    if (totals)
        w.null();
    else
        w.value(check_result(p, run).ok);
    w.field("launches", run.kernel_launches).field("failure", why);
    w.field("error", error == cudaSuccess ? "" : cudaGetErrorName(error)).key("findings").begin_array();
    for (const Finding& f : run.findings)
        w.begin_object()
            .field("kind", f.kind)
            .field("file", f.file)
            .field("line", f.line)
            .field("message", f.message)
            .end_object();
    w.end_array();
    w.key("grid").begin_array().value(grid.x).value(grid.y).end_array();
    w.field("splits", grid.z);
    w.key("block").begin_array().value(block.x).value(block.y).end_array();
    uint64_t sectors[3] = {}, requests[3] = {};  // A and B loads, C stores: warp-level (cudaemu.h)
    for (const Run::LineRequests& l : run.ABC_requests) {
        const int m = l.matrix == "A" ? 0 : l.matrix == "B" ? 1 : 2;
        sectors[m] += l.sectors, requests[m] += l.requests;
    }
    w.key("sectors").begin_object().field("A", sectors[0]).field("B", sectors[1]).field("C", sectors[2]).end_object();
    w.key("requests")
        .begin_object()
        .field("A", requests[0])
        .field("B", requests[1])
        .field("C", requests[2])
        .end_object();
    w.field("read_bytes_AB", run.bytes_read_AB)
        .field("read_bytes", run.bytes_read)
        .field("written_bytes", run.bytes_written)
        .field("shared_load_bytes", shared_loads)
        .field("shared_store_bytes", shared_stores);
    if (!totals) {
        w.key("A_reads");
        write_list(w, run.A_reads);
        w.key("B_reads");
        write_list(w, run.B_reads);
        w.key("C_writes");
        write_list(w, run.C_writes);
        w.key("C_writer");
        write_list(w, run.C_writer);
    }
    w.end_object();
    std::printf("%s\n", w.str().c_str());
    return 0;
}
