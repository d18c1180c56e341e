"""The source rewrite: what a .cu file (and each header of its own that it includes, see build.Build.header_overlay)
becomes before clang compiles it as C++ with the emulator's runtime header. Never adds or removes a newline, so
diagnostics and the emulator's reports name the lines the student wrote.

    unsupported constructs   refused, each with file:line (UNSUPPORTED)
    alignas, memory          declarations.py: hoist_alignas, rewrite_memory_declarations
    extended lambdas         `[...] __device__ (...)` loses its __device__
    __noinline__             __attribute__((noinline)) (rewrite_noinline)
    static __shared__        __shared__, which is static here already (drop_static_of_shared)
    gridDim, blockDim, ...   a variable of the program's own with a built-in variable's name (rename_builtin_variables)
    launches                 launches.py: rewrite_launches, rewrite_cooperative_launches
    __CUDA_ARCH__            compared as an H100's in #if and #elif (rewrite_arch_comparisons), defined in device-only
                             functions (device_arch_in_device_bodies)
"""
import re

from .declarations import hoist_alignas, rewrite_memory_declarations
from .errors import SourceError
from .launches import rewrite_cooperative_launches, rewrite_launches
from .scan import apply_edits, block_start, code_mask, line_of, statement_start

# (pattern, why): what the emulator cannot run, found in code (not in comments or strings)
UNSUPPORTED = [
    (r"\basm\s*(volatile\s*)?\(", "inline PTX (asm) is not supported by the CPU emulator"),
    (r"\b__cluster_dims__\b", "thread block clusters are not supported by the CPU emulator"),
    (r"\b__(shfl|shfl_up|shfl_down|shfl_xor|any|all|ballot)\s*\(",
     "warp functions without _sync (__shfl, __any, __ballot, ...) do not exist on Volta and newer GPUs, and are "
     "not supported by the CPU emulator; use the _sync forms with a mask (__shfl_sync(0xffffffff, ...))"),
]


def rewrite_source(path, text, deduced=()):
    """text, the contents of the file shown as path, rewritten for the emulator. Raises SourceError with one
    `path:line: error: ...` line for each construct it cannot take, all of them at once. `deduced`: the template
    kernels of the translation unit (launches.template_kernels), whose launches by name deduce their arguments."""
    mask = code_mask(text)
    errors = []
    for pattern, why in UNSUPPORTED:
        for m in re.finditer(pattern, text):
            if mask[m.start()]:
                errors.append("%s:%d: error: %s" % (path, line_of(text, m.start()), why))
    text = hoist_alignas(text, mask)
    mask = code_mask(text)
    text = rewrite_memory_declarations(path, text, mask, errors)
    text = drop_lambda_device(text)
    text = rewrite_noinline(text)
    text = drop_static_of_shared(text)
    text = rename_builtin_variables(text)
    text = rewrite_launches(path, text, errors, deduced)
    if errors:
        raise SourceError(errors)
    return rewrite_arch_comparisons(device_arch_in_device_bodies(rewrite_cooperative_launches(text)))


# The built-in variables are macros here (cuda_runtime.h: `#define gridDim (::cudaemu::grid_dim())`); under nvcc they
# are variables, which a program's own variable of the same name hides: `dim3 gridDim(n / 64), blockDim(64);` in
# host code, then `kernel<<<gridDim, blockDim>>>(...)`. Such a variable (or parameter) is renamed, with its uses,
# from its declaration to the end of the block (or function) it is declared in.
BUILTIN_VARIABLES = ("threadIdx", "blockIdx", "blockDim", "gridDim")
NOT_A_TYPE = {"return", "case", "sizeof", "new", "delete", "throw", "else", "do", "goto", "typedef", "using",
              "decltype", "alignof", "co_return", "co_yield", "co_await"}


