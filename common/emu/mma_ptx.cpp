// mma_ptx.cpp — the PTX instructions of common/mma_ptx.h (include/cudaemu_mma_ptx.h): mma.sync.m16n8k8 with TF32
// inputs and ldmatrix, each the instruction's documented semantics (PTX ISA, "Warp-level matrix instructions").
//
// Both are warp collectives, as the warp matrix functions are (wmma.cpp): every lane of the warp must reach the same
// call, at the same line (warp.cpp reports the lanes that do not); the last lane to arrive computes every lane's
// registers. With g = lane / 4 and t = lane % 4, the lane maps are the PTX ISA's:
//   mma_m16n8k8_tf32: A (16×8, row) a[i] = A[g + 8(i % 2)][t + 4(i / 2)]; B (8×8, col) b[i] = B[t + 4i][g];
//                     C and D (16×8) c[i] = C[g + 8(i / 2)][2t + i % 2].
//   ldmatrix: lanes 8m to 8m + 7 give the addresses of rows 0 to 7 of matrix m (x4: four matrices, lanes 0-31; x2:
//             two, lanes 0-15; the other lanes' addresses are not used); each row is 8 16-bit elements, 16 bytes of
//             shared memory, 16-byte aligned. r[m] of a lane is row g of matrix m, elements 2t and 2t + 1 (the lower
//             16 bits the first).
// Each row address is checked in the lane that gave it, at the caller's line: in shared memory (the instruction
// reads the shared space only; misaligned or outside it ends the block, as a GPU faults) and then read by that lane
// as one counted, checked 16-byte shared load, so that ldmatrix's requests and wavefronts are those of a warp whose
// lanes each load 16 bytes (8 lanes a wavefront when their rows fall in different banks).
// The arithmetic is tensor_math.h's tf32_dot, an H100's bits (tools/mma-agreement): inputs truncated to TF32,
// exact products, each output's 8 products and C aligned together and rounded once toward zero. Its 2·16·8·8 FLOPs
// count as TF32 tensor FLOPs.
#include <cstdio>
#include <cstring>
#include <string>

#include "checks.h"
#include "include/cudaemu_mma_ptx.h"
#include "include/mma.h"
#include "scheduler.h"
#include "symbols.h"
#include "tensor_math.h"
#include "warp.h"

namespace cudaemu {
namespace {

constexpr int kM = 16, kN = 8, kK = 8;  // mma.sync.m16n8k8
constexpr size_t kRowBytes = 16;        // an ldmatrix row: 8 elements of 16 bits

// What one lane passes to a collective (Collective::in points to it).
struct PtxCall {
    const uint32_t *a = nullptr, *b = nullptr;  // mma: this lane's registers
    const float* c = nullptr;
    float* d = nullptr;
    int matrices = 0;  // ldmatrix: 4 (x4) or 2 (x2)
    const void* row = nullptr;
    uint32_t* r = nullptr;
};

const char* call_name(int op) { return op == kPtxMma ? "mma_m16n8k8_tf32" : "ldmatrix"; }

Fiber& lane_fiber(Worker& w, uint32_t warp, uint32_t lane) { return w.fibers[warp * 32 + lane]; }
const PtxCall& call_of(Worker& w, uint32_t warp, uint32_t lane) {
    return *static_cast<const PtxCall*>(lane_fiber(w, warp, lane).collective->in);
}

float as_float(uint32_t bits) {
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

// Whether an ldmatrix row lies in shared memory, 16-byte aligned, so that it can be read.
bool row_readable(const Worker& w, const void* row) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(row);
    return a % kRowBytes == 0 && a - w.shared_lo < w.shared_size && a - w.shared_lo + kRowBytes <= w.shared_size;
}

// D = A·B + C for the lanes that take part (an absent lane's registers count as zero).
void multiply(Worker& w, uint32_t warp, uint32_t lanes) {
    float A[kM][kK] = {}, B[kK][kN] = {}, C[kM][kN] = {};
    w.tensor_flops += 2ull * kM * kN * kK;
    w.tensor_flops_by_type[kWmmaTf32] += 2ull * kM * kN * kK;
    w.ptx_mma_flops += 2ull * kM * kN * kK;
    for (uint32_t m = lanes; m; m &= m - 1) {
        const int lane = __builtin_ctz(m), g = lane >> 2, t = lane & 3;
        const PtxCall& call = call_of(w, warp, lane);
        const uint64_t a = unrounded(call.a, 4);
        w.tf32_unrounded_inputs += a + unrounded(call.b, 2), w.tf32_unrounded_a_inputs += a;
        for (int i = 0; i < 4; ++i) A[g + 8 * (i & 1)][t + 4 * (i >> 1)] = tf32_input(as_float(call.a[i]));
        for (int i = 0; i < 2; ++i) B[t + 4 * i][g] = tf32_input(as_float(call.b[i]));
        for (int i = 0; i < 4; ++i) C[g + 8 * (i >> 1)][2 * t + (i & 1)] = call.c[i];
    }
    float D[kM][kN], column[kK];
    for (int j = 0; j < kN; ++j) {
        for (int k = 0; k < kK; ++k) column[k] = B[k][j];
        for (int i = 0; i < kM; ++i) D[i][j] = tf32_dot(C[i][j], A[i], column, kK);
    }
    for (uint32_t m = lanes; m; m &= m - 1) {  // after every C was read: d and c may be the same registers
        const int lane = __builtin_ctz(m), g = lane >> 2, t = lane & 3;
        for (int i = 0; i < 4; ++i) call_of(w, warp, lane).d[i] = D[g + 8 * (i >> 1)][2 * t + (i & 1)];
    }
}

// Every lane's registers: r[m] of lane l is row l / 4 of matrix m, whose address lane 8m + l / 4 gave. A row that
// cannot be read (its lane reports why, once it runs again) or that an absent lane should have given reads as zero.
void load_matrices(Worker& w, uint32_t warp, uint32_t lanes) {
    const int matrices = call_of(w, warp, __builtin_ctz(lanes)).matrices;
    for (uint32_t m = lanes; m; m &= m - 1) {
        const int lane = __builtin_ctz(m), g = lane >> 2, t = lane & 3;
        uint32_t* r = call_of(w, warp, lane).r;
        for (int i = 0; i < matrices; ++i) {
            const uint32_t giver = 8 * i + g;
            r[i] = 0;
            if (!(lanes >> giver & 1)) continue;
            const void* row = call_of(w, warp, giver).row;
            if (row_readable(w, row)) memcpy(&r[i], static_cast<const char*>(row) + 4 * t, 4);
        }
    }
}

// Calls from outside a kernel: nvcc refuses them (they are device functions); here they do nothing.
bool in_kernel(const char* what, const char* file, int line) {
    Worker* w = tls_worker;
    if (w && w->current) return true;
    fprintf(stderr, "cudaemu: %s called from host code at %s:%d: it is a device function; ignored\n", what, file, line);
    return false;
}

void meet(int op, PtxCall& call, const char* file, int line) {
    Collective c;
    c.op = op, c.mask = ~0u, c.in = &call, c.file = file, c.line = line;
    warp_arrive(c);
}

// An ldmatrix row, checked in the lane that gave it: the shared space, then 16-byte alignment (PTX ISA, ldmatrix).
void check_row(Worker& w, const void* row, const char* what, uintptr_t pc) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(row);
    const std::string who = " at %1 by " + thread_name(w, w.current->linear) + ": ";
    if (a - w.shared_lo >= w.shared_size) {
        add_diag(w, DiagKind::kOutOfBounds, w.current->linear, pc, 0,
                 std::string(what) + who +
                     "the row address this lane gives is not in shared memory (ldmatrix reads the shared space "
                     "only: pass the address of an element of a __shared__ array)");
        abort_block(w, cudaErrorIllegalAddress);
    }
    if (a % kRowBytes) {
        add_diag(w, DiagKind::kMisaligned, w.current->linear, pc, 0,
                 std::string(what) + who + "the row this lane gives must be 16-byte aligned, and it is " +
                     std::to_string(a % kRowBytes) +
                     " bytes past a multiple of 16 (PTX ISA, ldmatrix: each row of 8 16-bit elements is 16 "
                     "contiguous, aligned bytes)");
        abort_block(w, cudaErrorMisalignedAddress);
    }
}

}  // namespace

