"""CUDA's own math library in device code. nvcc compiles `exp`, `log`, `pow`, `sin`, ... in device code to the
functions of libdevice (the CUDA Toolkit's nvvm/libdevice/libdevice.10.bc, LLVM bitcode), whose last bits differ
from the host's libm. Where the toolkit is installed, emucc links those functions into device code instead:
- once, libdevice is made host IR (prepare): its NVVM intrinsics become plain LLVM IR where they are exact
  (`fma.rn`, `add.rn`, `d2i.hi`, `cvt.rni`, ...), its `__nvvm_reflect` queries get nvcc's defaults (no FTZ, IEEE
  square root, sm_90), and it is cached;
- the hardware approximations an H100 was measured for (`ex2.approx` in `expf`, `rcp.approx.ftz.f32` in `powf`,
  `fma.rm` in `expf`: approx.py) are defined as the H100 computes them;
- a libdevice function is used only when everything it calls is exact, so that it returns the GPU's bits: those
  that need another hardware approximation (`lg2.approx`, `rsqrt.approx`, ...) or another directed rounding mode
  stay with the host's libm (see docs/emulator.md);
- in each device function (and in the inline wrappers it calls, such as libstdc++'s `std::pow(float, int)`, which
  get device copies), calls of the C library's name (`exp`) become calls of libdevice's (`__nv_exp`), and the
  functions used are linked in.
$CUDAEMU_LIBDEVICE names the bitcode file, or `none` for the host's libm everywhere.
"""
import atexit
import hashlib
import lzma
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from . import approx
from .arithmetic import device_functions, fuse_in_function
from .errors import Error
from .toolchain import compiler_identity

SUFFIX = {"float": "f32", "double": "f64"}
REFLECT = {"__CUDA_FTZ": 0, "__CUDA_PREC_SQRT": 1, "__CUDA_ARCH": 900}  # nvcc's defaults, for an H100


def find_libdevice():
    """The path of libdevice.10.bc, or None: $CUDAEMU_LIBDEVICE, else beside the nvcc on the PATH, else the usual
    toolkit places (CUDA_HOME, /usr/local/cuda, Debian's nvidia-cuda-toolkit)."""
    chosen = os.environ.get("CUDAEMU_LIBDEVICE")
    if chosen:
        return None if chosen == "none" else (chosen if os.path.isfile(chosen) else None)
    roots = []
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    roots += [os.environ.get("CUDA_HOME") or "", os.environ.get("CUDA_PATH") or "", "/usr/local/cuda"]
    candidates = [os.path.join(r, "nvvm", "libdevice", "libdevice.10.bc") for r in roots if r]
    candidates.append("/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc")
    return next((c for c in candidates if os.path.isfile(c)), None)


