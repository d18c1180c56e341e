"""The calculator's shared-memory requests of the lab 5 and lab 6 references (banks.py) against the emulator's
per-line figures: requests, wavefronts and their ideal for every store into As and Bs and every load of the inner
loop, and the lanes' offsets in each line's first request.

The emulator counts the accesses the source makes, an access through a float4 pointer as one 16-byte request (lab
5's store into Bs, lab 6's loads), and lab 5's scalar loads one by one. The float4 form of lab 5's loads (16-byte
loads, as nvcc makes them) is checked on a copy of the reference whose inner-loop loads go through small functions
that the compiler keeps whole; lab 6's copy of that kind must count as the reference itself.
"""
import os
import re
import unittest

from support import ROOT, build_all, lab6_shape_defines, staged_kernel

from tools.lessons import banks
from tools.lessons import calculator as calc
from tools.lessons import emulator

SOLUTIONS = {lab: os.path.join(ROOT, "solutions", emulator.lab_folder(lab), "kernel.cu") for lab in (5, 6)}
WORKERS = 2  # the emulator's worker threads (it reports an H100's 132 multiprocessors whatever their number)
TUNED = {"BN": 256, "WM": 128, "WNITER": 4}  # lesson 6's tuned 128×256 tile, with 128×32 warp tiles

# Which access of banks.ACCESSES a source line is, by its text (the references and the float4 copies below).
LINE_KINDS = {
    "As_store": re.compile(r"^\s*As\[[^=]*\]\s*=[^=]"),
    "Bs_store": re.compile(r"reinterpret_cast<float4\s*\*>\(&Bs\[|void store_Bs_float4"),
    "As_load": re.compile(r"=\s*As\[k\]|<const float4\s*\*>\(&As\[|float4 load_As_float4"),
    "Bs_load": re.compile(r"=\s*Bs\[k\]|<const float4\s*\*>\(&Bs\[|float4 load_Bs_float4"),
}

# Small functions the compiler keeps whole: the emulator sees each access in them as one 16-byte request.
FLOAT4_HELPERS = """
__device__ __attribute__((noinline)) float4 load_As_float4(const float* p) { return *(const float4*)p; }
__device__ __attribute__((noinline)) float4 load_Bs_float4(const float* p) { return *(const float4*)p; }
__device__ __attribute__((noinline)) void store_Bs_float4(float* p, float4 v) { *(float4*)p = v; }
"""


def replace_once(text, old, new):
    assert text.count(old) == 1, "the reference no longer has %r: update this test's float4 copy" % old
    return text.replace(old, new)


def lab5_float4_copy():
    """The lab 5 reference with its inner loop's TM + TN scalar loads as float4 loads and its store into Bs as one
    16-byte store: what nvcc makes of it."""
    text = replace_once(emulator.read_text(SOLUTIONS[5]), '#include "lab.h"\n', '#include "lab.h"\n' + FLOAT4_HELPERS)
    for tile, reg, index, n in (("As", "a_reg", "ty * TM", "TM"), ("Bs", "b_reg", "tx * TN", "TN")):
        i = "i" if tile == "As" else "j"
        text = replace_once(
            text, "for (int %s = 0; %s < %s; ++%s) %s[%s] = %s[k][%s + %s];" % (i, i, n, i, reg, i, tile, index, i),
            "for (int %s = 0; %s < %s; %s += 4) {\n"
            "                const float4 v = load_%s_float4(&%s[k][%s + %s]);\n"
            "                %s[%s] = v.x, %s[%s + 1] = v.y, %s[%s + 2] = v.z, %s[%s + 3] = v.w;\n"
            "            }" % (i, i, n, i, tile, tile, index, i, reg, i, reg, i, reg, i, reg, i))
    text = replace_once(text, "*reinterpret_cast<float4*>(&Bs[b_ty][b_tx]) = b;", "store_Bs_float4(&Bs[b_ty][b_tx], b);")
    return staged_kernel("lab5-reference-float4.cu", text)


def lab6_float4_copy():
    """The lab 6 reference, lab.h's shape, with its float4 loads from As and Bs kept whole."""
    text = replace_once(emulator.read_text(SOLUTIONS[6]), '#include "lab.h"\n', '#include "lab.h"\n' + FLOAT4_HELPERS)
    for tile in ("As", "Bs"):
        text, count = re.subn(r"\*reinterpret_cast<const float4\*>\(&%s(\[[^;]*\])\);" % tile,
                              r"load_%s_float4(&%s\1);" % (tile, tile), text)
        assert count == 1, "the lab 6 reference's float4 load from %s changed: update this test" % tile
    return staged_kernel("lab6-reference-labh-shape-float4.cu", lab6_shape_defines() + text)


