"""Class grading tested end to end (make test-grading, part of `make test`), one test per check.

- A batch of submissions (correct, wrong, malformed archives and layouts, and every kernel of grader/malicious/)
  graded by `grade-all`, once for the whole file: each gets the status, score and reason it deserves; hidden tests
  are there, with sizes a lab allows, and hidden from students; nothing the sandbox wrote is taken as a result;
  re-running grades only what changed; bad input gets a one-line error.
- The sandbox on its own holds each of its limits.
- `make handout` builds a release without the instructor-only trees (solutions/, grader/ and tests/), and
  `make labN` works there on its own: every skeleton fails its tests (the lessons' commands: test_handout_commands.py).
- `make gradescope` builds an autograder whose run_autograder grades a fake /autograder tree.
The tests of the batch run in this file's order: those that grade it again (a second run, Ctrl-C) come after those
that read the first run's reports.
"""
import csv
import glob
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
import warnings
import xml.etree.ElementTree as ET
import zipfile
from types import SimpleNamespace

import pytest

from course import confine, labs, results, sandbox, scoring, toolchain
from course.paths import ROOT
from course.results import Status, TestResult
from grader import classgrade

LABS = labs.folders()
MALICIOUS = os.path.join(ROOT, "grader", "malicious")
# Tight limits keep the attacks quick to stop; a correct lab needs a few seconds. The wall-time limit is above the
# CPU-time limit, so that an endless loop usually meets the CPU-time limit first; on a machine too busy to give it
# 40 s of CPU in 60 s the emulator's own watchdog stops it (in 80 s the wall-time limit), and the malicious table
# accepts any of them. Each limit has its own test below, on a command that can only meet that one.
# CPU seconds per process: above what compiling the slowest lab's kernel for the emulator takes (lab 8's reference,
# four instantiations of a fully unrolled mma.sync loop: 20 s of clang; lab 6's about 8 s), below the wall-time limit
# that an endless loop must not reach first.
# A lab's CPU budget (10 times the reference's CPU plus GRADE_LAB_CPU_EXTRA_S): 5 s instead of 20, so that
# malicious/lab3/spins_cpu.cu meets it after two tests of 4 s, each far below the per-process limits.
LIMITS = {"GRADE_WALL_S": "80", "GRADE_CPU_S": "40", "GRADE_OUTPUT_MB": "16", "GRADE_LAB_CPU_EXTRA_S": "5"}
NETWORK_PORT = 47811  # grader/malicious/lab1/network.cu connects here


def malicious_table():
    """{file: (score, reason texts)} from the README's table: the table is the specification. A reason cell may give
    alternatives, `a` or `b`: the gradebook's reason must hold one of them."""
    rows = {}
    with open(os.path.join(MALICIOUS, "README.md")) as f:
        for line in f:
            m = re.match(r"\|\s*`(lab\d+/[^`]+\.cu)`\s*\|.*\|\s*graded, ([\d.]+)\s*\|([^|]*`[^|]*)\|\s*$", line)
            if m:
                rows[m.group(1)] = (float(m.group(2)), tuple(re.findall(r"`([^`]+)`", m.group(3))))
    return rows


def lab_of(short):
    return labs.find(short).folder


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
    # links are somebody else's work: to a classmate, to solutions/, or the whole entry
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


# The students make_class writes, for the tests' names (a test below checks that the two agree)
STUDENTS = sorted(["all_correct", "zipped", "wrong", "empty", "flat", "broken", "truncated", "traversal", "absolute",
                   "symlink", "caf_", "gradebook.csv", "Casey@Casey", "casey@casey", "pat_kim@pat kim",
                   "pat_kim@pat_kim", "longname", "borrower", "linker", "alias", "controls"] +
                  ["malicious-" + os.path.splitext(os.path.basename(name))[0] for name in malicious_table()])


def run_grade_all(submissions, out, extra_env=None, jobs=2):
    env = dict(os.environ, **LIMITS, **(extra_env or {}))
    cmd = [sys.executable, "-m", "grader.classgrade", "grade-all", "--submissions", submissions,
           "--out", out, "--jobs", str(jobs), "--backend", "emu"]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)


