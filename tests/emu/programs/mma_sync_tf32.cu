// The PTX instructions of common/mma_ptx.h, run on chosen inputs whose every result is exact, so that a GPU and
// the CPU emulator print the same bits (tests/emu/gpu_check.sh mma_sync_tf32):
//   ldmatrix: the four (x4) and two (x2) 8×8 matrices of distinct 16-bit numbers, each lane giving the address of
//   a row picked out of order; every lane's registers, in hex.
//   cvt_rna_tf32: values just above, at and below the halfway point between two TF32 numbers, either sign.
//   mma_m16n8k8_tf32: D = A·B + C with small integers (exact sums); A loaded with ldmatrix_x4 and B with
//   ldmatrix_x2 as lab 8's kernels would, against a host product; and one A element with bits below TF32's
//   mantissa, which the tensor core drops (an unconverted input) or rounds first (cvt_rna_tf32).
//
// Build: nvcc -arch=sm_90 -o mma_sync_tf32 tests/emu/programs/mma_sync_tf32.cu

#include <cstdint>
#include <cstring>

#include "../../../common/mma_ptx.h"
#include "program.h"

constexpr int kM = 16, kN = 8, kK = 8;

// Matrix m's element (j, e) is m·64 + j·8 + e; lane l gives row (3·l + 1) % 8 of matrix l / 8, so that a lane's
// registers show both which lane's address gave each row and which elements of it it holds.
__global__ void ldmatrix_kernel(uint32_t* out) {
    __shared__ alignas(16) uint16_t tiles[4][8][8];
    const int lane = threadIdx.x;
    for (int i = lane; i < 4 * 8 * 8; i += 32) tiles[i / 64][i / 8 % 8][i % 8] = static_cast<uint16_t>(i);
    __syncthreads();
    const int matrix = lane / 8, row = (3 * lane + 1) % 8;
    uint32_t r4[4], r2[2];
    ldmatrix_x4(r4, &tiles[matrix][row][0]);
    ldmatrix_x2(r2, &tiles[matrix % 2][row][0]);
    for (int i = 0; i < 4; ++i) out[lane * 6 + i] = r4[i];
    for (int i = 0; i < 2; ++i) out[lane * 6 + 4 + i] = r2[i];
}

__global__ void cvt_kernel(const float* in, uint32_t* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = cvt_rna_tf32(in[i]);
}

// D = A·B + C, A (16×8) and B (8×8) row-major in global memory. As holds A row-major; Bs holds B's transpose
// (Bs[n][k]), so that each ldmatrix row is 4 consecutive floats of the fragments' k.
__global__ void mma_kernel(const float* A, const float* B, const float* C, float* D, int convert) {
    __shared__ alignas(16) float As[kM][kK];
    __shared__ alignas(16) float Bs[kN][kK];
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    for (int i = lane; i < kM * kK; i += 32) As[i / kK][i % kK] = A[i];
    for (int i = lane; i < kK * kN; i += 32) Bs[i % kN][i / kN] = B[i];
    __syncthreads();
    uint32_t a[4], b[2];
    ldmatrix_x4(a, &As[lane % 16][4 * (lane / 16)]);
    ldmatrix_x2(b, &Bs[lane % 8][4 * ((lane / 8) % 2)]);
    if (convert) {
        for (int i = 0; i < 4; ++i) a[i] = cvt_rna_tf32(__uint_as_float(a[i]));
        for (int i = 0; i < 2; ++i) b[i] = cvt_rna_tf32(__uint_as_float(b[i]));
    }
    float c[4], d[4];
    for (int i = 0; i < 4; ++i) c[i] = C[(g + 8 * (i / 2)) * kN + 2 * t + i % 2];
    mma_m16n8k8_tf32(d, a, b, c);
    for (int i = 0; i < 4; ++i) D[(g + 8 * (i / 2)) * kN + 2 * t + i % 2] = d[i];
}

uint32_t bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

