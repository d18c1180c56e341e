"""Every command the README shows, and every `make` command docs/*.md quote, is run by this file as written (make
test-grading, part of `make test`).

The commands are read from the documents, not copied here: each one found must have an entry in COMMANDS below,
which says where it runs and what it must do, and each entry must still be found. So a command that is changed,
added or removed in a document fails here until its entry follows it.

- A student's command runs in the handout (conftest.py builds it), as the student's only copy of the course.
- An instructor's command runs in a fresh copy of the repository (conftest.fresh_copy: what a clone would hold).
- A GPU command runs there too; without a GPU it must refuse in one line and exit non-zero, with one it is only
  checked by `make -n` (it would take minutes).
- `make test` and its suites are what this run is: each must be a target that `make test` runs (make test-list).
- A mention is a word in the prose (`make`, `nvcc`, a package's name), not a command.

Placeholders in a document (`dir`, `path/to/kernel.cu`, `LAB=N`, `[...]`) are replaced by the entry's concrete
command; an entry without one runs the text as written. The lessons' commands are test_handout_commands.py's.
"""
import csv
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field

import pytest

from course import labs, toolchain
from course.paths import ROOT
from grader import package

# the handout's README is README.md as `make handout` cuts it for students (grader/package.py), read here from the
# repository's so that the tests are known before the handout is built; test_handout_readme_is_that_cut checks it
HANDOUT_README = "the handout's README.md"
DOCUMENTS = ("README.md", HANDOUT_README, "docs/emulator.md", "docs/results.md")
# what starts a command in the README; in docs/*.md only `make` commands are quoted for readers to run
README_START = re.compile(r"(?:[A-Z_]+=\S+ )*(?:make|tools/install-deps|common/emu/emucc|python3 -m \S+|nvcc)\b")
DOCS_START = re.compile(r"(?:[A-Z_]+=\S+ )*make\b")


def commands_in(path):
    """The commands of a Markdown file, in order, each once: the lines of its code blocks that start one (a trailing
    `# comment` dropped) and its inline code spans that are one (spaces and line breaks made single spaces)."""
    with open(os.path.join(ROOT, "README.md" if path == HANDOUT_README else path), encoding="utf-8") as f:
        text = f.read()
    if path == HANDOUT_README:
        text = package.student_readme(text)
    start = README_START if path in ("README.md", HANDOUT_README) else DOCS_START
    found = []
    for block in re.findall(r"(?ms)^```[^\n]*\n(.*?)^```", text):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line.strip())
            if start.match(line):
                found.append(" ".join(line.split()))
    for span in re.findall(r"`([^`]+)`", re.sub(r"(?ms)^```.*?^```", "", text)):
        if start.match(span.strip()):
            found.append(" ".join(span.split()))
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class Command:
    where: str              # handout, fresh, gpu, suite or mention
    run: str = None         # the concrete command, where the document's has placeholders; {class}, {kernel}, {prog}
    exit: int = 0           # 0: must succeed; 1: must fail (a skeleton's tests, a blank answers file)
    words: tuple = field(default=())  # what its output must hold