// Called by the last lane to arrive (warp.cpp): lanes that call at another line or with another count of matrices,
// a partial warp, then the instruction itself.
void ptx_compute(Worker& w, uint32_t warp, uint32_t lanes, int op) {
    const uint32_t first = __builtin_ctz(lanes);
    const Collective& c0 = *lane_fiber(w, warp, first).collective;
    const uintptr_t pc = site_pc(c0.file, c0.line);
    const std::string who = "warp " + std::to_string(warp) + " of block " + coord(w.block_idx);
    const uint32_t present = existing_lanes(w, warp);
    if (present != ~0u)
        add_diag(w, DiagKind::kWarp, warp * 32 + first, pc, 5,
                 std::string(call_name(op)) + " at %1 by " + who + ", which has only " +
                     std::to_string(__builtin_popcount(present)) + " threads (the block has " +
                     std::to_string(w.launch->threads_per_block) +
                     "): every lane of a warp must take part — on a GPU the result is undefined; here the missing "
                     "lanes' registers are zero");
    for (uint32_t m = lanes & (lanes - 1); m; m &= m - 1) {
        const uint32_t lane = __builtin_ctz(m);
        const Collective& c = *lane_fiber(w, warp, lane).collective;
        if (c.file == c0.file && c.line == c0.line) continue;
        add_diag(w, DiagKind::kWarp, warp * 32 + lane, pc, site_pc(c.file, c.line),
                 std::string(call_name(op)) + " at %1 by " + who + ": lane " + std::to_string(lane) +
                     " calls it at %2 — every lane of the warp must execute the same instruction (undefined on a "
                     "GPU); here they meet as one");
        break;
    }
    if (op == kPtxMma)
        multiply(w, warp, lanes);
    else
        load_matrices(w, warp, lanes);
}

void ptx_mma_m16n8k8_tf32(float* d, const uint32_t* a, const uint32_t* b, const float* c, const char* file, int line) {
    if (!in_kernel("mma_m16n8k8_tf32", file, line)) return;
    PtxCall call;
    call.a = a, call.b = b, call.c = c, call.d = d;
    meet(kPtxMma, call, file, line);
}

void ptx_ldmatrix(uint32_t* r, int matrices, const void* row, const char* file, int line) {
    const char* what = matrices == 4 ? "ldmatrix_x4" : "ldmatrix_x2";
    if (!in_kernel(what, file, line)) return;
    PtxCall call;
    call.matrices = matrices, call.row = row, call.r = r;
    meet(kPtxLdmatrix, call, file, line);
    Worker& w = *tls_worker;
    const uint32_t lane = w.current->linear & 31;
    if (lane >= 8u * matrices) return;  // this lane's address is not used
    const uintptr_t pc = site_pc(file, line);
    check_row(w, row, what, pc);
    w.ldmatrix_bytes += kRowBytes;
    device_access(reinterpret_cast<uintptr_t>(row), kRowBytes, false, pc, kRowBytes);
}

}  // namespace cudaemu
