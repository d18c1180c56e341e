"""The build: compiles .cu files (source rewrite, clang to LLVM IR, instrumentation, the IR passes, optimisation)
and host C++ files, builds the emulator's runtime object once into its cache, and links."""
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile

from . import identity
from .errors import Error, SourceError
from .arithmetic import (count_flops, fuse_across_statements, fuse_device_multiply_adds, gpu_results, host_copies,
                         inline_device_functions)
from .ir import (check_vector_indices, detach_coverage_flags, device_inline_asm, name_index_checks,
                 name_shared_dimensions, raise_vector_alignment, rewrite_ir, route_by_alignment,
                 strip_stack_slot_callbacks)
from .launches import overloaded_kernels, template_kernels
from . import approx
from .libdevice import Libdevice
from .source import rewrite_source
from .toolchain import clang_major, compiler_identity, find_clang, find_tool, have_boost_context, run

EMU_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(EMU_DIR))
INCLUDE_DIR = os.path.join(EMU_DIR, "include")
# The runtime: one object built from every common/emu/*.cpp, rebuilt when any of these files changes.
# (and the JSON writer it shares with the course's harness)
RUNTIME_SOURCES = sorted([os.path.join(d, f) for d in (EMU_DIR, INCLUDE_DIR) for f in os.listdir(d)
                          if f.endswith((".cpp", ".h"))] + [os.path.join(os.path.dirname(EMU_DIR), "json_writer.h")])


def refuse_device_asm(ir):
    """Raises SourceError if a device function of the IR holds inline assembly (ir.device_inline_asm)."""
    messages = device_inline_asm(ir)
    if messages:
        raise SourceError(messages)


