#!/usr/bin/env python3
"""labtool — build a lab's tests against a kernel, run them, and grade.

    grader/labtool.py lab lab3 [--kernel FILE] [--backend gpu|emu]     what `make lab3` runs
    grader/labtool.py grade [--submission DIR] [--backend gpu|emu]     what `make grade` runs
    grader/labtool.py pitfall --lab 3 --name NAME                      what `make pitfall` runs (grader/pitfalls.py)

Backends: `gpu` builds with nvcc and runs on the GPU; `emu` builds with tools/emucc and runs on the CPU emulator,
which also measures memory traffic and checks memory safety. Traffic and safety are always judged on the emulator,
even when the GPU runs the correctness tests. Without --backend: the GPU if one is usable, else the emulator.
"""
import argparse
import concurrent.futures
import importlib.machinery
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
import types
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape, quoteattr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import confine  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EMUCC = os.path.join(ROOT, "tools", "emucc")
# Every folder labs/labN-topic holding a lab.h is a lab; `labN` is its short name (make labN).
LABS = sorted((d for d in os.listdir(os.path.join(ROOT, "labs"))
               if re.fullmatch(r"lab\d+-[a-z0-9-]+", d) and os.path.isfile(os.path.join(ROOT, "labs", d, "lab.h"))),
              key=lambda d: int(re.match(r"lab(\d+)", d).group(1)))
SHORT = {d.split("-")[0]: d for d in LABS}


def lab_constants(lab):
    """{name: value} of the `constexpr int NAME = value;` lines of labs/<lab>/lab.h (the lab's tile shape)."""
    with open(os.path.join(ROOT, "labs", lab, "lab.h"), encoding="utf-8") as f:
        return {name: int(v) for name, v in re.findall(r"constexpr int (\w+) = (\d+);", f.read())}


def size_multiple(lab):
    """What every size must be a multiple of in this lab: N where its lab.h says "multiples of N", else 1."""
    with open(os.path.join(ROOT, "labs", lab, "lab.h"), encoding="utf-8") as f:
        m = re.search(r"multiples of (\d+)", f.read())
    return int(m.group(1)) if m else 1
# The demo's WIDTH A B after the tests: all-ones inputs, so every element should be WIDTH. Lab 2 needs a multiple
# of its tile; lab 1 runs its host_flow.cu instead.
DEMO_ARGS = {"lab2-tiled": ["32", "1", "2"]}
DEFAULT_DEMO_ARGS = ["34", "1", "2"]
# Points per lab, shared equally by the test cases of each suite. Traffic and safety are only awarded when every
# correctness case of the lab passes (hidden ones included), so a skeleton, or a kernel right on some shapes only,
# scores nothing for them: fewer bytes or a clean run are worth nothing for wrong results.
SUITE_POINTS = {"correctness": 60, "traffic": 25, "memory safety": 15}
WITHHELD = ("not awarded: traffic and memory safety points need every correctness test of %s to pass, and %d of %d "
            "failed (this test on its own passed)")
TEST_TIMEOUT_S = 120  # per test case, on top of the emulator's own CUDAEMU_TIMEOUT
# A sandboxed lab's wall-clock budget for all its test cases together, however many there are
LAB_WALL_S = int(os.environ.get("GRADE_LAB_WALL_S") or 900)


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
            raise SystemExit("labtool: git archive HEAD labs failed: %s" % archive.stderr.decode(errors="replace"))
        subprocess.run(["tar", "-x", "-C", partial], input=archive.stdout, check=True)
        try:
            os.rename(partial, where)
        except OSError:  # another process unpacked the same commit first
            shutil.rmtree(partial, ignore_errors=True)
    return os.path.join(where, "labs")


def skeleton(lab):
    """The lab's untouched kernel.cu (see pristine_labs)."""
    return os.path.join(pristine_labs(), lab, "kernel.cu")


class BuildError(Exception):
    pass


class Refused(BuildError):
    """kernel.cu compiled, but uses something a kernel may not (grader/confine.py)."""


def say(message):
    print(message, flush=True)


