"""The GPU's single-precision approximations that libdevice's float functions build on, as an H100 computes them, so
that expf, exp2f, powf, tanf, atanf, tanhf, ... give the GPU's bits (docs/emulator.md, "CUDA's math library"):
- ex2.approx.ftz.f32 (MUFU.EX2): for x = n + f >= 0, 2^n * T(k), with k = f's first 23 bits (truncated); for
  x = -(n + k * 2^-23) with k > 0, 2^(-n-1) * T(2^23 - 1 - k), and 2^-n where k = 0; results below 2^-126 are
  zeros, 2^128 and above infinity. T is the hardware's table of 2^23 values in [1, 2), measured whole: its first
  entry is 1 and each next one is 0 to 3 units of the last place above it (ex2_approx_f32.xz: those steps, 2 bits
  each, little-endian).
- ex2.approx.f32, without FTZ: ptxas computes ex2.approx.ftz(x / 2)^2 below -126, so that results may be subnormal.
- rcp.approx.ftz.f32 (MUFU.RCP): the reciprocal of the operand's significand truncated to 24 bits, plus one unit of
  the last place where the measured bitmap has the significand's 23 bits (rcp_approx_f32.xz; 4,552,774 of 2^23), at
  the operand's exponent; a subnormal operand is a zero, a subnormal result a zero.
- fma.rm (rounding down, in expf): fma.rn's result, one unit lower where the exact value lies below it (the exact
  value is a double product and a sum with its error, Knuth's TwoSum).
tools/approx-f32/probe.cu measured both tables on an H100 and checked these rules against every significand at every
exponent.

The tables (4 MB) live in one archive in the emulator's cache (archive()), built once, the first time a program that
uses one of these functions is linked; only such a program links it.
"""
import atexit
import fcntl
import hashlib
import lzma
import os
import shutil
import struct
import subprocess
import tempfile

from .errors import Error
from .toolchain import compiler_identity

EMU_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EX2_STEPS = os.path.join(EMU_DIR, "ex2_approx_f32.xz")
RCP_ROUNDS_UP = os.path.join(EMU_DIR, "rcp_approx_f32.xz")
WORDS = 1 << 18  # T's 2^23 entries, 32 steps to a 64-bit word
RCP_WORDS = 1 << 17  # 2^23 bits, 64 to a word

GLOBALS = """@cudaemu.ex2_approx.starts = external constant [262144 x i32], align 4
@cudaemu.ex2_approx.steps = external constant [262144 x i64], align 8
@cudaemu.rcp_approx_f32.rounds_up = external constant [131072 x i64], align 8
"""

