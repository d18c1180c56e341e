"""Device arithmetic in the LLVM IR: multiply-adds fused as nvcc fuses them, and floating-point operations counted as
they run. Text passes like ir.py's, run by build.Build.compile_cu (on LLVM 14's IR and newer).
"""
import re


# nvcc fuses a multiply and an add into one fused multiply-add (one rounding) in device code by default (-fmad=true);
# the host compiler does not on x86-64 (no FMA in the baseline instruction set). clang marks each `a * b + c` of a
# statement as llvm.fmuladd ("fuse if fast"); in functions marked __device__ or __global__ (cuda_runtime.h marks
# them with an annotation) these become llvm.fma, always fused, on every host: the FMA instruction where the CPU has
# one (those functions alone get the target feature), a call to fmaf elsewhere. Other functions stay unfused, as
# no -mfma is given. See docs/emulator.md for what still differs.
def host_has_fma():
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " fma " in line + " " for line in f)
    except OSError:
        return False


HOST_HAS_FMA = host_has_fma()
DEVICE_MARK = re.compile(r'^(@[-\w.$]+) = .*c"cudaemu\.device\\00"', re.M)
KERNEL_MARK = re.compile(r'^(@[-\w.$]+) = .*c"cudaemu\.kernel\\00"', re.M)  # __global__ functions also have this
ANNOTATION = re.compile(r'\{\s*(?:i8\*\s+bitcast\s+\([^@]*|ptr\s+)(@"?[-\w.$]+"?)(?:\s+to\s+i8\*\))?,\s*'
                        r'(?:i8\*\s+getelementptr\s+inbounds\s+\([^@]*|ptr\s+)(@[-\w.$]+)')
DEFINED_NAME = re.compile(r'^define [^@]*(@"?[-\w.$]+"?)\(')


def pieces(ir, device):
    """The IR's lines in order, in pieces: (True, lines) for each definition of a function in `device` (its define
    line to its closing brace), (False, lines) for everything else. Joined, the pieces' lines are the IR."""
    out, lines, inside = [], [], False
    for line in ir.splitlines(keepends=True):
        if not inside and line.startswith("define "):
            m = DEFINED_NAME.match(line)
            if m and m.group(1) in device:
                if lines:
                    out.append((False, lines))
                lines, inside = [], True
        lines.append(line)
        if inside and line.startswith("}"):
            out.append((True, lines))
            lines, inside = [], False
    if lines:
        out.append((inside, lines))
    return out


# A __host__ __device__ function is two functions under nvcc: the device copy, with fused multiply-adds and CUDA's
# math library, and the host compiler's copy, with neither. Here it is one definition, annotated as device code, so
# a call from host code would compute as the device does (Rodinia's cfd fills its far-field constants on the host
# with one). host_copies gives each device function that host code calls (and what those call in turn) a copy for
# the host, which the device passes leave alone. The copy is internal and carries no debug information: a
# subprogram belongs to one function.
CALLED = re.compile(r'(@"[^"]*"|@[-\w.$]+)\(')
CALL_LINE = re.compile(r"^\s+(?:%[-\w.$\"]+ = )?(?:tail |musttail |notail )?(?:call|invoke) ")
LINKAGE = re.compile(r"\b(?:private|internal|available_externally|linkonce_odr|linkonce|weak_odr|weak|common|"
                     r"appending|extern_weak|external|dso_local|dso_preemptable|hidden|protected|default) ")
DEBUG_ONLY = re.compile(r"^\s+(?:call void @llvm\.dbg\.\w+\(|#dbg_)")
DEBUG_REFERENCE = re.compile(r",? !(?:dbg|llvm\.loop) ![0-9]+")


def host_name(name):
    return name[:-1] + '.cudaemu.host"' if name.endswith('"') else name + ".cudaemu.host"


