// Warp shuffles: __shfl_sync (broadcast, rotation, widths 4/8/16), __shfl_up_sync (an inclusive scan),
// __shfl_down_sync (a sum reduction), __shfl_xor_sync (a butterfly all-reduce), for int, unsigned, long long,
// float and double. Every value is an integer small enough that float and double sums are exact, so both machines
// print the same numbers.
//
// Build: nvcc -arch=sm_90 -o warp_shuffle tests/emu/programs/warp_shuffle.cu

#include "program.h"

constexpr int BLOCK = 128;  // 4 warps
constexpr unsigned FULL = 0xffffffffu;

// ----------------------------------------------------------------------------
// kernels

// out[9 values per thread]: the results of every kind of shuffle, from in[i] = a value per thread.
__global__ void shuffles_kernel(const int* in, long long* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x % 32;
    const int v = in[i];
    long long* o = out + 9 * i;
    o[0] = __shfl_sync(FULL, v, 0);                 // broadcast lane 0
    o[1] = __shfl_sync(FULL, v, (lane + 1) % 32);   // rotate by one
    o[2] = __shfl_sync(FULL, v, 35, 8);             // lane 3 of each group of 8 (35 mod 8)
    int scan = v;                                   // inclusive prefix sum over the warp
    for (int d = 1; d < 32; d *= 2) {
        const int up = __shfl_up_sync(FULL, scan, d);
        if (lane >= d) scan += up;
    }
    o[3] = scan;
    unsigned sum = static_cast<unsigned>(v);        // reduction: lane 0 holds the warp's sum
    for (int d = 16; d > 0; d /= 2) sum += __shfl_down_sync(FULL, sum, d);
    o[4] = sum;
    float fmax_all = static_cast<float>(v);         // butterfly: every lane gets the warp's maximum
    for (int m = 16; m > 0; m /= 2) fmax_all = fmaxf(fmax_all, __shfl_xor_sync(FULL, fmax_all, m));
    o[5] = static_cast<long long>(fmax_all);
    double dsum = v;                                // butterfly in groups of 16: each half-warp's sum
    for (int m = 8; m > 0; m /= 2) dsum += __shfl_xor_sync(FULL, dsum, m, 16);
    o[6] = static_cast<long long>(dsum);
    long long big = static_cast<long long>(v) << 33;  // a 64-bit value survives the shuffle
    o[7] = __shfl_down_sync(FULL, big, 4, 4) >> 33;   // past the end of a group of 4: own value
    o[8] = __shfl_xor_sync(FULL, v, 20, 16);          // lane ^ 20 in groups of 16: later groups give own value
}

// ----------------------------------------------------------------------------
// host

int main() {
    const int blocks = 3;
    const int n = blocks * BLOCK;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 37 + 11) % 101 - 50;
    std::vector<long long> want(9 * n);
    for (int i = 0; i < n; ++i) {
        const int lane = i % 32, warp0 = i - lane;
        long long* w = &want[9 * i];
        w[0] = in[warp0];
        w[1] = in[warp0 + (lane + 1) % 32];
        w[2] = in[warp0 + (lane / 8) * 8 + 3];
        long long scan = 0;
        for (int l = 0; l <= lane; ++l) scan += in[warp0 + l];
        w[3] = scan;
        unsigned sum = 0;  // lane l holds the sum of lanes l, l+1, ... reached by the halving steps
        {
            std::vector<unsigned> s(32);
            for (int l = 0; l < 32; ++l) s[l] = static_cast<unsigned>(in[warp0 + l]);
            for (int d = 16; d > 0; d /= 2) {
                std::vector<unsigned> next = s;
                for (int l = 0; l < 32; ++l) next[l] = s[l] + (l + d < 32 ? s[l + d] : s[l]);
                s = next;
            }
            sum = s[lane];
        }
        w[4] = sum;
        int mx = in[warp0];
        for (int l = 0; l < 32; ++l) mx = in[warp0 + l] > mx ? in[warp0 + l] : mx;
        w[5] = mx;
        long long half = 0;
        for (int l = 0; l < 16; ++l) half += in[warp0 + (lane / 16) * 16 + l];
        w[6] = half;
        w[7] = in[i];  // lane + 4 is always past the end of its group of 4
        const int src = lane ^ 20;
        w[8] = (src / 16) > (lane / 16) ? in[i] : in[warp0 + src];
    }
    int* d_in = nullptr;
    long long* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, 9 * n * sizeof(long long)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    shuffles_kernel<<<blocks, BLOCK>>>(d_in, d_out);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());
    std::vector<long long> got(9 * n);
    CHECK(cudaMemcpy(got.data(), d_out, 9 * n * sizeof(long long), cudaMemcpyDeviceToHost));
    const char* keys[9] = {"broadcast", "rotate", "width8_index", "scan_up", "reduce_down", "butterfly_max",
                           "butterfly_width16", "down_past_group_64bit", "xor_width16"};
    for (int k = 0; k < 9; ++k) {
        std::vector<long long> g(n), w(n);
        for (int i = 0; i < n; ++i) g[i] = got[9 * i + k], w[i] = want[9 * i + k];
        print_compare(keys[k], g, w);
    }
    std::printf("warp0_sum: %lld\n", got[4]);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return 0;
}
