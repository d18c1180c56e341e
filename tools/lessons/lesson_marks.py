"""The marks a lesson carries in HTML comments, invisible when it is rendered, which tie its numbers to the
calculator:

    <!-- check M=55 K=48 N=43 TILE=16: tiled_read_bytes=64,704 written_bytes=9,460 -->
        on its own line right under a paragraph, table or list: each number must be the quantity for that shape
        (to the decimals written), and must appear in the text just above.
    1. <!-- exercise 3.2: phases M=100 K=70 N=50 TILE=16 --> A is 100×70 and B is 70×50 ...
        an exercise: the question follows the mark; its answer is never written down, the checker computes it.

The shape is M, K, N and either TILE (a square tile: calculator.QUANTITIES) or LAB, a lab's block tile as its
lab.h fixes it, optionally with some of lab.h's constants changed (calculator.BLOCK_QUANTITIES):

    <!-- check M=256 K=256 N=256 LAB=4: read_bytes=2,097,152 -->
    5. <!-- exercise 6.5: read_bytes M=512 K=200 N=384 LAB=6 BN=256 WM=128 WNITER=4 --> ...

After LAB, SPLIT=S splits K into S ranges (split-K), and SMS=132 PER_SM=2 give the GPU for the wave quantities:

    <!-- check M=512 K=512 N=512 LAB=6 SPLIT=8 SMS=132 PER_SM=2: blocks=128 waves=0.48 -->

TF32 K=.. [TRIALS=..] [SEED=..] instead of M, K, N and a tile names random dot products of length K, and TF32's
errors on them (tools/lessons/tf32.py, what `make tf32` prints; TRIALS and SEED default to its defaults):

    <!-- check TF32 K=1024: tolerance=17,408 -->

MMA ROW=.. COL=.. names element (ROW, COL) of mma.sync's fragments and of lab 8's swizzled tiles (tools/lessons/mma.py,
what `make mma` prints):

    <!-- check MMA ROW=5 COL=6: a_lane=22 a_swizzled_chunk=4 -->

A conceptual question is multiple choice: the options are (A), (B), ... in the question's text, the wrong ones the
misconceptions a student is likely to hold. Its mark holds base64 JSON with no answer in it: a keyed hash of the
right letter, a hint, the lesson's heading whose section explains it, and the reason ("why") sealed with a key drawn
from the right letter, so that it opens only for a student who gave that letter:

    7. <!-- question 1.7: eyJoYXNoIjogIjlm... --> Why ...? (A) ... (B) ... (C) ...

    {"hash": "<HMAC-SHA256 of the id and the letter>", "hint": "...", "section": "The host flow", "why": "<sealed>"}

An instructor writes the payload from the plain answer, which is kept nowhere in the course:
`python3 -m tools.lessons.lesson_marks encode 1.7 '{"choice": "B", "hint": "...", "section": "...", "why": "..."}'`;
`decode 1.7 PAYLOAD B` reads one back, the reason included, when B is its right letter (and refuses otherwise).

Any lesson docs/labN-topic.md can carry them; `make test` checks every mark in every lesson. A figure measured on
the H100 is not the calculator's: it carries an h100 mark instead, tying it to a cell of docs/results.md
(tools/lessons/h100.py).
"""
import base64
import glob
import hashlib
import hmac
import json
import os
import re
from dataclasses import dataclass

from .calculator import GPU_QUANTITIES, BlockShape, BlockTile, Shape, matches, quantities
from .mma import MmaShape
from .tf32 import DEFAULT_SEED, DEFAULT_TRIALS, Tf32Shape

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARK = re.compile(r"<!--\s*(check|exercise|question)\b(.*?)-->")
MARK_START = re.compile(r"<!--\s*(check|exercise|question)\b")
QUESTION = re.compile(r"^ (\d+\.\d+): ([A-Za-z0-9+/=]+) $")
SHAPE = r"(M=\d+ K=\d+ N=\d+ (?:TILE=\d+|LAB=\d+(?: [A-Z][A-Z_]*=\d+)*)|TF32 K=\d+(?: TRIALS=\d+)?(?: SEED=\d+)?" \
        r"|MMA ROW=\d+ COL=\d+)"
