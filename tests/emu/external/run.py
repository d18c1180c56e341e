#!/usr/bin/env python3
"""run.py — build and run the external CUDA corpus with the CPU emulator or with nvcc, and compare.

The corpus is CUDA programs written outside this project (see corpus.ini: each program's origin, path, commit and
licence). Almost every program checks its own results (it prints a verdict and/or exits non-zero when they are
wrong); what each printed on an H100 is kept in expected/, and the emulator must print the same.

    tests/emu/external/run.py                  emulator: build each with common/emu/emucc, run it, compare with the H100
    tests/emu/external/run.py --gpu            the same programs with nvcc on this machine's GPU
    tests/emu/external/run.py --gpu --record   ... and store what the GPU printed (expected/) and its verdicts (h100.json)
    tests/emu/external/run.py --readme         rewrite README.md's table from h100.json and the last emulator run
    options: --only NAME[,NAME...]   -j N (parallel builds)   --timeout S (per run, default 60)

Emulator verdicts, one line per program:
    pass         stdout (less the lines the program's `ignore` pattern names, e.g. timings) and exit status are
                 identical to the H100's;
    fail         it built, and its output or exit status differs from the H100's, or it timed out; or it did not
                 build for a reason other than a named missing feature (the first compiler error is shown);
    unsupported  emucc refused it at compile time naming the feature (shown: a header, a function, a qualifier).
Exit status: 0 when every program passes (on the emulator, but those whose `differs` line in corpus.ini explains
why their output is not the H100's), 1 otherwise. Build outputs go to build/tests/emu/external/.
"""
import argparse
import concurrent.futures
import configparser
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
EXPECTED = os.path.join(HERE, "expected")
BUILD = os.path.join(ROOT, "build", "tests", "emu", "external")


# ---------------------------------------------------------------------------------------------------------------
# The corpus
# ---------------------------------------------------------------------------------------------------------------
class Program:
    def __init__(self, name, section, origin):
        self.name = name
        self.origin = origin  # the [origin NAME] section
        self.origin_name = section["origin"]
        self.dir = os.path.join(HERE, self.origin_name, section.get("dir", name))
        self.path = section["path"]
        self.category = section["category"]
        self.sources = section.get("sources", "").split()
        self.args = section.get("args", "").split()
        self.flags = section.get("flags", "").split()
        ignore = "|".join(p for p in (origin.get("ignore"), section.get("ignore")) if p)
        self.ignore = re.compile(ignore) if ignore else None
        self.bad = re.compile(section["bad"]) if section.get("bad") else None
        self.adapted = section.get("adapted", "")
        self.differs = section.get("differs", "")  # why the emulator's output is known to differ from the H100's

    def source_files(self):
        if self.sources:
            return [os.path.join(self.dir, s) for s in self.sources]
        found = []
        for d, _, files in os.walk(self.dir):
            found += [os.path.join(d, f) for f in files if f.endswith((".cu", ".cpp"))]
        return sorted(found)

    def include_flags(self):
        dirs = [os.path.join(HERE, self.origin_name, d) for d in self.origin.get("include", "").split()]
        dirs += [self.dir] + [os.path.join(self.dir, d) for d in ("inc",) if os.path.isdir(os.path.join(self.dir, d))]
        return [f for d in dirs for f in ("-I", d)]

    def filtered(self, stdout):
        """stdout as compared: lines the `ignore` pattern matches (timings, device names) left out."""
        lines = stdout.splitlines()
        if self.ignore:
            lines = [line for line in lines if not self.ignore.search(line)]
        return "\n".join(lines) + "\n"


def load_corpus():
    ini = configparser.ConfigParser(interpolation=None, comment_prefixes=("#",), inline_comment_prefixes=None)
    ini.optionxform = str
    ini.read(os.path.join(HERE, "corpus.ini"))
    origins = {s.split(None, 1)[1]: ini[s] for s in ini.sections() if s.startswith("origin ")}
    programs = []
    for s in ini.sections():
        if s.startswith("origin "):
            continue
        origin = ini[s]["origin"]
        if origin not in origins:
            sys.exit("corpus.ini: [%s] names origin '%s', which has no [origin %s] section" % (s, origin, origin))
        programs.append(Program(s, ini[s], origins[origin]))
    return origins, programs


