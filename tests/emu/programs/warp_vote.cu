// Warp votes, matches and reductions: __ballot_sync, __any_sync, __all_sync, __activemask (converged and inside a
// branch), __match_any_sync, __match_all_sync, __reduce_{add,min,max,and,or,xor}_sync; a shared-memory reduction
// made correct on Volta with __syncwarp(); and __syncthreads_count/and/or.
//
// Build: nvcc -arch=sm_90 -o warp_vote tests/emu/programs/warp_vote.cu

#include "program.h"

constexpr int BLOCK = 64;  // 2 warps
constexpr unsigned FULL = 0xffffffffu;
constexpr int OUTS = 17;   // values per thread

// ----------------------------------------------------------------------------
// kernels

__global__ void votes_kernel(const int* in, unsigned* out) {
    __shared__ int partial[BLOCK];  // (BLOCK): one value per thread, reduced per warp
    const int t = threadIdx.x;
    const int lane = t % 32;
    const int v = in[blockIdx.x * BLOCK + t];
    unsigned* o = out + OUTS * (blockIdx.x * BLOCK + t);
    o[0] = __ballot_sync(FULL, v > 0);
    o[1] = __any_sync(FULL, v == 7);
    o[2] = __all_sync(FULL, v > -100);
    o[3] = __activemask();
    if (lane < 10) {
        o[4] = __activemask();  // only the lanes that took the branch
    } else {
        o[4] = 0;
    }
    o[5] = __match_any_sync(FULL, v % 3);
    int all_same = -1;
    o[6] = __match_all_sync(FULL, lane / 32, &all_same);
    o[7] = static_cast<unsigned>(all_same);
    o[8] = static_cast<unsigned>(__reduce_add_sync(FULL, v));
    o[9] = static_cast<unsigned>(__reduce_min_sync(FULL, v));
    o[10] = __reduce_max_sync(FULL, static_cast<unsigned>(v + 100));
    o[11] = __reduce_xor_sync(FULL, static_cast<unsigned>(v));
    o[12] = __reduce_or_sync(FULL, 1u << (lane % 8));
    // warp-synchronous tree reduction in shared memory: __syncwarp() between every read and write
    partial[t] = v;
    __syncwarp();
    for (int d = 16; d > 0; d /= 2) {
        int other = 0;
        if (lane < d) other = partial[t + d];
        __syncwarp();
        if (lane < d) partial[t] += other;
        __syncwarp();
    }
    o[13] = static_cast<unsigned>(partial[t - lane]);
    o[14] = static_cast<unsigned>(__syncthreads_count(v > 0));
    o[15] = static_cast<unsigned>(__syncthreads_and(v > -100) * 2 + __syncthreads_or(v == 1000));
    const unsigned half = lane < 16 ? 0x0000ffffu : 0xffff0000u;  // each half-warp reduces on its own
    o[16] = __reduce_and_sync(half, static_cast<unsigned>(v + 200));
}

// ----------------------------------------------------------------------------
// host

int main() {
    const int blocks = 2;
    const int n = blocks * BLOCK;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 53 + 7) % 41 - 20;
    std::vector<unsigned> want(OUTS * n);
    for (int i = 0; i < n; ++i) {
        const int lane = i % 32, w0 = i - lane, b0 = i - i % BLOCK;
        unsigned* w = &want[OUTS * i];
        unsigned ballot = 0, match = 0, orbits = 0, xorv = 0;
        bool any7 = false, all = true;
        int sum = 0, mn = in[w0];
        unsigned mx = 0;
        for (int l = 0; l < 32; ++l) {
            const int x = in[w0 + l];
            if (x > 0) ballot |= 1u << l;
            if (x % 3 == in[i] % 3) match |= 1u << l;
            any7 = any7 || x == 7;
            all = all && x > -100;
            sum += x;
            mn = x < mn ? x : mn;
            mx = static_cast<unsigned>(x + 100) > mx ? static_cast<unsigned>(x + 100) : mx;
            xorv ^= static_cast<unsigned>(x);
            orbits |= 1u << (l % 8);
        }
        int positive = 0;
        for (int t = 0; t < BLOCK; ++t) positive += in[b0 + t] > 0;
        w[0] = ballot;
        w[1] = any7;
        w[2] = all;
        w[3] = FULL;
        w[4] = lane < 10 ? 0x3ffu : 0u;
        w[5] = match;
        w[6] = FULL;
        w[7] = 1;
        w[8] = static_cast<unsigned>(sum);
        w[9] = static_cast<unsigned>(mn);
        w[10] = mx;
        w[11] = xorv;
        w[12] = orbits;
        w[13] = static_cast<unsigned>(sum);
        w[14] = static_cast<unsigned>(positive);
        w[15] = 2;
        unsigned band = FULL;
        for (int l = 0; l < 16; ++l) band &= static_cast<unsigned>(in[w0 + (lane / 16) * 16 + l] + 200);
        w[16] = band;
    }
    int* d_in = nullptr;
    unsigned* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, OUTS * n * sizeof(unsigned)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    votes_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<unsigned> got(OUTS * n);
    CHECK(cudaMemcpy(got.data(), d_out, OUTS * n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    const char* keys[OUTS] = {"ballot", "any", "all", "activemask", "activemask_in_branch", "match_any",
                              "match_all", "match_all_pred", "reduce_add", "reduce_min", "reduce_max",
                              "reduce_xor", "reduce_or", "syncwarp_shared_sum", "syncthreads_count",
                              "syncthreads_and_or", "reduce_and_half_warps"};
    for (int k = 0; k < OUTS; ++k) {
        std::vector<unsigned> g(n), w(n);
        for (int i = 0; i < n; ++i) g[i] = got[OUTS * i + k], w[i] = want[OUTS * i + k];
        print_compare(keys[k], g, w);
    }
    std::printf("warp0_ballot: 0x%08x\n", got[0]);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return 0;
}
