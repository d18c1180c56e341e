"""Lab 8's lesson tools: the mma.sync lane maps of tools/lessons/mma.py against the emulator's mma_m16n8k8_tf32
(whose lane maps tests/emu/programs/mma_sync_tf32.cu checks against a GPU), the swizzle and its wavefronts against
the reference and the emulator's counts, the calculator's lab 8 quantities from lab.h, and `make mma`,
`make traffic ... LAB=8` and `make coalescing LAB=8`."""
import os
import random
import unittest

from support import ROOT, assert_usage_error, build_all, lesson, run, staged_kernel

from tools.lessons import calculator as calc
from tools.lessons import emulator
from tools.lessons import mma

LAB = "lab8-mma"
REFERENCE = os.path.join(ROOT, "solutions", LAB, "kernel.cu")
SKELETON = os.path.join(emulator.toolchain.pristine_labs(), LAB, "kernel.cu")


def cells(place, rows, cols):
    """{(lane, register): (row, col)} of a lane map."""
    return {place(r, c): (r, c) for r in range(rows) for c in range(cols)}


def lane_map_program(A, B):
    """A CUDA program that hands mma_m16n8k8_tf32 the registers mma.py's maps give each lane (a[i], b[i] of A and B
    in global memory, c zero), stores d[i] where the accumulator map says, and prints D, row by row."""
    def table(name, place, rows, cols):
        where = cells(place, rows, cols)
        registers = len(where) // 32
        flat = ", ".join("%d" % (r * cols + c) for lane in range(32) for i in range(registers)
                         for r, c in [where[lane, i]])
        return "__constant__ int %s[32 * %d] = {%s};\n" % (name, registers, flat)

    return ("#include <cstdio>\n#include <cstdint>\n#include \"mma_ptx.h\"\n" +
            table("A_AT", mma.a_place, 16, 8) + table("B_AT", mma.b_place, 8, 8) + table("C_AT", mma.c_place, 16, 8) +
            "__global__ void product(const float* A, const float* B, float* D) {\n"
            "    const int lane = threadIdx.x;\n"
            "    uint32_t a[4], b[2];\n"
            "    float c[4] = {0, 0, 0, 0}, d[4];\n"
            "    for (int i = 0; i < 4; ++i) a[i] = __float_as_uint(A[A_AT[lane * 4 + i]]);\n"
            "    for (int i = 0; i < 2; ++i) b[i] = __float_as_uint(B[B_AT[lane * 2 + i]]);\n"
            "    mma_m16n8k8_tf32(d, a, b, c);\n"
            "    for (int i = 0; i < 4; ++i) D[C_AT[lane * 4 + i]] = d[i];\n"
            "}\n"
            "int main() {\n"
            "    const float hA[128] = {%s}, hB[64] = {%s};\n"
            "    float *A, *B, *D, hD[128];\n"
            "    cudaMalloc(&A, sizeof hA);\n    cudaMalloc(&B, sizeof hB);\n    cudaMalloc(&D, sizeof hD);\n"
            "    cudaMemcpy(A, hA, sizeof hA, cudaMemcpyHostToDevice);\n"
            "    cudaMemcpy(B, hB, sizeof hB, cudaMemcpyHostToDevice);\n"
            "    product<<<1, 32>>>(A, B, D);\n"
            "    if (cudaDeviceSynchronize() != cudaSuccess) return 1;\n"
            "    cudaMemcpy(hD, D, sizeof hD, cudaMemcpyDeviceToHost);\n"
            "    for (int i = 0; i < 128; ++i) std::printf(\"%%g%%c\", hD[i], i %% 8 == 7 ? '\\n' : ' ');\n"
            "}\n") % (", ".join("%d" % x for x in A), ", ".join("%d" % x for x in B))


