// warp.cpp — warps: the warp intrinsics (__shfl*_sync, votes, matches, reductions, __syncwarp, __activemask),
// __syncthreads_count/and/or, the entry points cooperative groups use, and the warp diagnostics.
//
// A lane that calls a collective records it (a Collective on its own stack) and waits; the last lane of the mask to
// arrive computes every lane's result, as the hardware would in one step, and releases the others. Which lanes a
// collective waits for: those named in its mask that exist (a block's last warp may be partial) and have not
// exited. Diagnosed, with the caller's file:line:
//   - lanes named in the mask that have exited (their values are undefined on a GPU);         not fatal
//   - a __shfl*_sync whose source lane is not taking part (outside the mask, exited, absent);  not fatal: own value
//   - a caller not named in its own mask;                                                       not fatal
//   - a collective that can never complete: lanes of its mask wait at a __syncthreads() or at a different
//     collective (another kind or another mask). A GPU hangs or returns garbage; the block ends with
//     cudaErrorLaunchFailure, as for a divergent barrier.
// A cooperative-groups tile of several warps (kTileSync) is the same rendezvous over every lane of the tile's warps.
// A completed __syncwarp() also orders the shared-memory accesses of its lanes for the race detector (checks.cpp).
#include "warp.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "checks.h"
#include "include/cuda_runtime.h"
#include "scheduler.h"
#include "symbols.h"