# ---------------------------------------------------------------------------------------------------------------
# Building and running
# ---------------------------------------------------------------------------------------------------------------
# What emucc (or the compiler it drives) says when a program uses something outside the emulator's subset, and the
# name of the missing feature in each message: emucc's own refusals, a CUDA header it does not have, and a CUDA
# runtime or device API the compiler cannot find.
REFUSALS = [
    (re.compile(r'"(\w+) is not supported by the CPU emulator'), "{0}"),  # a static_assert in cuda_runtime.h
    (re.compile(r"dynamic shared memory \(extern __shared__\) is not supported"), "extern __shared__"),
    (re.compile(r"inline PTX \(asm\) is not supported"), "asm (inline PTX)"),
    (re.compile(r"thread block clusters are not supported"), "__cluster_dims__"),
    (re.compile(r"error: (__\w+__) memory is not supported by the CPU emulator"), "{0}"),
    (re.compile(r"error: (.+?) (?:is|are) not supported by the CPU emulator"), "{0}"),
    (re.compile(r"fatal error: '([^']+)' file not found"), "<{0}>"),
]
CUDA_NAME = r"(?:cuda|cu[A-Z]|CU|__|atomic|make_|clock|tex|surf|warp)\w*|u?(?:char|short|int|long|longlong|float|double)[1-4]"
MISSING_API = [
    (re.compile(r"error: use of undeclared identifier '(%s)'" % CUDA_NAME), "{0}"),
    (re.compile(r"error: unknown type name '(%s)'" % CUDA_NAME), "{0}"),
    (re.compile(r"error: no member named '(\w+)' in '(cuda\w+)'"), "{1}::{0}"),
    (re.compile(r"error: no (?:template |type |member )?named '(\w+)' in namespace '(cooperative_groups|cg|cuda|nvcuda)'"),
     "{1}::{0}"),
]


def missing_features(log):
    """The features a failed emulator build names (at most three, in order of appearance), or [] when none of its
    errors is about a missing feature."""
    names = []
    for line in log.splitlines():
        for pattern, fmt in REFUSALS + MISSING_API:
            m = pattern.search(line)
            if m:
                name = fmt.format(*m.groups())
                if name not in names:
                    names.append(name)
                break
    return names[:3] + (["%d more" % (len(names) - 3)] if len(names) > 3 else [])


def first_error(log):
    if "linker command failed" in log:  # the linker's own first message says more than clang's summary
        first = next((line for line in log.splitlines() if line.strip()), "")
        return "link: " + first.strip().replace(ROOT + os.sep, "")[:200]
    for line in log.splitlines():
        if re.search(r"\berror\b", line):
            return re.sub(r"^.*?tests/emu/external/", "", line.strip().replace(ROOT + os.sep, ""))[:200]
    return (log.strip().splitlines() or ["(no message)"])[-1][:200]


def build(program, mode, out_dir):
    exe = os.path.join(out_dir, program.name)
    if mode == "emu":
        cmd = ["nice", sys.executable, os.path.join(ROOT, "common", "emu", "emucc"), "-O2"]
    else:
        cmd = [os.environ.get("NVCC", "nvcc"), "-arch=" + os.environ.get("NVCC_ARCH", "sm_90"), "-O2", "-w",
               "--extended-lambda"]  # as the samples' own build files
    # paths relative to the repository root, so that __FILE__ (printed by error checks) is the same everywhere
    rel = lambda paths: [os.path.relpath(p, ROOT) if os.path.isabs(p) else p for p in paths]
    cmd += rel(program.include_flags()) + program.flags + ["-o", exe] + rel(program.source_files())
    started = time.time()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", cwd=ROOT)
    return exe, proc.returncode, proc.stdout, time.time() - started


def run(program, exe, timeout):
    env = dict(os.environ, CUDAEMU_QUIET="1")
    cwd = os.path.join(os.path.dirname(exe), "cwd", program.name)  # files a program writes stay under build/
    os.makedirs(cwd, exist_ok=True)
    started = time.time()
    try:
        # argv[0] is the bare name: samples print it, and the output must not depend on where the binary lies
        proc = subprocess.run([program.name] + program.args, executable=exe, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, cwd=cwd,
                              env=env, timeout=timeout, text=True, errors="replace")
        return proc.returncode, proc.stdout, proc.stderr, time.time() - started, False
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out, "", time.time() - started, True


def expected_path(program):
    return os.path.join(EXPECTED, program.name + ".out")


def read_expected(program):
    """(filtered stdout, exit status) the H100 gave, or None when it has not been recorded. The file keeps the whole
    stdout, so that a program's `ignore` pattern can change without a new run on the GPU."""
    try:
        with open(expected_path(program)) as f:
            text = f.read()
    except FileNotFoundError:
        return None
    body, _, status = text.rpartition("exit: ")
    return program.filtered(body), status.strip()


