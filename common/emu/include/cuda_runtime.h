// cuda_runtime.h — the CPU emulator's stand-in for the CUDA runtime header.
//
// emucc force-includes this file into every .cu translation unit, so a .cu file sees the runtime API, dim3
// and the built-in variables without any #include, as under nvcc; `#include <cuda_runtime.h>` resolves here too.
// Host .cpp files that include it use the same runtime API. Everything outside the supported subset either does
// not exist here (the compiler names it) or fails with a static_assert that names it and points to docs/emulator.md.
#pragma once
#define CUDAEMU 1
// The include guards of CUDA's own cuda_runtime.h and driver_types.h (which it includes), which code tests to see
// whether the runtime API is there: NVIDIA's helper_cuda.h defines checkCudaErrors and findCudaDevice only then.
#define __CUDA_RUNTIME_H__
#define __DRIVER_TYPES_H__

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmath>
#include <tuple>
#include <type_traits>
#include <utility>

// ---------------------------------------------------------------------------------------------------------------
// Qualifiers
// ---------------------------------------------------------------------------------------------------------------
// Device code is marked so that emucc can fuse its multiply-adds as nvcc does (docs/emulator.md); kernels are marked
// as kernels too: a launch wrapper calls one, which emucc never inlines or copies for the host.
#define __global__ __attribute__((annotate("cudaemu.device"), annotate("cudaemu.kernel")))
#define __device__ __attribute__((annotate("cudaemu.device")))
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
#define __launch_bounds__(...)
// A block runs on one worker thread at a time, so one thread_local copy per worker is one copy per running block.
// The emulator finds these variables by address (the program's TLS block) to track races and uninitialised reads.
#define __shared__ static thread_local
// emucc rewrites each `__device__`/`__constant__` variable at namespace scope into a reference to device
// memory (see "Device variables" below); one it could not rewrite (made by a macro) stops here.
#define __constant__                                                                                                 \
    _Pragma(                                                                                                         \
        "GCC error \"__constant__ here is not supported by the CPU emulator: declare each __constant__ variable at " \
        "namespace scope, written out (docs/emulator.md)\"")
#define __align__(n) __attribute__((aligned(n)))
#define __managed__ _Pragma("GCC error \"__managed__ memory is not supported by the CPU emulator (docs/emulator.md)\"")

