"""Tests of the GPU measurement tools that need no GPU: CSV, roofline maths, tables, ncu and compute-sanitizer
parsing, the SVG plots (rendered by headless Chromium), and the one-line refusal without a GPU.

    pytest-3 tests/perf      (make test-perf)
"""
import contextlib
import io
import os
import tempfile
import unittest
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tools.perf import gputool
from tools.perf import perfdata
from tools.perf import requests_ncu
from tools.perf import svgplot
import svgrender

# What gemm_bench --info printed on an H100 SXM (CUDA 13.0).
H100 = {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sms": 132, "clock_khz": 1980000,
        "memory_clock_khz": 2619000, "memory_bus_bits": 5120, "l2_bytes": 52428800}


def bench_row(kernel, n, gflops, verified=True):
    return {"kernel": kernel, "M": n, "N": n, "K": n, "reps": 10, "median_ms": 2.0 * n ** 3 / gflops / 1e6 if gflops else 0,
            "min_ms": 0.0, "gflops": gflops, "verified": verified, "worst_error_ratio": 0.01}


class RooflineMaths(unittest.TestCase):
    def test_peak_and_bandwidth_from_the_device_properties(self):
        roof = perfdata.Roofline(H100)
        self.assertAlmostEqual(roof.peak_flops, 132 * 128 * 2 * 1.98e9)   # SMs · FP32 lanes · 2 FLOP/FFMA · clock
        self.assertAlmostEqual(roof.bandwidth, 2 * 2.619e9 * 5120 / 8)     # double data rate · bus bytes
        self.assertAlmostEqual(roof.ridge, roof.peak_flops / roof.bandwidth)
        self.assertAlmostEqual(roof.attainable(1.0), roof.bandwidth)          # below the ridge: memory bound
        self.assertAlmostEqual(roof.attainable(10 * roof.ridge), roof.peak_flops)

    def test_lanes_differ_by_architecture(self):
        a100 = dict(H100, compute_capability="8.0", sms=108, clock_khz=1410000)
        self.assertAlmostEqual(perfdata.Roofline(a100).peak_flops, 108 * 64 * 2 * 1.41e9)

    def test_unknown_architecture_is_refused(self):
        with self.assertRaisesRegex(ValueError, "compute capability 3.5"):
            perfdata.Roofline(dict(H100, compute_capability="3.5"))

    def test_intensity(self):
        self.assertAlmostEqual(perfdata.intensity(4, 4, 4, 64), 2.0)


class BenchCsvAndTable(unittest.TestCase):
    def test_parse_round_trip(self):
        row = perfdata.parse_bench_line("lab3-boundary reference", "kernel,1024,1024,1024,10,0.28,0.27,7633.0,yes,0.0125")
        self.assertEqual((row["M"], row["reps"], row["gflops"], row["verified"]), (1024, 10, 7633.0, True))
        again = perfdata.read_bench_csv(perfdata.write_csv([row], perfdata.BENCH_FIELDS))
        self.assertEqual(again, [row])

    def test_malformed_line_is_refused(self):
        with self.assertRaises(ValueError):
            perfdata.parse_bench_line("x", "gemm_bench: bad shape")

    def test_table_gives_percent_of_cublas_fp32_per_shape(self):
        rows = [bench_row(perfdata.CUBLAS_FP32, 4096, 50000), bench_row("lab3", 4096, 8000),
                bench_row(perfdata.CUBLAS_FP32, 512, 20000), bench_row("lab3", 512, 5000),
                bench_row("broken", 512, 0, verified=False)]
        table = perfdata.bench_table(rows).splitlines()
        self.assertIn("4096³", table[0])
        self.assertEqual(table[3], "| lab3 | 8,000 (16 %) | 5,000 (25 %) |")
        self.assertEqual(table[4], "| broken | – | wrong |")
        self.assertEqual(table[2], "| cuBLAS FP32 | 50,000 | 20,000 |")

    def test_rectangular_shape_names(self):
        self.assertEqual(perfdata.shape_name({"M": 1000, "N": 1200, "K": 800}), "1000×800·800×1200")


NCU_CSV = '''==PROF== Connected to process 4242 (gemm_bench)
==PROF== Profiling "matmul_tiled_kernel": 0%....50%....100% - 1 pass
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","4242","gemm_bench","127.0.0.1","matmul_tiled_kernel(const float *, const float *, float *, int, int, int)","1","7","(16, 16, 1)","(128, 128, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","byte","34,011,392"
"0","4242","gemm_bench","127.0.0.1","matmul_tiled_kernel(const float *, const float *, float *, int, int, int)","1","7","(16, 16, 1)","(128, 128, 1)","0","9.0","Command line profiler metrics","sm__warps_active.avg.pct_of_peak_sustained_active","%","97.61"
"0","4242","gemm_bench","127.0.0.1","matmul_tiled_kernel(const float *, const float *, float *, int, int, int)","1","7","(16, 16, 1)","(128, 128, 1)","0","9.0","Command line profiler metrics","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","","n/a"
'''