# ---------------------------------------------------------------------------------------------------------------
# One program, either way
# ---------------------------------------------------------------------------------------------------------------
def check_emu(program, built, timeout):
    exe, rc, log, build_s = built
    result = {"name": program.name, "build_s": round(build_s, 1)}
    if rc != 0:
        features = missing_features(log)
        if features:
            result.update(verdict="unsupported", detail=", ".join(features))
        else:
            result.update(verdict="fail", detail="build: " + first_error(log))
        return result
    status, stdout, stderr, run_s, timed_out = run(program, exe, timeout)
    result["run_s"] = round(run_s, 1)
    if timed_out:
        result.update(verdict="fail", detail="timeout after %d s" % timeout)
        return result
    got = program.filtered(stdout)
    expected = read_expected(program)
    if expected is None:
        result.update(verdict="fail", detail="no H100 output recorded (run.py --gpu --record)")
    elif (got, str(status)) == expected:
        result.update(verdict="pass", detail="")
    else:
        want, want_status = expected
        if got == want:
            detail = "exit status %s, the H100's %s" % (status, want_status)
            if stderr.strip():  # an emulator diagnostic or the program's own error message
                detail += "; stderr: " + stderr.strip().splitlines()[0][:150]
        else:
            g, w = got.splitlines(), want.splitlines()
            i = next((k for k in range(max(len(g), len(w))) if k >= len(g) or k >= len(w) or g[k] != w[k]), 0)
            detail = "line %d: %r, the H100 printed %r" % (i + 1, g[i] if i < len(g) else "<end>",
                                                        w[i] if i < len(w) else "<end>")
            if status != 0 and stderr.strip():
                detail += "; stderr: " + stderr.strip().splitlines()[0][:150]
        result.update(verdict="fail", detail=detail)
    return result


def check_gpu(program, built, timeout, record):
    exe, rc, log, build_s = built
    result = {"name": program.name, "build_s": round(build_s, 1)}
    if rc != 0:
        result.update(verdict="build error", detail=first_error(log))
        return result
    status, stdout, stderr, run_s, timed_out = run(program, exe, timeout)
    result["run_s"] = round(run_s, 1)
    if timed_out:
        result.update(verdict="fail", detail="timeout after %d s" % timeout)
        return result
    bad = program.bad.search(stdout) if program.bad else None
    ok = status == 0 and not bad
    result.update(verdict="pass" if ok else "fail",
                  detail="" if ok else ("printed %r" % bad.group(0) if bad else "exit status %d" % status))
    if record:
        os.makedirs(EXPECTED, exist_ok=True)
        with open(expected_path(program), "w") as f:
            f.write(stdout + ("" if stdout.endswith("\n") or not stdout else "\n") + "exit: %d\n" % status)
    return result


# ---------------------------------------------------------------------------------------------------------------
# README table
# ---------------------------------------------------------------------------------------------------------------
def write_readme(origins, programs, gpu, emu):
    path = os.path.join(HERE, "README.md")
    with open(path) as f:
        text = f.read()
    begin, end = "<!-- results: generated by run.py --readme -->", "<!-- end of results -->"
    if begin not in text or end not in text:
        sys.exit("README.md has no results markers")
    rows = ["| program | category | origin | H100 (nvcc) | emulator | emulator detail | emulator run (s) |",
            "|---|---|---|---|---|---|---|"]
    counts, features = {}, {}
    for p in programs:
        g, e = gpu.get(p.name, {}), emu.get(p.name, {})
        gv = g.get("verdict", "not run") + (" (`%s`)" % g["detail"] if g.get("detail") else "")
        ev = e.get("verdict", "not run")
        counts[ev] = counts.get(ev, 0) + 1
        if ev == "unsupported":
            for name in e["detail"].split(", "):
                if not name.endswith(" more"):
                    features[name] = features.get(name, 0) + 1
        detail = e.get("detail", "").replace("|", "\\|")
        rows.append("| %s | %s | %s `%s` | %s | %s | %s | %s |" % (
            p.name, p.category, p.origin_name, p.path, gv, ev, "`%s`" % detail if detail else "", e.get("run_s", "")))
    gpu_ok = [p.name for p in programs if gpu.get(p.name, {}).get("verdict") == "pass"]
    both = [n for n in gpu_ok if emu.get(n, {}).get("verdict") == "pass"]
    sources = {(p.origin_name, p.path) for p in programs}  # llm.c's files each run several kernel versions
    summary = ["%d programs (%d source programs, from %d origins). On the H100, %d build, run and pass their own "
               "checks. On the emulator: %s." % (
                   len(programs), len(sources), len(origins), len(gpu_ok),
                   ", ".join("%d %s" % (counts[k], k) for k in sorted(counts))),
        "Of the %d that pass on the H100, %d (%d %%) pass on the emulator with identical output." % (
            len(gpu_ok), len(both), round(100 * len(both) / len(gpu_ok)) if gpu_ok else 0)]
    if features:
        summary.append("Missing features named by the emulator's refusals (the first three of each program; number "
                       "of programs): " + ", ".join(
            "`%s` (%d)" % (k, v) for k, v in sorted(features.items(), key=lambda kv: (-kv[1], kv[0]))) + ".")
    when = ["H100 column: %s, %s, %s. Emulator column: %s." % (
        gpu.get("_when", "not recorded"), gpu.get("_device", "device not recorded"), gpu.get("_nvcc", "nvcc not recorded"),
        emu.get("_when", "not run"))]
    block = "\n".join([begin, ""] + summary + [""] + when + [""] + rows + ["", end])
    text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    with open(path, "w") as f:
        f.write(text)
    print("README.md: table of %d programs written" % len(programs))


