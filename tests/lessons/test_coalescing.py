"""make coalescing: the lanes of one warp request grouped by sector, for the coalesced lab 1 solution and the
row-from-x catalogue kernel, worked out here from the 16×16 block's lanes."""
import os
import re
import unittest

from support import ROOT, assert_usage_error, lesson

SOLUTION = os.path.join(ROOT, "solutions", "lab1-naive", "kernel.cu")
ROW_FROM_X = os.path.join(ROOT, "grader", "catalogue", "lab1", "row_from_x.cu")


def sectors_of(out, what):
    """The 'sector N  lanes ...' rows under the line whose description contains `what`."""
    rows, inside = [], False
    for line in out.splitlines():
        if "warp request" in line:
            inside = what in line
        elif inside and line.strip().startswith("sector "):
            rows.append(re.split(r"\s{2,}", line.strip())[1][len("lanes "):].strip())
    return rows


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
        import emulator
        skeleton = emulator.labtool.skeleton("lab1-naive")  # as handed out: TODOs, no accesses
        proc = lesson("coalescing", "LAB=1", "KERNEL=" + skeleton, "M=8", "K=8", "N=8")
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout, "")
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn("made no load or store of global memory", proc.stderr)

    def test_bad_arguments(self):
        assert_usage_error(self, "coalescing", ["KERNEL=" + SOLUTION], "LAB is missing")
        assert_usage_error(self, "coalescing", ["LAB=1", "KERNEL=nowhere.cu"], "no kernel file 'nowhere.cu'")
