// cudaemu_warp.h — the CPU emulator's warp intrinsics, included by cuda_runtime.h.
//
// Declared as CUDA declares them and defined out of line in the runtime (common/emu/warp.cpp), so that the runtime
// sees the caller's source line and can rendezvous the lanes named in each mask (see docs/emulator.md, "Warps").
#pragma once

// never tail calls: the runtime tells collectives apart by their return address (the line of the call)
#define CUDAEMU_WARP_FN __attribute__((not_tail_called))

#define CUDAEMU_SHFL(T)                                                                               \
    CUDAEMU_WARP_FN T __shfl_sync(unsigned int mask, T var, int src_lane, int width = 32);            \
    CUDAEMU_WARP_FN T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32);   \
    CUDAEMU_WARP_FN T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32); \
    CUDAEMU_WARP_FN T __shfl_xor_sync(unsigned int mask, T var, int lane_mask, int width = 32);       \
    CUDAEMU_WARP_FN unsigned int __match_any_sync(unsigned int mask, T value);                        \
    CUDAEMU_WARP_FN unsigned int __match_all_sync(unsigned int mask, T value, int* pred);
CUDAEMU_SHFL(int)
CUDAEMU_SHFL(unsigned int)
CUDAEMU_SHFL(long)
CUDAEMU_SHFL(unsigned long)
CUDAEMU_SHFL(long long)
CUDAEMU_SHFL(unsigned long long)
CUDAEMU_SHFL(float)
CUDAEMU_SHFL(double)
#undef CUDAEMU_SHFL

CUDAEMU_WARP_FN unsigned int __ballot_sync(unsigned int mask, int predicate);
CUDAEMU_WARP_FN int __all_sync(unsigned int mask, int predicate);
CUDAEMU_WARP_FN int __any_sync(unsigned int mask, int predicate);
CUDAEMU_WARP_FN unsigned int __activemask();
CUDAEMU_WARP_FN void __syncwarp(unsigned int mask = 0xffffffffu);
CUDAEMU_WARP_FN int __reduce_add_sync(unsigned int mask, int value);
CUDAEMU_WARP_FN unsigned int __reduce_add_sync(unsigned int mask, unsigned int value);
CUDAEMU_WARP_FN int __reduce_min_sync(unsigned int mask, int value);
CUDAEMU_WARP_FN unsigned int __reduce_min_sync(unsigned int mask, unsigned int value);
CUDAEMU_WARP_FN int __reduce_max_sync(unsigned int mask, int value);
CUDAEMU_WARP_FN unsigned int __reduce_max_sync(unsigned int mask, unsigned int value);
CUDAEMU_WARP_FN unsigned int __reduce_and_sync(unsigned int mask, unsigned int value);
CUDAEMU_WARP_FN unsigned int __reduce_or_sync(unsigned int mask, unsigned int value);
CUDAEMU_WARP_FN unsigned int __reduce_xor_sync(unsigned int mask, unsigned int value);
CUDAEMU_WARP_FN int __syncthreads_count(int predicate);
CUDAEMU_WARP_FN int __syncthreads_and(int predicate);
CUDAEMU_WARP_FN int __syncthreads_or(int predicate);

namespace cudaemu {
enum WarpOp : int {
    kWarpSync,
    kShflIdx,
    kShflUp,
    kShflDown,
    kShflXor,
    kBallot,
    kAny,
    kAll,
    kMatchAny,
    kMatchAll,
    kReduceAddS,
    kReduceMinS,
    kReduceMaxS,
    kReduceAddU,
    kReduceMinU,
    kReduceMaxU,
    kReduceAnd,
    kReduceOr,
    kReduceXor,
    kActivemask,
    kTileSync,  // a rendezvous of a cooperative-groups tile of several warps (cooperative_groups.h)
    kWmmaLoad,  // the warp matrix functions (mma.h): the whole warp, at one call site
    kWmmaStore,
    kWmmaMma,
    kPtxMma,  // the PTX instructions of mma_ptx.h (cudaemu_mma_ptx.h): the whole warp, at one call site
    kPtxLdmatrix,
};
// For cooperative groups (header code): the same collectives, with the caller's source location passed explicitly.
void warp_shuffle(int op, unsigned int mask, const void* in, void* out, unsigned int size, int arg, int width,
                  const char* file, int line);
unsigned int warp_vote(int op, unsigned int mask, int predicate, const char* file, int line);
void block_sync(const char* file, int line);
// Cooperative groups beyond a warp (warp.cpp, scheduler.cpp). A rendezvous of the `tile_threads` consecutive threads
// (a multiple of 32) that hold the caller: each gets in `out` the `size` bytes that the first waiting lane of each of
// the tile's warps passed as `in`, in warp order.
void tile_collective(unsigned tile_threads, const void* in, void* out, unsigned size, const char* file, int line);
bool grid_is_cooperative();
void grid_sync(const char* file, int line);
// A misuse of a group: reported with the caller's line (`format` takes a and b, printf's %u); `fatal` ends the block
// (cudaErrorLaunchFailure).
void group_report(bool fatal, const char* format, unsigned a, unsigned b, const char* file, int line);
}  // namespace cudaemu
