// Integer division and remainder by zero and by -1, which trap on an x86 CPU (SIGFPE) and not on a GPU: each of
// 32-bit and 64-bit, signed and unsigned, for dividends around the 32-bit and 64-bit limits. Each line prints one
// dividend's eight results in hex. Division by zero is undefined in C++; these are what an H100 gives for this code.
//
// Build: nvcc -arch=sm_90 -o integer_division tests/emu/programs/integer_division.cu

#include <climits>

#include "program.h"

__global__ void divide_kernel(const long long* a, const long long* b, int n, long long* out) {
    const int i = threadIdx.x;
    if (i >= n) return;
    const long long x = a[i], y = b[i];
    const int xi = static_cast<int>(x), yi = static_cast<int>(y);
    const unsigned xu = static_cast<unsigned>(x), yu = static_cast<unsigned>(y);
    const unsigned long long xl = static_cast<unsigned long long>(x), yl = static_cast<unsigned long long>(y);
    out[8 * i + 0] = xi / yi;
    out[8 * i + 1] = xi % yi;
    out[8 * i + 2] = xu / yu;
    out[8 * i + 3] = xu % yu;
    out[8 * i + 4] = x / y;
    out[8 * i + 5] = x % y;
    out[8 * i + 6] = static_cast<long long>(xl / yl);
    out[8 * i + 7] = static_cast<long long>(xl % yl);
}

int main() {
    const long long dividends[] = {0,          1,           7,         -7,        INT_MAX,      INT_MIN, 0x100000005LL,
                                   -0x100000005LL, LLONG_MAX, LLONG_MIN, 0xFFFFFFFFLL, -0xFFFFFFFFLL, 0x80000000LL};
    constexpr int DIVIDENDS = sizeof dividends / sizeof dividends[0];
    const long long divisors[] = {0, -1, 3};
    constexpr int N = DIVIDENDS * 3;
    long long ha[N], hb[N];
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < DIVIDENDS; ++i) ha[j * DIVIDENDS + i] = dividends[i], hb[j * DIVIDENDS + i] = divisors[j];
    long long *a = nullptr, *b = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&a, sizeof ha));
    CHECK(cudaMalloc(&b, sizeof hb));
    CHECK(cudaMalloc(&out, 8 * sizeof ha));
    CHECK(cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice));
    divide_kernel<<<1, 64>>>(a, b, N, out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    long long h[8 * N];
    CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i) {
        std::printf("%lld / %lld:", ha[i], hb[i]);
        for (int j = 0; j < 8; ++j) std::printf(" %llx", static_cast<unsigned long long>(h[8 * i + j]));
        std::printf("\n");
    }
    return 0;
}
