"""`make tf32`: TF32's rounding and truncation bit by bit, float rounding, the error statistics against an exact
sum in fractions, the quantities the lesson's marks use, and the command's output and usage errors."""
import random
import struct
import time
import unittest
from fractions import Fraction

from support import assert_usage_error, lesson, run

from tools.lessons import calculator as calc
from tools.lessons import tf32
from tools.lessons.lesson_marks import parse_shape


def bits(f):
    return struct.unpack("<I", struct.pack("<f", f))[0]


class Rounding(unittest.TestCase):
    def test_truncation_and_rounding_keep_10_mantissa_bits(self):
        one = 1.0
        step = 2.0 ** -10  # TF32's spacing at 1
        for x, truncated, rounded in [(1.0, 1.0, 1.0), (1 + step / 2, 1.0, 1 + step),  # a tie goes away from 0
                                      (1 + step / 2 - 2 ** -23, 1.0, 1.0), (1 + step * 0.75, 1.0, 1 + step),
                                      (-(1 + step / 2), -1.0, -(1 + step)), (2 - 2 ** -23, 2 - step, 2.0),
                                      (0.0, 0.0, 0.0)]:
            with self.subTest(x=x):
                self.assertEqual(tf32.tf32_truncate(x), truncated)
                self.assertEqual(tf32.tf32_round(x), rounded)
                self.assertEqual(bits(tf32.tf32_round(x)) & 0x1FFF, 0)
        self.assertEqual(one, tf32.to_float(1 + 2 ** -25))  # float rounding, to nearest
        self.assertEqual(tf32.to_float(1 + 3 * 2 ** -25), 1 + 2 ** -23)

    def test_the_bounds_hold_on_random_floats(self):
        rng = random.Random(3)
        for _ in range(2000):
            x = tf32.to_float(rng.uniform(-1, 1))
            if x == 0:
                continue
            self.assertLessEqual(abs(tf32.tf32_truncate(x) - x), abs(x) * 2.0 ** -10)
            self.assertLessEqual(abs(tf32.tf32_round(x) - x), abs(x) * 2.0 ** -11)
            self.assertLessEqual(abs(tf32.tf32_truncate(x)), abs(x))  # towards zero


class Errors(unittest.TestCase):
    def test_a_float_sum_is_what_exact_fractions_rounded_at_each_step_give(self):
        rng = random.Random(5)
        a = [tf32.to_float(rng.uniform(-1, 1)) for _ in range(64)]
        b = [tf32.to_float(rng.uniform(-1, 1)) for _ in range(64)]
        acc = 0.0
        for x, y in zip(a, b):
            acc = tf32.to_float(float(Fraction(acc) + Fraction(x) * Fraction(y)))
        self.assertEqual(tf32.float_dot(a, b), acc)

    def test_the_statistics_against_fractions(self):
        s = tf32.Tf32Shape(16, 5, 7)
        got = tf32.errors(s)
        rng = random.Random(7)
        for trial in range(5):
            a = [tf32.to_float(rng.uniform(-1, 1)) for _ in range(16)]
            b = [tf32.to_float(rng.uniform(-1, 1)) for _ in range(16)]
            exact = sum(Fraction(x) * Fraction(y) for x, y in zip(a, b))
            scale = sum(abs(Fraction(x) * Fraction(y)) for x, y in zip(a, b)) * Fraction(1, 2 ** 23)
            for kind, convert in (("fp32", lambda v: v), ("rounded", tf32.tf32_round),
                                  ("truncated", tf32.tf32_truncate)):
                total = tf32.float_dot([convert(v) for v in a], [convert(v) for v in b])
                self.assertAlmostEqual(got[kind][trial], float(abs(Fraction(total) - exact) / scale), places=9)

    def test_what_the_lesson_relies_on(self):
        s = tf32.Tf32Shape(1024)
        q = {name: calc.value(name, s) for name in tf32.TF32_QUANTITIES}
        self.assertLess(q["fp32_mean_error"], q["rounded_mean_error"])
        self.assertLess(q["rounded_mean_error"], q["truncated_mean_error"])
        self.assertLess(q["truncated_max_error"], q["tolerance"])  # a correct kernel passes, converted or not
        self.assertLessEqual(q["rounded_max_error"], 2 * q["rounded_input_bound"])
        self.assertEqual((q["rounded_input_bound"], q["truncated_input_bound"], q["tolerance"]),
                         (2 ** 12, 2 ** 13, 1024 + 2 * 2 ** 13))
        self.assertAlmostEqual(q["truncated_over_rounded"], q["truncated_mean_error"] / q["rounded_mean_error"])

    def test_the_same_seed_gives_the_same_numbers_and_another_other_numbers(self):
        self.assertEqual(tf32.errors(tf32.Tf32Shape(40, 3, 1)), tf32.errors(tf32.Tf32Shape(40, 3, 1)))
        self.assertNotEqual(tf32.errors(tf32.Tf32Shape(40, 3, 1)), tf32.errors(tf32.Tf32Shape(40, 3, 2)))

    def test_a_mark_names_the_shape(self):
        self.assertEqual(parse_shape("TF32 K=1024"), tf32.Tf32Shape(1024, tf32.DEFAULT_TRIALS, tf32.DEFAULT_SEED))
        self.assertEqual(parse_shape("TF32 K=64 TRIALS=5 SEED=9"), tf32.Tf32Shape(64, 5, 9))
        self.assertIs(calc.quantities(tf32.Tf32Shape(64)), tf32.TF32_QUANTITIES)


class Command(unittest.TestCase):
    def test_make_tf32_prints_the_quantities_fast(self):
        start = time.monotonic()
        proc = run(["make", "-s", "tf32", "K=1024"])
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        s = tf32.Tf32Shape(1024)
        for name in ("fp32_mean_error", "rounded_mean_error", "truncated_mean_error", "truncated_max_error"):
            self.assertIn(calc.format_number(calc.value(name, s), 2), proc.stdout, name)
        for name in ("rounded_input_bound", "truncated_input_bound", "tolerance"):
            self.assertIn(calc.format_number(calc.value(name, s)), proc.stdout, name)
        self.assertIn("%s×" % calc.format_number(calc.value("truncated_over_rounded", s), 1), proc.stdout)
        other = lesson("tf32", "K=64", "TRIALS=3", "SEED=4")
        self.assertIn("3 random dot products of length K = 64", other.stdout)
        self.assertIn("(seed 4)", other.stdout)

    def test_bad_arguments(self):
        for args, why in [([], "K is missing"), (["K=0"], "K=0 must be at least 1"), (["K=70000"], "above 65536"),
                          (["K=1024", "TRIALS=x"], "TRIALS=x is not a whole number"),
                          (["K=65536", "TRIALS=1000"], "K·TRIALS"), (["K=8", "N=3"], "'N=3' is not one of")]:
            with self.subTest(args=args):
                assert_usage_error(self, "tf32", args, why)


if __name__ == "__main__":
    unittest.main()
