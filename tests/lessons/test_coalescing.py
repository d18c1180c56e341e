"""make coalescing: the lanes of one warp request grouped by sector, for the coalesced lab 1 solution and the
row-from-x catalogue kernel, worked out here from the 16×16 block's lanes; and grouped by shared-memory bank, for
the lab 5 and lab 6 references on the lessons' shape."""
import os
import re
import unittest

from support import ROOT, assert_usage_error, catalogue_kernel, lesson

from tools.lessons import calculator as calc

SOLUTION = os.path.join(ROOT, "solutions", "lab1-naive", "kernel.cu")
ROW_FROM_X = catalogue_kernel("lab1/row_from_x")
BANKS_SHAPE = (200, 100, 150)  # M, K, N of lessons 5 and 6's figures


def sectors_of(out, what):
    """The 'sector N  lanes ...' rows under the line whose description contains `what`."""
    rows, inside = [], False
    for line in out.splitlines():
        if "warp request" in line:
            inside = what in line
        elif inside and line.strip().startswith("sector "):
            rows.append(re.split(r"\s{2,}", line.strip())[1][len("lanes "):].strip())
    return rows


def shared_lines(out):
    """{source line: (heading, [bank rows])} of the shared-memory lines in make coalescing's output."""
    lines, current = {}, None
    for text in out.splitlines():
        m = re.match(r"\s*kernel\.cu:(\d+)  (loads from|stores to) shared memory", text)
        if m:
            current = lines.setdefault(int(m.group(1)), (text.strip(), []))
        elif re.match(r"\s*kernel\.cu:\d+ ", text):
            current = None
        elif current and text.startswith("      "):
            current[1].append(text.strip())
    return lines


def line_of(kernel, pattern):
    """The number of the only line of `kernel` that matches `pattern`."""
    with open(kernel, encoding="utf-8") as f:
        found = [i + 1 for i, text in enumerate(f) if re.search(pattern, text)]
    assert len(found) == 1, (pattern, found)
    return found[0]


