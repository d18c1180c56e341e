// products.cu — random warp matrix products, written out for tools/wmma-agreement/compare.py. The same program
// built with nvcc (on a GPU) and with the emulator's emucc computes the same products; compare.py counts how
// many results agree bit for bit, and how far apart the others are.
//
// Writes DIR/NAME.bin for each case: int32 tiles, int32 K, then A (tiles·16·K), B (tiles·K·16), C (tiles·256) as
// the kernel read them (float; half and bfloat16 cases widen theirs to float) and D (tiles·256 floats).
//
// Usage: products DIR
#include <mma.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace nvcuda;

// One warp per 16×16 tile of D = A·B + C; A is 16×K, B K×16, both row-major.
template <int FK, class T, class Elem>
__global__ void tile_kernel(const Elem* A, const Elem* B, const float* C, float* D, int K, bool convert) {
    const int t = blockIdx.x;
    A += size_t(t) * 16 * K, B += size_t(t) * K * 16, C += t * 256, D += t * 256;
    wmma::fragment<wmma::accumulator, 16, 16, FK, float> acc;
    wmma::load_matrix_sync(acc, C, 16, wmma::mem_row_major);
    for (int k = 0; k < K; k += FK) {
        wmma::fragment<wmma::matrix_a, 16, 16, FK, T, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, FK, T, wmma::row_major> b;
        wmma::load_matrix_sync(a, A + k, K);
        wmma::load_matrix_sync(b, B + size_t(k) * 16, 16);
        if (convert) {
            for (int i = 0; i < a.num_elements; ++i) a.x[i] = wmma::__float_to_tf32(float(a.x[i]));
            for (int i = 0; i < b.num_elements; ++i) b.x[i] = wmma::__float_to_tf32(float(b.x[i]));
        }
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
}

template <class T>
T* to_device(const std::vector<T>& h) {
    T* d = nullptr;
    cudaMalloc(&d, h.size() * sizeof(T));
    cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
    return d;
}

// inputs: 0 uniform in [-1, 1]; 1 the same scaled by 2^e, e uniform in [-20, 20]; 2 uniform, C of the opposite
// sign to A·B's typical sum (cancellation)
template <int FK, class T, class Elem>
bool run_case(const char* dir, const char* name, int tiles, int K, int inputs, bool convert, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_int_distribution<int> e(-20, 20);
    auto draw = [&] {  // one draw after the other: the order of a call's arguments is the compiler's choice
        const float v = u(rng);
        return inputs == 1 ? std::ldexp(v, e(rng)) : v;
    };
    std::vector<Elem> A(size_t(tiles) * 16 * K), B(size_t(tiles) * K * 16);
    std::vector<float> C(tiles * 256), D(tiles * 256);
    for (Elem& v : A) v = Elem(draw());
    for (Elem& v : B) v = Elem(draw());
    for (float& v : C) v = inputs == 2 ? -u(rng) : draw();
    Elem *dA = to_device(A), *dB = to_device(B);
    float *dC = to_device(C), *dD = nullptr;
    cudaMalloc(&dD, D.size() * sizeof(float));
    tile_kernel<FK, T, Elem><<<tiles, 32>>>(dA, dB, dC, dD, K, convert);
    const cudaError_t err = cudaMemcpy(D.data(), dD, D.size() * sizeof(float), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
        std::fprintf(stderr, "products: %s: %s\n", name, cudaGetErrorName(err));
        return false;
    }
    const std::string path = std::string(dir) + "/" + name + ".bin";
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        std::fprintf(stderr, "products: cannot write %s\n", path.c_str());
        return false;
    }
    const int header[2] = {tiles, K};
    std::fwrite(header, sizeof(int), 2, f);
    std::vector<float> wide(A.begin(), A.end());
    std::fwrite(wide.data(), sizeof(float), wide.size(), f);
    wide.assign(B.begin(), B.end());
    std::fwrite(wide.data(), sizeof(float), wide.size(), f);
    std::fwrite(C.data(), sizeof(float), C.size(), f);
    std::fwrite(D.data(), sizeof(float), D.size(), f);
    std::fclose(f);
    cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dD);
    return true;
}

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: products DIR\n");
        return 2;
    }
    using tf32 = wmma::precision::tf32;
    std::mt19937 rng(2026);
    bool ok = run_case<8, tf32, float>(argv[1], "tf32_k8_uniform", 64, 8, 0, false, rng);
    ok &= run_case<8, tf32, float>(argv[1], "tf32_k8_wide_exponents", 64, 8, 1, false, rng);
    ok &= run_case<8, tf32, float>(argv[1], "tf32_k8_cancelling", 64, 8, 2, false, rng);
    ok &= run_case<8, tf32, float>(argv[1], "tf32_k256_converted", 16, 256, 0, true, rng);
    ok &= run_case<16, half, half>(argv[1], "half_k64_uniform", 64, 64, 0, false, rng);
    ok &= run_case<16, __nv_bfloat16, __nv_bfloat16>(argv[1], "bf16_k64_uniform", 64, 64, 0, false, rng);
    return ok ? 0 : 1;
}
