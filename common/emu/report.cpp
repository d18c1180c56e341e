// report.cpp — launch reports: what the workers counted, the diagnostics they kept (ordered, symbolised and
// worded), printed to stderr, appended as one JSON line to CUDAEMU_STATS, and kept for cudaemu::launches().
#include "report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "../json_writer.h"
#include "api.h"
#include "checks.h"
#include "memory.h"
#include "requests.h"
#include "scheduler.h"
#include "symbols.h"

namespace cudaemu {

std::vector<LaunchReport> g_reports;
std::vector<CopyReport> g_copies;

const char* kind_name(DiagKind k) {
    switch (k) {
        case DiagKind::kOutOfBounds:
            return "out-of-bounds";
        case DiagKind::kHostAccess:
            return "host-access";
        case DiagKind::kRace:
            return "race";
        case DiagKind::kBarrier:
            return "barrier";
        case DiagKind::kUninitialised:
            return "uninitialised";
        case DiagKind::kTimeout:
            return "timeout";
        case DiagKind::kMisaligned:
            return "misaligned";
        case DiagKind::kUnsupported:
            return "unsupported";
        case DiagKind::kWarp:
            return "warp";
    }
    return "?";
}

namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
        s.replace(p, from.size(), to);
    return s;
}

// One finding per barrier interval for the races a __syncthreads() would order: every pair of lines that raced since
// the same barrier (e.g. the tile loads against the multiply loop, for 'As' and for 'Bs') is one mistake, and the
// fix is one barrier. Where it goes follows from the order in which a thread leaving that barrier meets the lines:
// going down the source from the barrier, and round to the top of the loop past the last line. A barrier after the
// latest first-met line of every pair and before the earliest second-met one separates them all. The lines are
// those of the function that holds both accesses and the barrier (common_function_lines): where an access is in a
// helper the compiler inlined, the line of the helper's call. Where that function or the order is not known (an
// access in a function that was not inlined, a copy or fragment known only by its file and line, a barrier above
// the loop), the advice names no place.
// A race or an uninitialised read where one side is a warp matrix load or store of shared memory: the fragment's
// pointer, ldm or layout may be wrong and reach other rows (a wrong ldm, a transposed pointer, col_major for a
// row-major tile), which no barrier and no load fixes. Those come first; the advice of `text` (" — is a ...",
// ". A __syncthreads() after ...", or an asynchronous copy's wait) only if they are right.
// A store writes its fragment where its pointer and ldm say: the question is then whether that place is the one
// meant for it (a scratch shared with tiles other warps still read needs the barrier, not another pointer).
std::string fragment_first(const std::string& text, const std::string& call, uintptr_t site) {
    const bool store = call.find("store_matrix_sync") != std::string::npos;
    const std::string check = " — the " + call + " at :" + std::to_string(location_of(site).line) +
                              (store ? " writes its rows (or columns) ldm elements apart from its pointer: is that the "
                                       "part of shared memory meant for this fragment?"
                                     : " reads its rows (or columns) ldm elements apart from its pointer: are those "
                                       "where and how the tile was stored?");
    size_t at = text.find(" — is a");
    for (const char* advice : {". A __syncthreads()", " — wait for the copy first", ": its batch is"})
        if (at == std::string::npos) at = text.find(advice);
    if (at == std::string::npos) return text + check;
    const size_t skip =
        text.compare(at, 2, ". ") == 0 || text.compare(at, 2, ": ") == 0 ? 2 : std::string(" — ").size();
    const std::string rest = text.substr(at + skip);
    return text.substr(0, at) + check + (store ? " If it is: " : " If they are: ") + rest;
}

// Where two accesses are, as lines of the one function that holds both: the frames of their locations agree from
// the compiled function down to that function, the calls before it made at the same lines. Where an access is in
// a function called (and inlined) from there, its line there is the call's. `context`: those frames, the last one
// the common function's; `a_line`, `b_line`: the two lines in it. False where no such function is known: an
// access in a function that was not inlined (its callers are unknown), or in another file.
bool common_function_lines(const SourceLocation& a, const SourceLocation& b, std::vector<Frame>& context, int& a_line,
                           int& b_line) {
    const std::vector<Frame>&fa = a.frames, &fb = b.frames;
    if (fa.empty() || fb.empty() || fa[0].function != fb[0].function || fa[0].function.empty()) return false;
    size_t d = 0;
    while (d + 1 < fa.size() && d + 1 < fb.size() && fa[d].line == fb[d].line && fa[d].file == fb[d].file &&
           fa[d + 1].function == fb[d + 1].function)
        ++d;
    if (fa[d].file != fb[d].file || !fa[d].line || !fb[d].line) return false;
    context.assign(fa.begin(), fa.begin() + static_cast<long>(d) + 1);
    a_line = fa[d].line, b_line = fb[d].line;
    return true;
}