# x = n + k * 2^-23 (|x| clamped to 256, where every result is 0 or infinity); T(i) = the first entry of i's word plus
# the steps before i in that word (the sum of 2-bit fields: their low bits once, their high bits twice)
EX2_FTZ = """define internal float @cudaemu.nvvm.ex2.approx.ftz.f(float %a) alwaysinline {
  %i = bitcast float %a to i32
  %negative = icmp slt i32 %i, 0
  %nan = fcmp uno float %a, 0.0
  %abs = call float @llvm.fabs.f32(float %a)
  %wide = fpext float %abs to double
  %x = call double @llvm.minnum.f64(double %wide, double 2.560000e+02)
  %n = call double @llvm.floor.f64(double %x)
  %f = fsub double %x, %n
  %fk = fmul double %f, 8.388608e+06
  %kf = call double @llvm.floor.f64(double %fk)
  %k = fptosi double %kf to i32
  %ni = fptosi double %n to i32
  %kzero = icmp eq i32 %k, 0
  %kc = sub i32 8388607, %k
  %nk = select i1 %kzero, i32 0, i32 %kc
  %n1 = add i32 %ni, 1
  %e0 = sub i32 0, %ni
  %e1 = sub i32 0, %n1
  %ne = select i1 %kzero, i32 %e0, i32 %e1
  %index = select i1 %negative, i32 %nk, i32 %k
  %e = select i1 %negative, i32 %ne, i32 %ni
  %w = lshr i32 %index, 5
  %w64 = zext i32 %w to i64
  %ps = getelementptr inbounds [262144 x i32], [262144 x i32]* @cudaemu.ex2_approx.starts, i64 0, i64 %w64
  %start = load i32, i32* %ps, align 4
  %pw = getelementptr inbounds [262144 x i64], [262144 x i64]* @cudaemu.ex2_approx.steps, i64 0, i64 %w64
  %word = load i64, i64* %pw, align 8
  %j = and i32 %index, 31
  %j2 = shl i32 %j, 1
  %j64 = zext i32 %j2 to i64
  %bit = shl i64 1, %j64
  %mask = sub i64 %bit, 1
  %before = and i64 %word, %mask
  %lows = and i64 %before, 6148914691236517205
  %highs = and i64 %before, -6148914691236517206
  %c1 = call i64 @llvm.ctpop.i64(i64 %lows)
  %c2 = call i64 @llvm.ctpop.i64(i64 %highs)
  %c2x = shl i64 %c2, 1
  %sum64 = add i64 %c1, %c2x
  %sum = trunc i64 %sum64 to i32
  %t = add i32 %start, %sum
  %mant = and i32 %t, 8388607
  %be = add i32 %e, 127
  %over = icmp sge i32 %be, 255
  %under = icmp sle i32 %be, 0
  %bes = shl i32 %be, 23
  %normal = or i32 %bes, %mant
  %r0 = select i1 %under, i32 0, i32 %normal
  %r1 = select i1 %over, i32 2139095040, i32 %r0
  %r2 = select i1 %nan, i32 2147483647, i32 %r1
  %r = bitcast i32 %r2 to float
  ret float %r
}

define internal float @cudaemu.nvvm.ex2.approx.f(float %a) alwaysinline {
  %small = fcmp olt float %a, -1.260000e+02
  %half = fmul float %a, 5.000000e-01
  %x = select i1 %small, float %half, float %a
  %y = call float @cudaemu.nvvm.ex2.approx.ftz.f(float %x)
  %square = fmul float %y, %y
  %r = select i1 %small, float %square, float %y
  ret float %r
}
"""

# the significand's reciprocal: 2^47 / (2^23 + k), 2^24 for k = 0 (then one exponent higher)
RCP_BODY = """%i = bitcast float %a to i32
  %s = and i32 %i, -2147483648
  %e0 = lshr i32 %i, 23
  %e = and i32 %e0, 255
  %k = and i32 %i, 8388607
  %k64 = zext i32 %k to i64
  %d = add i64 %k64, 8388608
  %q = udiv i64 140737488355328, %d
  %w = lshr i64 %k64, 6
  %p = getelementptr inbounds [131072 x i64], [131072 x i64]* @cudaemu.rcp_approx_f32.rounds_up, i64 0, i64 %w
  %word = load i64, i64* %p, align 8
  %b = and i64 %k64, 63
  %sh = lshr i64 %word, %b
  %up = and i64 %sh, 1
  %sig = add i64 %q, %up
  %sig32 = trunc i64 %sig to i32
  %mant = and i32 %sig32, 8388607
  %kzero = icmp eq i32 %k, 0
  %top = select i1 %kzero, i32 254, i32 253
  %ex = sub i32 %top, %e
  %exs = shl i32 %ex, 23
  %m1 = or i32 %exs, %mant
  %normal = or i32 %m1, %s
  %flush = icmp sle i32 %ex, 0
  %r0 = select i1 %flush, i32 %s, i32 %normal
  %subnormal = icmp eq i32 %e, 0
  %inf = or i32 %s, 2139095040
  %r1 = select i1 %subnormal, i32 %inf, i32 %r0
  %special = icmp eq i32 %e, 255
  %isnan = icmp ne i32 %k, 0
  %nanorzero = select i1 %isnan, i32 2147483647, i32 %s
  %r2 = select i1 %special, i32 %nanorzero, i32 %r1
  %r = bitcast i32 %r2 to float"""

