// wmma.cpp — the warp matrix functions of <mma.h> (include/mma.h): which elements each lane holds, the warp
// collectives, and the tensor cores' arithmetic.
//
// Which element of the matrix x[i] of lane l holds (element_at) is what an H100 gives; tests/emu/programs/
// wmma_layout.cu prints every map on both. With g = l / 4 and t = l % 4, the maps are those of the mma.sync
// instructions the WMMA calls become: an m16n16k8 TF32 A fragment holds rows g and g + 8, columns t and t + 4; the
// 16-bit ones hold pairs of consecutive elements (columns 2t and 2t + 1 of A, rows 2t and 2t + 1 of B). A half
// fragment holds every element twice (x[i + 8] is x[i] at m16n16k16): the first copy is the one mma_sync reads and
// load_matrix_sync loads; the copy is set from it.
//
// load_matrix_sync and store_matrix_sync: the warp's lanes meet (warp.cpp: each call is a collective of the whole
// warp; the last lane to arrive checks that all passed the same pointer, ldm and layout), then each lane loads or
// stores its own elements with counted, checked accesses at the caller's line, as the GPU's lanes do.
// mma_sync: the last lane to arrive gathers A, B and C from the lanes' fragments, computes D and gives each lane its
// elements.
//
// The arithmetic (measured on an H100 with random inputs: docs/emulator.md, "Tensor cores"): TF32 inputs keep the
// top 10 bits of their mantissa (a float that was not converted with __float_to_tf32 is truncated); every product is
// exact. TF32: nvcc makes an m16n16k8 of four k = 4 instructions, and each output adds its 4 consecutive k at a
// time to the sum so far with tensor_math.h's tf32_dot (the rule of mma.sync's one k = 8 instruction), the H100's
// bits on every output of tools/wmma-agreement's TF32 cases. Half and bfloat16: the 16 products of one mma and the
// accumulator aligned to the largest exponent among them, bits more than 25 places below it dropped, the sum taken
// exactly and rounded toward zero to a float: the H100's bits for about 97 % of half outputs (99.8 % of bfloat16);
// the others differ in the last place.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "checks.h"
#include "include/mma.h"
#include "scheduler.h"
#include "symbols.h"
#include "tensor_math.h"
#include "warp.h"

