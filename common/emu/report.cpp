// report.cpp — launch reports: what the workers counted, the diagnostics they kept (ordered, symbolised and
// worded), printed to stderr, appended as one JSON line to CUDAEMU_STATS, and kept for cudaemu::launches().
#include "report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "api.h"
#include "memory.h"
#include "scheduler.h"
#include "symbols.h"

namespace cudaemu {

std::vector<LaunchReport> g_reports;

const char* kind_name(DiagKind k) {
  switch (k) {
    case DiagKind::kOutOfBounds: return "out-of-bounds";
    case DiagKind::kHostAccess: return "host-access";
    case DiagKind::kRace: return "race";
    case DiagKind::kBarrier: return "barrier";
    case DiagKind::kUninitialized: return "uninitialized";
    case DiagKind::kTimeout: return "timeout";
    case DiagKind::kMisaligned: return "misaligned";
    case DiagKind::kUnsupported: return "unsupported";
    case DiagKind::kWarp: return "warp";
  }
  return "?";
}

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

}  // namespace

void write_stats_line(const LaunchReport& r) {
  if (config().stats_path.empty()) return;
  std::string line = "{\"kernel\": " + json_string(r.kernel) + ", \"grid\": [" + std::to_string(r.grid.x) + ", " +
                     std::to_string(r.grid.y) + ", " + std::to_string(r.grid.z) + "], \"block\": [" +
                     std::to_string(r.block.x) + ", " + std::to_string(r.block.y) + ", " +
                     std::to_string(r.block.z) + "], \"error\": " + json_string(cudaGetErrorName(r.error)) +
                     ", \"global_load_bytes\": " + std::to_string(r.global_load_bytes) +
                     ", \"global_store_bytes\": " + std::to_string(r.global_store_bytes) +
                     ", \"shared_load_bytes\": " + std::to_string(r.shared_load_bytes) +
                     ", \"shared_store_bytes\": " + std::to_string(r.shared_store_bytes) +
                     ", \"constant_load_bytes\": " + std::to_string(r.constant_load_bytes) +
                     ", \"max_thread_load_bytes\": " + std::to_string(r.max_thread_load_bytes) +
                     ", \"max_thread_store_bytes\": " + std::to_string(r.max_thread_store_bytes) +
                     ", \"allocations\": [";
  for (size_t i = 0; i < r.allocations.size(); ++i) {
    const AllocationTraffic& a = r.allocations[i];
    line += (i ? ", " : "") + std::string("{\"name\": ") + json_string(a.name) +
            ", \"bytes\": " + std::to_string(a.bytes) + ", \"load_bytes\": " + std::to_string(a.load_bytes) +
            ", \"store_bytes\": " + std::to_string(a.store_bytes) + "}";
  }
  line += "], \"errors\": [";
  for (size_t i = 0; i < r.diagnostics.size(); ++i) {
    const Diagnostic& d = r.diagnostics[i];
    line += (i ? ", " : "") + std::string("{\"kind\": ") + json_string(d.kind) +
            ", \"message\": " + json_string(d.message) + ", \"file\": " + json_string(d.file) +
            ", \"line\": " + std::to_string(d.line) + "}";
  }
  line += "]}\n";
  FILE* f = fopen(config().stats_path.c_str(), "a");
  if (!f) {
    fprintf(stderr, "cudaemu: cannot append to CUDAEMU_STATS file '%s'\n", config().stats_path.c_str());
    return;
  }
  fputs(line.c_str(), f);
  fclose(f);
}

void finish_report(LaunchReport& r, const std::vector<Worker*>& workers) {
  std::vector<uint64_t> load(g_allocations.size(), 0), store(g_allocations.size(), 0);
  std::map<std::tuple<int, uintptr_t, uintptr_t>, RawDiag> diags;
  uint64_t first_fatal = UINT64_MAX;
  cudaError_t fatal = cudaSuccess;
  for (Worker* w : workers) {
    r.global_load_bytes += w->global_load;
    r.global_store_bytes += w->global_store;
    r.shared_load_bytes += w->shared_load;
    r.shared_store_bytes += w->shared_store;
    r.max_thread_load_bytes = std::max(r.max_thread_load_bytes, w->max_thread_load);
    r.max_thread_store_bytes = std::max(r.max_thread_store_bytes, w->max_thread_store);
    for (size_t i = 0; i < w->alloc_load.size(); ++i) load[i] += w->alloc_load[i], store[i] += w->alloc_store[i];
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
  for (size_t i = 0; i < g_allocations.size(); ++i) {
    if (load[i] || store[i])
      r.allocations.push_back({g_allocations[i]->name, g_allocations[i]->bytes, load[i], store[i]});
    if (g_allocations[i]->kind == Allocation::Kind::kConstant) r.constant_load_bytes += load[i];
  }
  r.error = fatal;

  std::vector<RawDiag> ordered;
  for (auto& [key, d] : diags)
    if (d.kind == DiagKind::kRace || d.kind == DiagKind::kUninitialized || d.block <= first_fatal)
      ordered.push_back(d);
  std::sort(ordered.begin(), ordered.end(), [](const RawDiag& a, const RawDiag& b) {
    return std::tie(a.block, a.thread, a.pc1, a.pc2) < std::tie(b.block, b.thread, b.pc1, b.pc2);
  });
  std::vector<uintptr_t> pcs;
  for (const RawDiag& d : ordered) pcs.push_back(d.pc1), pcs.push_back(d.pc2);
  symbolize(pcs);
  for (const RawDiag& d : ordered) {
    SourceLocation l1 = location_of(d.pc1), l2 = location_of(d.pc2);
    Diagnostic out;
    out.kind = kind_name(d.kind);
    out.message = replace_all(replace_all(d.text, "%1", l1.text()), "%2", l2.text());
    if (d.count > 1) out.message += " (" + std::to_string(d.count - 1) + " more like it)";
    out.file = l1.file;
    out.line = l1.line;
    r.diagnostics.push_back(out);
  }
}

void print_report(const LaunchReport& r) {
  if (config().quiet) return;
  for (const Diagnostic& d : r.diagnostics) {
    std::string where = d.line ? d.file + ":" + std::to_string(d.line) + ": " : "";
    fprintf(stderr, "%scudaemu: %s in kernel '%s': %s\n", where.c_str(), d.kind.c_str(), r.kernel.c_str(),
            d.message.c_str());
  }
}

const std::vector<LaunchReport>& launches() { return g_reports; }
void clear_launches() {
  std::lock_guard<std::mutex> api(g_api_mutex);
  g_reports.clear();
}

}  // namespace cudaemu
