#!/usr/bin/env python3
"""test_grading — class grading tested end to end (part of `make test`, as `make test-grading`).

- A batch of submissions (correct, wrong, malformed archives and layouts, and every kernel of grader/malicious/)
  graded by `grade-all`: each gets the status, score and reason it deserves; hidden tests are there, with sizes a
  lab allows, and hidden from students; nothing the sandbox wrote is taken as a result; re-running grades only
  what changed; bad input gets a one-line error.
- `make handout` builds a release without solutions/ or the grader's instructor-only parts, and `make labN`
  works there on its own: every skeleton fails its tests.
- `make gradescope` builds an autograder whose run_autograder grades a fake /autograder tree.
Prints one line per check and closes with "N passed, N failed".
"""
import csv
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import classgrade  # noqa: E402
import labtool  # noqa: E402
from selftest import Tally  # noqa: E402
import sandbox  # noqa: E402

ROOT = labtool.ROOT
LABS = labtool.LABS
MALICIOUS = os.path.join(ROOT, "grader", "malicious")
# Tight limits keep the attacks quick to stop; a correct lab needs a few seconds.
LIMITS = {"GRADE_WALL_S": "20", "GRADE_CPU_S": "8", "GRADE_OUTPUT_MB": "8"}
NETWORK_PORT = 47811  # grader/malicious/lab1/network.cu connects here


def malicious_table():
    """{file: (score, reason text)} from the README's table: the table is the specification."""
    rows = {}
    with open(os.path.join(MALICIOUS, "README.md")) as f:
        for line in f:
            m = re.match(r"\|\s*`(lab\d+/[^`]+\.cu)`\s*\|.*\|\s*graded, ([\d.]+)\s*\|\s*`([^`]+)`\s*\|\s*$", line)
            if m:
                rows[m.group(1)] = (float(m.group(2)), m.group(3))
    return rows


def lab_of(short):
    return labtool.SHORT[short]


# ---------------------------------------------------------------------------------------------------------------
# The class
# ---------------------------------------------------------------------------------------------------------------
def make_class(folder):
    """Writes a class into folder; returns {student: (status, {lab: score or None}, reason text)}."""
    expect = {}
    solutions = os.path.join(ROOT, "solutions")
    # every lab's reference solution: hidden tests must pass for all of them, lab 2 with multiples of its tile
    shutil.copytree(solutions, os.path.join(folder, "all_correct"), ignore=shutil.ignore_patterns("*.md"))
    expect["all_correct"] = ("graded", {lab: 100 for lab in LABS}, "")
    # a zip of labs/ with one lab, nested one level down
    with zipfile.ZipFile(os.path.join(folder, "zipped.zip"), "w") as z:
        z.write(os.path.join(solutions, LABS[0], "kernel.cu"), "labs/%s/kernel.cu" % LABS[0])
    expect["zipped"] = ("graded", {LABS[0]: 100}, "")
    # a tar.gz of an untouched skeleton: graded, zero, with the diagnosis (hidden sizes cannot change that)
    with tarfile.open(os.path.join(folder, "wrong.tar.gz"), "w:gz") as t:
        t.add(os.path.join(ROOT, "labs", LABS[0], "kernel.cu"), "%s/kernel.cu" % LABS[0])
    expect["wrong"] = ("graded", {LABS[0]: 0}, "elements are wrong")
    # malformed entries
    os.makedirs(os.path.join(folder, "empty"))
    expect["empty"] = ("empty", {}, "empty")
    os.makedirs(os.path.join(folder, "flat"))
    shutil.copy(os.path.join(solutions, LABS[0], "kernel.cu"), os.path.join(folder, "flat", "kernel.cu"))
    expect["flat"] = ("bad-layout", {}, "no lab folder")
    with open(os.path.join(folder, "broken.zip"), "wb") as f:
        f.write(b"PK\x03\x04 this is not really a zip archive")
    expect["broken"] = ("bad-archive", {}, "cannot be read")
    with open(os.path.join(folder, "truncated.tar.gz"), "wb") as f:
        f.write(b"\x1f\x8b\x08\x00 not gzip data")
    expect["truncated"] = ("bad-archive", {}, "cannot be read")
    with tarfile.open(os.path.join(folder, "traversal.tar.gz"), "w:gz") as t:
        data = b"// escaped\n"
        info = tarfile.TarInfo("../../escaped-by-traversal.cu")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    expect["traversal"] = ("unsafe-archive", {}, "points outside it")
    with zipfile.ZipFile(os.path.join(folder, "absolute.zip"), "w") as z:
        z.writestr("/tmp/escaped-by-absolute-path.cu", "// escaped\n")
    expect["absolute"] = ("unsafe-archive", {}, "points outside it")
    with tarfile.open(os.path.join(folder, "symlink.tar.gz"), "w:gz") as t:
        info = tarfile.TarInfo("%s/kernel.cu" % LABS[0])
        info.type = tarfile.SYMTYPE
        info.linkname = "/etc/passwd"
        t.addfile(info)
    expect["symlink"] = ("unsafe-archive", {}, "not a plain file")
    # the malicious catalogue
    for name, (points, reason) in malicious_table().items():
        student = "malicious-" + os.path.splitext(os.path.basename(name))[0]
        lab = lab_of(name.split("/")[0])
        os.makedirs(os.path.join(folder, student, lab))
        shutil.copy(os.path.join(MALICIOUS, name), os.path.join(folder, student, lab, "kernel.cu"))
        expect[student] = ("graded", {lab: points}, reason)
    return expect


