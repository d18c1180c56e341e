// cudaemu.h — what the CPU emulator measured, for a harness or a grader.
//
// Only in emulator builds (emucc defines CUDAEMU). Every launch leaves a LaunchReport: exact global and
// shared traffic and every error the checks found. Per-element counts say how often kernel code read and wrote
// each 4-byte word of a device allocation, and which block wrote it last.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cudaemu {

struct Diagnostic {
    std::string kind;     // "out-of-bounds", "race", "barrier", "uninitialised", "host-access", "timeout", ...
    std::string message;  // one line, for a person
    std::string file;     // the user's source file, as given to the compiler ("" when unknown)
    int line = 0;
};

struct AllocationTraffic {
    std::string name;  // the variable passed to cudaMalloc, or the name given with name_allocation()
    size_t bytes = 0;
    uint64_t load_bytes = 0;
    uint64_t store_bytes = 0;
    uint64_t load_requests = 0, load_sectors = 0;  // warp-level, as in LineRequests
    uint64_t store_requests = 0, store_sectors = 0;
};

// Global bytes one source line loaded from one allocation.
struct LineTraffic {
    std::string file;
    int line = 0;
    std::string allocation;  // as in AllocationTraffic
    uint64_t load_bytes = 0;
};

// One source line's warp-level requests of one kind: a GPU issues each memory instruction once per warp, and the
// addresses of its lanes cost 32-byte sectors (global memory) or wavefronts through the 32 banks (shared memory).
// How the emulator groups a warp's accesses into requests: docs/emulator.md.
struct LineRequests {
    std::string file;
    int line = 0;
    bool shared = false;     // shared memory (else global)
    bool store = false;      // stores (else loads)
    std::string allocation;  // global: as in AllocationTraffic; shared: ""
    uint64_t requests = 0;
    uint64_t sectors = 0;  // global: 32-byte sectors; shared: wavefronts
    uint64_t ideal = 0;    // the fewest sectors (wavefronts: of 128 bytes) the bytes the lanes asked for could take
    uint64_t bytes = 0;    // the bytes the requests' lanes asked for, each counted once per request
    int access_bytes = 0;  // the size of one lane's access (the largest, if the line has several)
    // The line's first request (lowest block, its first warp, its first execution): per lane, the byte offset it
    // accessed in the allocation (shared: in the block's shared memory), or -1 for a lane that took no part.
    std::vector<int64_t> first_request;
};

struct LaunchReport {
    std::string kernel;
    dim3 grid, block;
    cudaError_t error = cudaSuccess;  // what the next synchronising call returns because of this launch
    uint64_t global_load_bytes = 0;
    uint64_t global_store_bytes = 0;
    uint64_t shared_load_bytes = 0;
    uint64_t shared_store_bytes = 0;
    uint64_t constant_load_bytes = 0;  // loads from __constant__ variables (not in global_load_bytes)
    // Floating-point arithmetic executed in kernel code, one per thread that executed it (as Nsight Compute's
    // sm__sass_thread_inst_executed_op_{ffma,fmul,fadd,dfma,dmul,dadd}_pred_on count): fused multiply-adds (the
    // compiler fuses `a * b + c` in one expression, as nvcc does), multiplies, and adds and subtracts; each lane of
    // a vector counts. As the source wrote them: nvcc may fuse a multiply and an add of two statements (one fma
    // where the emulator counts a mul and an add), which leaves the FLOPs the same. Division, square roots and the
    // math library's functions are not counted, as Nsight Compute leaves them out of its FLOP counts.
    uint64_t fp32_fma = 0, fp32_mul = 0, fp32_add = 0;
    uint64_t fp64_fma = 0, fp64_mul = 0, fp64_add = 0;
    uint64_t fp32_flops() const { return 2 * fp32_fma + fp32_mul + fp32_add; }
    uint64_t fp64_flops() const { return 2 * fp64_fma + fp64_mul + fp64_add; }
    // Tensor cores: the FLOPs of every warp's mma_sync (2·m·n·k each), in all and by the inputs' type, and how many
    // TF32 inputs of them had any of their 13 lowest mantissa bits set: inputs not rounded to TF32
    // (__float_to_tf32), which the tensor cores truncate, and how many of those were of the A operand
    uint64_t tensor_flops = 0;
    uint64_t tensor_tf32_flops = 0, tensor_f16_flops = 0, tensor_bf16_flops = 0;
    uint64_t tf32_unrounded_inputs = 0, tf32_unrounded_a_inputs = 0;
    // Of those, the FLOPs of the PTX instruction mma.sync (mma_m16n8k8_tf32, <mma_ptx.h>), and the shared-memory
    // bytes its operands' loader ldmatrix read (16 per row address a lane gave)
    uint64_t ptx_mma_flops = 0, ldmatrix_bytes = 0;
    // Block-wide barriers (__syncthreads() and its kin) that opened, added up over the blocks: a block that meets
    // one __syncthreads() per slice of K for 5 slices adds 5
    uint64_t block_barriers = 0;
    uint64_t max_thread_load_bytes = 0;          // global bytes loaded by the busiest thread
    uint64_t max_thread_store_bytes = 0;         // global bytes stored by the busiest thread
    std::vector<AllocationTraffic> allocations;  // allocations the kernel touched, in allocation order
    std::vector<LineTraffic> line_loads;         // global loads by source line and allocation, most bytes first
    // Warp-level requests (LineRequests), for the launch and by source line (in file and line order); counted only
    // while count_requests() is on (requests_counted), else all 0.
    bool requests_counted = false;
    uint64_t global_load_requests = 0, global_load_sectors = 0, global_store_requests = 0, global_store_sectors = 0;
    uint64_t shared_load_requests = 0, shared_load_wavefronts = 0, shared_store_requests = 0,
             shared_store_wavefronts = 0;
    std::vector<LineRequests> line_requests;
    std::vector<Diagnostic> diagnostics;  // in a deterministic order
    // A launch a GPU refuses (the error is cudaGetLastError()'s): why, with the grid, the block and the rule broken.
    // Not printed: the program gets the error code, as on a GPU; the course's harness shows it to the student.
    std::string refused;
};

