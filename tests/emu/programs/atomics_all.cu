// Every atomic function CUDA has besides atomicAdd on int/float, on every type it has it for, in global and in
// shared memory. Each result is independent of the order the threads run in: a final value, or the sum of the
// old values the calls returned plus the final value (for exchanges), which every order gives alike.
//
// Build: nvcc -arch=sm_90 -o atomics_all tests/emu/programs/atomics_all.cu

#include "program.h"

constexpr int N = 4099;  // threads; prime, so the last block is partial
constexpr int THREADS = 128;

struct Results {
    int sub_int;
    unsigned int sub_uint;
    long long exch_int_sum;
    unsigned long long exch_ull_sum;
    double exch_float_sum;
    int min_int, max_int;
    unsigned int min_uint, max_uint;
    long long min_ll, max_ll;
    unsigned long long min_ull, max_ull;
    unsigned int inc, dec;
    int cas_count;
    unsigned long long cas_ull_count;
    unsigned int and_bits, or_bits, xor_bits;
    unsigned long long and_ull, or_ull, xor_ull;
    unsigned long long add_ull;
    double add_double;
    int shared_max_sum;  // per block: atomicMax in shared memory, summed over blocks with atomicAdd_system
    int block_scope_count;
};

// ----------------------------------------------------------------------------
// kernels

__global__ void atomics_kernel(Results* r, int* exch_int, unsigned long long* exch_ull, float* exch_float,
                               unsigned short* cas_short) {
    __shared__ int block_max;
    if (threadIdx.x == 0) block_max = -1;
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        atomicSub(&r->sub_int, 3);
        atomicSub(&r->sub_uint, 1u);
        atomicAdd(reinterpret_cast<unsigned long long*>(&r->exch_int_sum), (long long)atomicExch(exch_int, i));
        atomicAdd(&r->exch_ull_sum, atomicExch(exch_ull, (unsigned long long)i << 33));
        atomicAdd(&r->exch_float_sum, (double)atomicExch(exch_float, 0.5f * i));
        const int v = (i * 7919) % 10007 - 5000;  // distinct values of both signs
        atomicMin(&r->min_int, v);
        atomicMax(&r->max_int, v);
        atomicMin(&r->min_uint, (unsigned)(v + 5000));
        atomicMax(&r->max_uint, (unsigned)(v + 5000));
        atomicMin(&r->min_ll, (long long)v << 32);
        atomicMax(&r->max_ll, (long long)v << 32);
        atomicMin(&r->min_ull, (unsigned long long)(v + 5000) << 32);
        atomicMax(&r->max_ull, (unsigned long long)(v + 5000) << 32);
        atomicInc(&r->inc, 9u);   // counts 0..9 and wraps to 0
        atomicDec(&r->dec, 9u);   // counts down from 0: wraps to 9
        int old = r->cas_count, seen;
        while ((seen = atomicCAS(&r->cas_count, old, old + 1)) != old) old = seen;
        unsigned long long old_ull = r->cas_ull_count, seen_ull;
        while ((seen_ull = atomicCAS(&r->cas_ull_count, old_ull, old_ull + 3)) != old_ull) old_ull = seen_ull;
        atomicCAS(cas_short, (unsigned short)0, (unsigned short)(i + 1));  // only the first call stores
        atomicAnd(&r->and_bits, ~(1u << (i % 32)));
        atomicOr(&r->or_bits, 1u << (i % 29));
        atomicXor(&r->xor_bits, (unsigned)i);
        atomicAnd(&r->and_ull, ~(1ull << (i % 64)));
        atomicOr(&r->or_ull, 1ull << (i % 61));
        atomicXor(&r->xor_ull, (unsigned long long)i << 20);
        atomicAdd(&r->add_ull, (unsigned long long)i << 30);
        atomicAdd(&r->add_double, 0.25);
        atomicMax(&block_max, i);
        atomicAdd_block(&r->block_scope_count, 1);
    }
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd_system(&r->shared_max_sum, block_max);
}

// ----------------------------------------------------------------------------
// host

