"""confine — what a student's compiled kernel.cu may contain, checked by the grader outside the sandbox.

The test program runs the student's code in its own process, so the only safe student code is code that can do
nothing but compute: no code that runs before main() or after it (static constructors and destructors; the one
exception is emucc's binding of __device__ and __constant__ variables to their device memory, one call to the
runtime with constant arguments per variable, checked line by line: sets_up_device_variables), no instructions the
compiler does not see (inline assembly in any spelling), and no call to anything outside the list in
course/confine_allowlist.txt (the CUDA runtime, the emulator's callbacks, maths, printf). Such code cannot open a
file, print to the grader's verdict channel, read the environment, or load memory the emulator does not count.

Two views of what was built are checked, both produced by the trusted compiler from the student's source:
  - the LLVM IR emucc built the object from (`emucc --emit-ir`): inline asm, asm labels, section attributes,
    constructors and destructors, atomic instructions and every outside name, each with file:line;
  - the object file itself (nm, readelf; also nvcc's host object for the GPU build): what it leaves undefined, what
    it puts in .init_array/.ctors/.fini_array/.dtors, and any name it defines that the C library, the C++ library or
    the course's own objects also define (a kernel.cu that defines write() or getenv() would replace them for the
    whole test program).

check_ir() and check_object() return a list of one-line reasons, empty when the kernel is fine.
"""
import fnmatch
import os
import re
import stat
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ALLOWLIST = os.path.join(HERE, "confine_allowlist.txt")
IR_MAX_BYTES = 256 << 20
# Compiled code may call these even where the source does not (LLVM turns a zeroing loop into memset); the IR, where
# they would have to be written by hand, does not allow them.
OBJECT_ONLY = {"memcpy", "memset", "memmove"}
# nvcc's host code registers its kernels with a constructor of its own (one .init_array entry, in .text.startup,
# like a student's) and unregisters them through atexit: in a GPU object, one constructor and atexit are nvcc's.
NVCC_OBJECT_ONLY = {"atexit"}
LIBRARIES = ("libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1")
CTOR_SECTIONS = (".init_array", ".ctors", ".fini_array", ".dtors", ".preinit_array")
# The instrumentation's own module constructor (emucc, SanitizerCoverage) and nvcc's kernel registration
TRUSTED_CTORS = re.compile(r"^(\.text\.)?(sancov\.module_ctor\w*|__sti____cudaRegisterAll\w*|_GLOBAL__sub_I_\w*cuda\w*)$")

_allow = None
_protected = {}


def allowlist():
    global _allow
    if _allow is None:
        with open(ALLOWLIST, encoding="utf-8") as f:
            _allow = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    return _allow


def allowed(name, pretty):
    return any(fnmatch.fnmatchcase(pretty, p) or fnmatch.fnmatchcase(name, p) for p in allowlist())


def demangle(names):
    names = list(names)
    if not names:
        return {}
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names) + "\n", capture_output=True, text=True,
                             timeout=60).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        out = []
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def shown(pretty):
    """The name for a person: a function's name without its parameter list."""
    return pretty if len(pretty) < 60 else pretty[:57] + "..."


# ---------------------------------------------------------------------------------------------------------------
# The LLVM IR
# ---------------------------------------------------------------------------------------------------------------
NAME = r'(?:"(?:[^"\\]|\\.)*"|[-\w.$]+)'
DEBUG_LINE = re.compile(r"^!(\d+) = (?:distinct )?!(?:DILocation|DISubprogram)\(.*?\bline: (\d+)")
DBG_REF = re.compile(r"!dbg !(\d+)")
DECLARE = re.compile(r"^declare\b[^@]*@(" + NAME + r")\(")
EXTERNAL_GLOBAL = re.compile(r"^@(" + NAME + r") = (?:[\w()]+ )*?(?:external|extern_weak)\b")
DEFINE = re.compile(r"^define\b[^@]*@(" + NAME + r")\(")
INLINE_ASM = re.compile(r"\basm\s+(?:sideeffect\s+|alignstack\s+|inteldialect\s+|unwind\s+)*\"")
ATOMIC = re.compile(r"(?:= |^\s*)(?:load atomic|store atomic|atomicrmw|cmpxchg|fence)\b")
SECTION = re.compile(r'\bsection "([^"]*)"')


