#!/usr/bin/env python3
"""selftest — the grader tested against kernels whose grades are known.

    python3 -m grader.selftest              every check below (part of `make test`)
    python3 -m grader.selftest --nvcc-only  only: every kernel compiles with nvcc for sm_90 without warnings

- Every reference solution scores full marks; every skeleton builds and scores zero.
- Every entry of the catalogue (grader/catalogue/labN/NAME.patch, applied to its base, with the verdict its NAME.ini
  states; course/catalogue.py) gets the grade and the diagnosis it deserves: for each check the grader makes, a
  known-wrong kernel that must fail it, and correct variants that must pass. A patch that no longer applies fails.
Prints one line per check and closes with "N passed, N failed".
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

from course import catalogue, grading, labs, scoring, toolchain
from course.paths import ROOT


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


def grade(lab, kernel, work, shown_as=None):
    results = grading.grade_lab(lab, kernel, "emu", work, shown_as=shown_as)
    totals = scoring.score(results)
    return results, totals.get(lab, (0, 0))


def failing_suites(results):
    """The suites that lost points: a failed case, or a passed one whose points the grading rule withheld."""
    return {r.suite for r in results if not r.earned}


def check_references_and_skeletons(t, work):
    for lab in labs.folders():
        results, (s, m) = grade(lab, os.path.join(ROOT, "grader", "solutions", lab, "kernel.cu"), os.path.join(work, "ref"))
        t.check(s == m and m > 0, "grader/solutions/%s scores full marks (%g/%g)" % (lab, s, m),
                "\n".join(r.output for r in results if not r.passed))
        results, (s, m) = grade(lab, toolchain.skeleton(lab), os.path.join(work, "skel"))
        built = not any(r.name == "builds" for r in results)
        t.check(built and s == 0, "labs/%s (skeleton) builds and scores zero (%g/%g)" % (lab, s, m),
                "\n".join(r.output for r in results if r.passed or r.name == "builds"))


def load_catalogue(t):
    """The catalogue's entries (course/catalogue.py), each with its kernel materialised under build/catalogue; an
    entry whose .ini is malformed or whose .patch no longer applies is a failed check, and the others go on."""
    try:
        found = catalogue.entries()
    except catalogue.CatalogueError as e:
        t.check(False, "the catalogue's .ini and .patch files pair up and read", e)
        return []
    t.check(len(found) > 0, "the catalogue has entries (grader/catalogue/labN/*.ini)")
    ready = []
    for entry in found:
        try:
            catalogue.materialise(entry)
            ready.append(entry)
        except catalogue.CatalogueError as e:
            t.check(False, "%s: its patch applies to %s" % (entry.name, entry.base), e)
    return ready


def check_catalogue(t, work, found):
    """Every entry gets the verdict its .ini states: the suites in `fails` lose points, the failure output holds its
    `words` and the test results carry its `findings` (the emulator's kinds); with no `fails`, full marks."""
    for entry in found:
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
        t.check(ok, what, "failing suites: %s; missing: %s\n%s" % (sorted(failed), missing, output[:3000]))


# What `make lab3` shows a student for the entries with a [student report] (three classic mistakes): the whole test
# program runs (a failed CUDA_CHECK ends one test, not the run) and ends with a summary; the race report says where
# the missing barrier goes, and the two missing barriers read differently; each finding is printed once in full (the
# demo only names it); a check not judged because correctness failed takes one line, and so does another size
# failing the same way; the whole report stays under 25 lines.
def check_student_reports(t, found):
    for entry in (e for e in found if e.student_report):
        kernel = os.path.relpath(entry.path, ROOT)
        proc = subprocess.run([sys.executable, "-m", "course", "lab", entry.lab.folder, "--kernel", kernel,
                               "--backend", "emu"], capture_output=True, text=True, cwd=ROOT)
        out = proc.stdout + proc.stderr
        lines = [line for line in out.splitlines() if line.strip()]
        missing = [w for w in entry.student_report if w not in out]
        full = sum(1 for line in lines if ": race on shared memory" in line or "was refused with" in line)
        t.check(proc.returncode != 0 and not missing and len(lines) < 25 and full <= 1,
                "make %s KERNEL=%s: one summary, the fix named, findings not repeated (%d lines)" %
                (entry.lab.short, kernel, len(lines)),
                "missing: %s; findings printed in full: %d\n%s" % (missing, full, out[:3000]))


def check_nvcc(t):
    nvcc = shutil.which("nvcc")
    pristine = toolchain.pristine_labs()  # the skeletons as committed, not a student's work in labs/
    found = load_catalogue(t)
    kernels = sorted((os.path.join("labs", os.path.relpath(k, pristine)), k, os.path.basename(os.path.dirname(k)))
                     for k in glob.glob(os.path.join(pristine, "*", "*.cu")))
    kernels += sorted((os.path.relpath(k, ROOT), k, os.path.basename(os.path.dirname(k)))
                      for k in glob.glob(os.path.join(ROOT, "grader", "solutions", "*", "*.cu")))
    kernels += [(e.shown, e.path, e.lab.folder) for e in found]
    if not nvcc:
        print("skipped: nvcc not found, so %d kernels were not compiled with it" % len(kernels))
        t.skipped += len(kernels)
        return
    with tempfile.TemporaryDirectory() as tmp:
        for shown, path, lab in kernels:
            cmd = [nvcc, "-arch=sm_90", "-std=c++17", "-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra",
                   "-I", os.path.join(ROOT, "common"), "-I", os.path.join(ROOT, "labs", lab), "-c", path,
                   "-o", os.path.join(tmp, "k.o")]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            t.check(proc.returncode == 0 and not proc.stderr.strip(), "nvcc sm_90, no warnings: " + shown,
                    (proc.stdout + proc.stderr).strip())


def main(argv):
    t = Tally()
    if "--nvcc-only" in argv:
        check_nvcc(t)
    else:
        work = os.path.join(ROOT, "build", "selftest")
        shutil.rmtree(work, ignore_errors=True)
        check_references_and_skeletons(t, work)
        found = load_catalogue(t)
        check_catalogue(t, work, found)
        check_student_reports(t, found)
    summary = "%d passed, %d failed" % (t.passed, t.failed) + (", %d skipped" % t.skipped if t.skipped else "")
    print(summary)
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
