"""`make answers`: check a student's answers to a lesson's exercises and questions.

The answers live in labs/<lab>/answers.txt, one line per exercise, `3.2 = 5`. The right answers to the numeric
exercises are never stored: each exercise's mark in the lesson names a calculator quantity and a shape, and the
answer is computed from them, so a wrong answer can be explained with the working. A number may carry its unit
("28 blocks", "64,704 bytes"), but not a multiplier ("63 KiB": give the bytes). Conceptual questions are multiple
choice; their marks hold a keyed hash of the right letter, never the letter (lesson_marks.read_questions), and the
reason shown after a right answer opens only with that letter.

A wrong answer first gets a hint. After a second, different wrong answer to the same item, or on request
(REVEAL=1), an exercise gets its answer and how it comes about, a question the lesson's section that explains it.
The first answer given to an exercise is its prediction (worked out by hand before running the tool that prints
it), reported beside the answer once the answer is right or shown. The wrong answers tried so far and the
predictions are kept in build/answers/.
"""
import hashlib
import json
import os
import re

from .calculator import format_number, matches, parse_number, quantities
from .lesson_marks import ROOT, read_marks, read_questions

ANSWER_LINE = re.compile(r"^\s*(\d+\.\d+)\s*=(.*)$")
NUMBER_AND_UNIT = re.compile(r"^\s*([-+]?(?:\d[\d,_]*)?\.?\d+)\s*(.*?)\s*\.?$")
# a unit word that scales the number: the checker wants the plain count
MULTIPLIERS = {"k", "kb", "kib", "m", "mb", "mib", "g", "gb", "gib", "thousand", "million", "billion", "kflop",
               "mflop", "gflop"}
STATE = os.path.join(ROOT, "build", "answers")


def read_answers(path):
    """{exercise id: the answer as written, '' when blank}; comments (#) and blank lines are skipped."""
    answers = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = ANSWER_LINE.match(line.split("#", 1)[0])
            if m:
                answers[m.group(1)] = m.group(2).strip()
    return answers


def item_ids(lesson_path, exercises):
    """Every exercise and question id of a lesson, in the lesson's numbering order."""
    ids = [e.id for e in exercises] + [q.id for q in read_questions(lesson_path)]
    return sorted(dict.fromkeys(ids), key=lambda i: tuple(int(x) for x in i.split(".")))


def blank_answers_file(lesson_path, exercises, lab_folder):
    """The answers.txt a lab ships with: every exercise and question of its lesson, no answers."""
    number = re.match(r"lab(\d+)", lab_folder).group(1)
    lines = ["# Exercises of %s: write each answer after its '='." % os.path.relpath(lesson_path, ROOT),
             "# Whole numbers may have commas (64,704) and their unit (28 blocks); give ratios to two decimal places",
             "# (3.51). Multiple choice: the letter (B). Work each number out by hand, write it here and run",
             "# make answers before a tool prints it: the first answer it sees is kept as your prediction.",
             "# Check them with: make answers LAB=%s  (a wrong answer gets a hint first)" % number]
    return "\n".join(lines + ["%s =" % i for i in item_ids(lesson_path, exercises)]) + "\n"


def split_unit(written):
    """('28', 'blocks') for '28 blocks'; (None, '') when it does not start with a number."""
    m = NUMBER_AND_UNIT.match(written)
    if not m or parse_number(m.group(1)) is None:
        return None, ""
    return m.group(1), m.group(2)


def unit_problem(quantity, unit):
    """Why a unit cannot stand for this quantity, or None."""
    words = unit.lower().replace("/", " ").split()
    if words and words[0] in MULTIPLIERS:
        return "'%s' scales the number: give the plain count, without a multiplier" % unit
    if "bytes" in quantity and words and words[0].startswith("float"):
        return "the question asks for bytes, not floats (a float is 4 bytes)"
    if "bytes" not in quantity and quantity.endswith(("blocks", "threads", "phases")) and words and \
            words[0] in ("byte", "bytes", "b"):
        return "the question asks for a count, not bytes"
    return None