// ---------------------------------------------------------------------------------------------------------------
// Vector types and dim3
// ---------------------------------------------------------------------------------------------------------------
struct uint3 {
    unsigned int x, y, z;
};
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};
struct alignas(8) float2 {
    float x, y;
};
struct alignas(16) float4 {
    float x, y, z, w;
};
struct alignas(8) int2 {
    int x, y;
};
struct alignas(16) int4 {
    int x, y, z, w;
};
inline float2 make_float2(float x, float y) { return float2{x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
inline int2 make_int2(int x, int y) { return int2{x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }

// ---------------------------------------------------------------------------------------------------------------
// Runtime API types (values as in the CUDA runtime, so error names and numbers agree with a GPU)
// ---------------------------------------------------------------------------------------------------------------
enum cudaError_t {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidPitchValue = 12,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702,
    cudaErrorAssert = 710,
    cudaErrorIllegalInstruction = 715,
    cudaErrorMisalignedAddress = 716,
    cudaErrorHostMemoryAlreadyRegistered = 712,
    cudaErrorHostMemoryNotRegistered = 713,
    cudaErrorLaunchFailure = 719,
    cudaErrorCooperativeLaunchTooLarge = 720,
    cudaErrorUnknown = 999,
};
typedef cudaError_t cudaError;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};

typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    size_t totalConstMem;
    int major;
    int minor;
    int multiProcessorCount;
    int maxThreadsPerMultiProcessor;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int memoryBusWidth;
    int l2CacheSize;
    // The other fields CUDA 13 documents (values: common/emu/properties.cpp). CUDA 13 removed clockRate,
    // memoryClockRate, deviceOverlap, kernelExecTimeoutEnabled, computeMode, singleToDoublePrecisionPerfRatio and
    // cooperativeMultiDeviceLaunch: cudaDeviceGetAttribute gives them (properties.h's LegacyProperties)
    size_t memPitch;
    size_t textureAlignment;
    size_t texturePitchAlignment;
    int integrated;
    int canMapHostMemory;
    size_t surfaceAlignment;
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int tccDriver;
    int asyncEngineCount;
    int unifiedAddressing;
    int persistingL2CacheMaxSize;
    int streamPrioritiesSupported;
    int globalL1CacheSupported;
    int localL1CacheSupported;
    int managedMemory;
    int isMultiGpuBoard;
    int multiGpuBoardGroupID;
    int hostNativeAtomicSupported;
    int pageableMemoryAccess;
    int concurrentManagedAccess;
    int computePreemptionSupported;
    int canUseHostPointerForRegisteredMem;
    int cooperativeLaunch;
    size_t sharedMemPerBlockOptin;
    int pageableMemoryAccessUsesHostPageTables;
    int directManagedMemAccessFromHost;
    int maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
    int hostRegisterSupported;
    int sparseCudaArraySupported;
    int hostRegisterReadOnlySupported;
    int timelineSemaphoreInteropSupported;
    int memoryPoolsSupported;
    int gpuDirectRDMASupported;
    unsigned int gpuDirectRDMAFlushWritesOptions;
    int gpuDirectRDMAWritesOrdering;
    unsigned int memoryPoolSupportedHandleTypes;
    int deferredMappingCudaArraySupported;
    int ipcEventSupported;
    int clusterLaunch;
    int unifiedFunctionPointers;
};

extern "C" {
cudaError_t cudaMallocEmulated(void** ptr, size_t bytes, const char* name, const char* file, int line);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemset(void* ptr, int value, size_t bytes);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

// Device-side functions, defined out of line so that the emulator can count and check them. Barriers are never
// tail calls, so that their return address is the line of the call (a barrier is told apart by its line).
__attribute__((not_tail_called)) void __syncthreads(void);
void __threadfence(void);
void __threadfence_block(void);
}
int atomicAdd(int* address, int value);
unsigned int atomicAdd(unsigned int* address, unsigned int value);
float atomicAdd(float* address, float value);

// cudaMalloc records the variable's name and the call site so that an out-of-bounds report can say
// "allocation 'd_A' (made at host.cu:40)". It is a macro so that the name can be captured.
template <class T>
inline cudaError_t cudaemu_malloc(T** ptr, size_t bytes, const char* name, const char* file, int line) {
    return cudaMallocEmulated(reinterpret_cast<void**>(ptr), bytes, name, file, line);
}
#define cudaMalloc(ptr, bytes) cudaemu_malloc((ptr), (bytes), #ptr, __FILE__, __LINE__)

// Two-dimensional memory: rows of width bytes, pitch bytes apart (memory.cpp). cudaMallocPitch names its allocation
// as cudaMalloc does.
extern "C" {
cudaError_t cudaMallocPitchEmulated(void** ptr, size_t* pitch, size_t width, size_t height, const char* name,
                                    const char* file, int line);
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind);
cudaError_t cudaMemset2D(void* ptr, size_t pitch, int value, size_t width, size_t height);
}
template <class T>
inline cudaError_t cudaemu_malloc_pitch(T** ptr, size_t* pitch, size_t width, size_t height, const char* name,
                                        const char* file, int line) {
    return cudaMallocPitchEmulated(reinterpret_cast<void**>(ptr), pitch, width, height, name, file, line);
}
#define cudaMallocPitch(ptr, pitch, width, height) \
    cudaemu_malloc_pitch((ptr), (pitch), (width), (height), #ptr, __FILE__, __LINE__)

// ---------------------------------------------------------------------------------------------------------------
// Built-in variables. The functions are const: within one thread's run of a kernel their values never change.
// ---------------------------------------------------------------------------------------------------------------
namespace cudaemu {
__attribute__((const)) uint3 thread_idx();
__attribute__((const)) uint3 block_idx();
__attribute__((const)) dim3 block_dim();
__attribute__((const)) dim3 grid_dim();
}  // namespace cudaemu
#define threadIdx (::cudaemu::thread_idx())
#define blockIdx (::cudaemu::block_idx())
#define blockDim (::cudaemu::block_dim())
#define gridDim (::cudaemu::grid_dim())
constexpr int warpSize = 32;
#include "cudaemu_warp.h"

// ---------------------------------------------------------------------------------------------------------------
// Math: the device functions CUDA adds on top of <math.h>
// ---------------------------------------------------------------------------------------------------------------
#include "cudaemu_minmax.h"  // min, max, umin, llmax, ... as nvcc's math headers declare them
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __powf(float a, float b) { return powf(a, b); }
// device code: their arithmetic counts as the kernel's (LaunchReport::fp32_fma and its kin). __fadd_rn and __fmul_rn
// are never fused with the caller's arithmetic (that is what they are for): not inlined, where emucc inlines device
// functions before fusing multiply-adds.
__device__ inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
__device__ inline __attribute__((noinline)) float __fadd_rn(float a, float b) { return a + b; }
__device__ inline __attribute__((noinline)) float __fmul_rn(float a, float b) { return a * b; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
// PTX's conversion of a float to an integer saturates: a value past the type's range gives its nearest limit, where
// the host's conversion (x86's cvttss2si) gives 0x80000000. A NaN gives 0 from a float and the type's lowest value
// from a double, as on the H100 (tests/emu/programs/conversions_saturate.cu).
template <class I, class F>
inline I cudaemu_saturated(F x) {
    constexpr bool is_signed = I(-1) < I(0);
    constexpr I hi = is_signed ? I(~0ull >> (65 - 8 * sizeof(I))) : I(~0ull);
    constexpr I lo = is_signed ? I(-hi - 1) : I(0);
    if (x != x) return sizeof(F) == 8 ? lo : 0;
    if (x <= F(lo)) return lo;
    if (x >= F(hi)) return hi;
    return static_cast<I>(x);
}
inline int __float2int_rn(float x) { return cudaemu_saturated<int>(nearbyintf(x)); }
inline float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
inline int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
template <class T>
inline T __ldg(const T* p) {
    return *p;
}

// ---------------------------------------------------------------------------------------------------------------
// Outside the subset: named at compile time, never silently wrong
// ---------------------------------------------------------------------------------------------------------------
#define CUDAEMU_UNSUPPORTED(name, why)                                                                 \
    template <class... Args>                                                                           \
    inline cudaError_t name(Args...) {                                                                 \
        static_assert(sizeof...(Args) > 1000000, #name " is not supported by the CPU emulator: " why); \
        return cudaErrorUnknown;                                                                       \
    }
// Memory pools of one's own: cudaMallocAsync and the device's default pool are supported (docs/emulator.md)
CUDAEMU_UNSUPPORTED(cudaMemPoolCreate, "use the device's default pool (cudaDeviceGetDefaultMemPool)")
CUDAEMU_UNSUPPORTED(cudaMemPoolDestroy, "use the device's default pool (cudaDeviceGetDefaultMemPool)")
CUDAEMU_UNSUPPORTED(cudaDeviceSetMemPool, "use the device's default pool (cudaDeviceGetDefaultMemPool)")
CUDAEMU_UNSUPPORTED(cudaMallocFromPoolAsync, "use cudaMallocAsync, which takes the default pool's memory")
CUDAEMU_UNSUPPORTED(cudaMemPoolSetAccess, "one device: its pool's memory is always accessible to it")
CUDAEMU_UNSUPPORTED(cudaMemPoolGetAccess, "one device: its pool's memory is always accessible to it")
CUDAEMU_UNSUPPORTED(cudaMemPoolExportToShareableHandle, "no pool is shared between processes")
CUDAEMU_UNSUPPORTED(cudaMemPoolImportFromShareableHandle, "no pool is shared between processes")
CUDAEMU_UNSUPPORTED(cudaMemPoolExportPointer, "no pool is shared between processes")
CUDAEMU_UNSUPPORTED(cudaMemPoolImportPointer, "no pool is shared between processes")
#undef CUDAEMU_UNSUPPORTED

// ---------------------------------------------------------------------------------------------------------------
// Kernel launch. emucc rewrites `kernel<<<grid, block, shmem, stream>>>(args)` into
// `::cudaemu::kernel(kernel, "kernel", __FILE__, __LINE__)(grid, block, shmem, stream)(args)`.
// ---------------------------------------------------------------------------------------------------------------
namespace cudaemu {
struct LaunchSite {
    const char* kernel;
    const char* file;
    int line;
    const void* function = nullptr;  // the kernel, for its static shared memory size and attributes
};
using ThreadEntry = void (*)(void* closure);
// Runs every block of the grid to completion (or to the first fatal error) before returning; the launch's error.
cudaError_t launch(const LaunchSite& site, dim3 grid, dim3 block, size_t dynamic_shared_bytes, cudaStream_t stream,
                   ThreadEntry entry, void* closure);
// The same for cudaLaunchCooperativeKernel (cudaemu_cooperative.h): every block resident at once; the launch's error.
cudaError_t launch_cooperative(const LaunchSite& site, dim3 grid, dim3 block, size_t dynamic_shared_bytes,
                               cudaStream_t stream, ThreadEntry entry, void* closure);

template <class... Params>
class KernelLaunch {
  public:
    KernelLaunch(void (*kernel)(Params...), LaunchSite site, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream)
        : kernel_(kernel), site_(site), grid_(grid), block_(block), shmem_(shmem), stream_(stream) {}

    // Arguments are converted to the parameter types at the call, as in any call (a literal 0 for a pointer
    // parameter is a null pointer), and so once, as nvcc does; every thread gets its own copy.
    void operator()(Params... args) const {
        std::tuple<std::decay_t<Params>...> params(args...);
        struct Closure {
            void (*kernel)(Params...);
            std::tuple<std::decay_t<Params>...>* params;
        } closure{kernel_, &params};
        launch(
            site_, grid_, block_, shmem_, stream_,
            [](void* p) {
                auto* c = static_cast<Closure*>(p);
                std::apply(c->kernel, *c->params);
            },
            &closure);
    }

  private:
    void (*kernel_)(Params...);
    LaunchSite site_;
    dim3 grid_, block_;
    size_t shmem_;
    cudaStream_t stream_;
};

template <class... Params>
struct KernelRef {
    void (*kernel)(Params...);
    LaunchSite site;
    KernelLaunch<Params...> operator()(dim3 grid, dim3 block, size_t shmem = 0, cudaStream_t stream = 0) const {
        return KernelLaunch<Params...>(kernel, site, grid, block, shmem, stream);
    }
};

template <class... Params>
KernelRef<Params...> kernel(void (*k)(Params...), const char* name, const char* file, int line) {
    return KernelRef<Params...>{k, LaunchSite{name, file, line, reinterpret_cast<const void*>(k)}};
}
}  // namespace cudaemu

// ---------------------------------------------------------------------------------------------------------------
// Dynamic shared memory, device variables, streams, host memory, device and function attributes
// (common/emu/functions.cpp, variables.cpp, streams.cpp, host_memory.cpp). Streams run their work in issue order,
// at the call: every stream is synchronous (docs/emulator.md).
// ---------------------------------------------------------------------------------------------------------------
// emucc turns `extern __shared__ T name[];` into `extern __thread T name[] __asm__(CUDAEMU_DYNAMIC_SHARED)`:
// every declaration names one buffer in the worker's TLS block (shared memory), as in CUDA; the launch's third
// parameter says how much of it a block may use.
#define CUDAEMU_DYNAMIC_SHARED "__cudaemu_dynamic_shared"
#define CUDAEMU_DYNAMIC_SHARED_MAX 232448  // an H100's opt-in maximum per block (227 KiB), static + dynamic

enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};
struct cudaFuncAttributes {
    size_t sharedSizeBytes;
    size_t constSizeBytes;
    size_t localSizeBytes;
    int maxThreadsPerBlock;
    int numRegs;
    int ptxVersion;
    int binaryVersion;
    int cacheModeCA;
    int maxDynamicSharedSizeBytes;
    int preferredShmemCarveout;
};
enum cudaDeviceAttr {  // CUDA's numbers; the texture and surface limits are left out (no textures here)
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrTotalConstantMemory = 9,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMaxPitch = 11,
    cudaDevAttrMaxRegistersPerBlock = 12,
    cudaDevAttrClockRate = 13,
    cudaDevAttrTextureAlignment = 14,
    cudaDevAttrGpuOverlap = 15,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrKernelExecTimeout = 17,
    cudaDevAttrIntegrated = 18,
    cudaDevAttrCanMapHostMemory = 19,
    cudaDevAttrComputeMode = 20,
    cudaDevAttrSurfaceAlignment = 30,
    cudaDevAttrConcurrentKernels = 31,
    cudaDevAttrEccEnabled = 32,
    cudaDevAttrPciBusId = 33,
    cudaDevAttrPciDeviceId = 34,
    cudaDevAttrTccDriver = 35,
    cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrAsyncEngineCount = 40,
    cudaDevAttrUnifiedAddressing = 41,
    cudaDevAttrPciDomainId = 50,
    cudaDevAttrTexturePitchAlignment = 51,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrStreamPrioritiesSupported = 78,
    cudaDevAttrGlobalL1CacheSupported = 79,
    cudaDevAttrLocalL1CacheSupported = 80,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrMaxRegistersPerMultiprocessor = 82,
    cudaDevAttrManagedMemory = 83,
    cudaDevAttrIsMultiGpuBoard = 84,
    cudaDevAttrMultiGpuBoardGroupID = 85,
    cudaDevAttrHostNativeAtomicSupported = 86,
    cudaDevAttrSingleToDoublePrecisionPerfRatio = 87,
    cudaDevAttrPageableMemoryAccess = 88,
    cudaDevAttrConcurrentManagedAccess = 89,
    cudaDevAttrComputePreemptionSupported = 90,
    cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
    cudaDevAttrCooperativeLaunch = 95,
    cudaDevAttrCooperativeMultiDeviceLaunch = 96,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrCanFlushRemoteWrites = 98,
    cudaDevAttrHostRegisterSupported = 99,
    cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
    cudaDevAttrDirectManagedMemAccessFromHost = 101,
    cudaDevAttrMaxBlocksPerMultiprocessor = 106,
    cudaDevAttrMaxPersistingL2CacheSize = 108,
    cudaDevAttrMaxAccessPolicyWindowSize = 109,
    cudaDevAttrReservedSharedMemoryPerBlock = 111,
    cudaDevAttrSparseCudaArraySupported = 112,
    cudaDevAttrHostRegisterReadOnlySupported = 113,
    cudaDevAttrTimelineSemaphoreInteropSupported = 114,
    cudaDevAttrMemoryPoolsSupported = 115,
    cudaDevAttrGPUDirectRDMASupported = 116,
    cudaDevAttrGPUDirectRDMAFlushWritesOptions = 117,
    cudaDevAttrGPUDirectRDMAWritesOrdering = 118,
    cudaDevAttrMemoryPoolSupportedHandleTypes = 119,
    cudaDevAttrClusterLaunch = 120,
    cudaDevAttrDeferredMappingCudaArraySupported = 121,
};
enum cudaComputeMode {  // what cudaDevAttrComputeMode reports; NVIDIA's helper_cuda.h compares with Prohibited
    cudaComputeModeDefault = 0,
    cudaComputeModeExclusive = 1,
    cudaComputeModeProhibited = 2,
    cudaComputeModeExclusiveProcess = 3,
};

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

extern "C" {
cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value);
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, const void* func, int block_size,
                                                          size_t dynamic_shared_bytes);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t bytes, size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice);
cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t bytes, size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t bytes, size_t offset = 0,
                                    cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0);
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t bytes, size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0);
cudaError_t cudaGetSymbolAddress(void** dev_ptr, const void* symbol);
cudaError_t cudaGetSymbolSize(size_t* bytes, const void* symbol);

cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemset2DAsync(void* ptr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream = 0);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t stream = 0);
cudaError_t cudaMallocAsyncEmulated(void** ptr, size_t bytes, cudaStream_t stream, const char* name, const char* file,
                                    int line);
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream);

cudaError_t cudaMallocHost(void** ptr, size_t bytes);
cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned int flags);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMallocManagedEmulated(void** ptr, size_t bytes, unsigned int flags, const char* name, const char* file,
                                      int line);
}

// The C++ forms CUDA's header has: a kernel or a symbol passed as itself, a typed pointer for an allocation.
template <class T>
inline cudaError_t cudaFuncSetAttribute(T* func, cudaFuncAttribute attr, int value) {
    return cudaFuncSetAttribute(reinterpret_cast<const void*>(func), attr, value);
}
template <class T>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, T* func) {
    return cudaFuncGetAttributes(attr, reinterpret_cast<const void*>(func));
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, T* func, int block_size,
                                                                 size_t dynamic_shared_bytes) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(num_blocks, reinterpret_cast<const void*>(func), block_size,
                                                         dynamic_shared_bytes);
}
// A symbol's address as the runtime takes it, whatever its qualifiers (`__device__ volatile int flag`)
template <class T>
inline const void* cudaemu_symbol(const T& symbol) {
    return const_cast<const void*>(static_cast<const volatile void*>(__builtin_addressof(symbol)));
}
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t bytes, size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    return cudaMemcpyToSymbol(cudaemu_symbol(symbol), src, bytes, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t bytes, size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    return cudaMemcpyFromSymbol(dst, cudaemu_symbol(symbol), bytes, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t bytes, size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0) {
    return cudaMemcpyToSymbolAsync(cudaemu_symbol(symbol), src, bytes, offset, kind, stream);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t bytes, size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0) {
    return cudaMemcpyFromSymbolAsync(dst, cudaemu_symbol(symbol), bytes, offset, kind, stream);
}
template <class T>
inline cudaError_t cudaGetSymbolAddress(void** dev_ptr, const T& symbol) {
    return cudaGetSymbolAddress(dev_ptr, cudaemu_symbol(symbol));
}
template <class T>
inline cudaError_t cudaGetSymbolSize(size_t* bytes, const T& symbol) {
    return cudaGetSymbolSize(bytes, cudaemu_symbol(symbol));
}
template <class T>
inline cudaError_t cudaMallocHost(T** ptr, size_t bytes) {
    return cudaMallocHost(reinterpret_cast<void**>(ptr), bytes);
}
template <class T>
inline cudaError_t cudaHostAlloc(T** ptr, size_t bytes, unsigned int flags) {
    return cudaHostAlloc(reinterpret_cast<void**>(ptr), bytes, flags);
}
// cudaMallocAsync names its allocation after the variable, as cudaMalloc does (a macro, to capture the name).
template <class T>
inline cudaError_t cudaemu_malloc_async(T** ptr, size_t bytes, cudaStream_t stream, const char* name, const char* file,
                                        int line) {
    return cudaMallocAsyncEmulated(reinterpret_cast<void**>(ptr), bytes, stream, name, file, line);
}
#define cudaMallocAsync(ptr, bytes, stream) cudaemu_malloc_async((ptr), (bytes), (stream), #ptr, __FILE__, __LINE__)
// Managed memory lives in device memory (counted and checked in kernels) that host code may use directly.
template <class T>
inline cudaError_t cudaemu_malloc_managed(T** ptr, size_t bytes, unsigned int flags, const char* name, const char* file,
                                          int line) {
    return cudaMallocManagedEmulated(reinterpret_cast<void**>(ptr), bytes, flags, name, file, line);
}
#define cudaMallocManaged(ptr, ...) cudaemu_malloc_managed_args((ptr), #ptr, __FILE__, __LINE__, __VA_ARGS__)
template <class T>
inline cudaError_t cudaemu_malloc_managed_args(T** ptr, const char* name, const char* file, int line, size_t bytes,
                                               unsigned int flags = cudaMemAttachGlobal) {
    return cudaemu_malloc_managed(ptr, bytes, flags, name, file, line);
}

namespace cudaemu {
// emucc rewrites `__device__ T name[N] = init;` at namespace scope into a host object holding the initial value
// (constant-initialised: data, never code) and `T (&name)[N] = CUDAEMU_DEVICE_VARIABLE(...)`: a reference to device
// memory holding a copy of it (`const` for __constant__, so that a kernel's store to it does not compile, as under
// nvcc). The reference is bound while the program starts, by one call to the runtime per variable and nothing else
// (course/confine.py checks exactly that in a lab's kernel.cu).
void* define_device_variable(const void* init, size_t bytes, size_t align, bool constant, const char* name,
                             const char* file, int line);
}  // namespace cudaemu
// nvcc refuses a __device__ or __constant__ variable whose initial value needs code to compute ("dynamic
// initialization is not supported"); so does clang here, through this attribute on the initial value
#define CUDAEMU_CONSTANT_INIT __attribute__((require_constant_initialization))
#define CUDAEMU_DEVICE_VARIABLE(init, constant, name)                                                        \
    (*static_cast<decltype(init)*>(::cudaemu::define_device_variable(                                        \
        const_cast<const void*>(static_cast<const volatile void*>(__builtin_addressof(init))), sizeof(init), \
        alignof(decltype(init)), constant, name, __FILE__, __LINE__)))

#include "cudaemu_host_memory.h"    // cudaHostRegister, mapped memory, cudaSetDeviceFlags, occupancy-based sizing
#include "cudaemu_device_config.h"  // versions, cache and limit settings, pointer attributes, host functions

// ---------------------------------------------------------------------------------------------------------------
// The rest of what nvcc's headers give every program: version macros, __align__, vector types, intrinsics, atomics
// ---------------------------------------------------------------------------------------------------------------
#include "cudaemu_atomics.h"
#include "cudaemu_compat.h"
#include "cudaemu_cooperative.h"