def host_copies(ir):
    """Calls from host code to device functions -> calls to host copies of them, unfused (see above)."""
    device = device_functions(ir)
    if not device:
        return ir
    parts = pieces(ir, device)
    kernels = device_functions(ir, KERNEL_MARK)  # host code calls a kernel only to run it (a launch's wrapper)
    bodies = {DEFINED_NAME.match(lines[0]).group(1): lines for is_device, lines in parts
              if is_device and DEFINED_NAME.match(lines[0]).group(1) not in kernels}

    def callees(lines):
        return {name for line in lines if CALL_LINE.match(line) for name in CALLED.findall(line)
                if name in bodies}

    wanted, todo = set(), set().union(*(callees(lines) for is_device, lines in parts if not is_device))
    while todo:
        name = todo.pop()
        wanted.add(name)
        todo |= callees(bodies[name]) - wanted
    if not wanted:
        return ir
    call = re.compile("(%s)\\(" % "|".join(re.escape(name) for name in sorted(wanted, key=len, reverse=True)))

    def redirect(line):
        return call.sub(lambda m: host_name(m.group(1)) + "(", line) if CALL_LINE.match(line) else line

    out = [line for is_device, lines in parts for line in (lines if is_device else map(redirect, lines))]
    for name in sorted(wanted):
        head, rest = bodies[name][0].split(name + "(", 1)
        head = "define internal " + LINKAGE.sub("", head[len("define "):])
        rest = re.sub(r" comdat(?:\(\$[^)]*\))?", "", DEBUG_REFERENCE.sub("", rest))
        out.append("\n" + head + host_name(name) + "(" + rest)
        out += [DEBUG_REFERENCE.sub("", redirect(line)) for line in bodies[name][1:] if not DEBUG_ONLY.match(line)]
    return "".join(out)


# nvcc fuses after inlining: a product returned by a device function, or stored through a reference that the
# caller then adds, is fused into the caller's add. build.py inlines the device functions first (LLVM's
# always-inline, with the attribute this pass adds; not __noinline__ functions, not kernels), then fuses. (Equal
# products that nvcc then merges into one value stay apart here; docs/emulator.md says where that differs.)
def inline_device_functions(ir):
    """Each device function not marked noinline, marked alwaysinline (in its define line)."""
    device = device_functions(ir)
    if not device:
        return ir
    noinline = set(re.findall(r"^attributes #(\d+) = \{[^}]*\bnoinline\b", ir, re.M))
    kernels = device_functions(ir, KERNEL_MARK)  # a kernel is launched, never inlined (a launch's wrapper calls it)
    out = []
    for is_device, lines in pieces(ir, device):
        if is_device and DEFINED_NAME.match(lines[0]).group(1) not in kernels:
            line = lines[0]
            group = re.search(r"\) (?:[^{]*? )?#(\d+) ", line)
            if not (group and group.group(1) in noinline) and " noinline " not in line:
                close = matching_paren(line, DEFINED_NAME.match(line).end() - 1)
                line = line[:close + 1] + " alwaysinline" + line[close + 1:]
            lines = [line] + lines[1:]
        out.extend(lines)
    return "".join(out)


