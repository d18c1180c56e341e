// Known WRONG: float4 accesses through the address of an array element, `*reinterpret_cast<const float4*>(&As[0][c])`,
// whose four elements run past the row: c = BM - 2 is a legal index and a legal address, and the access reads
// As[0][BM - 2], As[0][BM - 1], As[1][0] and As[1][1]. Every address is inside its array and 16-byte aligned, so a
// GPU reads (and writes) the next row without any error; the emulator reports each access with the elements it
// spans and the dimension they run out of: a shared load, a shared vector's field, a shared store, and a store and
// a load of a thread's own array. A float4 that ends exactly at the end of its row (As[1][BM - 4]) is correct and
// not reported. Only error names are printed, never the data the bad accesses reached.
//
// Build: nvcc -arch=sm_90 -o error_vector_outside_dimension tests/emu/programs/error_vector_outside_dimension.cu

#include "program.h"

constexpr int BM = 30;  // rows of 120 bytes: As[0][28] and As[1][2] start at multiples of 16, As[1][0] does not
constexpr int TM = 6;   // the same for acc: acc[0][4] at byte 16
constexpr int THREADS = 16;

__global__ void vector_past_its_dimension_kernel(const float* in, float* out) {
    __shared__ alignas(16) float As[2][BM];  // (stage, m)
    __shared__ alignas(16) float Bs[2][BM];  // (stage, m)
    const int m = threadIdx.x;
    for (int i = m; i < 2 * BM; i += THREADS) As[i / BM][i % BM] = in[i];
    __syncthreads();

    const int fits = 2 + (BM - 6) * (m % 2);  // 2 or BM - 4: As[1][fits..fits + 3] stays inside the row
    const float4 inside = *reinterpret_cast<const float4*>(&As[1][fits]);
    const int c = m % 2 ? BM - 2 : BM - 6;  // BUG: odd threads read As[0][BM - 2..BM + 1]
    const float4 across = *reinterpret_cast<const float4*>(&As[0][c]);
    const float last = reinterpret_cast<const float4*>(&As[0][c])->w;  // BUG: the same, its fourth element alone
    if (m == 1) *reinterpret_cast<float4*>(&Bs[0][c]) = inside;       // BUG: writes Bs[1][0] and Bs[1][1] too

    alignas(16) float acc[2][TM];  // (row, column) of the thread's tile
    for (int r = 0; r < 2; ++r)
        for (int j = 0; j < TM; ++j) acc[r][j] = 0.0f;
    const int t = m % 2 ? TM - 2 : 0;                          // BUG: odd threads write acc[0][TM - 2..TM + 1]
    *reinterpret_cast<float4*>(&acc[0][t]) = across;           // (the store)
    const float4 back = *reinterpret_cast<const float4*>(&acc[0][t]);  // (and the load)
    out[m] = inside.x + across.w + last + back.w + acc[1][0];
}

int main() {
    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, 2 * BM * sizeof(float)));
    CHECK(cudaMalloc(&d_out, THREADS * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, 2 * BM * sizeof(float)));
    vector_past_its_dimension_kernel<<<1, THREADS>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(THREADS);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, THREADS * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