def unquote(name):
    if name.startswith('"'):
        name = name[1:-1]
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), name)


# The widths of load and store the emulator's instrumentation counts (SanitizerCoverage's load and store callbacks):
# any other access would be neither counted nor checked, so it is refused.
COUNTED_BYTES = (1, 2, 4, 8, 16)
ACCESS = re.compile(r"^\s*(?:%\S+\s*=\s*)?(load|store)\s+(?:atomic\s+)?(?:volatile\s+)?(.*)$")
SCALAR_BYTES = {"half": 2, "bfloat": 2, "float": 4, "double": 8, "x86_fp80": 10, "fp128": 16, "ppc_fp128": 16,
                "ptr": 8}


def ir_type(text):
    """The IR type at the start of text ("<8 x float>", "i40", "{ float, i8 }", "float*"), and the rest."""
    text = text.lstrip()
    if text[:1] in "<{[":
        close = {"<": ">", "{": "}", "[": "]"}[text[0]]
        depth = 0
        for i, c in enumerate(text):
            depth += c == text[0]
            depth -= c == close
            if depth == 0:
                end = i + 1
                break
        else:
            return text, ""
    else:
        end = len(re.match(r"[^\s,]*", text).group(0))
    while text[end:end + 1] == "*":
        end += 1
    return text[:end], text[end:]


def ir_type_bytes(t):
    """How many bytes a load or store of IR type t moves; None where it cannot be told."""
    t = t.strip()
    if t.endswith("*") or t.startswith("ptr"):
        return 8
    m = re.fullmatch(r"i(\d+)", t)
    if m:
        return (int(m.group(1)) + 7) // 8
    if t in SCALAR_BYTES:
        return SCALAR_BYTES[t]
    m = re.fullmatch(r"[<\[](\d+) x (.+)[>\]]", t)
    if m:
        bits = re.fullmatch(r"i(\d+)", m.group(2).strip())
        if bits and t.startswith("<"):
            return (int(m.group(1)) * int(bits.group(1)) + 7) // 8
        each = ir_type_bytes(m.group(2))
        return None if each is None else int(m.group(1)) * each
    if t.startswith("{") and t.endswith("}"):
        fields, rest = [], t[1:-1].strip()
        while rest:
            field, rest = ir_type(rest)
            fields.append(ir_type_bytes(field))
            rest = rest.lstrip().lstrip(",")
        return None if None in fields else sum(fields)
    return None


POINTER_OPERAND = re.compile(r",\s*(?:ptr|[^,]*?\*)\s+(%[-\w.]+)\s*(?=,|$)")


def uncounted_access(line, stack=()):
    """(load or store, its type, its bytes) for an access of a width the emulator cannot count, else None. Only a
    scalar or a vector can be such an access: a type whose width cannot be told here (a function pointer's,
    `void (float*)*`) and a first-class aggregate (`{ i64, i32 }`, how clang passes a dim3 by value) are let
    through, and so is an access to one of the function's own stack slots (`stack`: the names its allocas define,
    which the emulator does not count as memory, and which builds without LLVM's opt keep)."""
    m = ACCESS.match(line)
    if not m:
        return None
    t, rest = ir_type(m.group(2))
    if rest.lstrip().startswith("(") or t.startswith(("{", "[")):
        return None
    pointers = POINTER_OPERAND.findall(rest)
    if pointers and pointers[-1] in stack:
        return None
    size = ir_type_bytes(t)
    return None if size is None or size in COUNTED_BYTES else (m.group(1), t, size)


# The call emucc puts at the start of a basic block of device code (cudaemu_cc/arithmetic.py's count_flops): constants only,
# and no source line (a call the source makes has one)
EMUCC_FLOPS_CALL = re.compile(r"^\s*call void @__cudaemu_flops\((?:i32 \d+, ){5}i32 \d+\)\s*$")


