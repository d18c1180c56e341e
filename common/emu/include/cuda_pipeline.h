// cuda_pipeline.h — the CPU emulator's asynchronous copies from global to shared memory (CUDA's
// <cuda_pipeline.h> primitives).
//
// __pipeline_memcpy_async copies at once, with ordinary loads and stores, so its bytes are counted and checked
// (bounds, alignment, races) like any other access. Its destination stays marked as in flight until the thread's
// __pipeline_wait_prior covers the batch (__pipeline_commit ends a batch): an access to it before then is
// reported as a race, as a GPU's copy may not have landed yet (common/emu/async.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudaemu {
void primitive_copy_issued(void* dst, size_t bytes, const char* file, int line);
void primitive_commit();
void primitive_wait_prior(size_t prior);
}  // namespace cudaemu

// Copies size_and_align bytes (4, 8 or 16; both addresses aligned to it) from src_global to dst_shared, of which
// the last zfill are not read but set to zero.
__forceinline__ void __pipeline_memcpy_async(void* __restrict__ dst_shared, const void* __restrict__ src_global,
                                             size_t size_and_align, size_t zfill = 0,
                                             const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    if (zfill == 0 && size_and_align == 16) {  // one 16-byte load and store, as on a GPU: both must be 16-aligned
        *static_cast<int4*>(dst_shared) = *static_cast<const int4*>(src_global);
    } else if (zfill == 0 && size_and_align == 8) {
        *static_cast<int2*>(dst_shared) = *static_cast<const int2*>(src_global);
    } else {
        uint32_t* dst = static_cast<uint32_t*>(dst_shared);
        const uint32_t* src = static_cast<const uint32_t*>(src_global);
        const size_t copied = (size_and_align - zfill) / 4;
        for (size_t i = 0; i < size_and_align / 4; ++i) dst[i] = i < copied ? src[i] : 0u;
    }
    ::cudaemu::primitive_copy_issued(dst_shared, size_and_align, file, line);
}

// Ends the thread's current batch of copies.
__forceinline__ void __pipeline_commit() { ::cudaemu::primitive_commit(); }

// Waits until at most `prior` of the thread's most recent batches are still in flight.
__forceinline__ void __pipeline_wait_prior(size_t prior) { ::cudaemu::primitive_wait_prior(prior); }