class Build:
    """This machine's toolchain with the command line's settings (cli.Options)."""

    def __init__(self, options):
        self.clang = find_clang()
        self.major = clang_major(self.clang)
        self.opt = None if os.environ.get("CUDAEMU_NO_OPT") else find_tool(self.clang, self.major, "opt")
        self.boost = have_boost_context(self.clang)
        self.common = [options.std, "-I", INCLUDE_DIR]
        self.user = options.user        # -I/-D/-U/-W from the command line
        self.opt_level = options.opt_level
        self.debug = options.debug
        self.dwarf = "-gdwarf-4"
        self.link_flags = options.link_flags
        self.source_name = options.source_name
        self.checks = options.checks
        self.emit_ir = options.emit_ir  # where to copy the final IR of a .cu file (--emit-ir)
        self.same_for_nvcc = options.same_for_nvcc  # --same-for-nvcc (identity.py)
        self.cache = os.environ.get("CUDAEMU_CACHE") or os.path.join(ROOT, "build", "emu")
        # CUDA's math library for device code, where the toolkit is installed (libdevice.py)
        self.libdevice = Libdevice(self.clang, self.major, self.cache, find_tool)

    def compile_and_link(self, sources, objects, out, compile_only):
        """Compiles each source (into out, or NAME.o, with compile_only) and links them with objects into out, or
        a.out."""
        tmp = tempfile.mkdtemp(prefix="emucc-")
        try:
            built = []
            for s in sources:
                if compile_only:
                    obj = out or os.path.splitext(os.path.basename(s))[0] + ".o"
                else:
                    obj = os.path.join(tmp, hashlib.sha1(s.encode()).hexdigest()[:12] + ".o")
                if s.endswith(".cu"):
                    self.compile_cu(s, obj, tmp)
                else:
                    self.compile_cpp(s, obj)
                built.append(obj)
            if not compile_only:
                self.link(built + objects, out or "a.out")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def compile_cu(self, src, obj, tmp):
        with open(src, encoding="utf-8", errors="replace") as f:
            text = f.read()
        shown = os.path.relpath(src) if not os.path.isabs(src) or os.path.abspath(src).startswith(os.getcwd()) else src
        shown = self.source_name or shown
        rewritten = os.path.join(tmp, hashlib.sha1(src.encode()).hexdigest()[:12] + ".cu.cpp")
        headers = self.own_headers(src)
        # launches by name that leave the kernel to the arguments: the template kernels and the overloaded ones of the
        # whole translation unit (a launch in one file may name a kernel of another)
        deduced = set(template_kernels(text)).union(*(template_kernels(t) for _, t in headers))
        deduced |= overloaded_kernels("\n".join([text] + [t for _, t in headers]))
        with open(rewritten, "w") as f:
            f.write('#line 1 "%s"\n' % shown.replace("\\", "/"))
            compiled = rewrite_source(shown, text, deduced)
            f.write(compiled)
        front = rewritten + ".front.ll"  # what clang's front end makes of it
        ll = rewritten + ".ll"
        base = [self.clang] + self.common + ["-iquote", os.path.dirname(os.path.abspath(src))] + self.user
        base += self.header_overlay(headers, tmp, deduced)
        if self.same_for_nvcc:
            identity.check(self.clang, base[1:], rewritten, shown.replace("\\", "/"))
        # No tail calls: a __syncthreads() that ends one path of a kernel (`__syncthreads(); if (tid == 0) out[b] = s;`
        # duplicated into both paths) would return to the kernel's caller, and seem to be another barrier.
        # Locals left uninitialised start as a pattern (floats: NaN), never as the 0 a fresh stack happens to hold
        # here: `float sum;` without `= 0` gives wrong results, as it does on a GPU, not right ones by luck.
        # With the checks, each index into an array of known size is checked against its own dimension
        # (ir.name_index_checks): `As[s][k][130]` is found even where the address stays inside As.
        # Multiply-adds are fused by emucc's own pass, which fuses as nvcc does (arithmetic.fuse_across_statements).
        run(base + ["-include", "cuda_runtime.h", "-x", "c++", "-O1", "-Xclang", "-disable-llvm-passes",
                    "-ffp-contract=off", "-ftrivial-auto-var-init=pattern"] + (["-fsanitize=array-bounds"] if self.checks else []) + [
                    "-fno-optimize-sibling-calls", self.debug, self.dwarf, "-fdebug-prefix-map=%s=." % os.getcwd(),
                    "-emit-llvm", "-S", rewritten, "-o", front],
            "compile")
        with open(front) as f:
            ir = f.read()
        if self.checks:
            # vector copies aligned as their type before sroa splits them (ir.raise_vector_alignment), and checked
            # against the dimension of the element they start at (ir.check_vector_indices)
            ir = check_vector_indices(raise_vector_alignment(ir))
        # Host code calls host copies of __host__ __device__ functions; device functions are inlined where nvcc
        # inlines them (everywhere but __noinline__), before the multiply-adds are fused (arithmetic.py)
        ir = host_copies(ir)
        if self.opt:
            ir = inline_device_functions(ir)
        with open(front, "w") as f:
            f.write(ir)
        if self.opt:
            # Inlined, then registers (sroa), then with the checks one callback before every remaining load and
            # store; optimised later, after the IR passes.
            run([self.opt, "-passes=always-inline,function(sroa)" + (",sancov-module" if self.checks else "")] +
                (["-sanitizer-coverage-level=1", "-sanitizer-coverage-inline-bool-flag",
                  "-sanitizer-coverage-trace-loads", "-sanitizer-coverage-trace-stores"] if self.checks else []) +
                [front, "-S", "-o", ll], "instrument" if self.checks else "registers")
        elif self.checks:
            run([self.clang, "-O0", "-Xclang", "-disable-O0-optnone", "-Wno-override-module",
                 "-fsanitize-coverage=inline-bool-flag,trace-loads,trace-stores", "-S", "-emit-llvm", front, "-o", ll],
                "instrument")
        else:
            shutil.copyfile(front, ll)
        with open(ll) as f:
            ir = f.read()
        refuse_device_asm(ir)
        if not self.checks:
            unrouted = gpu_results(fuse_across_statements(fuse_device_multiply_adds(ir)))
            ir, math = self.libdevice.use(unrouted)
            with open(ll, "w") as f:
                f.write(ir)
            if math:
                self.libdevice.link(ll, unrouted)
            if self.emit_ir:
                shutil.copyfile(ll, self.emit_ir)
            run([self.clang, self.opt_level, "-Wno-override-module", "-c", ll, "-o", obj], "optimise")
            return
        if not self.opt:
            ir = strip_stack_slot_callbacks(ir)
        with open(ll, "w") as f:
            ir = detach_coverage_flags(rewrite_ir(route_by_alignment(ir)))
            ir = gpu_results(count_flops(fuse_across_statements(fuse_device_multiply_adds(ir))))
            unrouted = name_shared_dimensions(name_index_checks(ir, shown.replace("\\", "/"), compiled))
            ir, math = self.libdevice.use(unrouted)
            f.write(ir)
        if math:
            self.libdevice.link(ll, unrouted)
        if self.emit_ir:
            shutil.copyfile(ll, self.emit_ir)
        # Identical calls in an if and its else must stay apart: merged callbacks would lose their source lines,
        # and two __syncthreads() merged into one would hide a divergent barrier.
        run([self.clang, self.opt_level, "-Wno-override-module", "-mllvm", "-sink-common-insts=false", "-mllvm",
             "-simplifycfg-hoist-common=false", "-c", ll, "-o", obj], "optimise")

    def own_headers(self, src):
        """[(path, text)]: the headers a .cu file includes that are its own (not system headers, not the
        emulator's)."""
        deps = subprocess.run([self.clang] + self.common + self.user +
                              ["-include", "cuda_runtime.h", "-x", "c++", "-MM", "-MG", src],
                              capture_output=True, text=True)
        if deps.returncode != 0:
            return []  # the compile itself reports what is wrong
        paths = deps.stdout.replace("\\\n", " ").split(":", 1)[-1].split()
        headers = []
        for header in paths[1:]:  # the first is the .cu itself
            full = os.path.abspath(header)
            if full.startswith(INCLUDE_DIR + os.sep) or not os.path.isfile(full):
                continue
            with open(full, encoding="utf-8", errors="replace") as f:
                headers.append((full, f.read()))
        return headers

    def header_overlay(self, headers, tmp, deduced=()):
        """A .cu file's own headers (own_headers) get the .cu's treatment too: launches rewritten, unsupported
        constructs refused with the header's file:line. Rewritten copies replace them through a virtual file system
        overlay, so that includes resolve and diagnostics name them as before. Returns the flags that add the
        overlay (none when no header needs rewriting)."""
        directories = {}
        for full, text in headers:
            rewritten = rewrite_source(os.path.relpath(full) if full.startswith(os.getcwd()) else full, text,
                                       deduced)
            if rewritten == text:
                continue
            copy = os.path.join(tmp, "overlay-%d-%s" % (len(directories), os.path.basename(full)))
            with open(copy, "w") as f:
                f.write(rewritten)
            directories.setdefault(os.path.dirname(full), []).append(
                {"type": "file", "name": os.path.basename(full), "external-contents": copy})
        if not directories:
            return []
        overlay = os.path.join(tmp, "overlay.yaml")
        with open(overlay, "w") as f:
            json.dump({"version": 0, "use-external-names": False,
                       "roots": [{"type": "directory", "name": d, "contents": c} for d, c in directories.items()]}, f)
        return ["-ivfsoverlay", overlay]

    def compile_cpp(self, src, obj):
        # A .c file is C, as nvcc hands it to the host's C compiler (`int new;` and malloc without a cast are C)
        common = ["-x", "c", "-std=gnu17"] + self.common[1:] if src.endswith(".c") else self.common
        # __FILE__ (named in diagnostics, e.g. where an allocation was made) relative to the working directory
        run([self.clang] + common + self.user + [self.opt_level, self.debug, self.dwarf,
                                                      "-ffile-prefix-map=%s/=" % os.getcwd(), "-c", src, "-o", obj],
            "compile")

    def runtime_object(self):
        """The emulator's runtime object, built into the cache ($CUDAEMU_CACHE, else build/emu) if missing; its path.
        Named by a hash of the compiler's identity, the fiber kind and every runtime source, so a change rebuilds
        it."""
        cache = self.cache
        os.makedirs(cache, exist_ok=True)
        # named by the compiler's identity, never by the path string that found it: the grader and its sandbox may
        # reach the same clang++ through different PATHs
        h = hashlib.sha1((compiler_identity(self.clang) + (" boost" if self.boost else " ucontext")).encode())
        for p in RUNTIME_SOURCES:
            with open(p, "rb") as f:
                h.update(f.read())
        obj = os.path.join(cache, "runtime-%s.o" % h.hexdigest()[:16])
        if os.path.exists(obj):
            return obj
        with open(os.path.join(cache, ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not os.path.exists(obj):
                partial = obj + ".%d.tmp" % os.getpid()
                flags = self.common + ([] if self.boost else ["-DCUDAEMU_UCONTEXT"]) + ["-O2", "-g", "-Wall"]
                parts = [(p, "%s.%s.o" % (partial, os.path.basename(p))) for p in RUNTIME_SOURCES if p.endswith(".cpp")]
                jobs = [(subprocess.Popen([self.clang] + flags + ["-c", p, "-o", o]), p) for p, o in parts]
                failed = [p for proc, p in jobs if proc.wait() != 0]
                if failed:
                    raise Error("the emulator's runtime did not compile: %s"
                                % ", ".join(os.path.relpath(p) for p in failed))
                # one relocatable object, so that a program links with a single runtime file
                run([self.clang, "-r", "-o", partial] + [o for _, o in parts], "runtime")
                for _, o in parts:
                    os.remove(o)
                os.replace(partial, obj)
        return obj

    def link(self, objs, out):
        # the tables of the GPU's approximations (approx.py), for a program whose device math uses them
        tables = ([approx.archive(self.clang, self.cache, lambda: approx.find_archiver(self.clang, self.major,
                                                                                    find_tool))]
                  if approx.referenced(objs) else [])
        run([self.clang, "-o", out] + objs + [self.runtime_object()] + tables + self.link_flags +
            (["-lboost_context"] if self.boost else []) + ["-pthread", "-ldl"], "link")
