"""compare.py — how closely the emulator's warp matrix products match a GPU's: reads the .bin files that
tools/wmma-agreement/products.cu wrote on each (same program, same seed) and prints, per case, how many of the
results are the same bits, and the largest difference of the others in units of the last place (ulp) of the
larger result and in units of 2^-23 times the sum of the magnitudes of the terms (the products and C).

Usage: python3 tools/wmma-agreement/compare.py GPU_DIR EMU_DIR
Run on a machine with a GPU by tools/wmma-agreement/run.sh."""
import math
import os
import struct
import sys


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    tiles, K = struct.unpack_from("<2i", data)
    sizes = [tiles * 16 * K, tiles * K * 16, tiles * 256, tiles * 256]
    arrays, offset = [], 8
    for n in sizes:
        arrays.append(struct.unpack_from("<%df" % n, data, offset))
        offset += 4 * n
    return tiles, K, arrays


def magnitudes(tiles, K, A, B, C):
    """Sum of |C| and |a·b| over k, per result."""
    out = []
    for t in range(tiles):
        for i in range(16):
            for j in range(16):
                s = abs(C[t * 256 + i * 16 + j])
                for k in range(K):
                    s += abs(A[t * 16 * K + i * K + k] * B[t * K * 16 + k * 16 + j])
                out.append(s)
    return out


def ulp(x):
    """The spacing of floats (binary32) at x: 2^(e - 23) for x in [2^e, 2^(e+1)), 2^-149 below the normals."""
    return 2.0 ** (max(math.frexp(x)[1] - 1, -126) - 23) if x else 2.0 ** -149


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: compare.py GPU_DIR EMU_DIR")
    gpu_dir, emu_dir = argv[1], argv[2]
    print("| case | results | same bits | largest difference (ulp) | largest difference (2^-23 of the terms) |")
    print("|---|---:|---:|---:|---:|")
    for name in sorted(os.listdir(gpu_dir)):
        if not name.endswith(".bin"):
            continue
        tiles, K, (A, B, C, D_gpu) = read(os.path.join(gpu_dir, name))
        _, _, (A2, B2, C2, D_emu) = read(os.path.join(emu_dir, name))
        if (A, B, C) != (A2, B2, C2):
            sys.exit("compare.py: %s: the inputs differ: not the same program or seed" % name)
        mags = magnitudes(tiles, K, A, B, C)
        same, worst_ulp, worst_rel = 0, 0.0, 0.0
        for g, e, m in zip(D_gpu, D_emu, mags):
            if struct.pack("<f", g) == struct.pack("<f", e):
                same += 1
                continue
            d = abs(g - e)
            worst_ulp = max(worst_ulp, d / ulp(max(abs(g), abs(e))))
            worst_rel = max(worst_rel, d / (m * 2.0 ** -23) if m else math.inf)
        print("| %s | %d | %d (%.1f %%) | %.0f | %.2f |" % (name[:-4], len(D_gpu), same, 100.0 * same / len(D_gpu),
                                                             worst_ulp, worst_rel))


if __name__ == "__main__":
    main(sys.argv)