// Whether `l` is in the function `context` ends with, reached through the same calls; its line there if so.
int line_in(const std::vector<Frame>& context, const SourceLocation& l) {
    if (l.frames.size() < context.size()) return 0;
    for (size_t i = 0; i < context.size(); ++i) {
        const Frame &c = context[i], &f = l.frames[i];
        if (f.function != c.function || f.file != c.file || (i + 1 < context.size() && f.line != c.line)) return 0;
    }
    return l.frames[context.size() - 1].line;
}

// A race of two stores from one line of the source (in the same function, reached the same way)
// into an array (a scalar has no index to ask about)
bool one_line_stores(const RawDiag& d) {
    if (d.writes != 3 || !d.array) return false;
    const SourceLocation a = location_of(d.pc1), b = location_of(d.pc2);
    auto same = [](const Frame& f, const Frame& g) { return f.file == g.file && f.line == g.line; };
    return a.line && a.file == b.file && a.line == b.line &&
           std::equal(a.frames.begin(), a.frames.end(), b.frames.begin(), b.frames.end(), same);
}

// An access in a function inlined into the kernel: the function and the line of the call to it, where that line is
// in the same file (" (in load_tile, called at :88)"), so that a helper called from several places names the
// call that went wrong; "" for an access in the kernel's own body.
std::string called_at(const SourceLocation& l) {
    // the frame of the access's own line (a header's frames may come after it: a CUDA function the helper calls)
    size_t at = l.frames.size();
    while (at > 0 && !(l.frames[at - 1].file == l.file && l.frames[at - 1].line == l.line)) --at;
    if (at < 2) return "";
    const Frame &inner = l.frames[at - 1], &caller = l.frames[at - 2];
    if (inner.function.empty() || caller.file != l.file || !caller.line || caller.line == l.line) return "";
    return " (in " + source_function_name(inner.function) + ", called at :" + std::to_string(caller.line) + ")";
}