CHECK = re.compile(r"^ " + SHAPE + r":((?: \w+=[\d,.]+)+) $")
EXERCISE = re.compile(r"^ (\d+\.\d+): (\w+) " + SHAPE + r" $")


class MarkError(Exception):
    pass


def shape_at(where, text):
    try:
        return parse_shape(text)
    except ValueError as e:
        raise MarkError("%s: %s" % (where, e))


def parse_shape(text):
    """'M=55 K=48 N=43 TILE=16' -> Shape; 'M=.. K=.. N=.. LAB=6 BN=256 ..' -> BlockShape; ValueError if the lab's
    tile cannot be made. 'TF32 K=1024 [TRIALS=..] [SEED=..]' -> tf32.Tf32Shape."""
    if text.startswith("MMA "):
        values = dict((name, int(v)) for name, v in (pair.split("=") for pair in text.split()[1:]))
        return MmaShape(values["ROW"], values["COL"])
    if text.startswith("TF32 "):
        values = dict((name, int(v)) for name, v in (pair.split("=") for pair in text.split()[1:]))
        return Tf32Shape(values["K"], values.get("TRIALS", DEFAULT_TRIALS), values.get("SEED", DEFAULT_SEED))
    values = dict((name, int(v)) for name, v in (pair.split("=") for pair in text.split()))
    M, K, N = values.pop("M"), values.pop("K"), values.pop("N")
    if "TILE" in values:
        return Shape(M, K, N, values["TILE"])
    return block_shape(M, K, N, values.pop("LAB"), values)


def block_shape(M, K, N, lab, values):
    """A BlockShape for lab `lab`; `values` holds SPLIT, SMS, PER_SM (split-K and the GPU) and lab.h constants to
    change. ValueError for a split below 1 or a tile that cannot be made."""
    split, sms, per_sm = values.pop("SPLIT", 1), values.pop("SMS", 0), values.pop("PER_SM", 0)
    if split < 1 or bool(sms) != bool(per_sm):
        raise ValueError("SPLIT is at least 1, and SMS and PER_SM come together")
    return BlockShape(M, K, N, BlockTile.of_lab(lab, **values), split, sms, per_sm)


@dataclass
class Check:
    where: str      # "docs/lab3-boundary.md:120"
    shape: Shape
    claims: list    # [(quantity name, number as written)]
    above: str      # the paragraph, table or list the mark vouches for


@dataclass
class Exercise:
    id: str         # "3.2"
    quantity: str
    shape: Shape
    question: str   # the visible text of the list item
    context: str    # from the heading above to the question: where the shape must be stated for the student


def lesson_number(path):
    """The lab number of a lesson: 3 for docs/lab3-boundary.md."""
    return int(re.match(r"lab(\d+)-", os.path.basename(path)).group(1))


def lesson_files():
    """Every lab's lesson, docs/labN-topic.md, in the labs' order."""
    return sorted(glob.glob(os.path.join(ROOT, "docs", "lab*-*.md")), key=lesson_number)


def lesson_of_lab(lab):
    """'lab3-boundary' or 'lab3' -> the path of docs/lab3-boundary.md, or None."""
    number = int(re.match(r"lab(\d+)", lab).group(1))
    found = [p for p in lesson_files() if lesson_number(p) == number]
    return found[0] if found else None


def block_above(lines, index):
    """The non-blank, non-mark lines right above lines[index]."""
    block = []
    i = index - 1
    while i >= 0 and lines[i].strip():
        if not MARK.fullmatch(lines[i].strip()):
            block.insert(0, lines[i])
        i -= 1
    return "\n".join(block)


