// cuda_pipeline.h — the CPU emulator's asynchronous copies from global to shared memory (CUDA's
// <cuda_pipeline.h> primitives).
//
// __pipeline_memcpy_async copies at once, in the runtime, with loads and stores counted and checked (bounds,
// alignment, races) like any other access, at the caller's line. Its destination stays marked as in flight until the thread's
// __pipeline_wait_prior covers the batch (__pipeline_commit ends a batch): an access to it before then is
// reported as a race, as a GPU's copy may not have landed yet (common/emu/async.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudaemu {
void primitive_copy(void* dst, const void* src, size_t size, size_t zfill, const char* file, int line);
void primitive_commit();
void primitive_wait_prior(size_t prior);
}  // namespace cudaemu

// Copies size_and_align bytes (4, 8 or 16; both addresses aligned to it) from src_global to dst_shared, of which
// the last zfill are not read but set to zero.
__forceinline__ void __pipeline_memcpy_async(void* __restrict__ dst_shared, const void* __restrict__ src_global,
                                             size_t size_and_align, size_t zfill = 0,
                                             const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::cudaemu::primitive_copy(dst_shared, src_global, size_and_align, zfill, file, line);
}

// Ends the thread's current batch of copies.
__forceinline__ void __pipeline_commit() { ::cudaemu::primitive_commit(); }

// Waits until at most `prior` of the thread's most recent batches are still in flight.
__forceinline__ void __pipeline_wait_prior(size_t prior) { ::cudaemu::primitive_wait_prior(prior); }
