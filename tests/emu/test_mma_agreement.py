"""tools/mma-agreement: the probe built by the emulator runs, and the lane maps it records are those common/mma_ptx.h
documents, computed here from the header's formulas; compare.py finds a single flipped bit.

The probe's files hold every lane's registers before and after each instruction (probe.cu's header): here each
mma's registers are placed in matrices A, B and C by the documented maps, D = A·B + C is computed exactly, and its
documented map gives what every lane's d[i] must be; each ldmatrix register is the documented row's elements."""
import os
import shutil
import struct
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TOOL = os.path.join(ROOT, "tools", "mma-agreement")


def read(path):
    """(input words, output words) of one of the probe's files."""
    with open(path, "rb") as f:
        data = f.read()
    n_in, n_out, _ = struct.unpack_from("<3i", data)
    words = struct.unpack_from("<%dI" % (n_in + n_out), data, 12)
    return list(words[:n_in]), list(words[n_in:])


def as_float(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


# mma_ptx.h's maps, with g = lane / 4 and t = lane % 4: the matrix element of each lane's register
def a_at(lane, i):
    return lane // 4 + 8 * (i % 2), lane % 4 + 4 * (i // 2)


def b_at(lane, i):
    return lane % 4 + 4 * i, lane // 4


def cd_at(lane, i):
    return lane // 4 + 8 * (i // 2), 2 * (lane % 4) + i % 2


def expected_d(words):
    """Every lane's d[4] of one mma, from its input words (every lane's a[4], then b[2], then c[4])."""
    A, B, C = {}, {}, {}
    for lane in range(32):
        for i in range(4):
            A[a_at(lane, i)] = as_float(words[lane * 4 + i])
            C[cd_at(lane, i)] = as_float(words[192 + lane * 4 + i])
        for i in range(2):
            B[b_at(lane, i)] = as_float(words[128 + lane * 2 + i])
    return [C[cd_at(lane, i)] + sum(A[cd_at(lane, i)[0], k] * B[k, cd_at(lane, i)[1]] for k in range(8))
            for lane in range(32) for i in range(4)]


def mma_mismatches(inputs, outputs):
    """(count, first) of the d registers that differ from the documented maps' product."""
    count, first = 0, None
    for m in range(len(inputs) // 320):
        want = expected_d(inputs[m * 320:(m + 1) * 320])
        for j, w in enumerate(want):
            got = as_float(outputs[m * 128 + j])
            if got != w:
                count += 1
                first = first or "mma %d, lane %d, d[%d]: %r, documented %r" % (m, j // 4, j % 4, got, w)
    return count, first


def ldmatrix_mismatches(offsets, outputs, matrices):
    """(count, first) of the registers that are not the documented row's elements 2t and 2t + 1 (element i of the
    probe's buffer is i; lane 8m + j gives the offset of row j of matrix m)."""
    count, first = 0, None
    for e in range(len(offsets) // 32):
        for lane in range(32):
            g, t = lane // 4, lane % 4
            for m in range(matrices):
                row = offsets[e * 32 + 8 * m + g]
                want = (row + 2 * t) | (row + 2 * t + 1) << 16
                got = outputs[(e * 32 + lane) * matrices + m]
                if got != want:
                    count += 1
                    first = first or "experiment %d, lane %d, r[%d]: %08x, documented %08x" % (e, lane, m, got, want)
    return count, first


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    """The folder of the probe's files, from the emulator build: $MMA_PROBE (make test-emulator builds it) or built
    here."""
    tmp = tmp_path_factory.mktemp("mma-agreement")
    probe = os.environ.get("MMA_PROBE")
    if not probe:
        probe = str(tmp / "probe")
        subprocess.run([os.path.join(ROOT, "common", "emu", "emucc"), "-o", probe,
                        os.path.join(TOOL, "probe.cu")], check=True)
    out = tmp / "emu"
    out.mkdir()
    proc = subprocess.run([probe, str(out)], env=dict(os.environ, CUDAEMU_QUIET="1"), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out


def test_the_header_documents_the_maps_checked_here():
    with open(os.path.join(ROOT, "common", "mma_ptx.h"), encoding="utf-8") as f:
        header = f.read()
    for formula in ("a[i] = A[g + 8·(i % 2)][t + 4·(i / 2)]", "b[i] = B[t + 4·i][g]",
                    "c[i], d[i] = C, D[g + 8·(i / 2)][2t + i % 2]", "Lane 8m + j gives in `row` the",
                    "r[m] = matrix m's row g, elements 2t (low 16 bits)"):
        assert formula in header
    # each map places every element of its matrix once
    assert sorted(a_at(l, i) for l in range(32) for i in range(4)) == [(r, k) for r in range(16) for k in range(8)]
    assert sorted(b_at(l, i) for l in range(32) for i in range(2)) == [(k, n) for k in range(8) for n in range(8)]
    assert sorted(cd_at(l, i) for l in range(32) for i in range(4)) == [(r, n) for r in range(16) for n in range(8)]


def test_the_probe_writes_every_case(dumps):
    names = sorted(os.listdir(dumps))
    assert {"lanes_mma.bin", "lanes_ldmatrix_x4.bin", "lanes_ldmatrix_x2.bin", "cvt_rna_tf32.bin"} <= set(names)
    assert sum(n.startswith("mma_") for n in names) >= 10
    inputs, outputs = read(dumps / "lanes_mma.bin")
    assert len(inputs) == 320 * (32 * 4 + 32 * 2 + 2) and len(outputs) == 128 * (32 * 4 + 32 * 2 + 2)


def test_mma_registers_hold_the_documented_elements(dumps):
    inputs, outputs = read(dumps / "lanes_mma.bin")
    count, first = mma_mismatches(inputs, outputs)
    assert count == 0, "%d d registers differ from mma_ptx.h's maps; the first: %s" % (count, first)
    # the check can fail: two lanes' results swapped in the first one-hot experiment, whose d is nonzero in one row
    swapped = list(outputs)
    swapped[0:4], swapped[4 * 8:4 * 9] = outputs[4 * 8:4 * 9], outputs[0:4]
    assert mma_mismatches(inputs[:320], swapped[:128])[0] > 0


@pytest.mark.parametrize("matrices", [4, 2])
def test_ldmatrix_registers_hold_the_documented_rows(dumps, matrices):
    offsets, outputs = read(dumps / ("lanes_ldmatrix_x%d.bin" % matrices))
    assert len(outputs) == len(offsets) * matrices and all(o % 8 == 0 for o in offsets)
    count, first = ldmatrix_mismatches(offsets, outputs, matrices)
    assert count == 0, "%d registers differ from mma_ptx.h's ldmatrix map; the first: %s" % (count, first)
    # the check can fail: a map that took row j of matrix m from lane 4m + j instead
    shifted = [offsets[(e // 32) * 32 + (e % 32) // 2 + (e % 32) % 2 * 16] for e in range(len(offsets))]
    assert ldmatrix_mismatches(shifted, outputs, matrices)[0] > 0


def test_compare_counts_a_flipped_bit_and_fails(dumps, tmp_path):
    compare = [sys.executable, os.path.join(TOOL, "compare.py")]
    same = subprocess.run(compare + [str(dumps), str(dumps)], capture_output=True, text=True)
    assert same.returncode == 0, same.stdout + same.stderr
    other = tmp_path / "other"
    shutil.copytree(dumps, other)
    path = other / "mma_ties_converted.bin"
    data = bytearray(path.read_bytes())
    n_in = struct.unpack_from("<i", data)[0]
    data[12 + 4 * (n_in + 7)] ^= 1  # mma 0, lane 1, d[3]
    path.write_bytes(bytes(data))
    proc = subprocess.run(compare + [str(dumps), str(other)], capture_output=True, text=True)
    assert proc.returncode == 1
    rows = {line.split("|")[1].strip(): line for line in proc.stdout.splitlines() if line.startswith("| ")}
    assert rows["mma_ties_converted"].split("|")[3].strip() == "1"
    assert "mma 0, lane 1, d[3]" in rows["mma_ties_converted"]
    assert rows["mma_uniform_converted"].split("|")[3].strip() == "0"