# What emucc makes of `__device__ float x[4] = {...};` at namespace scope (cudaemu_cc/declarations.py): constant
# data holding the initial value, and a reference that the program binds while it starts, with one call to the
# runtime, define_device_variable(&initial, bytes, align, constant, "x", __FILE__, __LINE__), whose arguments are all
# constants. A constructor made only of such bindings runs no code of the student's; anything else in it would.
DEFINE_DEVICE_VARIABLE = "_ZN7cudaemu22define_device_variableEPKvmmbPKcS3_i"
STARTUP_LINE = [
    re.compile(r"^\s*$|^(?:[-\w.$]+|\"[^\"]*\"):(?:\s|$)|^\s*br\b|^\s*ret void\b"),
    # the coverage flag SanitizerCoverage sets on entry: a load, a compare and a store of @__sancov_gen_*
    re.compile(r"^\s*(?:%[-\w.]+ = )?(?:load i1, |store i1 true, )(?:i1\*|ptr) (?:getelementptr inbounds \(.*?)?"
               r"@__sancov_gen_[-\w.]*\b.*!nosanitize"),
    re.compile(r"^\s*%[-\w.]+ = icmp eq i1 %[-\w.]+, false\b"),
    re.compile(r"^\s*call void @llvm\.dbg\.\w+\("),
    # the call: every operand a constant (no %value: nothing computed before it)
    re.compile(r"^\s*%[-\w.]+ = call [^%@]*@" + DEFINE_DEVICE_VARIABLE + r"\([^%]*\)(?:, !dbg ![0-9]+)?$"),
    re.compile(r"^\s*%[-\w.]+ = bitcast i8\* %[-\w.]+ to [^%@]*(?:, !dbg ![0-9]+)?$"),
    # the store of its result to the reference, and the instrumentation's callback before that store
    re.compile(r"^\s*call void @__sanitizer_cov_store8\([^%]*@[-\w.$]+(?: to i64\*\))?\)(?:, !dbg ![0-9]+)?$"),
    re.compile(r"^\s*store (?:ptr|[^%@]*\*) %[-\w.]+, (?:ptr|[^%@]*\*\*) @[-\w.$]+, align 8\b[^%]*$"),
]


# A named type (`%struct.Box`, `%"class.ns::Tile"`) is no value: left out before STARTUP_LINE's patterns look for one
NAMED_TYPE = re.compile(r'%(?:"(?:struct|class|union)\.[^"]*"|(?:struct|class|union)\.[-\w.$]+)')


def sets_up_device_variables(fn, functions):
    """The functions constructor fn runs (fn among them; functions: name -> (define line, body lines)) when it only
    binds __device__ and __constant__ variables to their device memory, as emucc writes it: it calls functions that
    each do that and nothing else (clang's __cxx_global_var_init*, one a variable); else an empty set."""
    seen = set()

    def binds_only(name, depth):  # clang's _GLOBAL__sub_I_<file> (depth 0) calls one __cxx_global_var_init* each
        if name not in functions or depth > 1 or not functions[name][0].startswith("define internal void") or \
                not name.startswith(("_GLOBAL__sub_I_", "__cxx_global_var_init")[depth]):
            return False
        seen.add(name)
        calls_runtime = False
        for l in functions[name][1]:
            m = re.match(r"^\s*call void @([-\w.$]+)\(\)(?:, !dbg ![0-9]+)?$", l)
            if m and m.group(1).startswith("__cxx_global_var_init"):
                if not binds_only(m.group(1), depth + 1):
                    return False
                calls_runtime = True
                continue
            typeless = NAMED_TYPE.sub("T", l)
            if depth == 0 and DEFINE_DEVICE_VARIABLE in l or not any(p.match(typeless) for p in STARTUP_LINE):
                return False
            calls_runtime |= DEFINE_DEVICE_VARIABLE in l
        return calls_runtime
    return seen if binds_only(fn, 0) else set()


def defined_functions(lines):
    """name -> (its define line, its body lines), for each function the IR's lines define."""
    functions, current = {}, None
    for l in lines:
        m = DEFINE.match(l)
        if m:
            current = unquote(m.group(1))
            functions[current] = (l, [])
        elif current and l.startswith("}"):
            current = None
        elif current:
            functions[current][1].append(l)
    return functions


