// harness.h — runs a lab's matmul() on the device (GPU or emulator) and judges what it did.
//
// Every lab's tests.cpp uses these. A check returns a Verdict whose message is written for the student:
// the first wrong element and how many are wrong, the bytes the kernel read against what tiling allows, the
// emulator's diagnosis with file:line.
#pragma once

#include <cuda_runtime.h>

#include "lab_common.h"

#include <cstdint>
#include <string>
#include <vector>

// C = A·B; A is M×K, B is K×N, C is M×N, all row-major, device pointers (the contract of every lab.h).
using MatmulFn = void (*)(const float* A, const float* B, float* C, int M, int N, int K);

struct Problem {
    int M = 0, N = 0, K = 0;
    std::vector<float> A, B;
    std::string description;  // "55×48·48×43 seeded random"
    // The kernel's phases, where the test knows them (a constant problem's hint uses them): each phase takes a
    // k_slice-wide slice of K (0: the kernel has no phases), k_step values of k at a time (8 for a tensor-core step).
    int k_slice = 0, k_step = 1;
};

Problem constant_problem(int M, int N, int K, float a, float b);  // every A element a, every B element b
Problem counting_problem(int M, int N, int K);                    // A and B hold 1, 2, 3, ... in row-major order
Problem random_problem(int M, int N, int K, uint32_t seed);       // uniform in [-1, 1); A is not Bᵀ

// One thing the emulator found in a run (cudaemu.h's Diagnostic, as the harness keeps it).
struct Finding {
    std::string kind;     // the emulator's: "race", "out-of-bounds", "barrier", "uninitialised", "misaligned",
                          // "timeout", ... (cudaemu.h); "launch" for a launch a GPU would refuse
    std::string file;     // the source file it points at, as compiled ("" when unknown)
    int line = 0;         // 0 when unknown
    std::string message;  // one line, for a person
    std::string text() const { return kind + ": " + message; }  // how a student reads it: "race: race on ..."
    bool operator==(const Finding& o) const {
        return kind == o.kind && file == o.file && line == o.line && message == o.message;
    }
};

struct Run {
    std::vector<float> C;                    // copied back; NaN where nothing was written
    cudaError_t launch_error = cudaSuccess;  // cudaGetLastError() after matmul() returned
    cudaError_t sync_error = cudaSuccess;    // cudaDeviceSynchronize()
    std::string cuda_check;                  // "kernel.cu:58: CUDA_CHECK(cudaGetLastError())" when one failed
    // Measured by the emulator only (measured == false on a GPU):
    bool measured = false;
    bool requests_counted = false;  // warp-level requests were counted (run_matmul_counting_requests)
    int kernel_launches = 0;
    uint64_t bytes_read_AB = 0;                                        // global bytes loaded from A and B
    uint64_t bytes_read_A = 0, bytes_read_B = 0, bytes_written_C = 0;  // the same per matrix, and stored to C
    uint64_t bytes_read = 0;                                           // all global bytes loaded
    uint64_t bytes_written = 0;                                        // all global bytes stored
    uint64_t shared_bytes_read = 0;                                    // all shared-memory bytes loaded, all threads
    struct LaunchBarriers {
        std::string kernel;
        uint64_t blocks = 0, barriers = 0;  // barriers: block-wide barriers that opened, over all the blocks
    };
    std::vector<LaunchBarriers> barriers;     // per launch
    uint64_t tensor_flops = 0;                // the FLOPs of the kernels' mma_sync calls (tensor cores)
    uint64_t fp32_flops = 0, fp64_flops = 0;  // the kernels' float and double arithmetic (2 per fma, 1 per mul/add)
    uint64_t tf32_unrounded_inputs = 0;       // TF32 inputs of those calls not rounded to TF32 (cudaemu.h)
    uint64_t tf32_unrounded_a_inputs = 0;     // of those, the A operand's
    uint64_t ptx_mma_flops = 0;               // of tensor_flops, those of mma_m16n8k8_tf32 (<mma_ptx.h>)
    uint64_t ldmatrix_bytes = 0;              // shared-memory bytes ldmatrix_x4 and ldmatrix_x2 read
    std::vector<uint32_t> C_writes;           // per element of C: how many kernel stores touched it
    std::vector<int64_t> C_writer;  // per element of C: linear index of the block that stored it last, -1 if none
    std::vector<uint32_t> A_reads;  // per element of A: how many kernel loads touched it
    std::vector<uint32_t> B_reads;  // per element of B: the same
    struct LineReads {
        std::string matrix;  // "A" or "B"
        std::string where;   // "kernel.cu:36"
        uint64_t bytes = 0;
    };
    std::vector<LineReads> AB_line_reads;  // global bytes loaded from A and B per source line, most first
    struct LineRequests {                  // warp-level requests (cudaemu.h's LineRequests)
        std::string matrix;                // "A", "B" (loads) or "C" (stores)
        std::string where;                 // "kernel.cu:36"
        uint64_t requests = 0, sectors = 0, ideal = 0;
    };
    std::vector<LineRequests> ABC_requests;       // loads of A and B, stores of C, per source line
    uint64_t shared_load_wavefronts = 0;          // all shared-memory loads' wavefronts (counting requests only)
    std::vector<LineRequests> shared_load_lines;  // shared-memory loads per source line ("shared"; sectors: wavefronts)
    std::vector<Finding> findings;                // every launch's, in order
    // What matmul() copied out of A or B with cudaMemcpy (to the host, or to other device memory) instead of its
    // kernels reading them: "A: 9,216 bytes to the host", one per copy (emulator only; matmul() only)
    std::vector<std::string> AB_copies;
    // host code that read or wrote device memory directly, which crashes on a GPU: "kernel.cu:40: reads A", one per
    // source line and buffer (emulator only)
    std::vector<std::string> host_accesses;
    // run_host_flow only:
    std::string entry = "matmul()";             // the student's function the run called
    bool entry_missing = false;                 // the kernel.cu does not define it
    cudaError_t unchecked_error = cudaSuccess;  // an error a CUDA call returned that no CUDA_CHECK caught
    struct DeviceBuffer {
        uint64_t bytes = 0;
        bool freed = false;
        std::string where;  // "kernel.cu:70: cudaMalloc(&d_A)"
    };
    std::vector<DeviceBuffer> device_buffers;  // what the function cudaMalloc'd (emulator only)
};

