"""Every command the lessons show (`make ...`, `python3 -m ...`) works in the student handout (make test-grading,
part of `make test`).

Run on the handout built and unpacked once for the run (conftest.py), one test per command of the lessons. For each
command: its target exists there (`make -n`), every KERNEL= file and pitfall NAME= is in the handout. Each command
without a placeholder then runs as written, once, on the handout's skeletons and without a GPU, and must end as
EXPECTED says: its exit status and its first line (make labN builds the skeleton and its tests fail; a pitfall exits
0, its tests failing as they must; make answers on the blank answers files reports and exits 0; a GPU tool refuses in
one line; make grade, minutes long, gets `make -n` only). The runs are grouped by lab, a group's one after the
other (they share its build folders), two groups at a time. Placeholders (`..`, `<name>`, `path/to/kernel.cu`)
are checked as far as they go: the target and the other arguments. And the handout's lessons and answers files
hold no question's answer: no letter in plain sight or in a decodable mark, no reason before the right letter
opens it.
"""
import base64
import concurrent.futures
import glob
import os
import re
import subprocess

import pytest

from course import labs, toolchain
from course.paths import ROOT
from tools.lessons.lesson_marks import lesson_files, read_questions

START = re.compile(r"(?:[A-Z_]+=\S+ )*(?:make|python3 -m) \S")  # a command, not a word: `make` alone is a mention
GPU_TARGETS = {"bench", "profile", "sanitize", "sanitize-catalogue", "autotune"}
# checked by `make -n` only: make grade grades all seven labs, each case in a process of its own (minutes on two
# cores); test_grading.py and test_readme_commands.py run the grader
LONG_TARGETS = {"grade"}
LAB = r"lab\d-[a-z-]+"
# what each command must do in the handout, by its make target (or python3 -m module): the exit status of the tool
# make runs (make itself exits 2 when it is not 0) and a pattern its first line of output (stdout's, then stderr's)
# must match; where a skeleton allows two ends, the one whose line matches must come with its status
EXPECTED = {
    "lab": [(1, r"== %s: tests on the CPU emulator" % LAB)],  # the skeleton: its tests fail
    "pitfall": [(0, r"== pitfall (\w+) \(%s\): \S" % LAB)],
    "heatmap": [(0, r"labs/%s/kernel\.cu on \d+×\d+·\d+×\d+: grid \d+ × \d+ of" % LAB)],
    # a skeleton that loads nothing yet is told so; lab 5's loads its tiles already
    "coalescing": [(0, r"make coalescing: labs/%s/kernel\.cu on \d+×\d+·\d+×\d+, the first warp request" % LAB),
                   (1, r"make coalescing: labs/%s/kernel\.cu made no load or store of global memory on .*: is "
                       r"its kernel written yet\?" % LAB)],
    "answers": [(0, r"docs/%s\.md, answers from labs/%s/answers\.txt" % (LAB, LAB))],
    "traffic": [(0, r"C = A·B, \d+×\d+·\d+×\d+ \(M=\d+, K=\d+, N=\d+\)")],
    "trace": [(0, r"Tiled C = A·B, \d+×\d+·\d+×\d+ with TILE=\d+, traced for block")],
    "tf32": [(0, r"\d+ random dot products of length K = \d+")],
    "mma": [(0, r"mma_m16n8k8_tf32 \(D = A·B \+ C; A 16×8, B 8×8")],
    "course.catalogue": [(1, r"catalogue: this copy has no grader/catalogue/ \(the student handout leaves it out\)")],
}
GPU_REFUSAL = [(1, r"make (\S+) needs a GPU: ")]
LABS = labs.folders()  # each has its lesson and its answers file in the handout