LAB_FAILS = ("elements are wrong",)
GRADE_CHECKS = ("Traffic (25 points):", "at least 2*M*N*K FP32 FLOPs", "bank conflicts: A transposed")
FULL_MARKS = "%d/%d" % ((100 * len(labs.folders()),) * 2)  # the score table's total line
COMMANDS = {
    "README.md": {
        # Start here
        "tools/install-deps && make lab1": Command("handout", exit=1, words=("all packages present",) + LAB_FAILS),
        "tools/install-deps all && make test-all": Command("suite", run="tools/install-deps all && make -n test-all"),
        # Students
        "make lab1": Command("handout", exit=1, words=LAB_FAILS + ("the lesson is docs/lab1-naive.md",)),
        "make lab3": Command("handout", exit=1, words=LAB_FAILS + ("the lesson is docs/lab3-boundary.md",)),
        "make lab3 KERNEL=path/to/kernel.cu": Command("handout", run="make lab3 KERNEL={kernel}", exit=1,
                                                      words=LAB_FAILS),
        "make pitfall LAB=3 NAME=missing_second_barrier": Command("handout", words=("race on shared memory",)),
        "CUDAEMU_THREADS=1 make lab3": Command("handout", exit=1, words=LAB_FAILS),
        "make traffic M=55 K=48 N=43 TILE=16": Command("handout", words=("arithmetic intensity",)),
        "make trace M=4 K=4 N=4 TILE=2 [BLOCK=1,0]": Command("handout", run="make trace M=4 K=4 N=4 TILE=2 BLOCK=1,0",
                                                             words=("phase",)),
        "make heatmap LAB=3 [KERNEL=file] [M=.. K=.. N=..]": Command(
            "handout", run="make heatmap LAB=3 KERNEL={solution3} M=40 K=36 N=34", words=("build/heatmap",)),
        "make coalescing LAB=1 [KERNEL=file] [M=.. K=.. N=..]": Command(
            "handout", run="make coalescing LAB=1 KERNEL={solution1} M=40 K=36 N=34", words=("sector",)),
        "make tf32 K=1024": Command("handout", words=("tolerance",)),
        "make mma [ROW=5 COL=6]": Command("handout", run="make mma ROW=5 COL=6", words=("A[5][6] in lane",)),
        "make answers [LAB=3]": Command("handout", run="make answers LAB=3", words=("3.1", "0 of")),
        "make labN": Command("mention"),
        "make": Command("mention"),
        "nvcc": Command("mention"),
        # Instructors
        "tools/install-deps grader && make grade SUBMISSION=solutions": Command(
            "fresh", words=("all packages present", FULL_MARKS)),
        "make test": Command("suite", run="make -n test"),
        "make test-all": Command("suite", run="make -n test-all"),
        "make test-list": Command("suite", run="make -n test-list"),
        "make test-SUITE": Command("mention"),
        "make handout": Command("fresh", words=("course.tar.gz",)),
        "make pitfall": Command("mention"),
        "make grade": Command("fresh", words=("0/%d" % (100 * len(labs.folders())),)),
        "make grade SUBMISSION=dir": Command("fresh", run="make grade SUBMISSION={class}/correct",
                                             words=("lab1-naive", "100/100")),
        "python3 -m course.catalogue": Command("fresh", run="python3 -m course.catalogue list",
                                               words=("lab3/missing_second_barrier",)),
        "python3 -m course info --grade-checks": Command("fresh", words=GRADE_CHECKS),
        "python3 -m grader.classgrade reference-cpu --write": Command(
            "fresh", run="python3 -m grader.classgrade reference-cpu", words=("lab7-tensor-cores", "s of CPU in")),
        # Grading a class
        "make grade-all SUBMISSIONS=dir": Command("fresh", run="make grade-all SUBMISSIONS={class}",
                                                  words=("gradebook.csv",)),
        "make grade-all SUBMISSIONS=dir RUNNER=slurm": Command("suite", run="make -n test-slurm"),
        "make gradescope": Command("fresh", words=("autograder.zip",)),
        "make autograder LAB=3": Command("fresh", words=("lab3-boundary/autograder.zip", "grades lab3-boundary alone")),
        "tools/install-deps all": Command("fresh", words=("all packages present",)),
        "make bench-grading": Command("suite", run="make -n bench-grading"),
        # The emulator and the GPU
        "common/emu/emucc -o prog a.cu b.cpp": Command("fresh", run="common/emu/emucc -o {prog}-fresh {a_cu} {b_cpp} "
                                                                    "&& {prog}-fresh", words=("a.cu says 42",)),
        "make bench-emu": Command("suite", run="make -n bench-emu"),
        # On a GPU
        "make bench": Command("gpu"),
        "make profile LAB=3 [KERNEL=…] [SIZE=2048 | SHAPE=MxNxK]": Command("gpu", run="make profile LAB=3"),
        "make sanitize LAB=3 [KERNEL=…]": Command("gpu", run="make sanitize LAB=3"),
        "make sanitize-catalogue": Command("gpu"),
        "make autotune": Command("gpu"),
    },
    HANDOUT_README: {
        "tools/install-deps && make lab1": Command("handout", exit=1, words=("all packages present",) + LAB_FAILS),
        "make help": Command("handout", words=("make lab1", "make pitfall", "make traffic")),
        "python3 -m course info --grade-checks": Command("handout", words=GRADE_CHECKS),
        "make": Command("mention"),
        "nvcc": Command("mention"),
        "make lab1": Command("handout", exit=1, words=LAB_FAILS + ("the lesson is docs/lab1-naive.md",)),
        "make lab3": Command("handout", exit=1, words=LAB_FAILS + ("the lesson is docs/lab3-boundary.md",)),
        "make lab3 KERNEL=path/to/kernel.cu": Command("handout", run="make lab3 KERNEL={kernel}", exit=1,
                                                      words=LAB_FAILS),
        "make pitfall LAB=3 NAME=missing_second_barrier": Command("handout", words=("race on shared memory",)),
        "CUDAEMU_THREADS=1 make lab3": Command("handout", exit=1, words=LAB_FAILS),
        "make traffic M=55 K=48 N=43 TILE=16": Command("handout", words=("arithmetic intensity",)),
        "make trace M=4 K=4 N=4 TILE=2 [BLOCK=1,0]": Command("handout", run="make trace M=4 K=4 N=4 TILE=2 BLOCK=1,0",
                                                             words=("phase",)),
        "make heatmap LAB=3 [KERNEL=file] [M=.. K=.. N=..]": Command(
            "handout", run="make heatmap LAB=3 KERNEL={solution3} M=40 K=36 N=34", words=("build/heatmap",)),
        "make coalescing LAB=1 [KERNEL=file] [M=.. K=.. N=..]": Command(
            "handout", run="make coalescing LAB=1 KERNEL={solution1} M=40 K=36 N=34", words=("sector",)),
        "make tf32 K=1024": Command("handout", words=("tolerance",)),
        "make mma [ROW=5 COL=6]": Command("handout", run="make mma ROW=5 COL=6", words=("A[5][6] in lane",)),
        "make answers [LAB=3]": Command("handout", run="make answers LAB=3", words=("3.1", "0 of")),
        "common/emu/emucc -o prog a.cu b.cpp": Command("handout", run="common/emu/emucc -o {prog} {a_cu} {b_cpp} "
                                                                      "&& {prog}", words=("a.cu says 42",)),
        "make bench": Command("gpu"),
        "make profile LAB=3 [KERNEL=…] [SIZE=2048 | SHAPE=MxNxK]": Command("gpu", run="make profile LAB=3"),
        "make sanitize LAB=3 [KERNEL=…]": Command("gpu", run="make sanitize LAB=3"),
        "make sanitize-catalogue": Command("gpu"),
        "make autotune": Command("gpu"),
    },
    "docs/emulator.md": {
        "make test": Command("suite", run="make -n test"),
        "make test-emucc": Command("suite"),
        "make test-emulator": Command("suite", run="make -n test-emulator"),
        "make lab3": Command("handout", exit=1, words=LAB_FAILS),
        "make bench-emu": Command("suite", run="make -n bench-emu"),
        "make coalescing LAB=N": Command("handout", run="make coalescing LAB=3 KERNEL={solution3}",
                                         words=("sector",)),
        "make sanitize-catalogue": Command("gpu"),
        "make grade SUBMISSION=solutions BACKEND=gpu": Command("gpu"),
        "make test-external": Command("suite", run="make -n test-external-in-suite"),
        "make grade SUBMISSION=solutions": Command("fresh", words=(FULL_MARKS,)),
    },
    "docs/results.md": {
        "make bench": Command("gpu"),
        "make bench LAB=6 KERNEL=other.cu SIZES=512 SHAPES=\"512x512x511 1000x1200x799\"": Command(
            "gpu", run="make bench LAB=6 KERNEL={solution6} SIZES=512 SHAPES=\"512x512x511 1000x1200x799\""),
        "make profile LAB=1": Command("gpu"),
        "make profile LAB=6 SIZE=4096": Command("gpu"),
        "make autotune": Command("gpu"),
        "make grade SUBMISSION=solutions BACKEND=gpu": Command("gpu"),
        "make sanitize-catalogue": Command("gpu"),
        "make bench LAB=6 KERNEL=<the lab 6 reference as it was that morning>": Command(
            "gpu", run="make bench LAB=6 KERNEL={solution6}"),
        "make traffic LAB=6 SPLIT=.. SMS=.. PER_SM=..": Command(
            "handout", run="make traffic M=512 K=4096 N=512 LAB=6 SPLIT=8 SMS=132 PER_SM=2", words=("wave",)),
        "make profile LAB=7 SIZE=4096": Command("gpu"),
        "make profile LAB=8 SIZE=4096": Command("gpu"),
        "make profile": Command("gpu", run="make profile LAB=3"),
        "make profile LAB=N": Command("gpu", run="make profile LAB=5"),
        "make profile LAB=6 SHAPE=4096x4096x1023": Command("gpu"),
        "make autotune WIDE=1": Command("gpu"),
        "make grade BACKEND=gpu": Command("gpu"),
        "make lab7 BACKEND=gpu KERNEL=solutions/lab7-tensor-cores/kernel.cu": Command("gpu"),
        "make grade": Command("fresh", words=("0/%d" % (100 * len(labs.folders())),)),
        "make test": Command("suite", run="make -n test"),
        "make sanitize-catalogue LAB=7": Command("gpu"),
        "make sanitize-catalogue LAB=6": Command("gpu"),
        "make bench LAB=1 KERNEL=build/catalogue/lab1/row_from_x.cu SIZES=\"1024 4096\" SHAPES=1000x1200x800":
            Command("gpu"),
    },
}

