#!/usr/bin/env python3
"""package — the course's two releases, built from the working tree (labs/ as committed).

    python3 -m grader.package handout       build/handout/course/ and build/handout/course.tar.gz   (make handout)
    python3 -m grader.package gradescope    build/gradescope/autograder.zip                        (make gradescope)
    python3 -m grader.package autograder 3  build/gradescope/lab3-boundary/autograder.zip: lab 3 alone
                                                                                   (make autograder LAB=3)

The handout is what students get: the course without its instructor-only trees, grader/ (the solutions, the
catalogue, hidden tests, class grading) and tests/ (the course's own tests), left out whole. So it has the labs,
lessons, harness, emulator, the course package (`make labN`, the confinement check, so that a student sees a refusal
before submitting, `make pitfall`) and the tools. The catalogue's known-wrong kernels go out as emulator objects in
pitfalls/<lab>/, for `make pitfall`, never as source.

The Gradescope autograder is the handout plus class grading and its hidden tests (no solutions, no catalogue), plus
setup.sh (installs the Debian packages through tools/install-deps) and run_autograder (grades
/autograder/submission into /autograder/results/results.json; AUTOGRADER_ROOT moves /autograder, for tests).
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

from course import labs, pitfalls, toolchain
from course.paths import ROOT

# The instructor-only trees, left out of the handout whole: solutions/ (the reference kernels), grader/ (class
# grading, the catalogue of known-wrong kernels, hidden tests, malicious submissions), tests/ (the course's own
# tests) and CI. Everything else the repository holds is what students get.
INSTRUCTOR_ONLY = ("solutions", "grader", "tests", ".ci")
# What the autograder adds to the handout: class grading and its hidden tests (no solutions, no catalogue)
AUTOGRADER_EXTRA = ("grader/__init__.py", "grader/classgrade.py", "grader/hidden")

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image: the Debian packages the course needs.
set -euo pipefail
cd "$(dirname "$0")"
tools/install-deps grader
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission: grades /autograder/submission into /autograder/results/results.json.
# AUTOGRADER_ROOT moves /autograder (the course's tests use a temporary folder). Gradescope already gives each
# submission its own container; the bubblewrap sandbox is used too where the container allows it, else the
# unprivileged-user fallback (GRADE_SANDBOX=setpriv forces the fallback, as the course's tests do).
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
cd "$root/source"
mkdir -p "$root/results"
lab=()
if [ -s assignment_lab ]; then lab=(--lab "$(cat assignment_lab)"); fi  # a one-lab autograder (make autograder LAB=N)
exec python3 -m grader.classgrade grade-one --submission "$root/submission" --out "$root/results" \\
  --backend "${BACKEND:-emu}" --sandbox "${GRADE_SANDBOX:-auto}" "${lab[@]}"
"""


def say(message):
    print(message, flush=True)


def course_files():
    """Every file of the course, relative to the root: what git tracks, or, without git history (an unpacked
    release), every file but build outputs."""
    proc = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True)
    if proc.returncode == 0 and proc.stdout:
        return sorted(f for f in proc.stdout.decode().split("\0") if f)
    found = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in (".git", "build", "__pycache__")]
        found += [os.path.relpath(os.path.join(dirpath, f), ROOT) for f in filenames if not f.endswith(".pyc")]
    return sorted(found)


def handout_files():
    return [f for f in course_files() if f.split("/")[0] not in INSTRUCTOR_ONLY]


def autograder_files():
    extra = [f for f in course_files() if any(f == e or f.startswith(e + "/") for e in AUTOGRADER_EXTRA)]
    return handout_files() + extra


def copy_files(files, dest):
    """Copies each file into dest; labs/ as committed (toolchain.pristine_labs), so that a release never carries
    work done in this checkout's labs/, everything else from the working tree."""
    pristine = toolchain.pristine_labs()
    for name in files:
        src = os.path.join(pristine, name[len("labs/"):]) if name.startswith("labs/") else os.path.join(ROOT, name)
        if not os.path.isfile(src):
            if name.startswith("labs/"):
                continue  # tracked now, not yet committed: the handout is labs/ as committed
            raise SystemExit("package: %s is missing from the course" % name)
        os.makedirs(os.path.dirname(os.path.join(dest, name)) or dest, exist_ok=True)
        shutil.copy2(src, os.path.join(dest, name))


# The README's sections for instructors are left out of the handout, and its first commands are the student's.
INSTRUCTOR_SECTIONS = ("## Instructors", "## Grading a class", "### Instructor-only")
STUDENT_START = """```
tools/install-deps && make lab1
make help
```

The first installs the Debian packages the course needs and runs lab 1's tests on your (unfinished) kernel — on
the emulator when there is no GPU. They fail until you fill in the `TODO(student)` parts, and each says what is
wrong:

```
correctness
  FAIL  width=34 with A = 1, B = 2: every value is 68.0
        ... 1156 of 1156 elements are wrong; the first is C[0][0] (row, col): got nan, want 68 ... — NaN means your kernel never wrote it
  ...
12 tests: 0 passed, 12 failed
```

Read [lesson 1](docs/lab1-naive.md), fill in the kernel, its launcher and the host code around them, and run
`make lab1` again until every test passes. The second command lists every make target.
"""