namespace cudaemu {
namespace {

const char* op_name(int op) {
    switch (op) {
        case kWarpSync:
            return "__syncwarp";
        case kShflIdx:
            return "__shfl_sync";
        case kShflUp:
            return "__shfl_up_sync";
        case kShflDown:
            return "__shfl_down_sync";
        case kShflXor:
            return "__shfl_xor_sync";
        case kBallot:
            return "__ballot_sync";
        case kAny:
            return "__any_sync";
        case kAll:
            return "__all_sync";
        case kMatchAny:
            return "__match_any_sync";
        case kMatchAll:
            return "__match_all_sync";
        case kReduceAddS:
        case kReduceAddU:
            return "__reduce_add_sync";
        case kReduceMinS:
        case kReduceMinU:
            return "__reduce_min_sync";
        case kReduceMaxS:
        case kReduceMaxU:
            return "__reduce_max_sync";
        case kReduceAnd:
            return "__reduce_and_sync";
        case kReduceOr:
            return "__reduce_or_sync";
        case kReduceXor:
            return "__reduce_xor_sync";
        case kActivemask:
            return "__activemask";
        case kTileSync:
            return "thread_block_tile::sync";
        case kWmmaLoad:
            return "wmma::load_matrix_sync";
        case kWmmaStore:
            return "wmma::store_matrix_sync";
        case kWmmaMma:
            return "wmma::mma_sync";
        case kPtxMma:
            return "mma_m16n8k8_tf32";
        case kPtxLdmatrix:
            return "ldmatrix";
    }
    return "a warp collective";
}

// The warp matrix functions and mma_ptx.h's instructions: the whole warp, at one call site.
bool is_wmma(int op) { return op >= kWmmaLoad && op <= kPtxLdmatrix; }

bool is_shuffle(int op) { return op == kShflIdx || op == kShflUp || op == kShflDown || op == kShflXor; }

uintptr_t where(const Collective& c) { return c.file ? site_pc(c.file, c.line) : c.pc; }

std::string hex(uint32_t mask) {
    char buf[16];
    snprintf(buf, sizeof buf, "0x%08x", mask);
    return buf;
}

std::string call(const Collective& c) {
    if (c.op == kTileSync) return "the sync of a thread_block_tile<" + std::to_string(c.arg) + ">";
    if (is_wmma(c.op)) return op_name(c.op);
    return std::string(op_name(c.op)) + "(mask " + hex(c.mask) + ")";
}

// "lane 3", "lanes 0-15", "lanes 1, 4-6"
std::string lane_list(uint32_t lanes) {
    std::string out;
    int count = 0;
    for (int i = 0; i < 32;) {
        if (!(lanes >> i & 1)) {
            ++i;
            continue;
        }
        int j = i;
        while (j + 1 < 32 && (lanes >> (j + 1) & 1)) ++j;
        out += (out.empty() ? "" : ", ") + std::to_string(i) + (j > i ? "-" + std::to_string(j) : "");
        count += j - i + 1;
        i = j + 1;
    }
    return (count == 1 ? "lane " : "lanes ") + out;
}

std::string warp_name(const Worker& w, uint32_t warp) {
    return "warp " + std::to_string(warp) + " of block " + coord(w.block_idx);
}

Fiber& lane_fiber(Worker& w, uint32_t warp, uint32_t lane) { return w.fibers[warp * 32 + lane]; }

// The lane a shuffle reads, as PTX's shfl.sync computes it from the lane, the operand and the width (segments of
// `width` lanes); false where it reads its own value instead (past the segment's end, or before its start for up).
bool source_lane(const Collective& c, uint32_t lane, uint32_t* source) {
    const int width = std::clamp(c.width, 1, 32);
    const int64_t segmask = (32 - width) & 31, l = lane;
    const int64_t first = l & segmask, last = first | (31 & ~segmask);
    int64_t j = l;
    bool valid = false;
    switch (c.op) {
        case kShflUp:
            j = l - int64_t(uint32_t(c.arg));
            valid = j >= first;
            break;
        case kShflDown:
            j = l + int64_t(uint32_t(c.arg));
            valid = j <= last;
            break;
        case kShflXor:
            j = l ^ int64_t(uint32_t(c.arg));
            valid = j <= last;
            break;
        default:
            j = first | ((c.arg & 31) & ~segmask);
            valid = j <= last;
            break;
    }
    *source = valid ? static_cast<uint32_t>(j) : lane;
    return valid;
}

// Non-fatal warp diagnostics at one call site; `variant` keeps different kinds at the same site apart.
void warp_warning(Worker& w, uint32_t thread, const Collective& c, uintptr_t variant, std::string text) {
    add_diag(w, DiagKind::kWarp, thread, where(c), variant, std::move(text));
}

void compute(Worker& w, uint32_t warp, uint32_t lanes, const Collective& first) {
    const int op = first.op;
    if (is_wmma(op)) {
        (op >= kPtxMma ? ptx_compute : wmma_compute)(w, warp, lanes, op);
        return;
    }
    if (is_shuffle(op)) {
        for (uint32_t m = lanes; m; m &= m - 1) {
            const uint32_t lane = __builtin_ctz(m);
            Collective& me = *lane_fiber(w, warp, lane).collective;
            uint32_t j = lane;
            const void* src = me.in;
            if (source_lane(me, lane, &j) && j != lane) {
                if (lanes >> j & 1) {
                    src = lane_fiber(w, warp, j).collective->in;
                } else {
                    const uint32_t exists = existing_lanes(w, warp), exited = w.warp_exited[warp];
                    const std::string why = !(exists >> j & 1)
                                                ? "does not exist (the block has " +
                                                      std::to_string(w.launch->threads_per_block) + " threads)"
                                            : (exited >> j & 1) && (me.mask >> j & 1) ? "has already exited"
                                                                                      : "is not named in the mask";
                    warp_warning(w, warp * 32 + lane, me, 1,
                                 "warp shuffle: lane " + std::to_string(lane) + " of " + warp_name(w, warp) +
                                     " calls " + call(me) + " at %1 and reads lane " + std::to_string(j) + ", which " +
                                     why + ": on a GPU the value is undefined; here the lane gets its own value");
                }
            }
            memcpy(me.out, src, me.size);
        }
        return;
    }
    if (op == kWarpSync) {
        // the lanes' accesses before it are ordered before their accesses after it (checks.cpp, warp_ordered)
        const uint32_t epoch = ++w.epoch;
        for (uint32_t a = lanes; a; a &= a - 1)
            for (uint32_t b = lanes; b; b &= b - 1)
                w.pair_sync[(warp * 32 + __builtin_ctz(a)) * 32 + __builtin_ctz(b)] = epoch;
        return;
    }
    uint32_t votes = 0;
    int64_t sum = 0, lo = INT64_MAX, hi = INT64_MIN;
    uint64_t ulo = UINT64_MAX, uhi = 0, band = ~uint64_t(0), bor = 0, bxor = 0;
    for (uint32_t m = lanes; m; m &= m - 1) {
        const uint32_t lane = __builtin_ctz(m);
        const uint64_t v = lane_fiber(w, warp, lane).collective->value;
        if (v) votes |= 1u << lane;
        const int64_t s = op == kReduceAddS || op == kReduceMinS || op == kReduceMaxS ? int64_t(int32_t(uint32_t(v)))
                                                                                      : int64_t(uint32_t(v));
        sum += s, lo = std::min(lo, s), hi = std::max(hi, s);
        ulo = std::min<uint64_t>(ulo, uint32_t(v)), uhi = std::max<uint64_t>(uhi, uint32_t(v));
        band &= v, bor |= v, bxor ^= v;
    }
    for (uint32_t m = lanes; m; m &= m - 1) {
        const uint32_t lane = __builtin_ctz(m);
        Collective& me = *lane_fiber(w, warp, lane).collective;
        switch (op) {
            case kBallot:
                me.result = votes;
                break;
            case kAny:
                me.result = votes != 0;
                break;
            case kAll:
                me.result = votes == lanes;
                break;
            case kReduceAddS:
            case kReduceAddU:
                me.result = uint32_t(sum);
                break;
            case kReduceMinS:
                me.result = uint32_t(int32_t(lo));
                break;
            case kReduceMaxS:
                me.result = uint32_t(int32_t(hi));
                break;
            case kReduceMinU:
                me.result = ulo;
                break;
            case kReduceMaxU:
                me.result = uhi;
                break;
            case kReduceAnd:
                me.result = uint32_t(band);
                break;
            case kReduceOr:
                me.result = uint32_t(bor);
                break;
            case kReduceXor:
                me.result = uint32_t(bxor);
                break;
            case kMatchAny:
            case kMatchAll: {
                uint32_t same = 0;
                for (uint32_t o = lanes; o; o &= o - 1)
                    if (lane_fiber(w, warp, __builtin_ctz(o)).collective->value == me.value)
                        same |= 1u << __builtin_ctz(o);
                me.predicate = same == lanes;
                me.result = op == kMatchAny ? same : (same == lanes ? lanes : 0);
                break;
            }
        }
    }
}

// The warps [first, end) of the tile of c.arg threads (a multiple of 32) that holds `warp`.
void tile_warps(const Worker& w, uint32_t warp, const Collective& c, uint32_t* first, uint32_t* end) {
    const uint32_t per_tile = static_cast<uint32_t>(c.arg) / 32, warps = (w.launch->threads_per_block + 31) / 32;
    *first = warp / per_tile * per_tile;
    *end = std::min(*first + per_tile, warps);
}

// Completes a tile's rendezvous if every lane of its warps that has not exited waits at it. Every lane gets the
// value of the first waiting lane of each warp; the accesses to shared memory before it are ordered before those
// after it for the whole block (a barrier interval ends: races between other threads across it go unreported).
bool try_complete_tile(Worker& w, uint32_t warp, const Collective& c) {
    uint32_t first, end;
    tile_warps(w, warp, c, &first, &end);
    uint32_t exited_warp = 0, exited_lanes = 0;
    for (uint32_t wi = first; wi < end; ++wi) {
        const uint32_t lanes = existing_lanes(w, wi) & ~w.warp_exited[wi];
        if ((w.warp_waiting[wi] & lanes) != lanes) return false;
        for (uint32_t m = lanes; m; m &= m - 1) {
            const Collective& o = *lane_fiber(w, wi, __builtin_ctz(m)).collective;
            if (o.op != kTileSync || o.arg != c.arg) return false;
        }
        if (existing_lanes(w, wi) & w.warp_exited[wi] && !exited_lanes)
            exited_warp = wi, exited_lanes = existing_lanes(w, wi) & w.warp_exited[wi];
    }
    const Collective& me = *lane_fiber(w, warp, __builtin_ctz(w.warp_waiting[warp])).collective;
    if (exited_lanes)
        warp_warning(w, warp * 32 + __builtin_ctz(w.warp_waiting[warp]), me, 2,
                     "tile collective: the threads of a tile call " + call(me) + " at %1, but " +
                         lane_list(exited_lanes) + " of " + warp_name(w, exited_warp) +
                         " have already exited — on a GPU this is undefined; is there an early return before it?");
    for (uint32_t wi = first; wi < end; ++wi) {
        const uint32_t lanes = w.warp_waiting[wi] & existing_lanes(w, wi);
        if (!lanes || !me.size) continue;
        const void* value = lane_fiber(w, wi, __builtin_ctz(lanes)).collective->in;
        for (uint32_t ww = first; ww < end; ++ww)
            for (uint32_t m = w.warp_waiting[ww] & existing_lanes(w, ww); m; m &= m - 1) {
                const Collective& o = *lane_fiber(w, ww, __builtin_ctz(m)).collective;
                memcpy(static_cast<char*>(o.out) + (wi - first) * o.size, value, o.size);
            }
    }
    judge_pending_reads(w);
    w.interval_start = ++w.epoch;
    for (uint32_t wi = first; wi < end; ++wi) {
        for (uint32_t m = w.warp_waiting[wi]; m; m &= m - 1) {
            Fiber& f = lane_fiber(w, wi, __builtin_ctz(m));
            if (&f == w.current) {
                f.state = FiberState::kRunning;
            } else {
                f.state = FiberState::kReady;
                ++w.ready;
            }
        }
        w.warp_waiting[wi] = 0;
    }
    return true;
}

// Completes the collective `c` of this warp if every lane it waits for waits at the same kind with the same mask.
bool try_complete(Worker& w, uint32_t warp, const Collective& c) {
    if (c.op == kTileSync) return try_complete_tile(w, warp, c);
    const uint32_t exists = existing_lanes(w, warp), exited = w.warp_exited[warp];
    const uint32_t lanes = c.mask & exists & ~exited;
    if ((w.warp_waiting[warp] & lanes) != lanes) return false;
    for (uint32_t m = lanes; m; m &= m - 1) {
        const Collective& o = *lane_fiber(w, warp, __builtin_ctz(m)).collective;
        if (o.op != c.op || o.mask != c.mask) return false;
    }
    const uint32_t first = __builtin_ctz(lanes);
    if (c.mask & exists & exited) {
        const Collective& me = *lane_fiber(w, warp, first).collective;
        warp_warning(
            w, warp * 32 + first, me, 2,
            "warp collective: " + warp_name(w, warp) + " calls " + call(me) + " at %1, but " +
                lane_list(c.mask & exists & exited) +
                " named in the mask have already exited — on a GPU what they contribute is undefined; is there "
                "an early return before the collective?");
    }
    compute(w, warp, lanes, c);
    w.warp_waiting[warp] &= ~lanes;
    for (uint32_t m = lanes; m; m &= m - 1) {
        Fiber& f = lane_fiber(w, warp, __builtin_ctz(m));
        if (&f == w.current) {
            f.state = FiberState::kRunning;
        } else {
            f.state = FiberState::kReady;
            ++w.ready;
        }
    }
    return true;
}

void arrive(Collective& c) {
    Worker* w = tls_worker;
    if (!w || !w->current) {  // host code: a warp of one
        if (is_shuffle(c.op)) memcpy(c.out, c.in, c.size);
        c.result = c.op == kBallot ? (c.value != 0) : c.op == kMatchAny || c.op == kMatchAll ? 1 : c.value;
        c.predicate = 1;
        return;
    }
    if (g_abort_kernel.load(std::memory_order_relaxed)) abort_for_timeout(*w);
    Fiber& me = *w->current;
    const uint32_t lane = me.linear & 31, warp = me.linear >> 5;
    if (c.op == kTileSync) c.mask = ~0u;  // every lane of the tile's warps
    if (c.op != kActivemask && !(c.mask >> lane & 1)) {
        warp_warning(*w, me.linear, c, 3,
                     "warp collective: lane " + std::to_string(lane) + " of " + warp_name(*w, warp) + " calls " +
                         call(c) +
                         " at %1, whose mask does not name the lane itself — on a GPU this is undefined; "
                         "here it takes part anyway");
        c.mask |= 1u << lane;
    }
    me.collective = &c;
    me.state = FiberState::kAtWarp;
    w->warp_waiting[warp] |= 1u << lane;
    if (c.op == kActivemask || !try_complete(*w, warp, c)) yield_to_scheduler(*w);
}

template <class T>
T shuffle(int op, unsigned mask, T var, int arg, int width, uintptr_t pc) {
    T out{};
    Collective c;
    c.op = op, c.mask = mask, c.in = &var, c.out = &out, c.size = sizeof(T), c.arg = arg, c.width = width, c.pc = pc;
    arrive(c);
    return out;
}

template <class T>
uint64_t bits_of(T v) {
    uint64_t b = 0;
    memcpy(&b, &v, sizeof v);
    return b;
}

uint64_t vote(int op, unsigned mask, uint64_t value, uintptr_t pc, int* predicate = nullptr) {
    Collective c;
    c.op = op, c.mask = mask, c.value = value, c.pc = pc;
    arrive(c);
    if (predicate) *predicate = c.predicate;
    return c.result;
}

int block_vote(int predicate, uintptr_t pc) {
    Worker* w = tls_worker;
    if (!w || !w->current) return predicate != 0;
    if (g_abort_kernel.load(std::memory_order_relaxed)) abort_for_timeout(*w);
    w->current->barrier_pc = pc;
    w->current->barrier_predicate = predicate;
    w->current->state = FiberState::kAtBarrier;
    yield_to_scheduler(*w);
    return w->barrier_count;
}

}  // namespace

// The lanes of this warp that exist: a block whose size is not a multiple of 32 has a partial last warp.
uint32_t existing_lanes(const Worker& w, uint32_t warp) {
    const uint32_t count = std::min<uint32_t>(32, w.launch->threads_per_block - warp * 32);
    return count == 32 ? ~0u : (1u << count) - 1;
}

void reset_warps(Worker& w) {
    std::fill(std::begin(w.warp_waiting), std::end(w.warp_waiting), 0u);
    std::fill(std::begin(w.warp_exited), std::end(w.warp_exited), 0u);
}

void warp_lane_exited(Worker& w, uint32_t t) {
    const uint32_t warp = t >> 5, bit = 1u << (t & 31);
    w.warp_exited[warp] |= bit;
    for (bool completed = true; completed;) {  // completing one collective changes which lanes still wait
        completed = false;
        for (uint32_t m = w.warp_waiting[warp]; m && !completed; m &= m - 1) {
            const Collective& c = *lane_fiber(w, warp, __builtin_ctz(m)).collective;
            completed = c.op != kActivemask && c.op != kTileSync && (c.mask & bit) && try_complete(w, warp, c);
        }
    }
    // a tile of several warps waits for this lane too
    const uint32_t warps = (w.launch->threads_per_block + 31) / 32;
    for (uint32_t wi = 0; wi < warps; ++wi) {
        if (!w.warp_waiting[wi]) continue;
        const Collective& c = *lane_fiber(w, wi, __builtin_ctz(w.warp_waiting[wi])).collective;
        if (c.op != kTileSync) continue;
        uint32_t first, end;
        tile_warps(w, wi, c, &first, &end);
        if (warp >= first && warp < end) try_complete_tile(w, wi, c);
    }
}

bool resolve_activemask(Worker& w) {
    bool any = false;
    const uint32_t warps = (w.launch->threads_per_block + 31) / 32;
    for (uint32_t warp = 0; warp < warps; ++warp) {
        for (uint32_t m = w.warp_waiting[warp]; m;) {
            Collective& c = *lane_fiber(w, warp, __builtin_ctz(m)).collective;
            if (c.op != kActivemask) {
                m &= m - 1;
                continue;
            }
            uint32_t together = 0;  // the lanes waiting at the same __activemask() call
            for (uint32_t o = w.warp_waiting[warp]; o; o &= o - 1) {
                const Collective& other = *lane_fiber(w, warp, __builtin_ctz(o)).collective;
                if (other.op == kActivemask && where(other) == where(c)) together |= 1u << __builtin_ctz(o);
            }
            for (uint32_t o = together; o; o &= o - 1) {
                Fiber& f = lane_fiber(w, warp, __builtin_ctz(o));
                f.collective->result = together;
                f.state = FiberState::kReady;
                ++w.ready;
            }
            w.warp_waiting[warp] &= ~together;
            m &= ~together;
            any = true;
        }
    }
    return any;
}

namespace {
// A tile of several warps whose rendezvous cannot complete: one of its threads waits elsewhere.
bool tile_stalled(Worker& w, uint32_t warp, const Collective& c) {
    uint32_t first, end;
    tile_warps(w, warp, c, &first, &end);
    for (uint32_t wi = first; wi < end; ++wi) {
        for (uint32_t m = existing_lanes(w, wi) & ~w.warp_exited[wi]; m; m &= m - 1) {
            const Fiber& f = lane_fiber(w, wi, __builtin_ctz(m));
            const bool with_us =
                f.state == FiberState::kAtWarp && f.collective->op == kTileSync && f.collective->arg == c.arg;
            if (with_us) continue;
            const bool at_barrier = f.state == FiberState::kAtBarrier;
            if (!at_barrier && f.state != FiberState::kAtWarp) continue;
            const uintptr_t pc2 = at_barrier ? f.barrier_pc : where(*f.collective);
            const uint32_t t = warp * 32 + __builtin_ctz(w.warp_waiting[warp]);
            block_error(w, DiagKind::kWarp, t, where(c), pc2,
                        "tile rendezvous never completes: thread " + tid_coord(w, t) + " of block " +
                            coord(w.block_idx) + " waits at " + call(c) + " at %1, but thread " +
                            tid_coord(w, wi * 32 + __builtin_ctz(m)) + " of the tile waits at " +
                            (at_barrier ? std::string("__syncthreads()") : call(*f.collective)) +
                            " at %2 — every thread of the tile must reach the same call (on a GPU it hangs)");
            return true;
        }
    }
    return false;
}
}  // namespace

bool warp_stalled(Worker& w) {
    const uint32_t warps = (w.launch->threads_per_block + 31) / 32;
    for (uint32_t warp = 0; warp < warps; ++warp) {
        if (!w.warp_waiting[warp]) continue;
        const uint32_t lane = __builtin_ctz(w.warp_waiting[warp]);
        const Collective& c = *lane_fiber(w, warp, lane).collective;
        if (c.op == kTileSync) {
            if (tile_stalled(w, warp, c)) return true;
            continue;
        }
        const uint32_t lanes = c.mask & existing_lanes(w, warp) & ~w.warp_exited[warp];
        uint32_t at_barrier = 0, elsewhere = 0;
        const Collective* other = nullptr;
        uintptr_t barrier_pc = 0;
        for (uint32_t m = lanes; m; m &= m - 1) {
            const Fiber& f = lane_fiber(w, warp, __builtin_ctz(m));
            if (f.state == FiberState::kAtBarrier) {
                if (!at_barrier) barrier_pc = f.barrier_pc;
                at_barrier |= 1u << __builtin_ctz(m);
            } else if (f.state == FiberState::kAtWarp && (f.collective->op != c.op || f.collective->mask != c.mask)) {
                if (!elsewhere) other = f.collective;
                elsewhere |= 1u << __builtin_ctz(m);
            }
        }
        std::string text = "warp collective never completes: " + lane_list(w.warp_waiting[warp] & lanes & ~elsewhere) +
                           " of " + warp_name(w, warp) + " wait at " + call(c) + " at %1, but ";
        uintptr_t pc2 = 0;
        const char* named = is_wmma(c.op) ? " of the warp" : " named in the mask";
        if (at_barrier) {
            text += lane_list(at_barrier) + named + " wait" + (at_barrier & (at_barrier - 1) ? "" : "s") +
                    " at __syncthreads() at %2";
            pc2 = barrier_pc;
        } else if (other) {
            text += lane_list(elsewhere) + named + " wait" + (elsewhere & (elsewhere - 1) ? "" : "s") + " at " +
                    call(*other) + " at %2";
            pc2 = where(*other);
        } else {
            continue;  // cannot happen: a collective whose lanes all wait at it has completed
        }
        if (at_barrier && elsewhere) text += " (and " + lane_list(elsewhere) + " at another collective)";
        text += is_wmma(c.op)
                    ? " — every lane of the warp must reach the same warp matrix call (undefined on a GPU: it "
                      "hangs or computes garbage)"
                    : " — every lane named in the mask must reach a " + std::string(op_name(c.op)) +
                          "() with the same mask (undefined on a GPU: it hangs or returns garbage)";
        block_error(w, DiagKind::kWarp, warp * 32 + lane, where(c), pc2, text);
        return true;
    }
    return false;
}

void warp_arrive(Collective& c) { arrive(c); }

// Cooperative groups (header code) pass their caller's source location.
void warp_shuffle(int op, unsigned mask, const void* in, void* out, unsigned size, int arg, int width, const char* file,
                  int line) {
    Collective c;
    c.op = op, c.mask = mask, c.in = in, c.out = out, c.size = size, c.arg = arg, c.width = width;
    c.file = file, c.line = line;
    arrive(c);
}

unsigned warp_vote(int op, unsigned mask, int predicate, const char* file, int line) {
    Collective c;
    c.op = op, c.mask = mask, c.value = predicate != 0, c.file = file, c.line = line;
    arrive(c);
    return static_cast<unsigned>(c.result);
}

void block_sync(const char* file, int line) { block_vote(0, site_pc(file, line)); }

void tile_collective(unsigned tile_threads, const void* in, void* out, unsigned size, const char* file, int line) {
    Worker* w = tls_worker;
    if (!w || !w->current) {  // host code: a tile of one
        if (size) memcpy(out, in, size);
        return;
    }
    Collective c;
    c.op = kTileSync, c.in = in, c.out = out, c.size = size, c.arg = static_cast<int32_t>(tile_threads);
    c.file = file, c.line = line;
    arrive(c);
}

void group_report(bool fatal, const char* format, unsigned a, unsigned b, const char* file, int line) {
    Worker* w = tls_worker;
    if (!w || !w->current) return;
    char text[256];
    snprintf(text, sizeof text, format, a, b);
    const uintptr_t pc = site_pc(file, line);
    const std::string what = std::string("cooperative groups: thread ") + coord(w->current->idx) + " of block " +
                             coord(w->block_idx) + " at %1: " + text;
    if (!fatal) {
        add_diag(*w, DiagKind::kWarp, w->current->linear, pc, 4, what);
        return;
    }
    block_error(*w, DiagKind::kWarp, w->current->linear, pc, 0, what);
    abort_block(*w, cudaErrorLaunchFailure);
}

}  // namespace cudaemu

