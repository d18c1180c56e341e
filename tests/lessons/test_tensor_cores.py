"""Lab 7's block tile on tensor cores: the calculator's fragment quantities from lab.h, the skeleton's padding, the
emulator's counts for the reference with lab.h's shape, and `make traffic ... LAB=7`."""
import os
import unittest

from support import ROOT, build_all, run, staged_kernel

from tools.lessons import calculator as calc
from tools.lessons import emulator

LAB = "lab7-tensor-cores"
REFERENCE = os.path.join(ROOT, "solutions", LAB, "kernel.cu")
SKELETON = os.path.join(emulator.toolchain.pristine_labs(), LAB, "kernel.cu")


def labh():
    return calc.lab_constants(7)


def reference_with_labh_shape():
    """The lab 7 reference with its -D LAB7_... shape set to lab.h's, so that it uses that tile for every problem."""
    c = labh()
    defines = "".join("#define LAB7_%s %d\n" % (n, c[n]) for n in ("BM", "BN", "BK", "WM", "WN", "STAGES"))
    return staged_kernel("lab7-reference-labh-shape.cu", defines + "#define LAB7_MIN_BLOCKS 2\n" +
                         emulator.read_text(REFERENCE))


class TensorTile(unittest.TestCase):
    def test_the_tile_is_lab_h_s_with_a_thread_s_share_of_its_warp_s_fragments(self):
        c, t = labh(), calc.BlockTile.of_lab(7)
        self.assertTrue(t.tensor)
        self.assertEqual((t.BM, t.BN, t.BK, t.stages, t.WM, t.WN), (c["BM"], c["BN"], c["BK"], c["STAGES"], c["WM"],
                                                                    c["WN"]))
        self.assertEqual(t.TM * t.TN * 32, c["WM"] * c["WN"])  # a warp's outputs, shared by its 32 lanes
        self.assertEqual(t.threads, 32 * (c["BM"] // c["WM"]) * (c["BN"] // c["WN"]))
        self.assertEqual((t.FM, t.FN), (c["WM"] // 16, c["WN"] // 16))
        self.assertFalse(calc.BlockTile.of_lab(6).tensor)

    def test_the_padding_is_the_skeleton_s_and_the_reference_s(self):
        skeleton, reference = emulator.read_text(SKELETON), emulator.read_text(REFERENCE)
        self.assertRegex(skeleton, r"constexpr int LDA = BK \+ %d;" % calc.A_PAD)
        self.assertRegex(skeleton, r"constexpr int LDB = BN \+ %d;" % calc.B_PAD)
        self.assertRegex(reference, r"constexpr int A_PAD = %d;" % calc.A_PAD)
        self.assertRegex(reference, r"constexpr int B_PAD = %d;" % calc.B_PAD)
        self.assertIn("constexpr int SHARED_BYTES = STAGES * STAGE_FLOATS * int(sizeof(float));", skeleton)

    def test_each_fragment_quantity_follows_from_lab_h(self):
        c = labh()
        fm, fn, warps = c["WM"] // 16, c["WN"] // 16, (c["BM"] // c["WM"]) * (c["BN"] // c["WN"])
        for M, K, N in [(4096, 4096, 4096), (55, 48, 43), (130, 37, 260), (1, 1, 1)]:
            s = calc.BlockShape(M, K, N, calc.BlockTile.of_lab(7))
            tiles = -(-M // c["BM"]) * -(-N // c["BN"])
            phases = -(-K // c["BK"])
            mma = tiles * phases * warps * fm * fn * c["BK"] // 8
            want = {"fragments_per_warp": fm * fn, "mma_per_warp_per_phase": fm * fn * c["BK"] // 8,
                    "fragment_loads_per_warp_per_phase": (fm + fn) * c["BK"] // 8, "accumulators": fm * fn * 8,
                    "mma_calls": mma, "flops_per_mma": 2 * 16 * 16 * 8, "mma_flops": mma * 4096,
                    "fragment_load_bytes": tiles * phases * warps * (fm + fn) * c["BK"] // 8 * 128 * 4,
                    "shared_bytes_per_block": c["STAGES"] * (c["BM"] * (c["BK"] + 4) + c["BK"] * (c["BN"] + 8)) * 4,
                    "warps_per_block": warps}
            with self.subTest(shape=s.name()):
                for name, value in want.items():
                    self.assertEqual(calc.value(name, s), value, name)
                self.assertAlmostEqual(calc.value("mma_useful_percent", s), 100 * 2 * M * N * K / (mma * 4096))
                for name in want:
                    q = calc.BLOCK_QUANTITIES[name]
                    self.assertTrue(q.explain(s).endswith(calc.format_number(calc.value(name, s))), q.explain(s))

    def test_quantities_that_do_not_apply_are_value_errors(self):
        lab6 = calc.BlockShape(55, 48, 43, calc.BlockTile.of_lab(6))
        lab7 = calc.BlockShape(55, 48, 43, calc.BlockTile.of_lab(7))
        for name in ("fragments_per_warp", "mma_per_warp_per_phase", "fragment_loads_per_warp_per_phase", "mma_calls",
                     "flops_per_mma", "mma_flops", "mma_useful_percent", "fragment_load_bytes"):
            with self.subTest(name=name), self.assertRaisesRegex(ValueError, "no tensor-core fragments"):
                calc.value(name, lab6)
        for name in ("shared_loads_per_step", "fmas_per_step", "shared_loads_per_fma", "fmas_per_thread_per_phase",
                     "shared_load_bytes"):
            with self.subTest(name=name), self.assertRaisesRegex(ValueError, "tensor cores"):
                calc.value(name, lab7)
        for changes in ({"WM": 24}, {"BK": 12}, {"WN": 48}):
            with self.subTest(changes=changes), self.assertRaisesRegex(ValueError, "16×16 fragments"):
                calc.BlockTile.of_lab(7, **changes)


class TensorTileAgainstEmulator(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.program = build_all({"lab7": ("7", reference_with_labh_shape(), None)})["lab7"]

    def test_the_emulator_counts_what_the_calculator_computes(self):
        t = calc.BlockTile.of_lab(7)
        # whole fragments of C (M and N multiples of 16, N of 4: every fragment stored straight to C), then edges
        for M, K, N in [(48, 64, 80), (128, 32, 128), (144, 97, 272), (55, 48, 43), (130, 36, 260), (70, 30, 132),
                        (1, 1, 1)]:
            s = calc.BlockShape(M, K, N, t)
            with self.subTest(shape=s.name()):
                got = emulator.measure(self.program, M, K, N, workers=2)
                self.assertTrue(got["correct"], got["failure"])
                self.assertEqual(got["grid"], [calc.block_grid_x(s), calc.block_grid_y(s)])
                self.assertEqual(got["block"][0] * got["block"][1], calc.value("threads_per_block", s))
                self.assertEqual(got["read_bytes_AB"], calc.value("read_bytes", s))
                if M % 16 == 0 and N % 16 == 0:
                    self.assertEqual(got["shared_load_bytes"], calc.value("fragment_load_bytes", s))
                    self.assertEqual(got["shared_store_bytes"], calc.block_shared_store_bytes(s))
                else:  # the edge fragments also pass through the warps' scratch
                    self.assertGreater(got["shared_load_bytes"], calc.value("fragment_load_bytes", s))


class TrafficWithLab7(unittest.TestCase):
    def test_make_traffic_lab_7_prints_the_fragment_quantities(self):
        s = calc.BlockShape(4096, 4096, 4096, calc.BlockTile.of_lab(7))
        proc = run(["make", "-s", "traffic", "M=4096", "K=4096", "N=4096", "LAB=7"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for name in ("blocks", "read_bytes", "shared_bytes_per_block", "fragment_load_bytes", "mma_calls",
                     "mma_flops"):
            self.assertIn(calc.format_number(calc.value(name, s)), proc.stdout, name)
        self.assertIn("4×2 = 8 accumulator fragments", proc.stdout)
        self.assertIn("24 fragment loads", proc.stdout)
        self.assertIn("32 mma_sync", proc.stdout)
        self.assertNotIn("shared loads for", proc.stdout)
        edge = run(["make", "-s", "traffic", "M=55", "K=48", "N=43", "LAB=7"])
        self.assertIn("are %s %%" % calc.format_number(
            calc.value("mma_useful_percent", calc.BlockShape(55, 48, 43, calc.BlockTile.of_lab(7))), 1), edge.stdout)


if __name__ == "__main__":
    unittest.main()