std::string worded_races(const std::vector<const RawDiag*>& group, uint64_t count, bool cross_warp) {
    const RawDiag& rep = *group.front();
    const SourceLocation at = location_of(rep.pc1), barrier = location_of(rep.barrier_pc);
    auto line_text = [&](const SourceLocation& l) {
        return l.file == at.file && l.line ? ":" + std::to_string(l.line) : l.text();
    };
    // every pair's lines in one function, the same for all (common_function_lines)
    std::vector<Frame> context;
    std::vector<int> lines;
    bool comparable = true;
    std::vector<std::pair<int, int>> pairs;  // (the line of pc2, of pc1) in it
    std::vector<int> write_lines;            // of each pair, the line that stores; 0 where both do
    std::map<int, int> reaches;              // a line of a call there -> the line of an access it leads to
    for (const RawDiag* d : group) {
        const SourceLocation a = location_of(d->pc2), b = location_of(d->pc1);
        // the lines that race, as the summary names them, whether or not one function holds them both
        if (a.file == at.file && b.file == at.file)
            for (int l : {a.line, b.line})
                if (std::find(lines.begin(), lines.end(), l) == lines.end()) lines.push_back(l);
        std::vector<Frame> c;
        int la = 0, lb = 0;
        if (!common_function_lines(a, b, c, la, lb)) {
            comparable = false;
            continue;
        }
        if (context.empty()) context = c;
        if (line_in(context, a) != la || line_in(context, b) != lb) {
            comparable = false;
            continue;
        }
        if (a.frames.size() > context.size()) reaches.emplace(la, a.line);
        if (b.frames.size() > context.size()) reaches.emplace(lb, b.line);
        pairs.push_back({la, lb});
        write_lines.push_back(d->writes == 1 ? lb : d->writes == 2 ? la : 0);
    }
    const int barrier_line = context.empty() || !rep.barrier_pc ? 0 : line_in(context, barrier);
    const bool after_barrier = barrier_line > 0;
    // Going down from the barrier and round the loop is the order the thread meets the lines in only where the
    // barrier is in that loop, below some of them. Below none (a barrier before the loop, or in another function),
    // the two accesses may be passes of a loop apart, and no place between them is known to order them.
    if (rep.barrier_pc && !std::any_of(pairs.begin(), pairs.end(), [&](const std::pair<int, int>& p) {
            return after_barrier && std::min(p.first, p.second) <= barrier_line;
        }))
        comparable = false;
    auto key = [&](int line) { return after_barrier && line <= barrier_line ? line + (1 << 24) : line; };
    std::vector<std::string> variables;
    int first_met = 0, second_met = 0;  // the cut: after first_met, before second_met
    for (const RawDiag* d : group)
        if (std::find(variables.begin(), variables.end(), d->variable) == variables.end())
            variables.push_back(d->variable);
    for (const auto& [al, bl] : pairs) {
        const int lo = key(al) <= key(bl) ? al : bl, hi = lo == al ? bl : al;
        if (!first_met || key(lo) > key(first_met)) first_met = lo;
        if (!second_met || key(hi) < key(second_met)) second_met = hi;
    }
    // a line of the common function that calls the access: say so, as the access's own line is elsewhere
    auto place = [&](int line) {
        const auto it = reaches.find(line);
        return ":" + std::to_string(line) +
               (it == reaches.end() ? "" : " (the call that reaches :" + std::to_string(it->second) + ")");
    };
    for (const RawDiag* d : group) cross_warp = cross_warp || d->cross_warp;
    // threads of two warps: only a __syncthreads() orders them; lanes of one warp: the thread's own wording stays
    const std::string barrier_name = cross_warp ? "__syncthreads()" : "__syncthreads() or __syncwarp()";
    std::string text = rep.text;
    // a read of a buffer that the same pass's copy is filling (async.cpp): its own question, and no barrier's
    const size_t own_pass = text.find(": the copy was issued in this pass");
    const std::string pass_advice = own_pass == std::string::npos ? "" : text.substr(own_pass);
    if (!pass_advice.empty()) {
        text = text.substr(0, own_pass);
    } else {
        const size_t cut = text.find(" with no __syncthreads()");
        if (cross_warp)
            text = text.substr(0, cut) + " with no __syncthreads() between them";
        else
            text = text.substr(0, text.find(" — is a __syncthreads() missing"));
        const bool barrier_in_file = rep.barrier_pc && barrier.line && barrier.file == at.file;
        text += barrier_in_file ? " since the barrier at " + line_text(barrier) : " since the block began";
    }
    std::sort(lines.begin(), lines.end());
    if (group.size() > 1) {
        std::string others;
        for (size_t i = 1; i < variables.size(); ++i) others += (i > 1 ? ", " : "") + variables[i];
        std::string where;  // empty where the lines are in other files than the summary's
        for (size_t i = 0; i < lines.size(); ++i)
            where += (i ? ", " : "lines ") + std::string(":") + std::to_string(lines[i]);
        const std::string also = others.empty() ? "" : "also on " + others;
        const std::string detail = also + (also.empty() || where.empty() ? "" : "; ") + where;
        text += "; " + std::to_string(group.size()) + " pairs of lines race in the same way, " + std::to_string(count) +
                " times in all" + (detail.empty() ? "" : " (" + detail + ")");
    } else if (count > 1) {
        text += " (" + std::to_string(count) + " times)";
    }
    if (!pass_advice.empty()) return text + pass_advice;
    const std::string missing = " — is a " + barrier_name + " missing?";
    // two threads storing to one element of an array from one line: the index that gave them the same element is the
    // question, as a barrier would only order the two stores, and one of the values would still be lost
    if (std::all_of(group.begin(), group.end(), [](const RawDiag* d) { return one_line_stores(*d); })) {
        std::string store_lines;
        for (const RawDiag* d : group) {
            const std::string line = line_text(location_of(d->pc1));
            if (store_lines.find(line) == std::string::npos) store_lines += (store_lines.empty() ? "" : ", ") + line;
        }
        return text +
               (group.size() == 1 ? ". Both stores are " + store_lines + "'s: does its index"
                                  : ". Each pair's two stores are one line's (" + store_lines + "): does the index") +
               " give two threads the same element, where each should store its own? A barrier would only order the "
               "stores, and one value would still be lost (uninitialised reads of that array in this launch are not "
               "reported until then: they may follow from it)";
    }
    // two threads storing to one element from two lines: most often two branches of one if (a tile's load and its
    // zero fill) that index the array differently, which no barrier mends, as no thread meets both; a barrier is the
    // fix only where one value is meant to replace the other
    const bool ordered_lines = comparable && first_met && first_met != second_met && key(first_met) < key(second_met);
    if (std::all_of(group.begin(), group.end(), [](const RawDiag* d) { return d->writes == 3 && d->array; })) {
        std::string store_lines;
        for (int line : lines) store_lines += (store_lines.empty() ? ":" : " and :") + std::to_string(line);
        std::string ask = ". Both accesses store" + (store_lines.empty() ? "" : " (" + store_lines + ")") +
                          ": do their indices give two threads the same element, where each should store its own? "
                          "Two branches of one if that fill an array must index it alike";
        if (ordered_lines)
            ask += ". Only if one value is meant to replace the other does a " + barrier_name + " after " +
                   place(first_met) + " and before " + place(second_met) + " order them";
        return text + ask;
    }
    if (!comparable || !first_met) return text + missing;
    if (first_met == second_met)
        return text + ". A " + barrier_name + " after " + place(first_met) +
               " orders one pass over that line before the next: at the end of the loop body, or inside it";
    if (key(first_met) >= key(second_met)) return text + missing;
    // One stage of a double buffer (As[2][..]) read and then written in the same pass, before the pass's barrier:
    // a double buffer's pass writes only a stage it does not read, so the stage index is the question before a
    // second barrier (which would make the two stages wait for each other).
    const int stages = group.front()->stages;
    const bool staged =
        stages >= 2 && std::all_of(group.begin(), group.end(), [&](const RawDiag* d) { return d->stages == stages; });
    const bool read_then_written =
        !pairs.empty() &&
        std::equal(pairs.begin(), pairs.end(), write_lines.begin(), [](const std::pair<int, int>& p, int written) {
            return written == std::max(p.first, p.second) && p.first != p.second;
        });
    std::string names;  // 'As' and 'Bs'
    for (size_t i = 0; i < variables.size(); ++i)
        names += (i == 0 ? "" : i + 1 == variables.size() ? " and " : ", ") + variables[i];
    if (staged && read_then_written && after_barrier && first_met < second_met && second_met <= barrier_line)
        return text + ". " + names + (variables.size() > 1 ? " have " : " has ") + std::to_string(stages) +
               " stages (the first dimension), and in one pass :" + std::to_string(first_met) + " reads a stage that " +
               place(second_met) + " then writes: a pass of a " + (stages == 2 ? "double" : "multi-stage") +
               " buffer writes only a stage it does not read. Should :" + std::to_string(second_met) + " write " +
               (stages == 2 ? "the other stage" : "another stage") + ", or :" + std::to_string(first_met) + " read " +
               (stages == 2 ? "the other one" : "another") + "? (If one stage is meant, a " + barrier_name +
               " after :" + std::to_string(first_met) + " and before :" + std::to_string(second_met) + " orders them.)";
    text += ". A " + barrier_name + " after " + place(first_met) + " and before " + place(second_met) + " orders them";
    if (second_met < first_met)
        text += ": at the end of the loop body, before the loop comes back to :" + std::to_string(second_met);
    return text;
}

