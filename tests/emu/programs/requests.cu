// requests.cu: access patterns whose warp-level requests, sectors and wavefronts can be worked out by hand. Each
// kernel is one pattern, launched with one warp, in order; test_emulator_requests.cpp checks the emulator's counts in
// CUDAEMU_STATS, and tools/perf/requests_ncu.py compares them with Nsight Compute on a GPU.
//
// Build: nvcc -arch=sm_90 -o requests tests/emu/programs/requests.cu
#include "program.h"

// Global loads of 4 bytes: lane i reads in[i * stride + offset]; one store of the sum per lane, consecutive.
__global__ void global_stride(const float* in, float* out, int stride, int offset) {
    const int i = threadIdx.x;
    out[i] = in[i * stride + offset];
}

// Every lane reads the same word (a broadcast: one sector).
__global__ void global_broadcast(const float* in, float* out) { out[threadIdx.x] = in[5]; }

// 8- and 16-byte loads by consecutive lanes.
__global__ void global_float2(const float2* in, float2* out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void global_float4(const float4* in, float4* out) { out[threadIdx.x] = in[threadIdx.x]; }

// Half the lanes load (a branch): one request with 16 lanes.
__global__ void global_half_warp(const float* in, float* out) {
    if (threadIdx.x < 16) out[threadIdx.x] = in[threadIdx.x];
}

// A loop whose trip count differs per lane: iteration n of every lane that gets there is one request.
__global__ void global_ragged_loop(const float* in, float* out) {
    float sum = 0;
    for (int k = 0; k <= static_cast<int>(threadIdx.x % 4); ++k) sum += in[k * 32 + threadIdx.x];
    out[threadIdx.x] = sum;
}

// Shared memory: lane i writes word i, then reads word (i * stride) % 1024 of a 1024-word array.
__global__ void shared_stride(float* out, int stride) {
    __shared__ float s[1024];
    for (int i = threadIdx.x; i < 1024; i += 32) s[i] = float(i);
    __syncwarp();
    out[threadIdx.x] = s[(threadIdx.x * stride) % 1024];
}

// Every lane reads the same shared word: a broadcast, one wavefront.
__global__ void shared_broadcast(float* out) {
    __shared__ float s[32];
    s[threadIdx.x] = float(threadIdx.x);
    __syncwarp();
    out[threadIdx.x] = s[7];
}

// A 32 x 32 tile read down a column, unpadded (32-way conflict) and padded to 33 columns (none).
__global__ void shared_column(float* out) {
    __shared__ float tile[32][32];
    __shared__ float padded[32][33];
    for (int r = 0; r < 32; ++r) tile[r][threadIdx.x] = padded[r][threadIdx.x] = float(r);
    __syncwarp();
    out[threadIdx.x] = tile[threadIdx.x][3] + padded[threadIdx.x][3];
}

// 8- and 16-byte shared loads: lane i reads element index[i] of an array of 32 float4 or float2, written first.
// kPatterns index tables, from consecutive lanes to every lane on one address (main() fills them).
constexpr int kPatterns = 18;
int pattern_index(int pattern, int i) {
    switch (pattern) {
        case 0: return i;                         // consecutive
        case 1: return i % 8;                     // lanes 8 apart on one address
        case 2: return i % 16;                    // lanes 16 apart on one address
        case 3: return i / 8;                     // a quarter-warp on one address
        case 4: return i / 16;                    // a half-warp on one address
        case 5: return 3;                         // every lane on one address
        case 6: return (i / 8) * 2;               // a quarter-warp on one address, the quarters two elements apart
        case 7: return (i / 8) * 4;               // ... four elements apart
        case 8: return i / 2;                     // pairs of lanes
        case 9: return i / 4;                     // groups of 4 lanes
        case 10: return i % 4;                    // lanes 4 apart
        case 11: return i % 2;                    // even and odd lanes
        case 12: return i % 2 + 2 * (i / 16);     // even and odd lanes, per half-warp
        case 13: return 31 - i;                   // consecutive, reversed
        case 14: return i < 8 ? i : 0;            // the first quarter-warp spread, the others on one address
        case 15: return i % 4 + 4 * (i / 16);     // lanes 4 apart, per half-warp
        case 16: return 3 - i / 8;                // quarter-warps on one address each, in reverse order
        default: return (i % 2) * 2;              // even lanes on element 0, odd ones on element 2
    }
}

__global__ void shared_float4(float* out, const int* index) {
    __shared__ float4 v[32];
    v[threadIdx.x] = make_float4(1, 2, 3, 4);
    __syncwarp();
    const float4 a = v[index[threadIdx.x]];
    out[threadIdx.x] = a.x + a.y + a.z + a.w;
}

__global__ void shared_float2(float* out, const int* index) {
    __shared__ float2 v[32];
    v[threadIdx.x] = make_float2(5, 6);
    __syncwarp();
    const float2 a = v[index[threadIdx.x]];
    out[threadIdx.x] = a.x + a.y;
}

// A float array read and written as float4s through reinterpret_cast, as the labs' tiles are (lab 5's float4 store
// into Bs, lab 6's float4 loads of As and Bs): each is one 16-byte request, as nvcc makes it, not four of a float.
__global__ void shared_float4_through_floats(float* out) {
    __shared__ float tile[4][128];  // (k, m)
    for (int i = threadIdx.x; i < 4 * 128; i += 32) tile[i / 128][i % 128] = static_cast<float>(i);
    __syncwarp();
    *reinterpret_cast<float4*>(&tile[1][threadIdx.x * 4]) = make_float4(1, 2, 3, 4);
    __syncwarp();
    const float4 a = *reinterpret_cast<const float4*>(&tile[2][threadIdx.x * 4]);
    out[threadIdx.x] = a.x + a.y + a.z + a.w;
}

int main() {
    float *in, *out;
    CHECK(cudaMalloc(&in, 64 * 1024 * sizeof(float)));
    CHECK(cudaMalloc(&out, 1024 * sizeof(float)));
    CHECK(cudaMemset(in, 0, 64 * 1024 * sizeof(float)));
    const int strides[] = {1, 2, 32};
    for (int stride : strides) global_stride<<<1, 32>>>(in, out, stride, 0);
    global_stride<<<1, 32>>>(in, out, 1, 1);  // a misaligned start: 128 bytes over 5 sectors
    global_broadcast<<<1, 32>>>(in, out);
    global_float2<<<1, 32>>>(reinterpret_cast<const float2*>(in), reinterpret_cast<float2*>(out));
    global_float4<<<1, 32>>>(reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out));
    global_half_warp<<<1, 32>>>(in, out);
    global_ragged_loop<<<1, 32>>>(in, out);
    const int shared_strides[] = {1, 2, 32};
    for (int stride : shared_strides) shared_stride<<<1, 32>>>(out, stride);
    shared_broadcast<<<1, 32>>>(out);
    shared_column<<<1, 32>>>(out);
    int* index;
    CHECK(cudaMalloc(&index, kPatterns * 32 * sizeof(int)));
    std::vector<int> table(kPatterns * 32);
    for (int pattern = 0; pattern < kPatterns; ++pattern)
        for (int i = 0; i < 32; ++i) table[pattern * 32 + i] = pattern_index(pattern, i);
    CHECK(cudaMemcpy(index, table.data(), table.size() * sizeof(int), cudaMemcpyHostToDevice));
    for (int pattern = 0; pattern < kPatterns; ++pattern) shared_float4<<<1, 32>>>(out, index + pattern * 32);
    for (int pattern = 0; pattern < kPatterns; ++pattern) shared_float2<<<1, 32>>>(out, index + pattern * 32);
    shared_float4_through_floats<<<1, 32>>>(out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    float host[32];
    CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    printf("out_0: %g\n", host[0]);
    printf("launches: %d\n", 3 + 6 + 3 + 2 + 2 * kPatterns + 1);
    CHECK(cudaFree(index));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    return 0;
}
