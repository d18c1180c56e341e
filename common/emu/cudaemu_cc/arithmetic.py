"""Device arithmetic in the LLVM IR: multiply-adds fused as nvcc fuses them, NaNs as a GPU makes them, and
floating-point operations counted as they run. Text passes like ir.py's, run by build.Build.compile_cu (on LLVM 14's
IR and newer).
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
                # function attributes come after (local_)unnamed_addr and addrspace (a virtual function has one)
                at = close + 1 + re.match(r"(?: (?:local_)?unnamed_addr| addrspace\(\d+\))*", line[close + 1:]).end()
                line = line[:at] + " alwaysinline" + line[at:]
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
# fuses. nvcc fuses in two stages, and the PTX and SASS of tests/emu/programs/fma_contraction.cu's cases, built for
# an H100, show both rules (emucc compiles with -ffp-contract=off and applies them in device functions, after device
# functions are inlined and sroa has made locals registers, before any other optimisation):
# - NVVM, building each basic block's selection DAG, writes fma.rn (fixed) for an fadd of a multiply of the same
#   block whose uses, fewer than five, are all fadds of that block (an fsub, a store, a use in another block: none
#   fused); the left operand first, then the right; the block's fadds from last to first, so that a product which
#   an fadd fused before has an fma, not an add, as that use. Equal multiplies of a block are one DAG node.
# - ptxas then fuses the multiplies and adds left over, in program order: a multiply whose every use is an add or
#   subtract (in any block) is fused into each until it is the operand that an add keeps as a value; of an add of
#   two such multiplies, the one with fewer uses is fused (of as many, the left). A multiply with any other use
#   (stored, passed, compared, the addend of NVVM's fma) is fused into none. Nor is a multiply fused across an IEEE
#   division or square root (float or double) between it and the add, in the multiply's block or the add's: ptxas
#   expands those with a call to a slow path, and a multiply before one is not moved past it (Rodinia's myocyte,
#   `kbt*Pb - x/(y + z*Pt)`). (Where the division is in a branch between the two blocks, an H100 was seen to go
#   both ways; this rule fuses.) Arithmetic on constants alone is no multiply and no division: nvcc computes it
#   before it fuses (not a call: Rodinia's myocyte's pi * pow(r, 2) * l of constant locals is computed at run time).
# The shapes are fadd(x*y, z), fadd(z, x*y) -> fma(x, y, z); fsub(x*y, z) -> fma(x, y, -z); fsub(z, x*y) ->
# fma(-x, y, z). A multiply left without uses is replaced by a value that costs nothing (FLOPs are counted after
# this pass, as Nsight Compute counts the FFMAs a GPU runs). Where sroa cannot run (no `opt`), locals stay in memory:
# a multiply stored to a local has a use that is no add, so fusion stays inside each expression.
VALUE = r'(?:%[-\w.$]+|%"[^"]*"|[-+]?(?:0x[0-9A-Fa-f]+|[0-9][\w.+-]*)|undef|poison)'
FP_FLAGS = r"(?:(?:nnan|ninf|nsz|arcp|contract|afn|reassoc|fast) )*"
SCALAR_FMUL = re.compile(r"^\s*(%[-\w.$]+) = fmul " + FP_FLAGS + r"(float|double) (" + VALUE + "), (" + VALUE +
                         r")(?:,|$)")
SCALAR_FADD = re.compile(r"^(\s*)(%[-\w.$]+) = (fadd|fsub) " + FP_FLAGS + r"(float|double) (" + VALUE + "), (" +
                         VALUE + r")(.*)$")
DEBUG_VALUE = re.compile(r"^\s*call void @llvm\.dbg\.")
NAMED_VALUE = r"(%[-\w.$]+)(?![-\w.$])"
NVVM_MAX_USES = 4  # NVVM fuses a multiply of at most this many uses (an H100: 4 fused, 5 left to ptxas)
# what ptxas expands with a call to a slow path: IEEE division and square root
EXPANDED = re.compile(r"= fdiv (?:(?:nnan|ninf|nsz|contract|reassoc) )*(?:float|double) |"
                      r"call (?:\w+ )*(?:float|double) @(?:llvm\.sqrt\.f(?:32|64)|sqrtf?)\(")


def fuse_across_statements(ir):
    """fadd/fsub of an fmul -> llvm.fma in device functions, as nvcc fuses them (see above)."""
    device = device_functions(ir)
    if not device:
        return ir
    out, used_fma = [], set()
    for is_device, lines in pieces(ir, device):
        out.extend([lines[0]] + fuse_in_function(lines[1:-1], used_fma, lines[0]) + [lines[-1]] if is_device else lines)
    for kind in sorted(used_fma):
        suffix = "f32" if kind == "float" else "f64"
        if not re.search(r"^declare .*@llvm\.fma\.%s\(" % suffix, ir, re.M):
            out.append("\ndeclare %s @llvm.fma.%s(%s, %s, %s)\n" % ((kind, suffix) + (kind,) * 3))
    return "".join(out)


def fuse_in_function(body, used_fma, define=""):
    """A device function's body lines with its adds and subtracts of multiplies fused (fuse_across_statements);
    define is its define line."""
    block_of = dag_blocks(body)
    same = equal_values(body, block_of)  # a multiply -> the first equal one of its block
    rank = value_ranks(define, body, same, block_of)
    dead = dead_lines(body)
    products, adds, uses = {}, {}, {}  # fmul -> (type, x, y, line); line -> its fadd's match; value -> [[line, role]]
    expanded = []  # the lines of divisions and square roots
    constant = constant_values(body)  # nvcc folds them: no multiplies to fuse, no divisions at run time
    for i, line in enumerate(body):
        m = SCALAR_FMUL.match(line)
        if m and m.group(1) not in constant:
            products[m.group(1)] = (m.group(2), m.group(3), m.group(4), i)
        if EXPANDED.search(line) and line.split(" = ", 1)[0].strip() not in constant and i not in dead:
            expanded.append(i)
        if DEBUG_VALUE.match(line) or i in dead:
            continue
        m = SCALAR_FADD.match(line)
        if m:
            adds[i] = m
            for v in (m.group(5), m.group(6)):
                uses.setdefault(same.get(v, v), []).append([i, m.group(3)])  # an operand of this add or subtract
            continue
        for name in re.findall(NAMED_VALUE, line.split(" = ", 1)[1] if re.match(r"\s*%\S+ = ", line) else line):
            uses.setdefault(same.get(name, name), []).append([i, None])  # any other use

    nvvm_block = nvvm_blocks(body, block_of, dead)

    def product(v):  # the multiply an operand is, as one value with its equals
        return same.get(v, v) if v in products else None

    def sides_in_order(m):  # an add's operands as NVVM orders them (see value_ranks): (0, 1) or (1, 0)
        if m.group(3) == "fadd" and rank(m.group(6)) < rank(m.group(5)):
            return (1, 0)
        return (0, 1)

    fused = {}  # line -> its operand (0: left, 1: right) that is fused into it
    for i in sorted(adds, reverse=True):  # NVVM's stage
        m = adds[i]
        if m.group(3) != "fadd":
            continue
        for side in sides_in_order(m):
            p = product(m.group(5 + side))
            if p and nvvm_block[products[p][3]] == nvvm_block[i] and len(uses[p]) <= NVVM_MAX_USES and \
                    all(role == "fadd" and nvvm_block[at] == nvvm_block[i] for at, role in uses[p]):
                fused[i] = side
                uses[p].remove([i, "fadd"])
                other = uses[same.get(m.group(6 - side), m.group(6 - side))]
                other[other.index([i, "fadd"])] = [i, None]  # the addend of an fma now
                break
    kept = {p for p in products if any(role is None for _, role in uses.get(p, ()))}

    def expanded_between(p, i):  # a division or square root after p in its block, or before the add in the add's
        at = products[p][3]
        return any(at < k < i and block_of[k] in (block_of[at], block_of[i]) for k in expanded)

    for i in sorted(adds):  # ptxas's stage
        if i in fused:
            continue
        left, right = product(adds[i].group(5)), product(adds[i].group(6))
        for p in (left, right):
            if p and p not in kept and expanded_between(p, i):
                kept.add(p)  # its add takes it as a value
        sides = [side for side, p in ((0, left), (1, right)) if p and p not in kept]
        if not sides:
            continue
        if len(sides) == 2:
            first, second = sides_in_order(adds[i])
            side = second if len(uses[(left, right)[second]]) < len(uses[(left, right)[first]]) else first
        else:
            (side,) = sides
        fused[i] = side
        if (left, right)[1 - side]:
            kept.add((left, right)[1 - side])  # the addend, needed as a value
    return rewrite_fused(body, products, adds, fused, used_fma)


# NVVM's optimiser orders the two operands of an add (and of every commutative operation) by rank, as LLVM's
# reassociation pass ranks values, before its DAG fuses "the left": fadd(a*d, b*c) of loads a, b, c, d fuses b*c
# (a complex product's imaginary part), and so does fadd(b*c, a*d) (tests/emu/programs/fma_order.cu, on an H100). A
# function's arguments rank 3, 4, ... in order; each basic block (in order) starts at (the next number) << 16, and
# what cannot move freely (a load, a call, a phi, a division that may trap) takes the block's next rank; any other
# instruction ranks one above its highest operand (a negation as its operand), a constant 0. The operand of lower rank
# goes left; of equal ranks they stay as written. A struct copied whole (`float2 f = p[i]`) is one load there, so its
# fields rank alike: f.x*g.y + f.y*g.x fuses the left.
DEFINITION = re.compile(r"^\s*(%[-\w.$]+) = (?:(?:tail|musttail|notail) )?(\w+)(.*)$")
UNMOVABLE = {"load", "phi", "alloca", "call", "invoke", "atomicrmw", "cmpxchg", "landingpad", "va_arg"}
TRAPPING = {"udiv", "sdiv", "urem", "srem"}


def copied_whole(name, opcode, rest, defined):
    """For a load of one field of a struct copied whole (`float2 f = p[i]`: sroa's `.copyload` through an address of
    the struct's field), what it copies (the address less its last index); otherwise None."""
    if opcode != "load" or not name.endswith(".copyload"):
        return None
    pointer = re.findall(NAMED_VALUE, rest)
    address = defined.get(pointer[-1], "") if pointer else ""
    m = re.match(r"getelementptr\s+(?:inbounds )?(.*), (?:i32|i64) \d+$", address)
    return m.group(1) if m else None


def value_ranks(define, body, same, block_of):
    """rank(value) for body's values as LLVM's reassociation ranks them (see above), equal values (same) as one and
    the blocks of block_of (dag_blocks) as NVVM's; the checks' own instructions take no rank."""
    fixed, expression, counter, defined, copies = {}, {}, 2, {}, {}
    start = define.find("(", define.find("@"))
    args = re.sub(r"\([^()]*\)", "", define[start + 1:matching_paren(define, start)]) if start > 0 else ""
    for name in re.findall(r"(%[-\w.$]+)\s*(?:,|$)", args):
        counter += 1
        fixed[name] = counter
    block, next_rank = None, 0
    for i, line in enumerate(body):
        if block != block_of[i]:
            block, counter = block_of[i], counter + 1
            next_rank = counter << 16
        if LABEL.match(line) or not line.strip() or DEBUG_VALUE.match(line) or INSTRUMENTATION.search(line) or \
                "!nosanitize" in line:
            continue
        m = DEFINITION.match(METADATA.sub("", line).rstrip())
        if not m:
            if re.match(r"\s*(?:store|call|fence|atomicrmw|cmpxchg)\b", line):
                next_rank += 1  # no value, but a rank of the block's all the same
            continue
        name, opcode, rest = m.groups()
        defined[name] = opcode + " " + rest
        pure = PURE_CALL.match(line) or pure_wrapper(line) or MEMORY_SAFE_CALL.search(line)
        divisor = rest.rsplit(",", 1)[-1].strip()
        whole = copied_whole(name, opcode, rest, defined)
        if whole and (block, whole) in copies:
            fixed[name] = copies[(block, whole)]  # another field of the same copy
        elif whole:
            next_rank += 1
            fixed[name] = copies[(block, whole)] = next_rank
        elif (opcode in UNMOVABLE and not (opcode == "call" and pure)) or \
                (opcode in TRAPPING and (divisor.startswith("%") or divisor == "0")):
            next_rank += 1
            fixed[name] = next_rank
        else:
            negation = opcode == "fneg" or re.match(
                r"(?:xor \S+ \S+, -1$|sub (?:nsw |nuw )*\S+ 0,|fsub (?:\w+ )*(?:float|double) -0\.0+e\+00,)",
                opcode + rest)
            expression[name] = (re.findall(NAMED_VALUE, rest), not negation)

    memo = {}

    def rank(value):
        value = same.get(value, value)
        if value in fixed:
            return fixed[value]
        if value not in expression:
            return 0  # a constant or a global
        if value not in memo:
            memo[value] = 0  # (a cycle goes through a phi, which is fixed; this only guards the recursion)
            operands, counts = expression[value]
            memo[value] = max((rank(v) for v in operands), default=0) + counts
        return memo[value]

    return rank


def rewrite_fused(body, products, adds, fused, used_fma):
    """body with each add in `fused` (line -> the side of its fused multiply) an llvm.fma, and each multiply fused into
    all its uses a value of no cost."""
    out, left_over = [], {}
    for i, line in enumerate(body):
        if not DEBUG_VALUE.match(line):
            for name in re.findall(NAMED_VALUE, line.split(" = ", 1)[1] if re.match(r"\s*%\S+ = ", line) else line):
                if name in products:
                    left_over[name] = left_over.get(name, 0) + 1
    for i, line in enumerate(body):
        if i not in fused:
            out.append(line)
            continue
        indent, result, op, kind, left, right, rest = adds[i].groups()
        product, other = (left, right) if fused[i] == 0 else (right, left)
        left_over[product] -= 1
        _, x, y, _ = products[product]
        if op == "fsub":
            negated = "%%cudaemu.fneg.%s" % result[1:]
            if fused[i] == 0:  # x*y - z = fma(x, y, -z)
                out.append("%s%s = fneg %s %s\n" % (indent, negated, kind, other))
                other = negated
            else:  # z - x*y = fma(-x, y, z)
                out.append("%s%s = fneg %s %s\n" % (indent, negated, kind, x))
                x = negated
        suffix = "f32" if kind == "float" else "f64"
        out.append("%s%s = call %s @llvm.fma.%s(%s %s, %s %s, %s %s)%s\n" %
                   (indent, result, kind, suffix, kind, x, kind, y, kind, other, rest))
        used_fma.add(kind)
    fused_names = {adds[i].group(5 + side) for i, side in fused.items()}
    gone = {p for p, n in left_over.items() if n == 0 and p in fused_names}
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


# The basic blocks NVVM builds a DAG for are the source's. The checks split a block where nvcc's code has none: a
# bounds check branches to its handler and back (`!nosanitize`), a coverage flag is set in a block of its own. A
# block that such a split made continues the block before it.
BRANCH_TARGETS = re.compile(r"label (%[-\w.$]+)")
INSTRUMENTATION = re.compile(r"@__ubsan_handle_|@__cudaemu_index_out_of_bounds|@__sanitizer_cov|@__sancov_gen_")


def dag_blocks(body):
    """For each line of body, the number of its basic block, a block that instrumentation split counted as one."""
    starts = [0] + [i for i, line in enumerate(body) if LABEL.match(line)]
    names, preds, spans = [], {}, []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(body)
        name = "%" + body[start].split(":", 1)[0] if n else None
        names.append(name)
        spans.append((start, end))
        m = re.search(r"; preds = (.*)$", body[start]) if n else None
        preds[name] = [p.strip() for p in m.group(1).split(",")] if m else []
    known = set(names)

    def lines(n):
        start, end = spans[n]
        return [l for l in body[start + (1 if n else 0):end] if l.strip() and not DEBUG_VALUE.match(l)]

    def instrumentation(n):
        code = lines(n)
        return bool(code) and any(INSTRUMENTATION.search(l) for l in code) and all(
            "!nosanitize" in l or INSTRUMENTATION.search(l) or re.match(r"\s*br label ", l) for l in code)

    extra = {names[n] for n in range(len(names)) if n and instrumentation(n)}
    number = {}
    for n, name in enumerate(names):
        number[name] = n
        if not n or name in extra:
            continue
        real = set()
        for p in preds[name]:
            p = p if p in known else None  # the entry block has no label
            real |= {q if q in known else None for q in preds[p]} if p in extra else {p}
        if len(real) == 1:
            (before,) = real
            targets = set(BRANCH_TARGETS.findall(lines(names.index(before))[-1])) if lines(names.index(before)) else set()
            if targets and targets <= {name} | extra:
                number[name] = number[before]
    out = []
    for n, (start, end) in enumerate(spans):
        out += [number[names[n]]] * (end - start)
    return out


# NVVM's DAG block also ends at a call of a math function whose libdevice code keeps branches once inlined and
# optimised (powf, logf, sinf, exp, pow, ...; not expf, tanhf, sqrtf, fabsf, ...): the block after it is another.
# Measured on an H100 for each function of C's math library and CUDA's (tools/fma-blocks/probe.py): with a product
# added before such a call and after it, NVVM fused neither.
ENDS_DAG_BLOCK = set("""acos acoshf acosh asin asinhf asinh atanf atan atanhf atanh cbrt cosf cos cosh erff erfc erfcinvf
    erfcinv erfinvf erfinv exp exp10 exp2 expm1 lgammaf lgamma logf log log10f log10 log1pf log1p log2f log2 logbf logb
    sinf sin sinh tanf tan tanh tgammaf tgamma normcdff normcdf normcdfinvf normcdfinv j0f j0 j1f j1 y0f y0 y1f y1 cospif
    cospi sinpif sinpi atan2f atan2 fmodf fmod nextafterf nextafter powf pow remainderf remainder""".split())
CALLEE_NAME = re.compile(r"\bcall [^@]*@([-\w.$]+)\(")


def math_function(callee):
    """The C math function a call of callee reaches in nvcc's code: itself, libdevice's __nv_ twin, an LLVM intrinsic
    (llvm.pow.f32: powf), or a C++ overload such as std::pow(float, float) (_ZSt3powff: powf; a template, which
    promotes to double: pow)."""
    name = callee.replace(".cudaemu.device", "")
    if name.startswith("__nv_"):
        return name[len("__nv_"):]
    m = re.match(r"llvm\.(\w+)\.f(32|64)$", name)
    if m:
        return m.group(1) + ("f" if m.group(2) == "32" else "")
    m = re.match(r"_Z(?:St)?(\d+)(\w+)", name)
    if m:
        base, rest = m.group(2)[:int(m.group(1))], m.group(2)[int(m.group(1)):]
        return base + ("f" if rest.startswith("f") else "")
    return name


def nvvm_blocks(body, block_of, dead):
    """block_of, with a block also ended by each live call of a function of ENDS_DAG_BLOCK (see above)."""
    out, current = [], None
    for i, line in enumerate(body):
        if current is None or current[0] != block_of[i]:
            current = (block_of[i], 0)
        out.append(current)
        m = CALLEE_NAME.search(line)
        if m and i not in dead and math_function(m.group(1)) in ENDS_DAG_BLOCK:
            current = (block_of[i], i + 1)
    return out


# Dead code, as NVVM's optimiser removes it before its DAG counts a multiply's uses: a value computed and never used
# (Rodinia's cfd computes a speed of sound it never uses from a pressure it adds) is no use of its operands.
PURE_CALL = re.compile(r"^\s*%[-\w.$]+ = (?:tail )?call [^@]*@(?:llvm\.(?:sqrt|fabs|fma|fmuladd|minnum|maxnum|floor|ceil|"
                       r"trunc|rint|round|exp|exp2|log|log2|pow|sin|cos)\.|(?:sqrt|rsqrt|cbrt|exp|exp2|exp10|expm1|log|"
                       r"log2|log10|log1p|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|pow|hypot|fabs|fmin|fmax|"
                       r"floor|ceil|trunc|round|rint|fmod|erf|erfc)f?\()")


def pure_wrapper(line):
    """Whether line calls a C++ overload of a math function (std::pow(float, float): _ZSt3powff)."""
    m = CALLEE_NAME.search(line)
    return bool(m and m.group(1).startswith("_Z") and PURE_CALL.match(line.replace(m.group(1) + "(",
                                                                                   math_function(m.group(1)) + "(")))


def dead_lines(body):
    """The lines of body that compute a value nothing uses, through chains of such values (see above)."""
    defined, operands, count = {}, {}, {}
    for i, line in enumerate(body):
        if DEBUG_VALUE.match(line):
            continue
        m = re.match(r"\s*(%[-\w.$]+) = (.*)$", line)
        names = re.findall(NAMED_VALUE, m.group(2) if m else line)
        for name in names:
            count[name] = count.get(name, 0) + 1
        if m and ((PURE.match(line) and not re.search(r"\b(?:volatile|atomic)\b", line)) or PURE_CALL.match(line) or
                  pure_wrapper(line)):
            defined[m.group(1)], operands[i] = i, names
    dead, todo = set(), [name for name in defined if not count.get(name)]
    while todo:
        i = defined[todo.pop()]
        dead.add(i)
        for name in operands[i]:
            count[name] -= 1
            if count[name] == 0 and name in defined:
                todo.append(name)
    return dead


# Equal values, as NVVM's optimiser and its DAG merge them: a pure instruction (arithmetic, a conversion, an address)
# or a load (no store or call between) of the same operands in the same basic block is the same value. Only the
# choice of what to fuse asks: the instructions stay as they are.
PURE = re.compile(r"^\s*(%[-\w.$]+) = ((?:fmul|fadd|fsub|fdiv|fneg|add|sub|mul|shl|lshr|ashr|and|or|xor|icmp|fcmp|"
                  r"select|getelementptr|sext|zext|trunc|fpext|fptrunc|sitofp|uitofp|fptosi|fptoui|bitcast|"
                  r"ptrtoint|inttoptr|addrspacecast|extractelement|extractvalue|load)\b.*)$")
COMMUTATIVE = re.compile(r"^(fmul|fadd|add|mul|and|or|xor)((?: [a-z]+)* )(\S+) (%\S+|\S+), (%\S+|\S+)$")
METADATA = re.compile(r", !\w[\w.]* !\d+")
MEMORY_SAFE_CALL = re.compile(r"@(?:llvm\.(?:dbg|lifetime|fma|fmuladd|fabs|sqrt|minnum|maxnum)\.|"
                              r"__sanitizer_cov_load|__cudaemu_flops\()")


CONSTANT_ARITHMETIC = re.compile(
    r"^\s*(%[-\w.$]+) = (?:(?:fadd|fsub|fmul|fdiv|frem) " + FP_FLAGS + r"(?:float|double) (" + VALUE + "), (" + VALUE +
    r")|fneg " + FP_FLAGS + r"(?:float|double) (" + VALUE + r")|(?:sitofp|uitofp|fpext|fptrunc) \S+ (" + VALUE +
    r") to )")


def constant_values(body):
    """The values of body that arithmetic computes from constants alone (nvcc folds them before it fuses; not calls:
    Rodinia's myocyte's cell volume, pi * pow(r, 2) * l of constant locals, is computed at run time on the H100)."""
    constant = set()
    for line in body:
        m = CONSTANT_ARITHMETIC.match(line)
        if m and all(v is None or not v.startswith("%") or v in constant for v in m.groups()[1:]):
            constant.add(m.group(1))
    return constant


def equal_values(body, block_of):
    """{value: the first equal value of its basic block} for the values with an earlier equal (see above)."""
    same, seen, epoch = {}, {}, 0
    for i, line in enumerate(body):
        m = PURE.match(line)
        if not m:
            if re.search(r"\b(?:store|call|invoke|atomicrmw|cmpxchg|fence)\b", line) and \
                    not MEMORY_SAFE_CALL.search(line):
                epoch += 1
            continue
        name, rest = m.groups()
        rest = re.sub(NAMED_VALUE, lambda v: same.get(v.group(1), v.group(1)), METADATA.sub("", rest).rstrip())
        if rest.startswith("load"):
            if " volatile " in rest or " atomic " in rest:
                continue
            rest += " @%d" % epoch
        c = COMMUTATIVE.match(rest)
        if c:
            rest = c.group(1) + c.group(2) + c.group(3) + " " + ", ".join(sorted(c.group(4, 5)))
        key = (block_of[i], rest)
        if key in seen:
            same[name] = seen[key]
        else:
            seen[key] = name
    return same


# A GPU's single-precision arithmetic gives one NaN, 0x7fffffff, whatever made it: 0/0, inf - inf, NaN + 1, -NaN,
# fabsf(NaN), a math function's NaN (tests/emu/programs/nan_results.cu, on an H100). An x86 CPU gives 0xffc00000
# for an invalid operation and passes an operand's NaN on, so printf would say -nan where the GPU says nan. In device
# functions, each float result of arithmetic, a conversion from double or a math function is made that NaN when it
# is one. Moves keep their bits on both (a load, a store, a select, a shuffle, __int_as_float); double precision's
# NaN from an invalid operation is the CPU's already.
FLOAT_RESULT = re.compile(r"^(\s*)%([-\w.$]+) = (?:(?:fadd|fsub|fmul|fdiv|frem|fneg) " + FP_FLAGS + r"float\b|"
                          r"fptrunc double .* to float\b|(?:tail )?call " + FP_FLAGS + r"float @(?:llvm\.(?:fma|fmuladd|"
                          r"sqrt|fabs|minnum|maxnum|exp|exp2|log|log2|log10|pow|powi|sin|cos)\.f32|(?:sqrt|rsqrt|cbrt|exp|"
                          r"exp2|exp10|expm1|log|log2|log10|log1p|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|pow|"
                          r"hypot|fmin|fmax|fmod|erf|erfc|fdim|remainder|lgamma|tgamma)f|__nv_\w+f)\()")
GPU_NAN = "2147483647"  # 0x7fffffff


def rewrite_device_lines(ir, rewrite):
    """ir with each line of its device functions replaced by rewrite(line), a list of lines."""
    device = device_functions(ir)
    if not device:
        return ir
    out = []
    for is_device, lines in pieces(ir, device):
        for line in lines:
            out.extend(rewrite(line) if is_device else [line])
    return "".join(out)


def canonical_nans(ir):
    """Each float result of device arithmetic that is a NaN -> the GPU's NaN (see above)."""
    def rewrite(line):
        m = FLOAT_RESULT.match(line)
        if not m or m.group(2).startswith("cudaemu."):
            return [line]
        indent, name = m.groups()
        raw = "%%cudaemu.nan.%s" % name
        return [line.replace("%" + name + " = ", raw + " = ", 1),
                "%s%%cudaemu.isnan.%s = fcmp uno float %s, 0.000000e+00\n" % (indent, name, raw),
                "%s%%cudaemu.bits.%s = bitcast float %s to i32\n" % (indent, name, raw),
                "%s%%cudaemu.gpu.%s = select i1 %%cudaemu.isnan.%s, i32 %s, i32 %%cudaemu.bits.%s\n" %
                (indent, name, name, GPU_NAN, name),
                "%s%%%s = bitcast i32 %%cudaemu.gpu.%s to float\n" % (indent, name, name)]

    return rewrite_device_lines(ir, rewrite)


# An integer division by zero traps on x86 (SIGFPE), and so does the one division that overflows, INT_MIN / -1. A
# GPU divides in software and goes on: on an H100 (tests/emu/programs/integer_division.cu) x / 0 is all ones (-1,
# or UINT_MAX), but a 64-bit x / 0 of an x below 2^32 (unsigned) is 0xffffffff, which its 32-bit path gives; x % 0
# is x; INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0, as wrapping arithmetic gives. (Division by zero is undefined
# in C++, and nvcc's code for a remainder computed beside its quotient was seen to give all ones instead of x.) In
# device functions each division or remainder by a value that is not a constant other than 0 divides by 1 where
# the divisor is 0 or -1, and then takes the GPU's result in those cases.
INTEGER_DIVISION = re.compile(r"^(\s*)(%[-\w.$]+) = (sdiv|udiv|srem|urem) (exact )?(i\d+) (\S+), (\S+?)(,.*)?\n?$")


def integer_division_without_traps(ir):
    """Each integer division and remainder of device code by a variable -> one that gives a GPU's result for a divisor
    of 0 (and -1), where x86 traps (see above)."""
    def rewrite(line):
        m = INTEGER_DIVISION.match(line)
        if not m or not (m.group(7).startswith("%") or m.group(7) == "0"):
            return [line]
        indent, result, op, exact, t, x, y, rest = m.groups()
        tag, signed, out = result[1:].strip('"'), op[0] == "s", []

        def add(name, text):
            out.append('%s%%"cudaemu.%s.%s" = %s\n' % (indent, name, tag, text))
            return '%%"cudaemu.%s.%s"' % (name, tag)

        zero = add("zero", "icmp eq %s %s, 0" % (t, y))
        odd = add("minus_one", "icmp eq %s %s, -1" % (t, y)) if signed else None
        either = add("bad", "or i1 %s, %s" % (zero, odd)) if signed else zero
        safe = add("divisor", "select i1 %s, %s 1, %s %s" % (either, t, t, y))
        value = add("value", "%s %s%s %s, %s%s" % (op, exact or "", t, x, safe, rest or ""))
        if op.endswith("rem"):  # x % 1 is 0, as x % -1 is; x % 0 is x
            gpu = "select i1 %s, %s %s, %s %s" % (zero, t, x, t, value)
        else:
            if signed:  # x / -1 is -x, wrapping
                value = add("negated", "select i1 %s, %s %s, %s %s" % (
                    odd, t, add("minus", "sub %s 0, %s" % (t, x)), t, value))
            ones = "-1"
            if t == "i64":
                small = add("small", "icmp ult i64 %s, 4294967296" % x)
                ones = add("ones", "select i1 %s, i64 4294967295, i64 -1" % small)
            gpu = "select i1 %s, %s %s, %s %s" % (zero, t, ones, t, value)
        return out + ["%s%s = %s\n" % (indent, result, gpu)]

    return rewrite_device_lines(ir, rewrite)


# A shift by the type's width or more is undefined in C++; x86 takes the amount modulo the width (1u << 32 is 1).
# PTX's shl and shr clamp it: an H100 gives 0 for 1u << 32 and x >> 40 of an unsigned x, and the sign of a signed
# x for x >> 40 (tests/emu/programs/integer_shifts.cu, 32 and 64 bits, amounts up to 256 and -1). In device
# functions each shift by a variable amount is clamped so.
INTEGER_SHIFT = re.compile(r"^(\s*)(%[-\w.$]+) = (shl|lshr|ashr) (?:(?:nuw|nsw|exact) )*(i\d+) (\S+), (%\S+?)(,.*)?\n?$")


def integer_shifts_clamped(ir):
    """Each shift of device code by a variable amount -> one that clamps the amount as PTX does (see above)."""
    def rewrite(line):
        m = INTEGER_SHIFT.match(line)
        if not m:
            return [line]
        indent, result, op, t, x, y, rest = m.groups()
        tag, width = result[1:].strip('"'), int(t[1:])
        big = '%%"cudaemu.big.%s"' % tag
        out = ["%s%s = icmp uge %s %s, %d\n" % (indent, big, t, y, width)]
        if op == "ashr":  # the sign, as a shift by width - 1 gives
            amount = '%%"cudaemu.amount.%s"' % tag
            out.append("%s%s = select i1 %s, %s %d, %s %s\n" % (indent, amount, big, t, width - 1, t, y))
            return out + ["%s%s = ashr %s %s, %s%s\n" % (indent, result, t, x, amount, rest or "")]
        value = '%%"cudaemu.value.%s"' % tag
        out.append("%s%s = %s %s %s, %s%s\n" % (indent, value, op, t, x, y, rest or ""))
        return out + ["%s%s = select i1 %s, %s 0, %s %s\n" % (indent, result, big, t, t, value)]

    return rewrite_device_lines(ir, rewrite)


# A GPU's fminf and fmaxf (and fmin, fmax) order -0 below +0: fminf(0, -0) and fminf(-0, 0) are both -0, fmaxf of
# them +0 (tests/emu/programs/min_max_zeros.cu, on an H100). LLVM's minnum leaves the choice open, and x86's minss
# returns one operand by position. In device functions each minnum and maxnum is a function that, where the operands
# compare equal, returns their bits or'ed (min: -0 wins) or and'ed (max: +0 wins); equal values other than zeros have
# the same bits.
MIN_MAX_CALL = re.compile(r"@llvm\.(minnum|maxnum)\.(f32|f64)\(")


def signed_zero_min_max(ir):
    """Each minnum and maxnum of device code -> one that orders -0 below +0, as a GPU's (see above)."""
    used = set()

    def rename(m):
        used.add(m.groups())
        return "@cudaemu.%s.%s(" % m.groups()

    out = [rewrite_device_lines(ir, lambda line: [MIN_MAX_CALL.sub(rename, line)])]
    for op, suffix in sorted(used):
        t, i = ("float", "i32") if suffix == "f32" else ("double", "i64")
        out.append("\ndefine linkonce_odr hidden %s @cudaemu.%s.%s(%s %%a, %s %%b) alwaysinline {\n"
                   "  %%m = call %s @llvm.%s.%s(%s %%a, %s %%b)\n"
                   "  %%e = fcmp oeq %s %%a, %%b\n"
                   "  %%x = bitcast %s %%a to %s\n"
                   "  %%y = bitcast %s %%b to %s\n"
                   "  %%z = %s %s %%x, %%y\n"
                   "  %%w = bitcast %s %%z to %s\n"
                   "  %%r = select i1 %%e, %s %%w, %s %%m\n"
                   "  ret %s %%r\n}\n" % (t, op, suffix, t, t, t, op, suffix, t, t, t, t, i, t, i,
                                            "or" if op == "minnum" else "and", i, i, t, t, t, t))
        if not re.search(r"^declare [^@]*@llvm\.%s\.%s\(" % (op, suffix), ir, re.M):
            out.append("declare %s @llvm.%s.%s(%s, %s)\n" % (t, op, suffix, t, t))
    return "".join(out)


def gpu_results(ir):
    """Device code's arithmetic with a GPU's results where an x86 CPU's differ: its NaN, its min and max of zeros,
    its division by zero and its shifts past the width (see above)."""
    return integer_shifts_clamped(integer_division_without_traps(signed_zero_min_max(canonical_nans(ir))))


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