// The warp-level figures of the stats line, when they were counted.
void requests_keys(json::Writer& w, const LaunchReport& r) {
    if (!r.requests_counted) return;
    w.field("global_load_requests", r.global_load_requests)
        .field("global_load_sectors", r.global_load_sectors)
        .field("global_store_requests", r.global_store_requests)
        .field("global_store_sectors", r.global_store_sectors)
        .field("shared_load_requests", r.shared_load_requests)
        .field("shared_load_wavefronts", r.shared_load_wavefronts)
        .field("shared_store_requests", r.shared_store_requests)
        .field("shared_store_wavefronts", r.shared_store_wavefronts);
}

}  // namespace

// Its keys: docs/emulator.md, "The stats line".
void write_stats_line(const LaunchReport& r) {
    if (config().stats_path.empty()) return;
    json::Writer w;
    w.begin_object().field("kernel", r.kernel);
    w.key("grid").begin_array().value(r.grid.x).value(r.grid.y).value(r.grid.z).end_array();
    w.key("block").begin_array().value(r.block.x).value(r.block.y).value(r.block.z).end_array();
    w.field("error", cudaGetErrorName(r.error))
        .field("global_load_bytes", r.global_load_bytes)
        .field("global_store_bytes", r.global_store_bytes)
        .field("shared_load_bytes", r.shared_load_bytes)
        .field("shared_store_bytes", r.shared_store_bytes)
        .field("constant_load_bytes", r.constant_load_bytes)
        .field("fp32_fma", r.fp32_fma)
        .field("fp32_mul", r.fp32_mul)
        .field("fp32_add", r.fp32_add)
        .field("fp64_fma", r.fp64_fma)
        .field("fp64_mul", r.fp64_mul)
        .field("fp64_add", r.fp64_add)
        .field("tensor_flops", r.tensor_flops)
        .field("tensor_tf32_flops", r.tensor_tf32_flops)
        .field("tensor_f16_flops", r.tensor_f16_flops)
        .field("tensor_bf16_flops", r.tensor_bf16_flops)
        .field("tf32_unrounded_inputs", r.tf32_unrounded_inputs)
        .field("tf32_unrounded_a_inputs", r.tf32_unrounded_a_inputs)
        .field("ptx_mma_flops", r.ptx_mma_flops)
        .field("ldmatrix_bytes", r.ldmatrix_bytes)
        .field("block_barriers", r.block_barriers)
        .field("max_thread_load_bytes", r.max_thread_load_bytes)
        .field("max_thread_store_bytes", r.max_thread_store_bytes);
    requests_keys(w, r);
    w.key("allocations").begin_array();
    for (const AllocationTraffic& a : r.allocations) {
        w.begin_object()
            .field("name", a.name)
            .field("bytes", a.bytes)
            .field("load_bytes", a.load_bytes)
            .field("store_bytes", a.store_bytes);
        if (r.requests_counted)
            w.field("load_requests", a.load_requests)
                .field("load_sectors", a.load_sectors)
                .field("store_requests", a.store_requests)
                .field("store_sectors", a.store_sectors);
        w.end_object();
    }
    w.end_array();
    if (r.requests_counted) {
        w.key("lines").begin_array();
        for (const LineRequests& l : r.line_requests)
            w.begin_object()
                .field("file", l.file)
                .field("line", l.line)
                .field("space", l.shared ? "shared" : "global")
                .field("op", l.store ? "store" : "load")
                .field("allocation", l.allocation)
                .field("requests", l.requests)
                .field(l.shared ? "wavefronts" : "sectors", l.sectors)
                .field("ideal", l.ideal)
                .end_object();
        w.end_array();
    }
    w.key("errors").begin_array();
    for (const Diagnostic& d : r.diagnostics)
        w.begin_object()
            .field("kind", d.kind)
            .field("message", d.message)
            .field("file", d.file)
            .field("line", d.line)
            .end_object();
    w.end_array().end_object();
    const std::string line = w.str() + "\n";
    FILE* f = fopen(config().stats_path.c_str(), "a");
    if (!f) {
        fprintf(stderr, "cudaemu: cannot append to CUDAEMU_STATS file '%s'\n", config().stats_path.c_str());
        return;
    }
    fputs(line.c_str(), f);
    fclose(f);
}

