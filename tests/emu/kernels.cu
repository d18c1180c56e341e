// kernels.cu: the kernels of the emulator's in-process tests, with their launchers (contract in kernels.h).
//
// The tests count exactly what these kernels load and store, so each kernel's traffic is stated above it.
// Comments of the form `[line: name]` mark lines whose number a test looks up in this file: a diagnostic
// must name that line. Move them with their statement.
//
// Build: common/emu/emucc -o build/tests/emu/test_emulator tests/emu/test_emulator_*.cpp tests/emu/kernels.cu

#include "kernels.h"

__host__ __device__ static int ceil_div(int a, int b) { return (a + b - 1) / b; }

// ----------------------------------------------------------------------------
// one load and one store per element: n elements of sizeof(T) bytes each way

template <class T>
__global__ void copy_kernel(const T* in, T* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];  // [line: copy]
    }
}

template <class T>
static cudaError_t launch_copy(const T* in, T* out, int n) {
    copy_kernel<T><<<ceil_div(n, COPY_BLOCK), COPY_BLOCK>>>(in, out, n);
    return cudaGetLastError();
}

cudaError_t copy_floats(const float* in, float* out, int n) { return launch_copy(in, out, n); }
cudaError_t copy_float2(const float2* in, float2* out, int n) { return launch_copy(in, out, n); }
cudaError_t copy_float4(const float4* in, float4* out, int n) { return launch_copy(in, out, n); }
cudaError_t copy_chars(const char* in, char* out, int n) { return launch_copy(in, out, n); }
cudaError_t copy_doubles(const double* in, double* out, int n) { return launch_copy(in, out, n); }
cudaError_t copy_vec3(const Vec3* in, Vec3* out, int n) { return launch_copy(in, out, n); }

// ----------------------------------------------------------------------------
// loads the source makes a known number of times

// ceil(n / 2) loads and stores: odd threads do nothing
__global__ void copy_even_kernel(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && i % 2 == 0) {
        out[i] = in[i];
    }
}

cudaError_t copy_even_floats(const float* in, float* out, int n) {
    copy_even_kernel<<<ceil_div(n, COPY_BLOCK), COPY_BLOCK>>>(in, out, n);
    return cudaGetLastError();
}

// 2n loads, n stores: the source reads in[i] twice, and each read in the source is a load
__global__ void add_to_itself_kernel(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] + in[i];
    }
}

cudaError_t add_to_itself(const float* in, float* out, int n) {
    add_to_itself_kernel<<<ceil_div(n, COPY_BLOCK), COPY_BLOCK>>>(in, out, n);
    return cudaGetLastError();
}

// repeats·n loads, n stores
__global__ void sum_repeated_kernel(const float* in, float* out, int n, int repeats) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float sum = 0.0f;
        for (int r = 0; r < repeats; ++r) {
            sum += in[i];
        }
        out[i] = sum;
    }
}

cudaError_t sum_repeated(const float* in, float* out, int n, int repeats) {
    sum_repeated_kernel<<<ceil_div(n, COPY_BLOCK), COPY_BLOCK>>>(in, out, n, repeats);
    return cudaGetLastError();
}

// ----------------------------------------------------------------------------
// matrix multiplication

// One thread per element of C: 2·K loads and 1 store per thread, 2·M·N·K loads in all.
__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = sum;
    }
}

cudaError_t matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
    const dim3 block(16, 16);
    const dim3 grid(ceil_div(N, block.x), ceil_div(M, block.y));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
    return cudaGetLastError();
}

// Each block loads its rows of A once per column of blocks and its columns of B once per row of blocks:
// M·K·ceil(N/16) + K·N·ceil(M/16) loads, M·N stores. The barriers are skipped only to provoke races.
__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K,
                                    TileBarriers barriers) {
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
        if (row < M && a_col < K) {
            As[ty][tx] = A[row * K + a_col];  // [line: tile_store_A]
        } else {
            As[ty][tx] = 0.0f;  // zero-fill past the edge: 0 contributes nothing to the dot product
        }
        if (b_row < K && col < N) {
            Bs[ty][tx] = B[b_row * N + col];  // [line: tile_store_B]
        } else {
            Bs[ty][tx] = 0.0f;
        }
        if (barriers.after_loads) {
            __syncthreads();
        }
        for (int k = 0; k < TILE_WIDTH; ++k) {
            sum += As[ty][k] * Bs[k][tx];  // [line: tile_read]
        }
        if (barriers.after_use) {
            __syncthreads();
        }
    }
    if (row < M && col < N) {
        C[row * N + col] = sum;
    }
}

cudaError_t matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K, TileBarriers barriers) {
    const dim3 block(TILE_WIDTH, TILE_WIDTH);
    const dim3 grid(ceil_div(N, TILE_WIDTH), ceil_div(M, TILE_WIDTH));
    matmul_tiled_kernel<<<grid, block>>>(A, B, C, M, N, K, barriers);
    return cudaGetLastError();
}