def run_grade_all(submissions, out, extra_env=None, jobs=2):
    env = dict(os.environ, **LIMITS, **(extra_env or {}))
    cmd = [sys.executable, os.path.join(ROOT, "grader", "classgrade.py"), "grade-all", "--submissions", submissions,
           "--out", out, "--jobs", str(jobs), "--backend", "emu"]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)


def read_gradebook(out):
    with open(os.path.join(out, "gradebook.csv"), newline="") as f:
        return list(csv.DictReader(f))


def check_batch(t, tmp):
    submissions, out = os.path.join(tmp, "class"), os.path.join(tmp, "graded")
    os.makedirs(submissions)
    expect = make_class(submissions)
    table = malicious_table()
    files = sorted(os.path.relpath(p, MALICIOUS) for p in
                   (os.path.join(d, f) for d, _, fs in os.walk(MALICIOUS) for f in fs) if p.endswith(".cu"))
    t.check(files and set(files) == set(table), "grader/malicious/README.md's table lists every malicious kernel",
            "in the folder only: %s; in the table only: %s" % (sorted(set(files) - set(table)),
                                                               sorted(set(table) - set(files))))
    # network.cu needs someone to answer on its port, or its attack proves nothing
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(("127.0.0.1", NETWORK_PORT))
        listener.listen(64)
        listening = True
    except OSError:
        listening = False
    started = time.time()
    proc = run_grade_all(submissions, out)
    seconds = time.time() - started
    listener.close()
    t.check(proc.returncode == 0, "grade-all grades a class of %d entries (%.0f s on 2 jobs)" % (len(expect), seconds),
            proc.stdout[-3000:] + proc.stderr[-3000:])
    if proc.returncode != 0:
        return None
    rows = {r["student"]: r for r in read_gradebook(out)}
    t.check(list(read_gradebook(out)[0].keys()) == ["student"] + LABS + ["total", "status", "reason"],
            "gradebook.csv has columns student, one per lab, total, status, reason")
    for student, (status, scores, reason) in sorted(expect.items()):
        row = rows.get(student)
        if not row:
            t.check(False, "%s is in the gradebook" % student)
            continue
        got = {lab: float(row[lab]) for lab in LABS if row[lab] != ""}
        ok = row["status"] == status and got == scores and reason in row["reason"] and \
            float(row["total"]) == sum(scores.values())
        t.check(ok, "%s: %s, %s, reason has '%s'" % (student, status, scores or "no lab", reason),
                "got: %s" % dict(row))
    if not listening:
        print("note: port %d was taken, so network.cu's connection was not offered" % NETWORK_PORT)
    # escapes: nothing was written outside the grading folders
    landing = os.path.normpath(os.path.join(out, ".work", "traversal", "unpacked", "../../escaped-by-traversal.cu"))
    t.check(not os.path.exists(landing) and not os.path.exists("/tmp/escaped-by-absolute-path.cu"),
            "no archive wrote outside its folder")
    # the forged results: no results.json claims what forged_results.cu wrote
    forged = []
    for dirpath, _, filenames in os.walk(out):
        for f in filenames:
            if f == "results.json":
                with open(os.path.join(dirpath, f)) as fh:
                    if json.load(fh).get("score") == 300 and "all_correct" not in dirpath:
                        forged.append(os.path.join(dirpath, f))
    with open(os.path.join(out, "malicious-forged_results", "results.json")) as fh:
        own = json.load(fh)
    t.check(not forged and own["score"] == 0 and own["tests"],
            "forged_results.cu: its results.json says 0 and no forged results file is anywhere", forged)
    # the fork bomb left nothing running
    left = [pid for slot in range(8) for pid in sandbox._pids_of(sandbox.FIRST_UID + slot, running_only=True)]
    t.check(not left, "no sandbox process is left running after the batch", left)
    # results.json: hidden tests, hidden from students, with sizes each lab allows
    with open(os.path.join(out, "all_correct", "results.json")) as fh:
        doc = json.load(fh)
    hidden = [x for x in doc["tests"] if "hidden test" in x["name"]]
    visible = [x for x in doc["tests"] if "hidden test" not in x["name"]]
    t.check(len(hidden) == classgrade.HIDDEN_CASES * len(LABS) and
            all(x["visibility"] == classgrade.HIDDEN_VISIBILITY for x in hidden) and
            all(x["visibility"] == "visible" for x in visible) and doc["score"] == 100 * len(LABS),
            "results.json: %d hidden tests per lab, visibility '%s', full marks for the solutions"
            % (classgrade.HIDDEN_CASES, classgrade.HIDDEN_VISIBILITY), json.dumps(hidden, indent=1)[:2000])
    sizes_ok = True
    for x in hidden:
        lab = x["name"].split(":")[0]
        m = re.match(r"(\d+)×(\d+)·(\d+)×(\d+)", x["output"])
        multiple = classgrade.hidden_multiple(lab)
        sizes_ok = sizes_ok and bool(m) and all(int(v) % multiple == 0 for v in m.groups())
    t.check(sizes_ok and classgrade.hidden_multiple("lab2-tiled") == 16,
            "hidden sizes are multiples of each lab's tile where its lab.h asks (lab 2: 16)",
            [x["output"] for x in hidden])
    try:
        root = ET.parse(os.path.join(out, "wrong", "junit.xml")).getroot()
        junit_ok = int(root.get("failures")) > 0
    except (OSError, ET.ParseError, TypeError):
        junit_ok = False
    t.check(junit_ok, "junit.xml is written and counts the failures")
    return submissions, out


