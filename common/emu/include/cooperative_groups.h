// cooperative_groups.h — the CPU emulator's cooperative groups: the part a course uses.
//
//   this_thread_block()            sync, thread_rank, size / num_threads, group_index, thread_index, dim_threads
//   tiled_partition<N>(group)      thread_block_tile<N> (N = 1, 2, 4, ..., 32): sync, thread_rank, size,
//                                  meta_group_rank, meta_group_size, shfl, shfl_up, shfl_down, shfl_xor, any, all,
//                                  ballot, match_any, match_all
//   tiled_partition(block, n)      thread_group (n = 1, 2, 4, ..., 32): sync, thread_rank, size
//   cg::sync(group); cg::reduce with <cooperative_groups/reduce.h>
// Tiles are warp collectives over the tile's lanes (common/emu/warp.cpp). Each call passes its caller's source
// location, so that diagnostics name the user's line, not this header's. Grid, cluster and coalesced groups are
// refused at compile time, by name.
#pragma once
#include <cuda_runtime.h>

#include <type_traits>

namespace cooperative_groups {
namespace details {
inline unsigned block_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned tile_mask(unsigned size) {
  return size >= 32 ? 0xffffffffu : ((1u << size) - 1) << (block_rank() & 31 & ~(size - 1));
}
template <class T>
struct unsupported : std::false_type {};
}  // namespace details

// the caller's source location, passed down as default arguments
#define CUDAEMU_CG_SITE const char *file_ = __builtin_FILE(), int line_ = __builtin_LINE()

class thread_block {
 public:
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

// A group of `size` consecutive threads of a warp, its size known at run time (tiled_partition(block, n)).
class thread_group {
 public:
  explicit thread_group(unsigned size) : size_(size) {}
  void sync(CUDAEMU_CG_SITE) const {
    ::cudaemu::warp_vote(::cudaemu::kWarpSync, details::tile_mask(size_), 0, file_, line_);
  }
  unsigned thread_rank() const { return details::block_rank() % size_; }
  unsigned long long size() const { return size_; }
  unsigned long long num_threads() const { return size_; }

 private:
  unsigned size_;
};

inline thread_group tiled_partition(const thread_block&, unsigned size) { return thread_group(size); }

template <unsigned N, class Parent = void>
class thread_block_tile;

template <unsigned N>
class thread_block_tile<N, void> {
  static_assert(N == 1 || N == 2 || N == 4 || N == 8 || N == 16 || N == 32,
                "thread_block_tile<N>: N must be 1, 2, 4, 8, 16 or 32 (larger tiles are not supported by the CPU "
                "emulator)");

 public:
  static constexpr unsigned numThreads = N;
  thread_block_tile(unsigned meta_rank, unsigned meta_size) : meta_rank_(meta_rank), meta_size_(meta_size) {}

  void sync(CUDAEMU_CG_SITE) const { ::cudaemu::warp_vote(::cudaemu::kWarpSync, mask(), 0, file_, line_); }
  static unsigned thread_rank() { return details::block_rank() % N; }
  static constexpr unsigned size() { return N; }
  static constexpr unsigned num_threads() { return N; }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }

  template <class T>
  T shfl(T var, int src_rank, CUDAEMU_CG_SITE) const { return shuffle(::cudaemu::kShflIdx, var, src_rank, file_, line_); }
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
    return ::cudaemu::warp_vote(::cudaemu::kAny, mask(), predicate, file_, line_);
  }
  int all(int predicate, CUDAEMU_CG_SITE) const {
    return ::cudaemu::warp_vote(::cudaemu::kAll, mask(), predicate, file_, line_);
  }
  // bit i: the tile's thread of rank i
  unsigned ballot(int predicate, CUDAEMU_CG_SITE) const {
    return ::cudaemu::warp_vote(::cudaemu::kBallot, mask(), predicate, file_, line_) >> (details::block_rank() & 31 & ~(N - 1));
  }
  template <class T>
  unsigned match_any(T value) const { return __match_any_sync(mask(), value) >> (details::block_rank() & 31 & ~(N - 1)); }
  template <class T>
  unsigned match_all(T value, int& pred) const {
    return __match_all_sync(mask(), value, &pred) >> (details::block_rank() & 31 & ~(N - 1));
  }

 private:
  static unsigned mask() { return details::tile_mask(N); }
  template <class T>
  T shuffle(int op, T var, int arg, const char* file, int line) const {
    static_assert(std::is_trivially_copyable<T>::value, "thread_block_tile shuffles need a trivially copyable type");
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

template <class Group>
void sync(const Group& g, CUDAEMU_CG_SITE) { g.sync(file_, line_); }

// Outside the subset: named at compile time.
template <class T = void>
int this_grid() { static_assert(details::unsupported<T>::value, "cooperative_groups::this_grid() (grid-wide groups and grid.sync()) is not supported by the CPU emulator"); return 0; }
template <class T = void>
int coalesced_threads() { static_assert(details::unsupported<T>::value, "cooperative_groups::coalesced_threads() is not supported by the CPU emulator"); return 0; }
template <class T = void>
int this_cluster() { static_assert(details::unsupported<T>::value, "cooperative_groups::this_cluster() (thread block clusters) is not supported by the CPU emulator"); return 0; }
template <class... T>
int labeled_partition(T...) { static_assert(details::unsupported<void>::value && sizeof...(T) == 0, "cooperative_groups::labeled_partition is not supported by the CPU emulator"); return 0; }
template <class... T>
int binary_partition(T...) { static_assert(details::unsupported<void>::value && sizeof...(T) == 0, "cooperative_groups::binary_partition is not supported by the CPU emulator"); return 0; }

}  // namespace cooperative_groups