def commands_in(text):
    """The commands of a lesson, in order, each once: its code blocks' lines that start one (a trailing `# comment`
    dropped) and its inline code spans that are one (spaces and line breaks made single spaces)."""
    blocks = re.findall(r"(?ms)^```[^\n]*\n(.*?)^```", text)
    lines = [re.sub(r"\s+#.*$", "", l.strip()) for b in blocks for l in b.splitlines()]
    spans = [" ".join(m.split()) for m in re.findall(r"`([^`]+)`", re.sub(r"(?ms)^```.*?^```", "", text))]
    return list(dict.fromkeys(c for c in lines + spans if START.match(c)))


def lesson_commands(course):
    """[(lesson file, command)] for every command in the lessons' inline code and code blocks."""
    found = []
    for path in sorted(glob.glob(os.path.join(course, "docs", "lab*-*.md"))):
        with open(path, encoding="utf-8") as f:
            found += [(os.path.relpath(path, course), c) for c in commands_in(f.read())]
    return found


def placeholder(value):
    return ".." in value or "<" in value or value.startswith("path/to/")


def parse(command):
    """(environment assignments, target or module, {NAME: value}, the other words) of a command."""
    words = command.split()
    env = {}
    while words and re.match(r"[A-Z_]+=", words[0]):
        env.update([words.pop(0).split("=", 1)])
    if words[:2] == ["python3", "-m"]:
        return env, words[2], {}, words[3:]
    words = words[1:]  # make
    target = words[0] if words and "=" not in words[0] and words[0] != "..." else None
    args = dict(w.split("=", 1) for w in words[1:] if "=" in w)
    return env, target, args, [w for w in words[1:] if "=" not in w]


def runnable(command):
    """Whether the command runs as written: no placeholder, and not a GPU tool on a machine with a GPU (minutes)."""
    env, target, args, rest = parse(command)
    if target is None or target in LONG_TARGETS or "..." in rest or any(placeholder(v) for v in args.values()):
        return False
    return target not in GPU_TARGETS or not toolchain.gpu_status()[0]


def expected(command):
    """(exit status of the tool, pattern of the first line) that `command` must end with in the handout."""
    _, target, _, _ = parse(command)
    if target in GPU_TARGETS:
        return GPU_REFUSAL
    return EXPECTED["lab" if re.fullmatch(r"lab\d+", target) else target]


def group_of(command):
    """Commands that build in the same folders (one lab's) run one after the other; the rest each on its own."""
    _, target, args, _ = parse(command)
    lab = re.fullmatch(r"lab(\d+)", target)
    return "lab" + (lab.group(1) if lab else args.get("LAB", "")) if lab or args.get("LAB") else command


def check_command(course, command, env):
    """None when `command`'s target and arguments are all in the handout, else why not."""
    _, target, args, _ = parse(command)
    if target is None:
        return "no target"
    if target == "course.catalogue":
        return None  # a module, not a make target: it runs
    dry = subprocess.run(["make", "-n", target] + ["%s=%s" % kv for kv in args.items() if not placeholder(kv[1])],
                         cwd=course, capture_output=True, text=True, env=env)
    if dry.returncode != 0:
        return "make -n fails: " + (dry.stdout + dry.stderr).strip()[-500:]
    kernel = args.get("KERNEL")
    if kernel and not kernel.startswith("path/to/"):  # a named file, or a named folder's <file>
        where = os.path.join(course, os.path.dirname(kernel) if placeholder(kernel) else kernel)
        if not os.path.exists(where):
            return "KERNEL=%s: %s is not in the handout" % (kernel, os.path.relpath(where, course))
    if target == "pitfall" and "NAME" in args:
        lab = re.sub(r"\D", "", args.get("LAB", ""))
        if not lab:
            return "a pitfall without LAB"
        labs = glob.glob(os.path.join(course, "pitfalls", "lab%s-*" % lab))
        if not labs:
            return "the handout has no pitfalls for lab %s" % lab
        if not placeholder(args["NAME"]) and not os.path.isfile(os.path.join(labs[0], args["NAME"] + ".o")):
            return "the handout has no pitfall %s in %s" % (args["NAME"], os.path.basename(labs[0]))
    return None