void check_ldmatrix() {
    uint32_t* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, 32 * 6 * sizeof(uint32_t)));
    ldmatrix_kernel<<<1, 32>>>(d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> out(32 * 6);
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    for (int lane = 0; lane < 32; ++lane) {
        std::printf("ldmatrix_lane_%d:", lane);
        for (int i = 0; i < 6; ++i) std::printf(" %08x", out[lane * 6 + i]);
        std::printf("\n");
    }
    CHECK(cudaFree(d_out));
}

void check_cvt() {
    const float one = 1.0f, ulp = 1.0f / 1024;  // TF32's spacing above 1
    const std::vector<float> in = {one + ulp / 2,  one + ulp / 2 - ulp / 8, one + ulp / 2 + ulp / 8,
                                   one + 3 * ulp / 2, -(one + ulp / 2), 3.0f + ulp / 4, 1e-3f, -123.456f};
    float* d_in = nullptr;
    uint32_t* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, in.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_out, in.size() * sizeof(uint32_t)));
    CHECK(cudaMemcpy(d_in, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
    cvt_kernel<<<1, 32>>>(d_in, d_out, static_cast<int>(in.size()));
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> out(in.size());
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < in.size(); ++i) std::printf("cvt_%zu: %08x -> %08x\n", i, bits(in[i]), out[i]);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
}

// D of one mma: printed as bits, and compared with the host's product where every sum is exact.
std::vector<float> run_mma(const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& C,
                           int convert) {
    float *d_A = nullptr, *d_B = nullptr, *d_C = nullptr, *d_D = nullptr;
    CHECK(cudaMalloc(&d_A, A.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_B, B.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_C, C.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_D, C.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_A, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_B, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_C, C.data(), C.size() * sizeof(float), cudaMemcpyHostToDevice));
    mma_kernel<<<1, 32>>>(d_A, d_B, d_C, d_D, convert);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> D(C.size());
    CHECK(cudaMemcpy(D.data(), d_D, D.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (float *p : {d_A, d_B, d_C, d_D}) CHECK(cudaFree(p));
    return D;
}

std::vector<float> host_product(const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& C) {
    std::vector<float> D(kM * kN);
    for (int i = 0; i < kM; ++i)
        for (int j = 0; j < kN; ++j) {
            double sum = C[i * kN + j];
            for (int k = 0; k < kK; ++k) sum += double(A[i * kK + k]) * B[k * kN + j];
            D[i * kN + j] = static_cast<float>(sum);
        }
    return D;
}

void check_mma() {
    std::vector<float> A(kM * kK), B(kK * kN), C(kM * kN);
    for (int i = 0; i < kM * kK; ++i) A[i] = static_cast<float>((i * 7) % 11 - 5);
    for (int i = 0; i < kK * kN; ++i) B[i] = static_cast<float>((i * 5) % 9 - 4) / 2;
    for (int i = 0; i < kM * kN; ++i) C[i] = static_cast<float>(i % 13) * 4;
    print_compare("mma_integers", run_mma(A, B, C, 0), host_product(A, B, C));

    // A[0][0] = 1 + 3/4 of TF32's step: unconverted, the tensor core drops it (1); converted, it rounds up (1 + step)
    const float step = 1.0f / 1024;
    std::vector<float> ones(kK * kN, 1.0f), zeros(kM * kN, 0.0f), low(kM * kK, 0.0f);
    low[0] = 1.0f + 3 * step / 4;
    const std::vector<float> dropped = run_mma(low, ones, zeros, 0), rounded = run_mma(low, ones, zeros, 1);
    std::printf("mma_unconverted_d00: %08x (1 is %08x)\n", bits(dropped[0]), bits(1.0f));
    std::printf("mma_converted_d00: %08x (1 + 1/1024 is %08x)\n", bits(rounded[0]), bits(1.0f + step));
    for (int p = 0; p < 2; ++p) {
        const std::vector<float>& D = p ? rounded : dropped;
        int other = 0;
        for (int i = 1; i < kM * kN; ++i) other += D[i] != (i < kN ? D[0] : 0.0f);
        std::printf("mma_%s_rest: %d elements differ from the expected\n", p ? "converted" : "unconverted", other);
    }
}

int main() {
    check_ldmatrix();
    check_cvt();
    check_mma();
    return 0;
}
