#!/usr/bin/env python3
"""selftest — the grader tested against kernels whose grades are known.

    python3 -m grader.selftest              every check below (part of `make test`)
    python3 -m grader.selftest --nvcc-only  only: every kernel compiles with nvcc for sm_90 without warnings

- Every reference solution scores full marks; every skeleton builds and scores zero.
- Every kernel in grader/catalogue/ gets the grade and the diagnosis it deserves (the table below): for each
  check the grader makes, a known-wrong kernel that must fail it, and correct variants that must pass.
Prints one line per check and closes with "N passed, N failed".
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

from course import grading, labs, scoring, toolchain
from course.paths import ROOT

ALL_SUITES = set(labs.SUITES)

# kernel -> (suites that must fail, words that must appear in the failure output).
# An empty set of failing suites means full marks.
CATALOGUE = {
    "lab1/transposed_index.cu": (ALL_SUITES, ["elements are wrong"]),
    "lab1/missing_guard.cu": (ALL_SUITES, ["out-of-bounds", "bytes past its end"]),
    # correct but uncoalesced: row from threadIdx.x, the grid swapped to match
    "lab1/row_from_x.cu": ({"traffic"}, ["loads A with", "sectors of 32 bytes per warp request", "stores C with"]),
    # confinement (course/confine.py) must not refuse what a student debugging a kernel writes
    "lab1/assert_and_printf.cu": (set(), []),
    # the host flow (matmul_from_host): each mistake named with its fix
    "lab1/host_leak.cu": ({"memory safety"}, ["were never freed", "cudaFree every device buffer"]),
    "lab1/host_wrong_direction.cu": (ALL_SUITES, ["cudaMemcpyDeviceToHost)) failed with cudaErrorInvalidValue",
                                                  "its last argument must match its pointers"]),
    "lab1/host_elements_not_bytes.cu": (ALL_SUITES, ["cudaMalloc(&d_A) allocated",
                                                     "that is the number of floats in A, and cudaMalloc counts bytes"]),
    "lab1/host_unchecked_calls.cu": (ALL_SUITES, ["returned cudaErrorInvalidValue (invalid argument) and no "
                                                  "CUDA_CHECK caught it"]),
    "lab1/no_host_flow.cu": (ALL_SUITES, ["defines no matmul_from_host()"]),
    "lab1/host_no_wait.cu": (ALL_SUITES, ["out-of-bounds", "the copy back was the first call to wait for it"]),
    # Without a barrier, the emulator's fibers run in an order that gives wrong sums, and the race is named.
    "lab2/missing_first_barrier.cu": (ALL_SUITES, ["race on shared memory",
                                                 "A __syncthreads() after :27 and before :31"]),
    "lab2/naive_in_lab2.cu": ({"traffic"}, ["your kernel read", "a 16×16 tiled kernel reads at most",
                                            "(each element 64.0 times; 393,216 at grader/catalogue/lab2/naive_in_lab2.cu:20)"]),
    "lab3/missing_first_barrier.cu": (ALL_SUITES, ["race on shared memory",
                                                 "A __syncthreads() after :36 and before :41"]),
    "lab3/missing_second_barrier.cu": (ALL_SUITES, ["race on shared memory", "after :41 and before :29 orders them: "
                                                      "at the end of the loop body"]),
    "lab3/unguarded_tile_loads.cu": (ALL_SUITES, ["out-of-bounds load"]),
    "lab3/unguarded_store.cu": (ALL_SUITES, ["out-of-bounds store"]),
    "lab3/wrong_leading_dimension.cu": (ALL_SUITES, ["elements are wrong"]),
    "lab3/swapped_grid_dimensions.cu": (ALL_SUITES, ["never wrote it"]),
    "lab3/grid_rounded_down.cu": (ALL_SUITES, ["never wrote it", "with grid (0,0,1) and block (16,16,1) was refused",
                                               "every grid dimension must be at least 1"]),
    # Its traffic cases pass on their own (K = 48, a multiple of 16, where dropping the partial tile changes
    # nothing), but traffic and safety points need every correctness case to pass: the grading rule's proof.
    "lab3/truncating_phase_loop.cu": (ALL_SUITES, ["elements are wrong", "(this test on its own passed)",
                                                   "not awarded: traffic and memory safety points need every "
                                                   "correctness test of lab3-boundary to pass"]),
    "lab3/syncthreads_in_bounds_if.cu": (ALL_SUITES, ["divergent barrier"]),
    "lab3/naive_in_lab3.cu": ({"traffic"}, ["your kernel read", "a 16×16 tiled kernel reads at most 64,704"]),
    "lab3/b_read_transposed.cu": (ALL_SUITES, ["elements are wrong"]),
    "lab3/host_computed.cu": ({"traffic"}, ["not written by kernel code"]),
    "lab3/uninitialised_shared_read.cu": ({"memory safety"}, ["uninitialised shared memory"]),
    "lab3/double_store.cu": ({"traffic"}, ["stored more than once"]),
    # correct but uncoalesced: each tile loaded down its columns
    "lab3/tiles_loaded_by_column.cu": ({"traffic"}, ["loads A with", "loads B with", "sectors of 32 bytes per warp"]),
    "lab3/tile32.cu": (set(), []),
    "lab3/guard_in_inner_loop.cu": (set(), []),
    "lab3/ternary_loads.cu": (set(), []),
    "lab3/dynamic_shared_tiles.cu": (set(), []),
    "lab4/tiled16_in_lab4.cu": ({"traffic"}, ["your kernel read",
                                              "a kernel with 64×64 block tiles reads at most 18,816"]),
    "lab4/missing_second_barrier.cu": (ALL_SUITES, ["race on shared memory", "at the end of the loop body"]),
    "lab4/wrong_register_index.cu": (ALL_SUITES, ["elements are wrong"]),
    # At 55×48·48×43 a 64×64 and a 128×128 block tile read the same; the 130×36·36×260 case tells them apart.
    "lab5/coarsened64_in_lab5.cu": ({"traffic"}, ["your kernel read",
                                                  "a kernel with 128×128 block tiles reads at most 131,040"]),
    "lab5/missing_second_barrier.cu": (ALL_SUITES, ["race on shared memory", "at the end of the loop body"]),
    "lab5/wrong_register_tile_index.cu": (ALL_SUITES, ["elements are wrong"]),
    "lab5/float4_for_any_shape.cu": (ALL_SUITES, ["out-of-bounds load"]),
    "lab5/misaligned_float4.cu": (ALL_SUITES, ["misaligned load", "is the row length a multiple of 4?"]),
    # correct, but never float4s where the shape allows them: a warp's scalar requests use a quarter of each sector
    "lab5/scalar_loads_only.cu": ({"traffic"}, ["loads A with", "sectors of 32 bytes per warp request", "stores C with",
                                              "as one float4"]),
    # Lab 5's kernel in lab 6 scores full marks: warp tiling and double buffering leave global traffic unchanged.
    "lab6/register_tiled_in_lab6.cu": (set(), []),
    # Lab 4's kernel in lab 6 reads more than a 128×128 block tile allows: the traffic check is what fails it.
    "lab6/coarsened64_in_lab6.cu": ({"traffic"}, ["your kernel read",
                                                  "a kernel with 128×128 block tiles reads at most 131,040"]),
    "lab6/missing_stage_barrier.cu": (ALL_SUITES, ["race on shared memory",
                                                 "A __syncthreads() after :189 and before :126"]),
    "lab6/single_stage.cu": (ALL_SUITES, ["race on shared memory", "overwrites it"]),
    "lab6/scalar_loads_only.cu": ({"traffic"}, ["loads A with", "sectors of 32 bytes per warp request", "stores C with",
                                              "as one float4"]),
    "lab6/wrong_warp_placement.cu": (ALL_SUITES, ["never wrote it", "stored more than once"]),
    "lab6/float4_for_any_shape.cu": (ALL_SUITES, ["out-of-bounds load"]),
}
LAB_OF = {lab.short: lab.folder for lab in labs.all_labs()}


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print("ok      " + what, flush=True)
        else:
            self.failed += 1
            detail = str(detail)
            print("FAILED  " + what + ("\n        " + detail.replace("\n", "\n        ") if detail else ""), flush=True)
        return ok


def grade(lab, kernel, work):
    results = grading.grade_lab(lab, kernel, "emu", work)
    totals = scoring.score(results)
    return results, totals.get(lab, (0, 0))


def failing_suites(results):
    """The suites that lost points: a failed case, or a passed one whose points the grading rule withheld."""
    return {r.suite for r in results if not r.earned}


def check_references_and_skeletons(t, work):
    for lab in labs.folders():
        results, (s, m) = grade(lab, os.path.join(ROOT, "solutions", lab, "kernel.cu"), os.path.join(work, "ref"))
        t.check(s == m and m > 0, "solutions/%s scores full marks (%g/%g)" % (lab, s, m),
                "\n".join(r.output for r in results if not r.passed))
        results, (s, m) = grade(lab, toolchain.skeleton(lab), os.path.join(work, "skel"))
        built = not any(r.name == "builds" for r in results)
        t.check(built and s == 0, "labs/%s (skeleton) builds and scores zero (%g/%g)" % (lab, s, m),
                "\n".join(r.output for r in results if r.passed or r.name == "builds"))


def check_catalogue(t, work):
    files = sorted(os.path.relpath(p, os.path.join(ROOT, "grader", "catalogue"))
                   for p in glob.glob(os.path.join(ROOT, "grader", "catalogue", "lab*", "*.cu")))
    t.check(set(files) == set(CATALOGUE), "the catalogue table lists every catalogue kernel",
            "in the folder only: %s; in the table only: %s" % (sorted(set(files) - set(CATALOGUE)),
                                                               sorted(set(CATALOGUE) - set(files))))
    for name in sorted(CATALOGUE):
        must_fail, words = CATALOGUE[name]
        lab = LAB_OF[name.split("/")[0]]
        path = os.path.join(ROOT, "grader", "catalogue", name)
        if not os.path.exists(path):
            continue
        results, (s, m) = grade(lab, path, os.path.join(work, "cat", name.replace("/", "-")))
        failed = failing_suites(results)
        output = "\n".join(r.report_output() for r in results if not r.earned)
        missing = [w for w in words if w not in output]
        if must_fail:
            ok = failed == must_fail and not missing
            what = "%s fails %s with '%s' (%g/%g)" % (name, " + ".join(sorted(must_fail)), "', '".join(words), s, m)
        else:
            ok = s == m and m > 0
            what = "%s scores full marks (%g/%g)" % (name, s, m)
        t.check(ok, what, "failing suites: %s\n%s" % (sorted(failed), output[:3000]))


# What `make lab3` shows a student for three classic mistakes: the whole test program runs (a failed CUDA_CHECK
# ends one test, not the run) and ends with a summary; the race report says where the missing barrier goes, and the
# two missing barriers read differently; each finding is printed once in full (the demo only names it); a check not
# judged because correctness failed takes one line, and so does another size failing the same way; the whole report
# stays under 25 lines.
STUDENT_REPORTS = {
    "lab3/grid_rounded_down.cu": ["9 tests: 0 passed, 9 failed", "was refused with cudaErrorInvalidValue",
                                  "CUDA_CHECK(cudaGetLastError()) failed", "the launch shown above again"],
    "lab3/missing_first_barrier.cu": ["9 tests: 0 passed", "A __syncthreads() after :36 and before :41",
                                      "the race shown above again", "(one more size fails the same way)",
                                      "— not judged: the kernel's results are wrong", "(race; see the tests above)"],
    "lab3/missing_second_barrier.cu": ["9 tests: ", "at the end of the loop body, before the loop comes back to :29",
                                       "the race shown above again"],
}


def check_student_reports(t):
    for name, words in sorted(STUDENT_REPORTS.items()):
        lab = LAB_OF[name.split("/")[0]]
        proc = subprocess.run([sys.executable, "-m", "course", "lab", lab, "--kernel",
                               os.path.join(ROOT, "grader", "catalogue", name), "--backend", "emu"],
                              capture_output=True, text=True, cwd=ROOT)
        out = proc.stdout + proc.stderr
        lines = [line for line in out.splitlines() if line.strip()]
        missing = [w for w in words if w not in out]
        full = sum(1 for line in lines if ": race on shared memory" in line or "was refused with" in line)
        t.check(proc.returncode != 0 and not missing and len(lines) < 25 and full <= 1,
                "make %s KERNEL=%s: one summary, the fix named, findings not repeated (%d lines)" %
                (lab.split("-")[0], name, len(lines)),
                "missing: %s; findings printed in full: %d\n%s" % (missing, full, out[:3000]))


def check_nvcc(t):
    nvcc = shutil.which("nvcc")
    pristine = toolchain.pristine_labs()  # the skeletons as committed, not a student's work in labs/
    kernels = sorted(glob.glob(os.path.join(pristine, "*", "*.cu")) +
                     glob.glob(os.path.join(ROOT, "solutions", "*", "*.cu")) +
                     glob.glob(os.path.join(ROOT, "grader", "catalogue", "*", "*.cu")))
    if not nvcc:
        print("skipped: nvcc not found, so %d kernels were not compiled with it" % len(kernels))
        t.skipped += len(kernels)
        return
    with tempfile.TemporaryDirectory() as tmp:
        for k in kernels:
            rel = os.path.relpath(k, ROOT)
            if k.startswith(pristine + os.sep):
                rel = os.path.join("labs", os.path.relpath(k, pristine))
            parts = rel.split(os.sep)
            lab = parts[1] if parts[0] in ("labs", "solutions") else LAB_OF[parts[2]]
            cmd = [nvcc, "-arch=sm_90", "-std=c++17", "-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra",
                   "-I", os.path.join(ROOT, "common"), "-I", os.path.join(ROOT, "labs", lab), "-c", k,
                   "-o", os.path.join(tmp, "k.o")]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            t.check(proc.returncode == 0 and not proc.stderr.strip(), "nvcc sm_90, no warnings: " + rel,
                    (proc.stdout + proc.stderr).strip())


def main(argv):
    t = Tally()
    if "--nvcc-only" in argv:
        check_nvcc(t)
    else:
        work = os.path.join(ROOT, "build", "selftest")
        shutil.rmtree(work, ignore_errors=True)
        check_references_and_skeletons(t, work)
        check_catalogue(t, work)
        check_student_reports(t)
    summary = "%d passed, %d failed" % (t.passed, t.failed) + (", %d skipped" % t.skipped if t.skipped else "")
    print(summary)
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
