// mma.h — the CPU emulator's warp matrix functions: CUDA's <mma.h> (nvcuda::wmma), run on the CPU.
//
// Supported, as on a GPU of compute capability 8.0 or later:
//   TF32 inputs (precision::tf32, stored as float)       m16n16k8               float accumulator
//   half and __nv_bfloat16 inputs                        m16n16k16, m32n8k16, m8n32k16   float accumulator
// Anything else (half accumulators, double, integer and 1-bit fragments) is refused at compile time, by name.
//
// A fragment holds what one lane of a GPU holds: num_elements and which element of the matrix each x[i] is are
// those an H100 gives (common/emu/wmma.cpp has the maps), so a kernel that scales or converts x[i] in place
// computes the same thing here. load_matrix_sync, store_matrix_sync and mma_sync are warp collectives: every lane of
// the warp must call the same one, at the same line, with the same pointer, ldm and layout; the emulator reports the
// call site otherwise. Their loads and stores are each lane's own elements, counted and checked as any access. The
// CUDA programming guide's rules are errors here: a pointer 256-bit (32-byte) aligned and ldm a multiple of 16 bytes
// (an H100 only faults when a pair of elements it loads at once is misaligned: docs/emulator.md, "Tensor cores").
// fill_fragment and x[] are per lane, as on a GPU. mma_sync's arithmetic follows the H100's: TF32 inputs keep 10
// bits of mantissa (the rest truncated; __float_to_tf32 rounds to nearest, ties away from zero), products are
// exact, and each group of products is added to the accumulator with one rounding toward zero (wmma.cpp says
// how close to the H100's bits that is).
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "cuda_bf16.h"
#include "cuda_fp16.h"

namespace cudaemu {
// A fragment as the runtime (wmma.cpp) sees it.
struct WmmaShape {
    int use;  // kWmmaA, kWmmaB, kWmmaAccumulator
    int m, n, k;
    int type;    // kWmmaTf32, kWmmaHalf, kWmmaBf16, kWmmaFloat (accumulator)
    int layout;  // kWmmaRowMajor, kWmmaColMajor; an accumulator's is given at each load and store
    int count;   // num_elements
};
enum : int { kWmmaA, kWmmaB, kWmmaAccumulator };
enum : int { kWmmaTf32, kWmmaHalf, kWmmaBf16, kWmmaFloat };
enum : int { kWmmaRowMajor, kWmmaColMajor };
void wmma_load(const WmmaShape& shape, void* x, const void* p, unsigned ldm, int layout, const char* file, int line);
void wmma_store(const WmmaShape& shape, const void* x, void* p, unsigned ldm, int layout, const char* file, int line);
void wmma_mma(const WmmaShape& a_shape, const WmmaShape& b_shape, float* d, const void* a, const void* b,
              const float* c, bool satf, const char* file, int line);
float wmma_float_to_tf32(float f);
}  // namespace cudaemu