def run_in(course, command, env):
    env = dict(env, BACKEND="emu")
    env.pop("MAKEFLAGS", None)
    env.pop("MAKELEVEL", None)
    try:
        return subprocess.run(["bash", "-c", command], cwd=course, capture_output=True, text=True, env=env,
                              stdin=subprocess.DEVNULL, timeout=600)
    except subprocess.TimeoutExpired:  # its own test fails; the others still get their runs
        return subprocess.CompletedProcess(command, 124, "", "(stopped after 600 seconds)")


def tool_status(proc):
    """The exit status of the tool make ran (make says `Error N` and exits 2), or the command's own."""
    failed = re.search(r"^make: \*\*\* \[[^\]]*\] Error (\d+)$", proc.stderr, re.M)
    return int(failed.group(1)) if proc.returncode == 2 and failed else proc.returncode


# the tests' names: the repository's lessons, which the handout's must be
COMMANDS = lesson_commands(ROOT)


@pytest.fixture(scope="module")
def lesson_runs(handout, handout_env):
    """{command: CompletedProcess} of every runnable command of the lessons, each run once in the handout: a lab's
    one after the other, two labs at a time (CI has two cores)."""
    groups = {}
    for command in dict.fromkeys(c for _, c in COMMANDS if runnable(c)):
        groups.setdefault(group_of(command), []).append(command)

    def run_group(commands):
        return {c: run_in(handout, c, handout_env) for c in commands}

    ran = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for result in pool.map(run_group, groups.values()):
            ran.update(result)
    return ran


def test_the_lessons_commands_are_found(handout):
    commands = lesson_commands(handout)
    kinds = {c.split()[0] + " " + c.split()[1] for _, c in commands}
    assert len(commands) >= 20 and commands == COMMANDS and {"make pitfall", "python3 -m"} <= kinds, \
        "handout: the lessons' commands are found (%d), the repository's lessons' (%d)\n%s" % (
            len(commands), len(COMMANDS), commands)


@pytest.mark.parametrize("lesson, command", COMMANDS, ids=["%s: %s" % lc for lc in COMMANDS])
def test_the_lessons_command_works_in_the_handout(handout, handout_env, lesson_runs, lesson, command):
    why = check_command(handout, command, handout_env)
    assert why is None, "handout: `%s` (%s) works\n%s" % (command, lesson, why)
    if not runnable(command):
        return
    proc = lesson_runs[command]
    lines = [l for l in (proc.stdout + "\n" + proc.stderr).splitlines() if l.strip()]
    line = lines[0] if lines else ""
    ends = [(status, re.match(first, line)) for status, first in expected(command)]
    match = next((m for status, m in ends if m and status == tool_status(proc)), None)
    assert match, "handout: `%s` (%s) ends as one of %s (exit, first line)\ngot exit %d (make's %d), first line " \
        "%r\n%s" % (command, lesson, expected(command), tool_status(proc), proc.returncode, line,
        proc.stdout[-2000:] + proc.stderr[-2000:])
    _, target, args, _ = parse(command)
    if target == "pitfall":  # and it is the pitfall asked for
        assert match.group(1) == args["NAME"], "handout: `%s` runs %s" % (command, match.group(1))
    if target in GPU_TARGETS:
        assert match.group(1) == target and len([l for l in lines if not l.startswith("make: ***")]) == 1, \
            "handout: `%s` without a GPU refuses in one line\n%s" % (command, "\n".join(lines))