class LaneMaps(unittest.TestCase):
    def test_every_element_has_one_lane_and_register(self):
        for place, rows, cols, registers in [(mma.a_place, 16, 8, 4), (mma.b_place, 8, 8, 2),
                                             (mma.c_place, 16, 8, 4)]:
            where = cells(place, rows, cols)
            self.assertEqual(sorted(where), [(lane, i) for lane in range(32) for i in range(registers)])

    def test_the_maps_are_the_emulator_s_mma_m16n8k8_tf32(self):
        """Registers filled by mma.py's A and B maps and D read back by its C map give the product, on the emulator:
        a map that put one element in the wrong lane or register would not."""
        rng = random.Random(8)
        A = [rng.randint(-8, 8) for _ in range(16 * 8)]  # small integers: every sum exact, TF32 or not
        B = [rng.randint(-8, 8) for _ in range(8 * 8)]
        want = [[sum(A[r * 8 + k] * B[k * 8 + n] for k in range(8)) for n in range(8)] for r in range(16)]
        source = staged_kernel("mma_lane_maps.cu", lane_map_program(A, B))
        program = os.path.join(os.path.dirname(source), "mma_lane_maps")
        built = run([os.path.join(ROOT, "common", "emu", "emucc"), "-I", os.path.join(ROOT, "common"), "-o", program,
                     source])
        self.assertEqual(built.returncode, 0, built.stderr)
        ran = run([program], env=dict(os.environ, CUDAEMU_QUIET="1"))
        self.assertEqual(ran.returncode, 0, ran.stderr)
        got = [[float(x) for x in line.split()] for line in ran.stdout.splitlines()]
        self.assertEqual(got, want)

    def test_the_quantities_are_the_maps(self):
        q = mma.MMA_QUANTITIES
        for row, col in [(0, 0), (5, 6), (10, 3), (15, 7)]:
            s = mma.MmaShape(row, col)
            self.assertEqual((q["a_lane"].compute(s), q["a_register"].compute(s)), mma.a_place(row, col))
            self.assertEqual((q["c_lane"].compute(s), q["c_register"].compute(s)), mma.c_place(row, col))
            for name in ("a_lane", "a_register", "c_lane", "c_register"):
                self.assertTrue(q[name].explain(s).endswith("= %d" % q[name].compute(s)), q[name].explain(s))
        self.assertEqual(q["b_lane"].compute(mma.MmaShape(6, 5)), 22)  # lane 4n + k % 4
        with self.assertRaisesRegex(ValueError, "16×8"):
            q["a_lane"].compute(mma.MmaShape(16, 0))
        with self.assertRaisesRegex(ValueError, "8×8"):
            q["b_lane"].compute(mma.MmaShape(8, 0))


class Swizzle(unittest.TestCase):
    def test_the_swizzle_is_the_reference_s_and_the_skeleton_leaves_it_out(self):
        reference, skeleton = emulator.read_text(REFERENCE), emulator.read_text(SKELETON)
        self.assertIn("return m * T::BK + ((k / CHUNK) ^ (m % 8)) * CHUNK + k % CHUNK;", reference)
        self.assertIn("return k * T::BN + (n ^ (2 * CHUNK * (k % 4)));", reference)
        self.assertIn("return m * BK + k;", skeleton)
        self.assertIn("return k * BN + n;", skeleton)
        c = calc.lab_constants(8)
        self.assertEqual((mma.A_ROW, mma.B_ROW, mma.MAX_ROW + 1), (c["BK"], c["BN"], c["BM"]))

    def test_each_row_s_chunks_are_permuted_and_a_phase_meets_no_bank_twice(self):
        for m in range(16):
            self.assertEqual(sorted(mma.a_chunk(m, c) for c in range(8)), list(range(8)))
            self.assertEqual(sorted(mma.b_chunk(m, c) for c in range(32)), list(range(32)))
        self.assertEqual(mma.ldmatrix_wavefronts(True), 4)   # one per phase of 8 rows
        self.assertEqual(mma.ldmatrix_wavefronts(False), 32)  # the 8 rows of a phase in the same 4 banks
        self.assertEqual(mma.b_load_wavefronts(True), 1)
        self.assertEqual(mma.b_load_wavefronts(False), 4)


