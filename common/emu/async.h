// async.h — what the block scheduler (scheduler.cpp) and the access checks (checks.cpp) ask of async.cpp: split
// barriers' waits and asynchronous copies still in flight.
#pragma once
#include <cstddef>
#include <cstdint>

namespace cudaemu {

struct Worker;

// A new block: no copy in flight.
void reset_async(Worker& w);
// When no thread can run: if one waits for a barrier phase, reports the wait that never completes and ends the
// block (true).
bool phase_wait_stalled(Worker& w);
// An access to shared memory while some memcpy_async copies are in flight (w.async_words_pending != 0).
void async_in_flight_access(Worker& w, size_t offset, size_t size, bool store, uintptr_t pc);

}  // namespace cudaemu
