"""Every `make ...` command the lessons show works in the student handout (make test-grading, part of `make test`).

Run on the handout built and unpacked once for the run (conftest.py), one test per command of the lessons. For each
command: its target exists there (`make -n`), every KERNEL= file and pitfall NAME= is in the handout, and the
commands that need no GPU and no finished kernel (pitfall, traffic, trace, answers) run to their end: a pitfall
exits 0 (its tests fail as they must), the others print their report, not a usage error (answers on the blank
answers files exits non-zero: none is right yet). Placeholders (`..`, `<name>`,
`path/to/kernel.cu`) are checked as far as they go: the target and the other arguments.
"""
import glob
import os
import re
import subprocess

import pytest

from course.paths import ROOT

INLINE = re.compile(r"`((?:[A-Z_]+=\S+ )*make [^`]+)`")
GPU_TARGETS = {"bench", "profile", "sanitize", "sanitize-catalogue", "autotune"}
RUN_TARGETS = {"pitfall", "traffic", "trace", "answers"}


def lesson_commands(course):
    """[(lesson file, command)] for every `make ...` in the lessons' inline code and code blocks."""
    found = []
    for path in sorted(glob.glob(os.path.join(course, "docs", "lab*-*.md"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        blocks = re.findall(r"(?ms)^```[^\n]*\n(.*?)^```", text)
        lines = [l.strip() for b in blocks for l in b.splitlines() if re.match(r"(?:[A-Z_]+=\S+ )*make ", l.strip())]
        spans = [" ".join(m.split()) for m in INLINE.findall(re.sub(r"(?ms)^```.*?^```", "", text))]
        found += [(os.path.relpath(path, course), c) for c in dict.fromkeys(lines + spans)]
    return found


def placeholder(value):
    return ".." in value or "<" in value or value.startswith("path/to/")


def check_command(course, command, env):
    """None when `command` works in the handout, else why not."""
    words = command.split()
    words = words[words.index("make") + 1:]
    if not words or "=" in words[0] or words[0] == "...":
        return "no target"
    target = words[0]
    args = dict(w.split("=", 1) for w in words[1:] if "=" in w)
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
    if target not in RUN_TARGETS or any(placeholder(v) for v in args.values()) or "..." in words:
        return None
    proc = subprocess.run(["make", target] + ["%s=%s" % kv for kv in args.items()], cwd=course, capture_output=True,
                          text=True, env=dict(env, BACKEND="emu"), timeout=600)
    out = (proc.stdout + proc.stderr).strip()
    if target == "pitfall" and proc.returncode != 0:
        return "exit %d: %s" % (proc.returncode, out[-800:])
    if "usage: make" in out or not proc.stdout.strip():  # answers on a blank file fails, but it ran
        return "exit %d: %s" % (proc.returncode, out[-800:])
    return None


# the tests' names: the repository's lessons, which the handout's must be
COMMANDS = lesson_commands(ROOT)


def test_the_lessons_make_commands_are_found(handout):
    commands = lesson_commands(handout)
    assert len(commands) >= 20 and any(c.startswith("make pitfall") for _, c in commands) and commands == COMMANDS, \
        "handout: the lessons' make commands are found (%d), the repository's lessons' (%d)\n%s" % (
            len(commands), len(COMMANDS), commands)


@pytest.mark.parametrize("lesson, command", COMMANDS, ids=["%s: %s" % lc for lc in COMMANDS])
def test_the_lessons_command_works_in_the_handout(handout, handout_env, lesson, command):
    why = check_command(handout, command, handout_env)
    assert why is None, "handout: `%s` (%s) works\n%s" % (command, lesson, why)


@pytest.mark.parametrize("args, words", [
    (["LAB=1", "NAME=no_such_bug"], ["no pitfall NAME=no_such_bug", "missing_guard"]),
    (["LAB=1"], ["say which pitfall", "missing_guard"]),
    ([], ["say which lab"])])
def test_make_pitfall_says_what_is_missing(handout, handout_env, args, words):
    proc = subprocess.run(["make", "pitfall"] + args, cwd=handout, capture_output=True, text=True, env=handout_env)
    assert proc.returncode != 0 and all(w in proc.stderr for w in words), \
        "handout: make pitfall %s says in one line what is missing\n%s" % (" ".join(args), proc.stdout + proc.stderr)