using namespace cudaemu;

// ===============================================================================================================
// The intrinsics, as CUDA declares them (include/cudaemu_warp.h)
// ===============================================================================================================
#define CUDAEMU_SHFL(T)                                                                        \
    T __shfl_sync(unsigned mask, T var, int src_lane, int width) {                             \
        return shuffle(kShflIdx, mask, var, src_lane, width, CUDAEMU_RA);                      \
    }                                                                                          \
    T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width) {                        \
        return shuffle(kShflUp, mask, var, static_cast<int>(delta), width, CUDAEMU_RA);        \
    }                                                                                          \
    T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width) {                      \
        return shuffle(kShflDown, mask, var, static_cast<int>(delta), width, CUDAEMU_RA);      \
    }                                                                                          \
    T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width) {                        \
        return shuffle(kShflXor, mask, var, lane_mask, width, CUDAEMU_RA);                     \
    }                                                                                          \
    unsigned __match_any_sync(unsigned mask, T value) {                                        \
        return static_cast<unsigned>(vote(kMatchAny, mask, bits_of(value), CUDAEMU_RA));       \
    }                                                                                          \
    unsigned __match_all_sync(unsigned mask, T value, int* pred) {                             \
        return static_cast<unsigned>(vote(kMatchAll, mask, bits_of(value), CUDAEMU_RA, pred)); \
    }