CASES = [(doc, text) for doc in DOCUMENTS for text in COMMANDS[doc]]


@pytest.mark.parametrize("doc", DOCUMENTS)
def test_every_command_of_the_document_has_an_entry_and_every_entry_a_command(doc):
    found = commands_in(doc)
    unknown = [c for c in found if c not in COMMANDS[doc]]
    gone = [c for c in COMMANDS[doc] if c not in found]
    assert len(found) >= 5 and not unknown and not gone, \
        "%s: every command it shows is run by tests/grader/test_readme_commands.py\n" \
        "new or changed (give each an entry in COMMANDS): %s\nno longer shown (remove their entries): %s" % (
            doc, unknown, gone)


@pytest.fixture(scope="module")
def places(handout, fresh, tmp_path_factory):
    """What the concrete commands name: a class of one student, kernels, a two-file program."""
    where = str(tmp_path_factory.mktemp("readme-commands"))
    os.chmod(where, 0o755)
    klass = os.path.join(where, "class")
    os.makedirs(os.path.join(klass, "correct", "lab1-naive"))
    shutil.copy(os.path.join(ROOT, "solutions", "lab1-naive", "kernel.cu"),
                os.path.join(klass, "correct", "lab1-naive", "kernel.cu"))
    kernel = os.path.join(where, "mine", "kernel.cu")
    os.makedirs(os.path.dirname(kernel))
    shutil.copy(toolchain.skeleton("lab3-boundary"), kernel)
    solutions = {}
    for lab in labs.all_labs():  # the references, outside both trees, as a student's or a variant's file
        solutions["solution%d" % lab.number] = os.path.join(where, "solutions", lab.folder + ".cu")
        os.makedirs(os.path.dirname(solutions["solution%d" % lab.number]), exist_ok=True)
        shutil.copy(lab.solution, solutions["solution%d" % lab.number])
    a_cu, b_cpp = os.path.join(where, "a.cu"), os.path.join(where, "b.cpp")
    with open(a_cu, "w") as f:
        f.write('#include <cstdio>\n__global__ void answer(int* out) { *out = 42; }\n'
                'int from_device() {\n    int* d; int h = 0;\n    cudaMalloc(&d, sizeof(int));\n'
                '    answer<<<1, 1>>>(d);\n    cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);\n'
                '    cudaFree(d);\n    return h;\n}\n')
    with open(b_cpp, "w") as f:
        f.write('#include <cstdio>\nint from_device();\nint main() { std::printf("a.cu says %d\\n", from_device()); }\n')
    return dict(solutions, **{"class": klass, "kernel": kernel, "prog": os.path.join(where, "prog"), "a_cu": a_cu,
                              "b_cpp": b_cpp})


