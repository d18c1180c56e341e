// mma_ptx.h — warp-level tensor-core instructions as device functions, so that a kernel needs no inline assembly.
//
// Under nvcc each function is the one PTX instruction it is named after (mma_ptx_gpu.h); in the CPU emulator each
// computes what the PTX ISA documents that instruction to do ("Warp-level matrix instructions"), with its lane maps,
// its rules checked and reported at the caller's file:line, and its loads and FLOPs counted (common/emu/mma_ptx.cpp;
// docs/emulator.md, "PTX matrix instructions"). Every lane of the warp must make the same call, as for wmma.
//
// With g = lane / 4 and t = lane % 4 (lane = threadIdx.x % 32 in a block whose x-size is a multiple of 32):
//
//   mma_m16n8k8_tf32(d, a, b, c)   mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32: D = A·B + C, A 16×8, B 8×8,
//                                  C and D 16×8; TF32 inputs (the bits of a float, see cvt_rna_tf32), FP32 sums.
//       a[i] = A[g + 8·(i % 2)][t + 4·(i / 2)]      (4 registers)
//       b[i] = B[t + 4·i][g]                         (2 registers)
//       c[i], d[i] = C, D[g + 8·(i / 2)][2t + i % 2]  (4 floats; d may be c)
//
//   ldmatrix_x4(r, row), ldmatrix_x2(r, row)   ldmatrix.sync.aligned.m8n8.x4 / .x2 .shared.b16: four (two) 8×8
//                                  matrices of 16-bit elements from shared memory. Lane 8m + j gives in `row` the
//                                  address of row j of matrix m: 8 elements, 16 bytes, 16-byte aligned (x2 uses
//                                  lanes 0-15's addresses only). r[m] = matrix m's row g, elements 2t (low 16 bits)
//                                  and 2t + 1.
//
//   cvt_rna_tf32(x)                cvt.rna.tf32.f32: x rounded to TF32 (nearest, ties away from zero), as the bits
//                                  of a float whose low 13 bits are zero. A tensor core reads an unconverted float
//                                  by dropping those bits.
//
// ldmatrix with TF32 data: ldmatrix moves 16-bit elements two by two, so a row of 8 elements is 4 floats and r[m] is
// the float at row g, column t of a 8×4 block of floats. The A fragment above is four such blocks: rows 0-7 and
// 8-15, columns 0-3 and 4-7; with A stored row-major in shared memory (As[row][k]), lane l gives
// &As[l % 16][4 * (l / 16)] and ldmatrix_x4 leaves a[0..3] exactly as mma_m16n8k8_tf32 takes them. B's fragment is
// two blocks of B's transpose, so ldmatrix_x2 loads it from Bs[n][k] (lanes 0-15 give &Bs[l % 8][4 * (l / 8)]). For
// B stored k-major (Bs[k][n]) the transposing .trans form does not help: it would swap the 16-bit halves of
// different floats; such kernels load b[] with ordinary 32-bit shared loads instead.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#ifdef CUDAEMU
#include <cudaemu_mma_ptx.h>  // the emulator's: each instruction's semantics, computed on the CPU
#else
#include "mma_ptx_gpu.h"  // nvcc's: each function one PTX instruction
#endif