namespace cudaemu {
namespace {

// What one lane passes to a collective (Collective::in points to it).
struct WmmaCall {
    const WmmaShape* shape = nullptr;  // load, store: the fragment; mma: A's
    const WmmaShape* b_shape = nullptr;
    const void* p = nullptr;  // load, store: the matrix in memory
    unsigned ldm = 0;
    int layout = 0;
    const void *a = nullptr, *b = nullptr;  // mma: this lane's fragments
    const float* c = nullptr;
    float* d = nullptr;
    bool satf = false;
};

bool is_16bit(int type) { return type == kWmmaHalf || type == kWmmaBf16; }
size_t element_bytes(int type) { return is_16bit(type) ? 2 : 4; }

// How many different elements a fragment holds: a half fragment holds each twice or four times (bfloat16's counts
// are the different ones).
int distinct_elements(const WmmaShape& s) {
    if (s.use == kWmmaAccumulator || s.type == kWmmaTf32) return s.count;
    if (s.m == 16) return 8;
    const bool tall = s.m == 32;  // m32n8k16: A is 32×16, B 16×8; m8n32k16: A is 8×16, B 16×32
    return (s.use == kWmmaA) == tall ? 16 : 4;
}

// The element (row r, column c) that x[i] of `lane` holds.
void element_at(const WmmaShape& s, int lane, int i, int* r, int* c) {
    const int g = lane >> 2, t = lane & 3, j = i % distinct_elements(s);
    if (s.use == kWmmaAccumulator) {
        if (s.m == 32) {
            *r = g + 8 * (j >> 1), *c = 2 * t + (j & 1);
        } else if (s.m == 8) {
            *r = 2 * t + (j & 1), *c = g + 8 * (j >> 1);
        } else {
            *r = g + 8 * ((j >> 1) & 1), *c = 2 * t + (j & 1) + 8 * (j >> 2);
        }
    } else if (s.type == kWmmaTf32) {
        if (s.use == kWmmaA)
            *r = g + 8 * (j & 1), *c = t + 4 * (j >> 1);
        else
            *r = t + 4 * (j & 1), *c = g + 8 * (j >> 1);
    } else if (s.use == kWmmaA) {
        if (s.m == 8)
            *r = g, *c = 2 * t + (j & 1) + 8 * (j >> 1);
        else
            *r = g + 8 * ((j >> 1) & 1) + 16 * (j >> 3), *c = 2 * t + (j & 1) + 8 * ((j >> 2) & 1);
    } else {
        if (s.m == 8)
            *r = 2 * t + (j & 1) + 8 * ((j >> 2) & 1), *c = g + 8 * ((j >> 1) & 1) + 16 * (j >> 3);
        else
            *r = 2 * t + (j & 1) + 8 * ((j >> 1) & 1), *c = g + 8 * (j >> 2);
    }
}

const char* type_name(const WmmaShape& s) {
    switch (s.type) {
        case kWmmaTf32:
            return "float (TF32)";
        case kWmmaHalf:
            return "__half";
        case kWmmaBf16:
            return "__nv_bfloat16";
    }
    return "float";
}

// The CUDA programming guide's rules for a load or store: a 256-bit aligned pointer, ldm a multiple of 16 bytes.
// An error here (the block ends, as for any misaligned access); an H100 faults only for some (docs/emulator.md).
void check_alignment(Worker& w, const WmmaShape& s, const void* p, unsigned ldm, const char* what, uintptr_t pc) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const size_t bytes = element_bytes(s.type), per_16 = 16 / bytes;
    std::string why;
    if (a % 32)
        why = "its pointer must be 256-bit (32-byte) aligned, and it is " + std::to_string(a % 32) +
              " bytes past a multiple of 32";
    else if (ldm % per_16)
        why = "ldm must be a multiple of 16 bytes (" + std::to_string(per_16) + " elements of " + type_name(s) +
              "), and it is " + std::to_string(ldm);
    else
        return;
    add_diag(w, DiagKind::kMisaligned, w.current->linear, pc, 0,
             std::string("misaligned wmma::") + what + " at %1 by " + thread_name(w, w.current->linear) + ": " + why +
                 " (CUDA programming guide, warp matrix functions)");
    abort_block(w, cudaErrorMisalignedAddress);
}

// The byte offset of element (r, c) in a matrix of leading dimension ldm.
size_t offset_of(int r, int c, unsigned ldm, int layout, size_t bytes) {
    return (layout == kWmmaColMajor ? size_t(c) * ldm + r : size_t(r) * ldm + c) * bytes;
}

float input_value(const WmmaShape& s, const void* x, int i) {
    if (s.type == kWmmaTf32) return tf32_input(static_cast<const float*>(x)[i]);
    if (s.type == kWmmaHalf) return float(static_cast<const __half*>(x)[i]);
    return float(static_cast<const __nv_bfloat16*>(x)[i]);
}

Fiber& lane_fiber(Worker& w, uint32_t warp, uint32_t lane) { return w.fibers[warp * 32 + lane]; }
const WmmaCall& call_of(Worker& w, uint32_t warp, uint32_t lane) {
    return *static_cast<const WmmaCall*>(lane_fiber(w, warp, lane).collective->in);
}

// D = A·B + C for the lanes that take part (an absent lane's elements count as zero).
void multiply(Worker& w, uint32_t warp, uint32_t lanes) {
    const WmmaCall& first = call_of(w, warp, __builtin_ctz(lanes));
    const WmmaShape &as = *first.shape, &bs = *first.b_shape;
    const WmmaShape cs{kWmmaAccumulator, as.m, as.n, as.k, kWmmaFloat, 0, 8};
    const int M = as.m, N = as.n, K = as.k;
    float A[32 * 16] = {}, B[16 * 32] = {}, C[32 * 32] = {};
    w.tensor_flops += 2ull * M * N * K;
    if (as.type < 3) w.tensor_flops_by_type[as.type] += 2ull * M * N * K;
    for (uint32_t m = lanes; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        const WmmaCall& call = call_of(w, warp, lane);
        int r, c;
        if (as.type == kWmmaTf32) {
            const uint64_t a = unrounded(call.a, distinct_elements(as));
            w.tf32_unrounded_inputs += a, w.tf32_unrounded_a_inputs += a;
        }
        if (bs.type == kWmmaTf32) w.tf32_unrounded_inputs += unrounded(call.b, distinct_elements(bs));
        for (int i = 0; i < distinct_elements(as); ++i) {
            element_at(as, lane, i, &r, &c);
            A[r * K + c] = input_value(as, call.a, i);
        }
        for (int i = 0; i < distinct_elements(bs); ++i) {
            element_at(bs, lane, i, &r, &c);
            B[r * N + c] = input_value(bs, call.b, i);
        }
        for (int i = 0; i < 8; ++i) {
            element_at(cs, lane, i, &r, &c);
            C[r * N + c] = call.c[i];
        }
    }
    float D[32 * 32];
    double products[16];
    float column[16];
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float acc = C[i * N + j];
            if (as.type == kWmmaTf32) {  // four k = 4 instructions: each adds its 4 products to the last one's sum
                for (int k = 0; k < K; ++k) column[k] = B[k * N + j];
                for (int k0 = 0; k0 < K; k0 += 4) acc = tf32_dot(acc, &A[i * K + k0], &column[k0], 4);
            } else {
                for (int k = 0; k < K; ++k) products[k] = static_cast<double>(A[i * K + k]) * B[k * N + j];
                acc = add_group(acc, products, K);
            }
            D[i * N + j] = acc;
        }
    for (uint32_t m = lanes; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        const WmmaCall& call = call_of(w, warp, lane);
        for (int i = 0; i < 8; ++i) {
            int r, c;
            element_at(cs, lane, i, &r, &c);
            float v = D[r * N + c];
            if (call.satf) v = std::isnan(v) ? 0.0f : std::fmax(-3.402823466e38f, std::fmin(v, 3.402823466e38f));
            call.d[i] = v;
        }
    }
}