CUDAEMU_SHFL(int)
CUDAEMU_SHFL(unsigned int)
CUDAEMU_SHFL(long)
CUDAEMU_SHFL(unsigned long)
CUDAEMU_SHFL(long long)
CUDAEMU_SHFL(unsigned long long)
CUDAEMU_SHFL(float)
CUDAEMU_SHFL(double)
#undef CUDAEMU_SHFL

unsigned __ballot_sync(unsigned mask, int predicate) {
    return static_cast<unsigned>(vote(kBallot, mask, predicate != 0, CUDAEMU_RA));
}
int __all_sync(unsigned mask, int predicate) { return static_cast<int>(vote(kAll, mask, predicate != 0, CUDAEMU_RA)); }
int __any_sync(unsigned mask, int predicate) { return static_cast<int>(vote(kAny, mask, predicate != 0, CUDAEMU_RA)); }
unsigned __activemask() { return static_cast<unsigned>(vote(kActivemask, 0, 0, CUDAEMU_RA)); }
void __syncwarp(unsigned mask) { vote(kWarpSync, mask, 0, CUDAEMU_RA); }

#define CUDAEMU_REDUCE(name, T, op) \
    T name(unsigned mask, T value) { return static_cast<T>(vote(op, mask, static_cast<uint32_t>(value), CUDAEMU_RA)); }
