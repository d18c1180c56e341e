// harness.cpp — see harness.h.
#include "harness.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "reference_gemm.h"
#ifdef CUDAEMU
#include <cudaemu.h>
#endif

namespace {

std::string shape(int M, int N, int K) {
    return std::to_string(M) + "×" + std::to_string(K) + "·" + std::to_string(K) + "×" + std::to_string(N);
}

std::string error_text(cudaError_t e) { return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")"; }

// A failed kernel leaves the context broken until it is reset; a test suite must go on.
void recover(cudaError_t e) {
    if (e != cudaSuccess) cudaDeviceReset();
}

}  // namespace

std::string with_commas(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

Problem constant_problem(int M, int N, int K, float a, float b) {
    Problem p{M, N, K, std::vector<float>(size_t(M) * K, a), std::vector<float>(size_t(K) * N, b), ""};
    char buf[96];
    snprintf(buf, sizeof buf, "%s with A = %g, B = %g", shape(M, N, K).c_str(), a, b);
    p.description = buf;
    return p;
}

Problem counting_problem(int M, int N, int K) {
    Problem p{M, N, K, std::vector<float>(size_t(M) * K), std::vector<float>(size_t(K) * N), ""};
    for (size_t i = 0; i < p.A.size(); ++i) p.A[i] = float(i + 1);
    for (size_t i = 0; i < p.B.size(); ++i) p.B[i] = float(i + 1);
    p.description = shape(M, N, K) + " with values 1, 2, 3, ...";
    return p;
}

Problem random_problem(int M, int N, int K, uint32_t seed) {
    Problem p{M, N, K, std::vector<float>(size_t(M) * K), std::vector<float>(size_t(K) * N), ""};
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& x : p.A) x = dist(gen);
    for (float& x : p.B) x = dist(gen);
    p.description = shape(M, N, K) + " seeded random (seed " + std::to_string(seed) + ")";
    return p;
}

#ifdef CUDAEMU
namespace {
// The emulator's advice is for any program; a lab's matmul knows more.
// - Blocks that store different values to one element of C have no sum to combine (the emulator suggests an atomic,
//   as for a histogram's bins): every element of C is one dot product, so the store's index maps two threads to one
//   element.
// - A misaligned vector access into A, B or C asks whether the row length lets rows start aligned; here the row
//   length is known, and so is the element the access starts at: either the rows do not start aligned, or the column
//   does not.
std::string matmul_advice(const std::string& kind, const std::string& message, const Problem& p) {
    const size_t dash = message.rfind(" — ");
    if (dash == std::string::npos) return message;
    if (kind == "race" && message.find("both store to 'C'[") != std::string::npos)
        return message.substr(0, dash) +
               " — each element of C is one dot product, for one thread of one block to store: does the store's "
               "index map two threads to one element (row and column swapped, or a column past N running into the "
               "next row)?";
    if (kind != "misaligned") return message;
    const size_t needs = message.find("needs "), byte = message.find(" (byte ");
    if (needs == std::string::npos || byte < 3 || message[byte - 1] != '\'' || message[byte - 3] != '\'')
        return message;
    const char matrix = message[byte - 2];
    const int align = std::atoi(message.c_str() + needs + 6), width = align / 4;  // floats per vector
    const int row_length = matrix == 'A' ? p.K : matrix == 'B' || matrix == 'C' ? p.N : 0;
    if (row_length <= 0 || width < 2 || (matrix != 'A' && matrix != 'B' && matrix != 'C')) return message;
    const uint64_t element = std::strtoull(message.c_str() + byte + 7, nullptr, 10) / 4;
    const uint64_t row = element / row_length, col = element % row_length;
    const std::string vector = width == 4 ? "float4" : "float2", w = std::to_string(width),
                      length = std::to_string(row_length), name(1, matrix);
    std::string advice = " — a " + vector + " must start at a multiple of " + std::to_string(align) + " bytes. ";
    if (row_length % width)
        advice += "A row of " + name + " holds " + length + " floats, not a multiple of " + w +
                  ", so its rows do not all start at one: take the " + vector +
                  " path only when the row length is a "
                  "multiple of " +
                  w + ", and load by float otherwise";
    else
        advice += "This one starts at " + name + "[" + std::to_string(row) + "][" + std::to_string(col) +
                  "]: the row length, " + length + ", is a multiple of " + w + ", and column " + std::to_string(col) +
                  " is not. The column index must give every " + vector + " a column that is a multiple of " + w +
                  " (an index that counts " + vector + "s needs × " + w + ")";
    return message.substr(0, dash) + advice;
}

// The emulator's account of every launch since clear_launches(): traffic and findings.
void collect_launches(const Problem& p, Run& run) {
    run.measured = true;
    for (const cudaemu::LaunchReport& r : cudaemu::launches()) {
        run.requests_counted = run.requests_counted || r.requests_counted;
        ++run.kernel_launches;
        run.bytes_read += r.global_load_bytes;
        run.bytes_written += r.global_store_bytes;
        run.shared_bytes_read += r.shared_load_bytes;
        run.barriers.push_back({r.kernel, uint64_t(r.grid.x) * r.grid.y * r.grid.z, r.block_barriers});
        run.tensor_flops += r.tensor_flops;
        run.fp32_flops += r.fp32_flops();
        run.fp64_flops += r.fp64_flops();
        run.tf32_unrounded_inputs += r.tf32_unrounded_inputs;
        run.tf32_unrounded_a_inputs += r.tf32_unrounded_a_inputs;
        run.ptx_mma_flops += r.ptx_mma_flops;
        run.ldmatrix_bytes += r.ldmatrix_bytes;
        for (const cudaemu::AllocationTraffic& a : r.allocations) {
            if (a.name == "A") run.bytes_read_A += a.load_bytes;
            if (a.name == "B") run.bytes_read_B += a.load_bytes;
            if (a.name == "C") run.bytes_written_C += a.store_bytes;
        }
        for (const cudaemu::LineTraffic& l : r.line_loads) {
            if (l.allocation != "A" && l.allocation != "B") continue;
            const std::string where = l.file + ":" + std::to_string(l.line);
            auto same = [&](const Run::LineReads& x) { return x.matrix == l.allocation && x.where == where; };
            auto it = std::find_if(run.AB_line_reads.begin(), run.AB_line_reads.end(), same);
            if (it == run.AB_line_reads.end())
                run.AB_line_reads.push_back({l.allocation, where, l.load_bytes});
            else
                it->bytes += l.load_bytes;
        }
        run.shared_load_wavefronts += r.shared_load_wavefronts;
        for (const cudaemu::LineRequests& l : r.line_requests) {
            if (l.shared && !l.store) {  // shared loads by line, for the wavefront check's worst line
                const std::string where = l.file + ":" + std::to_string(l.line);
                auto same = [&](const Run::LineRequests& x) { return x.where == where; };
                auto it = std::find_if(run.shared_load_lines.begin(), run.shared_load_lines.end(), same);
                if (it == run.shared_load_lines.end()) it = run.shared_load_lines.insert(it, {"shared", where});
                it->requests += l.requests, it->sectors += l.sectors, it->ideal += l.ideal;
                continue;
            }
            const bool matrix = l.store ? l.allocation == "C" : (l.allocation == "A" || l.allocation == "B");
            if (l.shared || !matrix) continue;
            const std::string where = l.file + ":" + std::to_string(l.line);
            auto same = [&](const Run::LineRequests& x) { return x.matrix == l.allocation && x.where == where; };
            auto it = std::find_if(run.ABC_requests.begin(), run.ABC_requests.end(), same);
            if (it == run.ABC_requests.end()) it = run.ABC_requests.insert(it, {l.allocation, where});
            it->requests += l.requests, it->sectors += l.sectors, it->ideal += l.ideal;
        }
        if (!r.refused.empty()) run.findings.push_back({"launch", "", 0, r.refused});
        for (const cudaemu::Diagnostic& d : r.diagnostics)
            run.findings.push_back({d.kind, d.file, d.line, matmul_advice(d.kind, d.message, p)});
    }
    // An access a GPU faults on comes first: a race or an uninitialised read at the same line is often its echo (a
    // column past N stores into the next row, which another thread stores too).
    std::stable_partition(run.findings.begin(), run.findings.end(), [](const Finding& f) {
        return f.kind == "launch" || f.kind == "out-of-bounds" || f.kind == "misaligned";
    });
    run.bytes_read_AB = run.bytes_read_A + run.bytes_read_B;
    for (const cudaemu::CopyReport& c : cudaemu::copies())
        if (c.from == "A" || c.from == "B")
            run.AB_copies.push_back(c.from + ": " + with_commas(c.bytes) + " bytes to " +
                                    (c.to.empty() ? std::string("the host") : "the device buffer " + c.to));
    for (const cudaemu::HostAccessReport& h : cudaemu::host_accesses())
        run.host_accesses.push_back((h.line ? h.file + ":" + std::to_string(h.line) + ": " : std::string()) +
                                    (h.store ? "writes " : "reads ") +
                                    (h.allocation.empty() ? std::string("device memory") : h.allocation));
    for (const Finding& f : run.findings) case_record().add_finding(f);
}
}  // namespace
#endif

