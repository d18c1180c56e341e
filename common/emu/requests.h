// requests.h — warp-level memory requests, as a GPU's load/store unit sees them (requests.cpp).
//
// A GPU issues a memory instruction once for a warp: the addresses of its active lanes form one request, which
// costs a number of 32-byte sectors (global memory) or of wavefronts, passes through the 32 banks (shared memory).
// The emulator runs a warp's lanes one after another, so it groups their accesses afterwards: the n-th execution of
// one source access (one call site of the access callbacks) by each lane of a warp is one request, n counted from
// the block's start or its last __syncthreads(). While a lane runs, each of its counted accesses is written to its
// warp's log, the lane's n-th access to row n (the hot path does nothing else); once every lane of the warp has
// reached the barrier or exited, the log is grouped into requests and measured, while it is still in the cache.
// Lanes of a warp usually make the same accesses in the same order, and request i is then row i (the fast path);
// when one lane's sequence of access sites is not a prefix of another's (a branch, a loop with more or fewer trips),
// each lane's executions of each access site are counted instead.
#pragma once
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <unordered_map>
#include <vector>

#include "scheduler.h"

namespace cudaemu {

enum RequestKind : uint8_t { kGlobalLoad, kGlobalStore, kSharedLoad, kSharedStore };

// One position of a warp's log: each lane's i-th counted access in the barrier interval. A key is the access site,
// the bytes and the kind, (pc << 10) | (bytes << 2) | RequestKind (bytes widened by the further pieces of a vector);
// an address is an offset in shared memory for shared accesses; alloc is kept for global accesses only.
struct LogRow {
    uint64_t key[32];
    uint64_t addr[32];
    int32_t alloc[32];
};
inline uint64_t site_of(uint64_t key) { return key & ~uint64_t(0x3FC); }  // the key without the bytes
inline uint8_t size_of(uint64_t key) { return static_cast<uint8_t>(key >> 2); }
inline uintptr_t pc_of(uint64_t key) { return static_cast<uintptr_t>(key >> 10); }

// A warp's log of the current barrier interval: lane l's n-th access is rows[n].*[l]; each lane's next row is its
// Fiber::log_row (null until its first access in the interval). rows only grow.
struct WarpLog {
    std::vector<LogRow> rows;
};

// What one source access did in a launch: its requests and their sectors (global) or wavefronts (shared), and the
// fewest sectors or wavefronts the bytes its lanes asked for could have taken (`ideal`).
struct RequestCounts {
    uint64_t requests = 0, units = 0, ideal = 0, bytes = 0;
    int size = 0;  // the widest access a lane made there
    // The first request made here (lowest block, then warp, then its position in the block): each lane's address
    // (an offset in shared memory for shared requests), for a picture of which lanes share a sector.
    uint64_t sample_order = UINT64_MAX;
    uint32_t sample_lanes = 0;
    uint64_t sample[32] = {};
    // The last request measured here: the next one whose lanes sit at the same distances from the first lane, shifted
    // by whole sectors (global) or words (shared), costs the same; most requests of a loop are such repeats.
    struct Last {
        bool valid = false;
        uint32_t lanes = 0;
        uint8_t size = 0;
        uint64_t base = 0;
        uint64_t deltas[32] = {};
        uint32_t units = 0, ideal = 0, bytes = 0;
        // Whether a request of `lanes` accessing `size` bytes from `base` on (the first lane's address) may repeat
        // this one: the same lanes and size, shifted by whole sectors (global) or words (shared); its lanes' distances
        // from `base` decide.
        bool may_repeat(uint32_t lanes_, uint8_t size_, uint64_t base_, bool global) const {
            return valid && lanes == lanes_ && size == size_ && ((base_ - base) & (global ? 31 : 3)) == 0;
        }
    } last;
    // Adds another worker's counts for the same site (the first request of the two stays the sample).
    void merge(const RequestCounts& o) {
        requests += o.requests, units += o.units, ideal += o.ideal, bytes += o.bytes;
        size = std::max(size, o.size);
        if (o.sample_order < sample_order) {
            sample_order = o.sample_order, sample_lanes = o.sample_lanes;
            std::copy(std::begin(o.sample), std::end(o.sample), sample);
        }
    }
};

// A worker's warp-level counting: its block's warps' logs of the current barrier interval, and per launch what each
// (access site, allocation) did.
struct RequestState {
    // The logs of the block's warps (null: the warp has made no counted access in this interval) and those not in
    // use, the one last given back taken first: a block's warps, run one after another, write the same log while it
    // is in the cache.
    std::vector<WarpLog*> by_warp;
    std::vector<WarpLog*> spare;
    std::vector<std::unique_ptr<WarpLog>> owned;
    struct Site {
        uint64_t key;
        int alloc;
        bool operator==(const Site& o) const { return key == o.key && alloc == o.alloc; }
    };
    struct SiteHash {
        size_t operator()(const Site& s) const { return std::hash<uint64_t>()(s.key * 31 + uint64_t(s.alloc)); }
    };
    std::unordered_map<Site, RequestCounts, SiteHash> sites;
};
// A worker's state for a new launch (its counts emptied) and a new block (what a failed block left dropped).
void begin_launch_requests(Worker& w);
void begin_block_requests(Worker& w);

// The lane's first counted access in the barrier interval, or its log is full: the row its access goes to (the
// warp's log taken or grown, the lanes' rows moved with it).
LogRow* next_log_row(Worker& w, Fiber& f);

// Records lane f.linear % 32's access in its warp's log (hot path: inline). `align` is the alignment the access
// needs; more than its size marks the first piece of a vector (a float4 that the compiler's scalar replacement split
// into its elements): the lane's next pieces, contiguous and within `align` bytes, widen that one entry, as a GPU
// moves the vector with one instruction.
__attribute__((always_inline)) inline void warp_request(Worker& w, RequestKind kind, uintptr_t pc, int alloc,
                                                        uint64_t addr, uint8_t size, size_t align) {
    if (!w.count_requests) return;
    Fiber& f = *w.current;
    const uint32_t lane = f.linear & 31;
    if (__builtin_expect(addr == f.vector_end, 0)) {
        LogRow& row = f.log_row[-1];
        if ((row.key[lane] & 3) == kind && addr + size <= f.vector_limit) {
            f.vector_end = addr + size;
            row.key[lane] = (row.key[lane] & ~uint64_t(0x3FC)) | ((f.vector_end - row.addr[lane]) << 2);
            return;
        }
    }
    LogRow* row = __builtin_expect(f.log_row != f.log_end, 1) ? f.log_row : next_log_row(w, f);
    f.log_row = row + 1;
    row->key[lane] = (uint64_t(pc) << 10) | (uint64_t(size) << 2) | kind;
    row->addr[lane] = addr;
    if (kind == kGlobalLoad || kind == kGlobalStore) row->alloc[lane] = alloc;  // shared: -1, not stored
    f.vector_end = ~0ull;
    if (__builtin_expect(align > size, 0)) f.vector_end = addr + size, f.vector_limit = addr + align;
}

// At the end of a barrier interval or of the block: measures the interval's requests and starts afresh.
void finish_warp_requests(Worker& w);
// Thread t has run until it stopped (at a barrier, a warp collective, or its end): when it is its warp's last lane
// and every lane of the warp is at the barrier or has exited, measures the warp's requests now, while its log is
// still in the cache.
void warp_waits(Worker& w, uint32_t t);
// Sectors / wavefronts of one request (exposed for the tests of the counting rules). `conflict_free`: as if no
// phase of the request (the warp; a half-warp of 8-byte accesses, a quarter of 16-byte ones) met a bank twice —
// the ideal of an 8- or 16-byte request, whose phases a wavefront serves separately unless two can share it.
uint32_t global_sectors(const uint64_t* addr, uint32_t lanes, uint8_t size);
uint32_t shared_wavefronts(const uint64_t* addr, uint32_t lanes, uint8_t size, bool conflict_free = false);

}  // namespace cudaemu