def check_resume(t, submissions, out):
    before = {s: os.path.getmtime(os.path.join(out, s, "meta.json")) for s in os.listdir(out)
              if os.path.isfile(os.path.join(out, s, "meta.json"))}
    proc = run_grade_all(submissions, out)
    t.check(proc.returncode == 0 and " 0 to grade" in proc.stdout and all(
        os.path.getmtime(os.path.join(out, s, "meta.json")) == m for s, m in before.items()),
        "a second run keeps every result and grades nothing", proc.stdout[-2000:] + proc.stderr[-2000:])
    # one student changes: the empty folder gets a lab
    os.makedirs(os.path.join(submissions, "empty", LABS[0]))
    shutil.copy(os.path.join(ROOT, "labs", LABS[0], "kernel.cu"), os.path.join(submissions, "empty", LABS[0]))
    proc = run_grade_all(submissions, out)
    row = {r["student"]: r for r in read_gradebook(out)}.get("empty", {})
    t.check(proc.returncode == 0 and " 1 to grade" in proc.stdout and row.get("status") == "graded" and
            len(read_gradebook(out)) == len(before) and all(
                os.path.getmtime(os.path.join(out, s, "meta.json")) == m for s, m in before.items() if s != "empty"),
            "after one submission changes, only it is graded again; the gradebook keeps every row",
            proc.stdout[-2000:] + str(row))