CUDAEMU_REDUCE(__reduce_add_sync, int, kReduceAddS)
CUDAEMU_REDUCE(__reduce_add_sync, unsigned, kReduceAddU)
CUDAEMU_REDUCE(__reduce_min_sync, int, kReduceMinS)
CUDAEMU_REDUCE(__reduce_min_sync, unsigned, kReduceMinU)
CUDAEMU_REDUCE(__reduce_max_sync, int, kReduceMaxS)
CUDAEMU_REDUCE(__reduce_max_sync, unsigned, kReduceMaxU)
CUDAEMU_REDUCE(__reduce_and_sync, unsigned, kReduceAnd)
CUDAEMU_REDUCE(__reduce_or_sync, unsigned, kReduceOr)
CUDAEMU_REDUCE(__reduce_xor_sync, unsigned, kReduceXor)
#undef CUDAEMU_REDUCE

int __syncthreads_count(int predicate) { return block_vote(predicate, CUDAEMU_RA); }
int __syncthreads_and(int predicate) {
    Worker* w = tls_worker;
    const int count = block_vote(predicate, CUDAEMU_RA);
    return w && w->current ? count == static_cast<int>(w->launch->threads_per_block) : count;
}
int __syncthreads_or(int predicate) { return block_vote(predicate, CUDAEMU_RA) != 0; }