def student_readme(text):
    """The course README without its instructor sections (a section's subsections go with it; a subsection of its
    own, `### Instructor-only ...`, goes alone), starting with the student's first commands."""
    sections = [sub for section in re.split(r"(?m)^(?=## )", text) if not section.startswith(INSTRUCTOR_SECTIONS)
                for sub in re.split(r"(?m)^(?=### )", section)]
    kept = [s for s in sections if not s.startswith(INSTRUCTOR_SECTIONS)]
    out = []
    for s in kept:
        if s.startswith("## Start here"):
            s = s.splitlines(keepends=True)[0] + "\n" + STUDENT_START + "\n"
        out.append(s)
    return "".join(out)


def build_pitfalls(tree):
    """The catalogue's known-wrong kernels (course/pitfalls.py) as emulator objects in tree/pitfalls/<lab>/, each
    with its description, for `make pitfall`: students see what each bug gets without its source, which is the
    lab's solution with one line wrong."""
    jobs = []
    for lab in labs.folders():
        for pit in pitfalls.available(lab).values():
            where = os.path.join(tree, "pitfalls", lab)
            os.makedirs(where, exist_ok=True)
            with open(os.path.join(where, pit.name + ".txt"), "w", encoding="utf-8") as f:
                f.write(pit.description + "\n")
            jobs.append((lab, pit, os.path.join(where, pit.name + ".o")))
    emu = toolchain.Toolchain("emu")
    includes = [os.path.join(ROOT, "common")]
    pristine = toolchain.pristine_labs()
    # built once for each committed labs/ (its lab.h), and again only when the kernel or the emulator changes
    cache = os.path.join(ROOT, "build", "pitfall-objects", os.path.basename(os.path.dirname(pristine)))

    def build(job):
        lab, pit, obj = job
        # compiled against the committed lab.h, exactly as the handout ships it
        cached = emu.compile(pit.source, os.path.join(cache, lab, pit.name + ".o"),
                             includes + [os.path.join(pristine, lab)], shown_as="pitfall/%s.cu" % pit.name)
        shutil.copyfile(cached, obj)
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(build, jobs))
    return len(jobs)


def cmd_handout():
    out = os.path.join(ROOT, "build", "handout")
    tree = os.path.join(out, "course")
    shutil.rmtree(out, ignore_errors=True)
    copy_files(handout_files(), tree)
    try:
        built = build_pitfalls(tree)
    except toolchain.BuildError as e:
        raise SystemExit("package: a pitfall kernel did not build:\n%s" % e)
    readme = os.path.join(tree, "README.md")
    with open(readme) as f:
        text = student_readme(f.read())
    with open(readme, "w") as f:
        f.write(text)
    tarball = os.path.join(out, "course.tar.gz")
    with tarfile.open(tarball, "w:gz") as t:
        t.add(tree, arcname="course")
    files = sum(len(f) for _, _, f in os.walk(tree))
    say("wrote %s (%d files, %d pitfalls) and %s" % (os.path.relpath(tree), files, built, os.path.relpath(tarball)))
    return 0


def cmd_gradescope(lab=None):
    """The all-labs autograder, or with `lab` one that grades that lab alone (one Gradescope assignment per lab):
    the lab's folder name in assignment_lab, which run_autograder passes on."""
    out = os.path.join(ROOT, "build", "gradescope", lab or "")
    tree = os.path.join(out, "source")
    shutil.rmtree(out, ignore_errors=True)
    copy_files(autograder_files(), tree)
    if lab:
        with open(os.path.join(tree, "assignment_lab"), "w") as f:
            f.write(lab + "\n")
    for name, text in (("setup.sh", SETUP_SH), ("run_autograder", RUN_AUTOGRADER)):
        with open(os.path.join(tree, name), "w") as f:
            f.write(text)
        os.chmod(os.path.join(tree, name), 0o755)
    archive = os.path.join(out, "autograder.zip")
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for dirpath, dirnames, filenames in os.walk(tree):
            dirnames.sort()
            for f in sorted(filenames):
                path = os.path.join(dirpath, f)
                info = zipfile.ZipInfo.from_file(path, os.path.relpath(path, tree))
                info.external_attr = (os.stat(path).st_mode & 0xFFFF) << 16  # keeps the executable bits
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(path, "rb") as src:
                    z.writestr(info, src.read())
    say("wrote %s (setup.sh and run_autograder at its top%s)" % (
        os.path.relpath(archive), "; it grades %s alone" % lab if lab else ""))
    return 0


def cmd_autograder(lab_name):
    try:
        lab = labs.find(lab_name).folder
    except labs.LabError as e:
        raise SystemExit("package: %s" % e)
    return cmd_gradescope(lab)


def main(argv):
    if argv[:1] == ["handout"] and len(argv) == 1:
        return cmd_handout()
    if argv[:1] == ["gradescope"] and len(argv) == 1:
        return cmd_gradescope()
    if argv[:1] == ["autograder"] and len(argv) == 2:
        return cmd_autograder(argv[1])
    raise SystemExit("usage: python3 -m grader.package handout | gradescope | autograder LAB")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
