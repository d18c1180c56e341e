// tensor_math.h — the tensor cores' arithmetic (tensor_math.cpp), shared by the warp matrix functions of <mma.h>
// (wmma.cpp) and the PTX instructions of mma_ptx.h (mma_ptx.cpp): how an H100 reads TF32 inputs and adds a group
// of products to an accumulator (wmma.cpp's header says how it was measured and how close it comes).
#pragma once
#include <cstdint>

namespace cudaemu {

// A TF32 input as the tensor cores read it: the top 10 bits of the mantissa, the rest truncated.
float tf32_input(float f);
// c + Σ a[k]·b[k] over n TF32 inputs, as an H100's HMMA does it for one output of mma.sync m16n8k8 (n = 8) or of
// one of the four k = 4 instructions of WMMA's m16n16k8 (n = 4, chained): every term, c among them, aligned to the
// largest exponent, that of a product being the sum of its inputs' (a subnormal's taken as −126), bits more than 25
// places below it dropped, the sum taken exactly and rounded toward zero to a float, or to an infinity past the
// largest float's range; a zero sum is +0; a NaN anywhere, or ∞ − ∞, gives the GPU's one NaN (0x7fffffff).
// tools/mma-agreement and tools/wmma-agreement found it bit for bit on every output of their random cases
// (docs/emulator.md).
float tf32_dot(float c, const float* a, const float* b, int n);
// How many of the n floats at x have any of the 13 mantissa bits that TF32 drops set: a tensor core truncates them.
uint64_t unrounded(const void* x, int n);
// acc + the n exact products: aligned to the largest exponent, bits more than 25 below it dropped, summed exactly,
// rounded toward zero.
float add_group(float acc, const double* products, int n);

}  // namespace cudaemu