int main() {
    Results init{};
    init.sub_int = 0;
    init.sub_uint = 5 * N;
    init.min_int = 1 << 30, init.max_int = -(1 << 30);
    init.min_uint = 0xffffffffu, init.max_uint = 0;
    init.min_ll = 1ll << 62, init.max_ll = -(1ll << 62);
    init.min_ull = ~0ull, init.max_ull = 0;
    init.and_bits = 0xffffffffu, init.or_bits = 0, init.xor_bits = 0;
    init.and_ull = ~0ull, init.or_ull = 0, init.xor_ull = 0;

    Results* d_r = nullptr;
    int* d_exch_int = nullptr;
    unsigned long long* d_exch_ull = nullptr;
    float* d_exch_float = nullptr;
    unsigned short* d_cas_short = nullptr;
    CHECK(cudaMalloc(&d_r, sizeof(Results)));
    CHECK(cudaMalloc(&d_exch_int, sizeof(int)));
    CHECK(cudaMalloc(&d_exch_ull, sizeof(unsigned long long)));
    CHECK(cudaMalloc(&d_exch_float, sizeof(float)));
    CHECK(cudaMalloc(&d_cas_short, 2 * sizeof(unsigned short)));
    CHECK(cudaMemcpy(d_r, &init, sizeof(Results), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_exch_int, 0, sizeof(int)));
    CHECK(cudaMemset(d_exch_ull, 0, sizeof(unsigned long long)));
    CHECK(cudaMemset(d_exch_float, 0, sizeof(float)));
    CHECK(cudaMemset(d_cas_short, 0, 2 * sizeof(unsigned short)));

    atomics_kernel<<<(N + THREADS - 1) / THREADS, THREADS>>>(d_r, d_exch_int, d_exch_ull, d_exch_float, d_cas_short);
    print_error("launch", cudaGetLastError());
    print_error("sync", cudaDeviceSynchronize());

    Results r{};
    int exch_int = 0;
    unsigned long long exch_ull = 0;
    float exch_float = 0;
    unsigned short cas_short = 0;
    CHECK(cudaMemcpy(&r, d_r, sizeof(Results), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&exch_int, d_exch_int, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&exch_ull, d_exch_ull, sizeof(exch_ull), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&exch_float, d_exch_float, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&cas_short, d_cas_short, sizeof(cas_short), cudaMemcpyDeviceToHost));

    // what any order of the calls gives, computed here
    long long ids = 0;
    unsigned int xor_bits = 0;
    unsigned long long xor_ull = 0, add_ull = 0, ids_ull = 0;
    int min_v = 1 << 30, max_v = -(1 << 30), shared_max_sum = 0;
    for (int i = 0; i < N; ++i) {
        ids += i;
        ids_ull += (unsigned long long)i << 33;
        xor_bits ^= (unsigned)i;
        xor_ull ^= (unsigned long long)i << 20;
        add_ull += (unsigned long long)i << 30;
        const int v = (i * 7919) % 10007 - 5000;
        min_v = v < min_v ? v : min_v;
        max_v = v > max_v ? v : max_v;
        if (i % THREADS == THREADS - 1 || i == N - 1) shared_max_sum += i;
    }
    double floats = 0;
    for (int i = 0; i < N; ++i) floats += 0.5f * i;
    auto verdict = [](bool ok) { return ok ? "pass" : "FAIL"; };
    std::printf("atomicSub_int: %d\n", r.sub_int);
    std::printf("atomicSub_uint: %u\n", r.sub_uint);
    std::printf("atomicExch_int: %s\n", verdict(r.exch_int_sum + exch_int == ids));
    std::printf("atomicExch_ull: %s\n", verdict(r.exch_ull_sum + exch_ull == ids_ull));
    std::printf("atomicExch_float: %s\n", verdict(r.exch_float_sum + exch_float == floats));
    std::printf("atomicMin_Max_int: %d %d %s\n", r.min_int, r.max_int,
                verdict(r.min_int == min_v && r.max_int == max_v));
    std::printf("atomicMin_Max_uint: %u %u\n", r.min_uint, r.max_uint);
    std::printf("atomicMin_Max_ll: %lld %lld\n", r.min_ll, r.max_ll);
    std::printf("atomicMin_Max_ull: %llu %llu\n", r.min_ull, r.max_ull);
    std::printf("atomicInc: %u\n", r.inc);
    std::printf("atomicDec: %u\n", r.dec);
    std::printf("atomicCAS_int: %d\n", r.cas_count);
    std::printf("atomicCAS_ull: %llu\n", r.cas_ull_count);
    std::printf("atomicCAS_ushort: %s\n", verdict(cas_short >= 1 && cas_short <= N));
    std::printf("atomicAnd_Or_Xor: %08x %08x %08x %s\n", r.and_bits, r.or_bits, r.xor_bits,
                verdict(r.xor_bits == xor_bits));
    std::printf("atomicAnd_Or_Xor_ull: %016llx %016llx %016llx %s\n", r.and_ull, r.or_ull, r.xor_ull,
                verdict(r.xor_ull == xor_ull));
    std::printf("atomicAdd_ull: %llu %s\n", r.add_ull, verdict(r.add_ull == add_ull));
    std::printf("atomicAdd_double: %.2f\n", r.add_double);
    std::printf("shared_atomicMax: %d %s\n", r.shared_max_sum, verdict(r.shared_max_sum == shared_max_sum));
    std::printf("atomicAdd_block: %d\n", r.block_scope_count);

    CHECK(cudaFree(d_r));
    CHECK(cudaFree(d_exch_int));
    CHECK(cudaFree(d_exch_ull));
    CHECK(cudaFree(d_exch_float));
    CHECK(cudaFree(d_cas_short));
    return 0;
}