def matching_paren(text, open_at):
    """Index of the `)` that closes the `(` at open_at."""
    depth = 0
    for i in range(open_at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    raise ValueError("unbalanced parentheses in: " + text)


def fuse_device_multiply_adds(ir, host_fma=HOST_HAS_FMA):
    """llvm.fmuladd -> llvm.fma in the functions annotated as device code (clang makes them only where the source
    asks for contraction itself, `#pragma STDC FP_CONTRACT ON`: emucc compiles with -ffp-contract=off and fuses with
    fuse_across_statements); with host_fma, those functions (and no others) get the FMA instruction's target
    feature, in attribute groups of their own."""
    device = device_functions(ir)
    if not device:
        return ir
    out, fused, groups = [], set(), {}
    for is_device, lines in pieces(ir, device):
        if not is_device:
            out.extend(lines)
            continue
        line = lines[0]
        group = re.search(r"\) (?:[^{]*? )?#(\d+) ", line)
        if host_fma and group:  # the FMA instruction, for device functions only
            new = groups.setdefault(group.group(1), "%d" % (1000000 + len(groups)))
            line = line[:group.start(1)] + new + line[group.end(1):]
        out.append(line)
        for line in lines[1:]:
            if "@llvm.fmuladd." in line:
                fused.update(re.findall(r"@llvm\.fmuladd\.([\w.]+)\(", line))
                line = line.replace("@llvm.fmuladd.", "@llvm.fma.")
            out.append(line)
    for old_group, new_group in groups.items():
        attributes = re.search(r"^attributes #%s = \{(.*)\}$" % old_group, ir, re.M)
        if attributes:
            body = attributes.group(1)
            if '"target-features"="' in body:
                body = body.replace('"target-features"="', '"target-features"="+fma,', 1)
            else:
                body += ' "target-features"="+fma"'
            out.append("\nattributes #%s = {%s}\n" % (new_group, body))
    for suffix in sorted(fused):  # declare the llvm.fma variants now used, like their llvm.fmuladd twins
        if "declare" not in ir or re.search(r"^declare .*@llvm\.fma\.%s\(" % re.escape(suffix), ir, re.M):
            continue
        twin = re.search(r"^declare .*@llvm\.fmuladd\.%s\(.*$" % re.escape(suffix), ir, re.M)
        if twin:
            out.append("\n" + twin.group(0).replace("@llvm.fmuladd.", "@llvm.fma.") + "\n")
    return "".join(out)



# nvcc fuses beyond one expression as well, and clang's llvm.fmuladd (one expression) cannot say which multiply it
# fuses: tests/emu/programs/fma_contraction.cu on an H100 shows the rule this pass applies. emucc compiles with
# -ffp-contract=off, and in device functions (after device functions are inlined and sroa has made locals registers,
# before any other optimisation):
# - a multiply whose every use is an operand of an add or subtract is fused into each of them, across statements
#   and basic blocks (`float t = a * b; r = t + c;`, a product added and subtracted, a loop-invariant product added
#   inside the loop); a multiply with any other use (stored, passed, compared) is fused into none;
# - of an add of two such multiplies, the left one is fused and the right one is then the addend, which it needs;
#   the shapes are LLVM's DAG combiner's:
#   fadd(x*y, z), fadd(z, x*y) -> fma(x, y, z);  fsub(x*y, z) -> fma(x, y, -z);  fsub(z, x*y) -> fma(-x, y, z)
# A multiply left without uses is replaced by a value that costs nothing (FLOPs are counted after this pass, as
# Nsight Compute counts the FFMAs a GPU runs). Where sroa cannot run (no `opt`), locals stay in memory: a multiply
# stored to a local has a use that is no add, so fusion stays inside each expression.
VALUE = r'(?:%[-\w.$]+|%"[^"]*"|[-+]?(?:0x[0-9A-Fa-f]+|[0-9][\w.+-]*)|undef|poison)'
FP_FLAGS = r"(?:(?:nnan|ninf|nsz|arcp|contract|afn|reassoc|fast) )*"
SCALAR_FMUL = re.compile(r"^\s*(%[-\w.$]+) = fmul " + FP_FLAGS + r"(float|double) (" + VALUE + "), (" + VALUE +
                         r")(?:,|$)")
SCALAR_FADD = re.compile(r"^(\s*)(%[-\w.$]+) = (fadd|fsub) " + FP_FLAGS + r"(float|double) (" + VALUE + "), (" +
                         VALUE + r")(.*)$")
DEBUG_VALUE = re.compile(r"^\s*call void @llvm\.dbg\.")
NAMED_VALUE = r"(%[-\w.$]+)(?![-\w.$])"


def fuse_across_statements(ir):
    """fadd/fsub of an fmul -> llvm.fma in device functions, as nvcc fuses them (see above)."""
    device = device_functions(ir)
    if not device:
        return ir
    out, used_fma = [], set()
    for is_device, lines in pieces(ir, device):
        out.extend([lines[0]] + fuse_in_function(lines[1:-1], used_fma) + [lines[-1]] if is_device else lines)
    for kind in sorted(used_fma):
        suffix = "f32" if kind == "float" else "f64"
        if not re.search(r"^declare .*@llvm\.fma\.%s\(" % suffix, ir, re.M):
            out.append("\ndeclare %s @llvm.fma.%s(%s, %s, %s)\n" % ((kind, suffix) + (kind,) * 3))
    return "".join(out)


def fuse_in_function(body, used_fma):
    """A device function's body lines with its adds and subtracts of multiplies fused (fuse_across_statements)."""
    products, uses, adds = {}, {}, {}  # fmul -> (type, x, y); value -> its uses' roles; line -> its fadd's match
    for i, line in enumerate(body):
        m = SCALAR_FMUL.match(line)
        if m:
            products[m.group(1)] = (m.group(2), m.group(3), m.group(4))
        if DEBUG_VALUE.match(line):
            continue
        m = SCALAR_FADD.match(line)
        if m:
            adds[i] = m
            for v in (m.group(5), m.group(6)):
                uses.setdefault(v, []).append(m.group(4))  # an operand of an add of this type
            continue
        for name in re.findall(NAMED_VALUE, line.split(" = ", 1)[1] if re.match(r"\s*%\S+ = ", line) else line):
            uses.setdefault(name, []).append(None)  # any other use
    fusible = {p for p, (kind, _, _) in products.items() if uses.get(p) and all(k == kind for k in uses[p])}
    if not fusible:
        return body
    out, left_over = [], {p: len(uses[p]) for p in fusible}
    for i, line in enumerate(body):
        m = adds.get(i)
        product = m and next((v for v in (m.group(5), m.group(6)) if v in fusible), None)
        if not product:
            out.append(line)
            continue
        indent, result, op, kind, left, right, rest = m.groups()
        other = right if product == left else left
        fusible.discard(other)  # the addend: needed as a value
        left_over[product] -= 1
        _, x, y = products[product]
        if op == "fsub":
            negated = "%%cudaemu.fneg.%s" % result[1:]
            if product == left:  # x*y - z = fma(x, y, -z)
                out.append("%s%s = fneg %s %s\n" % (indent, negated, kind, other))
                other = negated
            else:  # z - x*y = fma(-x, y, z)
                out.append("%s%s = fneg %s %s\n" % (indent, negated, kind, x))
                x = negated
        suffix = "f32" if kind == "float" else "f64"
        out.append("%s%s = call %s @llvm.fma.%s(%s %s, %s %s, %s %s)%s\n" %
                   (indent, result, kind, suffix, kind, x, kind, y, kind, other, rest))
        used_fma.add(kind)
    gone = {p for p in fusible if left_over[p] == 0}
    kept = []
    for line in out:
        m = SCALAR_FMUL.match(line)
        if m and m.group(1) in gone:  # (a value of no cost keeps its number: numbered values must stay consecutive)
            line = "%s%s = freeze %s undef ; a product fused into each of its uses\n" % (
                line[:len(line) - len(line.lstrip())], m.group(1), m.group(2))
        elif DEBUG_VALUE.match(line):  # a debug location of a removed product says its value is gone
            line = re.sub(r"metadata (float|double) " + NAMED_VALUE,
                          lambda d: "metadata %s undef" % d.group(1) if d.group(2) in gone else d.group(0), line)
        kept.append(line)
    return kept

# Floating-point arithmetic in device code is counted as it runs: each basic block of a device function that holds
# any starts with one call that adds its operations, by kind (FP32 and FP64: fused multiply-adds, multiplies, adds
# and subtracts, each lane of a vector apart), as Nsight Compute's sm__sass_thread_inst_executed_op_{ffma,fmul,fadd,
# dfma,dmul,dadd} count them on a GPU. It runs before optimisation, so each counts as the source wrote it.
FP_OP = re.compile(r"=\s+(fadd|fsub|fmul)\b[^<%]*?(<(\d+) x )?(float|double)\b|"
                   r"call\b.*?@llvm\.(?:fma|fmuladd)\.(?:v(\d+))?(f32|f64)\(")
LABEL = re.compile(r'^(?:[-\w.$]+|"[^"]*"):(?:\s|$)')
FLOPS_CALL = "call void @__cudaemu_flops(i32 %d, i32 %d, i32 %d, i32 %d, i32 %d, i32 %d)"


def device_functions(ir, mark=DEVICE_MARK):
    """The names (as the IR writes them, with their @) of the functions annotated as device code (with
    mark=KERNEL_MARK: as kernels)."""
    marks = set(mark.findall(ir))
    table = re.search(r"^@llvm\.global\.annotations = .*$", ir, re.M)
    if not marks or not table:
        return set()
    return {function for function, mark in ANNOTATION.findall(table.group(0)) if mark in marks}


def block_flops(lines):
    """[fp32 fma, mul, add, fp64 fma, mul, add] of a basic block's instruction lines."""
    counts = [0] * 6
    for line in lines:
        m = FP_OP.search(line)
        if not m:
            continue
        if m.group(1):
            lanes, wide = int(m.group(3) or 1), m.group(4) == "double"
            kind = 1 if m.group(1) == "fmul" else 2
        else:
            lanes, wide, kind = int(m.group(5) or 1), m.group(6) == "f64", 0
        counts[kind + 3 * wide] += lanes
    return counts


def count_flops(ir):
    """Each basic block of a device function with floating-point arithmetic gets a call to __cudaemu_flops (after
    its phi nodes) adding what the block executes."""
    device = device_functions(ir)
    if not device:
        return ir
    out, block, used = [], [], False

    def flush():
        nonlocal used
        if not block:
            return
        counts = block_flops(block)
        at = 1 if LABEL.match(block[0]) or block[0].startswith("define ") else 0
        while at < len(block) and re.match(r"\s*(%[-\w.$]+ = )?(phi|landingpad)\b", block[at]):
            at += 1
        if any(counts):
            block.insert(at, "  " + FLOPS_CALL % tuple(counts) + "\n")
            used = True
        out.extend(block)
        block.clear()

    for is_device, lines in pieces(ir, device):
        if not is_device:
            out.extend(lines)
            continue
        for line in lines:
            if LABEL.match(line) or line.startswith("}"):
                flush()
            block.append(line)
        flush()
    if used and not re.search(r"^declare .*@__cudaemu_flops\(", ir, re.M):  # (the source may declare it too)
        out.append("\ndeclare void @__cudaemu_flops(i32, i32, i32, i32, i32, i32)\n")
    return "".join(out)