# ---------------------------------------------------------------------------------------------------------------
# Backends
# ---------------------------------------------------------------------------------------------------------------
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
            raise SystemExit("labtool: BACKEND must be gpu or emu, not '%s'" % requested)
        if requested == "gpu":
            ok, reason = gpu_status()
            if not ok:
                raise SystemExit("labtool: BACKEND=gpu but no GPU is usable: %s" % reason)
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


OBJECT_LOCKS = {}
OBJECT_LOCKS_GUARD = threading.Lock()


class Toolchain:
    """Compiles for one backend; shared objects are built once and reused for every kernel. With a sandbox
    (grader/sandbox.py), the student's kernel is compiled and linked inside it; the course's own sources never are,
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
        self.deps = headers + (emu + [EMUCC] if backend == "emu" else [])

    def run_untrusted(self, cmd):
        if not self.sandbox:
            return run_build(cmd)
        outcome = self.sandbox.run(cmd)
        if outcome.returncode != 0 or outcome.limit:
            why = "stopped by the sandbox's %s" % outcome.limit if outcome.limit else "build failed"
            raise BuildError(((outcome.stdout + outcome.stderr).strip() + "\n" + why).strip())

    def compile(self, source, obj, includes, shown_as=None, untrusted=False):
        inc = sum((["-I", d] for d in includes), [])

        def command(out):
            if self.backend == "emu":
                return ([EMUCC, "-O2", "-c", source, "-o", out] + inc + (["--source-name=" + shown_as] if shown_as else [])
                        + (["--emit-ir=" + ir_of(out)] if untrusted else []))
            arch = os.environ.get("CUDA_ARCH", "native")
            return ["nvcc", "-O2", "-std=c++17", "-arch=" + arch, "-c", source, "-o", out] + inc

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
        """Refuses a student's object that could act outside the computation (grader/confine.py); this runs here,
        outside any sandbox, on what the trusted compiler built."""
        trusted = [os.path.join(self.dir, "obj", n) for n in ("harness.o", "reference_gemm.o", "doctest_main.o")]
        if self.backend == "emu":
            ir = confine.read_ir(ir_of(obj))
            if ir is None:
                raise Refused("%s: the compiler left no readable IR to check" % shown_as)
            trusted.append(runtime_object())
            reasons = confine.check_ir(ir, shown_as)
        else:
            reasons = []
        if not os.path.isfile(obj) or os.path.islink(obj):
            raise Refused("%s: the compiler left no object file" % shown_as)
        # the object is checked too (the GPU build has no IR); where the IR already says why, that is enough
        reasons = reasons or confine.check_object(obj, shown_as, trusted, backend=self.backend)
        if reasons:
            raise Refused("\n".join(dict.fromkeys(reasons)))

    def link(self, objs, out):
        """Links a program with the student's kernel: in the sandbox, when there is one."""
        if self.backend == "emu":
            self.run_untrusted([EMUCC, "-o", out] + objs)
        else:
            self.run_untrusted(["nvcc", "-arch=" + os.environ.get("CUDA_ARCH", "native"), "-o", out] + objs)
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
        bins = {"tests": self.link([tests_obj, kernel_obj, self.common_object("doctest_main.cpp", lab)] + shared,
                                   os.path.join(out_dir, "tests"))}
        if not with_demo:
            pass
        elif lab != "lab1-naive":
            bins["demo"] = self.link([self.common_object("demo.cpp", lab), kernel_obj] + shared,
                                     os.path.join(out_dir, "demo"))
        elif lab == "lab1-naive":
            flow = self.compile(os.path.join(lab_dir, "host_flow.cu"), os.path.join(out_dir, "host_flow.o"), includes)
            bins["demo"] = self.link([flow, kernel_obj], os.path.join(out_dir, "host_flow"))
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
                    run_build([EMUCC, "-o", partial] + objs if self.backend == "emu" else
                              ["nvcc", "-arch=" + os.environ.get("CUDA_ARCH", "native"), "-o", partial] + objs)
                    os.replace(partial, lister)
                proc = subprocess.run([lister, "--list-test-cases", "--reporters=xml"], capture_output=True, text=True,
                                      timeout=120, env=test_env())
                root = ET.fromstring(proc.stdout[proc.stdout.find("<?xml"):])
                TEST_CASES[key] = [(tc.get("name"), tc.get("testsuite") or "") for tc in root.iter("TestCase")]
            return TEST_CASES[key]


