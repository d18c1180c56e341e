#!/usr/bin/env python3
"""selftest — the grader tested against kernels whose grades are known.

    python3 -m grader.selftest              every check below, as a table (`make test` runs the same checks with
                                            pytest: tests/grader/test_selftest.py, make test-grader)
    python3 -m grader.selftest --nvcc-only  only: every kernel compiles with nvcc for sm_90 without warnings
                                            (tests/grader/test_nvcc.py, make test-nvcc)

- Every reference solution scores full marks; every skeleton builds and scores zero.
- Every entry of the catalogue (grader/catalogue/labN/NAME.patch, applied to its base, with the verdict its NAME.ini
  states; course/catalogue.py) gets the grade and the diagnosis it deserves: for each check the grader makes, a
  known-wrong kernel that must fail it, and correct variants that must pass. A patch that no longer applies fails.
Each check_* function below makes one check and returns a Check; this program prints one line per check and closes
with "N passed, N failed", and the pytest files assert each Check in a test of its own.
"""
import functools
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections import namedtuple

from course import catalogue, grading, labs, scoring, toolchain
from course.paths import ROOT

WORK = os.path.join(ROOT, "build", "selftest")

# ok: whether the check passed; what: the check, as one line; detail: what to read when it failed
Check = namedtuple("Check", "ok what detail")
# checks not made, and why: nvcc is not installed
Skipped = namedtuple("Skipped", "count why")


def grade(lab, kernel, work, shown_as=None):
    results = grading.grade_lab(lab, kernel, "emu", work, shown_as=shown_as)
    totals = scoring.score(results)
    return results, totals.get(lab, (0, 0))


def failing_suites(results):
    """The suites that lost points: a failed case, or a passed one whose points the grading rule withheld."""
    return {r.suite for r in results if not r.earned}


def check_reference(lab, work):
    results, (s, m) = grade(lab, os.path.join(ROOT, "solutions", lab, "kernel.cu"), os.path.join(work, "ref"))
    return Check(s == m and m > 0, "solutions/%s scores full marks (%g/%g)" % (lab, s, m),
                 "\n".join(r.output for r in results if not r.passed))


def check_skeleton(lab, work):
    results, (s, m) = grade(lab, toolchain.skeleton(lab), os.path.join(work, "skel"))
    built = not any(r.name == "builds" for r in results)
    return Check(built and s == 0, "labs/%s (skeleton) builds and scores zero (%g/%g)" % (lab, s, m),
                 "\n".join(r.output for r in results if r.passed or r.name == "builds"))


def read_catalogue():
    """(entries, Check): the catalogue's entries (course/catalogue.py), read but not yet materialised, and whether
    its .ini and .patch files pair up and read and there are any."""
    try:
        found = catalogue.entries()
    except catalogue.CatalogueError as e:
        return [], Check(False, "the catalogue's .ini and .patch files pair up and read", e)
    return found, Check(len(found) > 0, "the catalogue has entries (grader/catalogue/labN/*.ini)", "")


def materialise(entry):
    """A failed Check where the entry's patch no longer applies (its kernel is then not written), else None."""
    try:
        catalogue.materialise(entry)
    except catalogue.CatalogueError as e:
        return Check(False, "%s: its patch applies to %s" % (entry.name, entry.base), e)
    return None


def check_entry(entry, work):
    """The entry gets the verdict its .ini states: the suites in `fails` lose points, the failure output holds its
    `words` and the test results carry its `findings` (the emulator's kinds); with no `fails`, full marks."""
    refused = materialise(entry)
    if refused:
        return refused
    results, (s, m) = grade(entry.lab.folder, entry.path, os.path.join(work, "cat", entry.name.replace("/", "-")),
                            entry.shown)
    failed = failing_suites(results)
    output = "\n".join(r.report_output() for r in results if not r.earned)
    missing = [w for w in entry.words if w not in output]
    # the emulator's findings as the verdict records carry them (kind, file, line), no text read
    kinds = {f.kind for r in results for f in r.findings}
    missing += ["finding '%s' (found: %s)" % (k, ", ".join(sorted(kinds)) or "none")
                for k in entry.findings if k not in kinds]
    if entry.fails:
        ok = failed == entry.fails and not missing
        what = "%s fails %s with '%s'%s (%g/%g)" % (
            entry.shown, " + ".join(sorted(entry.fails)), "', '".join(entry.words),
            " and the finding%s %s" % ("s" if len(entry.findings) > 1 else "", ", ".join(entry.findings))
            if entry.findings else "", s, m)
    else:
        ok = s == m and m > 0
        what = "%s scores full marks (%g/%g)" % (entry.shown, s, m)
    return Check(ok, what, "failing suites: %s; missing: %s\n%s" % (sorted(failed), missing, output[:3000]))


