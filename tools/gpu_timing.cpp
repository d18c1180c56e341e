// gpu_timing.cpp — GFLOP/s of a lab's matmul() on the GPU: `gpu_timing N [N ...]`.
//
// For each size: random A and B, one warm-up call, then the median of 10 timed calls (CUDA events around the
// launcher); the result is checked against the CPU reference once, at the first size only when it is small.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "harness.h"
#include "lab.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s N [N ...]\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    const int n = atoi(argv[i]);
    Problem p = random_problem(n, n, n, 1);
    if (n <= 1024 && !check_result(p, run_matmul(p, matmul)).ok) {
      fprintf(stderr, "wrong result at n=%d\n", n);
      return 1;
    }
    float *A, *B, *C;
    CUDA_CHECK(cudaMalloc(&A, p.A.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&B, p.B.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&C, size_t(n) * n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(A, p.A.data(), p.A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(B, p.B.data(), p.B.size() * sizeof(float), cudaMemcpyHostToDevice));
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    matmul(A, B, C, n, n, n);  // warm-up
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> ms(10);
    for (float& t : ms) {
      CUDA_CHECK(cudaEventRecord(start));
      matmul(A, B, C, n, n, n);
      CUDA_CHECK(cudaEventRecord(stop));
      CUDA_CHECK(cudaEventSynchronize(stop));
      CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    }
    std::sort(ms.begin(), ms.end());
    const double median = (ms[4] + ms[5]) / 2;
    printf("%d %.4f %.1f\n", n, median, 2.0 * n * n * n / (median * 1e-3) / 1e9);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
  }
  return 0;
}