// Allocates A, B and C on the device, fills C with NaN, calls matmul, synchronises and copies C back.
// After a kernel error the device is reset, so the next run starts clean.
Run run_matmul(const Problem& p, MatmulFn matmul);
// The same, with the emulator counting warp-level requests and sectors (Run::ABC_requests; slower, so only where a
// test needs them). On a GPU, run_matmul.
Run run_matmul_counting_requests(const Problem& p, MatmulFn matmul);

// Lab 1's matmul_from_host: the same product on host pointers, the function doing the whole round trip.
using HostMatmulFn = void (*)(const float* A, const float* B, float* C, int M, int N, int K);
// Calls it with A and B in ordinary host memory and C in page-locked host memory filled with NaN; the Run's C is
// what C holds when it returns. On the emulator it also lists the device memory the function allocated.
Run run_host_flow(const Problem& p, HostMatmulFn fn);

struct Verdict {
    bool ok = true;
    std::string message;  // empty when ok
    // The check that failed ("" when ok): "correctness", "reads", "written once", "coalescing", "tensor cores", "memory safety" or
    // "host flow" (lab 1's device buffers). A check that is only judged for a correct kernel names "correctness"
    // when the kernel's results are wrong.
    std::string check;
};

Verdict check_result(const Problem& p, const Run& run);
// Why element i of C holds a NaN, for a student: never written, or a NaN the kernel computed (" — ..."; "" when the
// element is not NaN).
std::string nan_hint(const Run& run, size_t i);
// How many of a float's mantissa bits the lab's kernels multiply with (its lab.h's INPUT_MANTISSA_BITS: 23, or
// TF32's 10 for tensor cores); check_result's tolerance follows it. lab_tests.h sets it from lab.h.
void set_input_mantissa_bits(int bits);
// The run must be correct (traffic of a wrong kernel means nothing) and read at most `bytes` from A and B.
Verdict check_reads_at_most(const Problem& p, const Run& run, uint64_t bytes, const std::string& kernel_kind);
// It counts every byte the kernels loaded from global memory: what they read of any buffer but A and B must be 0.
// A kernel that splits K may besides read back its partial sums from a buffer of its own, at most partial_bytes.
Verdict check_reads_at_most_with_partials(const Problem& p, const Run& run, uint64_t bytes, uint64_t partial_bytes,
                                          const std::string& kernel_kind);
// Register reuse (labs 4 and 5): the kernels' shared-memory loads, per multiply-add of a kernel with BM×BN block tiles
// and BK-wide slices of K (every block's BM·BN outputs, each summed over K rounded up to BK), at most
// loads_per_fma_num / loads_per_fma_den floats. Lab 4 reuses one value of B from a register for TM rows: (TM + 1) / TM;
// lab 5 TM values of A and TN of B for a TM×TN tile: (TM + TN) / (TM·TN). `reuse` says what the bound expects.
Verdict check_shared_loads_per_fma(const Problem& p, const Run& run, int BM, int BN, int BK, int loads_per_fma_num,
                                   int loads_per_fma_den, const std::string& reuse);
// Bank conflicts (labs 5, 6 and 8; run_matmul_counting_requests): the shared-memory wavefronts of the kernels' loads,
// per warp-wide multiply-add (32 of a thread's; counted as check_shared_loads_per_fma counts them, or, for a kernel
// of mma_m16n8k8_tf32 calls, 1024 per call: those it did, whatever its tile), at most
// num / den: what `layout` (the lab's shared-memory layout and loads) takes. A failure lists each source line's
// wavefronts per request; `advice` says what the layout's loads take.
Verdict check_shared_wavefronts_per_fma(const Problem& p, const Run& run, int BM, int BN, int BK, int num, int den,
                                        const std::string& layout, const std::string& advice);