def read_marks(path, text=None):
    """(checks, exercises) in a lesson; MarkError for a mark that does not parse or names no known quantity."""
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    lines = text.splitlines()
    checks, exercises = [], []
    heading = 0
    for i, line in enumerate(lines):
        if line.startswith("#"):
            heading = i
        if MARK_START.search(line) and not MARK.search(line):
            raise MarkError("%s:%d: a mark must open and close on one line" % (os.path.relpath(path, ROOT), i + 1))
        for mark in MARK.finditer(line):
            where = "%s:%d" % (os.path.relpath(path, ROOT), i + 1)
            kind, body = mark.group(1), mark.group(2)
            if kind == "question":
                continue  # read_questions
            if kind == "check":
                m = CHECK.match(body)
                if not m or line.strip() != mark.group(0):
                    raise MarkError("%s: a check mark stands alone on its line, as '<!-- check M=.. K=.. N=.. "
                                    "TILE=..: name=number ... -->' (or LAB=.. for a lab's block tile; or TF32 K=..)" % where)
                shape = shape_at(where, m.group(1))
                claims = [tuple(c.split("=")) for c in m.group(2).split()]
                checks.append(Check(where, shape, claims, block_above(lines, i)))
            else:
                m = EXERCISE.match(body)
                if not m:
                    raise MarkError("%s: an exercise mark reads '<!-- exercise N.M: quantity M=.. K=.. N=.. "
                                    "TILE=.. -->' (or LAB=.. for a lab's block tile; or TF32 K=..)" % where)
                shape = shape_at(where, m.group(3))
                claims = [(m.group(2), None)]
                question = line[mark.end():].strip()
                j = i + 1
                while j < len(lines) and lines[j].startswith("   ") and lines[j].strip():  # the item's other lines
                    question += " " + lines[j].strip()
                    j += 1
                context = MARK.sub("", "\n".join(lines[heading:j]))
                exercises.append(Exercise(m.group(1), m.group(2), shape, question, context))
            unknown = [name for name, _ in claims if name not in quantities(shape)]
            if unknown:
                raise MarkError("%s: no quantity named %s for a %s shape (see tools/lessons/calculator.py)"
                                % (where, unknown[0], "LAB" if isinstance(shape, BlockShape) else
                                   "TF32" if isinstance(shape, Tf32Shape) else
                                   "MMA" if isinstance(shape, MmaShape) else "TILE"))
            gpu = [name for name, _ in claims if name in GPU_QUANTITIES and isinstance(shape, BlockShape)
                   and not shape.sms]
            if gpu:
                raise MarkError("%s: %s needs the GPU in the shape: SMS=<multiprocessors> PER_SM=<blocks each>"
                                % (where, gpu[0]))
            for name, _ in claims:
                try:
                    quantities(shape)[name].compute(shape)
                except ValueError as e:  # e.g. a lab whose reference's shared-memory requests are not worked out
                    raise MarkError("%s: %s: %s" % (where, name, e))
    return checks, exercises


# The key of the answers' hashes. It ships with the course: it keeps the answers out of plain sight in the lessons,
# it does not make a multiple-choice question harder to guess (nothing can)
COURSE_KEY = b"matmul-course lesson questions"
OPTION = re.compile(r"\(([A-Z])\)")


def answer_hash(item, letter):
    """The keyed hash a question's mark stores for its right letter: HMAC-SHA256 over the id and the letter."""
    return hmac.new(COURSE_KEY, ("%s=%s" % (item, letter.upper())).encode("utf-8"), hashlib.sha256).hexdigest()