TEST_CASES = {}


def ir_of(obj):
    return os.path.splitext(obj)[0] + ".ll"


def runtime_object():
    """The emulator's runtime object, built by tools/emucc into its cache (build/emu) if missing; returns its path."""
    loader = importlib.machinery.SourceFileLoader("emucc", EMUCC)
    emucc = types.ModuleType("emucc")
    emucc.__file__ = EMUCC
    loader.exec_module(emucc)
    return emucc.Build().runtime_object()


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


# ---------------------------------------------------------------------------------------------------------------
# Running doctest binaries one test case at a time
# ---------------------------------------------------------------------------------------------------------------
def test_env():
    env = dict(os.environ)
    env.setdefault("CUDAEMU_TIMEOUT", "60")
    return env


class SandboxLimit(Exception):
    """A sandboxed test program was stopped by one of the sandbox's limits."""


OUTPUT_CAP = 4000  # characters of one test's report kept in results.json and junit.xml
VERDICT_CAP = 1 << 20  # bytes of the verdict file read


CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def clean(text):
    """Text for a report: control characters (and what XML cannot hold) written as \\xNN, newlines and tabs kept."""
    return CONTROL.sub(lambda m: "\\x%02x" % ord(m.group()) if ord(m.group()) < 0x100 else "\\u%04x" % ord(m.group()),
                       text)


def cap_output(text, limit=OUTPUT_CAP):
    if len(text) <= limit:
        return text
    return text[:limit] + "\n[... %d more characters cut]" % (len(text) - limit)


def read_verdicts(path, token, name):
    """The record of test case `name` from the verdict file, or a reason why there is no trustworthy one."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None, "no verdict"
    with os.fdopen(fd, "rb") as f:
        data = f.read(VERDICT_CAP + 1) if stat_regular(f) else b""
    found, forged = [], 0
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            forged += 1
            continue
        if not isinstance(record, dict) or record.get("token") != token:
            forged += 1
        elif record.get("kind") == "test-case" and record.get("name") == name:
            found.append(record)
    if forged or len(found) > 1:
        return None, "something other than the test wrote to its verdict channel"
    return (found[0], "") if found else (None, "no verdict")


def stat_regular(f):
    import stat
    return stat.S_ISREG(os.fstat(f.fileno()).st_mode)


def run_test_case(binary, name, sandbox=None):
    """Runs one test case alone, in its own process (in the sandbox, when there is one). Returns (passed, output);
    raises SandboxLimit when the sandbox stopped it. The verdict is the record the course's doctest_main.cpp writes
    to a file with a secret only it knows (never what the process prints: the student's code shares it)."""
    cmd = [binary, "--test-case=" + name.replace(",", "\\,"), "--reporters=xml", "--no-version"]
    token = secrets.token_hex(16)
    verdicts = os.path.join(os.path.dirname(binary), "verdicts.jsonl")
    if os.path.lexists(verdicts):
        os.remove(verdicts)
    env = {"CUDAGRADE_VERDICTS": verdicts}
    if sandbox:
        proc = sandbox.run(cmd, env, stdin=token.encode() + b"\n")
        if proc.limit:
            raise SandboxLimit("stopped by the sandbox's %s" % proc.limit)
        if proc.returncode == 124:  # the emulator's watchdog: the next test would hang the same way
            raise SandboxLimit("stopped by the emulator's watchdog: the kernel did not finish in %s s (an endless "
                               "loop?)" % test_env()["CUDAEMU_TIMEOUT"])
    else:
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TEST_TIMEOUT_S, input=token + "\n",
                                  env=dict(test_env(), **env), start_new_session=True, errors="replace")
        except subprocess.TimeoutExpired:
            return False, "timed out after %d s — is there an endless loop in your kernel?" % TEST_TIMEOUT_S
    record, why_none = read_verdicts(verdicts, token, name)
    stderr = cap_output(proc.stderr.strip(), 1000)
    if record is None:
        if why_none != "no verdict":
            return False, why_none
        if proc.returncode < 0:
            why = "the test program crashed (%s)" % signal.Signals(-proc.returncode).name
        elif proc.returncode == 124:
            why = "the kernel did not finish (emulator watchdog)"
        elif sandbox and "std::bad_alloc" in proc.stdout + proc.stderr:
            raise SandboxLimit("stopped by the sandbox's memory limit (%d MiB): std::bad_alloc"
                               % sandbox.limits["memory_mb"])
        else:
            why = "the test program exited with code %d before finishing" % proc.returncode
        return False, (why + "\n" + stderr).strip()
    messages = [m for m in record.get("messages", []) if isinstance(m, str)]
    if sandbox and any("std::bad_alloc" in m for m in messages):  # doctest caught it: the memory limit
        raise SandboxLimit("stopped by the sandbox's memory limit (%d MiB): std::bad_alloc"
                           % sandbox.limits["memory_mb"])
    passed = record.get("status") == "passed" and proc.returncode == 0
    if not passed and not messages:
        messages.append(stderr or "failed (exit code %d)" % proc.returncode)
    return passed, cap_output("\n".join(messages))


