// Stages rows of a matrix into shared memory with __pipeline_memcpy_async (16-byte copies, the part past the
// row's end zero-filled), waits, and writes each row's sum. Prints the sums and the launch's errors; the emulator
// runs the copies synchronously and counts them as loads and stores.
//
// Build: nvcc -arch=sm_90 -o pipeline_copy tests/emu/programs/pipeline_copy.cu

#include <cuda_pipeline.h>

#include "program.h"

constexpr int ROW = 16;  // floats per staged row: four 16-byte copies

__global__ void row_sums_pipelined_kernel(const float* A, float* sums, int rows, int cols) {
    alignas(16) __shared__ float tile[4][ROW];  // (4 rows, ROW floats): 16-byte copies land on 16-byte boundaries
    const int row = threadIdx.x / 4;  // four threads per row, one 16-byte copy each
    const int col = threadIdx.x % 4 * 4;
    if (row < rows) {
        const int inside = cols - col < 0 ? 0 : (cols - col > 4 ? 4 : cols - col);  // floats of this piece inside A
        // zero-fill past the end of the row; a piece wholly outside reads nothing (and points at the row's start)
        __pipeline_memcpy_async(&tile[row][col], &A[row * cols + (inside ? col : 0)], 16, (4 - inside) * 4);
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    if (threadIdx.x < rows) {
        float sum = 0.0f;
        for (int k = 0; k < ROW; ++k) sum += tile[threadIdx.x][k];
        sums[threadIdx.x] = sum;
    }
}

int main() {
    const int rows = 4, cols = 12;  // rows are 48 bytes: each starts 16-byte aligned
    std::vector<float> A(rows * cols);
    for (int i = 0; i < rows * cols; ++i) A[i] = float(i % 7);
    float* d_A = nullptr;
    float* d_sums = nullptr;
    CHECK(cudaMalloc(&d_A, A.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_sums, rows * sizeof(float)));
    CHECK(cudaMemcpy(d_A, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    row_sums_pipelined_kernel<<<1, 16>>>(d_A, d_sums, rows, cols);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> sums(rows);
    CHECK(cudaMemcpy(sums.data(), d_sums, rows * sizeof(float), cudaMemcpyDeviceToHost));
    for (int r = 0; r < rows; ++r) {
        float want = 0.0f;
        for (int c = 0; c < cols; ++c) want += A[r * cols + c];
        printf("row_%d_sum: %s\n", r, sums[r] == want ? "pass" : "FAIL");
    }
    return 0;
}
