"""The calculator's block tiles (labs 3-6) against the emulator's exact counts for the reference solutions, and
`make traffic ... LAB=N`.

Each lab's tile comes from its lab.h (calculator.BlockTile.of_lab), never from this file. The lab 6 reference
defaults to a tuned 128×256 tile: it is measured as it is, with its own -D defaults, and once more built with
lab.h's shape, which lesson 6 and the lab's traffic test use.
"""
import os
import re
import unittest

from support import ROOT, assert_usage_error, build_all, run

import calculator as calc
import emulator

SOLUTIONS = {lab: os.path.join(ROOT, "solutions", emulator.lab_folder(lab), "kernel.cu") for lab in (3, 4, 5, 6)}


def tuned_lab6_tile():
    """The tile the lab 6 reference compiles to by default: its `#define LAB6_NAME value` lines."""
    defaults = re.findall(r"#define LAB6_(\w+) (\d+)", emulator.read_text(SOLUTIONS[6]))
    shape = {name: int(v) for name, v in defaults if name in calc.lab_constants(6)}
    return calc.BlockTile.of_lab(6, **shape)


def lab6_with_labh_shape():
    """The lab 6 reference with every shape macro set to lab.h's value, as a kernel file under build/."""
    defines = "".join("#define LAB6_%s %d\n" % kv for kv in sorted(calc.lab_constants(6).items()))
    path = os.path.join(emulator.BUILD, "staged", "lab6-reference-labh-shape.cu")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    emulator.write_if_changed(path, defines + emulator.read_text(SOLUTIONS[6]))
    return path


def sweep(t):
    """(M, K, N) for a tile: 1×1×1, sizes one off the block tile, K below, at and above BK, primes, the lessons'
    examples; K not a multiple of 4 (the scalar load path) and K and N multiples of 4 (the float4 path)."""
    return [(1, 1, 1), (t.BM - 1, 7, t.BN + 1), (t.BM + 1, t.BK + 1, t.BN - 1), (t.BM, t.BK, t.BN),
            (2 * t.BM + 1, 3 * t.BK - 1, 1), (1, 2 * t.BK + 3, 2 * t.BN + 3), (37, 29, 31), (13, 97, 7),
            (31, 61, 3), (55, 48, 43), (130, 36, 260), (t.BM + 4, 4 * t.BK + 4, 2 * t.BN - 4)]


