// Barriers: a kernel with none (saxpy), and one that passes 2 * ROUNDS barriers in a loop, rotating a
// block's values through shared memory by one place per round.
//
// Build: nvcc -arch=sm_90 -o barriers tests/emu/programs/barriers.cu

#include "program.h"

constexpr int BLOCK = 96;    // threads per block; not a power of two
constexpr int ROUNDS = 150;  // each round passes two barriers

// ----------------------------------------------------------------------------
// kernels

__global__ void saxpy_kernel(int a, const int* x, int* y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}

// After ROUNDS rounds, out[base + t] = in[base + (t + ROUNDS) % BLOCK] + ROUNDS.
__global__ void rotate_rounds_kernel(const int* in, int* out) {
    __shared__ int ring[BLOCK];  // (BLOCK): this block's values
    const int t = threadIdx.x;
    const int base = blockIdx.x * BLOCK;
    ring[t] = in[base + t];
    __syncthreads();
    for (int round = 0; round < ROUNDS; ++round) {
        const int next = ring[(t + 1) % BLOCK] + 1;
        __syncthreads();  // every thread has read its neighbour before any thread overwrites its own slot
        ring[t] = next;
        __syncthreads();  // every slot is written before the next round reads it
    }
    out[base + t] = ring[t];
}

// ----------------------------------------------------------------------------
// host

int main() {
    const int n = 1000;
    std::vector<int> x(n), y(n), want(n), got(n);
    for (int i = 0; i < n; ++i) {
        x[i] = i - 300;
        y[i] = 2 * i + 5;
        want[i] = 3 * x[i] + y[i];
    }
    int* d_x = nullptr;
    int* d_y = nullptr;
    CHECK(cudaMalloc(&d_x, n * sizeof(int)));
    CHECK(cudaMalloc(&d_y, n * sizeof(int)));
    CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, y.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    saxpy_kernel<<<(n + 127) / 128, 128>>>(3, d_x, d_y, n);
    print_error("saxpy_launch", cudaGetLastError());
    print_error("saxpy_sync", cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got.data(), d_y, n * sizeof(int), cudaMemcpyDeviceToHost));
    print_compare("saxpy", got, want);
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));

    const int blocks = 3;
    const int m = blocks * BLOCK;
    std::vector<int> in(m), rotated(m), want_rotated(m);
    for (int i = 0; i < m; ++i) in[i] = 1000 * (i / BLOCK) + i % BLOCK;
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < BLOCK; ++t) want_rotated[b * BLOCK + t] = in[b * BLOCK + (t + ROUNDS) % BLOCK] + ROUNDS;
    int* d_in = nullptr;
    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, m * sizeof(int)));
    CHECK(cudaMalloc(&d_out, m * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), m * sizeof(int), cudaMemcpyHostToDevice));
    rotate_rounds_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("rotate_launch", cudaGetLastError());
    print_error("rotate_sync", cudaDeviceSynchronize());
    CHECK(cudaMemcpy(rotated.data(), d_out, m * sizeof(int), cudaMemcpyDeviceToHost));
    print_compare("rotate", rotated, want_rotated);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return 0;
}