const char* call_name(int op) {
    return op == kWmmaLoad ? "load_matrix_sync" : op == kWmmaStore ? "store_matrix_sync" : "mma_sync";
}

// Calls from outside a kernel: nvcc refuses them (they are device functions); here they do nothing.
bool in_kernel(const char* what, const char* file, int line) {
    Worker* w = tls_worker;
    if (w && w->current) return true;
    fprintf(stderr, "cudaemu: wmma::%s called from host code at %s:%d: it is a device function; ignored\n", what, file,
            line);
    return false;
}

void meet(int op, WmmaCall& call, const char* file, int line) {
    Collective c;
    c.op = op, c.mask = ~0u, c.in = &call, c.file = file, c.line = line;
    warp_arrive(c);
}

// A load or store's start: the warp meets, then this lane checks the guide's alignment rules. Gives the lane's number
// and the call's stand-in pc; false outside a kernel.
bool start_access(int op, const WmmaShape& s, const void* p, unsigned ldm, int layout, const char* file, int line,
                  int* lane, uintptr_t* pc) {
    if (!in_kernel(call_name(op), file, line)) return false;
    WmmaCall call;
    call.shape = &s, call.p = p, call.ldm = ldm, call.layout = layout;
    meet(op, call, file, line);
    Worker& w = *tls_worker;
    *pc = site_pc(file, line);
    check_alignment(w, s, p, ldm, call_name(op), *pc);
    *lane = static_cast<int>(w.current->linear & 31);
    const uintptr_t at = reinterpret_cast<uintptr_t>(p);
    if (*lane == 0 && at - w.shared_lo < w.shared_size && !w.fragment_sites.count(*pc))
        w.fragment_sites.emplace(*pc, "wmma::" + std::string(call_name(op)) + " with ldm " + std::to_string(ldm) +
                                          (layout == kWmmaColMajor ? ", col_major" : ", row_major"));
    return true;
}

}  // namespace