# The NVVM intrinsics libdevice calls that plain IR computes exactly: the instruction lines for each (arguments
# %a, %b, %c; the result %r; T its floating-point type). The .ftz variants are reached only when __CUDA_FTZ is 1,
# never here, and behave as their plain twins. Those not listed (approximations, directed rounding) are not exact.
def _float_ops():
    ops = {}
    for t in ("f", "d"):
        for ftz in ("", ".ftz") if t == "f" else ("",):
            k = lambda name: "%s%s.%s" % (name, ftz, t)
            ops[k("fma.rn")] = ["%r = call T @llvm.fma.S(T %a, T %b, T %c)"]
            ops[k("add.rn")] = ["%r = fadd T %a, %b"]
            ops[k("mul.rn")] = ["%r = fmul T %a, %b"]
            ops[k("div.rn")] = ["%r = fdiv T %a, %b"]
            ops[k("rcp.rn")] = ["%r = fdiv T 1.0, %a"]
            ops[k("sqrt.rn")] = ["%r = call T @llvm.sqrt.S(T %a)"]
            ops[k("fabs")] = ["%r = call T @llvm.fabs.S(T %a)"]
            ops[k("fmin")] = ["%r = call T @llvm.minnum.S(T %a, T %b)"]
            ops[k("fmax")] = ["%r = call T @llvm.maxnum.S(T %a, T %b)"]
            ops[k("floor")] = ["%r = call T @llvm.floor.S(T %a)"]
            ops[k("ceil")] = ["%r = call T @llvm.ceil.S(T %a)"]
            ops[k("trunc")] = ["%r = call T @llvm.trunc.S(T %a)"]
            ops[k("round")] = ["%r = call T @llvm.rint.S(T %a)"]  # cvt.rni: to nearest, ties to even
            ops[k("saturate")] = ["%p = fcmp ogt T %a, 0.0", "%q = select i1 %p, T %a, T 0.0",
                                  "%u = fcmp olt T %q, 1.0", "%r = select i1 %u, T %q, T 1.0"]
            for name, width in (("2i", "i32"), ("2ll", "i64")):
                ops["%s%s.rn%s" % (t, name, ftz)] = ["%n = call T @llvm.rint.S(T %a)", "%r = fptosi T %n to " + width]
                ops["%s%s.rz%s" % (t, name, ftz)] = ["%r = fptosi T %a to " + width]
    for source, op in (("i", "sitofp"), ("ui", "uitofp"), ("ll", "sitofp"), ("ull", "uitofp")):
        for t in ("f", "d"):
            ops["%s2%s.rn" % (source, t)] = ["%r = " + op + " X %a to T"]
    ops["d2f.rn"] = ops["d2f.rn.ftz"] = ["%r = fptrunc double %a to float"]
    ops["d2i.hi"] = ["%i = bitcast double %a to i64", "%h = lshr i64 %i, 32", "%r = trunc i64 %h to i32"]
    ops["d2i.lo"] = ["%i = bitcast double %a to i64", "%r = trunc i64 %i to i32"]
    ops["lohi.i2d"] = ["%l = zext i32 %a to i64", "%h = zext i32 %b to i64", "%s = shl i64 %h, 32",
                       "%o = or i64 %s, %l", "%r = bitcast i64 %o to double"]
    for name, ext, width in (("i", "sext", 64), ("ui", "zext", 64), ("ll", "sext", 128), ("ull", "zext", 128)):
        narrow = "i%d" % (width // 2)
        wide = "i%d" % width
        ops["mulhi." + name] = ["%%x = %s %s %%a to %s" % (ext, narrow, wide),
                                "%%y = %s %s %%b to %s" % (ext, narrow, wide), "%%p = mul %s %%x, %%y" % wide,
                                "%%h = lshr %s %%p, %d" % (wide, width // 2),
                                "%%r = trunc %s %%h to %s" % (wide, narrow)]
    return ops


EXACT = _float_ops()

# The inline PTX of libdevice that plain IR computes exactly: ASM maps each block (its asm string and constraints,
# as the IR writes them) to (the name of the function that replaces it, that function's signature, its instruction
# lines, its return type); a block given no signature shares an earlier one's function. Others (directed rounding,
# rsqrt.approx, ...) leave their functions to the host.
ASM = {}
SPLIT128 = ["%l = trunc i128 %q to i64", "%s = lshr i128 %q, 64", "%h = trunc i128 %s to i64",
            "%u = insertvalue { i64, i64 } undef, i64 %l, 0", "%r = insertvalue { i64, i64 } %u, i64 %h, 1"]
JOIN128 = ["%al = zext i64 %a to i128", "%ah0 = zext i64 %b to i128", "%ah = shl i128 %ah0, 64",
           "%x = or i128 %ah, %al", "%bl = zext i64 %c to i128", "%bh0 = zext i64 %d to i128",
           "%bh = shl i128 %bh0, 64", "%y = or i128 %bh, %bl"]


def _ptx(constraints, lines, name, signature=None, body=None, ret=None):
    """Adds to ASM the block of these PTX lines (`{`, the lines, `}`, newline and tab before each) as libdevice
    writes it."""
    key = '"%s", "%s"' % ("".join("{" if i == 0 else "\\0A\\09" + l for i, l in enumerate([""] + lines + ["}"])),
                          constraints)
    ASM[key] = (name, signature, body, ret)


# a 32 x 32 + 32 -> 64-bit multiply-add; 64 x 64 (+ 64) -> 128-bit ones; 128-bit sums and differences of (low,
# high) pairs: 32-bit pieces with carries, which whole-width integer arithmetic computes alike
_ptx("=r,=r,r,r,r", ["mad.lo.cc.u32   $0, $2, $3, $4;", "madc.hi.u32     $1, $2, $3,  0;"], "mad.wide",
     "{ i32, i32 } @cudaemu.asm.mad.wide(i32 %a, i32 %b, i32 %c)",
     ["%x = zext i32 %a to i64", "%y = zext i32 %b to i64", "%z = zext i32 %c to i64", "%p = mul i64 %x, %y",
      "%q = add i64 %p, %z", "%l = trunc i64 %q to i32", "%s = lshr i64 %q, 32", "%h = trunc i64 %s to i32",
      "%u = insertvalue { i32, i32 } undef, i32 %l, 0", "%r = insertvalue { i32, i32 } %u, i32 %h, 1"],
     "{ i32, i32 }")
_ptx("=l,=l,l,l", [".reg .u32 r0, r1, r2, r3, alo, ahi, blo, bhi;", "mov.b64         {alo,ahi}, $2;   ",
                   "mov.b64         {blo,bhi}, $3;   ", "mul.lo.u32      r0, alo, blo;    ",
                   "mul.hi.u32      r1, alo, blo;    ", "mad.lo.cc.u32   r1, alo, bhi, r1;",
                   "madc.hi.u32     r2, alo, bhi,  0;", "mad.lo.cc.u32   r1, ahi, blo, r1;",
                   "madc.hi.cc.u32  r2, ahi, blo, r2;", "madc.hi.u32     r3, ahi, bhi,  0;",
                   "mad.lo.cc.u32   r2, ahi, bhi, r2;", "addc.u32        r3, r3,  0;      ",
                   "mov.b64         $0, {r0,r1};     ", "mov.b64         $1, {r2,r3};     "],
     "mul.wide64", "{ i64, i64 } @cudaemu.asm.mul.wide64(i64 %a, i64 %b)",
     ["%x = zext i64 %a to i128", "%y = zext i64 %b to i128", "%q = mul i128 %x, %y"] + SPLIT128, "{ i64, i64 }")
_ptx("=l,=l,l,l,l", [".reg .u32 r0, r1, r2, r3, alo, ahi, blo, bhi, clo, chi;",
                     "mov.b64         {alo,ahi}, $2;    ", "mov.b64         {blo,bhi}, $3;    ",
                     "mov.b64         {clo,chi}, $4;    ", "mad.lo.cc.u32   r0, alo, blo, clo;",
                     "madc.hi.cc.u32  r1, alo, blo, chi;", "madc.hi.u32     r2, alo, bhi,   0;",
                     "mad.lo.cc.u32   r1, alo, bhi,  r1;", "madc.hi.cc.u32  r2, ahi, blo,  r2;",
                     "madc.hi.u32     r3, ahi, bhi,   0;", "mad.lo.cc.u32   r1, ahi, blo,  r1;",
                     "madc.lo.cc.u32  r2, ahi, bhi,  r2;", "addc.u32        r3,  r3,   0;     ",
                     "mov.b64         $0, {r0,r1};      ", "mov.b64         $1, {r2,r3};      "],
     "mad.wide64", "{ i64, i64 } @cudaemu.asm.mad.wide64(i64 %a, i64 %b, i64 %c)",
     ["%x = zext i64 %a to i128", "%y = zext i64 %b to i128", "%z = zext i64 %c to i128", "%p = mul i128 %x, %y",
      "%q = add i128 %p, %z"] + SPLIT128, "{ i64, i64 }")
for _op, _carry in (("add", "addc"), ("sub", "subc")):
    _ptx("=l,=l,l,l,l,l", [".reg .u32 r0, r1, r2, r3, a0, a1, a2, a3, b0, b1, b2, b3;", "mov.b64         {a0,a1}, $2;",
                           "mov.b64         {a2,a3}, $3;", "mov.b64         {b0,b1}, $4;",
                           "mov.b64         {b2,b3}, $5;", "%-15s r0, a0, b0; " % (_op + ".cc.u32"),
                           "%-15s r1, a1, b1; " % (_carry + ".cc.u32"), "%-15s r2, a2, b2; " % (_carry + ".cc.u32"),
                           "%-15s r3, a3, b3; " % (_carry + ".u32"), "mov.b64         $0, {r0,r1};",
                           "mov.b64         $1, {r2,r3};"],
         _op + "128", "{ i64, i64 } @cudaemu.asm.%s128(i64 %%a, i64 %%b, i64 %%c, i64 %%d)" % _op,
         JOIN128 + ["%%q = %s i128 %%x, %%y" % _op] + SPLIT128, "{ i64, i64 }")
# (its body reads a table, in the pointer syntax of the IR at hand: prepare fills it in)
ASM[approx.RCP_ASM] = ("rcp.approx.f32", "float @cudaemu.asm.rcp.approx.f32(float %a)", "approx", "float")
ASM['"sub.rn.f32 $0, $1, $2;", "=f,f,f"'] = ("sub.f32", "float @cudaemu.asm.sub.f32(float %a, float %b)",
                                             ["%r = fsub float %a, %b"], "float")
ASM['"sub.rn.ftz.f32 $0, $1, $2;", "=f,f,f"'] = ("sub.f32", None, None, None)  # no FTZ here (REFLECT)
ASM['"sub.rn.f64 $0, $1, $2;", "=d,d,d"'] = ("sub.f64", "double @cudaemu.asm.sub.f64(double %a, double %b)",
                                             ["%r = fsub double %a, %b"], "double")
ASM['"{ .reg .pred __$$temp3;\\0A  setp.equ.f64 __$$temp3, $1, $2;\\0A  selp.f64 $0, $3, $4, __$$temp3;}", '
    '"=d,d,d,d,d"'] = ("select.equ", "double @cudaemu.asm.select.equ(double %a, double %b, double %c, double %d)",
                       ["%p = fcmp ueq double %a, %b", "%r = select i1 %p, double %c, double %d"], "double")
DECLARE = re.compile(r"^declare (\S+) @llvm\.nvvm\.([\w.]+)\(([^)]*)\)", re.M)
DEFINE = re.compile(r"^define ([^@]*)@([\w.$]+)\(", re.M)
CALLEE = re.compile(r"@([-\w.$]+)\(")


# rcp.approx.ftz.f64, as an H100 computes it (tools/rcp-approx/probe.cu measured it and checked this rule on 16.7
# million operands): the double reciprocal of the operand's top 32 bits, truncated to its top 32 bits, plus one unit
# of its 20th mantissa bit where the operand's 20 mantissa bits are set in the measured bitmap (72,677 of 2^20);
# subnormal operands and results are zeros. libdevice refines it with Newton steps, but the last bit of log, pow,
# tan, ... still depends on it.
ARITHMETIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "arithmetic.py")  # prepare fuses with it
ROUNDS_UP = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "rcp_approx_f64.xz")
RCP_APPROX = """define internal double @cudaemu.nvvm.rcp.approx.ftz.d(double %a) alwaysinline {
  %i = bitcast double %a to i64
  %e0 = lshr i64 %i, 52
  %e = and i64 %e0, 2047
  %sign = and i64 %i, -9223372036854775808
  %top = and i64 %i, -4294967296
  %subnormal = icmp eq i64 %e, 0
  %t = select i1 %subnormal, i64 %sign, i64 %top
  %x = bitcast i64 %t to double
  %q = fdiv double 1.0, %x
  %j = bitcast double %q to i64
  %f0 = lshr i64 %j, 52
  %f = and i64 %f0, 2047
  %jsign = and i64 %j, -9223372036854775808
  %tiny = icmp eq i64 %f, 0
  %j2 = select i1 %tiny, i64 %jsign, i64 %j
  %k = and i64 %j2, -4294967296
  %m0 = lshr i64 %i, 32
  %m = and i64 %m0, 1048575
  %w = lshr i64 %m, 5
  %b = and i64 %m, 31
  %p = getelementptr inbounds [32768 x i32], [32768 x i32]* @cudaemu.rcp_approx.rounds_up, i64 0, i64 %w
  %v = load i32, i32* %p, align 4
  %v64 = zext i32 %v to i64
  %sh = lshr i64 %v64, %b
  %up0 = and i64 %sh, 1
  %n1 = icmp ne i64 %e, 0
  %n2 = icmp ne i64 %e, 2047
  %n3 = icmp ne i64 %f, 0
  %n12 = and i1 %n1, %n2
  %n = and i1 %n12, %n3
  %up = select i1 %n, i64 %up0, i64 0
  %unit = shl i64 %up, 32
  %sum = add i64 %k, %unit
  %r = bitcast i64 %sum to double
  ret double %r
}
"""


