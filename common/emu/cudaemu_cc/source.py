"""The source rewrite: what a .cu file (and each header of its own that it includes, see build.Build.header_overlay)
becomes before clang compiles it as C++ with the emulator's runtime header. Never adds or removes a newline, so
diagnostics and the emulator's reports name the lines the student wrote.

    unsupported constructs   refused, each with file:line (UNSUPPORTED)
    alignas, memory          declarations.py: hoist_alignas, rewrite_memory_declarations
    extended lambdas         `[...] __device__ (...)` loses its __device__
    __noinline__             __attribute__((noinline)) (rewrite_noinline)
    launches                 launches.py: rewrite_launches, rewrite_cooperative_launches
    __CUDA_ARCH__            compared as an H100's in #if and #elif (rewrite_arch_comparisons)
"""
import re

from .declarations import hoist_alignas, rewrite_memory_declarations
from .errors import SourceError
from .launches import rewrite_cooperative_launches, rewrite_launches
from .scan import code_mask, line_of

# (pattern, why): what the emulator cannot run, found in code (not in comments or strings)
UNSUPPORTED = [
    (r"\basm\s*(volatile\s*)?\(", "inline PTX (asm) is not supported by the CPU emulator"),
    (r"\b__cluster_dims__\b", "thread block clusters are not supported by the CPU emulator"),
    (r"\b__(shfl|shfl_up|shfl_down|shfl_xor|any|all|ballot)\s*\(",
     "warp functions without _sync (__shfl, __any, __ballot, ...) do not exist on Volta and newer GPUs, and are "
     "not supported by the CPU emulator; use the _sync forms with a mask (__shfl_sync(0xffffffff, ...))"),
]


def rewrite_source(path, text):
    """text, the contents of the file shown as path, rewritten for the emulator. Raises SourceError with one
    `path:line: error: ...` line for each construct it cannot take, all of them at once."""
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
    text = rewrite_launches(path, text, errors)
    if errors:
        raise SourceError(errors)
    return rewrite_arch_comparisons(rewrite_cooperative_launches(text))


def rewrite_noinline(text):
    """CUDA's `__noinline__` (`__device__ __noinline__ float f()`) as the attribute it stands for. Not a macro in the
    runtime header: libstdc++ writes `__attribute__((__noinline__))`, which such a macro would break; the source's own
    `__attribute__((__noinline__))` stays as it is."""
    mask = code_mask(text)
    return re.sub(r"(?<![(,]\s)(?<![(,])\b__noinline__\b",
                  lambda m: "__attribute__((noinline))" if mask[m.start()] else m.group(0), text)


def drop_lambda_device(text):
    """An extended lambda's `[...] __device__ (...)`: no attribute may stand there in C++17, and the lambda needs
    none."""
    mask = code_mask(text)
    return re.sub(r"\](\s*)(?:__host__\s+)?__device__\b(?:\s+__host__\b)?",
                  lambda m: "]" + m.group(1) if mask[m.start()] else m.group(0), text)


# nvcc compiles device code with __CUDA_ARCH__ set to the target (900 for sm_90) and host code without it; here both
# are one pass. A comparison of __CUDA_ARCH__ with a number in #if/#elif (the guard of a feature's device code,
# `#if __CUDA_ARCH__ >= 700`) is evaluated for the device the emulator stands for, an H100: 900. `#ifdef
# __CUDA_ARCH__` and `defined(__CUDA_ARCH__)`, which tell host code from device code, stay false: the host path.
CUDA_ARCH = "900"


def rewrite_arch_comparisons(text):
    def directive(m):
        d = re.sub(r"\b__CUDA_ARCH__\b(?=\s*(?:[<>]=?|[=!]=))", CUDA_ARCH, m.group(0))
        return re.sub(r"((?:[<>]=?|[=!]=)\s*)__CUDA_ARCH__\b", lambda c: c.group(1) + CUDA_ARCH, d)
    return re.sub(r"^[ \t]*#[ \t]*(?:if|elif)\b(?:[^\n]*\\\n)*[^\n]*", directive, text, flags=re.M)