// Called by the last lane to arrive (warp.cpp): arguments that differ between lanes, lanes that do not take part,
// and mma_sync's product.
void wmma_compute(Worker& w, uint32_t warp, uint32_t lanes, int op) {
    const uint32_t first = __builtin_ctz(lanes);
    const Collective& c0 = *lane_fiber(w, warp, first).collective;
    const WmmaCall& call0 = call_of(w, warp, first);
    const uintptr_t pc = site_pc(c0.file, c0.line);
    const std::string who = "warp " + std::to_string(warp) + " of block " + coord(w.block_idx);
    const uint32_t present = existing_lanes(w, warp);
    if (present != ~0u)
        add_diag(w, DiagKind::kWarp, warp * 32 + first, pc, 5,
                 "wmma::" + std::string(call_name(op)) + " at %1 by " + who + ", which has only " +
                     std::to_string(__builtin_popcount(present)) + " threads (the block has " +
                     std::to_string(w.launch->threads_per_block) +
                     "): every lane of a warp must take part — on a GPU the result is undefined; here the missing "
                     "lanes' elements are zero");
    for (uint32_t m = lanes & (lanes - 1); m; m &= m - 1) {
        const uint32_t lane = __builtin_ctz(m);
        const Collective& c = *lane_fiber(w, warp, lane).collective;
        const WmmaCall& call = call_of(w, warp, lane);
        std::string differs;
        if (c.file != c0.file || c.line != c0.line)
            differs = "calls it at %2";
        else if (op != kWmmaMma && call.p != call0.p)
            differs = "passes a pointer " +
                      std::to_string(static_cast<const char*>(call.p) - static_cast<const char*>(call0.p)) +
                      " bytes from lane " + std::to_string(first) + "'s";
        else if (op != kWmmaMma && (call.ldm != call0.ldm || call.layout != call0.layout))
            differs = "passes ldm " + std::to_string(call.ldm) + " where lane " + std::to_string(first) + " passes " +
                      std::to_string(call0.ldm) + (call.layout != call0.layout ? ", and another layout" : "");
        if (differs.empty()) continue;
        add_diag(w, DiagKind::kWarp, warp * 32 + lane, pc, site_pc(c.file, c.line),
                 "wmma::" + std::string(call_name(op)) + " at %1 by " + who + ": lane " + std::to_string(lane) + " " +
                     differs +
                     " — every lane of the warp must make the same call with the same arguments (undefined on a "
                     "GPU); here each lane uses its own");
        break;
    }
    if (op == kWmmaMma) multiply(w, warp, lanes);
}

void wmma_load(const WmmaShape& s, void* x, const void* p, unsigned ldm, int layout, const char* file, int line) {
    int lane;
    uintptr_t pc;
    if (!start_access(kWmmaLoad, s, p, ldm, layout, file, line, &lane, &pc)) return;
    const int distinct = distinct_elements(s);
    const size_t bytes = element_bytes(s.type);
    char* out = static_cast<char*>(x);
    for (int i = 0; i < s.count; ++i) {
        if (i >= distinct) {  // a second copy of an element this lane holds
            memcpy(out + i * bytes, out + (i % distinct) * bytes, bytes);
            continue;
        }
        int r, c;
        element_at(s, lane, i, &r, &c);
        const char* from = static_cast<const char*>(p) + offset_of(r, c, ldm, layout, bytes);
        device_access(reinterpret_cast<uintptr_t>(from), bytes, false, pc, bytes);
        memcpy(out + i * bytes, from, bytes);
    }
}

void wmma_store(const WmmaShape& s, const void* x, void* p, unsigned ldm, int layout, const char* file, int line) {
    int lane;
    uintptr_t pc;
    if (!start_access(kWmmaStore, s, p, ldm, layout, file, line, &lane, &pc)) return;
    for (int i = 0; i < s.count; ++i) {
        int r, c;
        element_at(s, lane, i, &r, &c);
        char* to = static_cast<char*>(p) + offset_of(r, c, ldm, layout, 4);
        device_access(reinterpret_cast<uintptr_t>(to), 4, true, pc, 4);
        memcpy(to, static_cast<const float*>(x) + i, 4);
    }
}

void wmma_mma(const WmmaShape& a_shape, const WmmaShape& b_shape, float* d, const void* a, const void* b,
              const float* c, bool satf, const char* file, int line) {
    if (!in_kernel("mma_sync", file, line)) return;
    WmmaCall call;
    call.shape = &a_shape, call.b_shape = &b_shape, call.a = a, call.b = b, call.c = c, call.d = d;
    call.satf = satf;
    meet(kWmmaMma, call, file, line);
}

float wmma_float_to_tf32(float f) {  // cvt.rna.tf32.f32
    uint32_t b;
    memcpy(&b, &f, 4);
    if ((b & 0x7f800000u) != 0x7f800000u) b += 0x1000u;  // a finite float: half of TF32's last place added
    b &= ~0x1fffu;                                       // and the bits below it cleared (of a NaN's too)
    memcpy(&f, &b, 4);
    return f;
}

}  // namespace cudaemu
