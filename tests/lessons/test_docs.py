"""The lessons and the tools never disagree: every marked number is recomputed, every H100 figure is a cell of
docs/results.md, every exercise is well formed and has its line in the lab's answers.txt, and every heatmap in
labs/<lab>/img is what `make heatmap` draws today.

Lessons added later (docs/labN-topic.md) are covered as soon as they carry marks; see tools/lessons/lesson_marks.py.
"""
import base64
import filecmp
import glob
import json
import os
import re
import sys
import unittest

from support import ROOT, run

from tools.lessons import answers
from tools.lessons import emulator
from tools.lessons import h100
from tools.lessons.lesson_marks import (MarkError, decode_question, encode_question, lesson_files, lesson_number,
                                        lesson_of_lab, read_marks, read_questions, wrong_numbers)

FIGURE = re.compile(r"!\[[^\]]*\]\((img/[^)]+\.svg)\)")
PAYLOAD = re.compile(r"<!-- question \d+\.\d+: ([A-Za-z0-9+/=]+) -->")


class MarkedNumbers(unittest.TestCase):
    def test_every_marked_number_is_what_the_calculator_computes(self):
        problems, claims = [], 0
        for path in lesson_files():
            for check in read_marks(path)[0]:
                problems += wrong_numbers(check)
                claims += len(check.claims)
        self.assertEqual(problems, [], "\n".join(problems))
        self.assertGreater(claims, 100)

    def test_a_wrong_number_or_a_number_missing_from_the_text_is_caught(self):
        text = ("The tiled kernel reads 64,704 bytes and writes 9,460.\n"
                "<!-- check M=55 K=48 N=43 TILE=16: tiled_read_bytes=64,704 written_bytes=9,460 -->\n\n"
                "It reads 64,705 bytes, at 3.5 FLOP/B.\n"
                "<!-- check M=55 K=48 N=43 TILE=16: tiled_read_bytes=64,705 tiled_intensity=3.5 "
                "naive_read_bytes=908,160 -->\n")
        checks = read_marks(os.path.join(ROOT, "docs", "lab9-example.md"), text)[0]
        self.assertEqual(wrong_numbers(checks[0]), [])
        problems = wrong_numbers(checks[1])
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("tiled_read_bytes says 64,705", problems[0])
        self.assertIn("908,160 is not in the text above the mark", problems[1])

    def test_a_lab_shape_is_that_labs_block_tile(self):
        text = ("Lab 4's 64×64 tile reads 18,816 bytes, with 9 shared loads for 8 multiply-adds; lab 6's two\n"
                "stages take 32,768 bytes, or 49,152 with 128×256 tiles.\n"
                "<!-- check M=55 K=48 N=43 LAB=4: read_bytes=18,816 shared_loads_per_step=9 fmas_per_step=8 -->\n"
                "<!-- check M=1 K=1 N=1 LAB=6: shared_bytes_per_block=32,768 -->\n"
                "<!-- check M=1 K=1 N=1 LAB=6 BN=256 WM=128 WNITER=4: shared_bytes_per_block=49,152 -->\n")
        checks = read_marks(os.path.join(ROOT, "docs", "lab9-example.md"), text)[0]
        self.assertEqual([p for c in checks for p in wrong_numbers(c)], [])
        self.assertEqual(checks[2].shape.stated_sizes(), ["1×1", "1×1", "128×256"])
        wrong = read_marks(os.path.join(ROOT, "docs", "lab9-example.md"),
                           "It reads 18,817 bytes.\n<!-- check M=55 K=48 N=43 LAB=4: read_bytes=18,817 -->\n")[0]
        problems = wrong_numbers(wrong[0])
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("read_bytes says 18,817 for 55×48·48×43, lab 4's 64×64 block tile, but", problems[0])

    def test_malformed_marks_are_errors(self):
        for text in ["<!-- check M=1 K=1 N=1: blocks=1 -->", "<!-- check M=1 K=1 N=1 TILE=1: no_such_thing=1 -->",
                     "1. <!-- exercise 1: blocks M=1 K=1 N=1 TILE=1 --> How many?", "<!-- check M=1 K=1\n -->",
                     "text <!-- check M=1 K=1 N=1 TILE=1: blocks=1 -->",
                     "<!-- check M=1 K=1 N=1 LAB=4: tiled_read_bytes=8 -->",  # a TILE quantity for a lab's tile
                     "<!-- check M=1 K=1 N=1 LAB=1: blocks=1 -->",  # lab 1 has no block tile
                     "<!-- check M=1 K=1 N=1 LAB=6 XM=3: blocks=1 -->",  # lab 6's lab.h has no XM
                     "<!-- check M=1 K=1 N=1 LAB=6 WM=32: blocks=1 -->",  # a warp no longer covers a sub-tile
                     "<!-- check M=1 K=1 N=1 TILE=16 LAB=4: blocks=1 -->",
                     "<!-- check M=1 K=1 N=1 LAB=6: waves=0.01 -->",  # waves need SMS= and PER_SM=
                     "<!-- check M=1 K=1 N=1 LAB=6 SMS=132: blocks=1 -->",  # SMS without PER_SM
                     "<!-- check M=1 K=1 N=1 LAB=4: shared_requests_Bs_load=1 -->"]:  # worked out for labs 5, 6
            with self.subTest(text=text), self.assertRaises(MarkError):
                read_marks(os.path.join(ROOT, "docs", "lab9-example.md"), text)