def _keystream(item, letter, length):
    """SHA-256 in counter mode, keyed by the course key, the id and the letter: the pad that seals a reason."""
    seed = hmac.new(COURSE_KEY, ("why %s=%s" % (item, letter.upper())).encode("utf-8"), hashlib.sha256).digest()
    blocks = (hashlib.sha256(seed + i.to_bytes(4, "big")).digest() for i in range(0, length // 32 + 1))
    return b"".join(blocks)[:length]


def seal(item, letter, text):
    data = text.encode("utf-8")
    return base64.b64encode(bytes(a ^ b for a, b in zip(data, _keystream(item, letter, len(data))))).decode("ascii")


def unseal(item, letter, sealed):
    """The reason sealed for `letter`; only meaningful when `letter` is the right one (answer_hash says so)."""
    data = base64.b64decode(sealed)
    return bytes(a ^ b for a, b in zip(data, _keystream(item, letter, len(data)))).decode("utf-8", "replace")


@dataclass
class Question:
    id: str         # "3.10"
    mark: dict      # {"hash", "hint", "section", "why" (sealed)}: see the module's comment
    question: str   # the visible text of the list item
    section: str    # where the lesson explains it: "docs/lab3-boundary.md:70 (Threads that own no element ...)"

    def options(self):
        return OPTION.findall(self.question)

    def is_right(self, letter):
        return hmac.compare_digest(answer_hash(self.id, letter), self.mark["hash"])

    def why(self, letter):
        """The reason, opened with the right letter."""
        return unseal(self.id, letter, self.mark["why"])


def encode_question(item, answer):
    """A question mark's payload from the plain answer {"choice", "hint", "section", "why"}."""
    letter = answer["choice"].upper()
    mark = {"hash": answer_hash(item, letter), "hint": answer["hint"], "section": answer["section"],
            "why": seal(item, letter, answer["why"])}
    return base64.b64encode(json.dumps(mark, ensure_ascii=False).encode("utf-8")).decode("ascii")


def decode_question(payload):
    return json.loads(base64.b64decode(payload, validate=True).decode("utf-8"))


def read_questions(path, text=None):
    """The conceptual questions in a lesson; MarkError for a mark that does not parse, or one that is not well formed:
    no hint, no reason, a section that is not a heading of the lesson, or a hash that is not that of exactly one of
    the question's options."""
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    lines = text.splitlines()
    headings = {line.lstrip("#").strip(): i + 1 for i, line in enumerate(lines) if line.startswith("#")}
    questions = []
    for i, line in enumerate(lines):
        for mark in MARK.finditer(line):
            if mark.group(1) != "question":
                continue
            where = "%s:%d" % (os.path.relpath(path, ROOT), i + 1)
            m = QUESTION.match(mark.group(2))
            try:
                payload = decode_question(m.group(2)) if m else None
            except ValueError:
                payload = None
            if not isinstance(payload, dict):
                raise MarkError("%s: a question mark reads '<!-- question N.M: base64 JSON -->'" % where)
            question = line[mark.end():].strip()
            j = i + 1
            while j < len(lines) and lines[j].startswith("   ") and lines[j].strip():
                question += " " + lines[j].strip()
                j += 1
            if sorted(payload) != ["hash", "hint", "section", "why"] or \
                    not all(isinstance(v, str) and v for v in payload.values()):
                raise MarkError("%s: question %s's mark holds hash, hint, section and why, written by `python3 -m "
                                "tools.lessons.lesson_marks encode`, and nothing else" % (where, m.group(1)))
            if payload["section"] not in headings:
                raise MarkError("%s: question %s's section '%s' is not a heading of the lesson"
                                % (where, m.group(1), payload["section"]))
            q = Question(m.group(1), payload, question, "%s:%d (%s)" % (
                os.path.relpath(path, ROOT), headings[payload["section"]], payload["section"]))
            options = q.options()
            if len(options) < 3 or len(set(options)) != len(options) or sum(map(q.is_right, options)) != 1:
                raise MarkError("%s: question %s needs three options or more, (A) (B) (C) ..., and a hash that is "
                                "that of exactly one of them" % (where, q.id))
            questions.append(q)
    return questions


def wrong_numbers(check):
    """What is wrong with one check mark, as sentences; empty when the lesson and the calculator agree."""
    problems = []
    for name, written in check.claims:
        if not matches(name, check.shape, written):
            problems.append("%s: %s says %s for %s, %s, but %s" % (
                check.where, name, written, check.shape.name(), check.shape.describe(),
                quantities(check.shape)[name].explain(check.shape)))
        if not re.search(r"(?<![\d,.])%s(?![\d]|[,.]\d)" % re.escape(written), check.above):
            problems.append("%s: %s is not in the text above the mark" % (check.where, written))
    return problems


if __name__ == "__main__":
    import sys
    if len(sys.argv) == 4 and sys.argv[1] == "encode":
        print(encode_question(sys.argv[2], json.loads(sys.argv[3])))
    elif len(sys.argv) == 5 and sys.argv[1] == "decode":
        item, payload, letter = sys.argv[2:]
        mark = decode_question(payload)
        if not hmac.compare_digest(answer_hash(item, letter), mark["hash"]):
            sys.exit("%s is not the right letter of question %s" % (letter, item))
        answer = {"choice": letter.upper(), "hint": mark["hint"], "section": mark["section"],
                  "why": unseal(item, letter, mark["why"])}
        print(json.dumps(answer, ensure_ascii=False, indent=2))
    else:
        sys.exit("usage: python3 -m tools.lessons.lesson_marks encode ID JSON | decode ID PAYLOAD LETTER")