namespace {

// The workers' warp-level requests, added up per launch and per source line into `r`; returned: per allocation (only
// its request and sector counts set).
std::vector<AllocationTraffic> add_requests(LaunchReport& r, const std::vector<Worker*>& workers) {
    std::map<std::pair<uint64_t, int>, RequestCounts> sites;
    for (Worker* w : workers) {
        if (!w->requests || !w->count_requests) continue;
        r.requests_counted = true;
        for (const auto& [site, c] : w->requests->sites) sites[{site.key, site.alloc}].merge(c);
    }
    std::vector<AllocationTraffic> per_alloc(g_allocations.size());
    std::vector<uintptr_t> pcs;
    for (const auto& [site, c] : sites) pcs.push_back(pc_of(site.first));
    symbolize(pcs);
    std::map<std::tuple<std::string, int, int, int>, LineRequests> lines;  // (file, line, kind, allocation)
    std::map<const LineRequests*, uint64_t> out_order;                     // when each line's sample was made
    for (const auto& [site, c] : sites) {
        const int kind = static_cast<int>(site.first & 3);
        const bool shared = kind == kSharedLoad || kind == kSharedStore;
        const bool store = kind == kGlobalStore || kind == kSharedStore;
        if (!shared && site.second >= 0) {
            AllocationTraffic& a = per_alloc[site.second];
            (store ? a.store_requests : a.load_requests) += c.requests;
            (store ? a.store_sectors : a.load_sectors) += c.units;
        }
        uint64_t* totals[4][2] = {{&r.global_load_requests, &r.global_load_sectors},
                                  {&r.global_store_requests, &r.global_store_sectors},
                                  {&r.shared_load_requests, &r.shared_load_wavefronts},
                                  {&r.shared_store_requests, &r.shared_store_wavefronts}};
        *totals[kind][0] += c.requests;
        *totals[kind][1] += c.units;
        const SourceLocation l = location_of(pc_of(site.first));
        LineRequests& out = lines[{l.file, l.line, kind, shared ? -1 : site.second}];
        out.file = l.file;
        out.line = l.line;
        out.shared = shared;
        out.store = store;
        if (!shared && site.second >= 0) out.allocation = g_allocations[site.second]->name;
        out.requests += c.requests, out.sectors += c.units, out.ideal += c.ideal, out.bytes += c.bytes;
        out.access_bytes = std::max(out.access_bytes, c.size);
        if (out.first_request.empty() || c.sample_order < out_order[&out]) {  // the line's first access site
            out_order[&out] = c.sample_order;
            const uint64_t base = !shared && site.second >= 0 ? g_allocations[site.second]->base : 0;
            out.first_request.assign(32, -1);
            for (uint32_t lane = 0; lane < 32; ++lane)
                if ((c.sample_lanes >> lane) & 1) out.first_request[lane] = static_cast<int64_t>(c.sample[lane] - base);
        }
    }
    for (auto& [key, l] : lines) r.line_requests.push_back(l);
    return per_alloc;
}

}  // namespace

