"""The calculator's block tiles (labs 3-6) against the emulator's exact counts for the reference solutions, and
`make traffic ... LAB=N`.

Each lab's tile comes from its lab.h (calculator.BlockTile.of_lab), never from this file. The lab 6 reference
chooses its tile and its split of K per problem from a few TileShape instantiations: it is measured as it is, with
the H100's 132 multiprocessors the emulator reports on every machine, its choice predicted by the rule its
launcher states; and once more built with lab.h's shape alone (-D LAB6_...), which lesson 6 and the
lab's traffic test use.
"""
import os
import re
import unittest

from support import ROOT, assert_usage_error, build_all, lab6_shape_defines, run, staged_kernel

from tools.lessons import calculator as calc
from tools.lessons import emulator

SOLUTIONS = {lab: os.path.join(ROOT, "solutions", emulator.lab_folder(lab), "kernel.cu") for lab in (3, 4, 5, 6)}
TILE_SHAPE_ARGS = ["BM", "BN", "BK", "WM", "WN", "WMITER", "WNITER", "TM", "TN", "MIN_BLOCKS"]
SMS = 132  # the multiprocessors the emulator reports (an H100's), whatever its worker threads
WORKERS = 2  # the emulator's worker threads: the counts are the same with any number


def lab6_reference_tiles():
    """{name: (BlockTile, blocks per multiprocessor)} of the lab 6 reference's `using Name = TileShape<...>;` lines."""
    tiles = {}
    for name, args in re.findall(r"using (\w+) = TileShape<([\d, ]+)>;", emulator.read_text(SOLUTIONS[6])):
        shape = dict(zip(TILE_SHAPE_ARGS, (int(a) for a in args.split(","))))
        per_sm = shape.pop("MIN_BLOCKS")
        tiles[name] = (calc.BlockTile.of_lab(6, **shape), per_sm)
    return tiles


def lab6_reference_choice(M, K, N, sms):
    """The BlockShape the lab 6 reference runs for M×K·K×N on `sms` multiprocessors, by its launcher's rule: the
    wide tile, unsplit, when its tiles keep at least 3/4 of them busy and N % 4 == 0 (B and C in float4s); else
    the square tile, two blocks per multiprocessor, K split to fill 2·sms slots."""
    tiles = lab6_reference_tiles()
    wide, wide_per_sm = tiles["Wide"]
    s = calc.BlockShape(M, K, N, wide, 1, sms, wide_per_sm)
    if N % 4 == 0 and 4 * calc.value("busy_sms", s) >= 3 * sms:
        return s
    square, square_per_sm = tiles["Square"]
    s = calc.BlockShape(M, K, N, square, 1, sms, square_per_sm)
    return calc.BlockShape(M, K, N, square, calc.value("split_for_slots", s), sms, square_per_sm)


def lab6_with_labh_shape():
    """The lab 6 reference with every shape macro set to lab.h's value, as a kernel file under build/."""
    return staged_kernel("lab6-reference-labh-shape.cu", lab6_shape_defines() + emulator.read_text(SOLUTIONS[6]))


def sweep(t):
    """(M, K, N) for a tile: 1×1×1, sizes one off the block tile, K below, at and above BK, primes, the lessons'
    examples; K not a multiple of 4 (the scalar load path) and K and N multiples of 4 (the float4 path)."""
    return [(1, 1, 1), (t.BM - 1, 7, t.BN + 1), (t.BM + 1, t.BK + 1, t.BN - 1), (t.BM, t.BK, t.BN),
            (2 * t.BM + 1, 3 * t.BK - 1, 1), (1, 2 * t.BK + 3, 2 * t.BN + 3), (37, 29, 31), (13, 97, 7),
            (31, 61, 3), (55, 48, 43), (130, 36, 260), (t.BM + 4, 4 * t.BK + 4, 2 * t.BN - 4)]


# Problems where K is long under few tiles of C, so the lab 6 reference splits K; the second has an odd K, so A is
# loaded in scalars and B in float4s.
SPLIT_K_SHAPES = [(40, 300, 68), (33, 301, 36)]
# 9×11 = 99 of the reference's wide 128×256 tiles keep 3/4 of 132 multiprocessors busy: its wide tile, unsplit (a
# short K keeps the emulator quick).
WIDE_SHAPES = [(1152, 4, 2816)]


