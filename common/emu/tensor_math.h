// tensor_math.h — the tensor cores' arithmetic (tensor_math.cpp), shared by the warp matrix functions of <mma.h>
// (wmma.cpp) and the PTX instructions of mma_ptx.h (mma_ptx.cpp): how an H100 reads TF32 inputs and adds a group
// of products to an accumulator (wmma.cpp's header says how it was measured and how close it comes).
#pragma once
#include <cstdint>

namespace cudaemu {

// A TF32 input as the tensor cores read it: the top 10 bits of the mantissa, the rest truncated.
float tf32_input(float f);
// How many of the n floats at x have any of the 13 mantissa bits that TF32 drops set: a tensor core truncates them.
uint64_t unrounded(const void* x, int n);
// acc + the n exact products: aligned to the largest exponent, bits more than 25 below it dropped, summed exactly,
// rounded toward zero.
float add_group(float acc, const double* products, int n);

}  // namespace cudaemu
