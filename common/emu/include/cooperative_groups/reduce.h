// cooperative_groups/reduce.h — the CPU emulator's cg::reduce, with the operators CUDA provides. Computed as CUDA's
// implementation computes it, so that a floating-point reduction rounds as it does on a GPU:
//   a tile of up to 32 threads: a butterfly of shfl_xor, halving the distance;
//   a tile of several warps: each warp's butterfly, then a butterfly over the warps' results;
//   a coalesced group: a shfl_down tree from rank 0 when its size is a power of two, otherwise an inclusive scan
//   (each rank adds the value 1, 2, 4, ... ranks below), whose last rank's value every rank gets.
#pragma once
#include <cooperative_groups.h>

namespace cooperative_groups {

template <class T>
struct plus {
    T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
    T operator()(T a, T b) const { return (b < a) ? b : a; }
};
template <class T>
struct greater {
    T operator()(T a, T b) const { return (a < b) ? b : a; }
};
template <class T>
struct bit_and {
    T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
    T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
    T operator()(T a, T b) const { return a ^ b; }
};

template <unsigned N, class P, class T, class Op>
T reduce(const thread_block_tile<N, P>& tile, T value, Op op, CUDAEMU_CG_SITE) {
    if constexpr (N <= 32) {
        for (int distance = N / 2; distance > 0; distance /= 2)
            value = op(value, tile.shfl_xor(value, distance, file_, line_));
        return value;
    } else {
        const thread_block_tile<32, void> warp(0, 1);
        for (int distance = 16; distance > 0; distance /= 2)
            value = op(value, warp.shfl_xor(value, distance, file_, line_));
        T partial[N / 32];  // each warp's result, in warp order
        ::cudaemu::tile_collective(N, &value, partial, sizeof(T), file_, line_);
        for (unsigned distance = N / 64; distance > 0; distance /= 2) {
            T next[N / 32];
            for (unsigned i = 0; i < N / 32; ++i) next[i] = op(partial[i], partial[i ^ distance]);
            for (unsigned i = 0; i < N / 32; ++i) partial[i] = next[i];
        }
        return partial[0];
    }
}

template <class T, class Op>
T reduce(const coalesced_group& group, T value, Op op, CUDAEMU_CG_SITE) {
    const unsigned size = group.size();
    if ((size & (size - 1)) == 0) {
        for (unsigned offset = size / 2; offset > 0; offset /= 2)
            value = op(value, group.shfl_down(value, offset, file_, line_));
        return group.shfl(value, 0, file_, line_);
    }
    const unsigned rank = group.thread_rank();
    for (unsigned i = 1; i < size; i *= 2) {
        const T below = group.shfl_up(value, i, file_, line_);
        if (i <= rank) value = op(value, below);
    }
    return group.shfl(value, size - 1, file_, line_);
}

}  // namespace cooperative_groups