def check_bad_input(t, tmp):
    cases = [("a SUBMISSIONS that does not exist", os.path.join(tmp, "no-such-folder"), "is not a directory"),
             ("an empty SUBMISSIONS folder", tempfile.mkdtemp(dir=tmp), "is empty")]
    for what, path, words in cases:
        proc = run_grade_all(path, os.path.join(tmp, "bad-out"))
        lines = [l for l in proc.stderr.strip().splitlines() if l]
        t.check(proc.returncode != 0 and len(lines) == 1 and words in lines[0],
                "%s: one-line error, non-zero exit" % what, proc.stdout + proc.stderr)
    proc = subprocess.run(["make", "-s", "grade-all", "SUBMISSIONS=" + tmp, "RUNNER=cloud"], capture_output=True,
                          text=True, cwd=ROOT)
    lines = [l for l in proc.stderr.splitlines() if l.startswith("classgrade:")]
    t.check(proc.returncode != 0 and len(lines) == 1 and "invalid choice: 'cloud'" in lines[0],
            "an unknown RUNNER: one-line error, non-zero exit", proc.stdout + proc.stderr)
    proc = subprocess.run(["make", "-s", "grade-all"], capture_output=True, text=True, cwd=ROOT)
    t.check(proc.returncode != 0 and "SUBMISSIONS" in proc.stderr, "make grade-all without SUBMISSIONS says what is "
            "missing", proc.stdout + proc.stderr)


# ---------------------------------------------------------------------------------------------------------------
# The handout and the Gradescope autograder
# ---------------------------------------------------------------------------------------------------------------
INSTRUCTOR_ONLY = ["solutions", "grader/hidden", "grader/malicious", "grader/catalogue", "grader/classgrade.py",
                   "grader/sandbox.py", "grader/selftest.py", "grader/test_grading.py", "mk/grading.mk"]


def check_handout(t, tmp):
    proc = subprocess.run(["make", "-s", "handout"], capture_output=True, text=True, cwd=ROOT)
    tarball = os.path.join(ROOT, "build", "handout", "course.tar.gz")
    if not t.check(proc.returncode == 0 and os.path.isfile(tarball), "make handout builds the student release",
                   proc.stdout + proc.stderr):
        return
    where = os.path.join(tmp, "student")
    os.makedirs(where)
    with tarfile.open(tarball) as tf:
        tf.extractall(where)  # our own tarball, just built
    course = os.path.join(where, "course")
    leaked = [p for p in INSTRUCTOR_ONLY if os.path.exists(os.path.join(course, p))]
    t.check(not leaked and os.listdir(os.path.join(course, "grader")) == ["labtool.py"],
            "the handout has no solutions, hidden tests, catalogues or instructor tools", leaked)
    labs = sorted(os.listdir(os.path.join(course, "labs")))
    t.check(labs == LABS, "the handout has every lab (%s)" % ", ".join(labs))
    env = dict(os.environ)
    env.pop("CUDAEMU_CACHE", None)  # its own emulator runtime, built in its own build/
    for lab in labs:
        short = lab.split("-")[0]
        proc = subprocess.run(["make", short, "BACKEND=emu"], capture_output=True, text=True, cwd=course, env=env)
        out = proc.stdout + proc.stderr
        t.check(proc.returncode != 0 and "elements are wrong" in out and "| 0 passed |" in out,
                "handout: make %s builds the skeleton, fails its tests with the first wrong element, exits non-zero"
                % short, out[-2000:])
    with open(os.path.join(course, "README.md")) as f:
        readme = f.read()
    t.check("## Instructors" not in readme and "## Grading a class" not in readme and "SUBMISSION=solutions" not in
            readme and "tools/install-deps && make lab1" in readme and "## Students" in readme,
            "handout: the README keeps the students' sections and starts with their commands", readme[:1500])
    proc = subprocess.run(["make", "test"], capture_output=True, text=True, cwd=course, env=env)
    t.check(proc.returncode != 0 and proc.stderr.strip().splitlines()[:1] ==
            ["make test: the course's own tests need the full repository, not the student handout; run make labN"],
            "handout: make test says in one line that the course's tests are not in the handout",
            proc.stdout + proc.stderr)