def per_access(result, kernel):
    """{access: [line, ...]} of the emulator's shared-memory lines, classified by their source text."""
    source = emulator.read_text(kernel).splitlines()
    found = {}
    for launch in result["launches"]:
        for line in launch["lines"]:
            if not line["shared"]:
                continue
            text = source[line["line"] - 1]
            kinds = [kind for kind, pattern in LINE_KINDS.items() if pattern.search(text)]
            assert len(kinds) == 1, "line %d (%s) is %s" % (line["line"], text.strip(), kinds or "no known access")
            found.setdefault(kinds[0], []).append(line)
    return found


# (M, K, N): the lessons' shape, whole tiles, 1×1×1, partial tiles on the float4 and on the scalar path
SHAPES = [(200, 100, 150), (128, 128, 128), (1, 1, 1), (130, 36, 260), (37, 29, 31)]


class SharedRequestsAgainstEmulator(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        labh = calc.BlockTile.of_lab(6)
        # name -> (lab, kernel, tile, float4 form)
        cls.kernels = {
            "lab5": (5, SOLUTIONS[5], calc.BlockTile.of_lab(5), False),
            "lab5, float4": (5, lab5_float4_copy(), calc.BlockTile.of_lab(5), True),
            "lab6, lab.h's shape": (6, staged_kernel("lab6-reference-labh-shape.cu", lab6_shape_defines() +
                                                     emulator.read_text(SOLUTIONS[6])), labh, False),
            "lab6, tuned": (6, staged_kernel("lab6-reference-tuned-shape.cu", lab6_shape_defines(**TUNED) +
                                             emulator.read_text(SOLUTIONS[6])), calc.BlockTile.of_lab(6, **TUNED),
                            False),
            "lab6, float4": (6, lab6_float4_copy(), labh, True),
        }
        cls.programs = build_all({name: (str(lab), kernel, None) for name, (lab, kernel, _, _) in cls.kernels.items()})

    def check(self, name, shapes):
        lab, kernel, tile, float4 = self.kernels[name]
        for M, K, N in shapes:
            s = calc.BlockShape(M, K, N, tile)
            with self.subTest(kernel=name, shape=s.name()):
                got = emulator.requests(self.programs[name], M, K, N, workers=WORKERS)
                self.assertTrue(got["correct"])
                lines = per_access(got, kernel)
                self.assertEqual(set(lines), set(banks.ACCESSES))
                self.assertEqual(len(lines["As_store"]), 4)  # one line per float of A's float4
                model = calc.shared_accesses(tile, float4)
                for access, found in lines.items():
                    first = model[access][0].requests[0]
                    for line in found:
                        where = "%s:%d" % (access, line["line"])
                        self.assertEqual(line["access_bytes"], model[access][0].size, where)
                        self.assertEqual(line["requests"], calc.launch_share(s) * model[access][1], where)
                        self.assertEqual(line["units"], calc.launch_share(s) * model[access][2], where)
                        self.assertEqual(line["ideal"], calc.launch_share(s) * model[access][3], where)
                        offsets = line["first_request"]
                        self.assertEqual([o - offsets[0] for o in offsets], [o - first[0] for o in first], where)
                    if not float4:
                        self.assertEqual(found[0]["requests"], calc.value("shared_requests_" + access, s))
                        self.assertEqual(found[0]["units"], calc.value("shared_wavefronts_" + access, s))
                        self.assertAlmostEqual(found[0]["units"] / found[0]["requests"],
                                               calc.value("shared_wavefronts_per_request_" + access, s))
                        self.assertAlmostEqual(found[0]["ideal"] / found[0]["requests"],
                                               calc.value("shared_ideal_per_request_" + access, s))
                        if found[0]["access_bytes"] == 4:  # the warp at once: its busiest bank's words
                            self.assertEqual(found[0]["units"] / found[0]["requests"],
                                             calc.value("shared_conflict_ways_" + access, s))
                    elif access in banks.FLOAT4_ACCESSES:
                        self.assertAlmostEqual(found[0]["units"] / found[0]["requests"],
                                               calc.value("float4_wavefronts_per_request_" + access, s))

    def test_lab5_reference(self):
        self.check("lab5", SHAPES)

    def test_lab5_as_float4_loads(self):
        self.check("lab5, float4", SHAPES[:3])

    def test_lab6_reference_with_labh_shape(self):
        self.check("lab6, lab.h's shape", SHAPES)

    def test_lab6_reference_with_the_tuned_tile(self):
        self.check("lab6, tuned", SHAPES[:3])

    def test_lab6_float4_loads_kept_whole(self):
        self.check("lab6, float4", SHAPES[:3])

    def test_the_lessons_shape_runs_lab6s_square_tile_unsplit_on_any_machine(self):
        """The lab 6 reference itself on the lessons' shape: N is no multiple of 4, so not the wide tile; 7 phases
        are too few to split. So its figures are lab.h's shape's with any number of workers."""
        M, K, N = SHAPES[0]
        s = calc.BlockShape(M, K, N, calc.BlockTile.of_lab(6))
        self.assertTrue(N % 4)
        self.assertLess(calc.value("phases", s), 2 * calc.MIN_SPLIT_PHASES)
        program = build_all({"lab6": ("6", SOLUTIONS[6], None)})["lab6"]
        for workers in (1, 3):
            with self.subTest(workers=workers):
                got = emulator.requests(program, M, K, N, workers=workers)
                self.assertEqual(len(got["launches"]), 1)
                lines = per_access(got, SOLUTIONS[6])
                for access, found in lines.items():
                    self.assertEqual({line["requests"] for line in found},
                                     {calc.value("shared_requests_" + access, s)}, access)
                    self.assertEqual({line["units"] for line in found},
                                     {calc.value("shared_wavefronts_" + access, s)}, access)


class BankRule(unittest.TestCase):
    """banks.wavefronts on patterns worked out by hand (docs/emulator.md's rule)."""

    def test_hand_computable_patterns(self):
        lanes = range(32)
        cases = [([4 * i for i in lanes], 4, 1),             # consecutive words
                 ([8 * i for i in lanes], 4, 2),             # stride 2: two words per bank
                 ([128 * i for i in lanes], 4, 32),          # stride 32: one bank
                 ([20] * 32, 4, 1),                          # a broadcast
                 ([16 * i for i in lanes], 16, 4),           # consecutive float4s: a quarter-warp per wavefront
                 ([16 * (i % 8) for i in lanes], 16, 4),     # lanes 8 apart on one address: quarters do not merge
                 ([16 * (i // 8) for i in lanes], 16, 2),    # a quarter-warp on one address: pairs merge
                 ([32 * (i % 16) for i in lanes], 16, 8),    # lab 5's float4 loads from Bs: tx and tx + 4 meet
                 ([8 * i for i in lanes], 8, 2)]             # consecutive float2s: a half-warp per wavefront
        for offsets, size, want in cases:
            with self.subTest(offsets=offsets[:4], size=size):
                self.assertEqual(banks.wavefronts(offsets, size), want)

    def test_conflict_ways_count_within_the_lanes_served_together(self):
        lanes = range(32)
        for offsets, size, want in [([32 * (i % 16) for i in lanes], 16, 2),  # tx, tx + 4 in a quarter-warp
                                    ([16 * i for i in lanes], 16, 1),         # the warp spans 4 words per bank
                                    ([32 * (i % 16) for i in lanes], 4, 4),   # as 4-byte loads: tx, +4, +8, +12
                                    ([16 * i for i in lanes], 8, 2)]:         # lanes l and l + 8 of a half-warp
            with self.subTest(offsets=offsets[:4], size=size):
                self.assertEqual(banks.ways(banks.Access(size, (tuple(offsets),), "")), want)

    def test_ideal_of_a_16_byte_access_is_its_wavefronts_without_a_conflict_in_any_quarter_warp(self):
        lanes = range(32)
        for offsets, want in [([16 * (i // 8) for i in lanes], 2),           # 64 bytes, but two pairs of quarters
                              ([16 * i for i in lanes], 4),                  # 512 distinct bytes
                              ([0] * 16 + [None] * 16, 1),                   # one half-warp on one address
                              ([16 * (i % 4) for i in lanes], 4),            # quarters share words: apart
                              ([32 * (i % 16) for i in lanes], 4)]:          # lab 5's Bs loads: 8 with the conflict
            with self.subTest(offsets=offsets[:4]):
                self.assertEqual(banks.ideal(offsets, 16), want)
        self.assertEqual(banks.ideal([0] * 32, 4), 1)  # a 4-byte broadcast: one wavefront does

    def test_only_labs_5_and_6(self):
        with self.assertRaisesRegex(ValueError, "labs 5 and 6 only"):
            calc.value("shared_requests_Bs_load", calc.BlockShape(64, 64, 64, calc.BlockTile.of_lab(4)))


if __name__ == "__main__":
    unittest.main()
