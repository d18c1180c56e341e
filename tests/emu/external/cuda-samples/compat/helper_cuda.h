// helper_cuda.h — a stand-in for cuda-samples' Common/helper_cuda.h, written for this corpus (not NVIDIA's file).
//
// The original queries the device through cudaDeviceGetAttribute and carries error tables for every CUDA library;
// the samples use only the few helpers below. Same names, same messages on error, with two differences that keep
// the output of a run independent of the machine: findCudaDevice() selects device 0 and prints nothing (the
// original prints the GPU's architecture name), and checkCudaCapabilities() prints nothing either.
#pragma once

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef EXIT_WAIVED
#define EXIT_WAIVED 2
#endif
#ifndef MAX
#define MAX(a, b) (a > b ? a : b)
#endif

template <typename T>
void check(T result, char const *const func, const char *const file, int const line) {
  if (result) {
    fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\" \n", file, line, static_cast<unsigned int>(result),
            cudaGetErrorName(result), func);
    exit(EXIT_FAILURE);
  }
}
#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)

#define getLastCudaError(msg) __getLastCudaError(msg, __FILE__, __LINE__)
inline void __getLastCudaError(const char *errorMessage, const char *file, const int line) {
  cudaError_t err = cudaGetLastError();
  if (cudaSuccess != err) {
    fprintf(stderr, "%s(%i) : getLastCudaError() CUDA error : %s : (%d) %s.\n", file, line, errorMessage,
            static_cast<int>(err), cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
}

#define printLastCudaError(msg) __printLastCudaError(msg, __FILE__, __LINE__)
inline void __printLastCudaError(const char *errorMessage, const char *file, const int line) {
  cudaError_t err = cudaGetLastError();
  if (cudaSuccess != err) {
    fprintf(stderr, "%s(%i) : getLastCudaError() CUDA error : %s : (%d) %s.\n", file, line, errorMessage,
            static_cast<int>(err), cudaGetErrorString(err));
  }
}

inline int ftoi(float value) { return value >= 0 ? static_cast<int>(value + 0.5) : static_cast<int>(value - 0.5); }

// CUDA cores per multiprocessor, as in the original's table (the samples use it only to print a GFLOP/s estimate).
inline int _ConvertSMVer2Cores(int major, int minor) {
  const struct { int sm, cores; } table[] = {{0x50, 128}, {0x52, 128}, {0x53, 128}, {0x60, 64},  {0x61, 128},
                                             {0x62, 128}, {0x70, 64},  {0x72, 64},  {0x75, 64},  {0x80, 64},
                                             {0x86, 128}, {0x87, 128}, {0x89, 128}, {0x90, 128}, {0xa0, 128}};
  int cores = 128;
  for (const auto &e : table)
    if (e.sm == ((major << 4) + minor)) cores = e.cores;
  return cores;
}

inline int gpuDeviceInit(int devID) {
  checkCudaErrors(cudaSetDevice(devID));
  return devID;
}
inline int gpuGetMaxGflopsDeviceId() { return 0; }
inline int findCudaDevice(int, const char **) { return gpuDeviceInit(0); }
inline bool checkCudaCapabilities(int major_version, int minor_version) {
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, 0));
  return prop.major > major_version || (prop.major == major_version && prop.minor >= minor_version);
}
