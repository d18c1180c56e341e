"""The two backends and their toolchains: nvcc for a GPU, emucc for the CPU emulator.

Every command line that compiles or links a lab is built here (Toolchain.compile, Toolchain.link), and every
object the course builds from its own sources is cached under build/<backend>/obj and rebuilt when a source it
depends on changes. A student's kernel is always rebuilt, into its own folder, and checked by confine.py before
anything runs it; with a sandbox (sandbox.py) it is compiled and linked inside it.
"""
import functools
import os
import re
import shutil
import subprocess
import threading

from . import confine
from .labs import Lab
from .paths import EMUCC, ROOT
from .runner import parse_test_list, test_env


class BuildError(Exception):
    pass


class Refused(BuildError):
    """kernel.cu compiled, but uses something a kernel may not (course/confine.py)."""


def say(message):
    print(message, flush=True)


def pristine_labs():
    """The labs/ folder as committed (git HEAD), unpacked under build/pristine/: what the course's own tests use for
    skeletons and blank answers files, so that they never depend on a student's work in labs/. Where there is no
    git history (the student handout, an unpacked release), labs/ itself."""
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "-q", "HEAD:labs"], capture_output=True,
                          text=True)  # the committed labs/ folder's tree: a new copy only when labs/ changes
    top = subprocess.run(["git", "-C", ROOT, "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if head.returncode != 0 or os.path.realpath(top.stdout.strip() or "/nonexistent") != os.path.realpath(ROOT):
        return os.path.join(ROOT, "labs")
    where = os.path.join(ROOT, "build", "pristine", head.stdout.strip())
    if not os.path.isdir(os.path.join(where, "labs")):
        partial = "%s.%d-%d.tmp" % (where, os.getpid(), threading.get_ident())
        shutil.rmtree(partial, ignore_errors=True)
        os.makedirs(partial)
        archive = subprocess.run(["git", "-C", ROOT, "archive", "--format=tar", "HEAD", "labs"], capture_output=True)
        if archive.returncode != 0:
            raise SystemExit("course: git archive HEAD labs failed: %s" % archive.stderr.decode(errors="replace"))
        subprocess.run(["tar", "-x", "-C", partial], input=archive.stdout, check=True)
        try:
            os.rename(partial, where)
        except OSError:  # another process unpacked the same commit first
            shutil.rmtree(partial, ignore_errors=True)
    return os.path.join(where, "labs")


def skeleton(lab):
    """The lab's untouched kernel.cu (see pristine_labs)."""
    return os.path.join(pristine_labs(), lab, "kernel.cu")


def gpu_status():
    """(usable, reason)"""
    if not shutil.which("nvcc"):
        return False, "nvcc is not on the PATH"
    if not shutil.which("nvidia-smi"):
        return False, "no NVIDIA driver: nvidia-smi not found"
    proc = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    if proc.returncode != 0 or "GPU" not in proc.stdout:
        return False, "nvidia-smi finds no GPU"
    return True, proc.stdout.splitlines()[0].strip()


def choose_backend(requested):
    backend, why = choose_backend_saying_why(requested)
    if why:
        say("backend: %s (%s)" % ("GPU" if backend == "gpu" else "CPU emulator", why))
    return backend


def choose_backend_saying_why(requested):
    """(backend, why): why is empty when `requested` chose it, else what was found ('no NVIDIA driver ...')."""
    if requested:
        if requested not in ("gpu", "emu"):
            raise SystemExit("course: BACKEND must be gpu or emu, not '%s'" % requested)
        if requested == "gpu":
            ok, reason = gpu_status()
            if not ok:
                raise SystemExit("course: BACKEND=gpu but no GPU is usable: %s" % reason)
        return requested, ""
    ok, reason = gpu_status()
    return ("gpu", reason) if ok else ("emu", "%s; BACKEND=gpu|emu to choose" % reason)


def newer(target, sources):
    if not os.path.exists(target):
        return True
    t = os.path.getmtime(target)
    return any(os.path.getmtime(s) > t for s in sources)


def run_build(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise BuildError((proc.stdout + proc.stderr).strip() or "build failed: " + " ".join(cmd))
    return proc


def cuda_arch():
    return os.environ.get("CUDA_ARCH", "native")


def compile_command(backend, source, out, includes=(), shown_as=None, emit_ir=None):
    """The one command line that compiles a CUDA or C++ source for `backend` (emucc or nvcc)."""
    inc = sum((["-I", d] for d in includes), [])
    if backend == "emu":
        # a student's kernel (the one whose IR is checked) must also be the same kernel for nvcc (emucc's
        # --same-for-nvcc): no #ifdef CUDAEMU choosing what the emulator measures
        return ([EMUCC, "-O2", "-c", source, "-o", out] + inc + (["--source-name=" + shown_as] if shown_as else [])
                + (["--emit-ir=" + emit_ir, "--same-for-nvcc"] if emit_ir else []))
    return ["nvcc", "-O2", "-std=c++17", "-arch=" + cuda_arch(), "-c", source, "-o", out] + inc


def link_command(backend, objs, out):
    """The one command line that links objects into a program for `backend`."""
    if backend == "emu":
        return [EMUCC, "-o", out] + list(objs)
    return ["nvcc", "-arch=" + cuda_arch(), "-o", out] + list(objs)


OBJECT_LOCKS = {}
OBJECT_LOCKS_GUARD = threading.Lock()


class Toolchain:
    """Compiles for one backend; shared objects are built once and reused for every kernel. With a sandbox
    (course/sandbox.py), the student's kernel is compiled and linked inside it; the course's own sources never are,
    so `prebuild` them first."""

    def __init__(self, backend, sandbox=None):
        self.backend = backend
        self.sandbox = sandbox
        self.dir = os.path.join(ROOT, "build", backend)
        os.makedirs(os.path.join(self.dir, "obj"), exist_ok=True)
        headers = [os.path.join(ROOT, "common", h) for h in os.listdir(os.path.join(ROOT, "common")) if h.endswith(".h")]
        emu_dir = os.path.join(ROOT, "common", "emu")
        emu = [os.path.join(d, f) for d in (emu_dir, os.path.join(emu_dir, "include")) for f in os.listdir(d)
               if f.endswith((".cpp", ".h"))]
        driver = os.path.join(emu_dir, "cudaemu_cc")  # emucc's code
        emu += [os.path.join(driver, f) for f in os.listdir(driver) if f.endswith(".py")]
        self.deps = headers + (emu + [EMUCC] if backend == "emu" else [])

    def run_untrusted(self, cmd):
        if not self.sandbox:
            return run_build(cmd)
        outcome = self.sandbox.run(cmd)
        if outcome.returncode != 0 or outcome.limit:
            why = "stopped by the sandbox's %s" % outcome.limit if outcome.limit else "build failed"
            raise BuildError(((outcome.stdout + outcome.stderr).strip() + "\n" + why).strip())

    def compile(self, source, obj, includes, shown_as=None, untrusted=False):
        def command(out):
            return compile_command(self.backend, source, out, includes, shown_as,
                                   emit_ir=ir_of(out) if untrusted and self.backend == "emu" else None)

        os.makedirs(os.path.dirname(obj), exist_ok=True)
        if untrusted:  # the student's kernel: always rebuilt, into its own folder
            self.run_untrusted(command(obj))
            self.confine(obj, shown_as or source)
            return obj
        # Labs are built in parallel threads that share objects such as harness.o: one thread builds each object,
        # into a temporary name, so no link ever reads a half-written file.
        with OBJECT_LOCKS_GUARD:
            lock = OBJECT_LOCKS.setdefault(obj, threading.Lock())
        with lock:
            if newer(obj, [source] + self.deps):
                partial = "%s.%d-%d.tmp.o" % (obj, os.getpid(), threading.get_ident())  # unique across processes too
                run_build(command(partial))
                os.replace(partial, obj)
        return obj

    def confine(self, obj, shown_as):
        """Refuses a student's object that could act outside the computation (course/confine.py); this runs here,
        outside any sandbox, on what the trusted compiler built."""
        trusted = [os.path.join(self.dir, "obj", n) for n in ("harness.o", "reference_gemm.o", "doctest_main.o")]
        trusted += [os.path.join(self.dir, "obj", f) for f in os.listdir(os.path.join(self.dir, "obj"))
                    if f.endswith(("-tests.o", "-demo.o"))]  # every lab's tests and demo: lab_tests.h's helpers
        if self.backend == "emu":
            ir = confine.read_ir(ir_of(obj))
            if ir is None:
                raise Refused("%s: the compiler left no readable IR to check" % shown_as)
            trusted.append(runtime_object())
            reasons = confine.check_ir(ir, shown_as)
            device_variables = confine.binds_device_variables(ir)
        else:
            reasons, device_variables = [], False
        if not os.path.isfile(obj) or os.path.islink(obj):
            raise Refused("%s: the compiler left no object file" % shown_as)
        # the object is checked too (the GPU build has no IR); where the IR already says why, that is enough
        reasons = reasons or confine.check_object(obj, shown_as, trusted, backend=self.backend,
                                                     device_variables=device_variables)
        if reasons:
            raise Refused("\n".join(dict.fromkeys(reasons)))

    def link(self, objs, out):
        """Links a program with the student's kernel: in the sandbox, when there is one."""
        self.run_untrusted(link_command(self.backend, objs, out))
        return out

    def prebuild(self, lab):
        """Builds the course's objects for `lab` (and, on the emulator, its runtime) from trusted sources."""
        common, lab_dir = os.path.join(ROOT, "common"), os.path.join(ROOT, "labs", lab)
        self.compile(os.path.join(lab_dir, "tests.cpp"), os.path.join(self.dir, "obj", lab + "-tests.o"),
                     [common, lab_dir])
        for name in ("harness.cpp", "reference_gemm.cpp", "doctest_main.cpp"):
            self.common_object(name, lab)
        if self.backend == "emu":
            runtime_object()

    def common_object(self, name, lab):
        # demo.cpp and the lab tests include lab.h, so their objects are per lab; the rest are shared
        per_lab = name in ("demo.cpp",)
        obj = os.path.join(self.dir, "obj", (lab + "-" if per_lab else "") + name.replace(".cpp", ".o"))
        return self.compile(os.path.join(ROOT, "common", name), obj, [os.path.join(ROOT, "common"),
                                                                      os.path.join(ROOT, "labs", lab)])

    def build_lab(self, lab, kernel, out_dir, shown_as=None, with_demo=True, prebuilt=None):
        """Builds the lab's test binary (and demo) against `kernel`; returns {name: path}. Diagnostics name the
        kernel `shown_as` (default: its path). With `prebuilt`, the kernel's object the course built (a pitfall
        in the handout) is linked instead, and `kernel` is not compiled."""
        common = os.path.join(ROOT, "common")
        lab_dir = os.path.join(ROOT, "labs", lab)
        includes = [common, lab_dir]
        tests_obj = self.compile(os.path.join(lab_dir, "tests.cpp"), os.path.join(self.dir, "obj", lab + "-tests.o"),
                                 includes)
        os.makedirs(out_dir, exist_ok=True)
        kernel_obj = os.path.join(out_dir, "kernel.o")
        if os.path.exists(kernel_obj):
            os.remove(kernel_obj)  # always rebuilt: the kernel is what changes
        if prebuilt:
            shutil.copyfile(prebuilt, kernel_obj)
        else:
            self.compile(kernel, kernel_obj, includes, shown_as, untrusted=True)
        shared = [self.common_object(n, lab) for n in ("harness.cpp", "reference_gemm.cpp")]
        # the student's object last: where it and the course's objects both hold a weak (inline, template) copy of a
        # name, the linker keeps the first, the course's (confine.check_object refuses strong ones)
        bins = {"tests": self.link([tests_obj, self.common_object("doctest_main.cpp", lab)] + shared + [kernel_obj],
                                   os.path.join(out_dir, "tests"))}
        program = Lab(lab).demo_program
        if not with_demo:
            pass
        elif program == "demo":  # common/demo.cpp: the harness runs matmul on the demo's problem
            bins["demo"] = self.link([self.common_object("demo.cpp", lab)] + shared + [kernel_obj],
                                     os.path.join(out_dir, "demo"))
        else:  # a program of the lab's own, linked with the kernel alone (lab 1's host_flow.cu)
            name = os.path.splitext(program)[0]
            own = self.compile(os.path.join(lab_dir, program), os.path.join(out_dir, name + ".o"), includes)
            bins["demo"] = self.link([own, kernel_obj], os.path.join(out_dir, name))
        return bins


    def test_cases(self, lab):
        """[(name, suite)] of the lab's tests, from the course's own test program (built with the lab's skeleton,
        run outside any sandbox): the cases a submission is graded on, whatever its own program claims."""
        key = (self.backend, lab)
        with OBJECT_LOCKS_GUARD:
            lock = OBJECT_LOCKS.setdefault(key, threading.Lock())
        with lock:
            if key not in TEST_CASES:
                common, lab_dir = os.path.join(ROOT, "common"), os.path.join(ROOT, "labs", lab)
                objs = [self.compile(os.path.join(lab_dir, "tests.cpp"), os.path.join(self.dir, "obj", lab + "-tests.o"),
                                     [common, lab_dir]),
                        self.common_object("doctest_main.cpp", lab),
                        self.common_object("harness.cpp", lab), self.common_object("reference_gemm.cpp", lab),
                        self.compile(skeleton(lab), os.path.join(self.dir, "obj", lab + "-skeleton.o"),
                                     [common, lab_dir])]
                lister = os.path.join(self.dir, "obj", lab + "-cases")
                if newer(lister, objs):
                    partial = "%s.%d-%d.tmp" % (lister, os.getpid(), threading.get_ident())
                    run_build(link_command(self.backend, objs, partial))
                    os.replace(partial, lister)
                proc = subprocess.run([lister, "--list-test-cases", "--reporters=xml"], capture_output=True, text=True,
                                      timeout=120, env=test_env())
                TEST_CASES[key] = parse_test_list(proc.stdout, lister)
            return TEST_CASES[key]


TEST_CASES = {}


def ir_of(obj):
    return os.path.splitext(obj)[0] + ".ll"


@functools.lru_cache(maxsize=None)
def runtime_object():
    """The emulator's runtime object, built by emucc into its cache (build/emu) if missing; returns its path. Asked
    once per process: every student kernel's confinement check needs it, and emucc hashes the runtime's sources to
    name it."""
    out = run_build([EMUCC, "--print-runtime-object"]).stdout.strip().splitlines()
    if not out or not os.path.isfile(out[-1]):
        raise BuildError("emucc --print-runtime-object printed no object")
    return out[-1]


def shown_path(kernel, lab):
    """The kernel's name in diagnostics: its path from here, or <lab>/kernel.cu for one elsewhere (a student's);
    printable, and safe inside the #line directive emucc writes."""
    rel = os.path.relpath(kernel, os.getcwd())
    if rel.startswith(".."):
        rel = os.path.join(lab, "kernel.cu")
    text = os.fsencode(rel).decode("utf-8", errors="replace")
    return re.sub(r'["\\\x00-\x1f\x7f]', "_", text)


def staged_kernel(kernel, out_dir):
    """A copy of the kernel alone in a folder, so its #include "lab.h" finds the frozen contract, not a copy
    shipped beside it. Diagnostics then name this copy."""
    os.makedirs(out_dir, exist_ok=True)
    staged = os.path.join(out_dir, "kernel.cu")
    shutil.copyfile(kernel, staged)
    return staged