def rcp_approx(typed_pointers):
    """The definition of rcp.approx.ftz.f64 and its table (RCP_APPROX), in the pointer syntax of the IR's LLVM."""
    with lzma.open(ROUNDS_UP) as f:
        words = struct.unpack("<32768I", f.read())
    table = ("@cudaemu.rcp_approx.rounds_up = internal constant [32768 x i32] [%s], align 4\n"
             % ", ".join("i32 %d" % w for w in words))
    body = RCP_APPROX
    if not typed_pointers:
        body = body.replace("[32768 x i32]* @", "ptr @").replace("i32* %p", "ptr %p")
    return table + body


def _definition(name, ret, params):
    """The IR definition of cudaemu.nvvm.NAME (an exact intrinsic), or None."""
    body = EXACT.get(name)
    if body is None:
        return None
    types = [p.strip() for p in params.split(",") if p.strip()]
    fp = ret if ret in SUFFIX else next((t for t in types if t in SUFFIX), "double")
    args = ", ".join("%s %%%s" % (t, "abc"[i]) for i, t in enumerate(types))
    lines = [l.replace(" T ", " %s " % fp).replace("(T ", "(%s " % fp).replace(" T)", " %s)" % fp)
             .replace(" X ", " %s " % (types[0] if types else "")).replace(".S(", ".%s(" % SUFFIX[fp])
             for l in body]
    lines = [l[:-2] + " " + fp if l.endswith(" T") else l for l in lines]
    return ("define internal %s @cudaemu.nvvm.%s(%s) alwaysinline {\n  %s\n  ret %s %%r\n}\n"
            % (ret, name, args, "\n  ".join(lines), ret))


