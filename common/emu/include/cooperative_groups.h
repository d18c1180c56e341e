// cooperative_groups.h — the CPU emulator's cooperative groups.
//
//   thread_group                   what every group converts to (type-erased): sync, thread_rank, size, num_threads
//   this_thread_block()            thread_block: sync, thread_rank, size / num_threads, group_index, thread_index,
//                                  dim_threads; this_thread_block(block_tile_memory<N>&) gives the same block
//   tiled_partition<N>(group)      thread_block_tile<N>: N = 1, 2, 4, ..., 32: sync, thread_rank, size,
//                                  meta_group_rank, meta_group_size, shfl, shfl_up, shfl_down, shfl_xor, any, all,
//                                  ballot, match_any, match_all; N = 64, ..., 1024 (several warps): sync,
//                                  thread_rank, size, meta_group_rank, meta_group_size and cg::reduce
//   tiled_partition(group, n)      thread_group of n = 1, 2, 4, ..., 32 consecutive threads of a block or a tile (a
//                                  coalesced_group of a coalesced group's ranks), as in CUDA
//   coalesced_threads()            coalesced_group: the lanes of the warp that reach this call together (below);
//                                  sync, thread_rank, size, meta_group_rank, meta_group_size, shfl, shfl_up,
//                                  shfl_down, any, all, ballot, match_any, match_all
//   labeled_partition(g, label), binary_partition(g, pred)   coalesced_group of g's lanes with the same label
//   this_grid()                    grid_group: thread_rank, size, num_threads, block_rank, num_blocks, block_index,
//                                  dim_blocks, is_valid, and sync() in a cudaLaunchCooperativeKernel launch
//   cg::sync(group); cg::reduce with <cooperative_groups/reduce.h>
// Groups within a warp are warp collectives over their lanes (common/emu/warp.cpp); a tile of several warps and the
// grid rendezvous in the runtime. Each call passes its caller's source location, so that diagnostics name the
// user's line, not this header's.
// "Converged" (coalesced_threads): as for __activemask(), the lanes of a warp that wait at the same
// coalesced_threads() call when no thread of the block can go on without another — in converged code every lane
// that has not exited, inside a branch the lanes that took it (docs/emulator.md, "Cooperative groups").
// Clusters are refused at compile time, by name.
#pragma once
#include <cuda_runtime.h>

#include <type_traits>

namespace cooperative_groups {
namespace details {
inline unsigned block_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned lane() { return block_rank() & 31; }
// the lanes of the caller's warp in its tile of `size` (<= 32) consecutive threads
inline unsigned tile_mask(unsigned size) {
    return size >= 32 ? 0xffffffffu : ((1u << size) - 1) << (lane() & ~(size - 1));
}
// the lane of rank `rank` in `mask` (32 when there is none)
inline unsigned nth_lane(unsigned mask, unsigned rank) {
    for (unsigned m = mask; m; m &= m - 1)
        if (rank-- == 0) return __builtin_ctz(m);
    return 32;
}
// bit i of the result: the bit of `bits` at the lane of rank i in `mask`
inline unsigned pack(unsigned bits, unsigned mask) {
    unsigned out = 0, i = 0;
    for (unsigned m = mask; m; m &= m - 1, ++i) out |= ((bits >> __builtin_ctz(m)) & 1u) << i;
    return out;
}
inline bool valid_tile_size(unsigned n) { return n >= 1 && n <= 32 && (n & (n - 1)) == 0; }
template <class T>
struct unsupported : std::false_type {};
}  // namespace details

// the caller's source location, passed down as default arguments
#define CUDAEMU_CG_SITE const char *file_ = __builtin_FILE(), int line_ = __builtin_LINE()

// What every group converts to. kind_ says how to sync and rank; size_ is the number of threads; mask_ the lanes
// of the caller's warp in the group (tiles of up to 32 and coalesced groups).
class thread_group {
  public:
    void sync(CUDAEMU_CG_SITE) const {
        switch (kind_) {
            case kBlock:
                ::cudaemu::block_sync(file_, line_);
                break;
            case kGrid:
                ::cudaemu::grid_sync(file_, line_);
                break;
            case kTile:
                if (size_ > 32) {
                    ::cudaemu::tile_collective(size_, nullptr, nullptr, 0, file_, line_);
                    break;
                }
                [[fallthrough]];
            case kCoalesced:
                ::cudaemu::warp_vote(::cudaemu::kWarpSync, mask_, 0, file_, line_);
                break;
        }
    }
    unsigned long long thread_rank() const {
        switch (kind_) {
            case kBlock:
                return details::block_rank();
            case kGrid:
                return grid_block_rank() * details::block_size() + details::block_rank();
            case kTile:
                return details::block_rank() % size_;
            case kCoalesced:
                return __builtin_popcount(mask_ & ((1u << details::lane()) - 1));
        }
        return 0;
    }
    unsigned long long size() const { return kind_ == kGrid ? 1ull * grid_blocks() * details::block_size() : size_; }
    unsigned long long num_threads() const { return size(); }