RESULTS_EXAMPLE = """# Results

peak FP32 = 132 SMs × 128 FP32 lanes × 2 FLOP × 1.98 GHz =
66,908 GFLOP/s.

## Every lab: `make bench`

| kernel (GFLOP/s, % of cuBLAS FP32) | 512³ | 4096³ |
|---|---:|---:|
| cuBLAS FP32 | 16,086 | 51,693 |
| lab4-coarsening reference | 4,460 (28 %) | 17,174 (33 %) |
| lab6 reference until 2026-11-26 | 14,769 (92 %) | 46,856 (91 %) |
| lab6-warptiling reference | 14,230 (88 %) | 46,327 (90 %) |

| kernel | 4096³ |
|---|---:|
| lab3-boundary reference | 8,170 (16 %) |
"""


class H100Figures(unittest.TestCase):
    """Every H100 figure a lesson quotes is a cell of docs/results.md, marked under its paragraph or table."""

    def lesson(self, text):
        return h100.read_h100_marks(os.path.join(ROOT, "docs", "lab9-example.md"), text)

    def test_every_marked_figure_is_the_cell_of_results_md(self):
        problems, claims = [], 0
        tables, peak = h100.read_tables(), h100.peak()
        for mark in h100.all_marks():
            problems += h100.wrong_figures(mark, tables, peak)
            claims += len(mark.claims)
        self.assertEqual(problems, [], "\n".join(problems))
        self.assertGreater(claims, 80)

    def test_every_h100_figure_in_a_lesson_is_marked(self):
        found = [f for path in lesson_files() for f in h100.unmarked_figures(path)]
        self.assertEqual(found, [], "H100 figures with no h100 mark under them (tools/lessons/h100.py says how "
                         "to mark one; a figure no table of docs/results.md holds goes in NOT_IN_RESULTS, with "
                         "why):\n" + "\n".join(found))

    def test_each_figure_let_through_is_still_quoted_by_its_lesson(self):
        for lesson, let_through in h100.NOT_IN_RESULTS.items():
            with open(os.path.join(ROOT, "docs", lesson), encoding="utf-8") as f:
                text = " ".join(f.read().split())
            for figure, words, why in let_through:
                with self.subTest(lesson=lesson, figure=figure, words=words):
                    self.assertTrue(why.strip())
                    self.assertIn(words, text)
                    self.assertRegex(words, r"(?<![\d,.])%s(?![\d]|[,.]\d)" % re.escape(figure))

    def test_a_wrong_figure_a_wrong_rounding_and_a_figure_missing_from_the_text_are_caught(self):
        tables, peak = h100.read_tables(RESULTS_EXAMPLE), h100.peak(RESULTS_EXAMPLE)
        self.assertEqual(peak, 66908)
        self.assertEqual(sorted(tables), ["every-lab-make-bench", "every-lab-make-bench/2"])
        good = self.lesson(
            "Lab 4 runs at 17,174 GFLOP/s at 4096³, 33 % of cuBLAS's 51.7 TFLOP/s and 2.1× lab 3's 8,170; lab 6 at 90 %,\n"
            "69 % of the peak.\n"
            "<!-- h100 every-lab-make-bench: lab4-coarsening@4096³=17,174 lab4@4096³=33 cuBLAS_FP32@4096³=51.7k "
            "lab6-warptiling@4096³=90 lab6-warptiling@4096³/peak=69% -->\n"
            "<!-- h100 every-lab-make-bench/2: lab3-boundary@4096³=8,170 -->\n")
        self.assertEqual([p for m in good for p in h100.wrong_figures(m, tables, peak)], [])
        wrong = self.lesson(
            "Lab 4 runs at 17,171 GFLOP/s, 51.6 and 52.1 thousand, 2.1× lab 6; 70 % of the peak and 16 %.\n"
            "<!-- h100 every-lab-make-bench: lab4-coarsening@4096³=17,171 cuBLAS_FP32@4096³=51.6k "
            "cuBLAS_FP32@4096³=52.1k lab6-warptiling@4096³/peak=70% lab4@4096³/lab3@4096³=2.1x lab6@4096³=90 "
            "lab4@1024³=16 cuBLAS_FP32@4096³=51,693 -->\n")
        problems = h100.wrong_figures(wrong[0], tables, peak)
        for expected in ["lab4-coarsening@4096³ says 17,171, but results.md's every-lab-make-bench reads "
                         "'17,174 (33 %)'", "cuBLAS_FP32@4096³ says 51.6k", "cuBLAS_FP32@4096³ says 52.1k",
                         "lab6-warptiling@4096³/peak says 70%, but results.md's every-lab-make-bench gives 69",
                         "row 'lab3' names no label",  # lab 3 is in the second table
                         "row 'lab6' names 2 labels", "column '1024³' names no label",
                         "51,693 is not in the text above the mark"]:
            self.assertTrue(any(expected in p for p in problems), "%s not in %s" % (expected, problems))
        self.assertEqual(len(problems), 8, problems)
        missing = self.lesson("Lab 4 runs at 17,174.\n<!-- h100 every-lab-make-bnech: lab4@4096³=17,174 -->\n")
        self.assertIn("results.md has no table every-lab-make-bnech", h100.wrong_figures(missing[0], tables, peak)[0])

    def test_an_unmarked_figure_is_found_and_a_marked_one_is_not(self):
        where = os.path.join(ROOT, "docs", "lab9-example.md")
        text = ("On an H100 the kernel runs at 17,174 GFLOP/s, 33 % of cuBLAS, in 1.25\nms.\n"
                "<!-- h100 every-lab-make-bench: lab4-coarsening@4096³=17,174 -->\n\n"
                "Measured with `make bench` (CUDA 13.0, `SIZES=\"1024 4096\"`):\n\n"
                "| n | lab 4 | cuBLAS | lab 4 / cuBLAS | what ran |\n|---:|---:|---:|---:|---|\n"
                "| 4096 | 17,174 (33 %) | 51.7 | 0.33× | 128×128 tile, 8 ways |\n\n"
                "A tile of 64×64 reads 18,816 bytes in 3 phases.\n")  # no H100 word: the calculator's business
        found = h100.unmarked_figures(where, text)
        self.assertEqual([f.split(" (")[0] for f in found], [
            "docs/lab9-example.md:1: 1.25", "docs/lab9-example.md:1: 33", "docs/lab9-example.md:9: 0.33",
            "docs/lab9-example.md:9: 17,174", "docs/lab9-example.md:9: 33", "docs/lab9-example.md:9: 51.7"])

    def test_malformed_h100_marks_are_errors(self):
        for text in ["<!-- h100 every-lab-make-bench -->", "<!-- h100 every-lab-make-bench: lab4@4096³ -->",
                     "text <!-- h100 every-lab-make-bench: lab4@4096³=33 -->",
                     "<!-- h100 every-lab-make-bench: lab4@4096³=thirty -->"]:
            with self.subTest(text=text), self.assertRaises(h100.H100Error):
                self.lesson(text)


