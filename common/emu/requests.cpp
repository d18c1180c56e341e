// requests.cpp — grouping a warp's accesses into requests (requests.h says how), and what each request costs.
#include "requests.h"

#include "api.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace cudaemu {

namespace {

// One past the last thread of warp `warp` in the block (a block's last warp may be partial).
uint32_t warp_end(const Worker& w, uint32_t warp) { return std::min(warp * 32 + 32, w.launch->threads_per_block); }

}  // namespace

LogRow* next_log_row(Worker& w, Fiber& f) {
    RequestState& s = *w.requests;
    const uint32_t warp = f.linear >> 5, first = warp * 32, last = warp_end(w, warp);
    WarpLog*& log = s.by_warp[warp];
    if (!log) {  // the warp's first counted access in the interval
        if (s.spare.empty()) {
            s.owned.push_back(std::make_unique<WarpLog>());
            s.spare.push_back(s.owned.back().get());
        }
        log = s.spare.back();
        s.spare.pop_back();
    }
    if (f.log_row && f.log_row == f.log_end) {  // full: twice the rows, and every lane's place moved with them
        const LogRow* old = log->rows.data();
        log->rows.resize(2 * log->rows.size());
        for (uint32_t t = first; t < last; ++t)
            if (Fiber& g = w.fibers[t]; g.log_row)
                g.log_row = log->rows.data() + (g.log_row - old), g.log_end = log->rows.data() + log->rows.size();
    } else if (!f.log_row) {  // the lane's first counted access in the interval
        if (log->rows.empty()) log->rows.resize(16);
        f.log_row = log->rows.data(), f.log_end = log->rows.data() + log->rows.size();
    }
    return f.log_row;
}

