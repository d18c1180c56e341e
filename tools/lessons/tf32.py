"""`make tf32`: what TF32 inputs do to the accuracy of a dot product, measured on random inputs.

TRIALS dot products of length K, with a and b drawn uniformly from [-1, 1] and rounded to float, as the labs' tests
draw them (seeded: the same SEED gives the same numbers on every machine). Each is summed four ways:

- exact: the products of two floats are exact in a double, and math.fsum adds them with one rounding at the end;
- fp32: the float inputs, a float multiply-add at each k (the product and the running sum added in double, then
  rounded to float, as an FMA rounds once), in order k = 0, 1, ...;
- rounded: the same with each input first rounded to TF32 (10 mantissa bits) to nearest, ties away from zero, as
  wmma::__float_to_tf32 does;
- truncated: the same with each input truncated to 10 mantissa bits, as a tensor core reads a float that was not
  converted.

A sum's error is |sum − exact| / Σ|a·b|: the tests' tolerance is a multiple of Σ|a·b|, so this is the error in the
units the tolerance is written in. Errors are given in multiples of FLT_EPSILON = 2^-23 (float's spacing at 1).
The summation order differs from a tensor core's (it adds groups of 4 products), so the TF32 figures show what the
inputs' rounding costs, which is most of a tensor core's error; float rounding is done with struct, the standard
library only.

The numbers are quantities like the calculator's (TF32_QUANTITIES, a Tf32Shape): the lesson's marks
(`<!-- check TF32 K=1024: ... -->`) and exercises use them, and `make tf32` prints them.
"""
import functools
import math
import random
import struct
from dataclasses import dataclass

MANTISSA_BITS = 23  # float's
TF32_BITS = 10      # TF32's: lab 7's INPUT_MANTISSA_BITS
DROPPED = MANTISSA_BITS - TF32_BITS
EPSILON = 2.0 ** -MANTISSA_BITS  # FLT_EPSILON

_FLOAT = struct.Struct("<f")
_BITS = struct.Struct("<I")

DEFAULT_TRIALS = 100
DEFAULT_SEED = 1
MAX_K = 1 << 16
MAX_TRIALS = 10000


def to_float(x):
    """x rounded to the nearest float (ties to even), as a C cast from double does."""
    return _FLOAT.unpack(_FLOAT.pack(x))[0]


def _bits(f):
    return _BITS.unpack(_FLOAT.pack(f))[0]


def _from_bits(u):
    return _FLOAT.unpack(_BITS.pack(u))[0]


def tf32_truncate(f):
    """The float f with the low 13 bits of its mantissa cleared: what a tensor core reads of an unconverted float."""
    return _from_bits(_bits(f) & ~((1 << DROPPED) - 1))


def tf32_round(f):
    """f rounded to 10 mantissa bits, to nearest with ties away from zero (wmma::__float_to_tf32). Adding half of the
    dropped range to the magnitude's bits carries into the kept ones exactly when the dropped part is at least
    half a TF32 step. (No overflow check: the inputs here lie in [-1, 1].)"""
    return _from_bits((_bits(f) + (1 << (DROPPED - 1))) & ~((1 << DROPPED) - 1) & 0xFFFFFFFF)


def float_dot(a, b):
    """Σ a[k]·b[k] in float, one multiply-add per k in order, each rounded to float."""
    acc = 0.0
    unpack, pack = _FLOAT.unpack, _FLOAT.pack
    for x, y in zip(a, b):
        acc = unpack(pack(acc + x * y))[0]
    return acc


@dataclass(frozen=True)
class Tf32Shape:
    """TRIALS random dot products of length K, drawn from SEED."""
    K: int
    trials: int = DEFAULT_TRIALS
    seed: int = DEFAULT_SEED

    def name(self):
        return "dot products of length K = %d" % self.K

    def describe(self):
        return "%d trials, seed %d" % (self.trials, self.seed)

    def stated_sizes(self):
        """What a question about it must tell the student: the length of the dot products."""
        return ["K = %d" % self.K]


@functools.lru_cache(maxsize=16)
def errors(shape):
    """{'fp32' | 'rounded' | 'truncated': [error of each trial, in multiples of FLT_EPSILON]}."""
    rng = random.Random(shape.seed)
    out = {"fp32": [], "rounded": [], "truncated": []}
    for _ in range(shape.trials):
        a = [to_float(rng.uniform(-1.0, 1.0)) for _ in range(shape.K)]
        b = [to_float(rng.uniform(-1.0, 1.0)) for _ in range(shape.K)]
        products = [x * y for x, y in zip(a, b)]  # exact: 24 + 24 bits fit in a double's 53
        exact = math.fsum(products)
        scale = math.fsum(abs(p) for p in products) * EPSILON
        if scale == 0.0:
            scale = EPSILON  # every product 0: every sum is exact
        for name, convert in (("fp32", None), ("rounded", tf32_round), ("truncated", tf32_truncate)):
            x, y = (a, b) if convert is None else ([convert(v) for v in a], [convert(v) for v in b])
            out[name].append(abs(float_dot(x, y) - exact) / scale)
    return out


def mean(values):
    return math.fsum(values) / len(values)


