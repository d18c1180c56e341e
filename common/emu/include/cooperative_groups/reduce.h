// cooperative_groups/reduce.h — the CPU emulator's cg::reduce over a thread_block_tile, with the operators CUDA
// provides. Computed as CUDA's shuffle fallback computes it (a butterfly of shfl_xor, halving the distance), so a
// floating-point reduction rounds as it does on a GPU.
#pragma once
#include <cooperative_groups.h>

namespace cooperative_groups {

template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return (b < a) ? b : a; } };
template <class T> struct greater { T operator()(T a, T b) const { return (a < b) ? b : a; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

template <unsigned N, class P, class T, class Op>
T reduce(const thread_block_tile<N, P>& tile, T value, Op op, CUDAEMU_CG_SITE) {
  for (int distance = N / 2; distance > 0; distance /= 2) value = op(value, tile.shfl_xor(value, distance, file_, line_));
  return value;
}

}  // namespace cooperative_groups
