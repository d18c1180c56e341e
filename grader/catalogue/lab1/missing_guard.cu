// Grader catalogue, lab 1, known WRONG: no row < M && col < N guard.
// Bug: the grid is rounded up to whole 16×16 blocks, so on sizes that are not multiples of 16 the
// edge blocks hold threads past the end of C. They read A and B out of range and store out of range
// (a thread with col >= N writes into the next row of C, one with row >= M past its end).
// Expected diagnosis: out-of-bounds (global reads and writes outside A, B and C, when M or N % 16 != 0).
// Wrong values and elements written more than once may be reported as well.
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab1-naive -c grader/catalogue/lab1/missing_guard.cu

#include "lab.h"

constexpr int BLOCK_WIDTH = 16;  // a 16×16 block: 256 threads

// ----------------------------------------------------------------------------
// kernel

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    (void)M;  // BUG: M should be used in the guard below, which is missing

    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
        sum += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = sum;  // BUG: stored whether or not row < M && col < N
}

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());
}

// ----------------------------------------------------------------------------
// host flow: the round trip from the caller's host matrices to its C

void matmul_from_host(const float* A, const float* B, float* C, int M, int N, int K) {
    // cudaMalloc and cudaMemcpy count bytes, not elements
    const size_t bytes_A = size_t(M) * K * sizeof(float);
    const size_t bytes_B = size_t(K) * N * sizeof(float);
    const size_t bytes_C = size_t(M) * N * sizeof(float);
    float* d_A = nullptr;
    float* d_B = nullptr;
    float* d_C = nullptr;
    CUDA_CHECK(cudaMalloc(&d_A, bytes_A));
    CUDA_CHECK(cudaMalloc(&d_B, bytes_B));
    CUDA_CHECK(cudaMalloc(&d_C, bytes_C));

    // C needs no copy in: the kernel writes every element of it
    CUDA_CHECK(cudaMemcpy(d_A, A, bytes_A, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_B, B, bytes_B, cudaMemcpyHostToDevice));

    // the launcher checks the launch; an error inside the kernel only surfaces when the host waits for it
    matmul(d_A, d_B, d_C, M, N, K);
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(C, d_C, bytes_C, cudaMemcpyDeviceToHost));

    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_B));
    CUDA_CHECK(cudaFree(d_C));
}