def prepare(text):
    """libdevice's IR (llvm-dis's text) as host IR: (ir, exact), exact being the names of the __nv_ functions whose
    every callee is exact."""
    typed_pointers = not re.search(r"\bptr\b", text)  # LLVM 14's llvm-dis writes i8*, newer ones ptr
    text = re.sub(r"^target (datalayout|triple) = .*$", "", text, flags=re.M)
    text = re.sub(r" addrspace\(\d+\)", "", text).replace("addrspacecast", "bitcast")
    strings = dict(re.findall(r'^(@[\w.]+) = private unnamed_addr constant \[\d+ x i8\] c"(\w+)\\00"', text, re.M))
    def reflect(m):
        return "%s = add i32 0, %d" % (m.group(1), REFLECT.get(strings.get(m.group(2), ""), 0))
    text = re.sub(r"(%[\w.]+) = (?:tail )?call i32 @__nvvm_reflect\(.*?(@[\w.]+),.*$", reflect, text, flags=re.M)
    text = re.sub(r"^declare i32 @__nvvm_reflect.*$", "", text, flags=re.M)
    def lower_asm(m):
        known = ASM.get(m.group(1))
        return "@cudaemu.asm.%s" % known[0] if known else m.group(0)
    text = re.sub(r'asm (?:sideeffect )?("[^"]*", "[^"]*")', lower_asm, text)
    definitions, lowered = [approx.typed(approx.GLOBALS, typed_pointers)], set()
    for _, signature, body, ret in ASM.values():
        if body == "approx":
            body = approx.rcp_asm_body(typed_pointers)
        if signature:
            definitions.append("define internal %s alwaysinline {\n  %s\n  ret %s %%r\n}\n"
                               % (signature, "\n  ".join(body), ret))
    for ret, name, params in DECLARE.findall(text):
        if name == "rcp.approx.ftz.d":
            definitions.append(rcp_approx(typed_pointers))
            lowered.add(name)
            continue
        if name in approx.INTRINSICS:
            lowered.add(name)
            continue
        d = _definition(name, ret, params)
        if d:
            definitions.append(d)
            lowered.add(name)
    definitions.append(approx.definitions(lowered, typed_pointers))
    text = re.sub(r"^declare \S+ @llvm\.nvvm\.([\w.]+)\(.*$", lambda m: "" if m.group(1) in lowered else m.group(0),
                  text, flags=re.M)
    text = text.replace("@llvm.nvvm.", "@cudaemu.nvvm.")
    # nvcc fuses libdevice's plain multiplies and adds as it fuses the code they are inlined into (its explicit
    # fma.rn, mul.rn and add.rn are the operations it must not fuse)
    used_fma = set()
    text = re.sub(r"^(define [^\n]*\{\n)(.*?)(^\}\n)",
                  lambda m: m.group(1) + "".join(fuse_in_function(m.group(2).splitlines(keepends=True), used_fma)) +
                  m.group(3), text, flags=re.S | re.M)
    text = re.sub(r"^define (internal )?", lambda m: "define " + (m.group(1) or "linkonce_odr hidden "), text,
                  flags=re.M)
    used = set(re.findall(r"@(llvm\.(?:fma|sqrt|fabs|minnum|maxnum|floor|ceil|trunc|rint)\.f(?:32|64))\(",
                          "".join(definitions)))
    used |= {"llvm.fma." + SUFFIX[kind] for kind in used_fma}
    declared = set(re.findall(r"^declare [^@]*@(llvm\.[\w.]+)\(", text, re.M))
    for intrinsic, declaration in approx.DECLARATIONS.items():
        if intrinsic not in declared and "@%s(" % intrinsic in "".join(definitions):
            definitions.append(declaration)
    for intrinsic in sorted(used - declared):
        t = "float" if intrinsic.endswith("32") else "double"
        arity = 3 if ".fma." in intrinsic else 2 if ("minnum" in intrinsic or "maxnum" in intrinsic) else 1
        definitions.append("declare %s @%s(%s)\n" % (t, intrinsic, ", ".join([t] * arity)))
    return text + "\n" + "\n".join(definitions), exact_functions(text, lowered)