def rename_builtin_variables(text):
    mask = code_mask(text)
    names = "|".join(BUILTIN_VARIABLES)
    edits = []
    for m in re.finditer(r"\b(%s)\b" % names, text):
        if not mask[m.start()] or not declares(text, mask, m.start()):
            continue
        end = scope_end(text, mask, m.start())
        if end is None:
            continue  # at namespace scope: nvcc refuses that as a redefinition too
        for use in re.finditer(r"\b%s\b" % m.group(1), text[m.start():end]):
            at = m.start() + use.start()
            before = text[max(0, at - 256):at].rstrip()  # a window: what precedes a name is near it
            if mask[at] and not before.endswith((".", "->", "::")):
                edits.append((at, at + len(m.group(1)), "cudaemu_own_" + m.group(1)))
    return apply_edits(text, sorted(set(edits)))


def declares(text, mask, at):
    """Whether the name at `at` is declared there: after a type (`dim3 gridDim`, `const dim3& blockDim`), or after a
    comma of a dim3 declaration (`dim3 gridDim(8), blockDim(64);`), and before what ends a declarator."""
    if not re.match(r"\w+\s*[(=;,{\[)]", text[at:at + 80]):
        return False
    before = text[max(0, at - 256):at].rstrip()
    word = re.search(r"\b([A-Za-z_]\w*)$", before)
    if word:
        return word.group(1) not in NOT_A_TYPE
    if re.search(r"\b(?:dim3|uint3)\s*(?:const\s*)?[*&]+$", before):  # `a * gridDim` is a product
        return True
    if before.endswith(","):
        start = statement_start(text, mask, at)
        if start is None:
            return False
        head = "".join(c if code else " " for c, code in zip(text[start:at], mask[start:at]))  # comments out
        depth = sum({"(": 1, ")": -1, "{": 1, "}": -1}.get(c, 0) for c in head)
        return depth == 0 and bool(re.match(r"\s*(?:const\s+)?(?:dim3|uint3)\s+\w+", head))
    return False


def scope_end(text, mask, at):
    """Where the block holding the declaration at `at` ends (its `}`), for a parameter the end of its function's
    body (or of its declaration); None at namespace scope."""
    depth, i = 0, at
    parens = 0
    start = statement_start(text, mask, at) or 0
    for k in range(start, at):
        if mask[k]:
            parens += {"(": 1, ")": -1}.get(text[k], 0)
    if parens > 0:  # a parameter: to the end of the function's body, or of the declaration
        while i < len(text) and parens > 0:
            if mask[i]:
                parens += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        nxt = re.match(r"[^;{]*", text[i:]).end() + i
        if nxt >= len(text) or text[nxt] == ";":
            return nxt
        i = nxt + 1
        depth = 1
        while i < len(text) and depth:
            if mask[i]:
                depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        return i
    if block_start(text, mask, at) is None:
        return None
    depth, i = 0, at
    while i < len(text):
        if mask[i]:
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth < 0:
                    return i
        i += 1
    return len(text)


def rewrite_noinline(text):
    """CUDA's `__noinline__` (`__device__ __noinline__ float f()`) as the attribute it stands for. Not a macro in the
    runtime header: libstdc++ writes `__attribute__((__noinline__))`, which such a macro would break; the source's own
    `__attribute__((__noinline__))` stays as it is."""
    mask = code_mask(text)
    return re.sub(r"(?<![(,]\s)(?<![(,])\b__noinline__\b",
                  lambda m: "__attribute__((noinline))" if mask[m.start()] else m.group(0), text)


def drop_static_of_shared(text):
    """`static __shared__ T s[32];` (a device function's block-wide buffer, as blog reductions write it): under nvcc
    the same variable as without `static`; here `__shared__` is `static thread_local`, and a second `static` would be
    warned about as a duplicate. The word becomes spaces, so that columns stay put."""
    mask = code_mask(text)
    text = re.sub(r"\bstatic(\s+__shared__)\b", lambda m: " " * 6 + m.group(1) if mask[m.start()] else m.group(0), text)
    return re.sub(r"(\b__shared__\s+)static\b", lambda m: m.group(1) + " " * 6 if mask[m.start()] else m.group(0), text)


