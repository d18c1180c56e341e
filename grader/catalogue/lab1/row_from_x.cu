// Grader catalogue, lab 1, known WRONG (slow, not incorrect): row from x, col from y, with the grid swapped to match.
// Bug: every element of C is computed, and correctly, but the 32 lanes of a warp (consecutive threadIdx.x) now
// take 32 consecutive rows: each lane's A[row * K + k] and C[row * N + col] lies in a 32-byte sector of its own,
// so a warp's load of A costs 32 sectors where one would do, and its store of C 32 where 2 to 4 would.
// On the H100 the kernel is several times slower than the reference (make bench).
// Expected diagnosis: traffic (coalescing: the loads of A and the stores of C take many more sectors per request
// than the taught mapping needs). Correctness and memory safety pass.
//
// Build: nvcc -arch=sm_90 -I common -I labs/lab1-naive -c grader/catalogue/lab1/row_from_x.cu

#include "lab.h"

constexpr int BLOCK_WIDTH = 16;  // a 16×16 block: 256 threads

// ----------------------------------------------------------------------------
// kernel

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    // col from x: threads next to each other in a warp read neighbouring B and write neighbouring C
    const int row = blockIdx.x * blockDim.x + threadIdx.x;  // the bug: consecutive lanes take consecutive rows
    const int col = blockIdx.y * blockDim.y + threadIdx.y;

    // the grid is rounded up to whole blocks, so edge blocks hold threads past the end of C
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = sum;
    }
}

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(M, BLOCK_WIDTH), ceil_div(N, BLOCK_WIDTH));  // x covers rows, y covers columns
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
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