// The next slice in flight (lab 6's double buffering): no launch meets more than ceil(K/BK) + 1 block-wide barriers
// per block (one per slice, and one before the first), where a kernel that loads a slice, waits, computes and waits
// again meets two per slice.
Verdict check_one_barrier_per_slice(const Problem& p, const Run& run, int BK);
// The product done on the device (labs 1 to 6): the kernels executed at least its 2·M·N·K FLOPs in float
// arithmetic (fma, mul, add) on the CUDA cores. Fewer means some of the multiply happened elsewhere: on the host,
// in double, or not at all.
Verdict check_fp32_flops(const Problem& p, const Run& run);
// Tensor cores (lab 7): the kernels' mma_sync calls did at least the 2·M·N·K FLOPs of the product, and at least 99 %
// of all the FLOPs the kernels executed (so the CUDA cores did not do it as well), on inputs rounded to TF32
// (__float_to_tf32), not left for the tensor cores to truncate.
Verdict check_tensor_cores(const Problem& p, const Run& run);
// Below WMMA (lab 8): the same of the kernels' mma_m16n8k8_tf32 calls (<mma_ptx.h>; wmma::mma_sync does not count),
// inputs rounded with cvt_rna_tf32, and the A fragments loaded by ldmatrix: it read at least the shared bytes that
// those calls' A fragments take, each 16×8 fragment (512 bytes) serving the multiply-adds of a warp tile up to 2·WN
// wide (2·WN/8 of them). A kernel that loads A element by element, or uses ldmatrix for B only, reads less.
Verdict check_mma_sync_ldmatrix(const Problem& p, const Run& run, int WN);
// Every element of C stored exactly once, by kernel code, and nothing else stored.
Verdict check_written_once(const Problem& p, const Run& run);
// Coalescing: the 32-byte sectors the kernel's warps took per byte they loaded from A and B and stored to C, each
// at most twice what `taught` (the lab's mapping of threads to elements) takes on this problem; a failure names the
// worst source line. Per byte, so that a kernel that moves more bytes (an untiled one in a tiled lab) is judged by
// how its accesses fall into sectors, not by how many it makes (the byte limits judge those).
struct Sectors {
    uint64_t A = 0, B = 0, C = 0;
    uint64_t A_bytes = 0, B_bytes = 0, C_bytes = 0;  // the bytes the mapping's lanes load and store, each lane's own
};
// `advice` follows a failure: what to change.
Verdict check_coalesced(const Problem& p, const Run& run, const Sectors& taught, const std::string& mapping,
                        const std::string& advice =
                            "the 32 lanes of a warp are consecutive threadIdx.x: give them "
                            "consecutive addresses (adjacent columns of a row), so that a "
                            "warp's access falls in few sectors");
// The advice of labs 5 and 6, whose float4 path moves four neighbouring floats with one instruction.
inline constexpr const char* kFloat4Advice =
    "where K and N are multiples of 4, load and store four neighbouring floats of a row as one float4, a warp's lanes "
    "on consecutive float4s, so that each request uses whole sectors";
// The sectors of the naive mapping (one thread per element of C, col from x, row from y) with blocks of `block`
// threads: what lab 1 teaches. Each warp's loads of A[row][k] and B[k][col] for every k, and its store of C.
Sectors naive_mapping_sectors(const Problem& p, dim3 block);
// The sectors of a kernel with BM×BN block tiles and BK-wide slices of K that loads each row of a tile, and stores
// each row of its C tile, with consecutive lanes (what labs 2 to 6 teach): for every block and phase, the sectors
// each tile row's in-bounds part spans.
Sectors tile_mapping_sectors(const Problem& p, int BM, int BN, int BK);
// No out-of-bounds access, race, divergent barrier or uninitialised shared read.
Verdict check_clean(const Problem& p, const Run& run);
// run_host_flow's function checked every CUDA call, sized each device buffer in bytes, freed every one, and was clean.
Verdict check_host_flow_clean(const Problem& p, const Run& run);

std::string with_commas(uint64_t n);  // 64704 -> "64,704"

// What the test case running now found, for its verdict record (doctest_main.cpp writes it when the case ends and
// starts a new one when the next case starts): every run adds its findings, and lab_tests.h's expect() the check of
// each verdict that failed; each once.
struct CaseRecord {
    std::vector<Finding> findings;           // in the order found; none where no emulator runs (a GPU build)
    std::vector<std::string> failed_checks;  // in the order they failed: Verdict::check
    void add_finding(const Finding& f);
    void add_failed_check(const std::string& check);
};
CaseRecord& case_record();