class Exercises(unittest.TestCase):
    def test_each_exercise_states_its_shape_and_has_a_unique_number(self):
        for path in lesson_files():
            number = str(lesson_number(path))
            exercises = read_marks(path)[1]
            self.assertEqual(len({e.id for e in exercises}), len(exercises), path)
            for e in exercises:
                with self.subTest(exercise=e.id):
                    self.assertEqual(e.id.split(".")[0], number)
                    self.assertTrue(e.question.endswith("?"), e.question)
                    for stated in e.shape.stated_sizes():  # A's and B's sizes, and the tile's
                        self.assertIn(stated, e.context, "exercise %s does not state %s" % (e.id, stated))

    def test_every_lesson_asks_why_and_each_question_is_well_formed(self):
        for path in lesson_files():
            number = str(lesson_number(path))
            questions = read_questions(path)  # MarkError for a malformed one
            with self.subTest(lesson=os.path.basename(path)):
                self.assertGreaterEqual(len(questions), 2)
                exercises = {e.id for e in read_marks(path)[1]}
                for q in questions:
                    self.assertEqual(q.id.split(".")[0], number)
                    self.assertNotIn(q.id, exercises)
                    self.assertTrue(q.question.rstrip(".").endswith(("?", ")")) or "?" in q.question, q.question)

    def test_malformed_questions_are_errors(self):
        where = os.path.join(ROOT, "docs", "lab9-example.md")
        answer = {"choice": "B", "hint": "h", "section": "Barriers", "why": "w"}
        good = encode_question("9.1", answer)
        lesson = "## Barriers\n\n1. <!-- question 9.1: %s --> Which? (A) x (B) y (C) z"
        self.assertEqual(len(read_questions(where, lesson % good)), 1)
        for payload, question in [("not-base64!", None),
                                  (good, "Which? (A) x (C) y (D) z"),  # B is not an option
                                  (good, "Which? (A) x (B) y"),  # two options: a coin toss
                                  (encode_question("9.2", answer), None),  # another question's hash
                                  (encode_question("9.1", dict(answer, section="Tiles")), None),  # no such heading
                                  (encode_question("9.1", dict(answer, hint="")), None),
                                  (base64.b64encode(json.dumps(dict(answer, hash="0")).encode()).decode(), None),
                                  # the old form, with the letter in plain sight
                                  (base64.b64encode(json.dumps(answer).encode()).decode(), None)]:
            text = (lesson if question is None else lesson.replace("Which? (A) x (B) y (C) z", question)) % payload
            with self.subTest(payload=payload, question=question), self.assertRaises(MarkError):
                read_questions(where, text)

    def test_an_instructor_encodes_a_mark_from_its_answer_and_decodes_it_with_the_right_letter(self):
        answer = {"choice": "C", "hint": "What does a zero add?", "section": "Barriers", "why": "Zero adds nothing."}
        tool = [sys.executable, "-m", "tools.lessons.lesson_marks"]
        proc = run(tool + ["encode", "9.1", json.dumps(answer)])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        payload = proc.stdout.strip()
        self.assertEqual(read_questions(os.path.join(ROOT, "docs", "lab9-example.md"), "## Barriers\n\n1. <!-- "
                                        "question 9.1: %s --> Which? (A) x (B) y (C) z (D) w" % payload)[0].why("C"),
                         answer["why"])
        self.assertNotIn(answer["why"], base64.b64decode(payload).decode("utf-8"))
        proc = run(tool + ["decode", "9.1", payload, "c"])
        self.assertEqual((proc.returncode, json.loads(proc.stdout)), (0, answer), proc.stderr)
        proc = run(tool + ["decode", "9.1", payload, "B"])
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("B is not the right letter of question 9.1", proc.stderr)
        self.assertNotIn(answer["why"], proc.stdout + proc.stderr)

    def test_no_mark_holds_a_plain_answer(self):
        """A question's mark holds a hash of its letter, a hint, a heading and the sealed reason: neither the letter
        nor the reason (which gives the answer away) can be read from the lesson without the right letter."""
        for path in lesson_files():
            text = emulator.read_text(path)
            decoded = "\n".join(json.dumps(decode_question(p), ensure_ascii=False) for p in PAYLOAD.findall(text))
            for q in read_questions(path):
                right = next(letter for letter in q.options() if q.is_right(letter))
                with self.subTest(question=q.id):
                    self.assertEqual(sorted(q.mark), ["hash", "hint", "section", "why"])
                    self.assertGreater(len(q.why(right)), 20)
                    for letter in q.options():
                        self.assertEqual(q.is_right(letter), letter == right)
                        self.assertNotIn(q.why(right), q.why(letter) if letter != right else "")
                    self.assertNotIn(q.why(right), text)
                    self.assertNotIn(q.why(right), decoded)
                    self.assertNotIn(q.why(right)[:24], decoded)
            self.assertNotIn('"choice"', decoded)
            self.assertNotIn('"keywords"', decoded)

    def test_every_lab_with_exercises_ships_a_blank_answers_file(self):
        for lab in emulator.LABS:
            lesson = lesson_of_lab(lab)
            exercises = read_marks(lesson)[1] if lesson else []
            path = os.path.join(emulator.toolchain.pristine_labs(), lab, "answers.txt")  # as committed, not a student's
            with self.subTest(lab=lab):
                if not exercises:
                    self.assertFalse(os.path.exists(path), "%s has no exercises to answer" % lesson)
                    continue
                with open(path, encoding="utf-8") as f:
                    self.assertEqual(f.read(), answers.blank_answers_file(lesson, exercises, lab))