  protected:
    enum Kind : unsigned char { kBlock, kTile, kCoalesced, kGrid };
    thread_group(Kind kind, unsigned size, unsigned mask) : kind_(kind), size_(size), mask_(mask) {}
    static unsigned long long grid_block_rank() {
        return blockIdx.x + gridDim.x * (blockIdx.y + 1ull * gridDim.y * blockIdx.z);
    }
    static unsigned long long grid_blocks() { return 1ull * gridDim.x * gridDim.y * gridDim.z; }
    Kind kind_;
    unsigned size_, mask_;

    // tiled_partition(parent, n), below
    thread_group partition(unsigned size, const char* file, int line) const;
    friend thread_group tiled_partition(const thread_group& parent, unsigned size, const char* file, int line);
    friend class coalesced_group;
};

class thread_block : public thread_group {
  public:
    thread_block() : thread_group(kBlock, details::block_size(), 0) {}
    static void sync(CUDAEMU_CG_SITE) { ::cudaemu::block_sync(file_, line_); }
    static unsigned thread_rank() { return details::block_rank(); }
    static unsigned size() { return details::block_size(); }
    static unsigned num_threads() { return details::block_size(); }
    static dim3 group_index() { return blockIdx; }
    static dim3 thread_index() { return threadIdx; }
    static dim3 dim_threads() { return blockDim; }
    static dim3 group_dim() { return blockDim; }
};

inline thread_block this_thread_block() { return thread_block(); }

// Scratch that CUDA's tiles of several warps need before compute capability 8.0; here, as on an H100, the tiles
// need none: the block it is given to is the same block.
template <unsigned MaxBlockSize = 1024, unsigned TileCommunicationSize = 8, unsigned MaxNumWarps = 32>
struct block_tile_memory {
    alignas(16) unsigned char reserved[4];
};
template <unsigned MaxBlockSize, unsigned TileCommunicationSize, unsigned MaxNumWarps>
thread_block this_thread_block(block_tile_memory<MaxBlockSize, TileCommunicationSize, MaxNumWarps>&) {
    return thread_block();
}

// ---------------------------------------------------------------------------------------------------------------
// Tiles: N consecutive threads of the block
// ---------------------------------------------------------------------------------------------------------------
template <unsigned N, class Parent = void>
class thread_block_tile;

template <unsigned N>
class thread_block_tile<N, void> : public thread_group {
    static_assert(N >= 1 && N <= 1024 && (N & (N - 1)) == 0,
                  "thread_block_tile<N>: N must be a power of two from 1 to 1024");
    static constexpr bool kOneWarp = N <= 32;

  public:
    static constexpr unsigned numThreads = N;
    thread_block_tile(unsigned meta_rank, unsigned meta_size)
        : thread_group(kTile, N, details::tile_mask(N)), meta_rank_(meta_rank), meta_size_(meta_size) {}

    void sync(CUDAEMU_CG_SITE) const {
        if (kOneWarp)
            ::cudaemu::warp_vote(::cudaemu::kWarpSync, mask(), 0, file_, line_);
        else
            ::cudaemu::tile_collective(N, nullptr, nullptr, 0, file_, line_);
    }
    static unsigned thread_rank() { return details::block_rank() % N; }
    static constexpr unsigned size() { return N; }
    static constexpr unsigned num_threads() { return N; }
    unsigned meta_group_rank() const { return meta_rank_; }
    unsigned meta_group_size() const { return meta_size_; }

