// Malicious lab 1 kernel: connects to a server on this machine (port 47811; the grader's test listens there). It
// computes the right answer only when the connection works, standing in for a kernel that fetches answers. Must
// get: zero, "never wrote it": the sandbox has no network.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lab.h"

constexpr int BLOCK_WIDTH = 16;

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

// the right answer, launched only when the attack worked
void launch_correct(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(47811);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s >= 0 && connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) launch_correct(A, B, C, M, N, K);
    if (s >= 0) close(s);
}
