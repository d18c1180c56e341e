"""The traffic calculator against the emulator's exact counts, and `make traffic`'s argument errors."""
import os
import unittest

from support import ROOT, assert_usage_error, build_all, catalogue_kernel, run

from tools.lessons import calculator as calc
from tools.lessons import emulator

LAB3_SOLUTION = os.path.join(ROOT, "solutions", "lab3-boundary", "kernel.cu")
LAB1_SOLUTION = os.path.join(ROOT, "solutions", "lab1-naive", "kernel.cu")
TILE32_VARIANT = catalogue_kernel("lab3/tile32")
ROW_FROM_X = catalogue_kernel("lab1/row_from_x")
NAIVE_BLOCK_WIDTH = 16  # the lab 1 solution's block edge

# (M, K, N) per tile edge: 1×1×1, primes, sizes one off the tile, K below and above the tile, non-square, and the
# lessons' own examples. The lab 3 solution is built once per tile edge.
TILED_SWEEP = {
    1: [(3, 5, 2)],
    2: [(4, 4, 4), (1, 1, 1), (5, 3, 7)],
    3: [(7, 11, 13)],
    15: [(16, 30, 31)],
    16: [(1, 1, 1), (16, 16, 16), (17, 15, 31), (15, 17, 16), (34, 34, 34), (55, 48, 43), (13, 7, 29),
         (1, 40, 1), (33, 65, 1), (142, 110, 146)],
    17: [(16, 34, 18)],
    31: [(29, 3, 37)],
    32: [(55, 48, 43), (31, 33, 1), (142, 110, 146)],
}
NAIVE_SWEEP = [(1, 1, 1), (37, 23, 19), (55, 48, 43), (17, 5, 3), (13, 7, 29)]


class CalculatorAgainstEmulator(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        builds = {("tiled", t): ("3", LAB3_SOLUTION, t) for t in TILED_SWEEP}
        builds["naive"] = ("1", LAB1_SOLUTION, None)
        builds["tile32.cu"] = ("3", TILE32_VARIANT, None)
        builds["row_from_x.cu"] = ("1", ROW_FROM_X, None)
        cls.programs = build_all(builds)

    def test_sweep_covers_enough_combinations(self):
        self.assertGreaterEqual(sum(map(len, TILED_SWEEP.values())) + len(NAIVE_SWEEP), 20)

    def check_tiled(self, program, s):
        got = emulator.measure(program, s.M, s.K, s.N)
        self.assertTrue(got["correct"])
        self.assertEqual(got["launches"], 1)
        self.assertEqual(got["grid"], [calc.grid_x(s), calc.grid_y(s)])
        self.assertEqual(got["block"], [s.TILE, s.TILE])
        self.assertEqual(got["read_bytes_AB"], calc.tiled_read_bytes(s))
        self.assertEqual(got["written_bytes"], calc.written_bytes(s))
        # a multiply-add reads one float from As and one from Bs: 8 shared bytes per 2 FLOPs
        self.assertEqual(got["shared_load_bytes"] // 4, calc.flops_launched(s))
        # each phase, every thread stores one float into As and one into Bs
        self.assertEqual(got["shared_store_bytes"], 8 * calc.threads(s) * calc.phases(s))
        self.assertEqual(set(got["A_reads"]), {calc.value("tiled_reads_per_A_element", s)})
        self.assertEqual(set(got["B_reads"]), {calc.value("tiled_reads_per_B_element", s)})
        self.assertEqual(set(got["C_writes"]), {1})
        self.assertEqual(got["C_writer"], [(i // s.N // s.TILE) * calc.grid_x(s) + (i % s.N) // s.TILE
                                           for i in range(s.M * s.N)])

    def test_tiled_kernel_every_tile_and_shape(self):
        for tile, shapes in TILED_SWEEP.items():
            for M, K, N in shapes:
                s = calc.Shape(M, K, N, tile)
                with self.subTest(shape=s.name(), TILE=tile):
                    self.check_tiled(self.programs[("tiled", tile)], s)

    def test_catalogue_tile32_counts_like_tile_32(self):
        for M, K, N in TILED_SWEEP[32]:
            with self.subTest(shape=(M, K, N)):
                self.check_tiled(self.programs["tile32.cu"], calc.Shape(M, K, N, 32))

    def test_naive_kernel(self):
        for M, K, N in NAIVE_SWEEP:
            s = calc.Shape(M, K, N, NAIVE_BLOCK_WIDTH)
            with self.subTest(shape=s.name()):
                got = emulator.measure(self.programs["naive"], M, K, N)
                self.assertTrue(got["correct"])
                self.assertEqual(got["grid"], [calc.grid_x(s), calc.grid_y(s)])
                self.assertEqual(got["read_bytes_AB"], calc.naive_read_bytes(s))
                self.assertEqual(got["written_bytes"], calc.written_bytes(s))
                self.assertEqual(got["shared_load_bytes"], 0)
                self.assertEqual(set(got["A_reads"]), {calc.value("naive_reads_per_A_element", s)})
                self.assertEqual(set(got["B_reads"]), {calc.value("naive_reads_per_B_element", s)})
                self.assertEqual(got["sectors"], {m: calc.value("naive_sectors_" + m, s) for m in "ABC"})
                requests = calc.value("naive_warp_requests", s)
                self.assertEqual(got["requests"], {"A": requests * K, "B": requests * K, "C": requests})

    def test_row_from_x_sectors(self):
        """The uncoalesced catalogue kernel's sectors, warp by warp, as the calculator works them out."""
        for M, K, N in NAIVE_SWEEP:
            s = calc.Shape(M, K, N, NAIVE_BLOCK_WIDTH)
            with self.subTest(shape=s.name()):
                got = emulator.measure(self.programs["row_from_x.cu"], M, K, N)
                self.assertTrue(got["correct"])
                self.assertEqual(got["sectors"], {m: calc.value("row_from_x_sectors_" + m, s) for m in "ABC"})


class TrafficReport(unittest.TestCase):
    def test_make_traffic_prints_the_calculators_numbers(self):
        proc = run(["make", "-s", "traffic", "M=55", "K=48", "N=43", "TILE=16"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        s = calc.Shape(55, 48, 43, 16)
        for name in ["naive_read_bytes", "tiled_read_bytes", "written_bytes", "flops_owned", "flops_launched",
                     "threads"]:
            self.assertIn(calc.format_number(calc.value(name, s)), proc.stdout, name)
        self.assertIn("3 × 4 = 12 blocks", proc.stdout)
        self.assertIn("14.04× fewer", proc.stdout)

    def test_bad_arguments_get_one_usage_line_and_fail(self):
        good = {"M": "55", "K": "48", "N": "43", "TILE": "16"}
        cases = {"missing": ("K", None, "K is missing"), "empty": ("N", "", "N is missing"),
                 "zero": ("M", "0", "M=0 must be at least 1"), "negative": ("TILE", "-4", "TILE=-4 must be at least 1"),
                 "non-numeric": ("K", "lots", "K=lots is not a whole number"),
                 "fraction": ("M", "2.5", "M=2.5 is not a whole number"),
                 "tile too large": ("TILE", "33", "TILE=33 is above 32")}
        for case, (name, text, why) in cases.items():
            args = dict(good)
            if text is None:
                del args[name]
            else:
                args[name] = text
            with self.subTest(case=case):
                assert_usage_error(self, "traffic", ["%s=%s" % kv for kv in args.items()], why)
        proc = run(["make", "-s", "traffic", "M=55", "K=48", "TILE=16"])
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("N is missing", proc.stderr)


if __name__ == "__main__":
    unittest.main()