def check_gradescope(t, tmp):
    proc = subprocess.run(["make", "-s", "gradescope"], capture_output=True, text=True, cwd=ROOT)
    archive = os.path.join(ROOT, "build", "gradescope", "autograder.zip")
    if not t.check(proc.returncode == 0 and os.path.isfile(archive), "make gradescope builds autograder.zip",
                   proc.stdout + proc.stderr):
        return
    root = os.path.join(tmp, "autograder")
    source = os.path.join(root, "source")
    with zipfile.ZipFile(archive) as z:
        names = z.namelist()
        z.extractall(source)
        for info in z.infolist():  # zipfile drops the executable bits
            os.chmod(os.path.join(source, info.filename), (info.external_attr >> 16) & 0o777 or 0o644)
    t.check("setup.sh" in names and "run_autograder" in names and not any(n.startswith("solutions/") for n in names)
            and "tools/install-deps" in open(os.path.join(source, "setup.sh")).read(),
            "autograder.zip has setup.sh (through tools/install-deps) and run_autograder, and no solutions")
    proc = subprocess.run([os.path.join(source, "setup.sh")], capture_output=True, text=True)
    t.check(proc.returncode == 0, "setup.sh runs (the packages are already here)", proc.stdout + proc.stderr)
    submission = os.path.join(root, "submission")
    os.makedirs(os.path.join(submission, LABS[0]))
    shutil.copy(os.path.join(ROOT, "solutions", LABS[0], "kernel.cu"), os.path.join(submission, LABS[0]))
    os.makedirs(os.path.join(submission, LABS[-1]))
    shutil.copy(os.path.join(ROOT, "labs", LABS[-1], "kernel.cu"), os.path.join(submission, LABS[-1]))
    env = dict(os.environ, AUTOGRADER_ROOT=root, **LIMITS)
    proc = subprocess.run([os.path.join(source, "run_autograder")], capture_output=True, text=True, env=env)
    try:
        with open(os.path.join(root, "results", "results.json")) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        doc = {"error": str(e)}
    hidden = [x for x in doc.get("tests", []) if x.get("visibility") == classgrade.HIDDEN_VISIBILITY]
    t.check(proc.returncode == 0 and doc.get("score") == 100 and len(hidden) == 2 * classgrade.HIDDEN_CASES,
            "run_autograder grades a fake /autograder/submission (a solution and a skeleton: 100 points) into "
            "results/results.json", proc.stdout[-2000:] + proc.stderr[-2000:] + json.dumps(doc)[:1000])


def main(argv):
    t = Tally()
    ok, why = sandbox.available()
    if not ok:
        print("FAILED  the sandbox works here: " + why)
        print("0 passed, 1 failed")
        return 1
    with tempfile.TemporaryDirectory(prefix="test-grading-") as tmp:
        batch = check_batch(t, tmp)
        if batch:
            check_resume(t, *batch)
        check_bad_input(t, tmp)
        check_handout(t, tmp)
        check_gradescope(t, tmp)
    print("%d passed, %d failed" % (t.passed, t.failed))
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