def command_line_output(cmd):
    """The last line a command prints, e.g. the version of a tool, or '' when it cannot run."""
    try:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    except OSError:
        return ""
    lines = out.strip().splitlines()
    return lines[-1].strip() if lines else ""


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return {}


# ---------------------------------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpu", action="store_true", help="build with nvcc and run on the GPU")
    ap.add_argument("--record", action="store_true", help="with --gpu: store the outputs in expected/")
    ap.add_argument("--readme", action="store_true", help="rewrite README.md's table, then stop")
    ap.add_argument("--only", default="", help="comma-separated program names")
    ap.add_argument("-j", type=int, default=1, help="parallel builds (default 1)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per run (default 60)")
    args = ap.parse_args()

    origins, programs = load_corpus()
    gpu_json = os.path.join(HERE, "h100.json")  # the GPU column, kept with the corpus
    emu_json = os.path.join(BUILD, "emu", "results.json")
    if args.readme:
        write_readme(origins, programs, load_json(gpu_json), load_json(emu_json))
        return 0
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {p.name for p in programs}
        if unknown:
            sys.exit("run.py: no such program in corpus.ini: " + ", ".join(sorted(unknown)))
        programs = [p for p in programs if p.name in wanted]
    mode = "gpu" if args.gpu else "emu"
    if mode == "gpu" and not shutil.which(os.environ.get("NVCC", "nvcc")):
        sys.exit("run.py: nvcc not found (install the CUDA toolkit or set NVCC)")
    out_dir = os.path.join(BUILD, mode)
    os.makedirs(out_dir, exist_ok=True)

    # with --only, the other programs keep their last results (the recorded GPU column when recording)
    previous = gpu_json if mode == "gpu" and args.record else os.path.join(out_dir, "results.json")
    results = load_json(previous) if args.only else {}
    width = max(len(p.name) for p in programs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.j)) as pool:
        builds = [pool.submit(build, p, mode, out_dir) for p in programs]
        for p, b in zip(programs, builds):  # run one at a time, in order, as builds finish
            if mode == "emu":
                r = check_emu(p, b.result(), args.timeout)
            else:
                r = check_gpu(p, b.result(), args.timeout, args.record)
            results[p.name] = r
            print("%-*s  %-11s %s" % (width, p.name, r["verdict"], r["detail"]), flush=True)
    results["_when"] = time.strftime("%Y-%m-%d")
    if mode == "gpu":
        results["_device"] = command_line_output(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
        results["_nvcc"] = command_line_output([os.environ.get("NVCC", "nvcc"), "--version"])
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    if mode == "gpu" and args.record:
        shutil.copy(os.path.join(out_dir, "results.json"), gpu_json)
    verdicts = [results[p.name]["verdict"] for p in programs]
    print("%d programs: %s" % (len(verdicts), ", ".join(
        "%d %s" % (verdicts.count(v), v) for v in sorted(set(verdicts)))))
    # the emulator's run succeeds when every program passes but those whose difference corpus.ini explains
    return 0 if all(results[p.name]["verdict"] == "pass" or (mode == "emu" and p.differs) for p in programs) else 1


if __name__ == "__main__":
    sys.exit(main())