class BlockTilesAgainstEmulator(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        labh = calc.BlockTile.of_lab(6)
        fixed = {"lab%d" % lab: calc.BlockTile.of_lab(lab) for lab in (3, 4, 5)}
        fixed["lab6, lab.h's shape"] = labh
        # name -> function of (M, K, N) giving the BlockShape the kernel runs
        cls.choice = {name: (lambda M, K, N, t=t: calc.BlockShape(M, K, N, t)) for name, t in fixed.items()}
        # lab.h's shape alone: one block per multiprocessor (LAB6_MIN_BLOCKS's default), K split by the same rule
        cls.choice["lab6, lab.h's shape"] = lambda M, K, N: calc.BlockShape(
            M, K, N, labh, calc.value("split_for_slots", calc.BlockShape(M, K, N, labh, 1, SMS, 1)))
        cls.choice["lab6 reference"] = lambda M, K, N: lab6_reference_choice(M, K, N, SMS)
        cls.sweeps = {name: sweep(t) for name, t in fixed.items()}
        cls.sweeps["lab6, lab.h's shape"] += SPLIT_K_SHAPES
        cls.sweeps["lab6 reference"] = sorted(set(sweep(labh) + sweep(lab6_reference_tiles()["Wide"][0])))
        cls.sweeps["lab6 reference"] += SPLIT_K_SHAPES + WIDE_SHAPES
        cls.programs = build_all({"lab3": ("3", SOLUTIONS[3], None), "lab4": ("4", SOLUTIONS[4], None),
                                  "lab5": ("5", SOLUTIONS[5], None),
                                  "lab6, lab.h's shape": ("6", lab6_with_labh_shape(), None),
                                  "lab6 reference": ("6", SOLUTIONS[6], None)})

    def test_the_tiles_are_the_labs_and_the_sweep_takes_both_load_paths_and_splits(self):
        self.assertEqual(calc.lab_constants(4)["BM"], calc.BlockTile.of_lab(4).BM)
        tiles = lab6_reference_tiles()
        self.assertEqual(set(tiles), {"Wide", "Square"})
        self.assertNotEqual(tiles["Wide"][0], calc.BlockTile.of_lab(6))
        for name, shapes in self.sweeps.items():
            with self.subTest(kernel=name):
                self.assertGreaterEqual(len(set(shapes)), 10)
                self.assertIn((1, 1, 1), shapes)
                self.assertTrue(any(K % 4 for _, K, _ in shapes), "no shape takes the scalar path")
                self.assertTrue(any(K % 4 == 0 and N % 4 == 0 for _, K, N in shapes), "none takes float4 loads")
        for name in ("lab6, lab.h's shape", "lab6 reference"):
            chosen = [self.choice[name](M, K, N) for M, K, N in self.sweeps[name]]
            self.assertTrue(any(calc.value("splits", s) > 1 for s in chosen), "%s: no shape splits K" % name)
        reference = {self.choice["lab6 reference"](M, K, N).tile for M, K, N in self.sweeps["lab6 reference"]}
        self.assertEqual(reference, {tiles["Wide"][0], tiles["Square"][0]}, "the sweep takes both tiles")

    def test_every_count_the_emulator_makes_is_the_calculators(self):
        for name, shapes in self.sweeps.items():
            for M, K, N in shapes:
                s = self.choice[name](M, K, N)
                t, split = s.tile, calc.value("splits", s)
                with self.subTest(kernel=name, shape=s.name(), tile=s.describe()):
                    got = emulator.measure(self.programs[name], M, K, N, workers=WORKERS)
                    self.assertTrue(got["correct"], got["failure"])
                    self.assertEqual(got["launches"], 1 if split == 1 else 2)  # split-K: the product, then the sum
                    self.assertEqual(got["grid"], [calc.block_grid_x(s), calc.block_grid_y(s)])
                    self.assertEqual(got["splits"], split)
                    self.assertEqual(got["grid"][0] * got["grid"][1] * split, calc.value("blocks", s))
                    self.assertEqual(got["block"][0] * got["block"][1], calc.value("threads_per_block", s))
                    self.assertEqual(got["read_bytes_AB"], calc.value("read_bytes", s))
                    self.assertEqual(got["written_bytes"], calc.written_bytes(s) + calc.value("workspace_bytes", s))
                    self.assertEqual(got["read_bytes"] - got["read_bytes_AB"], calc.value("workspace_bytes", s))
                    self.assertEqual(got["shared_load_bytes"], calc.value("shared_load_bytes", s))
                    self.assertEqual(got["shared_store_bytes"], calc.block_shared_store_bytes(s))
                    self.assertEqual(set(got["A_reads"]), {calc.block_grid_x(s)})
                    self.assertEqual(set(got["B_reads"]), {calc.block_grid_y(s)})
                    self.assertEqual(set(got["C_writes"]), {1})
                    if split == 1:
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

    def test_make_traffic_with_a_split_and_a_gpu(self):
        s = calc.BlockShape(512, 512, 512, calc.BlockTile.of_lab(6), 8, 132, 2)
        proc = run(["make", "-s", "traffic", "M=512", "K=512", "N=512", "LAB=6", "SPLIT=8", "SMS=132", "PER_SM=2"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("4 × 4 × 8 = 128 blocks", proc.stdout)
        self.assertIn("4 per block in 8 splits", proc.stdout)
        for name in ["read_bytes", "workspace_bytes", "split_extra_bytes", "slots"]:
            self.assertIn(calc.format_number(calc.value(name, s)), proc.stdout, name)
        self.assertIn("%s waves" % calc.format_number(calc.value("waves", s), 2), proc.stdout)
        self.assertIn("8 splits would fill the slots", proc.stdout)
        unsplit = run(["make", "-s", "traffic", "M=512", "K=512", "N=512", "LAB=6"])
        self.assertNotIn("split-K", unsplit.stdout)
        self.assertNotIn("waves", unsplit.stdout)

    def test_make_traffic_forwards_the_tile_constants_the_exercises_change(self):
        s = calc.BlockShape(128, 128, 128, calc.BlockTile.of_lab(4, BK=4, TM=16))
        proc = run(["make", "-s", "traffic", "M=128", "K=128", "N=128", "LAB=4", "BK=4", "TM=16"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("BK = 4, TM×TN = 16×1", proc.stdout)
        self.assertIn(calc.format_number(calc.value("shared_load_bytes", s)), proc.stdout)
        # a constant the lab does not have, or one without a lab, is refused in one line
        for extra in (["LAB=4", "WMITER=2"], ["TILE=16", "BK=4"]):
            proc = run(["make", "-s", "traffic", "M=128", "K=128", "N=128"] + extra)
            self.assertNotEqual(proc.returncode, 0)
            self.assertIn("make traffic: ", proc.stderr)

    def test_the_split_rule_and_the_splits_made(self):
        labh = calc.BlockTile.of_lab(6)
        for (M, K, N, sms, per_sm), want in [((512, 512, 512, 132, 2), 8),     # 16 tiles, 264 slots, 32 phases
                                             ((512, 112, 512, 132, 2), 1),     # 7 phases: not 2 ranges of 4
                                             ((4096, 4096, 4096, 132, 2), 1),  # the tiles fill the slots
                                             ((40, 300, 68, 2, 1), 2)]:        # the lab's test on 2 workers
            with self.subTest(shape=(M, K, N, sms, per_sm)):
                self.assertEqual(calc.value("split_for_slots", calc.BlockShape(M, K, N, labh, 1, sms, per_sm)), want)
        # 9 phases asked to split 4 ways: ranges of 3, so 3 splits; every split keeps at least one phase
        self.assertEqual(calc.value("splits", calc.BlockShape(55, 144, 43, labh, 4)), 3)
        self.assertEqual(calc.value("splits", calc.BlockShape(55, 144, 43, labh, 99)), 9)
        self.assertEqual(calc.value("workspace_bytes", calc.BlockShape(55, 144, 43, labh, 1)), 0)
        with self.assertRaisesRegex(ValueError, "SMS"):
            calc.value("waves", calc.BlockShape(55, 144, 43, labh))

    def test_bad_lab_arguments(self):
        size = ["M=55", "K=48", "N=43"]
        for args, why in [(size + ["LAB=1"], "lab 1 has no block tile"), (size + ["LAB=9"], "no lab 9"),
                          (size + ["LAB=4", "TILE=16"], "give TILE or LAB, not both"),
                          (size + ["LAB=five"], "LAB=five is not a whole number"), (size, "TILE is missing"),
                          (size + ["LAB=6", "SMS=132"], "SMS and PER_SM come together"),
                          (size + ["LAB=6", "SPLIT=0"], "SPLIT=0 must be at least 1")]:
            with self.subTest(args=args):
                assert_usage_error(self, "traffic", args, why)


if __name__ == "__main__":
    unittest.main()
