"""Build tools/lessons/measure.cpp against a lab's kernel with common/emu/emucc, run it, and return what the emulator
counted (see measure.cpp for the fields).

The kernel is compiled against the lab's own lab.h, as the grader does. For another tile edge, the lab.h staged
next to the kernel has its TILE_WIDTH changed: the kernel's #include "lab.h" finds that copy first.
"""
import json
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
from course import cache, labs, toolchain  # the Lab model; the Toolchain compiles and links for the emulator

BuildError = toolchain.BuildError  # what build() raises when the kernel does not compile
BUILD = os.path.join(ROOT, "build", "lessons")
LABS = labs.folders()  # every labs/labN-topic folder


def lab_folder(lab):
    """'3', 'lab3' or 'lab3-boundary' -> 'lab3-boundary'."""
    try:
        return labs.find(lab).folder
    except labs.LabError as e:
        raise ValueError(str(e)) from None


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write_if_changed(path, text):
    """Leaves the file (and its time stamp) alone when it already holds `text`, so nothing rebuilds needlessly."""
    if os.path.exists(path) and read_text(path) == text:
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def contract_with_tile(lab, tile):
    contract = read_text(os.path.join(ROOT, "labs", lab, "lab.h"))
    if tile is None:
        return contract
    changed, count = re.subn(r"\bTILE_WIDTH = \d+;", "TILE_WIDTH = %d;" % tile, contract)
    if count != 1:
        raise ValueError("labs/%s/lab.h has no 'TILE_WIDTH = N;' to change" % lab)
    return changed


def build(lab, kernel, tile=None):
    """The measuring program for `kernel` (a path) in `lab`, with lab.h's TILE_WIDTH set to `tile` if given."""
    lab = lab_folder(lab)
    kernel_id = re.sub(r"[^A-Za-z0-9]+", "-", os.path.relpath(os.path.abspath(kernel), ROOT)).strip("-")
    out_dir = os.path.join(BUILD, lab, kernel_id + ("-tile%d" % tile if tile else ""))
    src = os.path.join(out_dir, "src")
    os.makedirs(src, exist_ok=True)
    write_if_changed(os.path.join(src, "lab.h"), contract_with_tile(lab, tile))
    write_if_changed(os.path.join(src, "kernel.cu"), read_text(kernel))
    chain = toolchain.Toolchain("emu")
    includes = [src, os.path.join(ROOT, "common")]
    shown_as = os.path.relpath(os.path.abspath(kernel), os.getcwd())
    objects = [chain.compile(os.path.join(src, "kernel.cu"), os.path.join(out_dir, "kernel.o"), includes, shown_as),
               chain.compile(os.path.join(HERE, "measure.cpp"), os.path.join(out_dir, "measure.o"), includes)]
    # the harness objects of their own, so that the lesson tools never race the grader on its cached ones
    objects += [chain.compile(os.path.join(ROOT, "common", name), os.path.join(BUILD, "obj", name[:-4] + ".o"),
                              [os.path.join(ROOT, "common"), os.path.join(ROOT, "labs", lab)])
                for name in ("harness.cpp", "reference_gemm.cpp")]
    program = os.path.join(out_dir, "measure")
    if toolchain.newer(program, objects):
        chain.link(objects, program)
    cache.used(out_dir)  # recently used: build/ is pruned least recently used first (course/cache.py)
    return program


def requests(program, M, K, N, workers=None):
    """Per launch and source line, the warp-level requests of `program` (from build) on M×K·K×N, with each line's
    first request lane by lane (measure.cpp --requests). workers: as for measure()."""
    cache.used(os.path.dirname(program))  # in use until it ends: see build()
    env = dict(os.environ, CUDAEMU_QUIET="1", CUDAEMU_TIMEOUT="60")
    if workers:
        env["CUDAEMU_THREADS"] = str(workers)
    proc = subprocess.run([program, str(M), str(N), str(K), "--requests"], capture_output=True, text=True, env=env,
                          timeout=300)
    if proc.returncode != 0:
        raise RuntimeError("%s %d %d %d failed (exit %d): %s" % (program, M, N, K, proc.returncode, proc.stderr))
    return json.loads(proc.stdout)


def measure(program, M, K, N, totals_only=False, workers=None):
    """What `program` (from build) counted for M×K·K×N. totals_only: no per-element lists and no correctness check,
    for large sizes (make bench and make profile count n = 2048), which also get the emulator's default watchdog.
    workers: the emulator's worker threads (the counts do not depend on them: the emulator reports an H100's 132
    multiprocessors whatever their number, so a kernel that sizes its grid by them, as lab 6's reference does,
    makes the same choice on every machine)."""
    cache.used(os.path.dirname(program))  # in use until it ends: see build()
    env = dict(os.environ, CUDAEMU_QUIET="1")
    if workers:
        env["CUDAEMU_THREADS"] = str(workers)
    if not totals_only:
        env["CUDAEMU_TIMEOUT"] = "60"
    argv = [program, str(M), str(N), str(K)] + (["--totals"] if totals_only else [])
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=1800 if totals_only else 300)
    if proc.returncode != 0:
        raise RuntimeError("%s %d %d %d failed (exit %d): %s" % (program, M, N, K, proc.returncode, proc.stderr))
    return json.loads(proc.stdout)
