"""The lab 3 reference kernel (16×16 boundary-safe tiles) in Numba, run by Numba's CUDA simulator.

    NUMBA_ENABLE_CUDASIM=1 python3 tools/bench-emu/numba_tiled.py N     prints "N seconds" (one launch, synchronised)
"""
import math
import sys
import time

import numpy as np
from numba import cuda, float32

TILE_WIDTH = 16


@cuda.jit
def matmul_tiled_kernel(A, B, C, M, N, K):
    As = cuda.shared.array((TILE_WIDTH, TILE_WIDTH), float32)
    Bs = cuda.shared.array((TILE_WIDTH, TILE_WIDTH), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE_WIDTH + ty
    col = cuda.blockIdx.x * TILE_WIDTH + tx
    acc = float32(0.0)
    for tile in range((K + TILE_WIDTH - 1) // TILE_WIDTH):
        a_col = tile * TILE_WIDTH + tx
        b_row = tile * TILE_WIDTH + ty
        As[ty, tx] = A[row, a_col] if row < M and a_col < K else float32(0.0)
        Bs[ty, tx] = B[b_row, col] if b_row < K and col < N else float32(0.0)
        cuda.syncthreads()
        for k in range(TILE_WIDTH):
            acc += As[ty, k] * Bs[k, tx]
        cuda.syncthreads()
    if row < M and col < N:
        C[row, col] = acc


def main():
    n = int(sys.argv[1])
    rng = np.random.default_rng(1)
    A = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    B = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    C = np.zeros((n, n), np.float32)
    grid = (math.ceil(n / TILE_WIDTH), math.ceil(n / TILE_WIDTH))
    start = time.perf_counter()
    matmul_tiled_kernel[grid, (TILE_WIDTH, TILE_WIDTH)](A, B, C, n, n, n)
    cuda.synchronize()
    seconds = time.perf_counter() - start
    if not np.allclose(C, A.astype(np.float64) @ B, atol=1e-3):
        sys.exit("numba_tiled: wrong result")
    print(n, "%.6f" % seconds)


if __name__ == "__main__":
    main()