class Lab8Tile(unittest.TestCase):
    def test_each_quantity_follows_from_lab_h(self):
        c = calc.lab_constants(8)
        t = calc.BlockTile.of_lab(8)
        self.assertTrue(t.tensor and t.mma_sync)
        self.assertFalse(calc.BlockTile.of_lab(7).mma_sync)
        fm, fn, steps = c["WM"] // 16, c["WN"] // 8, c["BK"] // 8
        warps = (c["BM"] // c["WM"]) * (c["BN"] // c["WN"])
        for M, K, N in [(4096, 4096, 4096), (512, 200, 384), (55, 48, 43), (1, 1, 1)]:
            s = calc.BlockShape(M, K, N, t)
            tiles, phases = -(-M // c["BM"]) * -(-N // c["BN"]), -(-K // c["BK"])
            calls = tiles * phases * warps * fm * fn * steps
            want = {"fragments_per_warp": fm * fn, "accumulators": c["WM"] * c["WN"] // 32,
                    "mma_per_warp_per_phase": fm * fn * steps, "ldmatrix_per_warp_per_phase": fm * steps,
                    "b_loads_per_warp_per_phase": 2 * fn * steps, "flops_per_mma": 2 * 16 * 8 * 8,
                    "mma_calls": calls, "mma_flops": calls * 2048, "warps_per_block": warps,
                    "shared_bytes_per_block": c["STAGES"] * (c["BM"] + c["BN"]) * c["BK"] * 4,
                    "fragment_load_bytes": tiles * phases * warps * steps * (fm * 512 + fn * 256)}
            with self.subTest(shape=s.name()):
                for name, value in want.items():
                    self.assertEqual(calc.value(name, s), value, name)
                    q = calc.BLOCK_QUANTITIES[name]
                    self.assertTrue(q.explain(s).endswith(calc.format_number(value)), q.explain(s))
        lab7 = calc.BlockShape(55, 48, 43, calc.BlockTile.of_lab(7))
        for name in ("ldmatrix_per_warp_per_phase", "b_loads_per_warp_per_phase"):
            with self.assertRaisesRegex(ValueError, "not mma.sync"):
                calc.value(name, lab7)
        with self.assertRaisesRegex(ValueError, "ldmatrix_x4"):
            calc.value("fragment_loads_per_warp_per_phase", calc.BlockShape(55, 48, 43, t))
        with self.assertRaisesRegex(ValueError, "16×8 accumulator tiles"):
            calc.BlockTile.of_lab(8, WN=36)


def reference_with_labh_shape():
    """The lab 8 reference with its -D LAB8_... shape set to lab.h's, so that it uses that tile for every problem."""
    c = calc.lab_constants(8)
    defines = "".join("#define LAB8_%s %d\n" % (n, c[n]) for n in ("BM", "BN", "BK", "WM", "WN", "STAGES"))
    return staged_kernel("lab8-reference-labh-shape.cu", defines + "#define LAB8_MIN_BLOCKS 2\n" +
                         emulator.read_text(REFERENCE))


class Lab8AgainstEmulator(unittest.TestCase):
    def test_the_emulator_counts_what_the_calculator_computes(self):
        program = build_all({"lab8": ("8", reference_with_labh_shape(), None)})["lab8"]
        t = calc.BlockTile.of_lab(8)
        for M, K, N in [(128, 32, 128), (144, 97, 272), (55, 48, 43)]:
            s = calc.BlockShape(M, K, N, t)
            with self.subTest(shape=s.name()):
                got = emulator.measure(program, M, K, N, workers=2)
                self.assertTrue(got["correct"], got["failure"])
                self.assertEqual(got["grid"], [calc.block_grid_x(s), calc.block_grid_y(s)])
                self.assertEqual(got["block"][0] * got["block"][1], calc.value("threads_per_block", s))
                self.assertEqual(got["read_bytes_AB"], calc.value("read_bytes", s))
                self.assertEqual(got["shared_load_bytes"], calc.value("fragment_load_bytes", s))


class Tools(unittest.TestCase):
    def test_make_mma_prints_the_maps_the_swizzle_and_the_wavefronts(self):
        proc = run(["make", "-s", "mma", "ROW=5", "COL=6"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lanes = tuple(mma.a_place(5, 6)) + tuple(mma.b_place(5, 6)) + tuple(mma.c_place(5, 6))
        self.assertIn("A[5][6] in lane %d, a[%d]; B[5][6] in lane %d, b[%d]; C[5][6] in lane %d, c[%d]" % lanes,
                      proc.stdout)
        self.assertIn("chunk 1 of row 5 goes to chunk %d of As, to chunk %d of Bs" % (mma.a_chunk(5, 1),
                                                                                       mma.b_chunk(5, 1)), proc.stdout)
        self.assertIn("%d without the swizzle, %d with it" % (mma.ldmatrix_wavefronts(False),
                                                              mma.ldmatrix_wavefronts(True)), proc.stdout)
        far = run(["make", "-s", "mma", "ROW=100", "COL=30"])  # a row of As past the fragments: no lanes, a chunk
        self.assertIn("A[100][30] in lane -", far.stdout)
        self.assertIn("chunk 7 of row 100 goes to chunk %d of As" % mma.a_chunk(100, 7), far.stdout)
        assert_usage_error(self, "mma", ["ROW=128"], "ROW=128 is above 127")
        assert_usage_error(self, "mma", ["COL=-1"], "COL=-1 must be at least 0")
        assert_usage_error(self, "mma", ["K=3"], "'K=3' is not one of ROW=, COL=")

    def test_make_traffic_lab_8_prints_the_mma_sync_quantities(self):
        s = calc.BlockShape(4096, 4096, 4096, calc.BlockTile.of_lab(8))
        proc = run(["make", "-s", "traffic", "M=4096", "K=4096", "N=4096", "LAB=8"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for name in ("blocks", "read_bytes", "shared_bytes_per_block", "fragment_load_bytes", "mma_calls",
                     "mma_flops"):
            self.assertIn(calc.format_number(calc.value(name, s)), proc.stdout, name)
        self.assertIn("4×8 = 32 accumulator tiles of 16×8", proc.stdout)
        self.assertIn("16 ldmatrix_x4 of A, 64 32-bit loads of B and 128 mma_m16n8k8_tf32", proc.stdout)
        self.assertNotIn("load_matrix_sync", proc.stdout)

    def test_make_coalescing_lab_8_names_the_ldmatrix_line_and_its_wavefronts(self):
        proc = lesson("coalescing", "LAB=8", "KERNEL=" + REFERENCE)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        ldmatrix = [line for line in proc.stdout.splitlines() if "ldmatrix loads from shared memory" in line]
        self.assertEqual(len(ldmatrix), 1, proc.stdout)
        self.assertIn("32 lanes of 16 bytes, served 8 rows (one phase) at a time: %d wavefronts"
                      % mma.ldmatrix_wavefronts(True), ldmatrix[0])
        self.assertIn("%.1f wavefronts per request" % mma.ldmatrix_wavefronts(True), ldmatrix[0])


if __name__ == "__main__":
    unittest.main()