# fma.rm: fma.rn's result rn, one unit lower where the exact value a*b + c lies below it. The product is exact in
# double, and TwoSum gives the sum as s + e exactly; t = s - rn is exact, and its sign (else e's) is the side. An
# exact zero is -0 when rounding down, unless both addends are +0.
FMA_ROUND_DOWN = """define internal float @cudaemu.nvvm.%s(float %%a, float %%b, float %%c) alwaysinline {
  %%rn = call float @llvm.fma.f32(float %%a, float %%b, float %%c)
  %%ad = fpext float %%a to double
  %%bd = fpext float %%b to double
  %%cd = fpext float %%c to double
  %%p = fmul double %%ad, %%bd
  %%s = fadd double %%p, %%cd
  %%bb = fsub double %%s, %%p
  %%sb = fsub double %%s, %%bb
  %%e1 = fsub double %%p, %%sb
  %%e2 = fsub double %%cd, %%bb
  %%e = fadd double %%e1, %%e2
  %%rd = fpext float %%rn to double
  %%t = fsub double %%s, %%rd
  %%tz = fcmp oeq double %%t, 0.0
  %%tl = fcmp olt double %%t, 0.0
  %%el = fcmp olt double %%e, 0.0
  %%zl = and i1 %%tz, %%el
  %%below = or i1 %%tl, %%zl
  %%ri = bitcast float %%rn to i32
  %%neg = icmp slt i32 %%ri, 0
  %%pzero = icmp eq i32 %%ri, 0
  %%dm = select i1 %%neg, i32 1, i32 -1
  %%dn0 = add i32 %%ri, %%dm
  %%down = select i1 %%pzero, i32 -2147483647, i32 %%dn0
  %%r1 = select i1 %%below, i32 %%down, i32 %%ri
  %%se = fcmp oeq double %%s, 0.0
  %%ee = fcmp oeq double %%e, 0.0
  %%exact0 = and i1 %%se, %%ee
  %%pi = bitcast double %%p to i64
  %%ci = bitcast float %%c to i32
  %%pp = icmp eq i64 %%pi, 0
  %%cp = icmp eq i32 %%ci, 0
  %%both = and i1 %%pp, %%cp
  %%zero = select i1 %%both, i32 0, i32 -2147483648
  %%r2 = select i1 %%exact0, i32 %%zero, i32 %%r1
  %%r = bitcast i32 %%r2 to float
  ret float %%r
}
"""


def fma_round_down(name):
    """The definition of cudaemu.nvvm.NAME, fma.rm.f or fma.rm.ftz.f (no FTZ here: see REFLECT)."""
    return FMA_ROUND_DOWN % name


INTRINSICS = {"ex2.approx.ftz.f", "ex2.approx.f", "fma.rm.f", "fma.rm.ftz.f"}
RCP_ASM = '"rcp.approx.ftz.f32 $0,$1;", "=f,f"'
DECLARATIONS = {"llvm.ctpop.i64": "declare i64 @llvm.ctpop.i64(i64)\n"}


def typed(text, typed_pointers):
    """text (written with typed pointers) in the pointer syntax of the IR's LLVM."""
    if typed_pointers:
        return text
    for n, t in (("262144", "i32"), ("262144", "i64"), ("131072", "i64")):
        text = text.replace("[%s x %s]* @" % (n, t), "ptr @")
    return text.replace("i32* %", "ptr %").replace("i64* %", "ptr %")


def definitions(names, typed_pointers):
    """IR defining the intrinsics of `names` this module knows (INTRINSICS); the tables they read are GLOBALS."""
    wanted = sorted(set(names) & INTRINSICS)
    text = ""
    if {"ex2.approx.ftz.f", "ex2.approx.f"} & set(wanted):
        text += EX2_FTZ
    text += "".join(fma_round_down(n) for n in wanted if n.startswith("fma."))
    return typed(text, typed_pointers)


