// Asynchronous copies from global to shared memory with <cuda/pipeline> and <cuda/barrier>: each kernel stages
// the rows of a matrix in shared memory, tile by tile, and writes each row's sum.
//   thread_pipeline_kernel     cuda::pipeline<thread_scope_thread>, STAGES batches in flight (16-byte copies)
//   block_pipeline_kernel      a partitioned block pipeline (pipeline_shared_state): one producer warp, the other
//                              warps consume
//   barrier_copy_kernel        cuda::memcpy_async(..., barrier) then arrive_and_wait()
//   group_copy_kernel          the block's collective cuda::memcpy_async(block, ..., barrier)
// Integer-valued floats: every sum is exact. Prints one verdict per kernel.
//
// Build: nvcc -arch=sm_90 -o async_copies tests/emu/programs/async_copies.cu

#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>

#include "program.h"

namespace cg = cooperative_groups;

constexpr int ROWS = 32;     // rows of the matrix: one per thread of a warp
constexpr int TILE = 8;      // floats per row per tile: two 16-byte copies
constexpr int TILES = 6;     // tiles per row: COLS = TILE * TILES
constexpr int COLS = TILE * TILES;
constexpr int STAGES = 3;

// One warp: thread r stages row r, STAGES tiles ahead of the one it sums.
__global__ void thread_pipeline_kernel(const float* A, float* sums) {
    __shared__ alignas(16) float tiles[STAGES][ROWS][TILE];  // (STAGES, ROWS, TILE)
    const int r = threadIdx.x;
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const auto piece = cuda::aligned_size_t<16>(4 * sizeof(float));
    int fetched = 0;
    float sum = 0.0f;
    for (int tile = 0; tile < TILES; ++tile) {
        for (; fetched < TILES && fetched < tile + STAGES; ++fetched) {  // keep STAGES batches in flight
            pipe.producer_acquire();
            float* dst = tiles[fetched % STAGES][r];
            const float* src = &A[r * COLS + fetched * TILE];
            cuda::memcpy_async(dst, src, piece, pipe);
            cuda::memcpy_async(dst + 4, src + 4, piece, pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();  // the oldest batch: this tile
        for (int k = 0; k < TILE; ++k) sum += tiles[tile % STAGES][r][k];
        pipe.consumer_release();
    }
    sums[r] = sum;
}

// Warp 0 produces: lane r copies row r of each tile. Warps 1 and 2 consume: thread t of warp w sums the tile's
// columns k with k % 2 == w - 1 of row t.
__global__ void block_pipeline_kernel(const float* A, float* sums) {
    constexpr int BLOCK_STAGES = 2;
    __shared__ float tiles[BLOCK_STAGES][ROWS][TILE];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, BLOCK_STAGES> state;
    auto block = cg::this_thread_block();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const auto role = warp == 0 ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer;
    auto pipe = cuda::make_pipeline(block, &state, role);
    float sum = 0.0f;
    for (int tile = 0; tile < TILES; ++tile) {
        if (warp == 0) {
            pipe.producer_acquire();
            for (int k = 0; k < TILE; ++k)
                cuda::memcpy_async(&tiles[tile % BLOCK_STAGES][lane][k], &A[lane * COLS + tile * TILE + k],
                                   cuda::aligned_size_t<4>(sizeof(float)), pipe);
            pipe.producer_commit();
        } else {
            pipe.consumer_wait();
            for (int k = warp - 1; k < TILE; k += 2) sum += tiles[tile % BLOCK_STAGES][lane][k];
            pipe.consumer_release();
        }
    }
    if (warp > 0) sums[(warp - 1) * ROWS + lane] = sum;
}

// One warp; each tile's copies complete with the barrier's phase.
__global__ void barrier_copy_kernel(const float* A, float* sums) {
    __shared__ alignas(16) float tile_data[ROWS][TILE];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    const int r = threadIdx.x;
    if (r == 0) init(&bar, blockDim.x);
    __syncthreads();
    float sum = 0.0f;
    for (int tile = 0; tile < TILES; ++tile) {
        cuda::memcpy_async(tile_data[r], &A[r * COLS + tile * TILE], cuda::aligned_size_t<16>(TILE * sizeof(float)),
                           bar);
        bar.arrive_and_wait();  // the copies of every thread have landed
        for (int k = 0; k < TILE; ++k) sum += tile_data[(r + 1) % ROWS][k];  // the next thread's row
        bar.arrive_and_wait();  // read before the next tile overwrites it
    }
    sums[r] = sum;
}

// The block copies the whole matrix at once, each thread a share of it.
__global__ void group_copy_kernel(const float* A, float* sums) {
    __shared__ alignas(16) float all[ROWS * COLS];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, all, A, cuda::aligned_size_t<16>(sizeof(all)), bar);
    bar.arrive_and_wait();
    float sum = 0.0f;
    for (int k = 0; k < COLS; ++k) sum += all[threadIdx.x * COLS + k];
    sums[threadIdx.x] = sum;
}

int main() {
    std::vector<float> A(ROWS * COLS);
    for (int i = 0; i < ROWS * COLS; ++i) A[i] = float((i * 13 + 5) % 17 - 8);
    std::vector<float> want(ROWS, 0.0f), want_split(2 * ROWS, 0.0f);
    for (int r = 0; r < ROWS; ++r) {
        for (int c = 0; c < COLS; ++c) {
            want[r] += A[r * COLS + c];
            want_split[(c % TILE % 2) * ROWS + r] += A[r * COLS + c];
        }
    }
    std::vector<float> want_next(ROWS);
    for (int r = 0; r < ROWS; ++r) want_next[r] = want[(r + 1) % ROWS];

    float* d_A = nullptr;
    float* d_sums = nullptr;
    CHECK(cudaMalloc(&d_A, A.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_sums, 2 * ROWS * sizeof(float)));
    CHECK(cudaMemcpy(d_A, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    std::vector<float> got(ROWS), got_split(2 * ROWS);

    thread_pipeline_kernel<<<1, ROWS>>>(d_A, d_sums);
    CHECK(cudaMemcpy(got.data(), d_sums, ROWS * sizeof(float), cudaMemcpyDeviceToHost));
    print_compare("thread_pipeline", got, want);

    block_pipeline_kernel<<<1, 3 * 32>>>(d_A, d_sums);
    CHECK(cudaMemcpy(got_split.data(), d_sums, 2 * ROWS * sizeof(float), cudaMemcpyDeviceToHost));
    print_compare("block_pipeline", got_split, want_split);

    barrier_copy_kernel<<<1, ROWS>>>(d_A, d_sums);
    CHECK(cudaMemcpy(got.data(), d_sums, ROWS * sizeof(float), cudaMemcpyDeviceToHost));
    print_compare("barrier_copy", got, want_next);

    group_copy_kernel<<<1, ROWS>>>(d_A, d_sums);
    CHECK(cudaMemcpy(got.data(), d_sums, ROWS * sizeof(float), cudaMemcpyDeviceToHost));
    print_compare("group_copy", got, want);

    print_error("last_error", cudaGetLastError());
    CHECK(cudaFree(d_A));
    CHECK(cudaFree(d_sums));
    return 0;
}
