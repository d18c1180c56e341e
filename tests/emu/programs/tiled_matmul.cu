// Boundary-safe tiled matrix multiplication on seeded random inputs, for sizes that leave partial tiles.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major.
// It prints the tile edge, then for each case i the sizes, whether C is within the rounding bound of a
// double-precision reference, and a hash of C's bits. __fmul_rn/__fadd_rn keep nvcc from fusing the
// multiply-add, so a GPU rounds exactly as the CPU emulator does and the hashes agree; between two emulator
// runs they show the result is bit-identical however the blocks were spread over worker threads.
//
// Build: nvcc -arch=sm_90 -o tiled_matmul tests/emu/programs/tiled_matmul.cu

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "program.h"

constexpr int TILE_WIDTH = 16;

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

// ----------------------------------------------------------------------------
// kernel

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE_WIDTH][TILE_WIDTH];  // (TILE_WIDTH, TILE_WIDTH)
    __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];  // (TILE_WIDTH, TILE_WIDTH)
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE_WIDTH + ty;
    const int col = blockIdx.x * TILE_WIDTH + tx;

    float sum = 0.0f;
    for (int tile = 0; tile < ceil_div(K, TILE_WIDTH); ++tile) {
        const int a_col = tile * TILE_WIDTH + tx;
        const int b_row = tile * TILE_WIDTH + ty;
        As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;  // zero-fill past the edge
        Bs[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();  // both tiles are complete before any thread reads them
        for (int k = 0; k < TILE_WIDTH; ++k) {
            sum = __fadd_rn(sum, __fmul_rn(As[ty][k], Bs[k][tx]));
        }
        __syncthreads();  // every thread is done with these tiles before the next phase overwrites them
    }
    if (row < M && col < N) {
        C[row * N + col] = sum;
    }
}

// ----------------------------------------------------------------------------
// host

static uint32_t next_random(uint32_t& state) {  // a fixed LCG: the same inputs everywhere
    state = state * 1664525u + 1013904223u;
    return state >> 8;
}

static void run_case(int i, int M, int N, int K) {
    uint32_t state = 12345u + uint32_t(i);
    std::vector<float> A(M * K), B(K * N), C(M * N);
    for (float& a : A) a = float(next_random(state)) / float(1 << 23) - 1.0f;  // [-1, 1)
    for (float& b : B) b = float(next_random(state)) / float(1 << 23) - 1.0f;

    float *d_A = nullptr, *d_B = nullptr, *d_C = nullptr;
    CHECK(cudaMalloc(&d_A, A.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_B, B.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_C, C.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_A, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_B, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
    const dim3 block(TILE_WIDTH, TILE_WIDTH);
    const dim3 grid(ceil_div(N, TILE_WIDTH), ceil_div(M, TILE_WIDTH));
    matmul_tiled_kernel<<<grid, block>>>(d_A, d_B, d_C, M, N, K);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(C.data(), d_C, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_A));
    CHECK(cudaFree(d_B));
    CHECK(cudaFree(d_C));

    int bad = 0;
    uint32_t hash = 2166136261u;  // FNV-1a over the bits of C
    for (int row = 0; row < M; ++row) {
        for (int col = 0; col < N; ++col) {
            double want = 0.0, magnitude = 0.0;
            for (int k = 0; k < K; ++k) {
                const double product = double(A[row * K + k]) * double(B[k * N + col]);
                want += product;
                magnitude += std::fabs(product);
            }
            const float got = C[row * N + col];
            if (!(std::fabs(got - want) <= K * double(FLT_EPSILON) * magnitude)) ++bad;
            uint32_t bits;
            std::memcpy(&bits, &got, sizeof bits);
            for (int byte = 0; byte < 4; ++byte) hash = (hash ^ ((bits >> (8 * byte)) & 0xFFu)) * 16777619u;
        }
    }
    std::printf("sizes_%d: %d %d %d\n", i, M, N, K);
    std::printf("within_tolerance_%d: %s\n", i, bad == 0 ? "pass" : "FAIL");
    std::printf("c_hash_%d: %08x\n", i, hash);
}

int main() {
    std::printf("tile_width: %d\n", TILE_WIDTH);
    const int sizes[][3] = {{55, 43, 48}, {1, 1, 1}, {17, 15, 33}, {70, 90, 20}};  // M, N, K
    int i = 0;
    for (const auto& s : sizes) run_case(i++, s[0], s[1], s[2]);
    return 0;
}