def test_expected_outcomes_are_told_apart():
    """The table can fail a command: each target's pattern rejects another's first line, and exits are read through
    make's `Error N`."""
    assert expected("make lab3") == EXPECTED["lab"] and expected("CUDAEMU_THREADS=1 make lab6") == EXPECTED["lab"]
    assert expected("make profile LAB=6 SIZE=4096") == GPU_REFUSAL
    assert not re.match(EXPECTED["pitfall"][0][1], "== lab3-boundary: tests on the CPU emulator")
    assert not re.match(EXPECTED["lab"][0][1], "make lab3: usage")
    assert re.match(EXPECTED["pitfall"][0][1], "== pitfall row_from_x (lab1-naive): the row comes from x").group(1) \
        == "row_from_x"
    assert not runnable("make grade")
    report, refusal = [p for _, p in EXPECTED["coalescing"]]
    assert re.match(report, "make coalescing: labs/lab5-register-tiling/kernel.cu on 40×24·24×36, the first warp "
                            "request of each load and store line") and not re.match(refusal, "make coalescing: "
                                                                                      "labs/lab1-naive/kernel.cu on")
    made = subprocess.CompletedProcess([], 2, "", "x\nmake: *** [Makefile:23: lab1] Error 1\n")
    assert tool_status(made) == 1 and tool_status(subprocess.CompletedProcess([], 0, "", "")) == 0
    assert group_of("make lab3") == group_of("make pitfall LAB=3 NAME=x") == group_of("make heatmap LAB=3") == "lab3"
    assert group_of("make tf32 K=32") != group_of("make tf32 K=1024")
    assert not runnable("make traffic M=.. K=.. N=.. TILE=..") and not runnable("make lab1 KERNEL=path/to/kernel.cu")
    assert runnable("make trace M=4 K=4 N=4 TILE=2") and runnable("python3 -m course.catalogue materialise")


@pytest.mark.parametrize("args, words", [
    (["LAB=1", "NAME=no_such_bug"], ["no pitfall NAME=no_such_bug", "missing_guard"]),
    (["LAB=1"], ["say which pitfall", "missing_guard"]),
    ([], ["say which lab"])])
def test_make_pitfall_says_what_is_missing(handout, handout_env, args, words):
    proc = subprocess.run(["make", "pitfall"] + args, cwd=handout, capture_output=True, text=True, env=handout_env)
    assert proc.returncode != 0 and all(w in proc.stderr for w in words), \
        "handout: make pitfall %s says in one line what is missing\n%s" % (" ".join(args), proc.stdout + proc.stderr)


def test_the_handout_ships_no_answer_to_a_lessons_question(handout):
    """Each question's right letter and reason, found from the repository's marks (its hash opens only one option),
    appear nowhere in the handout's lessons and answers files, neither as written nor inside a decoded mark; the
    answers files are blank."""
    questions = [q for path in lesson_files() for q in read_questions(path)]
    assert len(questions) >= 14
    texts = {}
    for path in glob.glob(os.path.join(handout, "docs", "lab*-*.md")) + glob.glob(
            os.path.join(handout, "labs", "*", "answers.txt")):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        payloads = re.findall(r"<!-- question \d+\.\d+: ([A-Za-z0-9+/=]+) -->", text)
        texts[os.path.relpath(path, handout)] = text + "\n".join(base64.b64decode(p).decode("utf-8") for p in payloads)
        if path.endswith("answers.txt"):
            filled = [line for line in text.splitlines() if re.match(r"\d+\.\d+ =\s*\S", line)]
            assert filled == [], "handout: %s is blank\n%s" % (path, filled)
    assert sum(name.endswith("answers.txt") for name in texts) == len(LABS) and len(texts) == 2 * len(LABS), \
        sorted(texts)
    for q in questions:
        right = [letter for letter in q.options() if q.is_right(letter)]
        assert len(right) == 1, q.id
        why = q.why(right[0])
        for name, text in texts.items():
            assert why not in text and why[:30] not in text, "handout: %s shows the reason of %s" % (name, q.id)
            assert not re.search(r'"choice"|"keywords"|%s\s*=\s*\(?%s\b' % (re.escape(q.id), right[0]), text), \
                "handout: %s names the answer of %s" % (name, q.id)
