"""The LLVM IR passes: text rewrites of the IR clang and opt produce for a .cu file, between instrumenting and
optimising it. Each takes the IR's text and returns the new text; build.Build.compile_cu runs them in order.

They read the forms LLVM 14 prints (typed pointers: `i8*`, `float*`) and those of LLVM 15 and newer (opaque
pointers: `ptr`); tests/emucc/test_ir.py holds both.
"""
import os
import re

from .arithmetic import device_functions, matching_paren, pieces

INCLUDE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "include")


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


# clang's -fsanitize=array-bounds checks every index into an array of known size against its own dimension, and
# calls __ubsan_handle_out_of_bounds(data, index) where one is outside: `As[s][k][130]` in `float As[2][16][128]`
# even though the address stays inside As. `data` is a private global per check: its source location (the column of
# the array's name) and the type indexed there ('float[16][128]' for k). The calls go to the runtime's
# __cudaemu_index_out_of_bounds with a third argument naming the access as the student wrote it, "As[.][%][.]",
# where % marks the index that was out (the dimension is the array's dimensions at that place less the type's).
UBSAN_DATA = re.compile(r"^(@[-\w.$]+) = private unnamed_addr global \{ \{ (?:ptr|\[\d+ x i8\]\*), i32, i32 \}.*? "
                        r"\{ (?:ptr|\[\d+ x i8\]\*) (@[-\w.$]+), i32 (\d+), i32 (\d+) \}, [^@]*(@[-\w.$]+)", re.M)
UBSAN_STRING = re.compile(r'^(@[-\w.$]+) = private unnamed_addr constant (?:\{ i16, i16, \[\d+ x i8\] \} '
                          r'\{ i16 -?\d+, i16 \d+, )?\[\d+ x i8\] c"((?:[^"\\]|\\[0-9A-Fa-f]{2})*)\\00"', re.M)
UBSAN_CALL = re.compile(r"@(__ubsan_handle_out_of_bounds)\((.*), (i64 [^,()]+)\)|"
                        r"@(__cudaemu_index_range_check)\((.*), (i64 [^,()]+, i64 \d+, i64 \d+)\)")
ACCESSED_NAME = re.compile(r"[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*")


def subscripts(text, at):
    """The number of `[...]` groups written right after position `at` of `text`."""
    count = 0
    while True:
        while at < len(text) and text[at] in " \t":
            at += 1
        if at >= len(text) or text[at] != "[":
            return count
        depth = 0
        for i in range(at, len(text)):
            depth += {"[": 1, "]": -1}.get(text[i], 0)
            if depth == 0:
                break
        else:
            return count
        count, at = count + 1, i + 1


def index_check_names(ir, source_name, source):
    """{data global: "As[.][%][.]"} for the array-bounds checks in the .cu file (`source`, as clang compiled it and
    named `source_name`); "" where the source there is no plain name with subscripts (a macro, a header)."""
    strings = {m.group(1): m.group(2) for m in UBSAN_STRING.finditer(ir)}
    sites = {}
    for m in UBSAN_DATA.finditer(ir):
        file = strings.get(m.group(2), "")
        dims = len(re.findall(r"\[\d+\]", strings.get(m.group(5), "")))
        sites[m.group(1)] = (file, int(m.group(3)), int(m.group(4)), dims)
    widest = {}
    for file, line, column, dims in sites.values():
        widest[(file, line, column)] = max(dims, widest.get((file, line, column), 0))
    lines = source.split("\n")
    names = {}
    for data, (file, line, column, dims) in sites.items():
        names[data] = ""
        if file != source_name or not 0 < line <= len(lines):
            continue
        text = lines[line - 1]
        m = ACCESSED_NAME.match(text, column - 1)
        written = subscripts(text, m.end()) if m else 0
        position = widest[(file, line, column)] - dims
        if written and 0 <= position < written:
            name = re.sub(r"\s+", "", m.group(0))
            names[data] = name + "".join("[%]" if i == position else "[.]" for i in range(written))
    return names


