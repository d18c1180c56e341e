"""--same-for-nvcc: a .cu file whose own lines preprocess differently when the compiler is nvcc is refused.

A source that asks which compiler builds it (`#ifdef CUDAEMU`, `#if defined(__clang__)`, `__NVCC__`,
`__CUDACC_VER_MAJOR__`, a macro that pastes one of them together) can give the emulator, where a course measures
traffic and checks memory safety, another kernel than the GPU runs. The file is preprocessed twice, as the emulator
builds it and with the emulator's and clang's identity taken away and nvcc's given instead (NVCC_IDENTITY, force-
included after the runtime header); the lines that come from the file itself must be the same token for token.
The first line that differs is named. Headers are not compared: the course's own are the same either way.
"""
import os
import re
import subprocess
import tempfile

from .errors import Error, SourceError

NVCC_IDENTITY = """// what nvcc 12.8 defines and clang does not, and the emulator's own mark taken away
#undef CUDAEMU
#undef __clang__
#undef __clang_major__
#undef __clang_minor__
#undef __clang_patchlevel__
#undef __clang_version__
#undef __llvm__
#undef __GNUC__
#undef __GNUC_MINOR__
#undef __GNUC_PATCHLEVEL__
#undef __VERSION__
#define __NVCC__ 1
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 8
#define __CUDACC_VER_BUILD__ 93
#define __NVCC_DIAG_PRAGMA_SUPPORT__ 1
#define __CUDA_ARCH_LIST__ 900
#define __GNUC__ 12
#define __GNUC_MINOR__ 2
#define __GNUC_PATCHLEVEL__ 0
#define __VERSION__ "12.2.0"
"""
MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"')


def own_lines(text, name):
    """{line: its tokens} for the lines of the preprocessed text that come from the file `name`."""
    lines, current, line = {}, None, 0
    for row in text.splitlines():
        m = MARKER.match(row)
        if m:
            current, line = m.group(2), int(m.group(1))
            continue
        if current == name and row.strip():
            lines[line] = " ".join(row.split())
        line += 1
    return lines


def check(clang, flags, rewritten, shown):
    """Refuses (SourceError) the rewritten .cu if its own lines differ under nvcc's identity; `flags` are the
    compile's own (standard, include folders, -D...)."""
    with tempfile.TemporaryDirectory(prefix="emucc-identity-") as tmp:
        flip = os.path.join(tmp, "nvcc_identity.h")
        with open(flip, "w") as f:
            f.write(NVCC_IDENTITY)
        outputs = []
        for extra in ([], ["-include", flip]):
            proc = subprocess.run([clang] + flags + ["-include", "cuda_runtime.h"] + extra +
                                  ["-Wno-builtin-macro-redefined", "-x", "c++", "-E", rewritten],
                                  capture_output=True, text=True, errors="replace")
            if proc.returncode != 0:
                if extra:  # it preprocesses for the emulator but not as nvcc would see it
                    raise SourceError(["%s: error: does not preprocess as it would under nvcc: it depends on "
                                       "which compiler builds it (CUDAEMU, __clang__, __NVCC__, ...); write one "
                                       "kernel for both" % shown])
                raise Error("preprocessing %s failed: %s" % (shown, proc.stderr.strip()[-300:]))
            outputs.append(own_lines(proc.stdout, shown))
    emu, nvcc = outputs
    differ = sorted(l for l in set(emu) | set(nvcc) if emu.get(l) != nvcc.get(l))
    if differ:
        raise SourceError(["%s:%d: error: this line is compiled differently for the emulator than for nvcc: the file "
                           "asks which compiler builds it (CUDAEMU, __clang__, __NVCC__, __CUDACC_VER_*, ...). The "
                           "grader measures on the emulator the kernel that the GPU runs, so write one kernel for "
                           "both" % (shown, differ[0])])
