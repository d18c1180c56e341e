// Lab 1: naive matrix multiplication, one thread per element of C, and the host code around it.
// C = A·B; A is M×K, B is K×N, C is M×N, all row-major (contract in lab.h).
// Three parts to write, marked TODO(student): the kernel, the launcher that starts it (device pointers), and
// matmul_from_host, the whole round trip from host memory. As handed out it builds, runs, and leaves C
// untouched, so every test fails until the work is done.
//
// Build and test: make lab1   (then runs host_flow.cu, a demo of your matmul_from_host)
// Compile only:   nvcc -arch=sm_90 -I common -I labs/lab1-naive -c labs/lab1-naive/kernel.cu

#include "lab.h"

constexpr int BLOCK_WIDTH = 16;  // a 16×16 block: 256 threads

// ----------------------------------------------------------------------------
// kernel

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO(student): each thread owns one element of C. Work out which (its row and column) from where the thread
    //                sits in its block and where the block sits in the grid; let neighbouring threads of a warp (x)
    //                own neighbouring columns, so that together they read neighbouring elements of B.
    // TODO(student): the grid is a whole number of blocks, so it can hold threads past the last row or column of C;
    //                such a thread owns nothing and must not touch memory.
    // TODO(student): C[row][col] is the dot product of row `row` of A and column `col` of B. Add it up in a register
    //                and store it once; in row-major storage, element [r][c] of a matrix with W columns sits r * W + c
    //                floats from its start.

    // Marks the parameters as used so this skeleton builds without warnings; delete it once your code uses them.
    unused(A, B, C, M, N, K);
}

// ----------------------------------------------------------------------------
// launcher

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    // TODO(student): start at least one thread per element of C, whatever M and N are: enough blocks along x to
    //                cover the N columns and along y to cover the M rows (ceil_div rounds up).
    dim3 grid(1, 1);
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows up here, not in the kernel
}

// ----------------------------------------------------------------------------
// host flow: the round trip from the caller's host matrices to its C

void matmul_from_host(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO(student): the GPU computes on its own memory only: give it a buffer for each of A, B and C
    //                (cudaMalloc sizes are in bytes, and the three matrices have three different sizes).
    // TODO(student): fill the device's A and B from the host's; a copy names its direction, and the runtime refuses
    //                one whose pointers do not match it.
    // TODO(student): run your matmul on the device buffers. A launch returns before the kernel has run, and an error
    //                inside the kernel is only reported when the host waits for it: wait, and check, so that an
    //                error is reported here and not by some later call.
    // TODO(student): bring C back into the caller's C, then give back every device buffer: a function that leaks
    //                runs the GPU out of memory when it is called in a loop.
    // Check every CUDA call with CUDA_CHECK: a call that fails returns an error code, and nothing else tells you.

    // Marks the parameters as used so this skeleton builds without warnings; delete it once your code uses them.
    unused(A, B, C, M, N, K);
}