def tolerance(shape):
    """The labs' tolerance for TF32 inputs, (K·FLT_EPSILON + 2·2^-10)·Σ|a·b|, in multiples of FLT_EPSILON·Σ|a·b|
    (common/reference_gemm.cpp; its tiny absolute term left out)."""
    return shape.K + 2 * 2 ** DROPPED


class Quantity:
    """As calculator.Quantity: a meaning, the computation, and a working that explains it."""

    def __init__(self, name, meaning, compute, working, decimals=0):
        self.name, self.meaning, self.compute, self.working, self.decimals = name, meaning, compute, working, decimals

    def explain(self, s):
        from .calculator import format_number
        return "%s = %s" % (self.working(s), format_number(self.compute(s), self.decimals))


def _stat(kind, how):
    what = {"fp32": "float inputs", "rounded": "inputs rounded to TF32", "truncated": "inputs truncated to TF32"}[kind]
    f = mean if how == "mean" else max
    return Quantity("%s_%s_error" % (kind, how), "%s error of a float sum of %s, |sum − exact| / Σ|a·b|, in "
                    "multiples of FLT_EPSILON (2^-23)" % (how, what), lambda s: f(errors(s)[kind]),
                    lambda s, how=how: "%s over %d random dot products (seed %d) of |sum − exact| / (Σ|a·b|·2^-23)"
                    % (how, s.trials, s.seed), decimals=2)


def _ratio(name, meaning, top, bottom, working, decimals=1):
    return Quantity(name, meaning, lambda s: top(s) / bottom(s),
                    lambda s: "%s = %.2f / %.2f" % (working, top(s), bottom(s)), decimals)


def _q(name):
    return lambda s: TF32_QUANTITIES[name].compute(s)


TF32_QUANTITIES = {q.name: q for q in [_stat(kind, how) for kind in ("fp32", "rounded", "truncated")
                                        for how in ("mean", "max")] + [
    Quantity("rounded_input_bound", "the largest relative change of an input rounded to TF32, in multiples of "
             "FLT_EPSILON", lambda s: 2 ** (DROPPED - 1), lambda s: "2^-11 / 2^-23 = 2^12"),
    Quantity("truncated_input_bound", "the largest relative change of an input truncated to TF32, in multiples of "
             "FLT_EPSILON", lambda s: 2 ** DROPPED, lambda s: "2^-10 / 2^-23 = 2^13"),
    Quantity("tolerance", "the tests' tolerance (K·FLT_EPSILON + 2·2^-10)·Σ|a·b|, in multiples of "
             "FLT_EPSILON·Σ|a·b|", tolerance, lambda s: "K + 2·2^13 = %d + 2·8192" % s.K),
    _ratio("truncated_over_rounded", "how many times larger the mean error is with truncated inputs than with "
           "rounded ones", _q("truncated_mean_error"), _q("rounded_mean_error"),
           "mean error truncated / mean error rounded"),
    _ratio("rounded_over_fp32", "how many times larger the mean error is with inputs rounded to TF32 than with float "
           "inputs", _q("rounded_mean_error"), _q("fp32_mean_error"), "mean error rounded / mean error fp32"),
    _ratio("tolerance_over_rounded_mean", "the tests' tolerance, in multiples of the mean error with rounded inputs",
           tolerance, _q("rounded_mean_error"), "tolerance / mean error rounded"),
    _ratio("tolerance_over_truncated_mean", "the tests' tolerance, in multiples of the mean error with truncated "
           "inputs", tolerance, _q("truncated_mean_error"), "tolerance / mean error truncated"),
    _ratio("tolerance_over_truncated_max", "the tests' tolerance, in multiples of the largest error with truncated "
           "inputs", tolerance, _q("truncated_max_error"), "tolerance / largest error truncated"),
]}


def report(s):
    from .calculator import format_number as n
    q = {name: TF32_QUANTITIES[name].compute(s) for name in TF32_QUANTITIES}
    lines = ["%d random dot products of length K = %d, a and b uniform in [-1, 1] as floats (seed %d)"
             % (s.trials, s.K, s.seed),
             "error of each sum: |sum − exact| / Σ|a·b|, in multiples of FLT_EPSILON = 2^-23", "",
             "%-44s %10s %10s" % ("inputs, summed in float", "mean", "largest")]
    for kind, label in (("fp32", "float (FP32)"), ("rounded", "TF32, rounded (__float_to_tf32)"),
                        ("truncated", "TF32, truncated (unconverted)")):
        lines.append("%-44s %10s %10s" % (label, n(q[kind + "_mean_error"], 2), n(q[kind + "_max_error"], 2)))
    lines += ["",
              "truncated / rounded, mean errors:            %s×" % n(q["truncated_over_rounded"], 1),
              "rounded TF32 / FP32, mean errors:            %s×" % n(q["rounded_over_fp32"], 1),
              "one input's largest change: rounded 2^-11 = %s, truncated 2^-10 = %s"
              % (n(q["rounded_input_bound"]), n(q["truncated_input_bound"])),
              "the tests' tolerance (K·FLT_EPSILON + 2·2^-10)·Σ|a·b| = %s: %s× the mean error rounded, %s× the mean "
              "and %s× the largest truncated" % (n(q["tolerance"]), n(q["tolerance_over_rounded_mean"], 1),
                                                 n(q["tolerance_over_truncated_mean"], 1),
                                                 n(q["tolerance_over_truncated_max"], 1))]
    return "\n".join(lines)