def name_index_checks(ir, source_name, source):
    """Each __ubsan_handle_out_of_bounds call -> __cudaemu_index_out_of_bounds(data, index, "As[.][%][.]"); each
    __cudaemu_index_range_check call (check_vector_indices) gets the same name as its last argument."""
    if "@__ubsan_handle_out_of_bounds" not in ir:
        return ir
    names = index_check_names(ir, source_name, source)
    opaque = "declare void @__ubsan_handle_out_of_bounds(ptr" in ir
    pointer_type = "ptr" if opaque else "i8*"
    constants = {}
    out = []
    for line in ir.splitlines(keepends=True):
        if line.startswith("declare void @__ubsan_handle_out_of_bounds("):
            line = "declare void @__cudaemu_index_out_of_bounds(%s, i64, %s)\n" % (pointer_type, pointer_type)
        elif line.startswith("declare void @__cudaemu_index_range_check("):
            line = "declare void @__cudaemu_index_range_check(%s, i64, i64, i64, %s)\n" % (pointer_type, pointer_type)
        elif "@__ubsan_handle_out_of_bounds(" in line or "@__cudaemu_index_range_check(" in line:
            m = UBSAN_CALL.search(line)
            callee, arguments, rest = m.group(1, 2, 3) if m.group(1) else m.group(4, 5, 6)
            data = re.findall(r"@[-\w.$]+", arguments)[-1]
            text = names.get(data, "")
            constant = constants.setdefault(text, ("@__cudaemu_index_name.%d" % len(constants), text))[0]
            size = len(text.encode()) + 1
            pointer = "ptr " + constant if opaque else \
                "i8* getelementptr inbounds ([%d x i8], [%d x i8]* %s, i64 0, i64 0)" % (size, size, constant)
            if callee == "__ubsan_handle_out_of_bounds":
                callee = "__cudaemu_index_out_of_bounds"
            line = line[:m.start()] + "@%s(%s, %s, %s)" % (callee, arguments, rest, pointer) + line[m.end():]
        out.append(line)
    out += ['%s = private unnamed_addr constant [%d x i8] c"%s\\00"\n' % (name, len(text.encode()) + 1, text)
            for name, text in constants.values()]
    return "".join(out)


# nvcc gives an access through a CUDA vector type that type's alignment: `*reinterpret_cast<const float4*>(&As[k][m])`
# is one 16-byte load (LDS.128), which faults where the address is not a multiple of 16. clang keeps the alignment it
# knows of the array (4, a float's), and the copy would become four 4-byte accesses: four shared-memory requests for
# the GPU's one. Before anything splits them, the llvm.memcpy/memmove calls that copy a vector get the vector type's
# alignment on both sides: those with an operand cast from a pointer to the type (LLVM 14's typed pointers), or
# with one that is a local of the type or an element of an array of it (opaque pointers too).
SHARED_DIMS_PREFIX = "__cudaemu_shared_dims_"  # symbols.cpp reads these
SHARED_ARRAY = re.compile(r"^(@[-\w.$]+) = (?:[\w()]+ )*?thread_local(?:\([\w-]+\))? global ((?:\[\d+ x )+)", re.M)


def name_shared_dimensions(ir):
    """For each __shared__ array of two or more dimensions (a thread_local global here), a symbol naming its
    dimensions: __cudaemu_shared_dims_2_16_128__NAME for `As[2][16][128]`, which the runtime reads to word a race
    on a double buffer's stage (report.cpp)."""
    symbols = []
    for m in SHARED_ARRAY.finditer(ir):
        dims = re.findall(r"\[(\d+) x ", m.group(2))
        if len(dims) >= 2:
            symbols.append('@"%s%s__%s" = weak constant i8 0\n' % (SHARED_DIMS_PREFIX, "_".join(dims),
                                                                 m.group(1)[1:].strip('"')))
    return ir + ("\n" + "".join(symbols) if symbols else "")


