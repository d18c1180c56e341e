// cudaemu_mma_ptx.h — the CPU emulator's side of common/mma_ptx.h: each PTX instruction a call into the runtime
// (common/emu/mma_ptx.cpp), which computes what the PTX ISA documents the instruction to do. Included by mma_ptx.h
// in emulator builds only; the functions' contracts are in mma_ptx.h.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cudaemu {
void ptx_mma_m16n8k8_tf32(float* d, const uint32_t* a, const uint32_t* b, const float* c, const char* file, int line);
void ptx_ldmatrix(uint32_t* r, int matrices, const void* row, const char* file, int line);
float wmma_float_to_tf32(float f);
}  // namespace cudaemu

// The caller's file and line name the instruction in the emulator's reports, as a GPU's line table would.
__device__ inline void mma_m16n8k8_tf32(float d[4], const uint32_t a[4], const uint32_t b[2], const float c[4],
                                        const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::cudaemu::ptx_mma_m16n8k8_tf32(d, a, b, c, file, line);
}

__device__ inline void ldmatrix_x4(uint32_t r[4], const void* row, const char* file = __builtin_FILE(),
                                   int line = __builtin_LINE()) {
    ::cudaemu::ptx_ldmatrix(r, 4, row, file, line);
}

__device__ inline void ldmatrix_x2(uint32_t r[2], const void* row, const char* file = __builtin_FILE(),
                                   int line = __builtin_LINE()) {
    ::cudaemu::ptx_ldmatrix(r, 2, row, file, line);
}

__device__ inline uint32_t cvt_rna_tf32(float x) {
    return __builtin_bit_cast(uint32_t, ::cudaemu::wmma_float_to_tf32(x));
}