MEMCHECK = '''========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at matmul_tiled_kernel(const float *, const float *, float *, int, int, int)+0x2a0 in /somewhere/kernel.cu:41
=========     by thread (5,0,0) in block (2,0,0)
=========
========= ERROR SUMMARY: 12 errors
'''

RACECHECK = '''========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at matmul_tiled_kernel(const float *, const float *, float *, int, int, int)+0x1f0 in kernel.cu:38
=========     and Read access at matmul_tiled_kernel(const float *, const float *, float *, int, int, int)+0x300 in kernel.cu:47 [1024 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
========= ERROR SUMMARY: 1 error
'''


class ToolOutputParsing(unittest.TestCase):
    def test_ncu_csv(self):
        launches = perfdata.parse_ncu_csv(NCU_CSV)
        self.assertEqual(list(launches), [0])
        m = launches[0]
        self.assertTrue(m["kernel"].startswith("matmul_tiled_kernel"))
        self.assertEqual(m["dram__bytes_read.sum"], 34011392)
        self.assertAlmostEqual(m["sm__warps_active.avg.pct_of_peak_sustained_active"], 97.61)
        self.assertNotEqual(m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"],
                            m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"])  # n/a -> NaN

    def test_requests_from_ncu(self):
        """requests_ncu.py: every launch's eight request figures, in launch order, thousands separators and all."""
        header = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
                  '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')
        rows = ""
        for launch, kernel in enumerate(["global_stride(const float *, float *, int, int)", "shared_float4(float *)"]):
            for n, metric in enumerate(requests_ncu.NCU.values()):
                rows += ('"%d","1","requests","host","%s","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0",'
                         '"Command line profiler metrics","%s","","%s"\n') % (launch, kernel, metric,
                                                                             "{:,}".format(1000 * launch + n))
        launches = requests_ncu.launches_from_ncu("==PROF== Connected\n" + header + rows)
        self.assertEqual([l["kernel"] for l in launches], ["global_stride", "shared_float4"])
        self.assertEqual([launches[1][key] for key in requests_ncu.KEYS],
                         [1000 + list(requests_ncu.NCU).index(key) for key in requests_ncu.KEYS])

    def test_requests_summary(self):
        """requests_ncu.py summary: a catalogue kernel's differing figures named, summed; equal ones say so; a run
        that the GPU ended before any launch compares nothing; the references are left to the table."""
        one = dict.fromkeys(requests_ncu.KEYS, 4)
        emu = {"grader/catalogue/lab3/a.cu 8x8x8": {"exit": 1, "launches": [dict(one, global_load_sectors=3)]},
               "grader/catalogue/lab3/b.cu 8x8x8": {"exit": 0, "launches": [one, one]},
               "grader/catalogue/lab5/c.cu 8x8x8": {"exit": 1, "launches": [one]},
               "solutions/lab3-boundary/kernel.cu 8x8x8": {"exit": 0, "launches": [one]}}
        gpu = {"grader/catalogue/lab3/a.cu 8x8x8": {"exit": 0, "launches": [one]},
               "grader/catalogue/lab3/b.cu 8x8x8": {"exit": 0, "launches": [one, one]},
               "grader/catalogue/lab5/c.cu 8x8x8": {"exit": 9, "launches": []},
               "solutions/lab3-boundary/kernel.cu 8x8x8": {"exit": 0, "launches": [one]}}
        rows = requests_ncu.summary(emu, gpu)[2:]
        self.assertEqual(rows, ["| lab3/a.cu | 8x8x8 | 1, 0 | 1, 1 | global_load_sectors 3 vs 4 | equal |",
                                "| lab3/b.cu | 8x8x8 | 0, 0 | 2, 2 | equal | equal |",
                                "| lab5/c.cu | 8x8x8 | 1, 9 | 1, 0 | - | - |"])

    def test_ncu_without_a_table_is_an_error(self):
        with self.assertRaises(ValueError):
            perfdata.parse_ncu_csv("==ERROR== the profiler has no permission")

    def test_sanitizer_verdicts(self):
        self.assertEqual(perfdata.sanitizer_verdict("memcheck", "========= ERROR SUMMARY: 0 errors\n"), "memcheck: clean")
        self.assertEqual(perfdata.sanitizer_verdict("memcheck", MEMCHECK),
                         "memcheck: 12 errors: Invalid __global__ read of size 4 bytes (kernel.cu:41)")
        self.assertEqual(perfdata.sanitizer_verdict("racecheck", RACECHECK),
                         "racecheck: 1 error: Race reported between Write access at matmul_tiled_kernel in kernel.cu:38")
        self.assertEqual(perfdata.sanitizer_verdict(
            "racecheck", "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n"), "racecheck: clean")
        self.assertIn("timed out", perfdata.sanitizer_verdict("synccheck", "", timed_out=True))
        self.assertIn("no summary", perfdata.sanitizer_verdict("initcheck", "Segmentation fault"))


