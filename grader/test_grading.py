#!/usr/bin/env python3
"""test_grading — class grading tested end to end (part of `make test`, as `make test-grading`).

- A batch of submissions (correct, wrong, malformed archives and layouts, and every kernel of grader/malicious/)
  graded by `grade-all`: each gets the status, score and reason it deserves; hidden tests are there, with sizes a
  lab allows, and hidden from students; nothing the sandbox wrote is taken as a result; re-running grades only
  what changed; bad input gets a one-line error.
- `make handout` builds a release without the instructor-only trees (grader/, with the solutions, and tests/), and `make labN`
  works there on its own: every skeleton fails its tests.
- `make gradescope` builds an autograder whose run_autograder grades a fake /autograder tree.
Prints one line per check and closes with "N passed, N failed".
"""
import csv
import gzip
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile

from course import confine, labs, results, sandbox, scoring, toolchain
from course.paths import ROOT
from course.results import Status, TestResult
from grader import classgrade, test_handout_commands
from grader.selftest import Tally

LABS = labs.folders()
MALICIOUS = os.path.join(ROOT, "grader", "malicious")
# Tight limits keep the attacks quick to stop; a correct lab needs a few seconds. The wall-time limit is well above
# the CPU-time limit, so that an endless loop meets the CPU-time limit first however busy the machine is (the
# wall-time limit has its own test, with a command that uses no CPU).
# CPU seconds per process: above what compiling lab 6's kernel for the emulator takes on a loaded machine (about 8 s
# of clang at worst, measured with two make test side by side), below the wall-time limit that an endless loop must
# not reach first.
LIMITS = {"GRADE_WALL_S": "45", "GRADE_CPU_S": "20", "GRADE_OUTPUT_MB": "16"}
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
    return labs.find(short).folder