# ---------------------------------------------------------------------------------------------------------------
# `make labN`
# ---------------------------------------------------------------------------------------------------------------
def cmd_lab(args):
    lab = SHORT.get(args.lab, args.lab)
    if lab not in LABS:
        raise SystemExit("labtool: no lab '%s' (one of: %s)" % (args.lab, ", ".join(SHORT)))
    kernel = args.kernel or os.path.join("labs", lab, "kernel.cu")
    if not os.path.isfile(kernel):
        raise SystemExit("labtool: no kernel file '%s'" % kernel)
    backend, why = choose_backend_saying_why(args.backend)
    backends = [backend] if backend == "emu" else ["gpu", "emu"]  # traffic and safety always on the emulator
    ok = True
    for b in backends:
        out_dir = os.path.join(ROOT, "build", b, lab, "student")
        try:
            bins = Toolchain(b).build_lab(lab, kernel, out_dir)
        except BuildError as e:
            say(str(e))
            say("labtool: %s did not build" % kernel)
            return 1
        title = "on the GPU" if b == "gpu" else "on the CPU emulator"
        say("== %s: tests %s%s" % (lab, title, " (%s)" % why if why and b == backend else ""))
        proc = subprocess.run([bins["tests"]] + (["--test-suite-exclude=correctness"] if len(backends) > 1 and
                                                  b == "emu" else []), env=test_env())
        ok = ok and proc.returncode == 0
        if b == backend and "demo" in bins:
            say("== %s: demo" % lab)
            demo_args = DEMO_ARGS.get(lab, DEFAULT_DEMO_ARGS)
            # the emulator's findings are in the tests' report above: the demo only names them
            demo_env = dict(test_env(), CUDAEMU_QUIET="1")
            stats = os.path.join(out_dir, "demo.stats.jsonl")
            if b == "emu":  # the demo's memory requests, for the table after it
                if os.path.exists(stats):
                    os.remove(stats)
                demo_env.update(CUDAEMU_REQUESTS="1", CUDAEMU_STATS=stats)
            demo_ok = subprocess.run([bins["demo"]] + demo_args, env=demo_env).returncode == 0
            ok = demo_ok and ok
            if b == "emu" and demo_ok:
                for line in request_table(stats, lab):
                    say(line)
    return 0 if ok else 1


REQUEST_TABLE_LINES = 8


