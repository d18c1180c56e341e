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
