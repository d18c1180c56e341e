// requests.cpp — grouping a warp's accesses into requests (requests.h says how), and what each request costs.
#include "requests.h"

#include "api.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace cudaemu {

void WarpRequests::clear() {
    n = 0;
    if (indexed) {
        ordered.clear();
        by_occurrence.clear();
        ordered_count.clear();
        for (auto& c : lane_count) c.clear();
        indexed = false;
    }
}

uint32_t WarpRequests::add(uint64_t key, int alloc, uint8_t size) {
    if (n == groups.size()) {
        groups.resize(std::max<size_t>(64, 2 * groups.size()));
        addr.resize(groups.size() * 32);
    }
    groups[n] = {key, alloc, 0, size};
    return n++;
}

namespace {

// From now on requests are also found by (key, n): index those made so far, all of them in the first lane's order.
void build_index(WarpRequests& r) {
    if (r.indexed) return;
    r.indexed = true;
    r.ordered.resize(r.n);
    for (uint32_t g = 0; g < r.n; ++g) {
        r.ordered[g] = g;
        const uint64_t key = r.groups[g].key;
        r.by_occurrence[key][r.ordered_count[key]++] = g;
    }
}

// A lane leaves the fast path at position `seq`: its executions of each key so far are those of ordered[0, seq).
void depart(WarpRequests& r, Fiber& f, uint32_t seq) {
    build_index(r);
    auto& counts = r.lane_count[f.linear & 31];
    counts.clear();
    for (uint32_t i = 0; i < seq; ++i) counts[r.groups[r.ordered[i]].key]++;
    f.access_diverged = true;
}

}  // namespace

bool vector_piece(WarpRequests& r, Fiber& f, RequestKind kind, uint64_t addr, uint8_t size) {
    WarpRequests::Group& q = r.groups[f.vector_group];
    if ((q.key & 3) != kind || addr + size > f.vector_limit) return false;
    f.vector_end = addr + size;
    q.size = static_cast<uint8_t>(
        std::max<uint64_t>(q.size, f.vector_end - r.addr[size_t(f.vector_group) * 32 + (f.linear & 31)]));
    return true;
}

uint32_t warp_request_slow(Fiber& f, WarpRequests& r, uint32_t seq, uint64_t key, int alloc, uint8_t size) {
    const uint32_t lane = f.linear & 31;
    if (!f.access_diverged) {
        build_index(r);
        if (seq == r.ordered.size()) {  // the first lane to get this far: the warp's stream grows
            const uint32_t n = r.ordered_count[key];
            auto& occurrences = r.by_occurrence[key];
            if (!occurrences.count(n)) {
                const uint32_t g = r.add(key, alloc, size);
                r.groups[g].lanes = 1u << lane;
                r.ordered.push_back(g);
                r.ordered_count[key]++;
                occurrences[n] = g;
                return g;
            }
            // a departed lane made this request already: join it, and count by key from now on
        } else if (r.groups[r.ordered[seq]].key == key) {  // still in step with the first lane
            const uint32_t g = r.ordered[seq];
            r.groups[g].lanes |= 1u << lane;
            return g;
        }
        depart(r, f, seq);
    }
    const uint32_t n = r.lane_count[lane][key]++;
    auto& occurrences = r.by_occurrence[key];
    auto it = occurrences.find(n);
    const uint32_t g = it != occurrences.end() ? it->second : (occurrences[n] = r.add(key, alloc, size));
    r.groups[g].lanes |= 1u << lane;
    return g;
}

// The distinct 32-byte sectors the lanes' accesses touch.
uint32_t global_sectors(const uint64_t* addr, uint32_t lanes, uint8_t size) {
    uint64_t sectors[64];
    uint32_t n = 0;
    bool sorted = true;
    for (uint32_t m = lanes; m; m &= m - 1) {
        const uint64_t a = addr[__builtin_ctz(m)];
        for (uint64_t s = a >> 5; s <= (a + size - 1) >> 5; ++s) {
            if (n && s == sectors[n - 1]) continue;
            if (n && s < sectors[n - 1]) sorted = false;
            sectors[n++] = s;
        }
    }
    if (sorted) return n;
    std::sort(sectors, sectors + n);
    return static_cast<uint32_t>(std::unique(sectors, sectors + n) - sectors);
}