def vector_alignments():
    """{'float4': 16, 'double2': 16, 'float2': 8, ...}: the CUDA vector types aligned to more than their element,
    as the emulator's headers declare them."""
    aligned = {}
    for header in ("cuda_runtime.h", "cudaemu_compat.h"):
        with open(os.path.join(INCLUDE_DIR, header), encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r"struct alignas\((\d+)\) (\w+) \{|CUDAEMU_VECTOR[124]\((\w+), [\w ]+, (\d+)\)", text):
            align, name = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
            if int(align) >= 8:
                aligned[name] = int(align)
    return aligned


VECTOR_VALUE = re.compile(r"^\s*(%[-\w.$]+) = (?:bitcast %struct\.(\w+)\* [^ ]+ to i8\*|alloca %struct\.(\w+),|"
                          r"getelementptr (?:inbounds )?%struct\.(\w+), (?:ptr|%struct\.\w+\*) %[-\w.$]+, i64 [^,]+$)")
MEMCPY = re.compile(r"@llvm\.mem(?:cpy|move)\.[\w.]+\((.*), i64 (\d+), i1 (?:false|true)\)")
COPY_OPERAND = re.compile(r"((?:i8\*|ptr) (?:noalias )?(?:nocapture )?(?:writeonly |readonly )?)align (\d+) "
                          r"(%[-\w.$]+)")


def raise_vector_alignment(ir, aligned=None):
    """Each copy of a CUDA vector (llvm.memcpy or memmove) aligned as the vector type on both sides."""
    aligned = vector_alignments() if aligned is None else aligned
    out, vectors = [], {}
    for line in ir.splitlines(keepends=True):
        if line.startswith("define "):
            vectors = {}
        m = VECTOR_VALUE.match(line.rstrip("\n").split(", !")[0])
        if m:
            name = m.group(2) or m.group(3) or m.group(4)
            if name in aligned:
                vectors[m.group(1)] = aligned[name]
        elif vectors and "@llvm.mem" in line:
            c = MEMCPY.search(line)
            if c:
                align = max([vectors.get(o.group(3), 0) for o in COPY_OPERAND.finditer(c.group(1))] or [0])
                if align and int(c.group(2)) % align == 0:
                    operands = COPY_OPERAND.sub(lambda o: "%salign %d %s" % (o.group(1), max(int(o.group(2)), align),
                                                                             o.group(3)), c.group(1))
                    line = line[:c.start(1)] + operands + line[c.end(1):]
        out.append(line)
    return "".join(out)


# A vector access through an element's address, `*reinterpret_cast<const float4*>(&As[s][k][c])`, reads As[s][k][c]
# and the elements after it: the index checks above see only the subscript c (and `&As[s][k][BM]` is a legal
# address), so a float4 read at c = BM - 2 would run into the next row unreported. Each access wider than the
# element (a vector copy, a vector's field) through the address of an array element gets a call before it that
# checks the elements it spans against that subscript's dimension: __cudaemu_index_range_check(data, index, count,
# extent), with the data of the index check that guards the subscript (name_index_checks then adds its name).
# Only addresses formed in the same expression are followed; a pointer kept in a variable goes unchecked.
SCALAR_SIZES = {"i8": 1, "i16": 2, "half": 2, "bfloat": 2, "i32": 4, "float": 4, "i64": 8, "double": 8}
SCALAR_TYPE = r"(?:i8|i16|half|bfloat|i32|float|i64|double)"
UBSAN_CHECK = re.compile(r"call void @__ubsan_handle_out_of_bounds\((.*), i64 ([^,()]+)\)")
WIDENED = re.compile(r"^\s*(%[-\w.$]+) = (?:sext|zext) i\d+ ([^ ]+) to i64\b")
ELEMENT_ADDRESS = re.compile(r"^\s*(%[-\w.$]+) = getelementptr inbounds \[(\d+) x (" + SCALAR_TYPE + r")\], .*, "
                             r"i64 0, i64 (%[-\w.$]+|-?\d+)$")
