// checks.h — the access checks (checks.cpp) that other parts of the runtime call directly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace cudaemu {
struct Worker;

// The caller's return address: the instruction after the call in instrumented code, which addr2line maps to the
// access's source line.
#define CUDAEMU_RA reinterpret_cast<uintptr_t>(__builtin_return_address(0))

// Counts and bounds-checks an access to the device arena (ends the block on an out-of-bounds access); from host
// code, warns once per source line.
// `request`: 0 for an atomic's read and write, which are no part of a warp-level load or store request; else the
// alignment the access needs (1: none), which says whether it is the first piece of a vector.
void global_access(uintptr_t a, size_t size, bool store, uintptr_t pc, size_t request = 1);
// The same for host memory registered with cudaHostRegister (outside the arena): true if [a, a + size) lies in a
// registration (counted), false for memory that is none of the emulator's (a stack); ends the block when the
// access is just outside a registration.
bool registered_access(Worker& w, uintptr_t a, size_t size, bool store, uintptr_t pc, size_t request = 1);
// An access a runtime function makes for the current kernel thread (a warp matrix load or store): counted and
// checked as an instrumented access of `size` bytes needing `align`-byte alignment, at `pc`.
void device_access(uintptr_t a, size_t size, bool store, uintptr_t pc, size_t align);
void clear_host_accesses();  // clear_launches()'s part: the host_accesses() list
// At the end of a barrier interval: reads of shared bytes no thread had written are uninitialised reads, unless
// another thread wrote them in the same interval (then they were one side of a race, already reported).
void judge_pending_reads(Worker& w);
// The store Worker::pending_store noted, now done: a race between blocks if it changed the words.
void judge_pending_store(Worker& w);
// An address in the thread-local storage around the block's shared memory (Worker::tls_lo), but not a fiber's stack:
// kernel code reaches it only through an index past its shared arrays. outside_shared_memory reports such an access
// and ends the block, as a GPU faults there; the access is not made.
bool around_shared_memory(const Worker& w, uintptr_t a);
[[noreturn]] void outside_shared_memory(Worker& w, uintptr_t a, size_t size, bool store, uintptr_t pc);
// For an index past its bounds in a block whose x and y differ: "fix the index, or the launch's block shape if the
// index was written for another (these blocks are 8×64 threads)"; "" in a block of one dimension or a square one,
// where a swapped launch changes nothing.
std::string index_or_block_shape(const Worker& w);
// The running block orders its stores with other blocks' (an atomic or a fence): none of them is judged a race.
void note_block_orders();

}  // namespace cudaemu