def exact_functions(text, lowered):
    """The defined functions of text whose callees, transitively, are all defined, exact intrinsics or LLVM's."""
    bodies = {}
    for m in re.finditer(r"^define [^@]*@([\w.$]+)\(.*?^}", text, re.S | re.M):
        body = m.group(0)[m.group(0).index("{"):]
        bodies[m.group(1)] = set(CALLEE.findall(body)) | ({"asm"} if re.search(r"\bcall [^@]*\basm\b", body) else set())
    verdict = {}
    def exact(name, path=()):
        if name in verdict:
            return verdict[name]
        if name.startswith("cudaemu.nvvm."):
            return name[len("cudaemu.nvvm."):] in lowered
        if name.startswith("llvm.") or name.startswith("cudaemu.asm."):
            return True
        if name not in bodies or name in path:
            return name in path
        verdict[name] = all(exact(c, path + (name,)) for c in bodies[name])
        return verdict[name]
    return {n for n in bodies if n.startswith("__nv_") and exact(n)}


def store(base, ir, exact):
    """Writes base.ll and base.exact, each whole or not at all (processes beside this one may read them)."""
    os.makedirs(os.path.dirname(base), exist_ok=True)
    partial = "%s.%d.tmp" % (base, os.getpid())
    with open(partial + ".ll", "w") as f:
        f.write(ir)
    with open(partial + ".exact", "w") as f:
        f.write("\n".join(sorted(exact)) + "\n")
    os.replace(partial + ".ll", base + ".ll")
    os.replace(partial + ".exact", base + ".exact")


