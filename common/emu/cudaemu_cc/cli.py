"""emucc — compile CUDA C++ for the CPU emulator, the way nvcc compiles it for a GPU.

    common/emu/emucc -o prog a.cu b.cpp   build a CPU program
    common/emu/emucc -c a.cu -o a.o       compile only
    flags: -I DIR, -D NAME[=VAL], -U NAME, -O0..-O3, -g, -std=c++NN, -l LIB, -L DIR, -w, -W...
    --source-name=NAME        the name diagnostics give the (one) .cu file, e.g. when compiling a staged copy
    --emit-ir=FILE            also write the LLVM IR the (one) .cu file's object is built from, for inspection
    --same-for-nvcc           refuse a .cu file whose own lines preprocess differently under nvcc's identity
                              (#ifdef CUDAEMU, __clang__, __NVCC__, ...): the kernel measured here is the GPU's
    --no-checks               no instrumentation: kernels run on the emulator uncounted and unchecked (for speed
                              comparisons only; out-of-bounds accesses then corrupt memory silently)
    --print-runtime-object    build the emulator's runtime object into its cache if missing, and print its path
    --print-libdevice         print the CUDA Toolkit's libdevice that device math links (libdevice.py), or `none`
    nvcc-only flags (-arch, -lineinfo, -Xcompiler ..., --expt-relaxed-constexpr) are accepted and ignored.

A .cu file gets the emulator treatment: the runtime header is force-included, `k<<<grid, block>>>(args)` becomes a
call into the emulator, `extern __shared__` arrays and `__device__`/`__constant__` variables are placed in shared
and device memory, and every load and store the source makes is instrumented (before any optimisation, so
counts are exact at source level). A .cpp file is ordinary host C++ that may include <cuda_runtime.h>.

Needs clang 14 or newer (Debian: clang llvm libboost-context-dev). Where LLVM's `opt` is missing, clang's own
pipeline instruments instead (same counts, slower builds); where Boost.Context is missing, fibers use glibc's
ucontext (same results, slower barriers).
Environment: CUDAEMU_CLANG (clang++ to use), CUDAEMU_CACHE (where the runtime object is built; default build/emu),
CUDAEMU_NO_OPT=1 and CUDAEMU_FIBERS=ucontext force those fallbacks, CUDAEMU_VERBOSE=1 names a failed step's command,
CUDAEMU_LIBDEVICE (libdevice.10.bc to use, or `none`: the host's libm in device code too).
"""
import os
import re
import sys

from .build import Build
from .errors import Error, SourceError, StepFailed

# nvcc's options that take a value as the next argument, and those that stand alone, all without meaning here
IGNORED_WITH_VALUE = {"-arch", "-gencode", "-Xcompiler", "-Xptxas", "-Xlinker", "--compiler-options", "-ccbin",
                      "-maxrregcount", "--std"}
IGNORED = {"-lineinfo", "--generate-line-info", "--expt-relaxed-constexpr", "--use_fast_math", "-use_fast_math"}
IGNORED_PREFIXES = ("-arch=", "--gpu-architecture", "-gencode=", "-Xcompiler=")


class Options:
    """What the command line asks for."""

    def __init__(self):
        self.sources = []               # .cu and host C++ files to compile
        self.objects = []               # .o, .a and .so files to link as they are
        self.out = None                 # -o
        self.compile_only = False       # -c
        self.std = "-std=c++17"
        self.user = []                  # -I/-D/-U/-W, passed to every compile
        self.opt_level = "-O2"
        self.debug = "-gline-tables-only"
        self.link_flags = []            # -L/-l/-Wl,
        self.source_name = None         # --source-name
        self.emit_ir = None             # --emit-ir
        self.checks = True              # --no-checks turns them off
        self.print_runtime_object = False
        self.same_for_nvcc = False      # --same-for-nvcc
        self.print_libdevice = False    # --print-libdevice


def parse_args(argv):
    """Options from emucc's arguments; Error for one it does not take, with what is wrong."""
    o = Options()
    i = 0
    while i < len(argv):
        a = argv[i]

        def value():
            nonlocal i
            if len(a) > 2 and a[:2] in ("-I", "-D", "-U", "-L", "-l", "-o"):
                return a[2:]
            i += 1
            if i >= len(argv):
                raise Error("%s needs a value" % a)
            return argv[i]
        if a in IGNORED or a.startswith(IGNORED_PREFIXES):  # first: -lineinfo is no -l
            pass
        elif a in IGNORED_WITH_VALUE:
            i += 1
        elif a == "-o" or (a.startswith("-o") and len(a) > 2):
            o.out = value()
        elif a == "-c":
            o.compile_only = True
        elif a == "--no-checks":
            o.checks = False
        elif a == "--same-for-nvcc":
            o.same_for_nvcc = True
        elif a == "--print-runtime-object":
            o.print_runtime_object = True
        elif a == "--print-libdevice":
            o.print_libdevice = True
        elif a.startswith("--source-name="):
            o.source_name = a.split("=", 1)[1]
        elif a.startswith("--emit-ir="):
            o.emit_ir = a.split("=", 1)[1]
        elif a[:2] in ("-I", "-D", "-U"):
            o.user += [a[:2], value()]
        elif a[:2] == "-L":
            o.link_flags += ["-L", value()]
        elif a[:2] == "-l":
            o.link_flags += ["-l" + value()]
        elif re.fullmatch(r"-O[0-3s]?", a):
            o.opt_level = a if a != "-O" else "-O2"
        elif a in ("-g", "-G"):
            o.debug = "-g"
        elif a.startswith("-std="):
            o.std = a
        elif a == "-w" or a.startswith("-W") and not a.startswith("-Wl,") or a == "-pedantic":
            o.user.append(a)
        elif a.startswith("-Wl,"):
            o.link_flags.append(a)
        elif a.startswith("-"):
            raise Error("unsupported option '%s' (see common/emu/emucc --help)" % a)
        elif a.endswith((".cu", ".cpp", ".cc", ".cxx", ".c")):
            if not os.path.exists(a):
                raise Error("no such file: %s" % a)
            o.sources.append(a)
        elif a.endswith((".o", ".a", ".so")):
            o.objects.append(a)
        else:
            raise Error("don't know what to do with '%s' (expected .cu, .cpp, .o or .a)" % a)
        i += 1
    if o.print_runtime_object or o.print_libdevice:
        if o.sources or o.objects:
            raise Error("%s takes no input files" % ("--print-libdevice" if o.print_libdevice else
                                                     "--print-runtime-object"))
    elif not o.sources and not o.objects:
        raise Error("no input files")
    if o.compile_only and o.out and len(o.sources) > 1:
        raise Error("-c with -o takes one source file")
    return o


def main(argv):
    """emucc with these arguments; returns its exit status, having printed what went wrong."""
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    try:
        options = parse_args(argv)
        build = Build(options)
        if options.print_libdevice:
            print(build.libdevice.path if build.libdevice.available() else "none")
        elif options.print_runtime_object:
            print(os.path.abspath(build.runtime_object()))
        else:
            build.compile_and_link(options.sources, options.objects, options.out, options.compile_only)
        return 0
    except Error as e:
        print("emucc: error: %s" % e, file=sys.stderr)
        return 1
    except SourceError as e:
        print(e, file=sys.stderr)
        return 1
    except StepFailed as e:
        if os.environ.get("CUDAEMU_VERBOSE"):
            print("emucc: %s" % e, file=sys.stderr)
        return e.returncode
