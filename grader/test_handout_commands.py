#!/usr/bin/env python3
"""Every `make ...` command the lessons show works in the student handout.

    python3 -m grader.test_handout_commands [COURSE]   COURSE: an unpacked handout (default: build one with make handout)

Run by grader/test_grading.py on the handout it has just built and unpacked (part of `make test`). For each
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
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
INLINE = re.compile(r"`((?:[A-Z_]+=\S+ )*make [^`]+)`")
GPU_TARGETS = {"bench", "profile", "sanitize", "sanitize-catalogue", "autotune"}
RUN_TARGETS = {"pitfall", "traffic", "trace", "answers"}


def lesson_commands(course):
    """[(lesson file, command)] for every `make ...` in the lessons' inline code and code blocks."""
    found = []
    for path in sorted(glob.glob(os.path.join(course, "labs", "lab*-*", "lesson.md"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        blocks = re.findall(r"(?ms)^```[^\n]*\n(.*?)^```", text)
        lines = [l.strip() for b in blocks for l in b.splitlines() if re.match(r"(?:[A-Z_]+=\S+ )*make ", l.strip())]
        spans = [" ".join(m.split()) for m in INLINE.findall(re.sub(r"(?ms)^```.*?^```", "", text))]
        found += [(os.path.basename(path), c) for c in dict.fromkeys(lines + spans)]
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


def check_lesson_commands(t, course, env):
    commands = lesson_commands(course)
    t.check(len(commands) >= 20 and any(c.startswith("make pitfall") for _, c in commands),
            "handout: the lessons' make commands are found (%d)" % len(commands), commands)
    for lesson, command in commands:
        why = check_command(course, command, env)
        t.check(why is None, "handout: `%s` (%s) works" % (command, lesson), why or "")
    for args, words in [(["LAB=1", "NAME=no_such_bug"], ["no pitfall NAME=no_such_bug", "missing_guard"]),
                        (["LAB=1"], ["say which pitfall", "missing_guard"]), ([], ["say which lab"])]:
        proc = subprocess.run(["make", "pitfall"] + args, cwd=course, capture_output=True, text=True, env=env)
        t.check(proc.returncode != 0 and all(w in proc.stderr for w in words),
                "handout: make pitfall %s says in one line what is missing" % " ".join(args), proc.stdout + proc.stderr)


def main(argv):
    from grader.selftest import Tally
    t = Tally()
    env = dict(os.environ)
    env.pop("CUDAEMU_CACHE", None)
    with tempfile.TemporaryDirectory() as tmp:
        course = argv[0] if argv else None
        if not course:
            subprocess.run(["make", "-s", "handout"], cwd=ROOT, check=True)
            with tarfile.open(os.path.join(ROOT, "build", "handout", "course.tar.gz")) as tf:
                tf.extractall(tmp)  # our own tarball, just built
            course = os.path.join(tmp, "course")
        check_lesson_commands(t, course, env)
    print("%d passed, %d failed" % (t.passed, t.failed))
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
