// Two-dimensional memory: cudaMallocPitch's pitch for a few widths, a kernel that walks rows pitch bytes apart,
// cudaMemcpy2D in both directions and between two pitched allocations, cudaMemset2D, the Async forms on a stream,
// and the errors of a width wider than a pitch.
//
// Build: nvcc -arch=sm_90 -o pitched_memory tests/emu/programs/pitched_memory.cu

#include "program.h"

constexpr int ROWS = 37, COLS = 101;

// out[r][c] = in[r][c] * 2 + r, each row pitch bytes after the last
__global__ void scale_rows(const float* in, size_t in_pitch, float* out, size_t out_pitch, int rows, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols) return;
    const float* in_row = reinterpret_cast<const float*>(reinterpret_cast<const char*>(in) + r * in_pitch);
    float* out_row = reinterpret_cast<float*>(reinterpret_cast<char*>(out) + r * out_pitch);
    out_row[c] = in_row[c] * 2.0f + r;
}

int main() {
    for (size_t width : {1, 4, 404, 512, 513, 4000}) {
        void* p = nullptr;
        size_t pitch = 0;
        CHECK(cudaMallocPitch(&p, &pitch, width, 3));
        std::printf("pitch_for_%zu: %zu\n", width, pitch);
        CHECK(cudaFree(p));
    }

    std::vector<float> host(ROWS * COLS), want(ROWS * COLS);
    for (int i = 0; i < ROWS * COLS; ++i) host[i] = static_cast<float>(i % 97) - 40.0f;
    for (int r = 0; r < ROWS; ++r)
        for (int c = 0; c < COLS; ++c) want[r * COLS + c] = host[r * COLS + c] * 2.0f + r;
    float *d_in = nullptr, *d_out = nullptr, *d_copy = nullptr;
    size_t in_pitch = 0, out_pitch = 0, copy_pitch = 0;
    const size_t row_bytes = COLS * sizeof(float);
    CHECK(cudaMallocPitch(&d_in, &in_pitch, row_bytes, ROWS));
    CHECK(cudaMallocPitch(&d_out, &out_pitch, row_bytes, ROWS));
    CHECK(cudaMallocPitch(&d_copy, &copy_pitch, row_bytes + 64, ROWS));
    print_error("memset2d", cudaMemset2D(d_out, out_pitch, 0xff, row_bytes, ROWS));
    print_error("copy_in", cudaMemcpy2D(d_in, in_pitch, host.data(), row_bytes, row_bytes, ROWS,
                                        cudaMemcpyHostToDevice));
    const dim3 block(32, 8), grid((COLS + 31) / 32, (ROWS + 7) / 8);
    scale_rows<<<grid, block>>>(d_in, in_pitch, d_out, out_pitch, ROWS, COLS);
    print_error("launch", cudaGetLastError());
    print_error("device_to_device", cudaMemcpy2D(d_copy, copy_pitch, d_out, out_pitch, row_bytes, ROWS,
                                                 cudaMemcpyDeviceToDevice));
    std::vector<float> got(ROWS * COLS, 0.0f);
    print_error("copy_out", cudaMemcpy2D(got.data(), row_bytes, d_copy, copy_pitch, row_bytes, ROWS,
                                         cudaMemcpyDeviceToHost));
    print_compare("scaled_rows", got, want);

    // a column of the middle: one float per row, the host's rows one float apart
    std::vector<float> column(ROWS), want_column(ROWS);
    for (int r = 0; r < ROWS; ++r) want_column[r] = want[r * COLS + COLS / 2];
    print_error("column", cudaMemcpy2D(column.data(), sizeof(float), d_out + COLS / 2, out_pitch, sizeof(float), ROWS,
                                       cudaMemcpyDeviceToHost));
    print_compare("column_values", column, want_column);

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    print_error("memset2d_async", cudaMemset2DAsync(d_out, out_pitch, 0, row_bytes / 2, ROWS, stream));
    print_error("copy_async", cudaMemcpy2DAsync(got.data(), row_bytes, d_out, out_pitch, row_bytes, ROWS,
                                                cudaMemcpyDeviceToHost, stream));
    print_error("stream_sync", cudaStreamSynchronize(stream));
    int zeros = 0;
    for (int r = 0; r < ROWS; ++r)
        for (int c = 0; c < COLS; ++c) zeros += got[r * COLS + c] == 0.0f && c < COLS / 2;
    std::printf("zeroed_half_rows: %d\n", zeros);

    print_error("width_past_pitch", cudaMemcpy2D(got.data(), row_bytes, d_out, 16, 32, ROWS, cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    print_error("rows_past_end", cudaMemcpy2D(got.data(), row_bytes, d_out, out_pitch, row_bytes, ROWS + 1,
                                              cudaMemcpyDeviceToHost));
    print_error("last_error_again", cudaGetLastError());
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_copy));
    return 0;
}