namespace {

void give_back_warp_log(RequestState& s, uint32_t warp) {
    if (!s.by_warp[warp]) return;
    s.spare.push_back(s.by_warp[warp]);
    s.by_warp[warp] = nullptr;
}

// Every lane of the warp begins the next barrier interval with no counted access.
void reset_lanes(Worker& w, uint32_t warp) {
    for (uint32_t t = warp * 32; t < warp_end(w, warp); ++t)
        w.fibers[t].log_row = w.fibers[t].log_end = nullptr, w.fibers[t].vector_end = ~0ull;
}

}  // namespace

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
uint32_t shared_wavefronts(const uint64_t* addr, uint32_t lanes, uint8_t size, bool conflict_free) {
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
        uint32_t wa = busiest_bank(addr, a << first, size, words, &n);
        uint32_t wb = busiest_bank(addr, b << (first + phase_lanes), size, other, &m);
        if (conflict_free) wa = std::min(wa, 1u), wb = std::min(wb, 1u);
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
// 128 bytes (32 banks of 4 bytes). 8- and 16-byte shared accesses are served a half- or a quarter-warp at a time,
// two phases together only where the rule allows it: their ideal is the wavefronts they take when no phase meets a
// bank twice.
uint64_t ideal_units(const uint64_t* addr, uint32_t lanes, uint8_t size, uint32_t unit_bytes, uint64_t* bytes) {
    const uint64_t phases = unit_bytes == 128 && size > 4 ? shared_wavefronts(addr, lanes, size, true) : 0;
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
    return std::max<uint64_t>((distinct + unit_bytes - 1) / unit_bytes, phases);
}

bool is_global(uint64_t key) { return (key & 3) == kGlobalLoad || (key & 3) == kGlobalStore; }
int32_t alloc_of(const LogRow& row, uint32_t lane) { return is_global(row.key[lane]) ? row.alloc[lane] : -1; }

// One request: its site, its lanes and their addresses (an offset in shared memory for shared requests).
struct Request {
    uint64_t key = 0;  // the site: site_of() of the lanes' keys
    int32_t alloc = 0;
    uint32_t lanes = 0;
    uint8_t size = 0;  // the widest of the lanes' accesses
    uint64_t addr[32] = {};
    void add(uint32_t lane, const LogRow& row) {
        if (!lanes) key = site_of(row.key[lane]), alloc = alloc_of(row, lane);
        lanes |= 1u << lane;
        addr[lane] = row.addr[lane];
        size = std::max(size, size_of(row.key[lane]));
    }
};

// Whether values[l] - base differs from expected[l] (from 0 when expected is null) for a lane l of `lanes`.
bool differ(const uint64_t* values, uint64_t base, const uint64_t* expected, uint32_t lanes) {
    uint64_t any = 0;
    if (lanes == ~0u) {  // the common case, in a loop the compiler vectorises
        if (expected)
            for (uint32_t l = 0; l < 32; ++l) any |= (values[l] - base) ^ expected[l];
        else
            for (uint32_t l = 0; l < 32; ++l) any |= values[l] ^ base;
        return any != 0;
    }
    for (uint32_t m = lanes; m; m &= m - 1) {
        const uint32_t l = __builtin_ctz(m);
        any |= (values[l] - base) ^ (expected ? expected[l] : 0);
    }
    return any != 0;
}

// Adds requests to the counts of their sites. A request's order (block, warp, position in the warp's requests) places
// it among the launch's requests, for the choice of the sample.
class Measurer {
  public:
    Measurer(RequestState& s, uint64_t block) : s_(s), block_(block) {}

    // Request `position` of warp `warp`, already grouped.
    void add(const Request& q, size_t warp, size_t position) {
        RequestCounts& counts = site(q.key, q.alloc);
        counts.requests++;
        measure(counts, q);
        sample(counts, q, warp, position);
    }

    // The fast path: request i of the warp is row i of its log, for `lanes`, whose keys are all `key`. Most requests
    // repeat the site's last pattern (the same lanes at the same distances, shifted by whole sectors or words): they
    // are compared with it in the row, without gathering their addresses first.
    void add(const LogRow& row, uint32_t lanes, uint64_t key, uint32_t i, size_t warp) {
        const uint32_t first = __builtin_ctz(lanes);
        RequestCounts& counts = site(site_of(key), alloc_of(row, first));
        counts.requests++;
        const RequestCounts::Last& last = counts.last;
        const uint64_t base = row.addr[first];
        if (last.may_repeat(lanes, size_of(key), base, is_global(key)) && order(warp, i) >= counts.sample_order &&
            !differ(row.addr, base, last.deltas, lanes)) {
            counts.units += last.units, counts.ideal += last.ideal, counts.bytes += last.bytes;
            return;
        }
        Request q;
        for (uint32_t m = lanes; m; m &= m - 1) q.add(__builtin_ctz(m), row);
        measure(counts, q);
        sample(counts, q, warp, i);
    }

  private:
    RequestCounts& site(uint64_t key, int alloc) {
        const RequestState::Site site{key, alloc};
        Cached& c = cache_[((key >> 10) ^ (key >> 15) ^ uint64_t(alloc)) & 15];
        if (!c.counts || !(c.site == site)) c.site = site, c.counts = &s_.sites[site];
        return *c.counts;
    }

    // Adds the request's sectors or wavefronts, and its ideal, to `counts`.
    static void measure(RequestCounts& counts, const Request& q) {
        RequestCounts::Last& last = counts.last;
        const bool global = is_global(q.key);
        const uint64_t base = q.addr[__builtin_ctz(q.lanes)];
        if (!last.may_repeat(q.lanes, q.size, base, global) || differ(q.addr, base, last.deltas, q.lanes)) {
            uint64_t bytes = 0;
            last.units = global ? global_sectors(q.addr, q.lanes, q.size) : shared_wavefronts(q.addr, q.lanes, q.size);
            last.ideal = static_cast<uint32_t>(ideal_units(q.addr, q.lanes, q.size, global ? 32 : 128, &bytes));
            last.bytes = static_cast<uint32_t>(bytes);
            last.valid = true, last.lanes = q.lanes, last.size = q.size, last.base = base;
            for (uint32_t l = 0; l < 32; ++l) last.deltas[l] = (q.lanes >> l) & 1 ? q.addr[l] - base : 0;
        }
        counts.units += last.units, counts.ideal += last.ideal, counts.bytes += last.bytes;
        counts.size = std::max<int>(counts.size, q.size);
    }

    uint64_t order(size_t warp, size_t position) const {
        return (block_ << 24) | (warp << 16) | std::min<size_t>(position, 0xFFFF);
    }

    void sample(RequestCounts& counts, const Request& q, size_t warp, size_t position) const {
        if (const uint64_t o = order(warp, position); o < counts.sample_order) {
            counts.sample_order = o, counts.sample_lanes = q.lanes;
            std::memcpy(counts.sample, q.addr, sizeof counts.sample);
        }
    }

    RequestState& s_;
    uint64_t block_;
    struct Cached {
        RequestState::Site site{0, 0};
        RequestCounts* counts = nullptr;
    } cache_[16];  // the interval's few access sites, without a hash lookup per request
};

// Groups a warp's log from row `from` on by the n-th execution of each access site by each lane: a lane's sites are
// not a prefix of the longest lane's. Rows before `from` hold the same sites for every lane that reached them, so
// every lane's executions of a site before `from` are as many, and counting from `from` on pairs the same ones.
void group_by_site(const WarpLog& log, const uint32_t* len, uint32_t lanes, uint32_t from, size_t warp,
                   Measurer& measurer) {
    std::vector<Request> requests;
    std::unordered_map<uint64_t, std::vector<uint32_t>> by_occurrence;  // site -> its n-th request from `from` on
    std::unordered_map<uint64_t, uint32_t> count;
    for (uint32_t m = lanes; m; m &= m - 1) {
        const uint32_t lane = __builtin_ctz(m);
        count.clear();
        for (uint32_t i = from; i < len[lane]; ++i) {
            const uint64_t key = site_of(log.rows[i].key[lane]);
            const uint32_t n = count[key]++;
            std::vector<uint32_t>& occurrences = by_occurrence[key];
            if (n == occurrences.size()) {
                occurrences.push_back(static_cast<uint32_t>(requests.size()));
                requests.emplace_back();
            }
            requests[occurrences[n]].add(lane, log.rows[i]);
        }
    }
    for (size_t g = 0; g < requests.size(); ++g) measurer.add(requests[g], warp, from + g);
}

// Groups and measures the requests in the log of warp `warp`.
void measure_warp(Worker& w, Measurer& measurer, uint32_t warp, const WarpLog& log) {
    const uint32_t first = warp * 32;
    uint32_t len[32] = {}, lanes = 0, longest = 0, shortest = UINT32_MAX;
    for (uint32_t lane = 0; first + lane < warp_end(w, warp); ++lane) {
        Fiber& f = w.fibers[first + lane];
        len[lane] = f.log_row ? static_cast<uint32_t>(f.log_row - log.rows.data()) : 0;
        if (!len[lane]) continue;
        lanes |= 1u << lane;
        if (len[lane] > len[longest]) longest = lane;
        shortest = std::min(shortest, len[lane]);
    }
    // Request i is row i while every lane's sites are those of the longest lane.
    uint32_t active = lanes;
    for (uint32_t i = 0; i < len[longest]; ++i) {
        const LogRow& row = log.rows[i];
        if (i >= shortest)
            for (uint32_t m = active; m; m &= m - 1)
                if (len[__builtin_ctz(m)] <= i) active &= ~(1u << __builtin_ctz(m));
        const uint64_t key = row.key[longest];
        if (differ(row.key, key, nullptr, active)) {
            group_by_site(log, len, lanes, i, warp, measurer);
            return;
        }
        measurer.add(row, active, key, i, warp);
    }
}

// Measures the requests of warp `warp`, and empties its log.
void finish_warp(Worker& w, Measurer& measurer, uint32_t warp) {
    RequestState& s = *w.requests;
    if (s.by_warp[warp]) measure_warp(w, measurer, warp, *s.by_warp[warp]);
    give_back_warp_log(s, warp);
    reset_lanes(w, warp);
}

}  // namespace

