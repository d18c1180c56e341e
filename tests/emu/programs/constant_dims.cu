// M, N and K in constant memory, as a CUDA tutorial's matrix multiplication keeps them: the host copies them in
// with cudaMemcpyToSymbol before each launch and every thread reads them from there. Beside them, __device__ and
// __constant__ variables whose initial values are constants of every kind nvcc accepts (a scalar, an array, a
// struct, a constexpr expression), read back with cudaMemcpyFromSymbol before and after kernels change them.
//
// Build: nvcc -arch=sm_90 -o constant_dims tests/emu/programs/constant_dims.cu

#include <string>

#include "program.h"

struct Offsets {
    int row, col;
};

constexpr int kTile = 8;
__constant__ int c_dims[3];                            // M, N, K
__constant__ float c_scale = 0.5f * 4;                 // a constexpr expression: 2
__constant__ Offsets c_offsets = {1, 2};               // a struct
__constant__ Offsets c_unset[2];                       // structs without an initial value: zero
__device__ int d_launches = 0;                         // counted by the kernel
__device__ unsigned d_histogram[4] = {10, 20, 30, 40};  // an array, added to by the kernel

// C = c_scale * A·B + c_offsets.row * row + c_offsets.col * col; A is M×K, B is K×N, C is M×N, all row-major
__global__ void matmul_constant_dims_kernel(const float* A, const float* B, float* C) {
    const int M = c_dims[0], N = c_dims[1], K = c_dims[2];
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row == 0 && col == 0) atomicAdd(&d_launches, 1);
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
        C[row * N + col] = c_scale * sum + static_cast<float>(c_offsets.row * row + c_offsets.col * col);
        atomicAdd(&d_histogram[(row + col) % 4], 1u);
    }
}

// Small integers everywhere: every product and sum is exact on both machines.
void run_shape(const char* key, int M, int N, int K) {
    std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N), want(size_t(M) * N);
    for (int i = 0; i < M * K; ++i) A[i] = static_cast<float>(i % 7 - 3);
    for (int i = 0; i < K * N; ++i) B[i] = static_cast<float>(i % 5 - 2);
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c) {
            float sum = 0.0f;
            for (int k = 0; k < K; ++k) sum += A[r * K + k] * B[k * N + c];
            want[r * N + c] = 2.0f * sum + static_cast<float>(1 * r + 2 * c);
        }
    float *d_A = nullptr, *d_B = nullptr, *d_C = nullptr;
    CHECK(cudaMalloc(&d_A, A.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_B, B.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_C, C.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_A, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_B, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
    const int dims[3] = {M, N, K};
    CHECK(cudaMemcpyToSymbol(c_dims, dims, sizeof(dims)));
    const dim3 block(kTile, kTile);
    const dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
    matmul_constant_dims_kernel<<<grid, block>>>(d_A, d_B, d_C);
    print_error((std::string(key) + "_launch").c_str(), cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(C.data(), d_C, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    print_compare(key, C, want);
    int back[3] = {};
    CHECK(cudaMemcpyFromSymbol(back, c_dims, sizeof(back)));
    std::printf("%s_dims_read_back: %d %d %d\n", key, back[0], back[1], back[2]);
    CHECK(cudaFree(d_A));
    CHECK(cudaFree(d_B));
    CHECK(cudaFree(d_C));
}

int main() {
    float scale = 0.0f;
    Offsets offsets = {};
    unsigned histogram[4] = {};
    CHECK(cudaMemcpyFromSymbol(&scale, c_scale, sizeof(scale)));
    CHECK(cudaMemcpyFromSymbol(&offsets, c_offsets, sizeof(offsets)));
    CHECK(cudaMemcpyFromSymbol(histogram, d_histogram, sizeof(histogram)));
    std::printf("initial: scale %g, offsets %d %d, histogram %u %u %u %u\n", scale, offsets.row, offsets.col,
                histogram[0], histogram[1], histogram[2], histogram[3]);
    Offsets unset[2] = {{-1, -1}, {-1, -1}};
    CHECK(cudaMemcpyFromSymbol(unset, c_unset, sizeof(unset)));
    std::printf("unset: %d %d %d %d\n", unset[0].row, unset[0].col, unset[1].row, unset[1].col);

    run_shape("square_16", 16, 16, 16);
    run_shape("rectangular_13x7x5", 13, 7, 5);
    run_shape("single_1x1x1", 1, 1, 1);

    int launches = 0;
    CHECK(cudaMemcpyFromSymbol(&launches, d_launches, sizeof(launches)));
    CHECK(cudaMemcpyFromSymbol(histogram, d_histogram, sizeof(histogram)));
    std::printf("launches: %d\n", launches);
    // each element of C adds one to histogram[(row + col) % 4], on top of the initial 10, 20, 30, 40
    std::vector<unsigned> want = {10, 20, 30, 40}, got(histogram, histogram + 4);
    const int shapes[3][2] = {{16, 16}, {13, 7}, {1, 1}};  // M, N of the three runs
    for (const auto& shape : shapes)
        for (int r = 0; r < shape[0]; ++r)
            for (int c = 0; c < shape[1]; ++c) ++want[(r + c) % 4];
    print_compare("histogram", got, want);
    std::printf("histogram_values: %u %u %u %u\n", histogram[0], histogram[1], histogram[2], histogram[3]);
    return 0;
}
