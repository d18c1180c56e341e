// cvt_rna_tf32 (common/mma_ptx.h) against the two-instruction integer rounding lab 8's reference uses,
// (bits + 0x1000) & 0xffffe000, on finite floats, the infinities and NaNs of several payloads, so that a GPU and
// the CPU emulator print the same lines (tests/emu/gpu_check.sh tf32_rounding_specials). docs/lab8-mma.md says the
// two agree on every finite float and on the infinities, and that only cvt_rna_tf32 keeps every NaN a NaN: the
// integer form wraps 0x7fffffff to -0 and turns a NaN whose payload lies in the 12 low bits into an infinity.
// A NaN that cvt_rna_tf32 returns is printed as `nan`, whatever its payload.
//
// Build: nvcc -arch=sm_90 -o tf32_rounding_specials tests/emu/programs/tf32_rounding_specials.cu

#include <cstdint>
#include <cstring>

#include "../../../common/mma_ptx.h"
#include "program.h"

__global__ void round_kernel(const uint32_t* in, uint32_t* cvt, uint32_t* integer, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        cvt[i] = cvt_rna_tf32(__uint_as_float(in[i]));
        integer[i] = (in[i] + 0x1000u) & 0xffffe000u;
    }
}

bool is_nan(uint32_t bits) { return (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0; }

int main() {
    // 1 + half of TF32's step (a tie: away from zero), just below and above it, its negative, a large and a small
    // number; +inf and -inf; NaNs: 0/0 on a GPU, the canonical quiet NaN, payloads in the 12 low bits only, one
    // just above them, and the negative NaN with every bit set
    const std::vector<uint32_t> in = {0x3f801000u, 0x3f800fffu, 0x3f801001u, 0xbf801000u, 0x4b7fffffu, 0x00800fffu,
                                      0x7f800000u, 0xff800000u, 0x7fffffffu, 0x7fc00000u, 0x7f800001u, 0x7f800fffu,
                                      0x7f801000u, 0xffffffffu};
    const int n = static_cast<int>(in.size());
    uint32_t *d_in = nullptr, *d_cvt = nullptr, *d_integer = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(uint32_t)));
    CHECK(cudaMalloc(&d_cvt, n * sizeof(uint32_t)));
    CHECK(cudaMalloc(&d_integer, n * sizeof(uint32_t)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    round_kernel<<<1, 32>>>(d_in, d_cvt, d_integer, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> cvt(n), integer(n);
    CHECK(cudaMemcpy(cvt.data(), d_cvt, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(integer.data(), d_integer, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    int finite_or_inf_differ = 0, nan_kept = 0, nans = 0;
    for (int i = 0; i < n; ++i) {
        char shown[16];
        if (is_nan(cvt[i])) {
            std::strcpy(shown, "nan");
        } else {
            std::snprintf(shown, sizeof shown, "%08x", cvt[i]);
        }
        std::printf("round_%08x: cvt_rna_tf32 %s, integer form %08x%s\n", in[i], shown, integer[i],
                    is_nan(integer[i]) ? " (nan)" : "");
        if (is_nan(in[i])) {
            ++nans;
            nan_kept += is_nan(cvt[i]);
        } else {
            finite_or_inf_differ += cvt[i] != integer[i];
        }
    }
    std::printf("finite_and_infinite_inputs_where_the_two_differ: %d\n", finite_or_inf_differ);
    std::printf("nans_cvt_rna_tf32_keeps_nan: %d of %d\n", nan_kept, nans);
    for (uint32_t* p : {d_in, d_cvt, d_integer}) CHECK(cudaFree(p));
    return 0;
}
