"""`make answers`: right answers pass, wrong ones are marked wrong and explained, blanks are not answered."""
import os
import tempfile
import unittest

from support import ROOT, assert_usage_error, lesson

import calculator as calc
from lesson_marks import lesson_of_lab, read_marks

LAB = "lab3-boundary"


class AnswerChecker(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.exercises = read_marks(lesson_of_lab(LAB))[1]
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def answers_file(self, answers):
        path = os.path.join(self.tmp.name, "answers.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("# a student's answers\n" + "".join("%s = %s\n" % kv for kv in answers.items()))
        return path

    def right_answers(self):
        return {e.id: calc.format_number(calc.value(e.quantity, e.shape), calc.QUANTITIES[e.quantity].decimals)
                for e in self.exercises}

    def test_the_shipped_blank_file_is_not_answered(self):
        proc = lesson("answers", "LAB=3")
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout.count("not answered yet"), len(self.exercises))
        self.assertIn("0 of %d right" % len(self.exercises), proc.stdout)

    def test_all_right_passes(self):
        proc = lesson("answers", "LAB=3", "ANSWERS=" + self.answers_file(self.right_answers()))
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertIn("%d of %d right" % ((len(self.exercises),) * 2), proc.stdout)
        self.assertNotIn("wrong", proc.stdout)

    def test_a_wrong_answer_is_marked_wrong_and_explained(self):
        answers = self.right_answers()
        wrong = next(e for e in self.exercises if e.quantity == "tiled_read_bytes")
        right_value = calc.value(wrong.quantity, wrong.shape)
        answers[wrong.id] = str(right_value + 4)
        proc = lesson("answers", "LAB=3", "ANSWERS=" + self.answers_file(answers))
        self.assertEqual(proc.returncode, 1)
        line = next(line for line in proc.stdout.splitlines() if line.strip().startswith(wrong.id + " "))
        self.assertIn("wrong: you wrote %d, the answer is %s" % (right_value + 4, calc.format_number(right_value)),
                      line)
        self.assertIn(calc.QUANTITIES[wrong.quantity].working(wrong.shape), line)
        self.assertIn("%d of %d right" % (len(self.exercises) - 1, len(self.exercises)), proc.stdout)

    def test_ratios_are_judged_to_two_decimals_and_words_are_not_numbers(self):
        ratio = next(e for e in self.exercises if e.quantity == "tiled_intensity")
        exact = calc.value(ratio.quantity, ratio.shape)
        for written, right in [("%.2f" % exact, True), ("%.4f" % exact, True), ("%.1f" % exact, False),
                               ("%.2f" % (exact + 0.01), False), ("three", False)]:
            with self.subTest(written=written):
                proc = lesson("answers", "LAB=3", "ANSWERS=" + self.answers_file({ratio.id: written}))
                line = next(line for line in proc.stdout.splitlines() if line.strip().startswith(ratio.id + " "))
                self.assertEqual("right" in line, right, line)

    def test_labs_4_to_6_right_answers_pass_and_each_wrong_one_is_explained(self):
        for lab in ("4", "5", "6"):
            exercises = read_marks(lesson_of_lab("lab" + lab))[1]
            right = {e.id: calc.format_number(calc.value(e.quantity, e.shape),
                                              calc.quantities(e.shape)[e.quantity].decimals) for e in exercises}
            with self.subTest(lab=lab):
                self.assertGreaterEqual(len(exercises), 4)
                blank = lesson("answers", "LAB=" + lab)
                self.assertEqual(blank.returncode, 1)
                self.assertEqual(blank.stdout.count("not answered yet"), len(exercises))
                proc = lesson("answers", "LAB=" + lab, "ANSWERS=" + self.answers_file(right))
                self.assertEqual(proc.returncode, 0, proc.stdout)
                self.assertIn("%d of %d right" % ((len(exercises),) * 2), proc.stdout)
            for e in exercises:
                q = calc.quantities(e.shape)[e.quantity]
                exact = calc.value(e.quantity, e.shape)
                wrong = exact + 4 if q.decimals == 0 else exact + 0.25
                with self.subTest(lab=lab, exercise=e.id):
                    proc = lesson("answers", "LAB=" + lab, "ANSWERS=" + self.answers_file(
                        dict(right, **{e.id: calc.format_number(wrong, q.decimals)})))
                    self.assertEqual(proc.returncode, 1)
                    line = next(line for line in proc.stdout.splitlines() if line.strip().startswith(e.id + " "))
                    self.assertIn("the answer is %s" % calc.format_number(exact, q.decimals), line)
                    self.assertIn(q.working(e.shape), line)

    def test_missing_file_and_bad_lab_are_usage_errors(self):
        for args, why in [(["LAB=3", "ANSWERS=" + os.path.join(ROOT, "no", "such.txt")], "no answers file"),
                          (["LAB=0"], "no lab '0'"), (["ANSWERS=x.txt"], "ANSWERS needs LAB")]:
            with self.subTest(args=args):
                assert_usage_error(self, "answers", args, why)


if __name__ == "__main__":
    unittest.main()
