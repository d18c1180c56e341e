// cudaemu_atomics.h — CUDA's atomic functions (besides atomicAdd on int, unsigned int and float, declared in
// cuda_runtime.h), for the types CUDA defines them for. Defined out of line in common/emu/atomics.cpp, so that each
// knows the source line that called it: every one counts as a load and a store of its width, and is never a race
// with another atomic. The _block and _system forms have the same effect here: one host's memory is coherent.
#pragma once

unsigned long long atomicAdd(unsigned long long* address, unsigned long long value);
double atomicAdd(double* address, double value);
// compute capability 9.x: each element added atomically on its own (here the vector is one update)
float2 atomicAdd(float2* address, float2 value);
float4 atomicAdd(float4* address, float4 value);

int atomicSub(int* address, int value);
unsigned int atomicSub(unsigned int* address, unsigned int value);

int atomicExch(int* address, int value);
unsigned int atomicExch(unsigned int* address, unsigned int value);
unsigned long long atomicExch(unsigned long long* address, unsigned long long value);
float atomicExch(float* address, float value);

int atomicMin(int* address, int value);
unsigned int atomicMin(unsigned int* address, unsigned int value);
long long atomicMin(long long* address, long long value);
unsigned long long atomicMin(unsigned long long* address, unsigned long long value);
int atomicMax(int* address, int value);
unsigned int atomicMax(unsigned int* address, unsigned int value);
long long atomicMax(long long* address, long long value);
unsigned long long atomicMax(unsigned long long* address, unsigned long long value);

// ((old >= value) ? 0 : old + 1) and (((old == 0) || (old > value)) ? value : old - 1)
unsigned int atomicInc(unsigned int* address, unsigned int value);
unsigned int atomicDec(unsigned int* address, unsigned int value);

int atomicCAS(int* address, int compare, int value);
unsigned int atomicCAS(unsigned int* address, unsigned int compare, unsigned int value);
unsigned long long atomicCAS(unsigned long long* address, unsigned long long compare, unsigned long long value);
unsigned short atomicCAS(unsigned short* address, unsigned short compare, unsigned short value);

int atomicAnd(int* address, int value);
unsigned int atomicAnd(unsigned int* address, unsigned int value);
unsigned long long atomicAnd(unsigned long long* address, unsigned long long value);
int atomicOr(int* address, int value);
unsigned int atomicOr(unsigned int* address, unsigned int value);
unsigned long long atomicOr(unsigned long long* address, unsigned long long value);
int atomicXor(int* address, int value);
unsigned int atomicXor(unsigned int* address, unsigned int value);
unsigned long long atomicXor(unsigned long long* address, unsigned long long value);

#define CUDAEMU_ATOMIC_SCOPES(name)                             \
    template <class T, class... Rest>                           \
    __forceinline__ T name##_block(T* address, Rest... rest) {  \
        return name(address, rest...);                          \
    }                                                           \
    template <class T, class... Rest>                           \
    __forceinline__ T name##_system(T* address, Rest... rest) { \
        return name(address, rest...);                          \
    }
CUDAEMU_ATOMIC_SCOPES(atomicAdd)
CUDAEMU_ATOMIC_SCOPES(atomicSub)
CUDAEMU_ATOMIC_SCOPES(atomicExch)
CUDAEMU_ATOMIC_SCOPES(atomicMin)
CUDAEMU_ATOMIC_SCOPES(atomicMax)
CUDAEMU_ATOMIC_SCOPES(atomicInc)
CUDAEMU_ATOMIC_SCOPES(atomicDec)
CUDAEMU_ATOMIC_SCOPES(atomicCAS)
CUDAEMU_ATOMIC_SCOPES(atomicAnd)
CUDAEMU_ATOMIC_SCOPES(atomicOr)
CUDAEMU_ATOMIC_SCOPES(atomicXor)
#undef CUDAEMU_ATOMIC_SCOPES
