"""`make answers`: check a student's answers to a lesson's exercises.

The answers live in labs/<lab>/answers.txt, one line per exercise, `3.2 = 5`. The right answers are never stored:
each exercise's mark in the lesson names a calculator quantity and a shape, and the answer is computed from them,
so a wrong answer can be explained with the working.
"""
import os
import re

from calculator import format_number, matches, parse_number, quantities
from lesson_marks import ROOT, read_marks

ANSWER_LINE = re.compile(r"^\s*(\d+\.\d+)\s*=(.*)$")


def read_answers(path):
    """{exercise id: the answer as written, '' when blank}; comments (#) and blank lines are skipped."""
    answers = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = ANSWER_LINE.match(line.split("#", 1)[0])
            if m:
                answers[m.group(1)] = m.group(2).strip()
    return answers


def blank_answers_file(lesson_path, exercises, lab_folder):
    """The answers.txt a lab ships with: every exercise of its lesson, no answers."""
    lines = ["# Exercises of %s: write each answer after its '='." % os.path.relpath(lesson_path, ROOT),
             "# Whole numbers may have commas (64,704); give ratios to two decimal places (3.51).",
             "# Check them with: make answers LAB=%s" % re.match(r"lab(\d+)", lab_folder).group(1)]
    return "\n".join(lines + ["%s =" % e.id for e in exercises]) + "\n"


def mark(exercise, written):
    """(right, one line for the student)."""
    q = quantities(exercise.shape)[exercise.quantity]
    if not written:
        return False, "%s  not answered yet" % exercise.id
    if parse_number(written) is None:
        return False, "%s  '%s' is not a number" % (exercise.id, written)
    if matches(exercise.quantity, exercise.shape, written, decimals=q.decimals or None):
        return True, "%s  right: %s" % (exercise.id, written)
    answer = format_number(q.compute(exercise.shape), q.decimals)
    return False, "%s  wrong: you wrote %s, the answer is %s. %s: %s" % (
        exercise.id, written, answer, q.meaning[0].upper() + q.meaning[1:], q.explain(exercise.shape))


def check(lesson_path, answers_path):
    """(all right, the report's lines)."""
    _, exercises = read_marks(lesson_path)
    answers = read_answers(answers_path)
    lines = ["%s, answers from %s" % (os.path.relpath(lesson_path, ROOT), answers_path)]
    right = 0
    for e in exercises:
        ok, line = mark(e, answers.get(e.id, ""))
        right += ok
        lines.append("  " + line)
    lines.append("%d of %d right" % (right, len(exercises)))
    return right == len(exercises), lines