RAN = {}


def shell_once(command, cwd):
    """shell(), each command run once in each tree: documents quote some commands twice."""
    if (command, cwd) not in RAN:
        RAN[command, cwd] = shell(command, cwd)
    return RAN[command, cwd]


def shell(command, cwd, timeout=1200):
    env = dict(os.environ, BACKEND="emu")
    env.pop("CUDAEMU_CACHE", None)  # each tree builds the emulator's runtime in its own build/
    env.pop("MAKEFLAGS", None)
    env.pop("MAKELEVEL", None)
    return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def suites(fresh):
    proc = shell("make -s test-list", fresh)
    return proc.stdout.split()


@pytest.mark.parametrize("doc, text", CASES, ids=["%s: %s" % c for c in CASES])
def test_the_command_runs_as_the_document_says(doc, text, handout, fresh, places):
    entry = COMMANDS[doc][text]
    if entry.where == "mention":
        return
    command = (entry.run or text).format(**places)
    if entry.where == "suite":
        proc = shell(command, fresh)
        assert proc.returncode == 0, "%s: `%s` (%s) is a target\n%s" % (doc, text, command, proc.stderr[-1500:])
        target = re.search(r"make (?:-n )?(\S+)", command).group(1)
        if target.startswith("test-") and target not in ("test-list", "test-all"):
            assert target in suites(fresh), "%s: `%s` (%s) is one of make test's suites" % (doc, text, target)
        return
    if entry.where == "gpu":
        if toolchain.gpu_status()[0]:  # with a GPU it would run for minutes: its target is checked, not run
            proc = shell(command.replace("make ", "make -n ", 1), handout if doc == HANDOUT_README else fresh)
            assert proc.returncode == 0, "%s: `%s` is a target\n%s" % (doc, command, proc.stderr[-1500:])
            return
        proc = shell(command, handout if doc == HANDOUT_README else fresh, timeout=120)
        lines = [l for l in (proc.stdout + proc.stderr).splitlines() if l.strip() and not l.startswith("make: ***")]
        assert proc.returncode != 0 and len(lines) == 1 and ("needs a GPU" in lines[0] or "no GPU is usable" in
                                                             lines[0]), \
            "%s: `%s` without a GPU refuses in one line\n%s" % (doc, command, proc.stdout[-1500:] + proc.stderr[-1500:])
        return
    cwd = handout if entry.where == "handout" else fresh
    proc = shell_once(command, cwd)
    out = proc.stdout + proc.stderr
    ok_exit = proc.returncode == 0 if entry.exit == 0 else proc.returncode != 0
    missing = [w for w in entry.words if w not in out]
    assert ok_exit and not missing, "%s: `%s` in the %s exits %s and prints %s\nexit %d, missing %s\n%s" % (
        doc, command, "handout" if entry.where == "handout" else "fresh copy", "0" if entry.exit == 0 else
        "non-zero", list(entry.words), proc.returncode, missing, out[-3000:])


def test_make_grade_all_in_a_fresh_copy_writes_the_gradebook(fresh, places):
    proc = shell_once("make grade-all SUBMISSIONS=%s" % places["class"], fresh)
    with open(os.path.join(fresh, "build", "grade-all", "gradebook.csv"), newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert proc.returncode == 0 and rows.get("correct", {}).get("status") == "graded" and \
        float(rows["correct"]["total"]) == 100, "fresh copy: make grade-all grades the class of one\n%s\n%s" % (
            rows, proc.stdout[-2000:] + proc.stderr[-2000:])


def test_the_handout_readme_is_that_cut(handout):
    with open(os.path.join(handout, "README.md"), encoding="utf-8") as f:
        shipped = f.read()
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        assert shipped == package.student_readme(f.read()), "the handout's README is README.md cut for students"
