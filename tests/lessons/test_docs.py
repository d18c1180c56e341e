"""The lessons and the tools never disagree: every marked number is recomputed, every exercise is well formed and
has its line in the lab's answers.txt, and every heatmap in docs/img is what `make heatmap` draws today.

Lessons added later (docs/lessonN-*.md) are covered as soon as they carry marks; see tools/lessons/lesson_marks.py.
"""
import filecmp
import glob
import os
import re
import unittest

from support import ROOT, run

import answers
import emulator
from lesson_marks import MarkError, lesson_files, lesson_of_lab, read_marks, wrong_numbers

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
        checks = read_marks(os.path.join(ROOT, "docs", "lesson9-example.md"), text)[0]
        self.assertEqual(wrong_numbers(checks[0]), [])
        problems = wrong_numbers(checks[1])
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("tiled_read_bytes says 64,705", problems[0])
        self.assertIn("908,160 is not in the text above the mark", problems[1])

    def test_malformed_marks_are_errors(self):
        for text in ["<!-- check M=1 K=1 N=1: blocks=1 -->", "<!-- check M=1 K=1 N=1 TILE=1: no_such_thing=1 -->",
                     "1. <!-- exercise 1: blocks M=1 K=1 N=1 TILE=1 --> How many?", "<!-- check M=1 K=1\n -->",
                     "text <!-- check M=1 K=1 N=1 TILE=1: blocks=1 -->"]:
            with self.subTest(text=text), self.assertRaises(MarkError):
                read_marks(os.path.join(ROOT, "docs", "lesson9-example.md"), text)


class Exercises(unittest.TestCase):
    def test_each_exercise_states_its_shape_and_has_a_unique_number(self):
        for path in lesson_files():
            number = re.match(r"lesson(\d+)", os.path.basename(path)).group(1)
            exercises = read_marks(path)[1]
            self.assertEqual(len({e.id for e in exercises}), len(exercises), path)
            for e in exercises:
                s = e.shape
                with self.subTest(exercise=e.id):
                    self.assertEqual(e.id.split(".")[0], number)
                    self.assertTrue(e.question.endswith("?"), e.question)
                    for stated in ("%d×%d" % (s.M, s.K), "%d×%d" % (s.K, s.N), "%d×%d" % (s.TILE, s.TILE)):
                        self.assertIn(stated, e.context, "exercise %s does not state %s" % (e.id, stated))

    def test_every_lab_with_exercises_ships_a_blank_answers_file(self):
        for lab in emulator.LABS:
            lesson = lesson_of_lab(lab)
            exercises = read_marks(lesson)[1] if lesson else []
            path = os.path.join(ROOT, "labs", lab, "answers.txt")
            with self.subTest(lab=lab):
                if not exercises:
                    self.assertFalse(os.path.exists(path), "%s has no exercises to answer" % lesson)
                    continue
                with open(path, encoding="utf-8") as f:
                    self.assertEqual(f.read(), answers.blank_answers_file(lesson, exercises, lab))


class Figures(unittest.TestCase):
    """A figure docs/img/labN-NAME.svg is `make heatmap LAB=N KERNEL=solutions/<lab>/kernel.cu`'s NAME.svg."""

    def test_every_figure_exists_and_is_what_make_heatmap_draws(self):
        shown = {m for path in lesson_files() for m in FIGURE.findall(emulator.read_text(path))}
        figures = sorted(glob.glob(os.path.join(ROOT, "docs", "img", "lab*-*.svg")))
        self.assertEqual({os.path.relpath(f, os.path.join(ROOT, "docs")) for f in figures}, shown)
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