// Warp-level requests (LineRequests, the *_requests, *_sectors and *_wavefronts figures) are counted only while this
// is on: from the start with CUDAEMU_REQUESTS=1, or from the next launch on after count_requests(true). Off, they
// stay 0; counting them makes a kernel that is all memory accesses 1.3 to 1.6 times as slow on the emulator.
void count_requests(bool on);
bool counting_requests();

// Every launch since the program started or since clear_launches(), oldest first.
const std::vector<LaunchReport>& launches();
// Clears the launches and the copies.
void clear_launches();

// What host code copied with cudaMemcpy (and the calls built on it: cudaMemcpyAsync, cudaMemcpyToSymbol,
// cudaMemcpyFromSymbol) and set with cudaMemset, since the program started or since clear_launches(), oldest first:
// bytes moved outside any kernel, by the allocation they came from and went to.
struct CopyReport {
    std::string from;  // the source allocation's name (as in AllocationTraffic); "" for memory the runtime does not
                       // know (the program's own host memory); "cudaMemset" for a memset
    std::string to;    // the destination's, the same way
    size_t bytes = 0;
};
const std::vector<CopyReport>& copies();

// Host code that loaded or stored device memory directly (through a pointer cudaMalloc gave), which crashes the
// program on a GPU; since the program started or since clear_launches(), once per source access and allocation.
// The emulator's device memory is the process's own, so the access did happen here: a program (or a harness) that
// must behave as on a GPU treats any as a failure.
struct HostAccessReport {
    std::string allocation;  // as in AllocationTraffic ("" when the address is in no live allocation)
    bool store = false;
    std::string file;  // the access's source line ("" and 0 when unknown)
    int line = 0;
    uintptr_t pc = 0;
};
const std::vector<HostAccessReport>& host_accesses();

// Per 4-byte word of the allocation that starts at device_ptr, since cudaMalloc or reset_element_counts().
struct ElementCounts {
    std::vector<uint32_t> reads;        // kernel loads that touched the word
    std::vector<uint32_t> writes;       // kernel stores that touched the word (cudaMemcpy and cudaMemset never count)
    std::vector<int64_t> writer_block;  // linear index of the block that stored to it last, -1 if none
};
ElementCounts element_counts(const void* device_ptr);
void reset_element_counts(const void* device_ptr);
void name_allocation(const void* device_ptr, const char* name);
// Marks ordinary host memory (malloc, new, a std::vector's data) that kernels must never reach: an access to it from
// kernel code is then an out-of-bounds finding that names it ("host memory 'A'"), with cudaErrorIllegalAddress, as
// on a GPU without the host's memory mapped. The emulator's kernels run in the host's address space, where such an
// access would otherwise work. forget_host_memory takes the mark off (before the memory is freed).
void mark_host_memory(const void* host_ptr, size_t bytes, const char* name);
void forget_host_memory(const void* host_ptr);

// Device memory from cudaMalloc, every allocation since the program started, freed or not, oldest first: what host
// code allocated, where, and whether it gave it back.
struct DeviceAllocation {
    size_t bytes = 0;
    bool freed = false;
    std::string name;  // the pointer expression given to cudaMalloc: "d_A"
    std::string file;  // where cudaMalloc was called
    int line = 0;
};
std::vector<DeviceAllocation> device_allocations();

}  // namespace cudaemu
