// Shifts by a variable amount up to and past the type's width, 32-bit and 64-bit, left and right, signed and
// unsigned. A shift by the width or more is undefined in C++; PTX's shl and shr clamp the amount, so on a GPU
// 1u << 32 is 0 and -1234567 >> 40 is -1, where an x86 CPU takes the amount modulo the width.
//
// Build: nvcc -arch=sm_90 -o integer_shifts tests/emu/programs/integer_shifts.cu

#include "program.h"

__global__ void shift_kernel(const int* amounts, int n, unsigned* out, long long* out64) {
    const int i = threadIdx.x;
    if (i >= n) return;
    const unsigned sh = static_cast<unsigned>(amounts[i]);
    const int x = -1234567;
    const unsigned ux = 0x80000001u;
    const long long lx = -123456789012345LL;
    const unsigned long long ulx = 0x8000000000000001ULL;
    out[4 * i + 0] = ux << sh;
    out[4 * i + 1] = ux >> sh;
    out[4 * i + 2] = static_cast<unsigned>(x >> sh);
    out[4 * i + 3] = static_cast<unsigned>(x << sh);
    out64[3 * i + 0] = static_cast<long long>(ulx << sh);
    out64[3 * i + 1] = static_cast<long long>(ulx >> sh);
    out64[3 * i + 2] = lx >> sh;
}

int main() {
    const int amounts[] = {0, 1, 31, 32, 33, 63, 64, 65, 255, 256, -1};
    constexpr int N = sizeof amounts / sizeof amounts[0];
    int* d_amounts = nullptr;
    unsigned* d_out = nullptr;
    long long* d_out64 = nullptr;
    CHECK(cudaMalloc(&d_amounts, sizeof amounts));
    CHECK(cudaMalloc(&d_out, 4 * N * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_out64, 3 * N * sizeof(long long)));
    CHECK(cudaMemcpy(d_amounts, amounts, sizeof amounts, cudaMemcpyHostToDevice));
    shift_kernel<<<1, 32>>>(d_amounts, N, d_out, d_out64);
    unsigned out[4 * N];
    long long out64[3 * N];
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(out64, d_out64, sizeof out64, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i)
        std::printf("shift %d: %x %x %x %x | %llx %llx %llx\n", amounts[i], out[4 * i], out[4 * i + 1],
                    out[4 * i + 2], out[4 * i + 3], static_cast<unsigned long long>(out64[3 * i]),
                    static_cast<unsigned long long>(out64[3 * i + 1]),
                    static_cast<unsigned long long>(out64[3 * i + 2]));
    return 0;
}
