#!/usr/bin/env python3
"""Unit tests for grader/labtool.py's scoring, on made-up results (no kernel is built).

    python3 grader/test_scoring.py      (part of `make test`, as make test-scoring)

The grading rule under test: correctness 60, traffic 25, memory safety 15 points per lab, shared equally by each
suite's cases; traffic and safety points only when every correctness case of the lab passes, hidden ones included.
"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labtool  # noqa: E402

LAB = labtool.LABS[2]


def result(suite, passed, name=None, lab=LAB, output=""):
    return {"lab": lab, "name": name or "%s %s" % (suite, passed), "suite": suite, "passed": passed, "output": output}


def lab_results(correct_fails=0, correct_cases=4):
    rs = [result("correctness", i >= correct_fails, "correctness %d" % i) for i in range(correct_cases)]
    return rs + [result("traffic", True, "reads"), result("traffic", True, "written once"),
                 result("memory safety", True, "clean")]


class Scoring(unittest.TestCase):
    def test_all_pass_is_full_marks(self):
        totals = labtool.score(lab_results())
        self.assertEqual(totals[LAB], (100, 100))

    def test_one_wrong_case_withholds_traffic_and_safety(self):
        rs = lab_results(correct_fails=1)
        totals = labtool.score(rs)
        self.assertEqual(totals[LAB], (45, 100))  # 3 of 4 correctness cases: 3 × 15
        for r in rs:
            if r["suite"] != "correctness":
                self.assertEqual(r["score"], 0.0)
                self.assertIn("1 of 4 failed", r["withheld"])
                self.assertFalse(labtool.earned(r))

    def test_a_failing_hidden_case_withholds_them_too(self):
        rs = lab_results() + [result("correctness", False, "hidden test 1")]
        totals = labtool.score(rs)
        self.assertEqual(sum(r["score"] for r in rs if r["suite"] != "correctness"), 0)
        self.assertEqual(totals[LAB][0], 48.0)  # 4 of 5 correctness cases: 4 × 12

    def test_scoring_again_after_more_results_is_consistent(self):
        rs = lab_results()
        labtool.score(rs)
        self.assertTrue(all(labtool.earned(r) for r in rs))
        rs.append(result("correctness", False, "hidden test 1"))
        labtool.score(rs)
        self.assertEqual(sum(r["score"] for r in rs if r["suite"] == "traffic"), 0)
        rs[-1]["passed"] = True
        totals = labtool.score(rs)
        self.assertEqual(totals[LAB], (100, 100))
        self.assertFalse(any("withheld" in r for r in rs))

    def test_other_labs_are_not_affected(self):
        other = labtool.LABS[3]
        rs = lab_results(correct_fails=1) + [result("correctness", True, lab=other),
                                            result("traffic", True, lab=other)]
        totals = labtool.score(rs)
        self.assertEqual(totals[other][0], totals[other][1])

    def test_reports_say_why_points_were_withheld(self):
        rs = lab_results(correct_fails=2)
        totals = labtool.score(rs)
        with tempfile.TemporaryDirectory() as out:
            labtool.write_reports(rs, totals, out, "emu")
            with open(os.path.join(out, "results.json")) as f:
                doc = json.load(f)
            with open(os.path.join(out, "junit.xml")) as f:
                junit = f.read()
        traffic = [t for t in doc["tests"] if ": traffic: " in t["name"]]
        self.assertTrue(traffic and all(t["status"] == "failed" and t["score"] == 0 for t in traffic))
        self.assertTrue(all("not awarded" in t["output"] and "2 of 4 failed" in t["output"] for t in traffic))
        self.assertEqual(doc["score"], 30)
        self.assertIn('failures="5"', junit)


if __name__ == "__main__":
    unittest.main()