class Coalescing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        shape = ["M=40", "K=24", "N=36"]  # rows of 24 and 36 floats: not whole sectors
        cls.solution = lesson("coalescing", "LAB=1", "KERNEL=" + SOLUTION, *shape)
        cls.row_from_x = lesson("coalescing", "LAB=1", "KERNEL=" + ROW_FROM_X, *shape)

    def test_both_run(self):
        self.assertEqual(self.solution.returncode, 0, self.solution.stderr)
        self.assertEqual(self.row_from_x.returncode, 0, self.row_from_x.stderr)

    def test_col_from_x_a_is_two_broadcasts_b_two_sectors(self):
        # a warp of a 16×16 block is rows 0 and 1, columns 0..15: A[0][0] for lanes 0-15, A[1][0] for 16-31
        self.assertEqual(sectors_of(self.solution.stdout, "loads from A"), ["0-15", "16-31"])
        # B[0][0..15], read by both rows: 64 bytes, sectors of 8 floats
        self.assertEqual(sectors_of(self.solution.stdout, "loads from B"), ["0-7, 16-23", "8-15, 24-31"])

    def test_row_from_x_a_takes_a_sector_per_row(self):
        # lane i reads A[i % 16][0]: 16 rows of 24 floats, 96 bytes apart, each in a sector of its own
        rows = sectors_of(self.row_from_x.stdout, "loads from A")
        self.assertEqual(rows, ["%d, %d" % (i, i + 16) for i in range(16)])
        self.assertIn("16 sectors of 32 bytes (2 would do)", self.row_from_x.stdout)

    def test_a_kernel_that_touches_no_global_memory_gets_one_line(self):
        from tools.lessons import emulator
        skeleton = emulator.toolchain.skeleton("lab1-naive")  # as handed out: TODOs, no accesses
        proc = lesson("coalescing", "LAB=1", "KERNEL=" + skeleton, "M=8", "K=8", "N=8")
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout, "")
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn("made no load or store of global memory", proc.stderr)

    def test_lab5_loads_from_bs_meet_four_to_a_bank(self):
        kernel = os.path.join(ROOT, "solutions", "lab5-register-tiling", "kernel.cu")
        M, K, N = BANKS_SHAPE
        proc = lesson("coalescing", "LAB=5", "KERNEL=" + kernel, "M=%d" % M, "K=%d" % K, "N=%d" % N)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = shared_lines(proc.stdout)
        s = calc.BlockShape(M, K, N, calc.BlockTile.of_lab(5))
        heading, rows = lines[line_of(kernel, r"= Bs\[k\]")]
        self.assertIn("32 lanes of 4 bytes, served the warp at once: 4 wavefronts (1 would do)", heading)
        self.assertIn("%s requests, 4.0 wavefronts per request (1.0 would do)"
                      % calc.format_number(calc.value("shared_requests_Bs_load", s)), heading)
        # row k of Bs: thread tx reads column tx·8, so tx, tx + 4, tx + 8, tx + 12 are 32 floats apart in one bank;
        # lanes 16-31 (the next ty) read the same words
        self.assertEqual(re.split(r"\s{2,}", rows[0]), ["bank 0", "lanes 0, 4, 8, 12, 16, 20, 24, 28",
                                                        "4 words: +0 +32 +64 +96"])
        self.assertEqual(len(rows), 4)
        heading, rows = lines[line_of(kernel, r"= As\[k\]")]
        self.assertIn("1 wavefront (1 would do)", heading)
        self.assertEqual(rows, ["no bank holds two different words (lanes on one word share it)"])
        heading, rows = lines[line_of(kernel, r"As\[a_tx \+ 0\]")]
        self.assertIn("2 wavefronts (1 would do)", heading)
        self.assertEqual(re.split(r"\s{2,}", rows[0]), ["bank 0", "lanes 0-1", "2 words: +0 +512"])
        self.assertEqual(rows[-1], "... and 8 more banks like these")
        heading, _ = lines[line_of(kernel, r"reinterpret_cast<float4\*>\(&Bs")]
        # one 16-byte store, as nvcc makes it: four quarter-warps of 128 distinct bytes each, no conflict
        self.assertIn("32 lanes of 16 bytes, served a quarter-warp at a time: 4 wavefronts (4 would do)", heading)

    def test_lab6_has_no_bank_conflicts(self):
        M, K, N = BANKS_SHAPE
        proc = lesson("coalescing", "LAB=6", "KERNEL=" + os.path.join(ROOT, "solutions", "lab6-warptiling",
                                                                      "kernel.cu"), "M=%d" % M, "K=%d" % K, "N=%d" % N)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = shared_lines(proc.stdout)
        self.assertEqual(len(lines), 7)  # four stores into As, one into Bs, the loads from As and Bs
        for heading, rows in lines.values():
            self.assertEqual(rows, ["no bank holds two different words (lanes on one word share it)"], heading)
            self.assertRegex(heading, r"(\d+) wavefronts? \(\1 would do\)")

    def test_lab6_float4_loads_of_a_are_what_the_calculator_counts(self):
        # N <= 128: one block column with lab.h's tile and with the reference's wide one, so the reference's A loads
        # are lab.h's, whichever tile and split its launcher picks on this machine
        for M, K, N in [(200, 100, 128), (130, 36, 124)]:
            with self.subTest(shape=(M, K, N)):
                proc = lesson("coalescing", "LAB=6", "KERNEL=" + os.path.join(ROOT, "solutions", "lab6-warptiling",
                                                                              "kernel.cu"), "M=%d" % M, "K=%d" % K,
                              "N=%d" % N)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                found = re.findall(r"loads from A: its first warp request, 32 lanes of 16 bytes: 32 sectors of 32 "
                                   r"bytes \(16 would do\); over the launch: ([\d,]+) requests, ([\d.]+) sectors per "
                                   r"request \(([\d.]+) would do\)", proc.stdout)
                self.assertEqual(len(found), 1, proc.stdout)
                shape = calc.BlockShape(M, K, N, calc.BlockTile.of_lab(6))
                wide = calc.BlockShape(M, K, N, calc.BlockTile.of_lab(6, BN=256, WM=64, WN=64, WNITER=4))
                self.assertEqual(calc.a_float4_requests(shape), calc.a_float4_requests(wide))
                requests, sectors, ideal = calc.a_float4_requests(shape)
                self.assertEqual(found[0], ("{:,}".format(requests), "%.1f" % (sectors / requests),
                                            "%.1f" % (ideal / requests)))
                self.assertEqual(sectors, 2 * ideal)  # each lane's 16 bytes in a sector of its own

    def test_the_float4_loads_of_a_are_lab_6s_and_need_k_a_multiple_of_4(self):
        with self.assertRaisesRegex(ValueError, "scalar path"):
            calc.a_float4_requests(calc.BlockShape(130, 37, 124, calc.BlockTile.of_lab(6)))
        with self.assertRaisesRegex(ValueError, "lab 6's load_tile only, not lab 5"):
            calc.a_float4_requests(calc.BlockShape(130, 36, 124, calc.BlockTile.of_lab(5)))

    def test_bad_arguments(self):
        assert_usage_error(self, "coalescing", ["KERNEL=" + SOLUTION], "LAB is missing")
        assert_usage_error(self, "coalescing", ["LAB=1", "KERNEL=nowhere.cu"], "no kernel file 'nowhere.cu'")