def binds_device_variables(text):
    """Whether the IR has a constructor that only binds __device__/__constant__ variables (check_object then lets its
    one .init_array entry through; check_ir has checked every constructor)."""
    lines = text.splitlines()
    functions = defined_functions(lines)
    return any(sets_up_device_variables(unquote(n), functions) for l in lines if l.startswith("@llvm.global_ctors = ")
               for n in re.findall(r"@(" + NAME + r")", l[l.index("=") + 1:]))


def check_ir(text, source):
    """Reasons to refuse the kernel, from the IR emucc compiled it from; source names the file in each reason."""
    lines = text.splitlines()
    line_of_dbg, scope_of, file_of, file_name = {}, {}, {}, {}
    for l in lines:
        if l.startswith("!"):
            m = DEBUG_LINE.match(l)
            if m:
                line_of_dbg[m.group(1)] = int(m.group(2))
            node = l[1:l.index(" ")]
            m = re.search(r"\bscope: !(\d+)", l)
            if m:
                scope_of[node] = m.group(1)
            m = re.search(r"\bfile: !(\d+)", l)
            if m:
                file_of[node] = m.group(1)
            m = re.match(r'^!(\d+) = !DIFile\(filename: "([^"]*)"', l)
            if m:
                file_name[m.group(1)] = m.group(2)

    def in_source(node):
        """Whether a debug location is in the student's file (not in a header it included)."""
        for _ in range(64):
            if node in file_of:
                name = file_name.get(file_of[node], "")
                return bool(name) and (name == source or source.endswith("/" + name) or name.endswith("/" + source))
            node = scope_of.get(node)
            if node is None:
                return False
        return False

    def where(l):
        m = DBG_REF.search(l)
        n = line_of_dbg.get(m.group(1)) if m else None
        return "%s:%d" % (source, n) if n and in_source(m.group(1)) else source

    reasons = []
    functions = defined_functions(lines)
    for l in lines:
        if l.startswith("module asm "):
            reasons.append("%s: inline assembly at file scope (asm(...) outside a function) is not allowed" % source)
            break
    for name, (head, body) in functions.items():
        for l in body:  # emucc's own calls count a basic block's arithmetic: constants, no source line
            if "@__cudaemu_flops" in l and not EMUCC_FLOPS_CALL.match(l):
                reasons.append("%s: using the emulator's arithmetic counter (__cudaemu_flops) is not allowed: "
                               "it counts the arithmetic your kernels execute" % where(l))
                break
        for l in body:  # emucc's index checks (-fsanitize=array-bounds) carry !nosanitize; the source's calls do not
            called = re.search(r"@(__cudaemu_index_out_of_bounds|__cudaemu_index_range_check)\(", l)
            if called and "!nosanitize" not in l:
                reasons.append("%s: calling the emulator's index check (%s) is not allowed" % (where(l), called.group(1)))
                break
        stack = {m.group(1) for m in (re.match(r"^\s*(%[-\w.]+)\s*=\s*alloca\b", l) for l in body) if m}
        for l in body:
            if INLINE_ASM.search(l):
                reasons.append("%s: inline assembly (asm, __asm__, __asm) is not allowed" % where(l))
                break
            if ATOMIC.search(l):
                reasons.append("%s: atomic builtins (__atomic_*, std::atomic) are not allowed: use atomicAdd" % where(l))
                break
            odd = uncounted_access(l, stack)
            if odd:
                reasons.append("%s: a %s of %d bytes (%s) is not allowed: the emulator counts and checks loads and "
                               "stores of 1, 2, 4, 8 and 16 bytes only; use float, int, double or a float2/float4 "
                               "vector" % (where(l), odd[0], odd[2], odd[1]))
                break
    for l in lines:
        m = SECTION.search(l)
        if m and l.startswith(("@", "define ")) and not m.group(1).startswith(("__sancov", "llvm.metadata", ".text.startup")):
            reasons.append("%s: placing code or data in section \"%s\" (__attribute__((section))) is not allowed"
                           % (where(l) if l.startswith("define") else source, m.group(1)))
    for l in lines:
        for m in re.finditer(r'@"\\01([^"]*)"', l):
            reasons.append("%s: an asm label (renaming a function or variable to '%s' with __asm__(\"...\")) is "
                           "not allowed" % (source, m.group(1)))
            break
    binders = set()  # the constructors that only bind device variables, and the functions they call
    for l in lines:
        m = re.match(r"^@llvm\.global_(c|d)tors = ", l)
        if not m:
            continue
        kind = "constructor" if m.group(1) == "c" else "destructor"
        for fn in {unquote(n) for n in re.findall(r"@(" + NAME + r")", l[l.index("=") + 1:])}:
            if fn.startswith("sancov.module_ctor") and all(
                    re.match(r"^\s*(call void @__sanitizer_cov_\w+\(.*\)|ret void)\s*$", b) or not b.strip()
                    for b in functions.get(fn, ("", ["x"]))[1]):
                continue  # the instrumentation's own: it only registers the counters
            bound = sets_up_device_variables(fn, functions)
            if bound:
                binders |= bound  # emucc's: binds each __device__/__constant__ variable to its device memory
                continue
            head = functions.get(fn, ("", []))[0]
            # clang's constructor for a file's globals calls one function per global initialised by code: name the
            # first that does more than emucc's binding of a device variable, at its declaration's line
            body = functions.get(fn, ("", []))[1]
            inits = [m.group(1) for m in (re.match(r"^\s*call void @(__cxx_global_var_init[-\w.$]*)\(", l)
                                          for l in body) if m]
            culprit = next((f for f in inits if not sets_up_device_variables(f, functions)), None)
            at = next((where(l) for l in functions.get(culprit, ("", []))[1] if where(l) != source), where(head))
            reasons.append("%s: a static %s (code that runs %s main(): __attribute__((%s)), a global object with "
                           "a %s, a global or __device__ variable whose initial value is computed by code, or "
                           "#include <iostream>; print with printf) is not allowed"
                           % (at, kind, "before" if kind == "constructor" else "after", kind, kind))
    externals = {}
    for l in lines:
        m = DECLARE.match(l) or EXTERNAL_GLOBAL.match(l)
        if m:
            externals[unquote(m.group(1))] = None
    pretty = demangle(n for n in externals if not n.startswith("llvm."))
    located = []
    for name in sorted(externals):
        p = pretty.get(name, name)
        if allowed(name, p):
            continue
        uses = [l for body in functions.values() for l in body[1] if re.search(r"@" + re.escape(name) + r"\b", l)]
        if name == DEFINE_DEVICE_VARIABLE and uses and not any(
                re.search(r"@" + name + r"\b", l) for f, body in functions.items()
                if f not in binders for l in body[1]):
            continue  # only where emucc binds a variable: a launcher may not allocate with it
        use = next((l for l in uses if where(l) != source), uses[0] if uses else "")
        what = "the compiler intrinsic" if name.startswith("llvm.") else "calling or using"
        located.append("%s: %s '%s' is not allowed in a kernel.cu (course/confine_allowlist.txt lists what is)"
                       % (where(use), what, shown(p)))
    # those with a line first: the first reason is the one the gradebook shows
    return reasons + sorted(located, key=lambda r: (not r.startswith(source + ":"), located.index(r)))


