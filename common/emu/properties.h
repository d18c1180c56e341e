// properties.h — the device properties beyond the basic ones api.cpp sets (properties.cpp).
#pragma once

struct cudaDeviceProp;

namespace cudaemu {
// Sets every cudaDeviceProp field CUDA documents that api.cpp's cudaGetDeviceProperties does not set itself.
void set_documented_properties(cudaDeviceProp* prop);
}  // namespace cudaemu