# ---------------------------------------------------------------------------------------------------------------
# The class
# ---------------------------------------------------------------------------------------------------------------
def make_class(folder):
    """Writes a class into folder; returns {student: (status, {lab: score or None}, reason text)}."""
    expect = {}
    solutions = os.path.join(ROOT, "grader", "solutions")
    # every lab's reference solution: hidden tests must pass for all of them, lab 2 with multiples of its tile
    shutil.copytree(solutions, os.path.join(folder, "all_correct"), ignore=shutil.ignore_patterns("*.md"))
    expect["all_correct"] = ("graded", {lab: 100 for lab in LABS}, "")
    # a zip of labs/ with one lab, nested one level down
    with zipfile.ZipFile(os.path.join(folder, "zipped.zip"), "w") as z:
        z.write(os.path.join(solutions, LABS[0], "kernel.cu"), "labs/%s/kernel.cu" % LABS[0])
    expect["zipped"] = ("graded", {LABS[0]: 100}, "")
    # a tar.gz of an untouched skeleton: graded, zero, with the diagnosis (hidden sizes cannot change that)
    with tarfile.open(os.path.join(folder, "wrong.tar.gz"), "w:gz") as t:
        t.add(toolchain.skeleton(LABS[0]), "%s/kernel.cu" % LABS[0])
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
    # names are bytes: not UTF-8, or a name the grader uses itself; both graded as themselves
    lab1_solution = os.path.join(solutions, LABS[0], "kernel.cu")

    def lab1_folder(name, kernel=lab1_solution):
        where = os.path.join(os.fsencode(folder), name if isinstance(name, bytes) else os.fsencode(name),
                             os.fsencode(LABS[0]))
        os.makedirs(where)
        shutil.copy(kernel, os.path.join(where, b"kernel.cu"))
        return os.fsdecode(os.path.dirname(where))
    lab1_folder(b"caf\xe9")
    expect["caf_"] = ("graded", {LABS[0]: 100}, "")
    lab1_folder("gradebook.csv")
    expect["gradebook.csv"] = ("graded", {LABS[0]: 100}, "")
    # names that collide in the gradebook: case only, or characters it cannot hold; both flagged, neither graded
    for name in ("Casey", "casey", "pat kim", "pat_kim"):
        lab1_folder(name)
        expect["%s@%s" % (name.replace(" ", "_"), name)] = ("duplicate", {}, "have the same name in the gradebook")
    # a tar.gz whose GNU long-name header is 2 MiB: refused before tarfile reads it into memory
    with open(os.path.join(folder, "longname.tar.gz"), "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb") as z:
            long_name = b"n" * (2 << 20)
            header = tarfile.TarInfo("././@LongLink")
            header.type = tarfile.GNUTYPE_LONGNAME
            header.size = len(long_name)
            z.write(header.tobuf(format=tarfile.GNU_FORMAT))
            z.write(long_name + b"\0" * (-len(long_name) % 512))
    expect["longname"] = ("unsafe-archive", {}, "extended header")
    # links are somebody else's work: to a classmate, to grader/solutions/, or the whole entry
    os.makedirs(os.path.join(folder, "borrower"))
    os.symlink(os.path.join("..", "all_correct", LABS[0]), os.path.join(folder, "borrower", LABS[0]))
    expect["borrower"] = ("unsafe-submission", {}, "is a symbolic link")
    os.makedirs(os.path.join(folder, "linker", LABS[0]))
    os.symlink(lab1_solution, os.path.join(folder, "linker", LABS[0], "kernel.cu"))
    expect["linker"] = ("unsafe-submission", {}, "is a symbolic link")
    os.symlink("all_correct", os.path.join(folder, "alias"))
    expect["alias"] = ("unsafe-submission", {}, "symbolic link")
    # control characters in a file name reach the reason escaped
    where = lab1_folder("controls")
    os.symlink("kernel.cu", os.path.join(where, LABS[0], "evil\x1b[2J\x07\nname"))
    expect["controls"] = ("unsafe-submission", {}, "evil\\x1b[2J\\x07")
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
    cmd = [sys.executable, "-m", "grader.classgrade", "grade-all", "--submissions", submissions,
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
    # the slots the batch used are free again (claimed here), and none of their users has a process left
    left = [pid for slot in sandbox.claim_slots(8) for pid in sandbox._pids_of(sandbox.FIRST_UID + slot,
                                                                                running_only=True)]
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
    invalid = []
    for student in os.listdir(out):
        if os.path.isfile(os.path.join(out, student, "junit.xml")):
            try:
                ET.parse(os.path.join(out, student, "junit.xml"))
            except ET.ParseError as e:
                invalid.append("%s: %s" % (student, e))
    with open(os.path.join(out, "gradebook.csv"), "rb") as f:
        raw = f.read()
    controls = sorted(set(re.findall(rb"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f]", raw)))
    t.check(not invalid and not controls, "every junit.xml is valid XML; no control character reaches gradebook.csv",
            invalid + [repr(c) for c in controls])
    # reports of a test whose output holds every control character, a lone surrogate and 1 MB of text
    nasty = "".join(map(chr, range(32))) + "\x7f\udce9" + "x" * (1 << 20)
    found = [TestResult(LABS[0], "nasty\x1b", "correctness", Status.FAILED, nasty)]
    where = os.path.join(tmp, "nasty")
    scoring.score(found)
    results.write_reports(found, where, "emu")
    try:
        ET.parse(os.path.join(where, "junit.xml"))
        with open(os.path.join(where, "results.json"), "rb") as f:
            doc = f.read()
        clean = (not re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", doc) and b"more characters cut" in doc
                 and len(doc) < 20000 and json.loads(doc)["tests"][0]["output"].startswith("\\x00"))
    except (ET.ParseError, ValueError, OSError) as e:
        clean = False
        doc = str(e).encode()
    t.check(clean, "a test's output with control characters and 1 MB of text: capped, escaped, valid junit.xml",
            doc[:300])
    big = [(p, os.path.getsize(p)) for p in (os.path.join(d, f) for d, _, fs in os.walk(out) for f in fs
                                             if f in ("results.json", "junit.xml", "gradebook.csv"))
           if os.path.getsize(p) > 1 << 20]
    t.check(not big, "no report is larger than 1 MiB (each test's output is capped)", big)
    return submissions, out


def check_resume(t, submissions, out):
    before = {s: os.path.getmtime(os.path.join(out, s, "meta.json")) for s in os.listdir(out)
              if os.path.isfile(os.path.join(out, s, "meta.json"))}
    rows = len(read_gradebook(out))
    proc = run_grade_all(submissions, out)
    t.check(proc.returncode == 0 and " 0 to grade" in proc.stdout and all(
        os.path.getmtime(os.path.join(out, s, "meta.json")) == m for s, m in before.items()),
        "a second run keeps every result and grades nothing", proc.stdout[-2000:] + proc.stderr[-2000:])
    # one student changes: the empty folder gets a lab
    os.makedirs(os.path.join(submissions, "empty", LABS[0]))
    shutil.copy(toolchain.skeleton(LABS[0]), os.path.join(submissions, "empty", LABS[0]))
    proc = run_grade_all(submissions, out)
    row = {r["student"]: r for r in read_gradebook(out)}.get("empty", {})
    t.check(proc.returncode == 0 and " 1 to grade" in proc.stdout and row.get("status") == "graded" and
            len(read_gradebook(out)) == rows and all(
                os.path.getmtime(os.path.join(out, s, "meta.json")) == m for s, m in before.items() if s != "empty"),
            "after one submission changes, only it is graded again; the gradebook keeps every row",
            proc.stdout[-2000:] + str(row))


def check_lock_and_interrupt(t, submissions, out):
    """A second run on the same folder is refused; Ctrl-C stops within seconds and keeps what was finished."""
    holder = subprocess.Popen([sys.executable, "-c", "import time; from grader import classgrade; "
                               "classgrade.lock_output(%r); print('locked', flush=True); time.sleep(60)"
                               % out], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    holder.stdout.readline()
    proc = run_grade_all(submissions, out)
    holder.kill()
    holder.wait()
    lines = [l for l in proc.stderr.strip().splitlines() if l]
    t.check(proc.returncode != 0 and len(lines) == 1 and "another grade-all" in lines[0],
            "a second grade-all on the same output folder says so in one line and exits", proc.stdout + proc.stderr)
    rows_before = len(read_gradebook(out))
    student = os.path.join(submissions, "zz_spinner", LABS[0])
    os.makedirs(student)
    shutil.copy(os.path.join(MALICIOUS, "lab1", "infinite_loop.cu"), os.path.join(student, "kernel.cu"))
    env = dict(os.environ, **dict(LIMITS, GRADE_CPU_S="120", GRADE_WALL_S="120"))
    proc = subprocess.Popen([sys.executable, "-m", "grader.classgrade", "grade-all",
                             "--submissions", submissions, "--out", out, "--jobs", "2", "--backend", "emu"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
    deadline = time.time() + 300
    while time.time() < deadline and not os.path.isfile(os.path.join(out, ".work", "zz_spinner", "build", "emu",
                                                                        LABS[0], "tests")):
        time.sleep(0.5)
    time.sleep(3)  # a test case of the spinning kernel is running now
    interrupted = time.time()
    proc.send_signal(signal.SIGINT)
    try:
        output = proc.communicate(timeout=60)[0]
    except subprocess.TimeoutExpired:
        proc.kill()
        output = proc.communicate()[0]
    seconds = time.time() - interrupted
    shutil.rmtree(os.path.dirname(student))
    t.check(seconds < 15 and proc.returncode != 0 and len(read_gradebook(out)) == rows_before and
            not os.path.exists(os.path.join(out, "zz_spinner", "meta.json")),
            "Ctrl-C during a spinning test stops grade-all in %.1f s; the gradebook keeps the %d finished rows and "
            "the interrupted student is not recorded" % (seconds, rows_before), output[-2000:])


def check_sandbox_walls(t, tmp):
    """The sandbox alone, for what confinement would stop first: it must hold on its own too."""
    where = os.path.join(tmp, "walls")
    os.makedirs(where)
    limits = dict(sandbox.DEFAULT_LIMITS, wall_s=20, cpu_s=8, total_memory_mb=512, disk_mb=64)

    def box():
        b = sandbox.Sandbox([os.path.join(ROOT, "common")], where, slot=sandbox.claim_slots(1)[0], limits=limits)
        b.prepare()
        return b
    out = box().run(["sleep", "1000"])
    t.check(out.limit and out.limit.startswith("wall-time"), "sandbox: sleeping forever meets the wall-time limit",
            out.limit)
    out = box().run(["sh", "-c", "i=0; while [ $i -lt 300 ]; do sleep 5 & i=$((i+1)); done; wait"])
    t.check("fork" in (out.stderr + str(out.limit)).lower() or (out.limit or "").startswith("process"),
            "sandbox: forking 300 processes meets the process limit", out.stderr[-500:] + str(out.limit))
    out = box().run(["cat", os.path.join(ROOT, "grader", "hidden", "hidden_check.cpp"),
                     os.path.join(ROOT, "grader", "solutions", LABS[0], "kernel.cu")])
    t.check(out.returncode != 0 and "#include" not in out.stdout, "sandbox: the hidden tests and solutions are not "
            "there to read", out.stdout[:300])
    os.environ["GRADER_SECRET_FOR_TEST"] = "do-not-leak-4711"
    try:
        out = box().run(["sh", "-c", "env; cat /proc/1/environ /proc/1/cmdline; ls /proc"])
    finally:
        del os.environ["GRADER_SECRET_FOR_TEST"]
    t.check("do-not-leak-4711" not in out.stdout + out.stderr, "sandbox: none of the grader's environment is "
            "reachable inside, /proc/1 included", out.stdout[:500])
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    out = box().run(["bash", "-c", "echo hi > /dev/tcp/127.0.0.1/%d" % listener.getsockname()[1]])
    listener.close()
    t.check(out.returncode != 0, "sandbox: no network (a connection to 127.0.0.1 fails)", out.stderr[-300:])
    script = ("import os, time\nfor _ in range(3):\n    if os.fork() == 0:\n        break\n"
              "hold = b'x' * (300 << 20)\ntime.sleep(30)\n")
    out = box().run(["python3", "-c", script])
    t.check((out.limit or "").startswith("memory limit (512 MiB over all its processes)"),
            "sandbox: four processes under the per-process memory limit meet the total memory limit", out.limit)
    out = box().run(["sh", "-c", "for i in 1 2 3 4 5 6; do head -c 20000000 /dev/zero > f$i; done; sleep 30"])
    t.check((out.limit or "").startswith("disk limit"), "sandbox: six 20 MB files meet the 64 MiB disk limit",
            out.limit)
    mine = set(sandbox.claim_slots(2))
    other = subprocess.run([sys.executable, "-c", "from course import sandbox; print(sandbox.claim_slots(2))"],
                           capture_output=True, text=True, cwd=ROOT).stdout
    theirs = set(json.loads(other or "[]"))
    t.check(len(theirs) == 2 and not mine & theirs, "two runs at once claim different sandbox users", (mine, theirs))


def check_setpriv(t, tmp):
    """Without bubblewrap (a Gradescope container), the student's code runs as an unprivileged user."""
    ok, why = sandbox.fallback_available()
    if not ok:
        print("note: --sandbox setpriv not checked: " + why)
        return
    os.chmod(tmp, 0o755)  # the unprivileged user must reach its folder, as it does under build/ or /autograder
    where = os.path.join(tmp, "setpriv")
    os.makedirs(where)
    judge = os.path.join(tmp, "judge-file")
    with open(judge, "w") as f:
        f.write("judge\n")
    os.environ["GRADER_SECRET_FOR_TEST"] = "do-not-leak-4711"
    try:
        b = sandbox.Sandbox([], where, slot=sandbox.claim_slots(1)[0], mode="setpriv")
        b.prepare()
        out = b.run(["sh", "-c", "id -u; env; echo forged > %s; echo own > %s/own" % (judge, where)])
    finally:
        del os.environ["GRADER_SECRET_FOR_TEST"]
    with open(judge) as f:
        kept = f.read() == "judge\n"
    t.check(out.stdout.split()[:1] != ["0"] and "do-not-leak-4711" not in out.stdout and kept and
            os.path.isfile(os.path.join(where, "own")),
            "setpriv mode: an unprivileged user with an empty environment, who can write its own folder only",
            out.stdout[:500] + out.stderr[:500])
    submission = os.path.join(tmp, "setpriv-submission")
    os.makedirs(os.path.join(submission, LABS[0]))
    shutil.copy(os.path.join(ROOT, "grader", "solutions", LABS[0], "kernel.cu"), os.path.join(submission, LABS[0]))
    os.makedirs(os.path.join(submission, "lab3-boundary"))
    shutil.copy(os.path.join(MALICIOUS, "lab3", "printed_report.cu"),
                os.path.join(submission, "lab3-boundary", "kernel.cu"))
    results_dir = os.path.join(tmp, "setpriv-results")
    proc = subprocess.run([sys.executable, "-m", "grader.classgrade", "grade-one", "--submission",
                           submission, "--out", results_dir, "--backend", "emu", "--sandbox", "setpriv"],
                          capture_output=True, text=True, env=dict(os.environ, **LIMITS), cwd=ROOT)
    try:
        with open(os.path.join(results_dir, "results.json")) as f:
            score = json.load(f)["score"]
    except (OSError, ValueError, KeyError):
        score = None
    printed = malicious_table()["lab3/printed_report.cu"][0]  # its score in the README's table
    t.check(proc.returncode == 0 and score is not None and abs(score - (100 + printed)) < 0.005,
            "grade-one --sandbox setpriv: a lab 1 solution and lab 3's printed_report.cu get 100 + %g" % printed,
            proc.stdout[-1500:] + proc.stderr[-1500:])


def check_nvcc_confinement(t, tmp):
    """The GPU build's host object is checked too: nvcc's own constructor passes, a student's does not."""
    nvcc = shutil.which("nvcc")
    if not nvcc:
        print("note: nvcc not found, so the GPU build's confinement was not checked")
        return
    cases = [("grader/solutions/%s/kernel.cu" % LABS[0], LABS[0], ""),
             ("grader/solutions/lab3-boundary/kernel.cu", "lab3-boundary", ""),
             ("grader/malicious/lab1/destructor.cu", LABS[0], "static constructor or destructor"),
             ("grader/malicious/lab3/constructor_forges_report.cu", "lab3-boundary", "static constructor")]
    for source, lab, reason in cases:
        obj = os.path.join(tmp, "nvcc-" + os.path.basename(source) + ".o")
        proc = subprocess.run([nvcc, "-O2", "-std=c++17", "-arch=sm_90", "-c", os.path.join(ROOT, source), "-I",
                               os.path.join(ROOT, "common"), "-I", os.path.join(ROOT, "labs", lab), "-o", obj],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            t.check(False, "nvcc compiles %s" % source, proc.stderr[-1000:])
            continue
        reasons = confine.check_object(obj, source, backend="gpu")
        t.check(any(reason in r for r in reasons) if reason else not reasons,
                "nvcc's host object of %s: %s" % (source, "refused, '%s'" % reason if reason else "allowed"), reasons)


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
INSTRUCTOR_ONLY = ["grader", "tests"]  # the instructor-only trees: the handout leaves them out whole


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
    t.check(not leaked and os.path.isfile(os.path.join(course, "course", "confine_allowlist.txt")),
            "the handout has no solutions, hidden tests, catalogues or instructor tools", leaked)
    shipped = [os.path.relpath(os.path.join(d, f), course) for d, _, fs in os.walk(os.path.join(course, "pitfalls"))
               for f in fs]
    t.check(shipped and all(f.endswith((".o", ".txt")) for f in shipped),
            "the handout's pitfalls are compiled objects and descriptions, no source (%d files)" % len(shipped), shipped)
    lab_folders = sorted(os.listdir(os.path.join(course, "labs")))
    t.check(lab_folders == LABS, "the handout has every lab (%s)" % ", ".join(lab_folders))
    env = dict(os.environ)
    env.pop("CUDAEMU_CACHE", None)  # its own emulator runtime, built in its own build/
    outputs = {}
    for lab in lab_folders:
        short = lab.split("-")[0]
        proc = subprocess.run(["make", short, "BACKEND=emu"], capture_output=True, text=True, cwd=course, env=env)
        out = outputs[short] = proc.stdout + proc.stderr
        t.check(proc.returncode != 0 and "elements are wrong" in out and
                bool(re.search(r"\d+ tests: 0 passed", out)),
                "handout: make %s builds the skeleton, fails its tests with the first wrong element, exits non-zero"
                % short, out[-2000:])
    with open(os.path.join(course, "README.md")) as f:
        readme = f.read()
    t.check("## Instructors" not in readme and "## Grading a class" not in readme and "SUBMISSION=solutions" not in
            readme and "tools/install-deps && make lab1" in readme and "## Students" in readme,
            "handout: the README keeps the students' sections and starts with their commands", readme[:1500])
    for where, text in (("README.md", open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()),
                        ("the handout's README.md", readme)):
        # the sample under the first `make lab1`: each piece between "..." is in what make lab1 printed
        sample = re.search(r"(?s)make lab1\n.*?```\n.*?```\n(.*?)```", text)
        pieces = [p.strip() for line in (sample.group(1).splitlines() if sample else [])
                  for p in line.split("...") if p.strip()]
        missing = [p for p in pieces if p not in outputs.get("lab1", "")]
        t.check(len(pieces) >= 3 and not missing, "%s: the sample of make lab1's output is what it prints" % where,
                "missing: %s\n%s" % (missing, outputs.get("lab1", "")[-1500:]))
    test_handout_commands.check_lesson_commands(t, course, env)
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
    t.check("setup.sh" in names and "run_autograder" in names and not any(n.startswith("grader/solutions/") for n in names)
            and "tools/install-deps" in open(os.path.join(source, "setup.sh")).read(),
            "autograder.zip has setup.sh (through tools/install-deps) and run_autograder, and no solutions")
    proc = subprocess.run([os.path.join(source, "setup.sh")], capture_output=True, text=True)
    t.check(proc.returncode == 0, "setup.sh runs (the packages are already here)", proc.stdout + proc.stderr)
    submission = os.path.join(root, "submission")
    os.makedirs(os.path.join(submission, LABS[0]))
    shutil.copy(os.path.join(ROOT, "grader", "solutions", LABS[0], "kernel.cu"), os.path.join(submission, LABS[0]))
    os.makedirs(os.path.join(submission, LABS[-1]))
    shutil.copy(toolchain.skeleton(LABS[-1]), os.path.join(submission, LABS[-1]))
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
            check_lock_and_interrupt(t, *batch)
        check_sandbox_walls(t, tmp)
        check_setpriv(t, tmp)
        check_nvcc_confinement(t, tmp)
        check_bad_input(t, tmp)
        check_handout(t, tmp)
        check_gradescope(t, tmp)
    print("%d passed, %d failed" % (t.passed, t.failed))
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