# ---------------------------------------------------------------------------------------------------------------
# The object file
# ---------------------------------------------------------------------------------------------------------------
def tool(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, errors="replace")
    if proc.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd), proc.stderr.strip()[:300]))
    return proc.stdout


def library_path(name):
    for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
              "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu"):
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    return None


WEAK = "VWvwu"  # nm's kinds of weak definitions: inline functions, template instances, vtables


def protected_names(trusted_objects):
    """(strong, weak): the names the libraries and the course's own objects define strongly, and those the course's
    objects define weakly (inline and template code: lab_tests.h's helpers, std::vector<double>'s members)."""
    key = tuple(sorted(trusted_objects))
    if key not in _protected:
        strong, weak = set(), set()
        for lib in filter(None, map(library_path, LIBRARIES)):
            for l in tool(["nm", "-D", "--defined-only", lib]).splitlines():
                parts = l.split()
                if len(parts) >= 3:
                    strong.add(parts[2].split("@")[0])
        for obj in trusted_objects:
            if os.path.exists(obj):
                for l in tool(["nm", "-g", "--defined-only", obj]).splitlines():
                    parts = l.split()
                    if len(parts) >= 3:
                        (weak if parts[1] in WEAK else strong).add(parts[2])
        _protected[key] = strong, weak
    return _protected[key]