class BlockTilesAgainstEmulator(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tiles = {"lab%d" % lab: calc.BlockTile.of_lab(lab) for lab in (3, 4, 5)}
        cls.tiles["lab6, lab.h's shape"] = calc.BlockTile.of_lab(6)
        cls.tiles["lab6, tuned default"] = tuned_lab6_tile()
        cls.programs = build_all({"lab3": ("3", SOLUTIONS[3], None), "lab4": ("4", SOLUTIONS[4], None),
                                  "lab5": ("5", SOLUTIONS[5], None),
                                  "lab6, lab.h's shape": ("6", lab6_with_labh_shape(), None),
                                  "lab6, tuned default": ("6", SOLUTIONS[6], None)})

    def test_the_tiles_are_the_labs_and_the_sweep_takes_both_load_paths(self):
        self.assertEqual(calc.lab_constants(4)["BM"], self.tiles["lab4"].BM)
        self.assertEqual((self.tiles["lab4"].TN, self.tiles["lab6, lab.h's shape"].stages), (1, 2))
        self.assertNotEqual(self.tiles["lab6, tuned default"], self.tiles["lab6, lab.h's shape"])
        for name, t in self.tiles.items():
            shapes = sweep(t)
            with self.subTest(tile=name):
                self.assertGreaterEqual(len(set(shapes)), 10)
                self.assertIn((1, 1, 1), shapes)
                self.assertTrue(any(K % 4 for _, K, _ in shapes), "no shape takes the scalar path")
                self.assertTrue(any(K % 4 == 0 and N % 4 == 0 for _, K, N in shapes), "none takes float4 loads")

    def test_every_count_the_emulator_makes_is_the_calculators(self):
        for name, t in self.tiles.items():
            for M, K, N in sweep(t):
                s = calc.BlockShape(M, K, N, t)
                with self.subTest(tile=name, shape=s.name()):
                    got = emulator.measure(self.programs[name], M, K, N)
                    self.assertTrue(got["correct"], got["failure"])
                    self.assertEqual(got["launches"], 1)
                    self.assertEqual(got["grid"], [calc.block_grid_x(s), calc.block_grid_y(s)])
                    self.assertEqual(got["grid"][0] * got["grid"][1], calc.value("blocks", s))
                    self.assertEqual(got["block"][0] * got["block"][1], calc.value("threads_per_block", s))
                    self.assertEqual(got["read_bytes_AB"], calc.value("read_bytes", s))
                    self.assertEqual(got["written_bytes"], calc.written_bytes(s))
                    self.assertEqual(got["shared_load_bytes"], calc.value("shared_load_bytes", s))
                    self.assertEqual(got["shared_store_bytes"], calc.block_shared_store_bytes(s))
                    self.assertEqual(set(got["A_reads"]), {calc.block_grid_x(s)})
                    self.assertEqual(set(got["B_reads"]), {calc.block_grid_y(s)})
                    self.assertEqual(set(got["C_writes"]), {1})
                    self.assertEqual(got["C_writer"], [(i // N // t.BM) * calc.block_grid_x(s) + (i % N) // t.BN
                                                       for i in range(M * N)])


class BlockTileShapes(unittest.TestCase):
    def test_changed_constants_and_impossible_tiles(self):
        tuned = calc.BlockTile.of_lab(6, BN=256, WM=128, WNITER=4)
        self.assertEqual((tuned.BM, tuned.BN, tuned.TM, tuned.TN, tuned.threads), (128, 256, 8, 16, 256))
        self.assertIn("BN=256", tuned.describe())
        self.assertEqual(calc.BlockTile.of_lab(6, BM=128).changes, ())  # lab.h's own value changes nothing
        for lab, changes, why in [(1, {}, "lab 1 has no block tile"), (99, {}, "no lab 99"),
                                  (5, {"WM": 64}, "no constant WM"), (6, {"WM": 32}, "a warp's 32 threads"),
                                  (5, {"TM": 7}, "must cover")]:
            with self.subTest(lab=lab, changes=changes), self.assertRaisesRegex(ValueError, why):
                calc.BlockTile.of_lab(lab, **changes)


class TrafficWithLab(unittest.TestCase):
    def test_make_traffic_lab_prints_the_calculators_numbers(self):
        for lab in (4, 5, 6):
            s = calc.BlockShape(130, 36, 260, calc.BlockTile.of_lab(lab))
            with self.subTest(lab=lab):
                proc = run(["make", "-s", "traffic", "M=130", "K=36", "N=260", "LAB=%d" % lab])
                self.assertEqual(proc.returncode, 0, proc.stderr)
                for name in ["blocks", "read_bytes", "shared_bytes_per_block", "shared_load_bytes"]:
                    self.assertIn(calc.format_number(calc.value(name, s)), proc.stdout, name)
                self.assertIn("%d×%d block tile" % (s.tile.BM, s.tile.BN), proc.stdout)
                self.assertIn(calc.format_number(calc.value("intensity", s), 2), proc.stdout)

    def test_bad_lab_arguments(self):
        size = ["M=55", "K=48", "N=43"]
        for args, why in [(size + ["LAB=1"], "lab 1 has no block tile"), (size + ["LAB=9"], "no lab 9"),
                          (size + ["LAB=4", "TILE=16"], "give TILE or LAB, not both"),
                          (size + ["LAB=five"], "LAB=five is not a whole number"), (size, "TILE is missing")]:
            with self.subTest(args=args):
                assert_usage_error(self, "traffic", args, why)


if __name__ == "__main__":
    unittest.main()
