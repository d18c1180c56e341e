// report.h — diagnostics as the checks find them, and the launch reports made from them at the end of a launch
// (printed, appended to CUDAEMU_STATS, kept for cudaemu::launches()). Defined in report.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "include/cudaemu.h"

namespace cudaemu {

enum class DiagKind {
    kOutOfBounds,
    kHostAccess,
    kRace,
    kBarrier,
    kUninitialised,
    kTimeout,
    kMisaligned,
    kUnsupported,
    kWarp
};
const char* kind_name(DiagKind k);

// A diagnostic as found: addresses are symbolized once the launch is over. `text` holds %1 and %2 where the
// source locations of pc1 and pc2 go.
struct RawDiag {
    DiagKind kind;
    uint64_t block = 0;
    uint32_t thread = 0;
    uintptr_t pc1 = 0, pc2 = 0;
    std::string text;
    uint64_t count = 1;
    uint64_t block_count = 1;  // of those, in `block`: what a launch an error ended reports (report.cpp)
    // Races (tagged): the launch report words those of one barrier interval as one finding, with where the barrier
    // goes (worded_races); cross_warp when an instance was between two warps, which only a __syncthreads() orders.
    bool tagged_race = false, cross_warp = false;
    uintptr_t barrier_pc = 0;  // the last __syncthreads() the thread passed; 0: none yet
    std::string variable;      // 'As'
    int stages = 0;            // where 'As' is As[2][..]... (symbols.h, shared_stages_at): its first dimension

    int writes = 0;      // which access stores: 1 the one at pc1, 2 the one at pc2, 3 both
    bool array = false;  // 'As' has more than one element of the access's size (it has an index)
    // An index outside its own dimension of an array (index_checks.cpp): the launch's races and uninitialised reads
    // are left out of its report, as they may follow from it.
    bool index_dimension = false;
};

struct Worker;
extern std::vector<LaunchReport> g_reports;  // guarded by g_api_mutex
extern std::vector<CopyReport> g_copies;     // guarded by g_api_mutex
// Adds up what the workers counted and found, keeps the diagnostics that belong to the launch, symbolised.
void finish_report(LaunchReport& r, const std::vector<Worker*>& workers);
void print_report(const LaunchReport& r);
void write_stats_line(const LaunchReport& r);

}  // namespace cudaemu
