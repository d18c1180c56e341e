// Known WRONG: a double-buffered shared tile `As[2][BK][BM]` read with its column index past BM, and a thread's
// array `acc[2][TM]` read at `acc[0][TM]`. Both addresses stay inside their arrays, so a GPU reads the next row of
// As (here the other stage, which other threads are filling: a race's symptom) and acc[1][0], without any error;
// the emulator reports each index with the dimension it is outside, and no barrier advice. Only error names are
// printed, never the data the bad indices reached.
//
// Build: nvcc -arch=sm_90 -o error_index_outside_dimension tests/emu/programs/error_index_outside_dimension.cu

#include "program.h"

constexpr int BK = 4;
constexpr int BM = 32;
constexpr int TM = 4;

__global__ void index_past_its_dimension_kernel(const float* in, float* out) {
    __shared__ float As[2][BK][BM];  // (stage, k, m)
    const int m = threadIdx.x;
    for (int k = 0; k < BK; ++k) As[0][k][m] = in[k * BM + m];
    __syncthreads();
    float sum = 0.0f;
    for (int k = 0; k < BK; ++k) sum += As[0][k][m + 1];  // BUG: m + 1 == BM reads As[0][k + 1][0]
    for (int k = 0; k < BK; ++k) As[1][k][m] = 2.0f * in[k * BM + m];  // the next stage, filled meanwhile

    float acc[2][TM];  // (row, column) of the thread's tile
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < TM; ++c) acc[r][c] = sum + static_cast<float>(r * TM + c);
    const int c = m % 2 ? TM : TM - 1;  // BUG: odd threads read acc[0][TM], which is acc[1][0]
    out[m] = acc[0][c];
}

int main() {
    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, BK * BM * sizeof(float)));
    CHECK(cudaMalloc(&d_out, BM * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, BK * BM * sizeof(float)));
    index_past_its_dimension_kernel<<<1, BM>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(BM);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, BM * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