def drop_lambda_device(text):
    """An extended lambda's `[...] __device__ (...)`: no attribute may stand there in C++17, and the lambda needs
    none."""
    mask = code_mask(text)
    return re.sub(r"\](\s*)(?:__host__\s+)?__device__\b(?:\s+__host__\b)?",
                  lambda m: "]" + m.group(1) if mask[m.start()] else m.group(0), text)


# nvcc compiles device code with __CUDA_ARCH__ set to the target (900 for sm_90) and host code without it; here both
# are one pass. A comparison of __CUDA_ARCH__ with a number in #if/#elif (the guard of a feature's device code,
# `#if __CUDA_ARCH__ >= 700`) is evaluated for the device the emulator stands for, an H100: 900. Inside the body of
# a function that only device code runs (__global__, or __device__ without __host__), __CUDA_ARCH__ is defined, as
# under nvcc: `#ifdef __CUDA_ARCH__` holds there, and the name is 900 (device_arch_in_device_bodies). Elsewhere
# `#ifdef __CUDA_ARCH__` and `defined(__CUDA_ARCH__)` stay false: the host path, in a __host__ __device__ function
# too, which is compiled once here.
CUDA_ARCH = "900"


def device_only_bodies(text, mask):
    """[(start, end)] of the bodies (`{` to `}`) of the functions declared __global__, or __device__ without
    __host__."""
    spans = []
    for m in re.finditer(r"\b(?:__global__|__device__)\b", text):
        if not mask[m.start()] or (spans and m.start() < spans[-1][1]):
            continue
        depth, j, parameters = 0, m.end(), False
        while j < len(text) and not (mask[j] and depth == 0 and text[j] in ";{="):
            if mask[j] and text[j] in "()":
                depth += 1 if text[j] == "(" else -1
                parameters = True
            j += 1
        start = statement_start(text, mask, m.start())
        if j >= len(text) or text[j] != "{" or not parameters or start is None or \
                re.search(r"\b__host__\b", text[start:j]):
            continue
        depth, k = 0, j
        while k < len(text):
            if mask[k] and text[k] in "{}":
                depth += 1 if text[k] == "{" else -1
                if depth == 0:
                    break
            k += 1
        spans.append((j, k))
    return spans


def device_arch_in_device_bodies(text):
    """In the bodies of device-only functions (see above): `#ifdef __CUDA_ARCH__` as `#if 1`, `#ifndef` as `#if 0`,
    `defined(__CUDA_ARCH__)` as 1, and the name itself as 900."""
    mask = code_mask(text)
    spans = device_only_bodies(text, mask)
    if not spans:
        return text

    def directive(line):
        line = re.sub(r"^([ \t]*#[ \t]*)ifdef[ \t]+__CUDA_ARCH__\b", r"\1if 1", line)
        line = re.sub(r"^([ \t]*#[ \t]*)ifndef[ \t]+__CUDA_ARCH__\b", r"\1if 0", line)
        line = re.sub(r"\bdefined[ \t]*(?:\([ \t]*__CUDA_ARCH__[ \t]*\)|[ \t]+__CUDA_ARCH__\b)", "1", line)
        return re.sub(r"\b__CUDA_ARCH__\b", CUDA_ARCH, line)

    out, pos = [], 0
    for start, end in spans:
        out.append(text[pos:start])
        body = text[start:end]
        out.append(re.sub(r"^[ \t]*#[^\n]*|\b__CUDA_ARCH__\b",
                          lambda m: directive(m.group(0)) if m.group(0).lstrip().startswith("#") or
                          mask[start + m.start()] else m.group(0), body, flags=re.M))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def rewrite_arch_comparisons(text):
    def directive(m):
        d = re.sub(r"\b__CUDA_ARCH__\b(?=\s*(?:[<>]=?|[=!]=))", CUDA_ARCH, m.group(0))
        return re.sub(r"((?:[<>]=?|[=!]=)\s*)__CUDA_ARCH__\b", lambda c: c.group(1) + CUDA_ARCH, d)
    return re.sub(r"^[ \t]*#[ \t]*(?:if|elif)\b(?:[^\n]*\\\n)*[^\n]*", directive, text, flags=re.M)