namespace {

// The most of the n distinct words that fall in one of the 32 banks.
uint32_t most_in_one_bank(const uint64_t* words, uint32_t n) {
    uint32_t per_bank[32] = {}, most = 0;
    for (uint32_t i = 0; i < n; ++i) most = std::max(most, ++per_bank[words[i] & 31]);
    return most;
}

// The distinct 4-byte words that `lanes` touch, sorted, and the most of them in one bank (0 when no lane is active).
uint32_t busiest_bank(const uint64_t* addr, uint32_t lanes, uint8_t size, uint64_t* words, uint32_t* n) {
    *n = 0;
    for (uint32_t m = lanes; m; m &= m - 1) {
        const uint64_t a = addr[__builtin_ctz(m)];
        for (uint64_t word = a >> 2; word <= (a + size - 1) >> 2; ++word) words[(*n)++] = word;
    }
    std::sort(words, words + *n);
    *n = static_cast<uint32_t>(std::unique(words, words + *n) - words);
    return most_in_one_bank(words, *n);
}

}  // namespace

// Shared memory has 32 banks of 4-byte words; one wavefront serves at most one word of each bank, and every lane that
// reads a word it serves (a broadcast). Accesses of up to 4 bytes: the whole warp in one phase, which takes as many
// wavefronts as its busiest bank has distinct words. 8-byte accesses are served a half-warp at a time and 16-byte
// ones a quarter-warp at a time; two phases (the two half-warps; quarters 0-1, quarters 2-3) share one wavefront
// when together they need no bank twice and either share no word or touch at most two distinct addresses. That rule
// reproduces 34 of the 36 patterns measured on an H100 (tests/emu/programs/requests.cu; docs/emulator.md).
uint32_t shared_wavefronts(const uint64_t* addr, uint32_t lanes, uint8_t size) {
    uint64_t words[128], other[128];
    uint32_t n = 0, m = 0;
    if (size <= 4) {
        // the common case first: no bank holds two different words (a conflict-free access or a broadcast)
        uint64_t in_bank[32];
        uint32_t used = 0;
        bool conflict = false;
        for (uint32_t l = lanes; l && !conflict; l &= l - 1) {
            const uint64_t word = addr[__builtin_ctz(l)] >> 2, bit = 1u << (word & 31);
            if (!(used & bit))
                used |= bit, in_bank[word & 31] = word;
            else
                conflict = in_bank[word & 31] != word;
        }
        if (!conflict) return lanes ? 1 : 0;
        return busiest_bank(addr, lanes, size, words, &n);
    }
    const uint32_t phase_lanes = size == 8 ? 16 : 8, phase_mask = (1u << phase_lanes) - 1;
    uint32_t total = 0;
    for (uint32_t first = 0; first < 32; first += 2 * phase_lanes) {
        const uint32_t a = (lanes >> first) & phase_mask, b = (lanes >> (first + phase_lanes)) & phase_mask;
        const uint32_t wa = busiest_bank(addr, a << first, size, words, &n);
        const uint32_t wb = busiest_bank(addr, b << (first + phase_lanes), size, other, &m);
        if (!a || !b) {
            total += wa + wb;
            continue;
        }
        uint64_t both[256];
        const uint32_t shared =
            static_cast<uint32_t>(std::set_intersection(words, words + n, other, other + m, both) - both);
        const uint32_t all = static_cast<uint32_t>(std::set_union(words, words + n, other, other + m, both) - both);
        const uint32_t most = most_in_one_bank(both, all);
        uint64_t starts[32];
        uint32_t k = 0;
        for (uint32_t l = (a << first) | (b << (first + phase_lanes)); l; l &= l - 1)
            starts[k++] = addr[__builtin_ctz(l)];
        std::sort(starts, starts + k);
        const uint32_t addresses = static_cast<uint32_t>(std::unique(starts, starts + k) - starts);
        total += most == 1 && (shared == 0 || addresses <= 2) ? 1 : wa + wb;
    }
    return total;
}

namespace {

// The fewest units the distinct bytes the lanes asked for could have taken: sectors of 32 bytes, or wavefronts of
// 128 bytes (32 banks of 4 bytes).
uint64_t ideal_units(const uint64_t* addr, uint32_t lanes, uint8_t size, uint32_t unit_bytes, uint64_t* bytes) {
    uint64_t starts[32];
    uint32_t n = 0;
    bool sorted = true;
    for (uint32_t m = lanes; m; m &= m - 1) {
        starts[n] = addr[__builtin_ctz(m)];
        sorted = sorted && (n == 0 || starts[n] >= starts[n - 1]);
        ++n;
    }
    if (!sorted) std::sort(starts, starts + n);
    uint64_t distinct = 0, covered_to = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const uint64_t lo = std::max(starts[i], covered_to), hi = starts[i] + size;
        if (hi > lo) distinct += hi - lo;
        covered_to = std::max(covered_to, hi);
    }
    *bytes += distinct;
    return (distinct + unit_bytes - 1) / unit_bytes;
}

}  // namespace