void finish_report(LaunchReport& r, const std::vector<Worker*>& workers) {
    std::vector<uint64_t> load(g_allocations.size(), 0), store(g_allocations.size(), 0);
    std::map<std::tuple<int, uintptr_t, uintptr_t>, RawDiag> diags;
    std::set<uintptr_t> cross_warp_races;
    std::map<uintptr_t, std::string> fragment_sites;
    uint64_t first_fatal = UINT64_MAX;
    cudaError_t fatal = cudaSuccess;
    for (Worker* w : workers) {
        r.global_load_bytes += w->global_load;
        r.global_store_bytes += w->global_store;
        r.shared_load_bytes += w->shared_load;
        r.shared_store_bytes += w->shared_store;
        r.tensor_flops += w->tensor_flops;
        r.tensor_tf32_flops += w->tensor_flops_by_type[0];
        r.tensor_f16_flops += w->tensor_flops_by_type[1];
        r.tensor_bf16_flops += w->tensor_flops_by_type[2];
        r.fp32_fma += w->flops[0], r.fp32_mul += w->flops[1], r.fp32_add += w->flops[2];
        r.fp64_fma += w->flops[3], r.fp64_mul += w->flops[4], r.fp64_add += w->flops[5];
        r.block_barriers += w->block_barriers;
        r.tf32_unrounded_inputs += w->tf32_unrounded_inputs;
        r.tf32_unrounded_a_inputs += w->tf32_unrounded_a_inputs;
        r.ptx_mma_flops += w->ptx_mma_flops;
        r.ldmatrix_bytes += w->ldmatrix_bytes;
        r.max_thread_load_bytes = std::max(r.max_thread_load_bytes, w->max_thread_load);
        r.max_thread_store_bytes = std::max(r.max_thread_store_bytes, w->max_thread_store);
        for (size_t i = 0; i < w->alloc_load.size(); ++i) load[i] += w->alloc_load[i], store[i] += w->alloc_store[i];
        cross_warp_races.insert(w->cross_warp_races.begin(), w->cross_warp_races.end());
        fragment_sites.insert(w->fragment_sites.begin(), w->fragment_sites.end());
        if (w->first_fatal_block < first_fatal) first_fatal = w->first_fatal_block, fatal = w->fatal_error;
        for (auto& [key, d] : w->diags) {
            auto it = diags.find(key);
            if (it == diags.end()) {
                diags.emplace(key, d);
            } else {
                uint64_t total = it->second.count + d.count;
                if (d.block < it->second.block) it->second = d;
                it->second.count = total;
            }
        }
    }
    // global loads by source line: the workers' (access, allocation) slots, added up per line
    std::map<std::pair<uintptr_t, int>, uint64_t> by_access;
    for (Worker* w : workers)
        for (const Worker::LineLoads& e : w->line_loads)
            if (e.pc) by_access[{e.pc, e.alloc}] += e.bytes;
    std::vector<uintptr_t> access_pcs;
    for (const auto& [key, bytes] : by_access) access_pcs.push_back(key.first);
    symbolize(access_pcs);
    std::map<std::tuple<std::string, int, int>, uint64_t> by_line;
    for (const auto& [key, bytes] : by_access) {
        const SourceLocation l = location_of(key.first);
        by_line[{l.file, l.line, key.second}] += bytes;
    }
    for (const auto& [key, bytes] : by_line)
        r.line_loads.push_back({std::get<0>(key), std::get<1>(key), g_allocations[std::get<2>(key)]->name, bytes});
    std::stable_sort(r.line_loads.begin(), r.line_loads.end(),
                     [](const LineTraffic& a, const LineTraffic& b) { return a.load_bytes > b.load_bytes; });
    const std::vector<AllocationTraffic> requests = add_requests(r, workers);
    for (size_t i = 0; i < g_allocations.size(); ++i) {
        if (load[i] || store[i]) {
            AllocationTraffic a = requests[i];
            a.name = g_allocations[i]->name;
            a.bytes = g_allocations[i]->bytes;
            a.load_bytes = load[i];
            a.store_bytes = store[i];
            r.allocations.push_back(a);
        }
        if (g_allocations[i]->kind == Allocation::Kind::kConstant) r.constant_load_bytes += load[i];
    }
    r.error = fatal;

    // How many times a diagnostic happened: in every block; but once an error ended the launch, in the block shown
    // only, since how far the other blocks got depends on the schedule.
    auto counted = [&](const RawDiag& d) { return first_fatal == UINT64_MAX ? d.count : d.block_count; };
    bool index_bug = false;
    for (auto& [key, d] : diags) index_bug |= d.index_dimension;
    std::vector<RawDiag> ordered;
    for (auto& [key, d] : diags) {
        const bool follows = d.kind == DiagKind::kRace || d.kind == DiagKind::kUninitialised;
        if (follows && index_bug) continue;  // what an index outside its dimension reached: not a barrier's business
        if (follows || d.block <= first_fatal) ordered.push_back(d);
    }
    std::sort(ordered.begin(), ordered.end(), [](const RawDiag& a, const RawDiag& b) {
        return std::tie(a.block, a.thread, a.pc1, a.pc2) < std::tie(b.block, b.thread, b.pc1, b.pc2);
    });
    std::vector<uintptr_t> pcs;
    for (const RawDiag& d : ordered) pcs.push_back(d.pc1), pcs.push_back(d.pc2), pcs.push_back(d.barrier_pc);
    symbolize(pcs);
    // Two threads storing to one element of an array (an index that gives them the same element) leave the element
    // one of them should have stored unwritten: reads of that array's unwritten elements are not
    // reported, as they follow from it
    std::vector<std::string> collided;  // "'As' (byte": the arrays of such stores, as uninitialised reads name them
    for (const RawDiag& d : ordered)
        if (d.tagged_race && d.writes == 3 && d.array) collided.push_back(d.variable + " (byte");
    ordered.erase(std::remove_if(ordered.begin(), ordered.end(),
                                 [&](const RawDiag& d) {
                                     return d.kind == DiagKind::kUninitialised &&
                                            std::any_of(collided.begin(), collided.end(), [&](const std::string& v) {
                                                return d.text.find(v) != std::string::npos;
                                            });
                                 }),
                  ordered.end());
    // block races grouped by the barrier they follow; the group is reported where its first member is
    std::map<std::string, std::vector<const RawDiag*>> races;
    for (const RawDiag& d : ordered)
        if (d.tagged_race) races[d.barrier_pc ? location_of(d.barrier_pc).text() : ""].push_back(&d);
    for (const RawDiag& d : ordered) {
        SourceLocation l1 = location_of(d.pc1), l2 = location_of(d.pc2);
        if (d.tagged_race) {
            const std::vector<const RawDiag*>& group = races[d.barrier_pc ? location_of(d.barrier_pc).text() : ""];
            if (group.front() != &d) continue;
            uint64_t count = 0;
            for (const RawDiag* g : group) count += counted(*g);
            Diagnostic out;
            out.kind = kind_name(d.kind);
            // the second location in the file of the first is only its line
            std::string text = worded_races(group, count, cross_warp_races.count(d.barrier_pc) > 0);
            for (const RawDiag* g : group) {
                const uintptr_t site = fragment_sites.count(g->pc1)   ? g->pc1
                                       : fragment_sites.count(g->pc2) ? g->pc2
                                                                      : 0;
                if (site && text.find(": the copy was issued in this pass") == std::string::npos) {
                    text = fragment_first(text, fragment_sites[site], site);
                    break;
                }
            }
            out.message = replace_all(replace_all(text, "%2", l2.text()), "%1",
                                      l1.file == l2.file && l1.line ? ":" + std::to_string(l1.line) : l1.text());
            out.file = l1.file;
            out.line = l1.line;
            r.diagnostics.push_back(out);
            continue;
        }
        Diagnostic out;
        out.kind = kind_name(d.kind);
        std::string text = d.text;
        const bool own_pass = text.find(": the copy was issued in this pass") != std::string::npos;
        if ((d.kind == DiagKind::kUninitialised || (d.kind == DiagKind::kRace && !own_pass)) &&
            fragment_sites.count(d.pc1))
            text = fragment_first(text, fragment_sites[d.pc1], d.pc1);
        out.message = replace_all(replace_all(text, "%1", l1.text() + called_at(l1)), "%2", l2.text());
        const uint64_t count = counted(d);
        if (count > 1) out.message += " (" + std::to_string(count - 1) + " more like it)";
        out.file = l1.file;
        out.line = l1.line;
        r.diagnostics.push_back(out);
    }
}