def check_object(obj, source, trusted_objects=(), contract=("matmul",), backend="emu", device_variables=False):
    """device_variables: the IR showed emucc's binding of __device__/__constant__ variables (binds_device_variables),
    the object's one constructor in .text.startup."""
    reasons = []
    object_only = OBJECT_ONLY | (NVCC_OBJECT_ONLY if backend == "gpu" else set()) | \
        ({DEFINE_DEVICE_VARIABLE} if device_variables else set())
    undefined, defined = [], []
    for l in tool(["nm", "-g", obj]).splitlines():
        parts = l.split()
        if len(parts) == 2 and parts[0] in "Uw":
            undefined.append(parts[1])
        elif len(parts) >= 3:
            defined.append((parts[1], parts[2]))
    pretty = demangle(undefined + [n for _, n in defined])
    for name in undefined:
        if name in object_only:
            continue
        if not allowed(name, pretty.get(name, name)):
            reasons.append("%s: uses '%s', which is not allowed in a kernel.cu (course/confine_allowlist.txt lists "
                           "what is)" % (source, shown(pretty.get(name, name))))
    # The course links the student's object last (toolchain.build_lab), so where both define a name weakly the
    # course's copy is the one kept; a strong definition would win over the course's weak one (a kernel.cu that
    # defines expect() would decide its own verdicts), and any definition of a library's name would replace it.
    strong, weak = protected_names(trusted_objects)
    for kind, name in defined:
        if name in contract:
            continue
        if name in strong or (kind not in WEAK and name in weak):
            reasons.append("%s: defines '%s', which the C/C++ library or the course's own code already defines "
                           "(it would replace theirs)" % (source, shown(pretty.get(name, name))))
    section, constructors = None, []
    for l in tool(["readelf", "-rW", obj]).splitlines():
        m = re.match(r"^Relocation section '\.rela?(\S+?)'", l)
        if m:
            name = m.group(1)  # .init_array.2 for a constructor of priority 2
            section = name if any(name == s or name.startswith(s + ".") for s in CTOR_SECTIONS) else None
            continue
        if section:
            fields = l.split()
            if len(fields) >= 5 and re.match(r"^[0-9a-f]{8,}$", fields[0]):
                constructors.append((section, fields[4]))
    # the GPU object's one constructor is nvcc's; the emulator's one (besides the instrumentation's), emucc's binding
    others = [t for s, t in constructors
              if s.startswith(".init_array") and (backend == "gpu" or not TRUSTED_CTORS.match(t))]
    for i, (section, target) in enumerate(constructors):
        only_startup = section == ".init_array" and target == ".text.startup" and len(others) == 1
        if not (TRUSTED_CTORS.match(target) or only_startup and (backend == "gpu" or device_variables)):
            reasons.append("%s: a static constructor or destructor (%s in %s) is not allowed"
                           % (source, shown(pretty.get(target, target)), section))
    for l in tool(["readelf", "-SW", obj]).splitlines():
        m = re.search(r"\]\s+(\.(?:ctors|dtors|preinit_array)\S*)\s", l)
        if m:
            reasons.append("%s: a static constructor or destructor (section %s) is not allowed" % (source, m.group(1)))
    return sorted(set(reasons), key=reasons.index)


def read_untrusted(path, limit):
    """Reads a file the sandbox wrote, refusing links and anything but a plain file: at most limit + 1 bytes (more
    than limit means it was too big); None if there is none."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return None
        return f.read(limit + 1)


def read_ir(path):
    """The IR file the sandboxed compiler wrote, read with a cap; None if there is none or it is too big."""
    data = read_untrusted(path, IR_MAX_BYTES)
    return None if data is None or len(data) > IR_MAX_BYTES else data.decode("utf-8", errors="replace")