def read_gradebook(out):
    with open(os.path.join(out, "gradebook.csv"), newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module", autouse=True)
def sandbox_works():
    """Every test here needs the sandbox: without it each one fails with the reason."""
    ok, why = sandbox.available()
    if not ok:
        pytest.fail("the sandbox works here: " + why)


@pytest.fixture(scope="module")
def tmp():
    """The file's temporary folder, under /tmp: the setpriv tests' unprivileged user must be able to reach it."""
    with tempfile.TemporaryDirectory(prefix="test-grading-") as folder:
        yield folder


# ---------------------------------------------------------------------------------------------------------------
# The batch
# ---------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def batch(tmp):
    """The class, graded once by grade-all: submissions, out, expect (make_class's), proc, seconds and rows
    ({student: gradebook row} as the first run wrote them)."""
    submissions, out = os.path.join(tmp, "class"), os.path.join(tmp, "graded")
    os.makedirs(submissions)
    expect = make_class(submissions)
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
    if not listening:
        warnings.warn("port %d was taken, so network.cu's connection was not offered" % NETWORK_PORT)
    book = read_gradebook(out) if proc.returncode == 0 else []
    return SimpleNamespace(submissions=submissions, out=out, expect=expect, proc=proc, seconds=seconds, book=book,
                           rows={r["student"]: r for r in book})


@pytest.fixture(scope="module")
def graded(batch):
    """The batch, for the tests that read its reports: they cannot, where grade-all failed."""
    if batch.proc.returncode != 0:
        pytest.fail("grade-all failed on the class (see test_grade_all_grades_the_class)")
    return batch


def test_the_malicious_readme_lists_every_kernel():
    table = malicious_table()
    files = sorted(os.path.relpath(p, MALICIOUS) for p in
                   (os.path.join(d, f) for d, _, fs in os.walk(MALICIOUS) for f in fs) if p.endswith(".cu"))
    assert files and set(files) == set(table), \
        "grader/malicious/README.md's table lists every malicious kernel\nin the folder only: %s; in the table only: " \
        "%s" % (sorted(set(files) - set(table)), sorted(set(table) - set(files)))


def test_grade_all_grades_the_class(batch):
    assert batch.proc.returncode == 0, "grade-all grades a class of %d entries (%.0f s on 2 jobs)\n%s" % (
        len(batch.expect), batch.seconds, batch.proc.stdout[-3000:] + batch.proc.stderr[-3000:])


def test_the_gradebook_has_its_columns(graded):
    assert list(graded.book[0].keys()) == ["student"] + LABS + ["total", "status", "reason"], \
        "gradebook.csv has columns student, one per lab, total, status, reason"


def test_the_class_is_the_one_these_tests_name(graded):
    assert sorted(graded.expect) == STUDENTS, "make_class writes the students STUDENTS names"


@pytest.mark.parametrize("student", STUDENTS)
def test_the_student_gets_the_status_score_and_reason_expected(graded, student):
    row = graded.rows.get(student)
    assert row, "%s is in the gradebook" % student
    status, scores, reason = graded.expect[student]
    got = {lab: float(row[lab]) for lab in LABS if row[lab] != ""}
    reasons = reason if isinstance(reason, tuple) else (reason,)
    ok = row["status"] == status and got == scores and any(r in row["reason"] for r in reasons) and \
        float(row["total"]) == sum(scores.values())
    assert ok, "%s: %s, %s, reason has '%s'\ngot: %s" % (student, status, scores or "no lab", reason, dict(row))


def test_no_archive_wrote_outside_its_folder(graded):
    landing = os.path.normpath(os.path.join(graded.out, ".work", "traversal", "unpacked",
                                            "../../escaped-by-traversal.cu"))
    assert not os.path.exists(landing) and not os.path.exists("/tmp/escaped-by-absolute-path.cu"), \
        "no archive wrote outside its folder"


def test_forged_results_are_not_taken(graded):
    # no results.json claims what forged_results.cu wrote
    forged = []
    for dirpath, _, filenames in os.walk(graded.out):
        for f in filenames:
            if f == "results.json":
                with open(os.path.join(dirpath, f)) as fh:
                    if json.load(fh).get("score") == 300 and "all_correct" not in dirpath:
                        forged.append(os.path.join(dirpath, f))
    with open(os.path.join(graded.out, "malicious-forged_results", "results.json")) as fh:
        own = json.load(fh)
    assert not forged and own["score"] == 0 and own["tests"], \
        "forged_results.cu: its results.json says 0 and no forged results file is anywhere\n%s" % forged


def test_no_sandbox_process_is_left_running(graded):
    # the fork bomb left nothing running: the slots the batch used are free again (claimed here), and none of their
    # users has a process left
    left = [pid for slot in sandbox.claim_slots(8) for pid in sandbox._pids_of(sandbox.FIRST_UID + slot,
                                                                                running_only=True)]
    assert not left, "no sandbox process is left running after the batch\n%s" % left


def hidden_tests(out):
    """all_correct's results.json, and its hidden tests"""
    with open(os.path.join(out, "all_correct", "results.json")) as fh:
        doc = json.load(fh)
    return doc, [x for x in doc["tests"] if "hidden test" in x["name"]]


def test_results_json_has_the_hidden_tests_hidden(graded):
    doc, hidden = hidden_tests(graded.out)
    visible = [x for x in doc["tests"] if "hidden test" not in x["name"]]
    assert len(hidden) == classgrade.HIDDEN_CASES * len(LABS) and \
        all(x["visibility"] == classgrade.HIDDEN_VISIBILITY for x in hidden) and \
        all(x["visibility"] == "visible" for x in visible) and doc["score"] == 100 * len(LABS), \
        "results.json: %d hidden tests per lab, visibility '%s', full marks for the solutions\n%s" % (
            classgrade.HIDDEN_CASES, classgrade.HIDDEN_VISIBILITY, json.dumps(hidden, indent=1)[:2000])


def test_hidden_sizes_are_multiples_of_the_tile_where_a_lab_asks(graded):
    _, hidden = hidden_tests(graded.out)
    sizes_ok = True
    for x in hidden:
        lab = x["name"].split(":")[0]
        m = re.match(r"(\d+)×(\d+)·(\d+)×(\d+)", x["output"])
        multiple = classgrade.hidden_multiple(lab)
        sizes_ok = sizes_ok and bool(m) and all(int(v) % multiple == 0 for v in m.groups())
    assert sizes_ok and classgrade.hidden_multiple("lab2-tiled") == 16, \
        "hidden sizes are multiples of each lab's tile where its lab.h asks (lab 2: 16)\n%s" % [
            x["output"] for x in hidden]


def test_junit_xml_counts_the_failures(graded):
    try:
        root = ET.parse(os.path.join(graded.out, "wrong", "junit.xml")).getroot()
        junit_ok = int(root.get("failures")) > 0
    except (OSError, ET.ParseError, TypeError):
        junit_ok = False
    assert junit_ok, "junit.xml is written and counts the failures"


def test_reports_are_valid_and_free_of_control_characters(graded):
    out = graded.out
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
    assert not invalid and not controls, \
        "every junit.xml is valid XML; no control character reaches gradebook.csv\n%s" % (
            invalid + [repr(c) for c in controls])


def test_a_nasty_output_is_capped_and_escaped(tmp):
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
    assert clean, "a test's output with control characters and 1 MB of text: capped, escaped, valid junit.xml\n%s" \
        % doc[:300]


def test_no_report_is_larger_than_1_mib(graded):
    big = [(p, os.path.getsize(p)) for p in (os.path.join(d, f) for d, _, fs in os.walk(graded.out) for f in fs
                                             if f in ("results.json", "junit.xml", "gradebook.csv"))
           if os.path.getsize(p) > 1 << 20]
    assert not big, "no report is larger than 1 MiB (each test's output is capped)\n%s" % big


# Grading the batch again: these run after the tests above, which read the first run's reports
@pytest.fixture(scope="module")
def first_run(graded):
    """When each result of the first run was written, and the gradebook's rows, before anything is graded again."""
    before = {s: os.path.getmtime(os.path.join(graded.out, s, "meta.json")) for s in os.listdir(graded.out)
              if os.path.isfile(os.path.join(graded.out, s, "meta.json"))}
    return before, len(read_gradebook(graded.out))


def test_a_second_run_keeps_every_result(graded, first_run):
    before, _ = first_run
    proc = run_grade_all(graded.submissions, graded.out)
    assert proc.returncode == 0 and " 0 to grade" in proc.stdout and all(
        os.path.getmtime(os.path.join(graded.out, s, "meta.json")) == m for s, m in before.items()), \
        "a second run keeps every result and grades nothing\n" + proc.stdout[-2000:] + proc.stderr[-2000:]


def test_after_one_submission_changes_only_it_is_graded_again(graded, first_run):
    before, rows = first_run
    submissions, out = graded.submissions, graded.out
    # one student changes: the empty folder gets a lab
    os.makedirs(os.path.join(submissions, "empty", LABS[0]))
    shutil.copy(toolchain.skeleton(LABS[0]), os.path.join(submissions, "empty", LABS[0]))
    proc = run_grade_all(submissions, out)
    row = {r["student"]: r for r in read_gradebook(out)}.get("empty", {})
    assert proc.returncode == 0 and " 1 to grade" in proc.stdout and row.get("status") == "graded" and \
        len(read_gradebook(out)) == rows and all(
            os.path.getmtime(os.path.join(out, s, "meta.json")) == m for s, m in before.items() if s != "empty"), \
        "after one submission changes, only it is graded again; the gradebook keeps every row\n" + \
        proc.stdout[-2000:] + str(row)


def test_a_second_grade_all_on_the_same_folder_is_refused(graded):
    holder = subprocess.Popen([sys.executable, "-c", "import time; from grader import classgrade; "
                               "classgrade.lock_output(%r); print('locked', flush=True); time.sleep(60)"
                               % graded.out], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    holder.stdout.readline()
    proc = run_grade_all(graded.submissions, graded.out)
    holder.kill()
    holder.wait()
    lines = [l for l in proc.stderr.strip().splitlines() if l]
    assert proc.returncode != 0 and len(lines) == 1 and "another grade-all" in lines[0], \
        "a second grade-all on the same output folder says so in one line and exits\n" + proc.stdout + proc.stderr


def test_ctrl_c_stops_grade_all_and_keeps_what_was_finished(graded):
    submissions, out = graded.submissions, graded.out
    rows_before = len(read_gradebook(out))
    student = os.path.join(submissions, "zz_spinner", LABS[0])
    os.makedirs(student)
    shutil.copy(os.path.join(MALICIOUS, "lab1", "infinite_loop.cu"), os.path.join(student, "kernel.cu"))
    env = dict(os.environ, **dict(LIMITS, GRADE_CPU_S="120", GRADE_WALL_S="120"))
    # Ctrl-C's signal as a terminal delivers it: a test run started in the background by a shell (`make test &`)
    # inherits SIGINT ignored, and Python then never turns it into KeyboardInterrupt
    proc = subprocess.Popen([sys.executable, "-m", "grader.classgrade", "grade-all",
                             "--submissions", submissions, "--out", out, "--jobs", "2", "--backend", "emu"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
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
    assert seconds < 15 and proc.returncode != 0 and len(read_gradebook(out)) == rows_before and \
        not os.path.exists(os.path.join(out, "zz_spinner", "meta.json")), \
        "Ctrl-C during a spinning test stops grade-all in %.1f s; the gradebook keeps the %d finished rows and " \
        "the interrupted student is not recorded\n%s" % (seconds, rows_before, output[-2000:])


# ---------------------------------------------------------------------------------------------------------------
# The sandbox alone, for what confinement would stop first: it must hold on its own too
# ---------------------------------------------------------------------------------------------------------------
@pytest.fixture
def box(tmp):
    """A function that prepares a fresh sandbox, with tight limits, in the file's folder walls/."""
    where = os.path.join(tmp, "walls")
    os.makedirs(where, exist_ok=True)
    limits = dict(sandbox.DEFAULT_LIMITS, wall_s=20, cpu_s=8, total_memory_mb=512, disk_mb=64)

    def prepared():
        b = sandbox.Sandbox([os.path.join(ROOT, "common")], where, slot=sandbox.claim_slots(1)[0], limits=limits)
        b.prepare()
        return b
    return prepared


def test_sandbox_sleeping_forever_meets_the_wall_time_limit(box):
    out = box().run(["sleep", "1000"])
    assert out.limit and out.limit.startswith("wall-time"), \
        "sandbox: sleeping forever meets the wall-time limit\n%s" % out.limit


def test_sandbox_spinning_forever_meets_the_cpu_time_limit(tmp):
    """A CPU-time limit of 2 s and a wall-time limit of 10 minutes: however busy the machine, the spin uses its 2 s
    of CPU long before the wall-time limit."""
    where = os.path.join(tmp, "spin")
    os.makedirs(where, exist_ok=True)
    limits = dict(sandbox.DEFAULT_LIMITS, wall_s=600, cpu_s=2)
    b = sandbox.Sandbox([os.path.join(ROOT, "common")], where, slot=sandbox.claim_slots(1)[0], limits=limits)
    b.prepare()
    out = b.run(["sh", "-c", "while :; do :; done"])
    assert out.limit and out.limit.startswith("CPU-time"), \
        "sandbox: spinning forever meets the CPU-time limit\n%s" % out.limit


def test_sandbox_measures_the_cpu_its_processes_use(box):
    """A shell whose child spins until it has used 1.5 s of CPU: the outcome counts that CPU, less at most what ran
    after the last look."""
    spin = "import time\nwhile time.process_time() < 1.5: pass"
    out = box().run(["sh", "-c", "python3 -c '%s'; true" % spin])
    assert out.returncode == 0 and not out.limit, out.stderr
    assert 1.5 - sandbox.POLL_S - 0.05 <= out.cpu_s <= 4, "sandbox: a 1.5 s spin measured as %.2f s of CPU" % out.cpu_s


def test_sandbox_forking_300_processes_meets_the_process_limit(box):
    out = box().run(["sh", "-c", "i=0; while [ $i -lt 300 ]; do sleep 5 & i=$((i+1)); done; wait"])
    assert "fork" in (out.stderr + str(out.limit)).lower() or (out.limit or "").startswith("process"), \
        "sandbox: forking 300 processes meets the process limit\n" + out.stderr[-500:] + str(out.limit)


def test_sandbox_hides_the_hidden_tests_and_solutions(box):
    out = box().run(["cat", os.path.join(ROOT, "grader", "hidden", "hidden_check.cpp"),
                     os.path.join(ROOT, "solutions", LABS[0], "kernel.cu")])
    assert out.returncode != 0 and "#include" not in out.stdout, \
        "sandbox: the hidden tests and solutions are not there to read\n" + out.stdout[:300]


def test_sandbox_hides_the_graders_environment(box, monkeypatch):
    monkeypatch.setenv("GRADER_SECRET_FOR_TEST", "do-not-leak-4711")
    b = box()
    out = b.run(["sh", "-c", "env; cat /proc/1/environ /proc/1/cmdline; ls /proc"])
    assert "do-not-leak-4711" not in out.stdout + out.stderr, \
        "sandbox: none of the grader's environment is reachable inside, /proc/1 included\n" + out.stdout[:500]


def test_sandbox_has_no_network(box):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    out = box().run(["bash", "-c", "echo hi > /dev/tcp/127.0.0.1/%d" % listener.getsockname()[1]])
    listener.close()
    assert out.returncode != 0, "sandbox: no network (a connection to 127.0.0.1 fails)\n" + out.stderr[-300:]


def test_sandbox_processes_meet_the_total_memory_limit(box):
    script = ("import os, time\nfor _ in range(3):\n    if os.fork() == 0:\n        break\n"
              "hold = b'x' * (300 << 20)\ntime.sleep(30)\n")
    out = box().run(["python3", "-c", script])
    assert (out.limit or "").startswith("memory limit (512 MiB over all its processes)"), \
        "sandbox: four processes under the per-process memory limit meet the total memory limit\n%s" % out.limit


def test_sandbox_files_meet_the_disk_limit(box):
    out = box().run(["sh", "-c", "for i in 1 2 3 4 5 6; do head -c 20000000 /dev/zero > f$i; done; sleep 30"])
    assert (out.limit or "").startswith("disk limit"), \
        "sandbox: six 20 MB files meet the 64 MiB disk limit\n%s" % out.limit


def test_two_runs_at_once_claim_different_sandbox_users():
    mine = set(sandbox.claim_slots(2))
    other = subprocess.run([sys.executable, "-c", "from course import sandbox; print(sandbox.claim_slots(2))"],
                           capture_output=True, text=True, cwd=ROOT).stdout
    theirs = set(json.loads(other or "[]"))
    assert len(theirs) == 2 and not mine & theirs, \
        "two runs at once claim different sandbox users\n%s" % ((mine, theirs),)


# ---------------------------------------------------------------------------------------------------------------
# Without bubblewrap (a Gradescope container), the student's code runs as an unprivileged user
# ---------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def setpriv_tmp(tmp):
    ok, why = sandbox.fallback_available()
    if not ok:
        pytest.skip("--sandbox setpriv not checked: " + why)
    os.chmod(tmp, 0o755)  # the unprivileged user must reach its folder, as it does under build/ or /autograder
    return tmp


def test_setpriv_mode_runs_an_unprivileged_user_in_its_own_folder(setpriv_tmp, monkeypatch):
    where = os.path.join(setpriv_tmp, "setpriv")
    os.makedirs(where)
    judge = os.path.join(setpriv_tmp, "judge-file")
    with open(judge, "w") as f:
        f.write("judge\n")
    monkeypatch.setenv("GRADER_SECRET_FOR_TEST", "do-not-leak-4711")
    b = sandbox.Sandbox([], where, slot=sandbox.claim_slots(1)[0], mode="setpriv")
    b.prepare()
    out = b.run(["sh", "-c", "id -u; env; echo forged > %s; echo own > %s/own" % (judge, where)])
    with open(judge) as f:
        kept = f.read() == "judge\n"
    assert out.stdout.split()[:1] != ["0"] and "do-not-leak-4711" not in out.stdout and kept and \
        os.path.isfile(os.path.join(where, "own")), \
        "setpriv mode: an unprivileged user with an empty environment, who can write its own folder only\n" + \
        out.stdout[:500] + out.stderr[:500]


def test_grade_one_with_setpriv_grades_a_submission(setpriv_tmp):
    submission = os.path.join(setpriv_tmp, "setpriv-submission")
    os.makedirs(os.path.join(submission, LABS[0]))
    shutil.copy(os.path.join(ROOT, "solutions", LABS[0], "kernel.cu"), os.path.join(submission, LABS[0]))
    os.makedirs(os.path.join(submission, "lab3-boundary"))
    shutil.copy(os.path.join(MALICIOUS, "lab3", "printed_report.cu"),
                os.path.join(submission, "lab3-boundary", "kernel.cu"))
    results_dir = os.path.join(setpriv_tmp, "setpriv-results")
    proc = subprocess.run([sys.executable, "-m", "grader.classgrade", "grade-one", "--submission",
                           submission, "--out", results_dir, "--backend", "emu", "--sandbox", "setpriv"],
                          capture_output=True, text=True, env=dict(os.environ, **LIMITS), cwd=ROOT)
    try:
        with open(os.path.join(results_dir, "results.json")) as f:
            score = json.load(f)["score"]
    except (OSError, ValueError, KeyError):
        score = None
    printed = malicious_table()["lab3/printed_report.cu"][0]  # its score in the README's table
    assert proc.returncode == 0 and score is not None and abs(score - (100 + printed)) < 0.005, \
        "grade-one --sandbox setpriv: a lab 1 solution and lab 3's printed_report.cu get 100 + %g\n%s" % (
            printed, proc.stdout[-1500:] + proc.stderr[-1500:])


def test_setpriv_mode_cannot_read_the_hidden_tests_or_the_course_metadata(setpriv_tmp):
    """Without bubblewrap, the grader first closes the course's folder to other users but for what a sandbox reads
    under bubblewrap: the hidden tests' source and course/ are then out of the unprivileged user's reach."""
    classgrade.hide_course_from_other_users()
    where = os.path.join(setpriv_tmp, "setpriv-reads")
    os.makedirs(where)
    b = sandbox.Sandbox([], where, slot=sandbox.claim_slots(1)[0], mode="setpriv")
    b.prepare()
    hidden = [os.path.join(ROOT, "grader", "hidden", "hidden_check.cpp"), os.path.join(ROOT, "course", "labs.py")]
    for path in hidden:
        out = b.run(["cat", path])
        assert out.returncode != 0 and "hidden_check" not in out.stdout and "def " not in out.stdout, path
    listing = b.run(["ls", ROOT])
    assert listing.returncode != 0, "the course's folder can be listed: %s" % listing.stdout[:300]
    public = b.run(["cat", os.path.join(ROOT, "common", "harness.h")])
    assert public.returncode == 0 and "check_result" in public.stdout, public.stderr


def test_grade_one_in_a_fresh_copy_with_an_llvm_bin_first_on_path(tmp):
    """Debian's clang++ is also /usr/lib/llvm-N/bin/clang++: with that folder first on PATH, the grader and its
    sandbox reach the compiler by other path strings. The runtime object is keyed by the compiler's identity and
    built before the sandbox starts, so in a copy that has built nothing yet (no runtime object of any name) the
    reference still scores full marks."""
    import conftest
    bins = sorted(os.path.dirname(c) for c in glob.glob("/usr/lib/llvm-*/bin/clang++"))
    assert bins, "Debian's clang puts clang++ in /usr/lib/llvm-N/bin"
    where = os.path.join(tmp, "llvm-first")
    os.makedirs(where)
    os.chmod(where, 0o755)
    course = conftest.fresh_copy(os.path.join(where, "course"))
    submission = os.path.join(where, "submission")
    os.makedirs(os.path.join(submission, LABS[0]))
    shutil.copy(os.path.join(ROOT, "solutions", LABS[0], "kernel.cu"), os.path.join(submission, LABS[0]))
    out = os.path.join(where, "results")
    env = dict(os.environ, PATH=bins[-1] + os.pathsep + os.environ["PATH"], **LIMITS)
    env.pop("CUDAEMU_CACHE", None)
    proc = subprocess.run([sys.executable, "-m", "grader.classgrade", "grade-one", "--submission", submission,
                           "--out", out, "--backend", "emu"], capture_output=True, text=True, env=env, cwd=course)
    try:
        with open(os.path.join(out, "results.json")) as f:
            score = json.load(f)["score"]
    except (OSError, ValueError, KeyError):
        score = None
    assert proc.returncode == 0 and score == 100, \
        "grade-one with %s first on PATH, in a fresh copy: the lab 1 reference scores 100\n%s" % (
            bins[-1], proc.stdout[-2000:] + proc.stderr[-2000:])


# ---------------------------------------------------------------------------------------------------------------
# The GPU build's host object is checked too: nvcc's own constructor passes, a student's does not
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("source, lab, reason", [
    ("solutions/%s/kernel.cu" % LABS[0], LABS[0], ""),
    ("solutions/lab3-boundary/kernel.cu", "lab3-boundary", ""),
    ("grader/malicious/lab1/destructor.cu", LABS[0], "static constructor or destructor"),
    ("grader/malicious/lab3/constructor_forges_report.cu", "lab3-boundary", "static constructor")])
def test_nvccs_host_object_is_confined(tmp, source, lab, reason):
    nvcc = shutil.which("nvcc")
    if not nvcc:
        pytest.skip("nvcc not found, so the GPU build's confinement was not checked")
    obj = os.path.join(tmp, "nvcc-" + os.path.basename(source) + ".o")
    proc = subprocess.run([nvcc, "-O2", "-std=c++17", "-arch=sm_90", "-c", os.path.join(ROOT, source), "-I",
                           os.path.join(ROOT, "common"), "-I", os.path.join(ROOT, "labs", lab), "-o", obj],
                          capture_output=True, text=True)
    assert proc.returncode == 0, "nvcc compiles %s\n%s" % (source, proc.stderr[-1000:])
    reasons = confine.check_object(obj, source, backend="gpu")
    assert any(reason in r for r in reasons) if reason else not reasons, \
        "nvcc's host object of %s: %s\n%s" % (source, "refused, '%s'" % reason if reason else "allowed", reasons)


# ---------------------------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("what, path, words", [
    ("a SUBMISSIONS that does not exist", "no-such-folder", "is not a directory"),
    ("an empty SUBMISSIONS folder", None, "is empty")])
def test_bad_submissions_get_a_one_line_error(tmp, what, path, words):
    path = os.path.join(tmp, path) if path else tempfile.mkdtemp(dir=tmp)
    proc = run_grade_all(path, os.path.join(tmp, "bad-out"))
    lines = [l for l in proc.stderr.strip().splitlines() if l]
    assert proc.returncode != 0 and len(lines) == 1 and words in lines[0], \
        "%s: one-line error, non-zero exit\n%s" % (what, proc.stdout + proc.stderr)


def test_an_unknown_runner_gets_a_one_line_error(tmp):
    proc = subprocess.run(["make", "-s", "grade-all", "SUBMISSIONS=" + tmp, "RUNNER=cloud"], capture_output=True,
                          text=True, cwd=ROOT)
    lines = [l for l in proc.stderr.splitlines() if l.startswith("classgrade:")]
    assert proc.returncode != 0 and len(lines) == 1 and "invalid choice: 'cloud'" in lines[0], \
        "an unknown RUNNER: one-line error, non-zero exit\n" + proc.stdout + proc.stderr


def test_make_grade_all_without_submissions_says_what_is_missing():
    proc = subprocess.run(["make", "-s", "grade-all"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode != 0 and "SUBMISSIONS" in proc.stderr, \
        "make grade-all without SUBMISSIONS says what is missing\n" + proc.stdout + proc.stderr


# ---------------------------------------------------------------------------------------------------------------
# The handout (built and unpacked once: conftest.py) and the Gradescope autograder
# ---------------------------------------------------------------------------------------------------------------
INSTRUCTOR_ONLY = ["solutions", "grader", "tests", ".ci"]  # the instructor-only trees: the handout leaves them out


def test_make_handout_builds_the_student_release(handout_build):
    proc, tarball = handout_build
    assert proc.returncode == 0 and os.path.isfile(tarball), \
        "make handout builds the student release\n" + proc.stdout + proc.stderr


def test_the_handout_has_no_instructor_files(handout):
    leaked = [p for p in INSTRUCTOR_ONLY if os.path.exists(os.path.join(handout, p))]
    assert not leaked and os.path.isfile(os.path.join(handout, "course", "confine_allowlist.txt")), \
        "the handout has no solutions, hidden tests, catalogues or instructor tools\n%s" % leaked


def test_the_handout_holds_no_reference_solution_under_any_name(handout):
    references = {}
    for lab in LABS:
        with open(os.path.join(ROOT, "solutions", lab, "kernel.cu"), "rb") as f:
            references[f.read()] = lab
    found = []
    for d, _, files in os.walk(handout):
        for name in files:
            with open(os.path.join(d, name), "rb") as f:
                if f.read() in references:
                    found.append(os.path.relpath(os.path.join(d, name), handout))
    assert len(references) == len(LABS) and not found, \
        "the handout holds no copy of a reference solution\n%s" % found


def test_the_handouts_pitfalls_are_objects_and_descriptions(handout):
    shipped = [os.path.relpath(os.path.join(d, f), handout)
               for d, _, fs in os.walk(os.path.join(handout, "pitfalls")) for f in fs]
    assert shipped and all(f.endswith((".o", ".txt")) for f in shipped), \
        "the handout's pitfalls are compiled objects and descriptions, no source (%d files)\n%s" % (
            len(shipped), shipped)


def test_the_handout_has_every_lab(handout):
    lab_folders = sorted(os.listdir(os.path.join(handout, "labs")))
    assert lab_folders == LABS, "the handout has every lab (%s)" % ", ".join(lab_folders)


@pytest.fixture(scope="module")
def handout_make_lab(handout, handout_env):
    """make labN BACKEND=emu in the handout, each lab run once: a function from lab1 to its output and exit."""
    ran = {}

    def run(short):
        if short not in ran:
            proc = subprocess.run(["make", short, "BACKEND=emu"], capture_output=True, text=True, cwd=handout,
                                  env=handout_env)
            ran[short] = proc.stdout + proc.stderr, proc.returncode
        return ran[short]
    return run


@pytest.mark.parametrize("lab", LABS)
def test_make_lab_in_the_handout_fails_the_skeletons_tests(handout_make_lab, lab):
    short = lab.split("-")[0]
    out, returncode = handout_make_lab(short)
    assert returncode != 0 and "elements are wrong" in out and bool(re.search(r"\d+ tests: 0 passed", out)), \
        "handout: make %s builds the skeleton, fails its tests with the first wrong element, exits non-zero\n%s" % (
            short, out[-2000:])


def handout_readme(handout):
    with open(os.path.join(handout, "README.md")) as f:
        return f.read()


def test_the_handouts_readme_names_no_instructor_only_folder(handout):
    readme = handout_readme(handout)
    named = [t for t in INSTRUCTOR_ONLY if re.search(r"(?<![\w/.-])%s/" % re.escape(t), readme)]
    assert not named, "the handout's README names folders the handout does not have: %s" % named


def test_the_handouts_readme_is_the_students(handout):
    readme = handout_readme(handout)
    assert "## Instructors" not in readme and "## Grading a class" not in readme and "SUBMISSION=solutions" not in \
        readme and "tools/install-deps && make lab1" in readme and "## Students" in readme, \
        "handout: the README keeps the students' sections and starts with their commands\n" + readme[:1500]


@pytest.mark.parametrize("where", ["README.md", "the handout's README.md"])
def test_the_readmes_sample_of_make_lab1_is_what_it_prints(handout, handout_make_lab, where):
    if where == "README.md":
        text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    else:
        text = handout_readme(handout)
    lab1 = handout_make_lab("lab1")[0]
    # the sample under the first `make lab1`: each piece between "..." is in what make lab1 printed
    sample = re.search(r"(?s)make lab1\n.*?```\n.*?```\n(.*?)```", text)
    pieces = [p.strip() for line in (sample.group(1).splitlines() if sample else [])
              for p in line.split("...") if p.strip()]
    missing = [p for p in pieces if p not in lab1]
    assert len(pieces) >= 3 and not missing, "%s: the sample of make lab1's output is what it prints\n" \
        "missing: %s\n%s" % (where, missing, lab1[-1500:])


def test_make_test_in_the_handout_says_the_tests_are_not_there(handout, handout_env):
    proc = subprocess.run(["make", "test"], capture_output=True, text=True, cwd=handout, env=handout_env)
    assert proc.returncode != 0 and proc.stderr.strip().splitlines()[:1] == \
        ["make test: the course's own tests need the full repository, not the student handout; run make labN"], \
        "handout: make test says in one line that the course's tests are not in the handout\n" + \
        proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def gradescope_build():
    proc = subprocess.run(["make", "-s", "gradescope"], capture_output=True, text=True, cwd=ROOT)
    return proc, os.path.join(ROOT, "build", "gradescope", "autograder.zip")


@pytest.fixture(scope="module")
def autograder(gradescope_build, tmp):
    """autograder.zip unpacked as Gradescope does, into a fake /autograder: (root, source, the zip's names)."""
    proc, archive = gradescope_build
    if proc.returncode != 0 or not os.path.isfile(archive):
        pytest.fail("make gradescope failed (see test_make_gradescope_builds_autograder_zip)")
    root = os.path.join(tmp, "autograder")
    source = os.path.join(root, "source")
    with zipfile.ZipFile(archive) as z:
        names = z.namelist()
        z.extractall(source)
        for info in z.infolist():  # zipfile drops the executable bits
            os.chmod(os.path.join(source, info.filename), (info.external_attr >> 16) & 0o777 or 0o644)
    return root, source, names


def test_make_gradescope_builds_autograder_zip(gradescope_build):
    proc, archive = gradescope_build
    assert proc.returncode == 0 and os.path.isfile(archive), \
        "make gradescope builds autograder.zip\n" + proc.stdout + proc.stderr


def test_autograder_zip_has_its_scripts_and_no_solutions(autograder):
    _, source, names = autograder
    assert "setup.sh" in names and "run_autograder" in names and \
        not any(n.startswith("solutions/") for n in names) and \
        "tools/install-deps" in open(os.path.join(source, "setup.sh")).read(), \
        "autograder.zip has setup.sh (through tools/install-deps) and run_autograder, and no solutions"


def test_setup_sh_runs(autograder):
    _, source, _ = autograder
    proc = subprocess.run([os.path.join(source, "setup.sh")], capture_output=True, text=True)
    assert proc.returncode == 0, "setup.sh runs (the packages are already here)\n" + proc.stdout + proc.stderr


@pytest.mark.parametrize("mode", ["auto", "setpriv"])
def test_run_autograder_grades_a_fake_autograder_tree(autograder, setpriv_tmp, mode):
    """Gradescope's run, with bubblewrap where it works (auto) and with the fallback of a container without it."""
    root, source, _ = autograder
    submission = os.path.join(root, "submission")
    os.makedirs(os.path.join(submission, LABS[0]), exist_ok=True)
    shutil.copy(os.path.join(ROOT, "solutions", LABS[0], "kernel.cu"), os.path.join(submission, LABS[0]))
    os.makedirs(os.path.join(submission, LABS[-1]), exist_ok=True)
    shutil.copy(toolchain.skeleton(LABS[-1]), os.path.join(submission, LABS[-1]))
    shutil.rmtree(os.path.join(root, "results"), ignore_errors=True)
    env = dict(os.environ, AUTOGRADER_ROOT=root, GRADE_SANDBOX=mode, **LIMITS)
    proc = subprocess.run([os.path.join(source, "run_autograder")], capture_output=True, text=True, env=env)
    try:
        with open(os.path.join(root, "results", "results.json")) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        doc = {"error": str(e)}
    hidden = [x for x in doc.get("tests", []) if x.get("visibility") == classgrade.HIDDEN_VISIBILITY]
    assert proc.returncode == 0 and doc.get("score") == 100 and len(hidden) == 2 * classgrade.HIDDEN_CASES, \
        "run_autograder (--sandbox %s) grades a fake /autograder/submission (a solution and a skeleton: 100 points) " \
        "into results/results.json\n" % mode + proc.stdout[-2000:] + proc.stderr[-2000:] + json.dumps(doc)[:1000]


# ---------------------------------------------------------------------------------------------------------------
# One Gradescope assignment per lab: make autograder LAB=N
# ---------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def one_lab_autograder(tmp):
    """make autograder LAB=1, unpacked into a fake /autograder of its own: (root, source, make's process)."""
    proc = subprocess.run(["make", "-s", "autograder", "LAB=1"], capture_output=True, text=True, cwd=ROOT)
    archive = os.path.join(ROOT, "build", "gradescope", LABS[0], "autograder.zip")
    if proc.returncode != 0 or not os.path.isfile(archive):
        pytest.fail("make autograder LAB=1 failed\n" + proc.stdout + proc.stderr)
    root = os.path.join(tmp, "one-lab-autograder")
    source = os.path.join(root, "source")
    with zipfile.ZipFile(archive) as z:
        z.extractall(source)
        for info in z.infolist():
            os.chmod(os.path.join(source, info.filename), (info.external_attr >> 16) & 0o777 or 0o644)
    return root, source, proc


@pytest.mark.parametrize("layout", ["repository", "lone kernel.cu"])
def test_a_one_lab_autograder_grades_that_lab_alone(one_lab_autograder, layout):
    """A repository's archive holding lab 1 and lab 3 (both right) scores lab 1's 100, not 200, and says lab 3 was
    left out; a lone kernel.cu is lab 1's."""
    root, source, _ = one_lab_autograder
    submission = os.path.join(root, "submission")
    shutil.rmtree(submission, ignore_errors=True)
    shutil.rmtree(os.path.join(root, "results"), ignore_errors=True)
    if layout == "repository":
        for lab in (LABS[0], "lab3-boundary"):
            os.makedirs(os.path.join(submission, "course-main", "labs", lab))
            shutil.copy(os.path.join(ROOT, "solutions", lab, "kernel.cu"),
                        os.path.join(submission, "course-main", "labs", lab))
    else:
        os.makedirs(submission)
        shutil.copy(os.path.join(ROOT, "solutions", LABS[0], "kernel.cu"), submission)
    env = dict(os.environ, AUTOGRADER_ROOT=root, **LIMITS)
    proc = subprocess.run([os.path.join(source, "run_autograder")], capture_output=True, text=True, env=env)
    try:
        with open(os.path.join(root, "results", "results.json")) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        doc = {"error": str(e)}
    labs_graded = {t["name"].split(":")[0] for t in doc.get("tests", [])}
    left_out = "left out of the submission: lab3-boundary" in doc.get("output", "")
    assert proc.returncode == 0 and doc.get("score") == 100 and labs_graded == {LABS[0]} and \
        left_out == (layout == "repository"), \
        "one-lab autograder, %s: lab 1 alone, 100 points%s\n%s" % (
            layout, ", lab 3 said to be left out" if layout == "repository" else "",
            proc.stdout[-2000:] + proc.stderr[-2000:] + json.dumps(doc)[:1500])
