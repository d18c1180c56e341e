// Known WRONG: lane 31 of the warp skips an mma_m16n8k8_tf32 (common/mma_ptx.h) the other lanes make, and exits.
// mma.sync is a .aligned warp instruction: every lane of the warp must execute the same one, or the result is
// undefined on a GPU. The emulator reports the call and the lane that never reached it (kind warp), computes the
// product with that lane's registers as zero, and the launch goes on (cudaSuccess).
//
// Build: nvcc -arch=sm_90 -o error_mma_sync_lane_skips tests/emu/programs/error_mma_sync_lane_skips.cu

#include <cstdint>

#include "../../../common/mma_ptx.h"
#include "program.h"

__global__ void skip_kernel(const float* A, float* D) {
    const int lane = threadIdx.x;
    uint32_t a[4], b[2];
    for (int i = 0; i < 4; ++i) a[i] = cvt_rna_tf32(A[lane * 4 + i]);
    for (int i = 0; i < 2; ++i) b[i] = cvt_rna_tf32(1.0f);
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (lane != 31) mma_m16n8k8_tf32(d, a, b, d);  // BUG: lane 31 does not take part
    for (int i = 0; i < 4; ++i) D[lane * 4 + i] = d[i];
}

int main() {
    float *d_A = nullptr, *d_D = nullptr;
    CHECK(cudaMalloc(&d_A, 32 * 4 * sizeof(float)));
    CHECK(cudaMalloc(&d_D, 32 * 4 * sizeof(float)));
    CHECK(cudaMemset(d_A, 0, 32 * 4 * sizeof(float)));
    skip_kernel<<<1, 32>>>(d_A, d_D);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(32 * 4);
    print_error("memcpy", cudaMemcpy(out.data(), d_D, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