def request_table(stats_path, lab):
    """The demo's warp-level memory requests per source line, from the emulator's stats file: a few lines for
    `make labN` (the student's own run; nothing here is graded)."""
    try:
        with open(stats_path, encoding="utf-8") as f:
            launches = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError):
        return []
    rows = {}
    for launch in launches:
        for entry in launch.get("lines", []):
            shared = entry["space"] == "shared"
            what = "shared %s" % entry["op"] if shared else "%s %s" % (entry["op"], entry["allocation"])
            row = rows.setdefault((entry["file"], entry["line"], what), [0, 0, 0])
            row[0] += entry["requests"]
            row[1] += entry["wavefronts" if shared else "sectors"]
            row[2] += entry["ideal"]
    if not rows:
        return []
    out = ["== %s: the demo's memory requests per source line (emulator; lesson 1 explains them)" % lab]
    ranked = sorted(rows.items(), key=lambda kv: -kv[1][0])[:REQUEST_TABLE_LINES]
    for (file, line, what), (requests, units, ideal) in sorted(ranked):
        unit = "wavefronts" if what.startswith("shared") else "sectors of 32 bytes"
        out.append("  %s:%d  %-13s %8s requests, %.1f %s each (%.1f at best)" % (
            os.path.basename(file), line, what, "{:,}".format(requests), units / requests, unit, ideal / requests))
    if len(rows) > REQUEST_TABLE_LINES:
        out.append("  (%d more lines)" % (len(rows) - REQUEST_TABLE_LINES))
    return out


# ---------------------------------------------------------------------------------------------------------------
# `make pitfall`
# ---------------------------------------------------------------------------------------------------------------
def cmd_pitfall(args):
    """Runs a known-wrong kernel through the lab's tests and demo on the emulator, to show the feedback its bug
    gets. Exits 0 when the tests fail, as they must; 1 if they pass (the pitfall no longer shows anything)."""
    import pitfalls
    lab = SHORT.get(args.lab, SHORT.get("lab" + str(args.lab), args.lab)) if args.lab else None
    if lab not in LABS:
        raise SystemExit("labtool: say which lab: make pitfall LAB=N NAME=name (LAB one of %s)"
                         % ", ".join(s[3:] for s in SHORT))
    found = pitfalls.available(lab)
    if not found:
        raise SystemExit("labtool: %s has no pitfalls to show" % lab)
    if args.name not in found:
        raise SystemExit("labtool: %s NAME=%s; %s's pitfalls: %s"
                         % ("no pitfall" if args.name else "say which pitfall:", args.name or "name", lab,
                            ", ".join(found)))
    pit = found[args.name]
    say("== pitfall %s (%s): %s" % (pit.name, lab, pit.description))
    out_dir = os.path.join(ROOT, "build", "emu", lab, "pitfall-" + pit.name)
    try:
        bins = Toolchain("emu").build_lab(lab, pit.source, out_dir, shown_as=pit.shown_as, prebuilt=pit.obj)
    except BuildError as e:
        say(str(e))
        say("labtool: the pitfall %s did not build here" % pit.name)
        return 1
    say("== %s: tests on the CPU emulator" % lab)
    failed = subprocess.run([bins["tests"]], env=test_env()).returncode != 0
    if "demo" in bins:
        say("== %s: demo" % lab)
        subprocess.run([bins["demo"]] + DEMO_ARGS.get(lab, DEFAULT_DEMO_ARGS), env=dict(test_env(), CUDAEMU_QUIET="1"))
    if not failed:
        say("labtool: the pitfall %s passed every test: it no longer shows its bug" % pit.name)
        return 1
    say("== the failures above are what a kernel with this bug gets (%s)" % pit.name)
    return 0