// ----------------------------------------------------------------------------
// shared memory: one 4-byte shared store and one shared load per thread

__global__ void reverse_block_kernel(const float* in, float* out) {
    __shared__ float slice[SHARED_BLOCK];  // (SHARED_BLOCK): this block's part of in
    const int t = threadIdx.x;
    const int base = blockIdx.x * SHARED_BLOCK;
    slice[t] = in[base + t];
    __syncthreads();
    out[base + t] = slice[SHARED_BLOCK - 1 - t];
}

cudaError_t reverse_blocks(const float* in, float* out, int blocks) {
    reverse_block_kernel<<<blocks, SHARED_BLOCK>>>(in, out);
    return cudaGetLastError();
}

// ----------------------------------------------------------------------------
// known-wrong kernels

__global__ void early_exit_kernel(const float* in, float* out) {
    __shared__ float buffer[SHARED_BLOCK];
    const int t = threadIdx.x;
    if (t >= SHARED_BLOCK / 2) {
        return;  // BUG: half the block never reaches the barrier
    }
    buffer[t] = in[t];
    __syncthreads();  // [line: early_exit_barrier]
    out[t] = buffer[SHARED_BLOCK / 2 - 1 - t];
}

cudaError_t barrier_after_early_exit(const float* in, float* out) {
    early_exit_kernel<<<1, SHARED_BLOCK>>>(in, out);
    return cudaGetLastError();
}

__global__ void two_barriers_kernel(const float* in, float* out) {
    __shared__ float buffer[SHARED_BLOCK];
    const int t = threadIdx.x;
    buffer[t] = in[t];
    if (t % 2 == 0) {
        __syncthreads();  // [line: even_barrier]  BUG: the odd threads wait at the other one
        out[t] = buffer[t + 1];
    } else {
        __syncthreads();  // [line: odd_barrier]
        out[t] = buffer[t - 1];
    }
}

cudaError_t barrier_in_both_branches(const float* in, float* out) {
    two_barriers_kernel<<<1, SHARED_BLOCK>>>(in, out);
    return cudaGetLastError();
}

__global__ void half_filled_kernel(const float* in, float* out) {
    __shared__ float half_filled[SHARED_BLOCK];
    const int t = threadIdx.x;
    if (t < SHARED_BLOCK / 2) {
        half_filled[t] = in[t];  // BUG: the upper half of the array is never written
    }
    __syncthreads();
    out[t] = half_filled[t];  // [line: unwritten_read]
}

cudaError_t read_unwritten_shared(const float* in, float* out) {
    half_filled_kernel<<<1, SHARED_BLOCK>>>(in, out);
    return cudaGetLastError();
}

// A tile filled by the two branches of one if: the load stores tile[x][y], the zero fill tile[y][x], so thread (x, y)
// of the first and thread (y, x) of the second store one element where x >= valid. No thread meets both lines.
__global__ void branches_index_apart_kernel(const float* in, float* out, int valid) {
    __shared__ float tile[TILE_WIDTH][TILE_WIDTH];
    const int x = threadIdx.x, y = threadIdx.y;
    if (y < valid) {
        tile[x][y] = in[y * TILE_WIDTH + x];  // BUG: tile[y][x], as the zero fill  [line: branch_load]
    } else {
        tile[y][x] = 0.0f;  // [line: branch_zero]
    }
    __syncthreads();
    out[y * TILE_WIDTH + x] = tile[y][x];
}

cudaError_t fill_tile_by_branches(const float* in, float* out, int valid) {
    branches_index_apart_kernel<<<1, dim3(TILE_WIDTH, TILE_WIDTH)>>>(in, out, valid);
    return cudaGetLastError();
}

// Every thread clears its neighbour's slot and then stores its own value, without a barrier between: each slot is
// stored twice, by two threads, and only a barrier makes the value replace the 0.
__global__ void clear_then_store_kernel(const float* in, float* out) {
    __shared__ float slots[SHARED_BLOCK];
    const int t = threadIdx.x;
    slots[(t + 1) % SHARED_BLOCK] = 0.0f;  // [line: clear_slot]
    slots[t] = in[t];                      // BUG: a __syncthreads() belongs above  [line: store_slot]
    __syncthreads();
    out[t] = slots[t];
}

cudaError_t clear_then_store(const float* in, float* out) {
    clear_then_store_kernel<<<1, SHARED_BLOCK>>>(in, out);
    return cudaGetLastError();
}

// ----------------------------------------------------------------------------
// any launch configuration

__global__ void set_flag_kernel(int* flag) { *flag = 1; }

cudaError_t set_flag(dim3 grid, dim3 block, int* flag) {
    set_flag_kernel<<<grid, block>>>(flag);
    return cudaGetLastError();
}
