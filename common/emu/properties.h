// properties.h — the device properties beyond the basic ones api.cpp sets (properties.cpp).
#pragma once

struct cudaDeviceProp;

namespace cudaemu {
// Sets every cudaDeviceProp field CUDA documents that api.cpp's cudaGetDeviceProperties does not set itself.
void set_documented_properties(cudaDeviceProp* prop);

// The values of the fields CUDA 13 removed from cudaDeviceProp, which cudaDeviceGetAttribute still answers.
struct LegacyProperties {
    int clockRate = 1000000;                   // kHz: clock64() counts nanoseconds, one tick per ns
    int memoryClockRate = 2619000;             // kHz, an H100's: hardware no program observes
    int deviceOverlap = 1;                     // copies may overlap kernels on a GPU: the streamed path works here too
    int kernelExecTimeoutEnabled = 1;          // the watchdog stops a kernel after CUDAEMU_TIMEOUT
    int computeMode = 0;                       // cudaComputeModeDefault
    int singleToDoublePrecisionPerfRatio = 2;  // an H100's
    int cooperativeMultiDeviceLaunch = 0;      // one device
};
inline constexpr LegacyProperties kLegacyProperties{};
}  // namespace cudaemu
