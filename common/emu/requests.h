// requests.h — warp-level memory requests, as a GPU's load/store unit sees them (requests.cpp).
//
// A GPU issues a memory instruction once for a warp: the addresses of its active lanes form one request, which
// costs a number of 32-byte sectors (global memory) or of wavefronts, passes through the 32 banks (shared memory).
// The emulator runs a warp's lanes one after another, so it groups their accesses afterwards: the n-th execution of
// one source access (one call site of the access callbacks) by each lane of a warp is one request, n counted from
// the block's start or its last __syncthreads(). Lanes of a warp usually execute the same accesses in the same order;
// each lane's n-th access is then found by its position alone (the fast path). A lane whose accesses differ from the
// warp's first (a branch, a loop with more or fewer trips) counts its executions of each access site instead.
// The requests of a barrier interval are measured when it ends (every lane has made its accesses by then).
#pragma once
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <unordered_map>
#include <vector>

#include "scheduler.h"

namespace cudaemu {

enum RequestKind : uint8_t { kGlobalLoad, kGlobalStore, kSharedLoad, kSharedStore };

// One warp's requests in the current barrier interval. Until a lane departs from the first lane's order, request
// number i is the i-th access of every lane (groups[i]); after that, `ordered` and the index say which is which.
struct WarpRequests {
    struct Group {
        uint64_t key;  // the access site and kind: (pc << 2) | RequestKind
        int32_t alloc;
        uint32_t lanes;
        uint8_t size;
    };
    uint32_t n = 0;              // groups in use (the vectors only grow)
    std::vector<Group> groups;   // n of them
    std::vector<uint64_t> addr;  // 32 per group, by lane (an offset in shared memory for shared requests)
    // Built when a lane first departs: groups by position in the stream of the lanes that agree with the first,
    // (key, n) -> group, and how often each key occurs in `ordered`.
    bool indexed = false;
    std::vector<uint32_t> ordered;
    std::unordered_map<uint64_t, std::unordered_map<uint32_t, uint32_t>> by_occurrence;
    std::unordered_map<uint64_t, uint32_t> ordered_count;
    std::unordered_map<uint64_t, uint32_t> lane_count[32];  // per lane that departed: its executions of each key
    void clear();
    uint32_t add(uint64_t key, int alloc, uint8_t size);  // a new group
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

// A worker's warp-level counting: its block's warps, and per launch what each (access site, allocation) did.
struct RequestState {
    std::vector<WarpRequests> warps;
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

// The slow path (the lane, or another of its warp, departed from the first lane's order): returns the request the
// access joins; the caller stores its address.
uint32_t warp_request_slow(Fiber& f, WarpRequests& r, uint32_t seq, uint64_t key, int alloc, uint8_t size);
// A further piece of the vector the lane's last access began: widens its request; false if it is not one.
bool vector_piece(WarpRequests& r, Fiber& f, RequestKind kind, uint64_t addr, uint8_t size);

// Records lane f.linear % 32's part in the request of its current access (hot path: inline). `align` is the
// alignment the access needs; more than its size marks the first piece of a vector (a float4 that the compiler's
// scalar replacement split into its elements): the lane's next pieces, contiguous and within `align` bytes, widen
// that one request, as a GPU moves the vector with one instruction.
__attribute__((always_inline)) inline void warp_request(Worker& w, RequestKind kind, uintptr_t pc, int alloc,
                                                        uint64_t addr, uint8_t size, size_t align) {
    if (!w.count_requests) return;
    Fiber& f = *w.current;
    WarpRequests& r = w.requests->warps[f.linear >> 5];
    if (__builtin_expect(addr == f.vector_end, 0) && vector_piece(r, f, kind, addr, size)) return;
    const uint64_t key = (uint64_t(pc) << 2) | kind;
    const uint32_t seq = f.access_seq++, lane = f.linear & 31;
    uint32_t g = seq;
    if (__builtin_expect(!(f.access_diverged | r.indexed) && seq < r.n && r.groups[seq].key == key, 1)) {
        r.groups[seq].lanes |= 1u << lane;
    } else if (!(f.access_diverged | r.indexed) && seq == r.n) {  // the first lane to get this far
        g = r.add(key, alloc, size);
        r.groups[g].lanes = 1u << lane;
    } else {
        g = warp_request_slow(f, r, seq, key, alloc, size);
    }
    r.addr[size_t(g) * 32 + lane] = addr;
    f.vector_end = __builtin_expect(align > size, 0) ? addr + size : ~0ull;
    if (__builtin_expect(align > size, 0)) f.vector_limit = addr + align, f.vector_group = g;
}

// At the end of a barrier interval or of the block: measures the interval's requests and starts afresh.
void finish_warp_requests(Worker& w);
// Sectors / wavefronts of one request (exposed for the tests of the counting rules).
uint32_t global_sectors(const uint64_t* addr, uint32_t lanes, uint8_t size);
uint32_t shared_wavefronts(const uint64_t* addr, uint32_t lanes, uint8_t size);

}  // namespace cudaemu