# ---------------------------------------------------------------------------------------------------------------
# `make grade`
# ---------------------------------------------------------------------------------------------------------------
def grade_lab(lab, kernel, backend, work_dir, make_sandbox=None):
    """Returns a list of test results: dicts with lab, name, suite, passed, output. With make_sandbox (a function
    of the folder the lab is built in, returning a sandbox.Sandbox), the kernel is built and run in that sandbox,
    and a test stopped by one of its limits ends the lab: every remaining test fails with the same reason."""
    results = []
    def not_built(why):  # the lab's only result: it scores zero
        return [{"lab": lab, "name": "builds", "suite": "correctness", "passed": False, "output": why}]

    if not os.path.isfile(kernel):
        return not_built("no %s/kernel.cu in the submission" % lab)
    runs = [("gpu", "correctness"), ("emu", None)] if backend == "gpu" else [("emu", None)]
    for b, only_suite in runs:
        out_dir = os.path.join(work_dir, b, lab)
        sandbox = None
        try:
            staged = staged_kernel(kernel, os.path.join(out_dir, "src"))
            if make_sandbox:
                sandbox = make_sandbox(out_dir)
                sandbox.prepare()
            bins = Toolchain(b, sandbox).build_lab(lab, staged, out_dir, shown_as=shown_path(kernel, lab),
                                                   with_demo=not sandbox)
        except Refused as e:
            return not_built("kernel.cu refused: " + cap_output(str(e)))
        except BuildError as e:
            return not_built("kernel.cu does not build:\n" + str(e)[-4000:])
        cases = Toolchain(b).test_cases(lab)  # the course's list, never the submission's
        stopped = None
        started = time.time()
        for name, suite in cases:
            if backend == "gpu" and b == "emu" and suite == "correctness":
                continue  # judged on the GPU
            if only_suite and suite != only_suite:
                continue
            if not stopped and make_sandbox and time.time() - started > LAB_WALL_S:
                stopped = "stopped by the lab's time budget (%d s for all its tests; GRADE_LAB_WALL_S)" % LAB_WALL_S
                passed, output = False, stopped
            elif stopped:
                passed, output = False, "not run: an earlier test was " + stopped
            else:
                try:
                    passed, output = run_test_case(bins["tests"], name, sandbox)
                except SandboxLimit as e:
                    stopped = str(e)
                    passed, output = False, stopped
            results.append({"lab": lab, "name": name, "suite": suite, "passed": passed, "output": output})
    return results


def score(results):
    """Adds score and max_score to each result; returns {lab: (score, max)}."""
    totals = {}
    for lab in LABS:
        lab_results = [r for r in results if r["lab"] == lab]
        if not lab_results:
            continue
        suites = {}
        for r in lab_results:
            suites.setdefault(r["suite"], []).append(r)
        missing_points = sum(p for s, p in SUITE_POINTS.items() if s not in suites)
        correctness = suites.get("correctness", [])
        wrong = sum(not r["passed"] for r in correctness)
        for suite, rs in suites.items():
            points = SUITE_POINTS.get(suite, 0)
            if suite == "correctness":
                points += missing_points  # a lab that did not build has only its "builds" entry
            # in hundredths of a point, the remainder spread over the first cases, so a suite adds up exactly
            share, extra = divmod(round(points * 100), len(rs))
            for i, r in enumerate(rs):
                r.pop("withheld", None)  # score() may run again on the same results (after the hidden tests)
                if suite != "correctness" and r["passed"] and wrong:
                    r["withheld"] = WITHHELD % (lab, wrong, len(correctness))
                r["max_score"] = (share + (1 if i < extra else 0)) / 100
                r["score"] = r["max_score"] if earned(r) else 0.0
        totals[lab] = (round(sum(r["score"] for r in lab_results), 2), round(sum(r["max_score"] for r in lab_results), 2))
    return totals


def earned(r):
    """Whether a scored result earned its points: it passed, and score() did not withhold them."""
    return r["passed"] and not r.get("withheld")


def report_output(r):
    """What a report says about a result: why its points were withheld, if they were, then its own output."""
    return "\n".join(t for t in (r.get("withheld", ""), r["output"]) if t)