class CatalogueCells(unittest.TestCase):
    def test_short_verdicts(self):
        self.assertEqual(gputool.short_verdict("memcheck: clean"), "clean")
        self.assertEqual(gputool.short_verdict(
            "racecheck: 77824 errors: Warning: (Warp Level Programming) Potential RAW hazard detected at __shared__ "
            "0x800 in block (0,1,0) :"), "**RAW hazard on shared memory** (77824)")
        self.assertEqual(gputool.short_verdict("memcheck: 12 errors: Invalid __global__ read of size 4 bytes (k.cu:41)"),
                         "**Invalid __global__ read of size 4 bytes (k.cu:41)** (12)")


class AutotuneSpace(unittest.TestCase):
    def test_every_shape_keeps_the_kernels_rules_and_the_labs_traffic_bound(self):
        shapes = gputool.lab6_candidates(wide=True)
        self.assertGreater(len(shapes), 100)
        for c in shapes:
            threads = 32 * (c["BM"] // c["WM"]) * (c["BN"] // c["WN"])
            sub_m, sub_n = c["WM"] // c["WMITER"], c["WN"] // c["WNITER"]
            self.assertIn(threads, (128, 256))
            self.assertEqual((sub_m // c["TM"]) * (sub_n // c["TN"]), 32)
            self.assertLessEqual(2 * c["BK"] * (c["BM"] + c["BN"]) * 4, 48 * 1024)
            self.assertTrue(c["BM"] >= 128 and c["BN"] >= 128)

    def test_the_reference_default_and_the_lab_contract_are_in_the_space(self):
        shapes = gputool.lab6_candidates()
        default = {"BM": 128, "BN": 256, "BK": 16, "WM": 128, "WN": 32, "WMITER": 2, "WNITER": 4, "TM": 4, "TN": 4,
                   "MIN_BLOCKS": 1}
        self.assertIn(default, shapes)
        self.assertIn(dict(default, BN=128, WM=64, WNITER=2, MIN_BLOCKS=2), shapes)
        self.assertTrue(all(c["TM"] == c["TN"] == 4 for c in shapes))

    def test_only_filters_and_rejects_unknown_names(self):
        self.assertTrue(all(c["BN"] == 256 for c in gputool.lab6_candidates(only=gputool.parse_only("BN=256"))))
        with self.assertRaises(SystemExit):
            gputool.parse_only("TILE=16")


class WithoutAGpu(unittest.TestCase):
    def setUp(self):
        self.saved = gputool.toolchain.gpu_status
        gputool.toolchain.gpu_status = lambda: (False, "nvidia-smi finds no GPU")

    def tearDown(self):
        gputool.toolchain.gpu_status = self.saved

    def run_tool(self, argv):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                code = gputool.main(argv)
            except SystemExit as e:
                code = e.code
        return code, out.getvalue()

    def test_the_gpu_targets_refuse_in_one_line_before_any_work(self):
        saved = gputool.emulator_traffic
        gputool.emulator_traffic = lambda *args: self.fail("no work before the GPU is found")
        try:
            for argv in (["bench"], ["sanitize", "--lab", "3"], ["profile", "--lab", "3", "--size", "48"],
                         ["sanitize-catalogue"], ["autotune"]):
                code, out = self.run_tool(argv)
                self.assertEqual(code, 1)
                self.assertEqual(out.strip().splitlines(), ["make %s needs a GPU: nvidia-smi finds no GPU" % argv[0]])
        finally:
            gputool.emulator_traffic = saved


class ProfileTraffic(unittest.TestCase):
    """The profile's first rows: the lab's formula next to the emulator's exact count."""

    def test_the_emulators_count_equals_the_formula(self):
        rows = gputool.traffic_rows("lab3-boundary", os.path.join(ROOT, "solutions", "lab3-boundary", "kernel.cu"),
                                    48, 48, 48, "n = 48")
        # 48³ with 16×16 tiles: 48·48·3 floats of A, as many of B, 48·48 stores; the emulator counts the same
        expected = "{:,}".format(4 * (2 * 48 * 48 * 3 + 48 * 48))
        self.assertEqual(rows, [["global bytes by the formula (M·K·⌈N/16⌉ + K·N·⌈M/16⌉)·4 + M·N·4", expected],
                                ["global bytes counted by the emulator (loads + stores)", expected]])

    def test_above_the_emulators_size_it_says_why_it_has_no_count(self):
        saved = gputool.emulator_traffic
        gputool.emulator_traffic = lambda *args: self.fail("the emulator must not be asked for n > %d"
                                                           % gputool.EMULATOR_MAX_SIZE)
        out = io.StringIO()
        n = 2 * gputool.EMULATOR_MAX_SIZE
        try:
            with contextlib.redirect_stdout(out):
                rows = gputool.traffic_rows("lab6-warptiling", "unused.cu", n, n, n, "n = %d" % n)
        finally:
            gputool.emulator_traffic = saved
        self.assertIn("emulator count skipped: n = %d" % n, out.getvalue())
        self.assertEqual(rows[1], ["global bytes counted by the emulator (loads + stores)", "–"])


class Plots(unittest.TestCase):
    SERIES = {"cuBLAS FP32": [(512, 20000), (1024, 40000), (2048, 50000)],
              "lab1 naive": [(512, 4000), (1024, 5000), (2048, 5500)],
              "lab3 tiled": [(512, 6000), (1024, 7600), (2048, 8100)]}

    def test_throughput_chart_has_a_line_per_kernel_and_cublas_dashed(self):
        svg = ET.fromstring(svgplot.throughput_chart(self.SERIES))
        paths = svg.findall("{http://www.w3.org/2000/svg}path")
        self.assertEqual(len(paths), 3)
        dashed = [p for p in paths if p.get("stroke-dasharray")]
        self.assertEqual([p.get("stroke") for p in dashed], [svgplot.REFERENCE_COLOUR])
        self.assertEqual(len(svg.findall("{http://www.w3.org/2000/svg}circle")), 9)

    def test_empty_chart_is_an_error(self):
        with self.assertRaises(ValueError):
            svgplot.throughput_chart({"x": [(512, 0)]})

    def test_roofline_points_sit_inside_the_frame(self):
        roof = perfdata.Roofline(H100)
        svg = ET.fromstring(svgplot.roofline_chart(roof, [("naive", 0.25, 5000), ("tiled", 4.0, 8000)]))
        for c in svg.findall("{http://www.w3.org/2000/svg}circle"):
            x, y = float(c.get("cx")), float(c.get("cy"))
            self.assertTrue(svgplot.LEFT <= x <= svgplot.WIDTH - svgplot.RIGHT, x)
            self.assertTrue(svgplot.TOP <= y <= svgplot.HEIGHT - svgplot.BOTTOM, y)

    def test_chromium_draws_the_plots(self):
        """Rendered to PNG, each data point's pixel has its series' colour and the background is white."""
        roof = perfdata.Roofline(H100)
        charts = {
            "throughput": (svgplot.throughput_chart(self.SERIES), [(n, g) for n, g in self.SERIES["lab1 naive"]]),
            "roofline": (svgplot.roofline_chart(roof, [("naive", 0.25, 5000)]), None),
        }
        with tempfile.TemporaryDirectory() as tmp:
            for name, (text, _) in charts.items():
                svg_path, png_path = os.path.join(tmp, name + ".svg"), os.path.join(tmp, name + ".png")
                with open(svg_path, "w") as f:
                    f.write(text)
                svgrender.render_png(svg_path, png_path, svgplot.WIDTH, svgplot.HEIGHT)
                width, height, pixel = svgrender.read_png(png_path)
                self.assertEqual((width, height), (svgplot.WIDTH, svgplot.HEIGHT))
                self.assertEqual(pixel(2, height - 2), (255, 255, 255))
                root = ET.fromstring(text)
                circles = root.findall("{http://www.w3.org/2000/svg}circle")
                self.assertTrue(circles)
                for c in circles:
                    want = tuple(int(c.get("fill")[i:i + 2], 16) for i in (1, 3, 5))
                    got = pixel(round(float(c.get("cx"))), round(float(c.get("cy"))))
                    self.assertTrue(all(abs(a - b) <= 8 for a, b in zip(got, want)), (name, got, want))


if __name__ == "__main__":
    unittest.main()