    // Warp collectives: tiles of up to 32 threads (as in CUDA).
    template <class T>
    T shfl(T var, int src_rank, CUDAEMU_CG_SITE) const {
        return shuffle(::cudaemu::kShflIdx, var, src_rank, file_, line_);
    }
    template <class T>
    T shfl_up(T var, unsigned delta, CUDAEMU_CG_SITE) const {
        return shuffle(::cudaemu::kShflUp, var, static_cast<int>(delta), file_, line_);
    }
    template <class T>
    T shfl_down(T var, unsigned delta, CUDAEMU_CG_SITE) const {
        return shuffle(::cudaemu::kShflDown, var, static_cast<int>(delta), file_, line_);
    }
    template <class T>
    T shfl_xor(T var, int lane_mask, CUDAEMU_CG_SITE) const {
        return shuffle(::cudaemu::kShflXor, var, lane_mask, file_, line_);
    }
    int any(int predicate, CUDAEMU_CG_SITE) const {
        static_assert(kOneWarp, "thread_block_tile<N>::any: N must be at most 32");
        return ::cudaemu::warp_vote(::cudaemu::kAny, mask(), predicate, file_, line_);
    }
    int all(int predicate, CUDAEMU_CG_SITE) const {
        static_assert(kOneWarp, "thread_block_tile<N>::all: N must be at most 32");
        return ::cudaemu::warp_vote(::cudaemu::kAll, mask(), predicate, file_, line_);
    }
    // bit i: the tile's thread of rank i
    unsigned ballot(int predicate, CUDAEMU_CG_SITE) const {
        static_assert(kOneWarp, "thread_block_tile<N>::ballot: N must be at most 32");
        return ::cudaemu::warp_vote(::cudaemu::kBallot, mask(), predicate, file_, line_) >>
               (details::lane() & ~(N - 1));
    }
    template <class T>
    unsigned match_any(T value) const {
        static_assert(kOneWarp && sizeof(T) > 0, "thread_block_tile<N>::match_any: N must be at most 32");
        return __match_any_sync(mask(), value) >> (details::lane() & ~(N - 1));
    }
    template <class T>
    unsigned match_all(T value, int& pred) const {
        static_assert(kOneWarp && sizeof(T) > 0, "thread_block_tile<N>::match_all: N must be at most 32");
        return __match_all_sync(mask(), value, &pred) >> (details::lane() & ~(N - 1));
    }

  private:
    static unsigned mask() { return details::tile_mask(N); }
    template <class T>
    T shuffle(int op, T var, int arg, const char* file, int line) const {
        static_assert(kOneWarp && sizeof(T) > 0, "thread_block_tile<N> shuffles: N must be at most 32");
        static_assert(std::is_trivially_copyable<T>::value,
                      "thread_block_tile shuffles need a trivially copyable type");
        T out = var;
        ::cudaemu::warp_shuffle(op, mask(), &var, &out, sizeof(T), arg, N, file, line);
        return out;
    }
    unsigned meta_rank_, meta_size_;
};

// As in CUDA, a tile remembers its parent's type and converts to the plain thread_block_tile<N>.
template <unsigned N, class Parent>
class thread_block_tile : public thread_block_tile<N, void> {
  public:
    using thread_block_tile<N, void>::thread_block_tile;
};

template <unsigned N>
thread_block_tile<N, thread_block> tiled_partition(const thread_block&) {
    return thread_block_tile<N, thread_block>(details::block_rank() / N, (details::block_size() + N - 1) / N);
}

template <unsigned N, unsigned M, class P>
thread_block_tile<N, thread_block_tile<M, P>> tiled_partition(const thread_block_tile<M, P>& parent) {
    static_assert(N < M, "tiled_partition<N>(tile<M>): N must be smaller than M");
    return thread_block_tile<N, thread_block_tile<M, P>>(parent.thread_rank() / N, M / N);
}

// ---------------------------------------------------------------------------------------------------------------
// Coalesced groups: lanes of one warp, ranked in lane order
// ---------------------------------------------------------------------------------------------------------------
class coalesced_group : public thread_group {
  public:
    explicit coalesced_group(unsigned lanes, unsigned meta_rank = 0, unsigned meta_size = 1)
        : thread_group(kCoalesced, __builtin_popcount(lanes), lanes), meta_rank_(meta_rank), meta_size_(meta_size) {}
    void sync(CUDAEMU_CG_SITE) const { ::cudaemu::warp_vote(::cudaemu::kWarpSync, mask_, 0, file_, line_); }
    unsigned thread_rank() const { return __builtin_popcount(mask_ & ((1u << details::lane()) - 1)); }
    unsigned size() const { return size_; }
    unsigned num_threads() const { return size_; }
    unsigned meta_group_rank() const { return meta_rank_; }
    unsigned meta_group_size() const { return meta_size_; }

