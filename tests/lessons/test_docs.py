"""The lessons and the tools never disagree: every marked number is recomputed, every exercise is well formed and
has its line in the lab's answers.txt, and every heatmap in labs/<lab>/img is what `make heatmap` draws today.

Lessons added later (docs/labN-topic.md) are covered as soon as they carry marks; see tools/lessons/lesson_marks.py.
"""
import filecmp
import glob
import os
import re
import unittest

from support import ROOT, run

from tools.lessons import answers
from tools.lessons import emulator
from tools.lessons.lesson_marks import (MarkError, encode_question, lesson_files, lesson_number, lesson_of_lab, read_marks,
                          read_questions, wrong_numbers)

FIGURE = re.compile(r"!\[[^\]]*\]\((img/[^)]+\.svg)\)")


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
        good = encode_question({"choice": "B", "hint": "h", "why": "w"})
        self.assertEqual(len(read_questions(where, "1. <!-- question 9.1: %s --> Which? (A) x (B) y" % good)), 1)
        for text in ["1. <!-- question 9.1: not-base64! --> Which? (A) x (B) y",
                     "1. <!-- question 9.1: %s --> Which? (A) x (C) y" % good,  # B is not an option
                     "1. <!-- question 9.1: %s --> Which?" % encode_question({"choice": "B", "why": "w"}),
                     "1. <!-- question 9.1: %s --> Why?" % encode_question({"keywords": [], "hint": "h", "why": "w"}),
                     "1. <!-- question 9.1: %s --> Why?" % encode_question({"keywords": [["a"]], "choice": "A",
                                                                             "hint": "h", "why": "w"})]:
            with self.subTest(text=text), self.assertRaises(MarkError):
                read_questions(where, text)

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