class Tries:
    """The distinct wrong answers given so far to each item of one answers file, and the first answer given to each
    exercise (the prediction), kept between runs."""

    def __init__(self, answers_path):
        key = hashlib.sha1(os.path.abspath(answers_path).encode()).hexdigest()[:12]
        self.path = os.path.join(STATE, key + ".json")
        try:
            with open(self.path, encoding="utf-8") as f:
                state = json.load(f)
        except (OSError, ValueError):
            state = {}
        self.wrong = state.get("wrong", {})
        self.first = state.get("first", {})

    def record(self, item, written):
        """Counts this wrong answer; returns how many different wrong answers the item has had."""
        seen = self.wrong.setdefault(item, [])
        normal = " ".join(written.lower().split())
        if normal not in seen:
            seen.append(normal)
        return len(seen)

    def prediction(self, item, written):
        """The first answer ever given to the item (this one, the first time)."""
        return self.first.setdefault(item, " ".join(written.split()))

    def save(self):
        os.makedirs(STATE, exist_ok=True)
        with open(self.path + ".tmp", "w", encoding="utf-8") as f:
            json.dump({"wrong": self.wrong, "first": self.first}, f)
        os.replace(self.path + ".tmp", self.path)


def symbolic(working):
    """The formula of a working without the numbers plugged in: 'ceil(N / TILE) = ceil(100 / 16)' -> 'ceil(N / TILE)'."""
    return working.split(" = ")[0]


def mark(exercise, written, tries=None, reveal=False):
    """(right, one line for the student)."""
    q = quantities(exercise.shape)[exercise.quantity]
    if not written:
        return False, "%s  not answered yet" % exercise.id
    number, unit = split_unit(written)
    if number is None:
        return False, "%s  '%s' is not a number" % (exercise.id, written)
    predicted = tries.prediction(exercise.id, written) if tries else written
    was = "; your prediction was %s" % predicted if predicted != " ".join(written.split()) else ""
    problem = unit_problem(exercise.quantity, unit) if unit else None
    if not problem and matches(exercise.quantity, exercise.shape, number, decimals=q.decimals or None):
        return True, "%s  right: %s%s" % (exercise.id, written, was)
    count = tries.record(exercise.id, number + (" " + unit if problem else "")) if tries else 2
    meaning = q.meaning[0].upper() + q.meaning[1:]
    if reveal or count >= 2:
        answer = format_number(q.compute(exercise.shape), q.decimals)
        return False, "%s  wrong: you wrote %s, the answer is %s%s. %s: %s" % (
            exercise.id, written, answer, was, meaning, q.explain(exercise.shape))
    return False, "%s  wrong: you wrote %s%s. Hint: it is the %s: %s. Try again; the answer comes after a second " \
                  "wrong try, or with REVEAL=1" % (exercise.id, written, " (%s)" % problem if problem else "",
                                                   q.meaning, symbolic(q.working(exercise.shape)))


def chosen_letter(written):
    """'B' for 'B', 'b', '(B)' or 'B.'; None for anything else."""
    m = re.fullmatch(r"\(?\s*([A-Za-z])\s*\)?\.?", written)
    return m.group(1).upper() if m else None


def mark_question(question, written, tries=None, reveal=False):
    """(right, one line for the student) for a multiple-choice question."""
    if not written:
        return False, "%s  not answered yet" % question.id
    letter = chosen_letter(written)
    options = question.options()
    if letter not in options:
        return False, "%s  '%s' is not one of the options: write the letter of one, %s" % (
            question.id, written, ", ".join(options))
    if question.is_right(letter):
        return True, "%s  right: %s. %s" % (question.id, letter, question.why(letter))
    count = tries.record(question.id, letter) if tries else 2
    hint = question.mark["hint"]
    if reveal or count >= 2:
        return False, "%s  wrong: you wrote %s. Hint: %s The lesson explains it: reread %s, then try again" % (
            question.id, letter, hint, question.section)
    return False, "%s  wrong: you wrote %s. Hint: %s Try again; a second wrong try, or REVEAL=1, points to the " \
                  "lesson's section that explains it" % (question.id, letter, hint)


def check(lesson_path, answers_path, reveal=False):
    """(all right, the report's lines)."""
    _, exercises = read_marks(lesson_path)
    questions = {q.id: q for q in read_questions(lesson_path)}
    numeric = {e.id: e for e in exercises}
    answers = read_answers(answers_path)
    tries = Tries(answers_path)
    lines = ["%s, answers from %s" % (os.path.relpath(lesson_path, ROOT), answers_path)]
    right = 0
    ids = item_ids(lesson_path, exercises)
    for i in ids:
        if i in numeric:
            ok, line = mark(numeric[i], answers.get(i, ""), tries, reveal)
        else:
            ok, line = mark_question(questions[i], answers.get(i, ""), tries, reveal)
        right += ok
        lines.append("  " + line)
    lines.append("%d of %d right" % (right, len(ids)))
    tries.save()
    return right == len(ids), lines
