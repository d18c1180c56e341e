// cudaemu_cooperative.h — cudaLaunchCooperativeKernel and cudaLaunchKernel, included by cuda_runtime.h: launches
// whose arguments come as an array of pointers to them. A cooperative launch's blocks may synchronise with
// cooperative_groups::this_grid().sync(): all of them are resident at once (common/emu/cooperative.cpp), and a grid
// larger than the device holds at once fails with cudaErrorCooperativeLaunchTooLarge.
//
// The kernel must be named (the function itself, as CUDA's template overloads take it): the emulator calls it with
// its parameter types, which a `void*` has lost. emucc drops a `(void *)` cast in front of the kernel's name.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>

namespace cudaemu {
template <class... Params, size_t... I>
cudaError_t launch_with_arguments(const LaunchSite& site, void (*k)(Params...), dim3 grid, dim3 block, void** args,
                                  size_t shmem, cudaStream_t stream, bool cooperative, std::index_sequence<I...>) {
    if (sizeof...(Params) > 0 && !args) return cudaErrorInvalidValue;
    // each argument is copied from where args[i] points, as the runtime copies it into the parameter space
    std::tuple<std::decay_t<Params>...> params(*static_cast<std::decay_t<Params>*>(args[I])...);
    struct Closure {
        void (*kernel)(Params...);
        std::tuple<std::decay_t<Params>...>* params;
    } closure{k, &params};
    const ThreadEntry entry = [](void* p) {
        auto* c = static_cast<Closure*>(p);
        std::apply(c->kernel, *c->params);
    };
    return cooperative ? launch_cooperative(site, grid, block, shmem, stream, entry, &closure)
                       : launch(site, grid, block, shmem, stream, entry, &closure);
}

// emucc's rewrite of cudaLaunchCooperativeKernel(kernel, ...), with the kernel's name and the call's line
template <class... Params>
cudaError_t cooperative_launch(const char* name, const char* file, int line, void (*kernel)(Params...), dim3 grid,
                               dim3 block, void** args, size_t shared_mem = 0, cudaStream_t stream = 0) {
    return launch_with_arguments(LaunchSite{name, file, line, reinterpret_cast<const void*>(kernel)}, kernel, grid,
                                 block, args, shared_mem, stream, true, std::index_sequence_for<Params...>{});
}
template <class F = void>
cudaError_t cooperative_launch(const char*, const char*, int, const void*, dim3, dim3, void**, size_t = 0,
                               cudaStream_t = 0) {
    static_assert(!std::is_same<F, F>::value,
                  "cudaLaunchCooperativeKernel is not supported by the CPU emulator through a void* variable: pass the "
                  "kernel itself, cudaLaunchCooperativeKernel(kernel, grid, block, args, ...)");
    return cudaErrorInvalidDeviceFunction;
}

// emucc's rewrite of cudaLaunchKernel(kernel, ...)
template <class... Params>
cudaError_t arguments_launch(const char* name, const char* file, int line, void (*kernel)(Params...), dim3 grid,
                             dim3 block, void** args, size_t shared_mem = 0, cudaStream_t stream = 0) {
    return launch_with_arguments(LaunchSite{name, file, line, reinterpret_cast<const void*>(kernel)}, kernel, grid,
                                 block, args, shared_mem, stream, false, std::index_sequence_for<Params...>{});
}
template <class F = void>
cudaError_t arguments_launch(const char*, const char*, int, const void*, dim3, dim3, void**, size_t = 0,
                             cudaStream_t = 0) {
    static_assert(!std::is_same<F, F>::value,
                  "cudaLaunchKernel is not supported by the CPU emulator through a void* variable: pass the kernel "
                  "itself, cudaLaunchKernel(kernel, grid, block, args, ...)");
    return cudaErrorInvalidDeviceFunction;
}
}  // namespace cudaemu

template <class... Params>
cudaError_t cudaLaunchKernel(void (*kernel)(Params...), dim3 grid, dim3 block, void** args, size_t shared_mem = 0,
                             cudaStream_t stream = 0, const char* file = __builtin_FILE(),
                             int line = __builtin_LINE()) {
    return ::cudaemu::arguments_launch("kernel", file, line, kernel, grid, block, args, shared_mem, stream);
}

template <class... Params>
cudaError_t cudaLaunchCooperativeKernel(void (*kernel)(Params...), dim3 grid, dim3 block, void** args,
                                        size_t shared_mem = 0, cudaStream_t stream = 0,
                                        const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return ::cudaemu::cooperative_launch("cooperative kernel", file, line, kernel, grid, block, args, shared_mem,
                                         stream);
}

template <class F = void>
cudaError_t cudaLaunchCooperativeKernel(const void*, dim3, dim3, void**, size_t = 0, cudaStream_t = 0) {
    static_assert(!std::is_same<F, F>::value,
                  "cudaLaunchCooperativeKernel is not supported by the CPU emulator through a void* variable: pass the "
                  "kernel itself, cudaLaunchCooperativeKernel(kernel, grid, block, args, ...)");
    return cudaErrorInvalidDeviceFunction;
}