def write_reports(results, totals, out_dir, backend):
    os.makedirs(out_dir, exist_ok=True)
    total = round(sum(s for s, _ in totals.values()), 2)
    doc = {
        "score": total,
        "output": "Graded on the %s." % ("GPU (traffic and safety on the CPU emulator)" if backend == "gpu"
                                         else "CPU emulator"),
        "tests": [{"name": clean("%s: %s: %s" % (r["lab"], r["suite"], r["name"])), "score": r["score"],
                   "max_score": r["max_score"], "status": "passed" if earned(r) else "failed",
                   "output": clean(cap_output(report_output(r))), "visibility": r.get("visibility", "visible")}
                  for r in results],
    }
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<testsuites tests="%d" failures="%d">' % (len(results), sum(not earned(r) for r in results))]
    for lab in LABS:
        rs = [r for r in results if r["lab"] == lab]
        if not rs:
            continue
        lines.append('  <testsuite name=%s tests="%d" failures="%d">' % (quoteattr(lab), len(rs),
                                                                        sum(not earned(r) for r in rs)))
        for r in rs:
            name = quoteattr(clean("%s: %s" % (r["suite"], r["name"])))
            if earned(r):
                lines.append("    <testcase classname=%s name=%s/>" % (quoteattr(lab), name))
            else:
                output = clean(cap_output(report_output(r)))
                first = output.splitlines()[0] if output else "failed"
                lines.append("    <testcase classname=%s name=%s>" % (quoteattr(lab), name))
                lines.append("      <failure message=%s>%s</failure>" % (quoteattr(first[:300]), escape(output)))
                lines.append("    </testcase>")
        lines.append("  </testsuite>")
    lines.append("</testsuites>")
    with open(os.path.join(out_dir, "junit.xml"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return total


def print_table(results, totals):
    suites = list(SUITE_POINTS)
    width = max(len(lab) for lab in list(totals) + ["total"]) + 2
    header = "%-*s" % (width, "lab") + "".join("%15s" % s for s in suites) + "%12s" % "score"
    say(header)
    say("-" * len(header))
    for lab, (s, m) in totals.items():
        row = "%-*s" % (width, lab)
        for suite in suites:
            rs = [r for r in results if r["lab"] == lab and r["suite"] == suite]
            row += "%15s" % ("%g/%g" % (round(sum(r["score"] for r in rs), 1), round(sum(r["max_score"] for r in rs), 1))
                             if rs else "-")
        say(row + "%12s" % ("%g/%g" % (s, m)))
    s = round(sum(v[0] for v in totals.values()), 2)
    m = round(sum(v[1] for v in totals.values()), 2)
    say("%-*s" % (width, "total") + " " * (15 * len(suites)) + "%12s" % ("%g/%g" % (s, m)))


def cmd_grade(args):
    submission = os.path.abspath(args.submission or os.path.join(ROOT, "labs"))
    if not os.path.isdir(submission):
        raise SystemExit("labtool: SUBMISSION '%s' is not a directory" % args.submission)
    backend = choose_backend(args.backend)
    out_dir = os.path.abspath(args.out or os.path.join(ROOT, "build", "grade"))
    work_dir = os.path.join(out_dir, "work")
    labs = [lab for lab in LABS if os.path.isdir(os.path.join(submission, lab))] if args.submission else LABS
    if not labs:
        raise SystemExit("labtool: %s holds none of the lab folders (%s)" % (args.submission, ", ".join(LABS)))
    say("grading %s (%s)" % (os.path.relpath(submission, os.getcwd()), ", ".join(labs)))
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(len(labs), os.cpu_count() or 1)) as pool:
        futures = [pool.submit(grade_lab, lab, os.path.join(submission, lab, "kernel.cu"), backend, work_dir)
                   for lab in labs]
        for f in futures:
            results.extend(f.result())
    totals = score(results)
    for r in results:
        if not earned(r):
            say("FAILED %s: %s: %s\n  %s" % (r["lab"], r["suite"], r["name"], report_output(r).replace("\n", "\n  ")))
    print_table(results, totals)
    write_reports(results, totals, out_dir, backend)
    say("wrote %s and %s" % (os.path.relpath(os.path.join(out_dir, "results.json"), os.getcwd()),
                             os.path.relpath(os.path.join(out_dir, "junit.xml"), os.getcwd())))
    return 0


def main(argv):
    parser = argparse.ArgumentParser(prog="labtool", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("lab", help="build and test one lab")
    p.add_argument("lab")
    p.add_argument("--kernel")
    p.add_argument("--backend")
    p = sub.add_parser("pitfall", help="run a known-wrong kernel through a lab's tests, to see its feedback")
    p.add_argument("--lab")
    p.add_argument("--name")
    p = sub.add_parser("grade", help="grade every lab of a submission")
    p.add_argument("--submission")
    p.add_argument("--backend")
    p.add_argument("--out")
    args = parser.parse_args(argv)
    return {"lab": cmd_lab, "pitfall": cmd_pitfall, "grade": cmd_grade}[args.command](args)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
