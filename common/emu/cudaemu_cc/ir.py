"""The LLVM IR passes: text rewrites of the IR clang and opt produce for a .cu file, between instrumenting and
optimising it. Each takes the IR's text and returns the new text; build.Build.compile_cu runs them in order.

They read the forms LLVM 14 prints (typed pointers: `i8*`, `float*`) and those of LLVM 15 and newer (opaque
pointers: `ptr`); tests/emucc/test_ir.py holds both.
"""
import re


# LLVM memory intrinsics in instrumented code (struct copies, zeroing) become calls that count their bytes.
MEM_INTRINSIC = re.compile(r"@llvm\.(memcpy|memmove)\.p0(?:i8)?\.p0(?:i8)?\.i64\b|@llvm\.memset\.p0(?:i8)?\.i64\b")


def rewrite_ir(ir):
    """llvm.memcpy/memmove/memset -> __cudaemu_*(..., i64 align): counted, and checked against the alignment the
    compiler gave the pointers (a float4 copy is align 16, as its 16-byte load is on a GPU)."""
    def repl(m):
        return "@__cudaemu_" + (m.group(1) or "memset")
    out = []
    for line in ir.splitlines(keepends=True):
        if "@llvm.mem" in line and MEM_INTRINSIC.search(line):
            line = MEM_INTRINSIC.sub(repl, line)
            open_at = line.index("(", line.index("@__cudaemu_"))
            close_at = matching_paren(line, open_at)
            if line.startswith("declare"):
                line = line[:close_at].replace(" immarg", "") + ", i64" + line[close_at:]
            else:
                aligns = [int(a) for a in re.findall(r"\balign (\d+)", line[open_at:close_at])]
                pointers = 1 if "@__cudaemu_memset" in line else 2
                align = min(aligns) if len(aligns) == pointers else 1  # an argument without `align` is 1-aligned
                line = line[:close_at] + ", i64 %d" % min(align, 16) + line[close_at:]
        out.append(line)
    return "".join(out)


# SanitizerCoverage gives each function's coverage flags (which the emulator does not use) the function's comdat.
# When an inline function shared by two files (the launch wrapper, dim3's constructor) is inlined into a function
# of one file, that function keeps a reference to the flags; if the linker then keeps the other file's copy of the
# inline function, the reference points into a discarded section and the link fails. Flags outside any comdat are
# never discarded: each object keeps its own few bytes.
SANCOV_FLAGS = re.compile(r"^(@__sancov_gen_[\w.]* = .*?)(?:, comdat(?:\(\$[^)]*\))?)(.*?)(?:, !associated ![0-9]+)?$",
                          re.M)


def detach_coverage_flags(ir):
    """Each SanitizerCoverage flags array (@__sancov_gen_*) without its comdat and its !associated."""
    return SANCOV_FLAGS.sub(r"\1\2", ir)


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
ANNOTATION = re.compile(r'\{\s*(?:i8\*\s+bitcast\s+\([^@]*|ptr\s+)(@"?[-\w.$]+"?)(?:\s+to\s+i8\*\))?,\s*'
                        r'(?:i8\*\s+getelementptr\s+inbounds\s+\([^@]*|ptr\s+)(@[-\w.$]+)')
DEFINED_NAME = re.compile(r'^define [^@]*(@"?[-\w.$]+"?)\(')


def fuse_device_multiply_adds(ir, host_fma=HOST_HAS_FMA):
    """llvm.fmuladd -> llvm.fma in the functions annotated as device code; with host_fma, those functions (and no
    others) also get the FMA instruction's target feature, in attribute groups of their own."""
    device = device_functions(ir)
    if not device:
        return ir
    out, inside, fused, groups = [], False, set(), {}
    for line in ir.splitlines(keepends=True):
        if line.startswith("define "):
            m = DEFINED_NAME.match(line)
            inside = bool(m) and m.group(1) in device
            group = re.search(r"\) (?:[^{]*? )?#(\d+) ", line)
            if inside and host_fma and group:  # the FMA instruction, for device functions only
                new = groups.setdefault(group.group(1), "%d" % (1000000 + len(groups)))
                line = line[:group.start(1)] + new + line[group.end(1):]
        elif line.startswith("}"):
            inside = False
        elif inside and "@llvm.fmuladd." in line:
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


# Floating-point arithmetic in device code is counted as it runs: each basic block of a device function that holds
# any starts with one call that adds its operations, by kind (FP32 and FP64: fused multiply-adds, multiplies, adds
# and subtracts, each lane of a vector apart), as Nsight Compute's sm__sass_thread_inst_executed_op_{ffma,fmul,fadd,
# dfma,dmul,dadd} count them on a GPU. It runs before optimisation, so each counts as the source wrote it.
FP_OP = re.compile(r"=\s+(fadd|fsub|fmul)\b[^<%]*?(<(\d+) x )?(float|double)\b|"
                   r"call\b.*?@llvm\.(?:fma|fmuladd)\.(?:v(\d+))?(f32|f64)\(")
LABEL = re.compile(r'^(?:[-\w.$]+|"[^"]*"):(?:\s|$)')
FLOPS_CALL = "call void @__cudaemu_flops(i32 %d, i32 %d, i32 %d, i32 %d, i32 %d, i32 %d)"


