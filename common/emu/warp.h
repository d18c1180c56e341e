// warp.h — warps: what the block scheduler (scheduler.cpp) asks of warp.cpp.
//
// Threads are grouped in warps of 32 by linear thread index. A warp collective (__shfl_sync, __ballot_sync,
// __syncwarp, ...) is a rendezvous of the lanes named in its mask: each lane waits (its fiber yields) until every
// lane of the mask that has not exited waits at a collective of the same kind with the same mask; the last one to
// arrive computes every lane's result and releases them. This is Volta's independent thread scheduling: lanes
// do not run in lockstep, and only a collective brings them together.
#pragma once
#include <cstdint>

namespace cudaemu {

struct Worker;

// A warp collective as one lane calls it; lives on that lane's stack while it waits.
struct Collective {
    int op = 0;                // WarpOp (include/cudaemu_warp.h)
    uint32_t mask = 0;         // the lanes it names
    const void* in = nullptr;  // __shfl*: this lane's value (size bytes)
    void* out = nullptr;       // __shfl*: where its result goes
    uint32_t size = 0;
    int32_t arg = 0;  // source lane, delta or lane mask
    int32_t width = 32;
    uint64_t value = 0;          // votes, matches and reductions: this lane's operand
    uint64_t result = 0;         // ... and its result
    int predicate = 0;           // __match_all_sync's *pred
    uintptr_t pc = 0;            // where it was called: a return address, or
    const char* file = nullptr;  // a source location (cooperative groups pass __builtin_FILE/LINE)
    int line = 0;
};

// Called on the lane's fiber: waits until the collective completes; its results are then in `c`.
void warp_arrive(Collective& c);
// The warp matrix functions' part of a completed collective (wmma.cpp), run by the last lane to arrive.
void wmma_compute(Worker& w, uint32_t warp, uint32_t lanes, int op);
// The same for mma_ptx.h's instructions (mma_ptx.cpp).
void ptx_compute(Worker& w, uint32_t warp, uint32_t lanes, int op);

// The lanes of this warp that exist: a block whose size is not a multiple of 32 has a partial last warp.
uint32_t existing_lanes(const Worker& w, uint32_t warp);
// A new block: no lane waits or has exited.
void reset_warps(Worker& w);
// Thread t has finished: the collectives of its warp no longer wait for it.
void warp_lane_exited(Worker& w, uint32_t t);
// When nothing else can run: the lanes waiting at __activemask() get the set of lanes of their warp waiting at the
// same call. False when there were none.
bool resolve_activemask(Worker& w);
// When nothing else can run: if a lane still waits at a collective, reports where the lanes of its mask are instead
// and ends the block (true).
bool warp_stalled(Worker& w);

}  // namespace cudaemu