class Libdevice:
    """libdevice, prepared for this toolchain (cached), and the link of the functions a module uses."""

    def __init__(self, clang, major, cache, find_tool):
        self.path = find_libdevice()
        self.dis = find_tool(clang, major, "llvm-dis")
        self.link_tool = find_tool(clang, major, "llvm-link")
        self.clang, self.cache = clang, cache
        self._prepared = None

    def available(self):
        return bool(self.path and self.dis and self.link_tool)

    def prepared(self):
        """(path of the prepared IR, its exact functions), made once into the cache."""
        if self._prepared:
            return self._prepared
        h = hashlib.sha1(compiler_identity(self.clang).encode())
        for p in (self.path, os.path.abspath(__file__), ROUNDS_UP, ARITHMETIC, os.path.abspath(approx.__file__)):
            with open(p, "rb") as f:
                h.update(f.read())
        name = "libdevice-%s" % h.hexdigest()[:16]
        base = os.path.join(self.cache, name)
        if not os.path.exists(base + ".exact"):
            dis = subprocess.run([self.dis, self.path, "-o", "-"], capture_output=True, text=True)
            if dis.returncode != 0:
                raise Error("%s cannot read %s (%s); CUDAEMU_LIBDEVICE=none gives device code the host's libm"
                            % (os.path.basename(self.dis), self.path, (dis.stderr.strip().splitlines() or ["?"])[-1]))
            ir, exact = prepare(dis.stdout)
            host = subprocess.run([self.clang, "-x", "c", "-S", "-emit-llvm", "-o", "-", os.devnull],
                                  capture_output=True, text=True, check=True).stdout
            ir = "".join(re.findall(r"^target (?:datalayout|triple) = .*\n", host, re.M)) + ir
            try:
                store(base, ir, exact)
            except OSError:  # a cache this process may not write (a sandbox): a private copy, for this run only
                private = tempfile.mkdtemp(prefix="emucc-libdevice-")
                atexit.register(shutil.rmtree, private, True)
                base = os.path.join(private, name)
                store(base, ir, exact)
        with open(base + ".exact") as f:
            self._prepared = (base + ".ll", set(f.read().split()))
        return self._prepared

    def use(self, ir):
        """ir with device code's math calls redirected to libdevice (route); (ir, whether any was)."""
        if not self.available() or not device_functions(ir):
            return ir, False
        return route(ir, self.prepared()[1])

    def link(self, ll, unrouted):
        """Links the libdevice functions ll calls into it (llvm-link --only-needed), in place. Should that fail, ll
        becomes `unrouted` (the IR before use()) and one warning says that device math is the host's libm."""
        linked = subprocess.run([self.link_tool, "--only-needed", "-S", ll, self.prepared()[0], "-o", ll],
                                capture_output=True, text=True)
        if linked.returncode != 0:
            with open(ll, "w") as f:
                f.write(unrouted)
            why = (linked.stderr.strip().splitlines() or ["?"])[0]
            print("emucc: warning: CUDA's libdevice could not be linked (%s); device math uses the host's libm" % why,
                  file=sys.stderr)