    template <class T>
    T shfl(T var, unsigned src_rank, CUDAEMU_CG_SITE) const {
        unsigned src = details::nth_lane(mask_, src_rank);
        if (src == 32) {
            src = details::lane();
            ::cudaemu::group_report(false,
                                    "coalesced_group::shfl reads rank %u of a group of %u threads: on a GPU the "
                                    "value is undefined; here the thread gets its own value",
                                    src_rank, size_, file_, line_);
        }
        return shuffle(var, src, file_, line_);
    }
    // past the group's ends a lane gets its own value, as in CUDA
    template <class T>
    T shfl_down(T var, unsigned delta, CUDAEMU_CG_SITE) const {
        const unsigned src = details::nth_lane(mask_, thread_rank() + delta);
        return shuffle(var, src == 32 ? details::lane() : src, file_, line_);
    }
    template <class T>
    T shfl_up(T var, unsigned delta, CUDAEMU_CG_SITE) const {
        const unsigned rank = thread_rank();
        return shuffle(var, delta > rank ? details::lane() : details::nth_lane(mask_, rank - delta), file_, line_);
    }
    int any(int predicate, CUDAEMU_CG_SITE) const {
        return ::cudaemu::warp_vote(::cudaemu::kAny, mask_, predicate, file_, line_);
    }
    int all(int predicate, CUDAEMU_CG_SITE) const {
        return ::cudaemu::warp_vote(::cudaemu::kAll, mask_, predicate, file_, line_);
    }
    // bit i: the group's thread of rank i
    unsigned ballot(int predicate, CUDAEMU_CG_SITE) const {
        return details::pack(::cudaemu::warp_vote(::cudaemu::kBallot, mask_, predicate, file_, line_), mask_);
    }
    template <class T>
    unsigned match_any(T value) const {
        return details::pack(__match_any_sync(mask_, value), mask_);
    }
    template <class T>
    unsigned match_all(T value, int& pred) const {
        return details::pack(__match_all_sync(mask_, value, &pred), mask_);
    }

    // the lanes of the group in the caller's warp (bit = lane)
    unsigned lanes() const { return mask_; }
    // tiled_partition(coalesced group, n): ranks [r - r % n, r - r % n + n)
    coalesced_group partition(unsigned size, const char* file, int line) const {
        return coalesced_group(thread_group::partition(size, file, line).mask_, thread_rank() / size,
                               (size_ + size - 1) / size);
    }

