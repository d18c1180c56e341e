"""`make answers`: right answers pass, wrong ones get a hint and then the answer explained (a question: the lesson's
section), blanks are not answered; units, multiple choice, and the first answer kept as the prediction."""
import os
import tempfile
import unittest

from support import ROOT, assert_usage_error, lesson

from tools.lessons import answers
from tools.lessons import calculator as calc
from tools.lessons import emulator
from tools.lessons.lesson_marks import lesson_files, lesson_of_lab, read_marks, read_questions

LAB = "lab3-boundary"


def right_letter(question):
    """The one option whose hash the mark holds (the lessons never write the letter down)."""
    right = [letter for letter in question.options() if question.is_right(letter)]
    assert len(right) == 1, (question.id, right)
    return right[0]


def shipped(lab):
    """The lab's answers.txt as committed: a student's own answers in labs/ never change these tests."""
    return os.path.join(emulator.toolchain.pristine_labs(), lab, "answers.txt")


class AnswerChecker(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.exercises = read_marks(lesson_of_lab(LAB))[1]
        cls.questions = read_questions(lesson_of_lab(LAB))
        cls.items = len(cls.exercises) + len(cls.questions)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.files = 0

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def answers_file(self, answers, name=None):
        """A new answers file (a new name each time, so no earlier wrong tries count) unless `name` is given."""
        if name is None:
            type(self).files += 1
        path = os.path.join(self.tmp.name, name or "answers-%d.txt" % self.files)
        with open(path, "w", encoding="utf-8") as f:
            f.write("# a student's answers\n" + "".join("%s = %s\n" % kv for kv in answers.items()))
        return path

    def right_answers(self):
        right = {e.id: calc.format_number(calc.value(e.quantity, e.shape), calc.QUANTITIES[e.quantity].decimals)
                 for e in self.exercises}
        right.update({q.id: right_letter(q) for q in self.questions})
        return right

    def line_of(self, proc, item):
        return next(line for line in proc.stdout.splitlines() if line.strip().startswith(item + " "))

    def test_the_shipped_blank_file_is_not_answered(self):
        proc = lesson("answers", "LAB=3", "ANSWERS=" + shipped(LAB))
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout.count("not answered yet"), self.items)
        self.assertIn("0 of %d right" % self.items, proc.stdout)
        self.assertGreaterEqual(len(self.questions), 2)

    def test_all_right_passes(self):
        proc = lesson("answers", "LAB=3", "ANSWERS=" + self.answers_file(self.right_answers()))
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertIn("%d of %d right" % ((self.items,) * 2), proc.stdout)
        self.assertNotIn(" wrong: ", proc.stdout)

    def test_a_wrong_answer_gets_a_hint_then_the_answer_after_a_second_wrong_try(self):
        answers = self.right_answers()
        wrong = next(e for e in self.exercises if e.quantity == "tiled_read_bytes")
        right_value = calc.value(wrong.quantity, wrong.shape)
        working = calc.QUANTITIES[wrong.quantity].working(wrong.shape)
        answers[wrong.id] = str(right_value + 4)
        path = self.answers_file(answers)
        for attempt in range(2):  # the same wrong answer again is not a second try
            proc = lesson("answers", "LAB=3", "ANSWERS=" + path)
            self.assertEqual(proc.returncode, 1)
            line = self.line_of(proc, wrong.id)
            self.assertIn("wrong: you wrote %d. Hint: it is the %s: %s" % (
                right_value + 4, calc.QUANTITIES[wrong.quantity].meaning, working.split(" = ")[0]), line)
            self.assertNotIn(calc.format_number(right_value), line)
            self.assertNotIn(working, line)
        self.assertIn("%d of %d right" % (self.items - 1, self.items), proc.stdout)
        answers[wrong.id] = str(right_value + 8)
        proc = lesson("answers", "LAB=3", "ANSWERS=" + self.answers_file(answers, os.path.basename(path)))
        line = self.line_of(proc, wrong.id)
        self.assertIn("wrong: you wrote %d, the answer is %s" % (right_value + 8, calc.format_number(right_value)),
                      line)
        self.assertIn(working, line)

    def test_reveal_shows_the_answer_at_once_and_nothing_else_is_accepted(self):
        wrong = next(e for e in self.exercises if e.quantity == "phases")
        right_value = calc.value(wrong.quantity, wrong.shape)
        path = self.answers_file({wrong.id: str(right_value + 1)})
        proc = lesson("answers", "LAB=3", "ANSWERS=" + path, "REVEAL=1")
        self.assertIn("the answer is %d" % right_value, self.line_of(proc, wrong.id))
        assert_usage_error(self, "answers", ["LAB=3", "ANSWERS=" + path, "REVEAL=yes"], "REVEAL=yes")

    def test_units_are_accepted_but_not_multipliers_or_the_wrong_unit(self):
        blocks = next(e for e in self.exercises if e.quantity == "blocks")
        read = next(e for e in self.exercises if e.quantity == "tiled_read_bytes")
        n, b = calc.value("blocks", blocks.shape), calc.value("tiled_read_bytes", read.shape)
        for exercise, written, right in [(blocks, "%d blocks" % n, True), (blocks, "%d  blocks." % n, True),
                                         (blocks, "%d" % n, True), (blocks, "%d bytes" % n, False),
                                         (read, "%s bytes" % calc.format_number(b), True),
                                         (read, "%s B" % calc.format_number(b), True),
                                         (read, "%d floats" % b, False), (read, "%d KiB" % b, False),
                                         (blocks, "blocks", False)]:
            with self.subTest(written=written):
                proc = lesson("answers", "LAB=3", "ANSWERS=" + self.answers_file({exercise.id: written}))
                line = self.line_of(proc, exercise.id)
                self.assertEqual(" right: " in line, right, line)
        line = self.line_of(lesson("answers", "LAB=3", "ANSWERS=" + self.answers_file({read.id: "%d floats" % b})),
                            read.id)
        self.assertIn("the question asks for bytes, not floats", line)

    def test_multiple_choice_takes_one_letter_with_hint_then_the_lessons_section(self):
        q = self.questions[0]
        right = right_letter(q)
        wrong, other = [c for c in q.options() if c != right][:2]
        for written, ok in [(right, True), (right.lower(), True), ("(%s)" % right, True), (wrong, False)]:
            with self.subTest(written=written):
                line = self.line_of(lesson("answers", "LAB=3", "ANSWERS=" + self.answers_file({q.id: written})), q.id)
                self.assertEqual(" right: " in line, ok, line)
        line = self.line_of(lesson("answers", "LAB=3", "ANSWERS=" + self.answers_file({q.id: right})), q.id)
        self.assertIn("right: %s. %s" % (right, q.why(right)), line)
        for written in ("B and C", "Z"):
            line = self.line_of(lesson("answers", "LAB=3", "ANSWERS=" + self.answers_file({q.id: written})), q.id)
            self.assertIn("is not one of the options: write the letter of one, " + ", ".join(q.options()), line)
        path = self.answers_file({q.id: wrong})
        first = self.line_of(lesson("answers", "LAB=3", "ANSWERS=" + path), q.id)
        self.assertIn("Hint: " + q.mark["hint"], first)
        self.assertNotIn(q.section, first)
        second = self.line_of(lesson("answers", "LAB=3", "ANSWERS=" + self.answers_file(
            {q.id: other}, os.path.basename(path))), q.id)
        revealed = self.line_of(lesson("answers", "LAB=3", "REVEAL=1", "ANSWERS=" + self.answers_file({q.id: wrong})),
                                q.id)
        for line in (second, revealed):
            self.assertIn("The lesson explains it: reread %s, then try again" % q.section, line)
        for line in (first, second, revealed):
            self.assertNotIn(q.why(right), line)
            self.assertNotIn("answer is", line)

    def test_every_question_is_right_with_its_letter_only(self):
        for path in lesson_files():
            for q in read_questions(path):
                right = right_letter(q)
                with self.subTest(question=q.id):
                    self.assertGreaterEqual(len(q.options()), 3)
                    self.assertTrue(answers.mark_question(q, right)[0])
                    for letter in q.options():
                        if letter != right:
                            ok, line = answers.mark_question(q, letter)
                            self.assertFalse(ok, line)
                            self.assertNotIn(q.why(right), line)
                    # several letters, a sentence naming the letter, a letter outside the options: never right
                    outside = next(c for c in "ABCDEFGH" if c not in q.options())
                    for written in ("".join(q.options()), "%s or %s" % (right, outside), "not %s" % right, outside):
                        self.assertFalse(answers.mark_question(q, written)[0], written)

    def test_the_negated_answer_a_keyword_checker_took_for_7_19_is_refused(self):
        q = next(q for q in read_questions(lesson_of_lab("lab7")) if q.id == "7.19")
        ok, line = answers.mark_question(q, "no bank conflicts, and it stays not aligned")
        self.assertFalse(ok)
        self.assertIn("is not one of the options", line)

    def test_the_first_answer_to_an_exercise_is_kept_as_the_prediction(self):
        e = next(e for e in self.exercises if e.quantity == "tiled_read_bytes")
        right = calc.value(e.quantity, e.shape)
        path = self.answers_file({e.id: str(right - 4)})
        first = self.line_of(lesson("answers", "LAB=3", "ANSWERS=" + path), e.id)
        self.assertNotIn("prediction", first)
        again = os.path.basename(path)
        proc = lesson("answers", "LAB=3", "ANSWERS=" + self.answers_file({e.id: str(right + 4)}, again))
        self.assertIn("the answer is %s; your prediction was %d." % (calc.format_number(right), right - 4),
                      self.line_of(proc, e.id))
        proc = lesson("answers", "LAB=3", "ANSWERS=" + self.answers_file({e.id: str(right)}, again))
        self.assertIn("right: %d; your prediction was %d" % (right, right - 4), self.line_of(proc, e.id))
        fresh = self.answers_file({e.id: str(right)})
        for attempt in range(2):  # a prediction that was right is not reported
            line = self.line_of(lesson("answers", "LAB=3", "ANSWERS=" + fresh), e.id)
            self.assertEqual(line.strip(), "%s  right: %d" % (e.id, right))

    def test_ratios_are_judged_to_two_decimals_and_words_are_not_numbers(self):
        ratio = next(e for e in self.exercises if e.quantity == "tiled_intensity")
        exact = calc.value(ratio.quantity, ratio.shape)
        for written, right in [("%.2f" % exact, True), ("%.4f" % exact, True), ("%.1f" % exact, False),
                               ("%.2f" % (exact + 0.01), False), ("three", False)]:
            with self.subTest(written=written):
                proc = lesson("answers", "LAB=3", "ANSWERS=" + self.answers_file({ratio.id: written}))
                line = next(line for line in proc.stdout.splitlines() if line.strip().startswith(ratio.id + " "))
                self.assertEqual("right" in line, right, line)

    def test_labs_4_to_7_right_answers_pass_and_each_wrong_one_is_explained(self):
        for lab in ("4", "5", "6", "7"):
            exercises = read_marks(lesson_of_lab("lab" + lab))[1]
            right = {e.id: calc.format_number(calc.value(e.quantity, e.shape),
                                              calc.quantities(e.shape)[e.quantity].decimals) for e in exercises}
            questions = read_questions(lesson_of_lab("lab" + lab))
            right.update({q.id: right_letter(q) for q in questions})
            items = len(exercises) + len(questions)
            with self.subTest(lab=lab):
                self.assertGreaterEqual(len(exercises), 4)
                blank = lesson("answers", "LAB=" + lab, "ANSWERS=" + shipped(emulator.lab_folder(lab)))
                self.assertEqual(blank.returncode, 1)
                self.assertEqual(blank.stdout.count("not answered yet"), items)
                proc = lesson("answers", "LAB=" + lab, "ANSWERS=" + self.answers_file(right))
                self.assertEqual(proc.returncode, 0, proc.stdout)
                self.assertIn("%d of %d right" % ((items,) * 2), proc.stdout)
            for e in exercises:
                q = calc.quantities(e.shape)[e.quantity]
                exact = calc.value(e.quantity, e.shape)
                wrong = exact + 4 if q.decimals == 0 else exact + 0.25
                with self.subTest(lab=lab, exercise=e.id):
                    proc = lesson("answers", "LAB=" + lab, "REVEAL=1", "ANSWERS=" + self.answers_file(
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