CaseRecord& case_record() {
    static CaseRecord record;
    return record;
}

void CaseRecord::add_finding(const Finding& f) {
    if (std::find(findings.begin(), findings.end(), f) == findings.end()) findings.push_back(f);
}

void CaseRecord::add_failed_check(const std::string& check) {
    if (std::find(failed_checks.begin(), failed_checks.end(), check) == failed_checks.end())
        failed_checks.push_back(check);
}

// Linked into every program that runs a lab through this harness: its CUDA_CHECK throws (lab_common.h).
extern "C" void lab_cuda_check_throws() {}

Run run_matmul_counting_requests(const Problem& p, MatmulFn matmul) {
#ifdef CUDAEMU
    struct Counting {
        bool was = cudaemu::counting_requests();
        Counting() { cudaemu::count_requests(true); }
        ~Counting() { cudaemu::count_requests(was); }
    } counting;
#endif
    return run_matmul(p, matmul);
}

Run run_matmul(const Problem& p, MatmulFn matmul) {
    Run run;
    const size_t a_bytes = p.A.size() * sizeof(float), b_bytes = p.B.size() * sizeof(float);
    const size_t c_elems = size_t(p.M) * p.N, c_bytes = c_elems * sizeof(float);
    run.C.assign(c_elems, std::numeric_limits<float>::quiet_NaN());
    float *A = nullptr, *B = nullptr, *C = nullptr;
    cudaError_t e = cudaMalloc(&A, a_bytes);
    if (e == cudaSuccess) e = cudaMalloc(&B, b_bytes);
    if (e == cudaSuccess) e = cudaMalloc(&C, c_bytes);
    if (e == cudaSuccess) e = cudaMemcpy(A, p.A.data(), a_bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(B, p.B.data(), b_bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(C, run.C.data(), c_bytes, cudaMemcpyHostToDevice);  // NaN: "never written"
    if (e != cudaSuccess) {
        run.sync_error = e;
        recover(e);
        return run;
    }
#ifdef CUDAEMU
    cudaemu::name_allocation(A, "A");
    cudaemu::name_allocation(B, "B");
    cudaemu::name_allocation(C, "C");
    cudaemu::clear_launches();
#endif
    try {
        matmul(A, B, C, p.M, p.N, p.K);
        run.launch_error = cudaGetLastError();
    } catch (const CudaCheckFailure& f) {  // the launcher's CUDA_CHECK: this run fails, the next test still runs
        cudaGetLastError();                // the error it caught is reported below, not left for the next call
        run.launch_error = f.error;
        run.cuda_check = std::string(f.file) + ":" + std::to_string(f.line) + ": CUDA_CHECK(" + f.expr + ")";
    }
    run.sync_error = cudaDeviceSynchronize();
#ifdef CUDAEMU
    collect_launches(p, run);
    if (run.sync_error == cudaSuccess) {
        cudaemu::ElementCounts counts = cudaemu::element_counts(C);
        run.C_writes = counts.writes;
        run.C_writer = counts.writer_block;
        run.A_reads = cudaemu::element_counts(A).reads;
        run.B_reads = cudaemu::element_counts(B).reads;
    }
#endif
    if (run.sync_error == cudaSuccess) {
        cudaError_t copy = cudaMemcpy(run.C.data(), C, c_bytes, cudaMemcpyDeviceToHost);
        if (copy != cudaSuccess) run.sync_error = copy;
    }
    if (run.launch_error != cudaSuccess || run.sync_error != cudaSuccess) {
        recover(run.sync_error != cudaSuccess ? run.sync_error : run.launch_error);
        return run;
    }
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    return run;
}

namespace {

// The emulator's findings, the first few in full: one of each is what a student needs to see.
void append_diagnostics(std::string& out, const Run& run, const std::string& prefix) {
    const size_t shown = 3;
    for (size_t i = 0; i < run.findings.size() && i < shown; ++i) out += "\n  " + prefix + run.findings[i].text();
    if (run.findings.size() > shown) out += "\n  ... and " + std::to_string(run.findings.size() - shown) + " more";
}

// A device buffer of the host flow that is not the size of any of the three matrices in bytes, said for a student;
// "" if none (or not known: on a GPU).
std::string buffer_size_problem(const Problem& p, const Run& run) {
    const uint64_t a = uint64_t(p.M) * p.K, b = uint64_t(p.K) * p.N, c = uint64_t(p.M) * p.N;
    for (const Run::DeviceBuffer& buf : run.device_buffers) {
        const uint64_t n = buf.bytes;
        if (n == a * 4 || n == b * 4 || n == c * 4) continue;
        std::string message = buf.where + " allocated " + with_commas(n) + " bytes; ";
        if (n == a || n == b || n == c)
            return message + "that is the number of floats in " +
                   (n == a   ? "A"
                    : n == b ? "B"
                             : "C") +
                   ", and cudaMalloc counts bytes: ask for count * sizeof(float)";
        return message + "A, B and C need " + with_commas(a * 4) + ", " + with_commas(b * 4) + " and " +
               with_commas(c * 4) + " bytes (count * sizeof(float))";
    }
    return "";
}

// The variable a device buffer of the host flow was allocated into ("d_C" of "kernel.cu:70: cudaMalloc(&d_C)"), or "".
std::string buffer_name(const Run::DeviceBuffer& buf) {
    const size_t open = buf.where.find("cudaMalloc(&");
    if (open == std::string::npos) return "";
    const size_t start = open + 12, end = buf.where.find(')', start);
    return end == std::string::npos ? "" : buf.where.substr(start, end - start);
}

// The device buffer that the failed CUDA call names and that was freed before it ("d_C"), or "". The function stopped
// at that call, so a buffer freed by then was freed before it.
std::string freed_buffer_in(const Run& run) {
    auto identifier = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (const Run::DeviceBuffer& buf : run.device_buffers) {
        const std::string name = buffer_name(buf);
        if (!buf.freed || name.empty()) continue;
        for (size_t at = run.cuda_check.find(name); at != std::string::npos; at = run.cuda_check.find(name, at + 1)) {
            const size_t after = at + name.size();
            if ((at == 0 || !identifier(run.cuda_check[at - 1])) &&
                (after == run.cuda_check.size() || !identifier(run.cuda_check[after])))
                return name;
        }
    }
    return "";
}

// The direction a failed cudaMemcpy(dst, src, ...) of the host flow needs, from which of its two pointers is a
// device buffer: "cudaMemcpyHostToDevice from the host's matrix to the device's", or the other; both where unknown.
std::string copy_direction(const Run& run) {
    const size_t open = run.cuda_check.find("cudaMemcpy(");
    const size_t comma = open == std::string::npos ? open : run.cuda_check.find(',', open);
    const size_t next = comma == std::string::npos ? comma : run.cuda_check.find(',', comma + 1);
    auto trimmed = [](std::string s) {
        s.erase(0, s.find_first_not_of(' '));
        s.erase(s.find_last_not_of(' ') + 1);
        return s;
    };
    std::string dst, src;
    if (next != std::string::npos) {
        dst = trimmed(run.cuda_check.substr(open + 11, comma - open - 11));
        src = trimmed(run.cuda_check.substr(comma + 1, next - comma - 1));
    }
    const bool to_host = run.cuda_check.find("cudaMemcpyDeviceToHost") != std::string::npos,
               to_device = run.cuda_check.find("cudaMemcpyHostToDevice") != std::string::npos;
    for (const Run::DeviceBuffer& buf : run.device_buffers) {
        const std::string name = buffer_name(buf);
        if (name.empty() || (name != dst && name != src)) continue;
        // the kind says the other way: either it or the order of the pointers is wrong, which the call cannot tell
        if ((name == dst && to_host) || (name == src && to_device))
            return std::string("its pointers make it a copy ") + (name == dst ? "to" : "from") +
                   " the device and its kind one " + (name == dst ? "from" : "to") +
                   " it: the kind or the order of the pointers is wrong (the destination comes first: cudaMemcpy(dst, "
                   "src, bytes, kind))";
        return name == dst ? "cudaMemcpyHostToDevice from the host's matrix to the device's"
                           : "cudaMemcpyDeviceToHost from the device's matrix to the host's";
    }
    return "cudaMemcpyHostToDevice into a device buffer, cudaMemcpyDeviceToHost out of one";
}

// What went wrong with the run itself, if anything: the error codes and the emulator's diagnosis.
std::string run_failure(const Problem& p, const Run& run) {
    std::string out;
    if (run.entry_missing)
        out =
            "your kernel.cu defines no " + run.entry + " (lab.h): lab 1's second part, the round trip from host memory";
    else if (!run.cuda_check.empty()) {
        out = run.cuda_check + " failed with " + error_text(run.launch_error) + ", so " + run.entry + " stopped there";
        const bool kernel_error =
            run.launch_error == cudaErrorIllegalAddress || run.launch_error == cudaErrorMisalignedAddress ||
            run.launch_error == cudaErrorLaunchFailure || run.launch_error == cudaErrorAssert ||
            run.launch_error == cudaErrorLaunchTimeout || run.launch_error == cudaErrorIllegalInstruction;
        if (kernel_error && run.cuda_check.find("cudaMemcpy") != std::string::npos)
            out +=
                ". That error is the kernel's: the copy back was the first call to wait for it. Wait for the kernel "
                "with cudaDeviceSynchronize and check it right after the launch, so that an error is reported "
                "where it happened";
        if (run.entry != "matmul()" && run.cuda_check.find("cudaGetLastError") != std::string::npos)
            out +=
                " — cudaGetLastError returns the error of the latest call that failed, not only the launch's: a "
                "call before it that no CUDA_CHECK checked may be the one";
        if (run.launch_error == cudaErrorInvalidValue && run.cuda_check.find("cudaMemcpy") != std::string::npos) {
            const std::string sizes = buffer_size_problem(p, run), freed = freed_buffer_in(run);
            if (!freed.empty())
                out += ": " + freed + " was freed (cudaFree) before this copy: free a device buffer after its last use";
            else
                out += sizes.empty() ? " (a copy must stay inside its allocation, and its last argument must match its "
                                       "pointers: " +
                                           copy_direction(run) + ")"
                                     : ": " + sizes;
        }
    } else if (run.unchecked_error != cudaSuccess)
        out = "a CUDA call in " + run.entry + " returned " + error_text(run.unchecked_error) +
              " and no CUDA_CHECK caught it: wrap every CUDA call in CUDA_CHECK, so an error stops the function "
              "where it happened";
    else if (run.launch_error != cudaSuccess)
        out = "the launch failed with " + error_text(run.launch_error) + " — check the grid and block sizes";
    else if (run.sync_error != cudaSuccess)
        out = "the kernel failed with " + error_text(run.sync_error);
    if (!out.empty()) append_diagnostics(out, run, "");
    return out;
}

}  // namespace

namespace {

// The question a count of products asks of a kernel's phases, or "" when it fits no known mistake.
std::string phase_question(const Problem& p, uint64_t products) {
    const int T = p.k_slice, S = std::max(p.k_step, 1);
    if (T <= 0 || p.K <= 0) return "";
    std::vector<int> slices;  // the values of k each phase holds
    for (int k0 = 0; k0 < p.K; k0 += T) slices.push_back(std::min(T, p.K - k0));
    if (slices.size() > 1 && products == uint64_t(slices.back()))
        return "these are exactly the last phase's products: is the sum set to 0 inside the loop over phases, so that "
               "each phase starts again? Set it once, before that loop";
    for (int d = S; d < T; d += S) {
        uint64_t stop_short = 0, start_late = 0;
        for (int r : slices) {
            stop_short += uint64_t(std::min(r, T - d));
            start_late += uint64_t(std::max(r - d, 0));
        }
        if (products != stop_short && products != start_late) continue;
        const std::string n = std::to_string(d);
        const std::string how = products == stop_short && products == start_late
                                    ? "stop " + n + " short of the slice's end, or start at " + n
                                : products == stop_short ? "stop " + n + " short of the slice's end"
                                                         : "start at " + n + " instead of 0";
        return "each full phase added " + std::to_string(T - d) + " of its " + std::to_string(T) +
               " products: does the loop over k within a phase " + how + "?";
    }
    return "";
}

// With every A element a and every B element b, each element of C is K products a·b. A wrong value that is a whole
// number of them says how many products the kernel added up, and that number is only said when every element of C
// holds it.
// - Some elements of A or B never read: a loop over K stopped early (a phase count that rounds down).
// - Every element read, and the count is what the phases leave under a known mistake: the products of the last phase
//   alone (the sum set to 0 in every phase), or each phase short of the same steps of k (its inner loop stops early
//   or starts late). On a GPU, where reads are not counted, a count that both a stop and a phase mistake explain
//   asks about both.
// - Every element read, and no such count: the products were lost after the loads. Only then is an index into a
//   shared tile or fragment asked about (the zero fill only where K leaves a partial slice to fill).
std::string constant_hint(const Problem& p, const Run& run) {
    const std::vector<float>& C = run.C;
    if (p.A.empty() || p.B.empty() || C.empty()) return "";
    const float got = C[0];
    if (!std::isfinite(got)) return "";
    for (float c : C)
        if (c != got) return "";
    const float a = p.A[0], b = p.B[0];
    for (float x : p.A)
        if (x != a) return "";
    for (float x : p.B)
        if (x != b) return "";
    const double products = double(got) / (double(a) * b);
    if (a * b == 0 || products <= 0 || products >= p.K || products != std::floor(products)) return "";
    const uint64_t n = uint64_t(products);
    const std::string count =
        "; that is " + with_commas(n) + " of the K = " + std::to_string(p.K) + " products a·b added up";
    const std::string stop_early = "does a loop over K stop early (a count of phases that rounds down)?";
    const std::string phases = phase_question(p, n);
    auto all_read = [](const std::vector<uint32_t>& reads) {
        return !reads.empty() && std::all_of(reads.begin(), reads.end(), [](uint32_t r) { return r > 0; });
    };
    if (!run.measured) {  // a GPU's run: which elements were read is not known
        const bool rounds_down = p.k_slice <= 0 || n == uint64_t(p.K / p.k_slice) * p.k_slice;
        if (rounds_down && !phases.empty()) return count + ": " + stop_early + " Or " + phases;
        return count + ": " + (phases.empty() ? stop_early : phases);
    }
    if (!all_read(run.A_reads) || !all_read(run.B_reads)) return count + ": " + stop_early;
    const std::string read = count + ", though every element of A and B was read";
    if (!phases.empty()) return read + ": " + phases;
    const bool zero_fill = p.k_slice <= 0 || p.K % p.k_slice != 0;
    return read +
           ": the loop over K reached its end, and products were lost after the loads — does an index into a "
           "shared tile or a fragment pair some elements of A with the wrong k of B" +
           (zero_fill ? ", or with the zero fill past the edge?" : "?");
}

}  // namespace

namespace {
int g_input_mantissa_bits = 23;
}  // namespace

void set_input_mantissa_bits(int bits) { g_input_mantissa_bits = bits; }

namespace {
// Elements of C stored more than once while others were never stored: the store's index gives two threads (of one
// block, where the emulator sees no race between blocks) one element. Said only where the results are wrong; a kernel
// that stores every element repeatedly, with the right value last, is the written-once check's business.
// The elements of C no kernel stored to, and those stored to more than once, with the first of each.
struct StoreCounts {
    size_t never = 0, many = 0, first_never = 0, first_many = 0;
};
StoreCounts count_stores(const Run& run) {
    StoreCounts c;
    for (size_t i = 0; i < run.C_writes.size(); ++i) {
        if (run.C_writes[i] == 0 && !c.never++) c.first_never = i;
        if (run.C_writes[i] > 1 && !c.many++) c.first_many = i;
    }
    return c;
}

std::string store_collision_hint(const Problem& p, const Run& run) {
    if (!run.measured || run.C_writes.size() != size_t(p.M) * p.N) return "";
    const auto [never, many, first_never, first_many] = count_stores(run);
    if (!never || !many) return "";
    auto element = [&](size_t i) { return "C[" + std::to_string(i / p.N) + "][" + std::to_string(i % p.N) + "]"; };
    return ". " + with_commas(many) + (many == 1 ? " element" : " elements") + " of C " + (many == 1 ? "was" : "were") +
           " stored more than once (the first " + element(first_many) + ", " +
           std::to_string(run.C_writes[first_many]) + " times) and " + with_commas(never) + " never (the first " +
           element(first_never) + "): does the store's row or column index give two threads one element?";
}

}  // namespace

// Why C holds a NaN: the harness filled C with NaN, so either nothing stored there, or what was stored is a NaN the
// kernel computed (the emulator's per-element store counts tell the two apart; a GPU's run cannot).
std::string nan_hint(const Run& run, size_t i) {
    if (i >= run.C.size() || !std::isnan(run.C[i])) return "";
    const char* computed = "a variable read before it was set (`float sum;` without `= 0`) or a 0/0";
    if (run.entry != "matmul()")
        return " — NaN means nothing reached C there: the kernel never wrote it, or C was not copied back after it "
               "ran";
    if (i < run.C_writes.size() && run.C_writes[i] > 0)
        return std::string(" — your kernel stored a NaN there: it computed one, from ") + computed;
    if (run.measured) return " — NaN means your kernel never wrote it";
    return std::string(" — NaN means your kernel never wrote it, or computed a NaN from ") + computed;
}

Verdict check_result(const Problem& p, const Run& run) {
    if (!run.host_accesses.empty()) {  // a GPU ends the program there: a segmentation fault
        std::string where;
        for (size_t i = 0; i < run.host_accesses.size() && i < 3; ++i) where += (i ? "; " : "") + run.host_accesses[i];
        return {false,
                p.description + ": host code used a device pointer as if it were host memory (" + where +
                    "). On a GPU that crashes the program: host code reaches device memory only through cudaMemcpy, "
                    "and the product is your kernels' work",
                "correctness"};
    }
    if (!run.AB_copies.empty()) {  // the product is the kernels' work, from A and B where the harness put them
        std::string copied;
        for (size_t i = 0; i < run.AB_copies.size() && i < 3; ++i) copied += (i ? "; " : "") + run.AB_copies[i];
        return {false,
                p.description + ": matmul() copied A or B with cudaMemcpy (" + copied +
                    "). Compute C in your kernels on the device, reading A and B where they are: a copy to the "
                    "host does the work on the CPU, and a copy on the device hides reads from the traffic count",
                "correctness"};
    }
    Verdict v;
    if (std::string failure = run_failure(p, run); !failure.empty())
        return {false, p.description + ": " + failure, "correctness"};
    ReferenceGemm ref = reference_gemm(p.A, p.B, p.M, p.N, p.K, g_input_mantissa_bits);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < run.C.size(); ++i) {
        double got = run.C[i];
        if (!(std::fabs(got - ref.C[i]) <= ref.tolerance[i])) {  // written so that NaN counts as wrong
            if (!wrong) first = i;
            ++wrong;
        }
    }
    if (!wrong) return v;
    char buf[640];
    snprintf(buf, sizeof buf,
             "%s: %zu of %zu elements are wrong; the first is C[%zu][%zu] (row, col): got %.9g, want %.9g "
             "(tolerance %.3g)%s",
             p.description.c_str(), wrong, run.C.size(), first / p.N, first % p.N, double(run.C[first]), ref.C[first],
             ref.tolerance[first], nan_hint(run, first).c_str());
    v.ok = false;
    v.message = buf;
    v.check = "correctness";
    v.message += store_collision_hint(p, run);
    if (run.findings.empty()) v.message += constant_hint(p, run);  // a race can sum anything
    append_diagnostics(v.message, run, "the emulator also found ");
    return v;
}

namespace {

Verdict check_reads(const Problem& p, const Run& run, uint64_t bytes, const std::string& kernel_kind,
                    uint64_t other_bytes = 0) {
    if (!run.measured) return {false, "memory traffic is only measured on the emulator (BACKEND=emu)", "reads"};
    if (Verdict r = check_result(p, run); !r.ok)
        return {false, "traffic is only judged for a correct kernel, and this one is not: " + r.message, r.check};
    // every byte the kernels loaded from global memory counts, not only A's and B's: a copy of A in a buffer of
    // the launcher's own is read from memory just the same. Only a split-K kernel's partial sums may be read
    // besides (other_bytes; 0 elsewhere).
    const uint64_t other = run.bytes_read - run.bytes_read_AB;
    bool ok = run.bytes_read_AB <= bytes && other <= other_bytes;
    if (ok) return {};
    // which matrix: how many times the kernel read each of its elements, on average, and from which lines
    auto per_matrix = [&run](const char* name, const std::vector<uint32_t>& reads) {
        uint64_t loads = 0;
        for (uint32_t r : reads) loads += r;
        char buf[128];
        snprintf(buf, sizeof buf, "%s: %s bytes (each element %.1f times", name,
                 with_commas(loads * sizeof(float)).c_str(),
                 reads.empty() ? 0.0 : double(loads) / double(reads.size()));
        std::string out = buf;
        std::vector<Run::LineReads> lines;
        for (const Run::LineReads& l : run.AB_line_reads)
            if (l.matrix == name) lines.push_back(l);
        std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
        for (size_t i = 0; i < lines.size(); ++i)
            out += (i ? ", " : "; ") + with_commas(lines[i].bytes) + " at " + lines[i].where;
        return out + ")";
    };
    // where partial sums are allowed, A and B have their bound and the rest its own: each is said apart, so that
    // the workspace is not counted against A's and B's bound
    const std::string read = other_bytes ? with_commas(run.bytes_read_AB) + " bytes of A and B" +
                                               (other ? " and " + with_commas(other) + " of other device memory" : "")
                             : other ? with_commas(run.bytes_read) + " bytes (" + with_commas(run.bytes_read_AB) +
                                           " of A and B, " + with_commas(other) + " of other device memory)"
                                     : with_commas(run.bytes_read) + " bytes of A and B";
    const std::string bound =
        other_bytes ? with_commas(bytes) + " of A and B and " + with_commas(other_bytes) + " of its partial sums"
                    : with_commas(bytes);
    return {false,
            p.description + ": your kernel read " + read + "; " + kernel_kind + " reads at most " + bound + ". " +
                per_matrix("A", run.A_reads) + "; " + per_matrix("B", run.B_reads),
            "reads"};
}

}  // namespace

Verdict check_reads_at_most(const Problem& p, const Run& run, uint64_t bytes, const std::string& kernel_kind) {
    return check_reads(p, run, bytes, kernel_kind);
}

Verdict check_reads_at_most_with_partials(const Problem& p, const Run& run, uint64_t bytes, uint64_t partial_bytes,
                                          const std::string& kernel_kind) {
    return check_reads(p, run, bytes, kernel_kind, partial_bytes);
}

Verdict check_shared_loads_per_fma(const Problem& p, const Run& run, int BM, int BN, int BK, int loads_per_fma_num,
                                   int loads_per_fma_den, const std::string& reuse) {
    if (!run.measured)
        return {false, "shared-memory loads are only counted on the emulator (BACKEND=emu)", "register reuse"};
    if (Verdict r = check_result(p, run); !r.ok)
        return {false, "register reuse is only judged for a correct kernel, and this one is not: " + r.message,
                r.check};
    const uint64_t fmas = uint64_t(ceil_div(p.M, BM)) * BM * uint64_t(ceil_div(p.N, BN)) * BN * ceil_div(p.K, BK) * BK;
    const uint64_t bound = fmas * loads_per_fma_num / loads_per_fma_den * sizeof(float);
    if (run.shared_bytes_read <= bound) return {};
    char ratio[64];
    snprintf(ratio, sizeof ratio, "%.2f", double(run.shared_bytes_read) / sizeof(float) / double(fmas));
    return {false,
            p.description + ": your kernel loaded " + with_commas(run.shared_bytes_read) +
                " bytes from shared memory, " + ratio + " floats per multiply-add; " + reuse + " loads at most " +
                with_commas(bound) +
                ". Keep what a thread uses for several multiply-adds in a register, and load it "
                "from shared memory once",
            "register reuse"};
}

Verdict check_shared_wavefronts_per_fma(const Problem& p, const Run& run, int BM, int BN, int BK, int num, int den,
                                        const std::string& layout, const std::string& advice) {
    if (!run.measured || !run.requests_counted)
        return {false, "bank conflicts are only counted on the emulator (BACKEND=emu)", "bank conflicts"};
    if (Verdict r = check_result(p, run); !r.ok)
        return {false, "bank conflicts are only judged for a correct kernel, and this one is not: " + r.message,
                r.check};
    const uint64_t fmas = uint64_t(ceil_div(p.M, BM)) * BM * uint64_t(ceil_div(p.N, BN)) * BN * ceil_div(p.K, BK) * BK;
    // a kernel of mma_m16n8k8_tf32 calls (lab 8) is judged by the multiply-adds they did, whatever its tile shape
    const uint64_t warp_fmas = run.ptx_mma_flops ? run.ptx_mma_flops / 2 / 32 : fmas / 32;
    if (run.shared_load_wavefronts * den <= warp_fmas * num) return {};
    char buf[320];
    snprintf(buf, sizeof buf,
             "%s: your kernel's shared-memory loads took %s wavefronts, %.3f per warp-wide multiply-add, where %s "
             "takes %.3f",
             p.description.c_str(), with_commas(run.shared_load_wavefronts).c_str(),
             double(run.shared_load_wavefronts) / double(warp_fmas), layout.c_str(), double(num) / den);
    std::string message = buf;
    // every line, in source order: which ones the layout should serve in fewer, the advice says
    std::string lines;
    bool conflict_free = true;  // every line's requests at their ideal: too many loads, not too many wavefronts each
    for (const Run::LineRequests& l : run.shared_load_lines) {
        if (!l.requests) continue;
        conflict_free = conflict_free && l.sectors <= l.ideal;
        snprintf(buf, sizeof buf, "%s%s %.1f", lines.empty() ? "" : ", ", l.where.c_str(),
                 double(l.sectors) / double(l.requests));
        lines += buf;
    }
    if (!lines.empty()) message += "; wavefronts per request of the shared loads at " + lines;
    if (conflict_free && !lines.empty())  // the layout is right: the advice about banks would be wrong
        return {false,
                message +
                    ". Every one of those loads is already conflict-free: the excess is in how many there are. "
                    "Check the tile sizes against lab.h's (a smaller warp or thread tile loads the same data "
                    "from shared memory more often) and that each value is loaded once and kept in a register "
                    "for every multiply-add that uses it",
                "bank conflicts"};
    return {false, message + ". " + advice + " (make coalescing shows which lanes meet in a bank)", "bank conflicts"};
}

Verdict check_one_barrier_per_slice(const Problem& p, const Run& run, int BK) {
    if (!run.measured) return {false, "barriers are only counted on the emulator (BACKEND=emu)", "barriers"};
    if (Verdict r = check_result(p, run); !r.ok)
        return {false, "double buffering is only judged for a correct kernel, and this one is not: " + r.message,
                r.check};
    const uint64_t slices = ceil_div(p.K, BK);
    for (const Run::LaunchBarriers& l : run.barriers) {
        if (l.blocks == 0 || l.barriers <= l.blocks * (slices + 1)) continue;
        char per_block[32];
        snprintf(per_block, sizeof per_block, "%.1f", double(l.barriers) / double(l.blocks));
        return {false,
                p.description + ": each block of " + l.kernel + " met " + per_block + " __syncthreads() for " +
                    std::to_string(slices) + " slices of K (BK = " + std::to_string(BK) +
                    "); with two stages, the next slice is loaded into one "
                    "while the other is read, and one barrier per slice is enough (at most " +
                    std::to_string(slices + 1) + ", counting the one before the first slice)",
                "barriers"};
    }
    return {};
}

Verdict check_fp32_flops(const Problem& p, const Run& run) {
    if (!run.measured) return {false, "arithmetic is only counted on the emulator (BACKEND=emu)", "flops"};
    if (Verdict r = check_result(p, run); !r.ok)
        return {false, "the arithmetic is only judged for a correct kernel, and this one is not: " + r.message,
                r.check};
    const uint64_t product = 2ull * p.M * p.N * p.K;
    if (run.fp32_flops >= product) return {};
    std::string elsewhere;
    if (run.fp64_flops)
        elsewhere += "; they did " + with_commas(run.fp64_flops) + " in double: this lab computes in float";
    if (run.tensor_flops)
        elsewhere += "; the tensor cores did " + with_commas(run.tensor_flops) + ": this lab uses the CUDA cores";
    return {false,
            p.description + ": the kernels executed " + with_commas(run.fp32_flops) + " float FLOPs, fewer than the " +
                with_commas(product) + " of the product (2·M·N·K: one multiply and one add per a·b)" + elsewhere +
                ". Every multiply-add of C must run in your kernels, on the device, in float",
            "flops"};
}

namespace {

// The inputs of the tensor-core instruction `mma` that the kernels left unrounded, and which operand's fragments
// they were in: the fix is `round` after loading those fragments
Verdict unrounded_inputs(const Problem& p, const Run& run, const char* mma, const char* round) {
    const uint64_t a = run.tf32_unrounded_a_inputs, b = run.tf32_unrounded_inputs - a;
    const std::string where = !b   ? ", all of them in the A fragments"
                              : !a ? ", all of them in the B fragments"
                                   : " (" + with_commas(a) + " in the A fragments, " + with_commas(b) + " in the B)";
    const std::string which = !b   ? "each element of the A fragments"
                              : !a ? "each element of the B fragments"
                                   : "each fragment element";
    return {false,
            p.description + ": " + with_commas(run.tf32_unrounded_inputs) + " inputs of " + mma +
                " were not rounded to TF32" + where + ", so the tensor cores truncated them: round " + which +
                " with " + round + " (round to nearest halves the error truncation makes)",
            "tensor cores"};
}

}  // namespace

Verdict check_tensor_cores(const Problem& p, const Run& run) {
    if (!run.measured) return {false, "tensor-core work is only counted on the emulator (BACKEND=emu)", "tensor cores"};
    if (Verdict r = check_result(p, run); !r.ok)
        return {false, "tensor-core use is only judged for a correct kernel, and this one is not: " + r.message,
                r.check};
    const uint64_t product = 2ull * p.M * p.N * p.K;
    if (run.tensor_flops < product)
        return {false,
                p.description + ": the tensor cores (mma_sync) did " + with_commas(run.tensor_flops) + " of the " +
                    with_commas(product) +
                    " FLOPs of the product (2·M·N·K): compute every multiply-add with wmma::mma_sync, none with "
                    "float arithmetic on the CUDA cores",
                "tensor cores"};
    const uint64_t other = run.fp32_flops + run.fp64_flops;
    if (other * 99 > run.tensor_flops)  // more than 1 % of all the FLOPs
        return {false,
                p.description + ": besides the tensor cores' " + with_commas(run.tensor_flops) +
                    " FLOPs, the kernels executed " + with_commas(other) +
                    " in float or double arithmetic on the CUDA cores, more than 1 % of the work: leave the "
                    "multiply-adds to mma_sync alone",
                "tensor cores"};
    if (run.tf32_unrounded_inputs)
        return unrounded_inputs(p, run, "mma_sync", "wmma::__float_to_tf32 after load_matrix_sync");
    return {};
}

Verdict check_mma_sync_ldmatrix(const Problem& p, const Run& run, int WN) {
    if (!run.measured) return {false, "tensor-core work is only counted on the emulator (BACKEND=emu)", "tensor cores"};
    if (Verdict r = check_result(p, run); !r.ok)
        return {false, "tensor-core use is only judged for a correct kernel, and this one is not: " + r.message,
                r.check};
    const uint64_t product = 2ull * p.M * p.N * p.K;
    const uint64_t wmma = run.tensor_flops - run.ptx_mma_flops;
    if (run.ptx_mma_flops < product) {
        std::string message = p.description + ": mma_m16n8k8_tf32 did " + with_commas(run.ptx_mma_flops) + " of the " +
                              with_commas(product) + " FLOPs of the product (2·M·N·K)";
        if (wmma)
            message += "; wmma::mma_sync did " + with_commas(wmma) +
                       ": this lab is the warp-level instruction under lab 7's WMMA API, with fragments you load "
                       "yourself. Compute every multiply-add with mma_m16n8k8_tf32 from <mma_ptx.h>, its A "
                       "fragments loaded with ldmatrix_x4";
        else
            message +=
                ": compute every multiply-add with mma_m16n8k8_tf32 from <mma_ptx.h>, none with float "
                "arithmetic on the CUDA cores";
        return {false, message, "tensor cores"};
    }
    const uint64_t other = run.fp32_flops + run.fp64_flops + wmma;
    if (other * 99 > run.ptx_mma_flops)  // more than 1 % of all the FLOPs
        return {false,
                p.description + ": besides mma_m16n8k8_tf32's " + with_commas(run.ptx_mma_flops) +
                    " FLOPs, the kernels executed " + with_commas(other) +
                    " elsewhere (float or double arithmetic, wmma::mma_sync), more than 1 % of the work: leave the "
                    "multiply-adds to mma_m16n8k8_tf32 alone",
                "tensor cores"};
    if (run.tf32_unrounded_inputs) return unrounded_inputs(p, run, "mma_m16n8k8_tf32", "cvt_rna_tf32 after its load");
    // each call's A fragment is 16×8 floats; one fragment serves at most 2·WN/8 calls of its warp
    constexpr uint64_t kCallFlops = 2 * 16 * 8 * 8, kFragmentBytes = 16 * 8 * sizeof(float);
    const uint64_t calls = run.ptx_mma_flops / kCallFlops;
    const uint64_t needed = calls * kFragmentBytes / (2 * uint64_t(WN) / 8);
    if (run.ldmatrix_bytes >= needed) return {};
    return {false,
            p.description + ": ldmatrix read " + with_commas(run.ldmatrix_bytes) +
                " bytes of shared memory, where the A fragments of the kernels' " + with_commas(calls) +
                " mma_m16n8k8_tf32 calls take at least " + with_commas(needed) + " (each 16×8 fragment, " +
                std::to_string(kFragmentBytes) + " bytes, serving the " + std::to_string(2 * WN / 8) +
                " multiply-adds of a warp tile " + std::to_string(2 * WN) +
                " wide): load every A fragment with one ldmatrix_x4 from the swizzled As, each lane giving the "
                "address of one row (mma_ptx.h), instead of element by element",
            "tensor cores"};
}

Verdict check_written_once(const Problem& p, const Run& run) {
    if (!run.measured) return {false, "kernel stores are only counted on the emulator (BACKEND=emu)", "written once"};
    if (Verdict r = check_result(p, run); !r.ok)
        return {false, "stores are only judged for a correct kernel, and this one is not: " + r.message, r.check};
    const auto [never, many, first_never, first_many] = count_stores(run);
    const uint64_t c_bytes = uint64_t(p.M) * p.N * sizeof(float);
    if (never)
        return {false,
                p.description + ": " + with_commas(never) +
                    " elements of C were not written by kernel code, "
                    "the first C[" +
                    std::to_string(first_never / p.N) + "][" + std::to_string(first_never % p.N) +
                    "] — C must be computed on the device by your kernel, not copied there from the host",
                "written once"};
    if (many)
        return {false,
                p.description + ": " + with_commas(many) + " elements of C were stored more than once, the first C[" +
                    std::to_string(first_many / p.N) + "][" + std::to_string(first_many % p.N) + "] " +
                    std::to_string(run.C_writes[first_many]) +
                    " times — accumulate in a register and store each element once",
                "written once"};
    if (run.bytes_written != c_bytes)
        return {false,
                p.description + ": your kernel stored " + with_commas(run.bytes_written) +
                    " bytes to global memory; C is " + with_commas(c_bytes) + " bytes, stored once",
                "written once"};
    return {};
}

Sectors naive_mapping_sectors(const Problem& p, dim3 block) {
    Sectors s;
    const uint32_t threads = block.x * block.y;
    const int blocks_x = ceil_div(p.N, int(block.x)), blocks_y = ceil_div(p.M, int(block.y));
    std::vector<uint64_t> a, b, c;  // one warp's sectors
    auto distinct = [](std::vector<uint64_t>& v) {
        std::sort(v.begin(), v.end());
        return uint64_t(std::unique(v.begin(), v.end()) - v.begin());
    };
    for (int by = 0; by < blocks_y; ++by)
        for (int bx = 0; bx < blocks_x; ++bx)
            for (uint32_t warp = 0; warp * 32 < threads; ++warp) {
                std::vector<std::pair<int, int>> lanes;  // (row, col) of the warp's threads inside C
                for (uint32_t t = warp * 32; t < std::min(threads, warp * 32 + 32); ++t) {
                    const int row = by * int(block.y) + int(t / block.x), col = bx * int(block.x) + int(t % block.x);
                    if (row < p.M && col < p.N) lanes.push_back({row, col});
                }
                if (lanes.empty()) continue;
                c.clear();
                for (auto [row, col] : lanes) c.push_back((uint64_t(row) * p.N + col) * sizeof(float) / 32);
                s.C += distinct(c);
                s.C_bytes += lanes.size() * sizeof(float);
                s.A_bytes += lanes.size() * sizeof(float) * p.K;
                s.B_bytes += lanes.size() * sizeof(float) * p.K;
                for (int k = 0; k < p.K; ++k) {
                    a.clear(), b.clear();
                    for (auto [row, col] : lanes) {
                        a.push_back((uint64_t(row) * p.K + k) * sizeof(float) / 32);
                        b.push_back((uint64_t(k) * p.N + col) * sizeof(float) / 32);
                    }
                    s.A += distinct(a), s.B += distinct(b);
                }
            }
    return s;
}

Sectors tile_mapping_sectors(const Problem& p, int BM, int BN, int BK) {
    // the sectors of `floats` consecutive floats starting at float `first` of an allocation (32-byte aligned)
    auto spanned = [](uint64_t first, uint64_t floats) {
        return floats ? (first + floats - 1) * sizeof(float) / 32 - first * sizeof(float) / 32 + 1 : 0;
    };
    const uint64_t blocks_x = ceil_div(p.N, BN), blocks_y = ceil_div(p.M, BM), phases = ceil_div(p.K, BK);
    Sectors s;
    for (uint64_t t = 0; t < phases; ++t) {
        const uint64_t k0 = t * BK, k1 = std::min<uint64_t>(p.K, k0 + BK);
        for (uint64_t row = 0; row < uint64_t(p.M); ++row)  // the A tile's rows, once per block column
            s.A += blocks_x * spanned(row * p.K + k0, k1 - k0);
        for (uint64_t bx = 0; bx < blocks_x; ++bx) {  // the B tile's rows, once per block row
            const uint64_t c0 = bx * BN, c1 = std::min<uint64_t>(p.N, c0 + BN);
            for (uint64_t k = k0; k < k1; ++k) s.B += blocks_y * spanned(k * p.N + c0, c1 - c0);
        }
    }
    for (uint64_t bx = 0; bx < blocks_x; ++bx) {
        const uint64_t c0 = bx * BN, c1 = std::min<uint64_t>(p.N, c0 + BN);
        for (uint64_t row = 0; row < uint64_t(p.M); ++row) s.C += spanned(row * p.N + c0, c1 - c0);
    }
    s.A_bytes = uint64_t(p.M) * p.K * blocks_x * sizeof(float);  // each in-bounds element once per block column
    s.B_bytes = uint64_t(p.K) * p.N * blocks_y * sizeof(float);
    s.C_bytes = uint64_t(p.M) * p.N * sizeof(float);
    return s;
}

Verdict check_coalesced(const Problem& p, const Run& run, const Sectors& taught, const std::string& mapping,
                        const std::string& advice) {
    if (!run.measured) return {false, "sectors are only counted on the emulator (BACKEND=emu)", "coalescing"};
    if (Verdict r = check_result(p, run); !r.ok)
        return {false, "coalescing is only judged for a correct kernel, and this one is not: " + r.message, r.check};
    struct Matrix {
        const char* name;
        uint64_t taught_sectors, taught_bytes, bytes;
    };
    const Matrix matrices[] = {{"A", taught.A, taught.A_bytes, run.bytes_read_A},
                               {"B", taught.B, taught.B_bytes, run.bytes_read_B},
                               {"C", taught.C, taught.C_bytes, run.bytes_written_C}};
    std::string out;
    for (const Matrix& m : matrices) {
        uint64_t sectors = 0;
        const Run::LineRequests* worst = nullptr;
        for (const Run::LineRequests& l : run.ABC_requests) {
            if (l.matrix != m.name) continue;
            sectors += l.sectors;
            if (!worst || l.sectors * worst->ideal > worst->sectors * l.ideal) worst = &l;  // most sectors per ideal
        }
        // sectors / bytes at most twice the taught mapping's, in whole numbers
        if (!worst || !m.bytes || sectors * m.taught_bytes <= 2 * m.taught_sectors * m.bytes) continue;
        const bool store = m.name[0] == 'C';
        char per[96], got[48], want[48];
        std::snprintf(per, sizeof per, "%.1f sectors of 32 bytes per warp request where %.1f would do",
                      double(worst->sectors) / double(worst->requests), double(worst->ideal) / double(worst->requests));
        std::snprintf(got, sizeof got, "%.0f", double(m.bytes) / double(sectors));
        std::snprintf(want, sizeof want, "%.0f", double(m.taught_bytes) / double(m.taught_sectors));
        const std::string bytes = std::string(" (a sector per ") + got + " bytes " + (store ? "stored" : "loaded") +
                                  "; " + mapping + " takes one per " + want + ")";
        out += (out.empty() ? p.description + ": " : "; ") + worst->where + (store ? " stores C with " : " loads ") +
               (store ? "" : std::string(m.name) + " with ") + per + bytes;
    }
    if (out.empty()) return {};
    return {false, out + " — " + advice, "coalescing"};
}

Verdict check_clean(const Problem& p, const Run& run) {
    if (!run.measured) return {false, "memory safety is only checked on the emulator (BACKEND=emu)", "memory safety"};
    if (!run.findings.empty() || run.launch_error != cudaSuccess || run.sync_error != cudaSuccess) {
        std::string out = p.description + ":";
        if (run.findings.empty()) out += " " + run_failure(p, run);
        append_diagnostics(out, run, "");
        return {false, out, "memory safety"};
    }
    if (Verdict r = check_result(p, run); !r.ok)
        return {false, "memory safety is only judged for a correct kernel, and this one is not: " + r.message, r.check};
    return {};
}

// ---------------------------------------------------------------------------------------------------------------
// Lab 1's host flow

Run run_host_flow(const Problem& p, HostMatmulFn fn) {
    Run run;
    run.entry = "matmul_from_host()";
    const size_t c_elems = size_t(p.M) * p.N, c_bytes = c_elems * sizeof(float);
    run.C.assign(c_elems, std::numeric_limits<float>::quiet_NaN());
    if (!fn) {  // lab 1's tests declare it weak: a kernel.cu without it still builds, and fails here
        run.entry_missing = true;
        return run;
    }
    cudaGetLastError();  // nothing left over from an earlier test
    // Page-locked, as a program that copies a lot would use: a copy into it can run while the host goes on.
    float* C = nullptr;
    if (cudaError_t e = cudaMallocHost(&C, c_bytes); e != cudaSuccess) {
        run.sync_error = e;
        recover(e);
        return run;
    }
    std::copy(run.C.begin(), run.C.end(), C);
#ifdef CUDAEMU
    const size_t allocations_before = cudaemu::device_allocations().size();
    cudaemu::clear_launches();
    // A and B are ordinary host memory: a kernel given them instead of device copies faults on a GPU, and here
    // gets a finding that names them
    cudaemu::mark_host_memory(p.A.data(), p.A.size() * sizeof(float), "A");
    cudaemu::mark_host_memory(p.B.data(), p.B.size() * sizeof(float), "B");
#endif
    try {
        fn(p.A.data(), p.B.data(), C, p.M, p.N, p.K);
        run.unchecked_error = cudaGetLastError();
    } catch (const CudaCheckFailure& f) {
        cudaGetLastError();
        run.launch_error = f.error;
        run.cuda_check = std::string(f.file) + ":" + std::to_string(f.line) + ": CUDA_CHECK(" + f.expr + ")";
    }
#ifdef CUDAEMU
    cudaemu::forget_host_memory(p.A.data());
    cudaemu::forget_host_memory(p.B.data());
#endif
    std::copy(C, C + c_elems, run.C.begin());  // what the caller finds in C when the function has returned
    run.sync_error = cudaDeviceSynchronize();
#ifdef CUDAEMU
    collect_launches(p, run);
    const std::vector<cudaemu::DeviceAllocation> all = cudaemu::device_allocations();
    for (size_t i = allocations_before; i < all.size(); ++i)
        run.device_buffers.push_back(
            {all[i].bytes, all[i].freed,
             all[i].file + ":" + std::to_string(all[i].line) + ": cudaMalloc(&" + all[i].name + ")"});
#endif
    cudaFreeHost(C);
    recover(run.sync_error != cudaSuccess ? run.sync_error : run.launch_error);
    return run;
}

Verdict check_host_flow_clean(const Problem& p, const Run& run) {
    if (run.entry_missing) return {false, p.description + ": " + run_failure(p, run), "host flow"};
    if (!run.measured) return {false, "device buffers are only tracked on the emulator (BACKEND=emu)", "host flow"};
    if (std::string sizes = buffer_size_problem(p, run); !sizes.empty())
        return {false, p.description + ": " + sizes, "host flow"};
    // a function a failed CUDA_CHECK stopped has not reached its cudaFree calls: no leak to report. A failure of the
    // kernel's is correctness's (the reporter says so in one line where a correctness test failed); one of the host
    // flow's own calls is this test's
    if (std::string failure = run_failure(p, run); !failure.empty()) {
        if (!run.findings.empty() || run.sync_error != cudaSuccess)
            return {false,
                    "memory safety is only judged for a correct kernel, and this one is not: " + p.description + ": " +
                        failure,
                    "correctness"};
        return {false, p.description + ": " + failure, "host flow"};
    }
    for (const Run::DeviceBuffer& buf : run.device_buffers)
        if (!buf.freed)
            return {false,
                    p.description + ": the " + with_commas(buf.bytes) + " bytes from " + buf.where +
                        " were never freed: cudaFree every device buffer before returning (a program that "
                        "calls the function in a loop would run out of GPU memory)",
                    "host flow"};
    if (!run.findings.empty()) {
        std::string out = p.description + ":";
        append_diagnostics(out, run, "");
        return {false, out, "memory safety"};
    }
    if (Verdict r = check_result(p, run); !r.ok)
        return {false, "memory safety is only judged for a correct kernel, and this one is not: " + r.message, r.check};
    return {};
}
