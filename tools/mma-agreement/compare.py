"""compare.py — whether the emulator's PTX matrix instructions (common/mma_ptx.h) give a GPU's bits: reads the .bin
files that tools/mma-agreement/probe.cu wrote on each (same program, same seed) and prints, per case, how many of
its outputs differ, how many of those are NaN on both sides (a different NaN), and the first difference. Exits 1 if
any output differs, or if the two sides did not run the same cases on the same inputs.

Usage: python3 tools/mma-agreement/compare.py GPU_DIR EMU_DIR
Run on a machine with a GPU by tools/mma-agreement/run.sh."""
import os
import struct
import sys

MMA_IN, MMA_OUT = 32 * (4 + 2 + 4), 32 * 4  # one mma's words in the files: every lane's a[4], b[2], c[4]; d[4]


def read(path):
    """(inputs, outputs, floats) of one case: two tuples of 32-bit words and whether the outputs are floats."""
    with open(path, "rb") as f:
        data = f.read()
    n_in, n_out, floats = struct.unpack_from("<3i", data)
    if len(data) != 12 + 4 * (n_in + n_out):
        sys.exit("compare.py: %s: %d bytes, not the %d its header gives" % (path, len(data), 12 + 4 * (n_in + n_out)))
    words = struct.unpack_from("<%dI" % (n_in + n_out), data, 12)
    return words[:n_in], words[n_in:], bool(floats)


def is_nan(bits):
    return bits & 0x7f800000 == 0x7f800000 and bits & 0x7fffff != 0


def where(name, inputs, index):
    """Which instruction and register output `index` of case `name` is."""
    if name == "cvt_rna_tf32":
        return "cvt_rna_tf32(0x%08x)" % inputs[index]
    if name.startswith("lanes_ldmatrix"):
        matrices = 4 if name.endswith("x4") else 2
        lane = index // matrices
        return "experiment %d, lane %d, r[%d]" % (lane // 32, lane % 32, index % matrices)
    return "mma %d, lane %d, d[%d]" % (index // MMA_OUT, index % MMA_OUT // 4, index % 4)


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: compare.py GPU_DIR EMU_DIR")
    gpu_dir, emu_dir = argv[1], argv[2]
    names = sorted(n[:-4] for n in os.listdir(gpu_dir) if n.endswith(".bin"))
    emu_names = sorted(n[:-4] for n in os.listdir(emu_dir) if n.endswith(".bin"))
    if not names or names != emu_names:
        sys.exit("compare.py: the two sides wrote different cases: %s and %s" % (names, emu_names))
    print("| case | outputs | differing | both NaN | first difference (GPU, emulator) |")
    print("|---|---:|---:|---:|---|")
    differing_cases = 0
    for name in names:
        inputs, gpu, floats = read(os.path.join(gpu_dir, name + ".bin"))
        emu_inputs, emu, _ = read(os.path.join(emu_dir, name + ".bin"))
        if inputs != emu_inputs or len(gpu) != len(emu):
            sys.exit("compare.py: %s: the inputs differ: not the same program or seed" % name)
        diffs = [i for i, (g, e) in enumerate(zip(gpu, emu)) if g != e]
        nans = sum(1 for i in diffs if floats and is_nan(gpu[i]) and is_nan(emu[i]))
        first = ("%s: 0x%08x, 0x%08x" % (where(name, inputs, diffs[0]), gpu[diffs[0]], emu[diffs[0]])) if diffs else ""
        print("| %s | %d | %d | %s | %s |" % (name, len(gpu), len(diffs), nans if floats else "", first))
        differing_cases += bool(diffs)
    print("%d of %d cases give the same bits on both sides" % (len(names) - differing_cases, len(names)))
    return 1 if differing_cases else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