SAME_ADDRESS = re.compile(r"^\s*(%[-\w.$]+) = bitcast [^ ]+\* (%[-\w.$]+) to [^,]*$")
FIELD_ADDRESS = re.compile(r"^\s*(%[-\w.$]+) = getelementptr inbounds %struct\.(\w+), (?:ptr|%struct\.\w+\*) "
                           r"(%[-\w.$]+), i(?:32|64) 0, i32 (\d+)$")
STRUCT_TYPE = re.compile(r"^%struct\.(\w+) = type \{ ([^{}]*) \}$", re.M)
LOADED = re.compile(r"^\s*(?:%[-\w.$]+ = )?load (?:volatile )?(<(\d+) x )?(" + SCALAR_TYPE + r")>?, [^%]*(%[-\w.$]+)")
STORED = re.compile(r"^\s*store (?:volatile )?(<(\d+) x )?(" + SCALAR_TYPE + r")>? [^,]+, [^%]*(%[-\w.$]+)")
COPIED = re.compile(r"@llvm\.mem(?:cpy|move|set)\.[\w.]+\((.*), i64 (\d+), i1 (?:false|true)\)")
COPY_POINTER = re.compile(r"(?:i8\*|ptr) (?:noalias )?(?:nocapture )?(?:writeonly |readonly )?(?:align \d+ )?"
                          r"(%[-\w.$]+)")


def index_check_extents(ir):
    """{data global: the extent of the dimension its check guards} for the array-bounds checks of the module."""
    strings = {m.group(1): m.group(2) for m in UBSAN_STRING.finditer(ir)}
    extents = {}
    for m in UBSAN_DATA.finditer(ir):
        dims = re.search(r"\[(\d+)\]", strings.get(m.group(5), ""))
        if dims:
            extents[m.group(1)] = int(dims.group(1))
    return extents


def uniform_structs(ir):
    """{'float4': 'float', ...}: the structures whose fields are all one scalar type."""
    structs = {}
    for m in STRUCT_TYPE.finditer(ir):
        fields = {f.strip() for f in m.group(2).split(",")}
        if len(fields) == 1 and next(iter(fields)) in SCALAR_SIZES:
            structs[m.group(1)] = fields.pop()
    return structs