  private:
    template <class T>
    T shuffle(T var, unsigned src_lane, const char* file, int line) const {
        static_assert(std::is_trivially_copyable<T>::value, "coalesced_group shuffles need a trivially copyable type");
        T out = var;
        ::cudaemu::warp_shuffle(::cudaemu::kShflIdx, mask_, &var, &out, sizeof(T), static_cast<int>(src_lane), 32, file,
                                line);
        return out;
    }
    unsigned meta_rank_, meta_size_;
};

inline coalesced_group coalesced_threads(CUDAEMU_CG_SITE) {
    return coalesced_group(::cudaemu::warp_vote(::cudaemu::kActivemask, 0, 0, file_, line_));
}

namespace details {
inline unsigned lanes_of(const coalesced_group& g) { return g.lanes(); }
template <unsigned N, class P>
unsigned lanes_of(const thread_block_tile<N, P>&) {
    static_assert(N <= 32, "labeled_partition and binary_partition of a thread_block_tile<N>: N must be at most 32");
    return tile_mask(N);
}
}  // namespace details

// The lanes of `group` whose label equals the caller's. A collective of the group's lanes.
template <class Group>
coalesced_group labeled_partition(const Group& group, int label, CUDAEMU_CG_SITE) {
    return coalesced_group(__match_any_sync(details::lanes_of(group), label));
}
template <class Group>
coalesced_group labeled_partition(const Group& group, unsigned label, CUDAEMU_CG_SITE) {
    return coalesced_group(__match_any_sync(details::lanes_of(group), label));
}
template <class Group>
coalesced_group binary_partition(const Group& group, bool pred, CUDAEMU_CG_SITE) {
    const unsigned lanes = details::lanes_of(group);
    const unsigned taken = ::cudaemu::warp_vote(::cudaemu::kBallot, lanes, pred, file_, line_);
    return coalesced_group(pred ? taken : lanes & ~taken);
}

// ---------------------------------------------------------------------------------------------------------------
// Dynamic tiles: tiled_partition(parent, n)
// ---------------------------------------------------------------------------------------------------------------
inline thread_group thread_group::partition(unsigned size, const char* file, int line) const {
    if (!details::valid_tile_size(size))
        ::cudaemu::group_report(true,
                                "tiled_partition(parent, n): n must be a power of two from 1 to 32, not %u (CUDA "
                                "aborts the kernel)",
                                size, 0, file, line);
    if (kind_ == kCoalesced) {
        // ranks [r - r % n, r - r % n + n) of the parent
        const unsigned rank = static_cast<unsigned>(thread_rank()), first = rank - rank % size;
        unsigned lanes = 0;
        for (unsigned r = first; r < first + size; ++r) {
            const unsigned l = details::nth_lane(mask_, r);
            if (l < 32) lanes |= 1u << l;
        }
        return thread_group(kCoalesced, __builtin_popcount(lanes), lanes);
    }
    if (kind_ == kGrid || size > size_)
        ::cudaemu::group_report(true,
                                "tiled_partition(parent, n): the parent must be a block, a tile or a coalesced group "
                                "of at least n = %u threads",
                                size, 0, file, line);
    return thread_group(kTile, size, details::tile_mask(size));
}

inline thread_group tiled_partition(const thread_group& parent, unsigned size, CUDAEMU_CG_SITE) {
    return parent.partition(size, file_, line_);
}
inline coalesced_group tiled_partition(const coalesced_group& parent, unsigned size, CUDAEMU_CG_SITE) {
    return parent.partition(size, file_, line_);
}

// ---------------------------------------------------------------------------------------------------------------
// The grid: every thread of the launch
// ---------------------------------------------------------------------------------------------------------------
class grid_group : public thread_group {
  public:
    grid_group() : thread_group(kGrid, 0, 0) {}
    // grid.sync(): a rendezvous of every thread of the grid; only in a cudaLaunchCooperativeKernel launch
    void sync(CUDAEMU_CG_SITE) const { ::cudaemu::grid_sync(file_, line_); }
    bool is_valid() const { return ::cudaemu::grid_is_cooperative(); }
    unsigned long long thread_rank() const { return grid_block_rank() * details::block_size() + details::block_rank(); }
    unsigned long long size() const { return grid_blocks() * details::block_size(); }
    unsigned long long num_threads() const { return size(); }
    unsigned long long block_rank() const { return grid_block_rank(); }
    unsigned long long num_blocks() const { return grid_blocks(); }
    dim3 block_index() const { return blockIdx; }
    dim3 dim_blocks() const { return gridDim; }
};

inline grid_group this_grid() { return grid_group(); }

template <class Group>
void sync(const Group& g, CUDAEMU_CG_SITE) {
    g.sync(file_, line_);
}

// Outside the subset: named at compile time.
template <class T = void>
int this_cluster() {
    static_assert(details::unsupported<T>::value,
                  "cooperative_groups::this_cluster() (thread block clusters) is not supported by the CPU emulator");
    return 0;
}
template <class T = void>
int this_multi_grid() {
    static_assert(details::unsupported<T>::value,
                  "cooperative_groups::this_multi_grid() (multi-device launches) is not supported by the CPU emulator");
    return 0;
}

}  // namespace cooperative_groups