namespace {
// Findings already printed, by kernel, kind and line, with how many later launches found them again: a kernel
// launched in a loop has its finding printed once, and the repeats counted when the program ends.
std::map<std::tuple<std::string, std::string, std::string, int>, uint64_t> g_printed;

void print_repeats() {
    for (const auto& [key, again] : g_printed) {
        if (!again) continue;
        const auto& [kernel, kind, file, line] = key;
        std::string where = line ? file + ":" + std::to_string(line) + ": " : "";
        fprintf(stderr, "%scudaemu: %s in kernel '%s': the finding printed above, again in %llu later launch%s\n",
                where.c_str(), kind.c_str(), kernel.c_str(), static_cast<unsigned long long>(again),
                again == 1 ? "" : "es");
    }
}
}  // namespace

void print_report(const LaunchReport& r) {
    if (config().quiet) return;
    std::set<std::tuple<std::string, std::string, std::string, int>> printed_now, counted_now;
    for (const Diagnostic& d : r.diagnostics) {
        const auto key = std::make_tuple(r.kernel, d.kind, d.file, d.line);
        auto [it, first] = g_printed.emplace(key, 0);
        if (!first && !printed_now.count(key)) {  // printed for an earlier launch: counted, once for this one
            if (counted_now.insert(key).second) {
                static const bool registered = std::atexit(print_repeats) == 0;
                (void)registered;
                ++it->second;
            }
            continue;
        }
        printed_now.insert(key);
        std::string where = d.line ? d.file + ":" + std::to_string(d.line) + ": " : "";
        fprintf(stderr, "%scudaemu: %s in kernel '%s': %s\n", where.c_str(), d.kind.c_str(), r.kernel.c_str(),
                d.message.c_str());
    }
}

const std::vector<LaunchReport>& launches() { return g_reports; }
const std::vector<CopyReport>& copies() { return g_copies; }
void clear_launches() {
    std::lock_guard<std::mutex> api(g_api_mutex);
    g_reports.clear();
    g_copies.clear();
    clear_host_accesses();
}

}  // namespace cudaemu