def check_vector_indices(ir):
    """A __cudaemu_index_range_check call before each access wider than its element through an array element's
    address (LLVM IR before sroa, with -fsanitize=array-bounds's checks)."""
    if "@__ubsan_handle_out_of_bounds(" not in ir:
        return ir
    extents, structs = index_check_extents(ir), uniform_structs(ir)
    opaque = "declare void @__ubsan_handle_out_of_bounds(ptr" in ir
    out, checked = [], False
    roots, addresses, last_check = {}, {}, None
    for line in ir.splitlines(keepends=True):
        text = line.rstrip("\n").split(", !")[0]
        if line.startswith("define "):
            roots, addresses, last_check = {}, {}, None
        if "@__ubsan_handle_out_of_bounds(" in text:
            m = UBSAN_CHECK.search(text)
            if m:
                data = re.findall(r"@[-\w.$]+", m.group(1))[-1]
                mark = re.search(r", (!nosanitize ![0-9]+)", line)  # course/confine.py tells emucc's calls by it
                last_check = (m.group(1), extents.get(data), roots.get(m.group(2), m.group(2)),
                              ", " + mark.group(1) if mark else "")
            out.append(line)
            continue
        m = WIDENED.match(text)
        if m:
            roots[m.group(1)] = roots.get(m.group(2), m.group(2))
        m = ELEMENT_ADDRESS.match(text)
        if m:
            extent, index = int(m.group(2)), m.group(4)
            if last_check and last_check[1] == extent and last_check[2] == roots.get(index, index):
                # (data, index, extent, the element's size, the byte offset from the element, !nosanitize)
                addresses[m.group(1)] = (last_check[0], index, extent, SCALAR_SIZES[m.group(3)], 0, last_check[3])
            last_check = None
            out.append(line)
            continue
        m = SAME_ADDRESS.match(text)
        if m and m.group(2) in addresses:
            addresses[m.group(1)] = addresses[m.group(2)]
        m = FIELD_ADDRESS.match(text)
        if m and m.group(3) in addresses and m.group(2) in structs:
            data, index, extent, size, offset, mark = addresses[m.group(3)]
            addresses[m.group(1)] = (data, index, extent, size,
                                     offset + int(m.group(4)) * SCALAR_SIZES[structs[m.group(2)]], mark)
        accesses = []  # (pointer, bytes)
        m = LOADED.match(text) or STORED.match(text)
        if m:
            accesses.append((m.group(4), int(m.group(2) or 1) * SCALAR_SIZES[m.group(3)]))
        elif "@llvm.mem" in text:
            c = COPIED.search(text)
            if c:
                accesses += [(p, int(c.group(2))) for p in COPY_POINTER.findall(c.group(1))]
        for pointer, size in accesses:
            if pointer not in addresses:
                continue
            data, index, extent, element, offset, mark = addresses[pointer]
            if offset + size <= element:
                continue  # within the element: its own index check covers it
            count = (offset + size + element - 1) // element
            dbg = re.search(r", (!dbg ![0-9]+)", line)
            out.append("  call void @__cudaemu_index_range_check(%s, i64 %s, i64 %d, i64 %d)%s%s\n" % (
                data, index, count, extent, ", " + dbg.group(1) if dbg else "", mark))
            checked = True
        out.append(line)
    if checked:
        out.append("declare void @__cudaemu_index_range_check(%s, i64, i64, i64)\n" % ("ptr" if opaque else "i8*"))
    return "".join(out)


# Inline assembly in device code is PTX, which the CPU cannot run. The source scan refuses `asm(...)` and
# `asm volatile(...)` by name; other spellings (`__asm__ __volatile__(...)`, `__asm(...)`) reach the IR, where clang's
# x86 back end would fail on the PTX, or crash on an operand constraint it does not know. Here each is refused at
# its line, in device functions only: host code in a .cu may hold the host's own assembly.
INLINE_ASM = re.compile(r"\bcall [^\"]*?\basm (?:sideeffect |alignstack |inteldialect |unwind )*\"")
DEBUG_LOCATION = re.compile(r", !dbg !(\d+)")
METADATA = re.compile(r"^!(\d+) = (?:distinct )?!(\w+)\((.*)\)$", re.M)


def device_inline_asm(ir):
    """`file:line: error: ...` for each inline assembly statement in a device function."""
    found = []
    for is_device, lines in pieces(ir, device_functions(ir)):
        for line in lines[1:] if is_device else ():
            if INLINE_ASM.search(line):
                location = DEBUG_LOCATION.search(line)
                found.append(location.group(1) if location else None)
    if not found:
        return []
    metadata = {number: (kind, fields) for number, kind, fields in METADATA.findall(ir)}

    def field(fields, name):
        m = re.search(r"\b%s: (?:!(\d+)|(\d+)|\"((?:[^\"\\]|\\.)*)\")" % name, fields)
        return m and (m.group(1) or m.group(2) or m.group(3))

    messages = []
    for number in found:
        where = "<device code>"
        kind, fields = metadata.get(number, ("", ""))
        if kind == "DILocation":
            scope, file = field(fields, "scope"), None
            while scope in metadata and file is None:  # up the scopes to the one that names its file
                file = field(metadata[scope][1], "file")
                scope = field(metadata[scope][1], "scope")
            name = field(metadata.get(file, ("", ""))[1], "filename") if file else None
            where = "%s:%s" % (name or "<device code>", field(fields, "line"))
        messages.append("%s: error: inline PTX (asm) is not supported by the CPU emulator" % where)
    return messages