namespace {

// Adds one request's sectors or wavefronts, and its ideal, to `counts`.
void measure(RequestCounts& counts, const uint64_t* addr, uint32_t lanes, uint8_t size, bool global) {
    RequestCounts::Last& last = counts.last;
    const uint64_t base = addr[__builtin_ctz(lanes)];
    uint64_t deltas[32];
    for (uint32_t l = 0; l < 32; ++l) deltas[l] = (lanes >> l) & 1 ? addr[l] - base : 0;
    if (last.valid && last.lanes == lanes && last.size == size && (base - last.base) % (global ? 32 : 4) == 0 &&
        std::memcmp(deltas, last.deltas, sizeof deltas) == 0) {
        counts.units += last.units, counts.ideal += last.ideal, counts.bytes += last.bytes;
        return;
    }
    uint64_t bytes = 0;
    last.units = global ? global_sectors(addr, lanes, size) : shared_wavefronts(addr, lanes, size);
    last.ideal = static_cast<uint32_t>(ideal_units(addr, lanes, size, global ? 32 : 128, &bytes));
    last.bytes = static_cast<uint32_t>(bytes);
    last.valid = true, last.lanes = lanes, last.size = size, last.base = base;
    std::memcpy(last.deltas, deltas, sizeof deltas);
    counts.units += last.units, counts.ideal += last.ideal, counts.bytes += last.bytes;
}

}  // namespace

void finish_warp_requests(Worker& w) {
    if (!w.count_requests) return;
    RequestState& s = *w.requests;
    struct Cached {
        RequestState::Site site{0, 0};
        RequestCounts* counts = nullptr;
    } cache[16];  // the interval's few access sites, without a hash lookup per request
    for (size_t warp = 0; warp < s.warps.size(); ++warp) {
        WarpRequests& r = s.warps[warp];
        for (size_t g = 0; g < r.n; ++g) {
            const WarpRequests::Group& q = r.groups[g];
            const uint64_t* addr = &r.addr[g * 32];
            const RequestState::Site site{q.key, q.alloc};
            Cached& c = cache[((q.key >> 2) ^ (q.key >> 7) ^ uint64_t(q.alloc)) & 15];
            if (!c.counts || !(c.site == site)) c.site = site, c.counts = &s.sites[site];
            RequestCounts& counts = *c.counts;
            const bool global = (q.key & 3) == kGlobalLoad || (q.key & 3) == kGlobalStore;
            counts.requests++;
            measure(counts, addr, q.lanes, q.size, global);
            const uint64_t order = (w.block_linear << 24) | (warp << 16) | std::min<size_t>(g, 0xFFFF);
            if (order < counts.sample_order) {
                counts.sample_order = order, counts.sample_lanes = q.lanes;
                std::memcpy(counts.sample, addr, sizeof counts.sample);
            }
            counts.size = std::max<int>(counts.size, q.size);
        }
        r.clear();
    }
    for (Fiber& f : w.fibers) f.access_seq = 0, f.access_diverged = false, f.vector_end = ~0ull;
}

// -1 until count_requests() is called: CUDAEMU_REQUESTS decides (read at the first launch, not while the program's
// globals are constructed: a test's main() may set the emulator's environment first).
std::atomic<int> g_count_requests{-1};

void begin_launch_requests(Worker& w) {
    const int on = g_count_requests.load(std::memory_order_relaxed);
    w.count_requests = on < 0 ? config().requests : on != 0;
    if (!w.requests) w.requests = new RequestState();
    w.requests->sites.clear();
    w.requests->warps.resize((w.launch->threads_per_block + 31) / 32);
}

void begin_block_requests(Worker& w) {
    if (!w.count_requests) return;
    for (WarpRequests& r : w.requests->warps) r.clear();
}

void count_requests(bool on) { g_count_requests.store(on ? 1 : 0); }
bool counting_requests() {
    const int on = g_count_requests.load();
    return on < 0 ? config().requests : on != 0;
}

}  // namespace cudaemu
