// streams.cpp — streams and events. The emulator runs all work at the call, in issue order: a launch or an async
// copy on any stream has finished when the call returns, so every stream is always idle, cudaStreamWaitEvent has
// nothing to wait for, and an event is complete once recorded. A correct program sees what it would see on a
// GPU (it may not rely on work overlapping); errors from a kernel come back from the next synchronising call, as
// from cudaDeviceSynchronize.
#include <chrono>
#include <set>

#include "api.h"
#include "kernels.h"

struct CUstream_st {
    unsigned int flags = 0;
    int priority = 0;  // kept for cudaStreamGetPriority; the order of work is issue order whatever it is
};

struct CUevent_st {
    std::chrono::steady_clock::time_point when;
    bool recorded = false;
    unsigned int flags = 0;
};

namespace cudaemu {
namespace {
std::set<cudaStream_t> g_streams;  // created and not destroyed; guarded by g_api_mutex
std::set<cudaEvent_t> g_events;
}  // namespace

bool valid_stream(cudaStream_t stream) {
    return stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread || g_streams.count(stream);
}

namespace {
// A stream-ordered call: its work runs when the stream reaches it, which here is at the call. So it is its
// synchronous twin's `work`, once the stream is known to be one (else cudaErrorInvalidResourceHandle).
template <class Work>
cudaError_t on_stream(cudaStream_t stream, Work work) {
    {
        std::lock_guard<std::mutex> api(g_api_mutex);
        if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    }
    return work();
}
}  // namespace

}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!stream || flags > cudaStreamNonBlocking) return record(cudaErrorInvalidValue);
    if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
    *stream = new CUstream_st{flags};
    g_streams.insert(*stream);
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, cudaStreamDefault); }

// streamPrioritiesSupported is 0: the range is [0, 0], and a priority outside it is clamped into it, as CUDA does.
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
    if (least) *least = 0;
    if (greatest) *greatest = 0;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int) {
    return cudaStreamCreateWithFlags(stream, flags);  // priority 0, the only one
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!priority) return record(cudaErrorInvalidValue);
    if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    *priority = g_streams.count(stream) ? stream->priority : 0;
    return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!flags) return record(cudaErrorInvalidValue);
    if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    *flags = g_streams.count(stream) ? stream->flags : cudaStreamDefault;
    return cudaSuccess;
}

// A host function enqueued on a stream runs once the stream's earlier work is done: here, at the call. As in
// CUDA, cudaLaunchHostFunc does not run it after an error in the context; a callback runs and gets the error.
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
    {
        std::lock_guard<std::mutex> api(g_api_mutex);
        if (!fn) return record(cudaErrorInvalidValue);
        if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
        if (cudaError_t e = sync_status(); e != cudaSuccess) return record(e);
    }
    fn(user_data);  // outside the lock: it may not call CUDA, but a bad one must not deadlock the emulator
    return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* user_data,
                                  unsigned int flags) {
    cudaError_t status;
    {
        std::lock_guard<std::mutex> api(g_api_mutex);
        if (!callback || flags != 0) return record(cudaErrorInvalidValue);
        if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
        status = sync_status();
    }
    callback(stream, status, user_data);
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!g_streams.count(stream)) return record(cudaErrorInvalidResourceHandle);
    g_streams.erase(stream);
    delete stream;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    return record(sync_status());
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    return record(sync_status());  // cudaSuccess: its work is done
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!valid_stream(stream) || !g_events.count(event)) return record(cudaErrorInvalidResourceHandle);
    return cudaSuccess;  // the event's work finished before this call
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
    return on_stream(stream, [&] { return cudaMemcpy(dst, src, bytes, kind); });
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t stream) {
    return on_stream(stream, [&] { return cudaMemset(ptr, value, bytes); });
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t stream) {
    return on_stream(stream, [&] { return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind); });
}

cudaError_t cudaMemset2DAsync(void* ptr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream) {
    return on_stream(stream, [&] { return cudaMemset2D(ptr, pitch, value, width, height); });
}

// Stream-ordered allocation: cudaMalloc and cudaFree on a valid stream, with the same name, checks and
// use-after-free report.
cudaError_t cudaMallocAsyncEmulated(void** ptr, size_t bytes, cudaStream_t stream, const char* name, const char* file,
                                    int line) {
    return on_stream(stream, [&] { return cudaMallocEmulated(ptr, bytes, name, file, line); });
}

cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
    return on_stream(stream, [&] { return cudaFree(ptr); });
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!event || flags > (cudaEventBlockingSync | cudaEventDisableTiming | 0x04)) return record(cudaErrorInvalidValue);
    *event = new CUevent_st();
    (*event)->flags = flags;
    g_events.insert(*event);
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!g_events.count(event) || !valid_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    event->when =
        std::chrono::steady_clock::now();  // the stream's earlier work has finished: "now" is when it gets here
    event->recorded = true;
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!g_events.count(event)) return record(cudaErrorInvalidResourceHandle);
    return record(sync_status());
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!g_events.count(event)) return record(cudaErrorInvalidResourceHandle);
    return record(sync_status());  // recorded or not, an event has no work pending
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!ms) return record(cudaErrorInvalidValue);
    if (!g_events.count(start) || !g_events.count(end)) return record(cudaErrorInvalidResourceHandle);
    if ((start->flags | end->flags) & cudaEventDisableTiming) return record(cudaErrorInvalidResourceHandle);
    if (!start->recorded || !end->recorded) return record(cudaErrorInvalidResourceHandle);
    *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    std::lock_guard<std::mutex> api(g_api_mutex);
    if (!g_events.count(event)) return record(cudaErrorInvalidResourceHandle);
    g_events.erase(event);
    delete event;
    return cudaSuccess;
}

}  // extern "C"