class Figures(unittest.TestCase):
    """A figure docs/img/labN-NAME.svg is `make heatmap LAB=N KERNEL=solutions/<lab>/kernel.cu`'s NAME.svg."""

    def test_every_figure_exists_and_is_what_make_heatmap_draws(self):
        shown = {os.path.join(os.path.dirname(path), m) for path in lesson_files()
                 for m in FIGURE.findall(emulator.read_text(path))}
        figures = sorted(glob.glob(os.path.join(ROOT, "docs", "img", "lab*-*.svg")))
        self.assertEqual(set(figures), shown)
        for figure in figures:
            number, name = re.match(r"lab(\d+)-(.+\.svg)$", os.path.basename(figure)).groups()
            lab = emulator.lab_folder(number)
            with self.subTest(figure=os.path.basename(figure)):
                proc = run(["make", "-s", "heatmap", "LAB=" + number,
                            "KERNEL=" + os.path.join("solutions", lab, "kernel.cu")])
                self.assertEqual(proc.returncode, 0, proc.stderr)
                drawn = os.path.join(ROOT, "build", "heatmap", lab, name)
                self.assertTrue(filecmp.cmp(figure, drawn, shallow=False),
                                "%s differs from %s: copy it over if the change is meant" % (figure, drawn))


if __name__ == "__main__":
    unittest.main()