void finish_warp_requests(Worker& w) {
    if (!w.count_requests) return;
    Measurer measurer(*w.requests, w.block_linear);
    for (uint32_t warp = 0; warp * 32 < w.launch->threads_per_block; ++warp) finish_warp(w, measurer, warp);
}

void warp_waits(Worker& w, uint32_t t) {
    const uint32_t warp = t >> 5;
    if (t + 1 != warp_end(w, warp)) return;
    for (uint32_t u = warp * 32; u < t + 1; ++u)
        if (w.fibers[u].state != FiberState::kAtBarrier && w.fibers[u].state != FiberState::kDone) return;
    Measurer measurer(*w.requests, w.block_linear);
    finish_warp(w, measurer, warp);
}

// -1 until count_requests() is called: CUDAEMU_REQUESTS decides (read at the first launch, not while the program's
// globals are constructed: a test's main() may set the emulator's environment first).
std::atomic<int> g_count_requests{-1};

void begin_launch_requests(Worker& w) {
    const int on = g_count_requests.load(std::memory_order_relaxed);
    w.count_requests = on < 0 ? config().requests : on != 0;
    if (!w.requests) w.requests = new RequestState();
    w.requests->sites.clear();
    RequestState& s = *w.requests;
    for (uint32_t warp = 0; warp < s.by_warp.size(); ++warp) give_back_warp_log(s, warp);
    s.by_warp.assign((w.launch->threads_per_block + 31) / 32, nullptr);
}

void begin_block_requests(Worker& w) {
    if (!w.count_requests) return;
    for (uint32_t warp = 0; warp < w.requests->by_warp.size(); ++warp) {
        give_back_warp_log(*w.requests, warp);
        reset_lanes(w, warp);
    }
}

void count_requests(bool on) { g_count_requests.store(on ? 1 : 0); }
bool counting_requests() {
    const int on = g_count_requests.load();
    return on < 0 ? config().requests : on != 0;
}

}  // namespace cudaemu
