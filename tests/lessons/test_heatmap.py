"""`make heatmap`: the SVGs are rendered by headless Chromium and their pixels checked against what the emulator
must have counted: the read counts the calculator predicts, and the block the grid puts over each element of C."""
import os
import re
import shutil
import tempfile
import unittest

from support import ROOT, assert_usage_error, catalogue_kernel, run

import svgrender

from tools.lessons import calculator as calc
from tools.lessons import emulator
from tools.lessons import heatmap

M, K, N = 40, 24, 36  # partial edge blocks on the right and at the bottom, and a partial last phase
TILE = 16


class Image:
    def __init__(self, png_path):
        self.width, self.height, self.pixel = svgrender.read_png(png_path)


def render(svg_path, png_path):
    with open(svg_path, encoding="utf-8") as f:
        width, height = re.search(r'<svg[^>]* width="(\d+)" height="(\d+)"', f.read()).groups()
    svgrender.render_png(svg_path, png_path, int(width), int(height))
    return Image(png_path)


def rgb(colour):
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


class HeatmapPictures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not shutil.which("chromium"):
            raise RuntimeError("chromium is missing; tools/install-deps all installs it (Debian package chromium)")
        cls.tmp = tempfile.mkdtemp()
        cls.images = {}
        for lab, kernel in [("lab3-boundary", "solutions/lab3-boundary/kernel.cu"),
                            ("lab1-naive", "solutions/lab1-naive/kernel.cu")]:
            proc = run(["make", "-s", "heatmap", "LAB=" + lab[3], "KERNEL=" + kernel, "M=%d" % M, "K=%d" % K,
                        "N=%d" % N])
            if proc.returncode != 0:
                raise RuntimeError(proc.stdout + proc.stderr)
            for name in ("A-reads", "C-writers"):
                cls.images[(lab, name)] = render(os.path.join(ROOT, "build", "heatmap", lab, name + ".svg"),
                                                 os.path.join(cls.tmp, "%s-%s.png" % (lab, name)))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def assertColour(self, got, want, where):
        self.assertTrue(all(abs(g - w) <= 3 for g, w in zip(got, rgb(want))), "%s: %s, want %s" % (where, got, want))

    def test_a_reads_show_one_load_per_block_column_when_tiled_and_n_when_naive(self):
        s = calc.Shape(M, K, N, TILE)
        layout = heatmap.Layout.fitting(M, K)
        for lab, count in [("lab3-boundary", calc.value("tiled_reads_per_A_element", s)),
                           ("lab1-naive", calc.value("naive_reads_per_A_element", s))]:
            for row, col in [(0, 0), (M - 1, K - 1), (17, 16), (M - 1, 0), (0, K - 1)]:
                self.assertColour(self.images[(lab, "A-reads")].pixel(*layout.centre(row, col)),
                                  heatmap.read_colour(count, N), "%s A[%d][%d]" % (lab, row, col))
        tiled = self.images[("lab3-boundary", "A-reads")].pixel(*layout.centre(0, 0))
        naive = self.images[("lab1-naive", "A-reads")].pixel(*layout.centre(0, 0))
        self.assertGreater(sum(tiled), sum(naive) + 150, "the tiled map must be visibly lighter")

    def test_c_writers_show_each_block_and_the_partial_edge_blocks(self):
        s = calc.Shape(M, K, N, TILE)
        layout = heatmap.Layout.fitting(M, N)
        image = self.images[("lab3-boundary", "C-writers")]
        for by in range(calc.grid_y(s)):
            for bx in range(calc.grid_x(s)):
                first = (by * TILE, bx * TILE)
                last = (min(M, (by + 1) * TILE) - 1, min(N, (bx + 1) * TILE) - 1)
                for row, col in (first, last):
                    self.assertColour(image.pixel(*layout.centre(row, col)),
                                      heatmap.block_colour(by * calc.grid_x(s) + bx, calc.grid_x(s)),
                                      "C[%d][%d], block (%d, %d)" % (row, col, bx, by))
        # the last block column covers only N - 32 = 4 columns of C: past them the picture is background
        x, y = layout.centre(0, N - 1)
        self.assertColour(image.pixel(x + 2 * layout.cell, y), "#ffffff", "right of C")
        self.assertNotEqual(heatmap.block_colour(0, 3), heatmap.block_colour(1, 3))
        self.assertNotEqual(heatmap.block_colour(0, 3), heatmap.block_colour(3, 3))

    def test_a_failing_kernel_gets_one_line_and_no_picture(self):
        kernel = os.path.relpath(catalogue_kernel("lab3/unguarded_store"), ROOT)
        proc = run(["make", "-s", "heatmap", "LAB=3", "KERNEL=" + kernel])
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("nothing to draw: cudaErrorIllegalAddress", proc.stderr)

    def test_a_racy_kernel_is_drawn_with_its_race_named(self):
        # no second barrier: a thread loads the next tile over the one its neighbours still read. The kernel runs to
        # the end, so there is something to draw, and the race is what the picture must not hide
        kernel = os.path.relpath(catalogue_kernel("lab3/missing_second_barrier"), ROOT)
        out = os.path.join(ROOT, "build", "heatmap", "lab3-boundary")
        for name in ("A-reads", "B-reads", "C-writers"):
            if os.path.exists(os.path.join(out, name + ".svg")):
                os.remove(os.path.join(out, name + ".svg"))
        proc = run(["make", "-s", "heatmap", "LAB=3", "KERNEL=" + kernel, "M=%d" % M, "K=%d" % K, "N=%d" % N])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("the results are WRONG", proc.stdout)
        finding = re.search(r"^  %s:(\d+): found by the emulator: race: race on shared memory" % re.escape(kernel),
                            proc.stdout, re.M)
        self.assertTrue(finding, proc.stdout)
        with open(os.path.join(ROOT, kernel), encoding="utf-8") as f:  # the line named loads or reads a tile
            self.assertIn("s[", f.read().splitlines()[int(finding.group(1)) - 1])
        s = calc.Shape(M, K, N, TILE)
        for name in ("A-reads", "C-writers"):
            with open(os.path.join(out, name + ".svg"), encoding="utf-8") as f:
                self.assertIn("%s:%s: found by the emulator: race" % (kernel, finding.group(1)), f.read())
        # what ran is drawn: each block wrote its own tile of C, and A was read once per block column
        image = render(os.path.join(out, "C-writers.svg"), os.path.join(self.tmp, "race-C-writers.png"))
        layout = heatmap.Layout.fitting(M, N)
        for bx, by in [(0, 0), (calc.grid_x(s) - 1, calc.grid_y(s) - 1)]:
            self.assertColour(image.pixel(*layout.centre(by * TILE, bx * TILE)),
                              heatmap.block_colour(by * calc.grid_x(s) + bx, calc.grid_x(s)),
                              "block (%d, %d)" % (bx, by))
        image = render(os.path.join(out, "A-reads.svg"), os.path.join(self.tmp, "race-A-reads.png"))
        self.assertColour(image.pixel(*heatmap.Layout.fitting(M, K).centre(0, 0)),
                          heatmap.read_colour(calc.value("tiled_reads_per_A_element", s), N), "A[0][0]")

    def test_findings_are_named_file_line_first_and_the_first_few_only(self):
        race = {"kind": "race", "file": "k.cu", "line": 29, "message": "race on shared memory"}
        self.assertEqual(heatmap.describe_findings([race]),
                         ["k.cu:29: found by the emulator: race: race on shared memory"])
        lines = heatmap.describe_findings([dict(race, line=n) for n in range(1, 6)], most=2)
        self.assertEqual(lines[1:], ["k.cu:2: found by the emulator: race: race on shared memory", "... and 3 more"])
        self.assertEqual(heatmap.describe_findings([dict(race, file="", line=0)]),
                         ["found by the emulator: race: race on shared memory"])
        self.assertEqual(heatmap.describe_findings([]), [])

    def test_blocks_that_wrote_nothing_are_named(self):
        # the grid built as (ceil_div(M,16), ceil_div(N,16)) with col from x: on 40×24·24×20 blocks x = 2 own
        # columns 32..47, all past N = 20, so they store nothing
        kernel = os.path.relpath(catalogue_kernel("lab3/swapped_grid_dimensions"), ROOT)
        proc = run(["make", "-s", "heatmap", "LAB=3", "KERNEL=" + kernel, "M=40", "K=24", "N=20"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("launched blocks that wrote nothing: (2, 0), (2, 1) (2 of 6)", proc.stdout)
        with open(os.path.join(ROOT, "build", "heatmap", "lab3-boundary", "C-writers.svg"), encoding="utf-8") as f:
            self.assertIn("4 of 6 blocks of 16×16 threads wrote C; wrote nothing: (2, 0), (2, 1)", f.read())

    def test_silent_blocks_from_the_writers(self):
        self.assertEqual(heatmap.silent_blocks([0, 0, 2, -1, 5], (3, 2)), [(1, 0), (0, 1), (1, 1)])
        self.assertEqual(heatmap.silent_blocks([1, 0], (2, 1)), [])
        self.assertEqual(heatmap.describe_blocks([(i, 0) for i in range(10)], 2), "(0, 0), (1, 0) and 8 more")

    def test_lab4_default_shape_has_several_blocks_with_partial_edges(self):
        c = emulator.labs.find("lab4-coarsening").constants
        M, K, N = heatmap.default_shape("lab4-coarsening", c)
        self.assertLessEqual(max(M, K, N), heatmap.MAX_SIZE)
        self.assertGreaterEqual(calc.ceil_div(M, c["BM"]) * calc.ceil_div(N, c["BN"]), 4)
        self.assertTrue(M % c["BM"] and N % c["BN"] and K % c["BK"], (M, K, N))
        proc = run(["make", "-s", "heatmap", "LAB=4", "KERNEL=solutions/lab4-coarsening/kernel.cu"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("on %d×%d·%d×%d: grid 2 × 2" % (M, K, K, N), proc.stdout)
        self.assertIn("every launched block wrote part of C", proc.stdout)

    def test_bad_arguments(self):
        for args, why in [([], "LAB is missing"), (["LAB=99"], "no lab '99'"), (["LAB=3", "KERNEL=no/such.cu"],
                                                                               "no kernel file"),
                          (["LAB=3", "M=129"], "M=129 is above 128")]:
            with self.subTest(args=args):
                assert_usage_error(self, "heatmap", args, why)


if __name__ == "__main__":
    unittest.main()