# The C library's math functions (C99 <math.h>, with glibc's exp10 and sincos): only calls of these names are
# routed, never a program's own function that happens to share a libdevice name (popc, max, ...)
C_MATH = {f + suffix for suffix in ("", "f") for f in (
    "acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh erf erfc exp exp10 exp2 expm1 fabs fdim floor "
    "fma fmax fmin fmod frexp hypot ilogb ldexp lgamma llrint llround log log10 log1p log2 logb lrint lround modf "
    "nan nearbyint nextafter pow remainder remquo rint round scalbln scalbn sin sincos sinh sqrt tan tanh tgamma "
    "trunc").split()}


def route(ir, exact):
    """Calls of a C library function NAME with an exact __nv_NAME, in device functions and in device copies of the
    inline wrappers they call, become calls of __nv_NAME; (ir, whether any call was routed)."""
    math = {n[len("__nv_"):] for n in exact} & C_MATH
    declared = {m.group(1): m.group(0) for m in re.finditer(r"^declare [^@]*@([\w.$]+)\(.*$", ir, re.M)}
    targets = {n for n in math if n in declared}
    if not targets:
        return ir, False
    blocks = {}
    for m in re.finditer(r"^define [^@]*@([\w.$]+)\(.*?^}\n", ir, re.S | re.M):
        blocks[m.group(1)] = m
    device = {n.lstrip("@").strip('"') for n in device_functions(ir)}
    calls = {n: set(CALLEE.findall(m.group(0)[m.group(0).index("{"):])) for n, m in blocks.items()}
    # inline wrappers (linkonce_odr, not device code) that device code reaches and that lead to a math call
    reaches = {}
    def leads(name, path=()):
        if name in reaches:
            return reaches[name]
        if name in path or name not in calls:
            return False
        reaches[name] = bool(calls[name] & targets) or any(leads(c, path + (name,)) for c in calls[name]
                                                           if c in wrappers)
        return reaches[name]
    # (not CUDA's fast intrinsics, __logf and the like: a GPU computes those with hardware approximations, never with
    # libdevice's accurate functions, so they stay the host's)
    wrappers = {n for n, m in blocks.items() if n not in device and "linkonce_odr" in m.group(0).split("(", 1)[0]
                and not re.match(r"(_Z\d+)?__", n)}
    copies = {n for n in wrappers if leads(n)}
    if not any(calls[d] & (targets | copies) for d in device if d in calls):
        return ir, False

    def rewrite(body):
        body = re.sub(r"@([\w.$]+)\(", lambda m: "@__nv_%s(" % m.group(1) if m.group(1) in targets else
                      "@%s.cudaemu.device(" % m.group(1) if m.group(1) in copies else m.group(0), body)
        return body

    pieces, last = [], 0
    for name, m in sorted(blocks.items(), key=lambda kv: kv[1].start()):
        if name in device:
            head, rest = m.group(0).split("{", 1)
            pieces += [ir[last:m.start()], head, "{", rewrite(rest)]
            last = m.end()
    pieces.append(ir[last:])
    out = "".join(pieces)
    extra = []
    for name in sorted(copies):
        text = blocks[name].group(0)
        head, rest = text.split("{", 1)
        head = head.replace(" linkonce_odr ", " internal ", 1).replace(" hidden ", " ", 1)
        head = head.replace("@%s(" % name, "@%s.cudaemu.device(" % name, 1)
        head = re.sub(r" comdat(\(\$[\w.$]+\))?", "", head)
        # without debug information: a copy may not share its original's subprogram
        head = re.sub(r" !dbg ![0-9]+", "", head)
        rest = re.sub(r"^\s*call void @llvm\.dbg\..*\n", "", rest, flags=re.M)
        rest = re.sub(r", !dbg ![0-9]+", "", rest)
        extra.append(head + "{" + rewrite(rest))
    for name in sorted(targets):
        extra.append(re.sub(r"@%s\(" % re.escape(name), "@__nv_%s(" % name, declared[name], count=1) + "\n")
    return out + "\n" + "".join(extra), True
