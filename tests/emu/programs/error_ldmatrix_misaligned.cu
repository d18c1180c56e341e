// Known WRONG: an ldmatrix_x4 (common/mma_ptx.h) whose rows start 4 bytes past a 16-byte boundary. Each row of an
// ldmatrix is 8 16-bit elements, 16 contiguous bytes of shared memory, and must be 16-byte aligned (PTX ISA,
// ldmatrix): a GPU faults with a misaligned address. The emulator reports the call's line and the lane's offset
// (kind misaligned) and ends the launch with cudaErrorMisalignedAddress.
//
// Build: nvcc -arch=sm_90 -o error_ldmatrix_misaligned tests/emu/programs/error_ldmatrix_misaligned.cu

#include <cstdint>

#include "../../../common/mma_ptx.h"
#include "program.h"

__global__ void misaligned_kernel(uint32_t* out) {
    __shared__ alignas(16) float tile[32][5];  // rows of 20 bytes
    const int lane = threadIdx.x;
    for (int i = lane; i < 32 * 5; i += 32) tile[i / 5][i % 5] = static_cast<float>(i);
    __syncthreads();
    uint32_t r[4];
    ldmatrix_x4(r, &tile[lane][1]);  // BUG: row `lane` starts 20·lane + 4 bytes in, never a multiple of 16
    for (int i = 0; i < 4; ++i) out[lane * 4 + i] = r[i];
}

int main() {
    uint32_t* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, 32 * 4 * sizeof(uint32_t)));
    misaligned_kernel<<<1, 32>>>(d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<uint32_t> out(32 * 4);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, out.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