# What `make lab3` shows a student for the entries with a [student report] (three classic mistakes): the whole test
# program runs (a failed CUDA_CHECK ends one test, not the run) and ends with a summary; the race report says where
# the missing barrier goes, and the two missing barriers read differently; each finding is printed once in full (the
# demo only names it); a check not judged because correctness failed takes one line, and so does another size
# failing the same way; the whole report stays under 25 lines.
def check_student_report(entry):
    refused = materialise(entry)
    if refused:
        return refused
    kernel = os.path.relpath(entry.path, ROOT)
    proc = subprocess.run([sys.executable, "-m", "course", "lab", entry.lab.folder, "--kernel", kernel,
                           "--backend", "emu"], capture_output=True, text=True, cwd=ROOT)
    out = proc.stdout + proc.stderr
    lines = [line for line in out.splitlines() if line.strip()]
    missing = [w for w in entry.student_report if w not in out]
    full = sum(1 for line in lines if ": race on shared memory" in line or "was refused with" in line)
    # a line per test (12 at most), the lab's headings, and a few lines of summary and demo: 30 is a report that
    # repeats itself
    return Check(proc.returncode != 0 and not missing and len(lines) < 30 and full <= 1,
                 "make %s KERNEL=%s: one summary, the fix named, findings not repeated (%d lines)" %
                 (entry.lab.short, kernel, len(lines)),
                 "missing: %s; findings printed in full: %d\n%s" % (missing, full, out[:3000]))


def nvcc_kernels(found):
    """[(shown, path, lab)]: the skeletons as committed (not a student's work in labs/), the reference solutions and
    the catalogue's entries (their kernels written by check_nvcc)."""
    pristine = toolchain.pristine_labs()
    kernels = sorted((os.path.join("labs", os.path.relpath(k, pristine)), k, os.path.basename(os.path.dirname(k)))
                     for k in glob.glob(os.path.join(pristine, "*", "*.cu")))
    kernels += sorted((os.path.relpath(k, ROOT), k, os.path.basename(os.path.dirname(k)))
                      for k in glob.glob(os.path.join(ROOT, "solutions", "*", "*.cu")))
    kernels += [(e.shown, e, e.lab.folder) for e in found]
    return kernels


def check_nvcc(nvcc, shown, path, lab):
    """path: a kernel file, or a catalogue entry (its kernel is written first)."""
    if isinstance(path, catalogue.Entry):
        refused = materialise(path)
        if refused:
            return refused
        path = path.path
    what = "nvcc sm_90, no warnings: " + shown
    flags = ["-arch=sm_90", "-std=c++17", "-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra"]
    includes = [os.path.join(ROOT, "common"), os.path.join(ROOT, "labs", lab)]
    passed = nvcc_passed_marker(nvcc, flags, path, includes)
    if os.path.exists(passed):  # this source and every header it may include passed before, with this nvcc
        return Check(True, what, "")
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [nvcc] + flags + sum((["-I", d] for d in includes), []) + ["-c", path, "-o", os.path.join(tmp, "k.o")]
        proc = subprocess.run(cmd, capture_output=True, text=True)
    ok = proc.returncode == 0 and not proc.stderr.strip()
    if ok:
        os.makedirs(os.path.dirname(passed), exist_ok=True)
        open(passed, "w").close()
    return Check(ok, what, (proc.stdout + proc.stderr).strip())


@functools.lru_cache(maxsize=None)
def nvcc_version(nvcc):
    return subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout


def nvcc_passed_marker(nvcc, flags, path, includes):
    """The file that says this compile passed before: named by a hash of nvcc's version, the flags, the source and
    every header of the include folders (a change to any of them compiles it again). Only passes are kept."""
    h = hashlib.sha256("\0".join([nvcc_version(nvcc)] + flags).encode())
    for name in [path] + sorted(os.path.join(d, f) for d in includes for f in os.listdir(d)
                                if f.endswith((".h", ".cuh"))):
        with open(name, "rb") as f:
            h.update(name.encode() + b"\0" + f.read())
    return os.path.join(ROOT, "build", "tests", "nvcc-passed", h.hexdigest()[:32])


def all_checks(argv):
    """Every check this program makes, one at a time, in the table's order: a Check, or Skipped where nvcc is
    missing."""
    found, read = read_catalogue()
    if "--nvcc-only" in argv:
        yield read
        nvcc = shutil.which("nvcc")
        kernels = nvcc_kernels(found)
        if not nvcc:
            yield Skipped(len(kernels), "nvcc not found, so %d kernels were not compiled with it" % len(kernels))
            return
        for shown, path, lab in kernels:
            yield check_nvcc(nvcc, shown, path, lab)
        return
    shutil.rmtree(WORK, ignore_errors=True)
    for lab in labs.folders():
        yield check_reference(lab, WORK)
        yield check_skeleton(lab, WORK)
    yield read
    for entry in found:
        yield check_entry(entry, WORK)
    for entry in (e for e in found if e.student_report):
        yield check_student_report(entry)


def main(argv):
    passed = failed = skipped = 0
    for check in all_checks(argv):
        if isinstance(check, Skipped):
            skipped += check.count
            print("skipped: " + check.why)
        elif check.ok:
            passed += 1
            print("ok      " + check.what, flush=True)
        else:
            failed += 1
            detail = str(check.detail)
            print("FAILED  " + check.what + ("\n        " + detail.replace("\n", "\n        ") if detail else ""),
                  flush=True)
    print("%d passed, %d failed" % (passed, failed) + (", %d skipped" % skipped if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
