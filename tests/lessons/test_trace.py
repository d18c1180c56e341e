"""`make trace`: the phase-by-phase simulation, its numbers and its size limit."""
import unittest

from support import assert_usage_error, run

from tools.lessons import calculator as calc
from tools.lessons import phase_trace


class Simulation(unittest.TestCase):
    def test_simulated_product_and_loads_agree_with_direct_product_and_calculator(self):
        for M, K, N, T in [(1, 1, 1, 1), (4, 4, 4, 2), (5, 3, 7, 2), (7, 11, 13, 3), (12, 5, 9, 4), (3, 8, 2, 5)]:
            s = calc.Shape(M, K, N, T)
            with self.subTest(shape=s.name(), TILE=T):
                A, B = phase_trace.counting_matrix(M, K), phase_trace.counting_matrix(K, N)
                blocks, loads, C = phase_trace.simulate_tiled(s, A, B)
                self.assertEqual(C, [[sum(A[r][k] * B[k][c] for k in range(K)) for c in range(N)]
                                     for r in range(M)])
                self.assertEqual(loads * calc.FLOAT_BYTES, calc.tiled_read_bytes(s))
                self.assertEqual(len(blocks), calc.blocks(s))
                self.assertTrue(all(len(trail) == calc.phases(s) for trail in blocks.values()))

    def test_partial_tiles_are_zero_filled(self):
        s = calc.Shape(5, 3, 3, 2)
        A, B = phase_trace.counting_matrix(5, 3), phase_trace.counting_matrix(3, 3)
        last_phase = phase_trace.simulate_tiled(s, A, B)[0][(0, 0)][1]  # k = 2..3, and k = 3 does not exist
        self.assertEqual(last_phase.As, [[3, 0], [6, 0]])
        self.assertEqual(last_phase.Bs, [[7, 8], [0, 0]])


class TraceCommand(unittest.TestCase):
    def test_make_trace_4x4_tile_2(self):
        proc = run(["make", "-s", "trace", "M=4", "K=4", "N=4", "TILE=2"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for expected in ["As = A[0..1][2..3]", "Bs = B[2..3][0..1]", "C[0][0] += 1·1 + 2·5 = 11, so far 11",
                         "C[0][0] += 3·9 + 4·13 = 79, so far 90", "C[0][0] = 90", "128 floats = 512 bytes",
                         "64 floats = 256 bytes", "savings: 2.00× fewer bytes"]:
            self.assertIn(expected, proc.stdout)

    def test_block_picks_the_traced_block(self):
        # 5×3·3×7 with TILE=2: a 4 × 3 grid; block (3, 1) owns C[2..3][6..6], its second row and column past C
        proc = run(["make", "-s", "trace", "M=5", "K=3", "N=7", "TILE=2", "BLOCK=3,1"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        A, B = phase_trace.counting_matrix(5, 3), phase_trace.counting_matrix(3, 7)
        want = sum(A[2][k] * B[k][6] for k in range(3))
        for expected in ["traced for block (3, 1), which computes C[2..3][6..6]", "As = A[2..3][0..1]",
                         "Bs = B[2..3][6..7]", "C[2][6] = %d; row 2 of A times column 6 of B, summed directly: %d"
                         % (want, want)]:
            self.assertIn(expected, proc.stdout)

    def test_a_block_outside_the_grid_or_malformed_is_refused(self):
        for args, why in [(["M=5", "K=3", "N=7", "TILE=2", "BLOCK=4,0"], "outside the grid of 4 × 3 blocks"),
                          (["M=5", "K=3", "N=7", "TILE=2", "BLOCK=0,3"], "outside the grid of 4 × 3 blocks"),
                          (["M=5", "K=3", "N=7", "TILE=2", "BLOCK=1"], "BLOCK=1 is not x,y"),
                          (["M=5", "K=3", "N=7", "TILE=2", "BLOCK=-1,0"], "BLOCK=-1,0 is not x,y")]:
            with self.subTest(args=args):
                assert_usage_error(self, "trace", args, why)

    def test_sizes_above_the_limit_are_refused_in_one_line(self):
        for args, why in [(["M=13", "K=4", "N=4", "TILE=2"], "M=13 is above 12"),
                          (["M=4", "K=4", "N=4", "TILE=0"], "TILE=0 must be at least 1"),
                          (["M=4", "K=4", "N=4", "TILE=16"], "TILE=16 is above 12"),
                          (["M=4", "K=4", "N=4"], "TILE is missing")]:
            with self.subTest(args=args):
                assert_usage_error(self, "trace", args, why)


if __name__ == "__main__":
    unittest.main()