def rcp_asm_body(typed_pointers):
    """The instruction lines of rcp.approx.ftz.f32 (operand %a, result %r)."""
    return typed(RCP_BODY, typed_pointers).split("\n  ")


def tables():
    """(T's first entry of each word, the words of steps, the rcp bitmap's words), from the measured files."""
    with lzma.open(EX2_STEPS) as f:
        steps = struct.unpack("<%dQ" % WORDS, f.read())
    starts, t = [], 1 << 23
    for word in steps:
        starts.append(t)
        t += bin(word & 0x5555555555555555).count("1") + 2 * bin(word & 0xAAAAAAAAAAAAAAAA).count("1")
    with lzma.open(RCP_ROUNDS_UP) as f:
        rounds_up = struct.unpack("<%dQ" % RCP_WORDS, f.read())
    return starts, steps, rounds_up


def tables_ir():
    """The tables as LLVM IR definitions of GLOBALS."""
    starts, steps, rounds_up = tables()
    def array(name, kind, values, align):
        return "@%s = constant [%d x %s] [%s], align %d\n" % (
            name, len(values), kind, ", ".join("%s %d" % (kind, v - (1 << 64) if v >> 63 else v) for v in values),
            align)
    return (array("cudaemu.ex2_approx.starts", "i32", starts, 4) + array("cudaemu.ex2_approx.steps", "i64", steps, 8)
            + array("cudaemu.rcp_approx_f32.rounds_up", "i64", rounds_up, 8))


def referenced(paths):
    """Whether any of these objects (or archives) uses the tables: their symbols' names are in its bytes."""
    for path in paths:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if b"cudaemu.ex2_approx." in data or b"cudaemu.rcp_approx_f32." in data:
            return True
    return False


def archive(clang, cache, find_ar):
    """The archive of the tables' object in the cache, built if missing (in a private folder for this run where the
    cache may not be written, as in a sandbox); its path. Named by the compiler's identity and the tables' files."""
    h = hashlib.sha1(compiler_identity(clang).encode())
    for p in (EX2_STEPS, RCP_ROUNDS_UP, os.path.abspath(__file__)):
        with open(p, "rb") as f:
            h.update(f.read())
    name = "approx-%s.a" % h.hexdigest()[:16]
    path = os.path.join(cache, name)
    if os.path.exists(path):
        return path
    try:
        os.makedirs(cache, exist_ok=True)
        lock = open(os.path.join(cache, ".lock"), "w")
    except OSError:
        private = tempfile.mkdtemp(prefix="emucc-approx-")
        atexit.register(shutil.rmtree, private, True)
        path = os.path.join(private, name)
        build_archive(clang, path, find_ar)
        return path
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(path):
            build_archive(clang, path, find_ar)
    return path


def build_archive(clang, path, find_ar):
    """Compiles the tables (tables_ir) into an object and archives it at path, whole or not at all."""
    partial = "%s.%d.tmp" % (path, os.getpid())
    with open(partial + ".ll", "w") as f:
        f.write(tables_ir())
    try:
        ar = find_ar()
        if not ar:
            raise Error("no archiver (llvm-ar or ar) for the GPU's approximation tables")
        for cmd in ([clang, "-x", "ir", "-c", partial + ".ll", "-o", partial + ".o"],
                    [ar, "rcs", partial, partial + ".o"]):
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                raise Error("the GPU's approximation tables did not build: %s"
                            % (done.stderr.strip().splitlines() or ["?"])[-1])
        os.replace(partial, path)
    finally:
        for p in (partial + ".ll", partial + ".o", partial):
            if os.path.exists(p):
                os.remove(p)


def find_archiver(clang, major, find_tool):
    """llvm-ar of clang's version, else the system's ar."""
    return find_tool(clang, major, "llvm-ar") or shutil.which("ar")
