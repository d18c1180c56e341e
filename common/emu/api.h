// api.h — the emulator's configuration (environment variables) and the CUDA context's error state.
// Defined in api.cpp; every part of the runtime reads them.
#pragma once
#include "include/cuda_runtime.h"

#include <cstddef>
#include <mutex>
#include <string>

namespace cudaemu {

struct Config {
    unsigned workers = 1;
    double timeout_s = 300;
    std::string stats_path;
    bool quiet = false;
    size_t stack_bytes = 128 * 1024;
    bool requests = false;  // CUDAEMU_REQUESTS: count warp-level requests from the start (cudaemu::count_requests)
};
const Config& config();

// Error state, as in a CUDA context: launch errors are "last errors" (cleared by cudaGetLastError); errors inside
// a kernel are sticky — every later call returns them until cudaDeviceReset(). All guarded by g_api_mutex.
extern std::mutex g_api_mutex;
extern cudaError_t g_last_error;
extern cudaError_t g_sticky_error;
extern cudaError_t g_pending_error;  // from the last launch, returned by the next synchronising call

cudaError_t record(cudaError_t e);         // remembers e as the last error; g_api_mutex held
cudaError_t record_locked(cudaError_t e);  // the same, taking g_api_mutex
cudaError_t sync_status();                 // what a synchronising call returns; g_api_mutex held

}  // namespace cudaemu