def device_functions(ir):
    """The names (as the IR writes them, with their @) of the functions annotated as device code."""
    marks = set(DEVICE_MARK.findall(ir))
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
    out, block, inside, used = [], [], False, False

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

    for line in ir.splitlines(keepends=True):
        if line.startswith("define "):
            m = DEFINED_NAME.match(line)
            inside = bool(m) and m.group(1) in device
            if inside:
                block.append(line)
                continue
        elif inside and line.startswith("}"):
            flush()
            inside = False
        elif inside and LABEL.match(line):
            flush()
        if inside:
            block.append(line)
        else:
            out.append(line)
    if used and not re.search(r"^declare .*@__cudaemu_flops\(", ir, re.M):  # (the source may declare it too)
        out.append("\ndeclare void @__cudaemu_flops(i32, i32, i32, i32, i32, i32)\n")
    return "".join(out)


def matching_paren(text, open_at):
    """Index of the `)` that closes the `(` at open_at."""
    depth = 0
    for i in range(open_at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    raise ValueError("unbalanced parentheses in: " + text)


# Without `opt`, clang instruments its unoptimised (-O0) IR, where every local variable still lives in a stack slot
# (an alloca). Callbacks on those slots are removed here, as `sroa` would have made them registers; callbacks on
# memory reached through pointers stay. -O0 also marks every function noinline; that mark goes too.
ALLOCA = re.compile(r"^\s*(%[-\w.$]+) = alloca\b")
DERIVED = re.compile(r"^\s*(%[-\w.$]+) = (getelementptr|bitcast|addrspacecast)\b(.*)$")
SANCOV_CALL = re.compile(r"^\s*call void @__sanitizer_cov_(?:load|store)\d+\([^%)]*(%[-\w.$]+)\)")
OPERAND = re.compile(r"%[-\w.$]+")


def pointer_operand(instruction, operands):
    """The pointer that a getelementptr, bitcast or addrspacecast derives its result from (operands: the text after
    the instruction's name), or None. A named type is no value: `%struct.S` before a getelementptr's first comma is
    its element type, `%struct.S*` a pointer type."""
    if instruction == "getelementptr":
        depth = 0
        for i, c in enumerate(operands):  # the element type ends at the first comma outside its brackets
            depth += 1 if c in "{[(<" else -1 if c in "}])>" else 0
            if c == "," and depth == 0:
                operands = operands[i + 1:]
                break
    for m in OPERAND.finditer(operands):
        if not operands[m.end():].lstrip(" ").startswith("*"):
            return m.group(0)
    return None


def strip_stack_slot_callbacks(ir):
    """The load and store callbacks on allocas (and on pointers derived from them) removed, and -O0's noinline."""
    out, slots = [], set()
    for line in ir.splitlines(keepends=True):
        if line.startswith("define "):
            slots = set()
        elif line.startswith("attributes #") and "noinline" in line and "optnone" not in line:
            line = line.replace(" noinline", "")
        m = ALLOCA.match(line)
        if m:
            slots.add(m.group(1))
        else:
            m = DERIVED.match(line)
            if m:
                if pointer_operand(m.group(2), m.group(3)) in slots:
                    slots.add(m.group(1))
            else:
                m = SANCOV_CALL.match(line)
                if m and m.group(1) in slots:
                    continue
        out.append(line)
    return "".join(out)


# The runtime's callback for an N-byte access checks N-byte alignment, as a GPU faults on a misaligned access.
# Where the compiler's alignment for the access is different (more for a piece of a vector: the first float of a
# float4 copy is `align 16`; less for a packed structure), the call goes to a callback that checks that alignment.
SANCOV_ACCESS = re.compile(r"@__sanitizer_cov_(load|store)(\d+)\((.*?)(%[-\w.$]+)\)")


def route_by_alignment(ir):
    """Each load or store callback whose access has an alignment other than its size calls
    __cudaemu_<load|store><size>_align<alignment> instead (declared at the end)."""
    lines = ir.splitlines(keepends=True)
    declared = {}
    for i in range(len(lines) - 1):
        if "@__sanitizer_cov_" not in lines[i] or not lines[i].lstrip().startswith("call "):
            continue
        m = SANCOV_ACCESS.search(lines[i])
        if not m:
            continue
        kind, size, arg_type, ptr = m.group(1), int(m.group(2)), m.group(3).strip(), m.group(4)
        access = lines[i + 1]  # SanitizerCoverage puts the callback right before the access it reports
        a = re.search(r", align (\d+)", access)
        if not a or not re.match(r"\s*(%[-\w.$]+ = )?" + kind + r"\b", access):
            continue
        align = min(int(a.group(1)), 16)
        if align == size:
            continue
        name = "__cudaemu_%s%d_align%d" % (kind, size, align)
        lines[i] = lines[i][:m.start()] + "@%s(%s %s)" % (name, arg_type, ptr) + lines[i][m.end():]
        declared[name] = arg_type
    return "".join(lines) + "".join("declare void @%s(%s)\n" % (n, t) for n, t in sorted(declared.items()))