namespace nvcuda {
namespace wmma {

struct row_major {};
struct col_major {};
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
namespace precision {
struct tf32 {};
}  // namespace precision
enum layout_t { mem_row_major, mem_col_major };

namespace detail {
template <class T>
struct storage {
    using type = T;
};
template <>
struct storage<precision::tf32> {
    using type = float;
};

template <class T>
inline constexpr int type_code = -1;
template <>
inline constexpr int type_code<precision::tf32> = ::cudaemu::kWmmaTf32;
template <>
inline constexpr int type_code<__half> = ::cudaemu::kWmmaHalf;
template <>
inline constexpr int type_code<__nv_bfloat16> = ::cudaemu::kWmmaBf16;
template <>
inline constexpr int type_code<float> = ::cudaemu::kWmmaFloat;

template <class Use>
inline constexpr int use_code = ::cudaemu::kWmmaAccumulator;
template <>
inline constexpr int use_code<matrix_a> = ::cudaemu::kWmmaA;
template <>
inline constexpr int use_code<matrix_b> = ::cudaemu::kWmmaB;

template <class Layout>
inline constexpr int layout_code = ::cudaemu::kWmmaRowMajor;
template <>
inline constexpr int layout_code<col_major> = ::cudaemu::kWmmaColMajor;

// The element counts an H100 gives (an element a lane holds twice counts twice: half inputs at every shape).
constexpr int element_count(int use, int m, int n, int k, int type) {
    const bool shape16 = m == 16 && n == 16 && k == 16, tall = m == 32 && n == 8 && k == 16,
               wide = m == 8 && n == 32 && k == 16;
    if (use == ::cudaemu::kWmmaAccumulator)
        return type == ::cudaemu::kWmmaFloat && ((m == 16 && n == 16 && k == 8) || shape16 || tall || wide) ? 8 : 0;
    if (type == ::cudaemu::kWmmaTf32) return m == 16 && n == 16 && k == 8 ? 4 : 0;
    if (type == ::cudaemu::kWmmaHalf) return shape16 || tall || wide ? 16 : 0;
    if (type == ::cudaemu::kWmmaBf16) {
        if (shape16) return 8;
        if (tall) return use == ::cudaemu::kWmmaA ? 16 : 4;
        if (wide) return use == ::cudaemu::kWmmaA ? 4 : 16;
    }
    return 0;
}
}  // namespace detail

template <class Use, int M, int N, int K, class T, class Layout = void>
class fragment {
    static_assert(detail::element_count(detail::use_code<Use>, M, N, K, detail::type_code<T>) > 0,
                  "this wmma::fragment is not supported by the CPU emulator: it runs TF32 m16n16k8, and half or "
                  "__nv_bfloat16 m16n16k16, m32n8k16 and m8n32k16 inputs, with float accumulators");
    static_assert(detail::use_code<Use> == ::cudaemu::kWmmaAccumulator || !std::is_same<Layout, void>::value,
                  "a wmma::fragment of matrix_a or matrix_b without a layout (row_major or col_major) is not "
                  "supported by the CPU emulator: give the layout in the fragment's type");

  public:
    using element_type = typename detail::storage<T>::type;
    static constexpr ::cudaemu::WmmaShape shape = {
        detail::use_code<Use>,
        M,
        N,
        K,
        detail::type_code<T>,
        detail::layout_code<Layout>,
        detail::element_count(detail::use_code<Use>, M, N, K, detail::type_code<T>)};
    enum : unsigned { num_elements = static_cast<unsigned>(shape.count) };
    element_type x[num_elements];
};

// Per lane: every element this lane holds becomes v.
template <class Use, int M, int N, int K, class T, class Layout>
inline void fill_fragment(fragment<Use, M, N, K, T, Layout>& f,
                          const typename fragment<Use, M, N, K, T, Layout>::element_type& v) {
    for (unsigned i = 0; i < f.num_elements; ++i) f.x[i] = v;
}

template <class Use, int M, int N, int K, class T, class Layout>
inline void load_matrix_sync(fragment<Use, M, N, K, T, Layout>& f,
                             const typename fragment<Use, M, N, K, T, Layout>::element_type* p, unsigned ldm,
                             const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    static_assert(!std::is_same<Use, accumulator>::value, "an accumulator's load_matrix_sync takes a layout_t");
    ::cudaemu::wmma_load(f.shape, f.x, p, ldm, f.shape.layout, file, line);
}

template <int M, int N, int K>
inline void load_matrix_sync(fragment<accumulator, M, N, K, float>& f, const float* p, unsigned ldm, layout_t layout,
                             const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::cudaemu::wmma_load(f.shape, f.x, p, ldm, layout == mem_col_major ? ::cudaemu::kWmmaColMajor : 0, file, line);
}

template <int M, int N, int K>
inline void store_matrix_sync(float* p, const fragment<accumulator, M, N, K, float>& f, unsigned ldm, layout_t layout,
                              const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::cudaemu::wmma_store(f.shape, f.x, p, ldm, layout == mem_col_major ? ::cudaemu::kWmmaColMajor : 0, file, line);
}

template <int M, int N, int K, class T, class LayoutA, class LayoutB>
inline void mma_sync(fragment<accumulator, M, N, K, float>& d, const fragment<matrix_a, M, N, K, T, LayoutA>& a,
                     const fragment<matrix_b, M, N, K, T, LayoutB>& b, const fragment<accumulator, M, N, K, float>& c,
                     bool satf = false, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::cudaemu::wmma_mma(a.shape, b.shape, d.x, a.x, b.x, c.x, satf, file, line);
}

// To TF32: round to nearest, ties away from zero, to 10 bits of mantissa (the low 13 bits of the float are zero).
inline float __float_to_tf32(float in) { return ::cudaemu::wmma_float_to_tf32(in); }

}  // namespace wmma
}  // namespace nvcuda
