// Known WRONG: a kernel written for blocks of 16×4 threads (x along the tile's 16 rows, y along its 4 columns),
// launched with the shape swapped, dim3(4, 16). Every index is right for the shape it was written for; in this
// launch threadIdx.y runs to 15, past the tile's second dimension, yet `tile[tx][ty]` stays inside the array, where
// threads then share elements: a GPU gives no error, and the symptom looks like a race. The emulator reports the
// index outside its dimension, names the launch's block shape, and gives no barrier advice. Only error names are
// printed, never the data the bad indices reached.
//
// Build: nvcc -arch=sm_90 -o error_index_block_swapped tests/emu/programs/error_index_block_swapped.cu

#include "program.h"

constexpr int kRows = 16;  // the tile's rows: threadIdx.x in the block shape the kernel was written for
constexpr int kCols = 4;   // its columns: threadIdx.y

__global__ void tile_neighbours_kernel(const float* in, float* out) {
    __shared__ float tile[kRows][kCols];
    const int tx = threadIdx.x, ty = threadIdx.y;
    tile[tx][ty] = in[ty * kRows + tx];
    __syncthreads();
    out[ty * kRows + tx] = tile[tx][ty] + tile[(tx + 1) % kRows][ty];
}

int main() {
    constexpr int kElements = kRows * kRows;  // room for either shape's indices into in and out
    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, kElements * sizeof(float)));
    CHECK(cudaMalloc(&d_out, kElements * sizeof(float)));
    CHECK(cudaMemset(d_in, 0, kElements * sizeof(float)));
    tile_neighbours_kernel<<<1, dim3(kCols, kRows)>>>(d_in, d_out);  // BUG: meant dim3(kRows, kCols)
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<float> out(kElements);
    print_error("memcpy", cudaMemcpy(out.data(), d_out, kElements * sizeof(float), cudaMemcpyDeviceToHost));
    print_error("last_error", cudaGetLastError());
    return 0;
}
