"""Scoring and the reports built from scored results, on made-up results (no kernel is built).

The rule under test: each lab's points per suite (its lab.ini: correctness 60, traffic 25, memory safety 15) shared
equally by the suite's cases; traffic and safety points only when every correctness case passes, hidden ones
included.
"""
import json
import xml.etree.ElementTree as ET

import pytest

from course import labs, results, scoring
from course.results import Status, TestResult

LAB = labs.folders()[2]
OTHER = labs.folders()[3]


def result(suite, passed, name=None, lab=LAB, output=""):
    return TestResult(lab, name or "%s %s" % (suite, passed), suite, Status.PASSED if passed else Status.FAILED, output)


def lab_results(correct_fails=0, correct_cases=4):
    rs = [result("correctness", i >= correct_fails, "correctness %d" % i) for i in range(correct_cases)]
    return rs + [result("traffic", True, "reads"), result("traffic", True, "written once"),
                 result("memory safety", True, "clean")]


def test_all_pass_is_full_marks():
    assert scoring.score(lab_results())[LAB] == (100, 100)


def test_one_wrong_case_withholds_traffic_and_safety():
    rs = lab_results(correct_fails=1)
    assert scoring.score(rs)[LAB] == (45, 100)  # 3 of 4 correctness cases: 3 × 15
    for r in rs:
        if r.suite != "correctness":
            assert r.score == 0.0 and "1 of 4 failed" in r.withheld and not r.earned


def test_a_failing_hidden_case_withholds_them_too():
    rs = lab_results() + [result("correctness", False, "hidden test 1")]
    totals = scoring.score(rs)
    assert sum(r.score for r in rs if r.suite != "correctness") == 0
    assert totals[LAB][0] == 48.0  # 4 of 5 correctness cases: 4 × 12


def test_scoring_again_after_more_results_is_consistent():
    rs = lab_results()
    scoring.score(rs)
    assert all(r.earned for r in rs)
    rs.append(result("correctness", False, "hidden test 1"))
    scoring.score(rs)
    assert sum(r.score for r in rs if r.suite == "traffic") == 0
    rs[-1].status = Status.PASSED
    assert scoring.score(rs)[LAB] == (100, 100)
    assert not any(r.withheld for r in rs)


def test_other_labs_are_not_affected():
    rs = lab_results(correct_fails=1) + [result("correctness", True, lab=OTHER), result("traffic", True, lab=OTHER)]
    totals = scoring.score(rs)
    assert totals[OTHER][0] == totals[OTHER][1]


@pytest.mark.parametrize("cases", [1, 3, 7])
def test_a_suite_adds_up_exactly(cases):
    """Points are shared in hundredths, the remainder spread over the first cases: 60 over 7 cases is 60, not 59.99."""
    rs = [result("correctness", True, "c%d" % i) for i in range(cases)]
    scoring.score(rs)
    assert round(sum(r.max_score for r in rs), 2) == 100  # a lab with one suite gets the others' points too
    assert round(max(r.max_score for r in rs) - min(r.max_score for r in rs), 2) <= 0.01


def test_every_status_but_passed_earns_nothing():
    for status in Status:
        rs = [TestResult(LAB, "c", "correctness", status)]
        scoring.score(rs)
        assert (rs[0].score > 0) == (status is Status.PASSED), status


def test_reports_say_why_points_were_withheld(tmp_path):
    rs = lab_results(correct_fails=2)
    scoring.score(rs)
    results.write_reports(rs, str(tmp_path), "emu")
    doc = json.loads((tmp_path / "results.json").read_text())
    traffic = [t for t in doc["tests"] if ": traffic: " in t["name"]]
    assert traffic and all(t["status"] == "failed" and t["score"] == 0 for t in traffic)
    assert all("not awarded" in t["output"] and "2 of 4 failed" in t["output"] for t in traffic)
    assert doc["score"] == 30
    junit = ET.parse(tmp_path / "junit.xml").getroot()
    assert junit.get("failures") == "5"
    failures = junit.findall(".//failure")
    assert len(failures) == 5 and all(f.get("message") for f in failures)


def test_reports_escape_what_a_hostile_output_holds(tmp_path):
    """Control characters, XML specials and lone surrogates in a test's output reach neither report raw."""
    nasty = "bad \x1b[31m <tag> & \"quote\" \x00 \ud800 end"
    rs = [TestResult(LAB, "nasty\x1b", "correctness", Status.FAILED, nasty)]
    scoring.score(rs)
    results.write_reports(rs, str(tmp_path), "emu")
    doc = json.loads((tmp_path / "results.json").read_text())
    assert "\\x1b" in doc["tests"][0]["output"] and "\x1b" not in doc["tests"][0]["output"]
    failure = ET.parse(tmp_path / "junit.xml").getroot().find(".//failure")
    assert "<tag> & \"quote\"" in failure.text and "\x00" not in failure.text


def test_gradebook_row():
    meta = {"student": "ann\x07", "scores": {LAB: 45.0}, "total": 45.0, "status": "graded", "reason": "a\nb"}
    row = results.gradebook_row(meta, [LAB, OTHER])
    assert row == ["ann\\x07", "45", "", "45", "graded", "a b"]
    assert results.gradebook_header([LAB]) == ["student", LAB, "total", "status", "reason"]


@pytest.mark.parametrize("name", ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "\tcalc", "\rcalc"])
def test_gradebook_cells_that_a_spreadsheet_would_evaluate_are_text(name):
    meta = {"student": name, "scores": {LAB: 100.0}, "total": 100.0, "status": "graded", "reason": name}
    row = results.gradebook_row(meta, [LAB])
    # a ' in front, or the control character written out (clean: \\x0d), so no cell starts a formula
    assert all(cell.startswith(("'", "\\x")) for cell in (row[0], row[-1])) and \
        row[1:4] == ["100", "100", "graded"], row


def test_an_ordinary_name_is_left_as_it_is():
    meta = {"student": "ann-marie", "scores": {}, "total": 0, "status": "empty", "reason": ""}
    assert results.gradebook_row(meta, [LAB])[0] == "ann-marie"


def test_failure_summary_names_each_lab_that_lost_points():
    rs = lab_results(correct_fails=1)
    rs[0].output = "first line\nsecond"
    rs.append(TestResult(OTHER, "builds", "correctness", Status.NOT_BUILT,
                         "kernel.cu does not build:\nk.cu:3: error: expected ';'\nmore"))
    line = results.failure_summary(rs, [LAB, OTHER])
    assert line == "%s: first line second; %s: kernel.cu does not build: k.cu:3: error: expected ';'" % (LAB, OTHER)


def test_on_the_gpu_backend_a_correctness_case_must_pass_on_the_emulator_too():
    """grade_lab with BACKEND=gpu: the GPU's correctness results stand, each failed where the emulator failed the
    same case (a matmul() that copied A to the host is right on the GPU); the emulator's own correctness results
    are not scored twice; other suites are the emulator's alone."""
    from course import grading
    rs = [TestResult(LAB, "right everywhere", "correctness", Status.PASSED, backend="gpu"),
          TestResult(LAB, "copies A", "correctness", Status.PASSED, backend="gpu"),
          TestResult(LAB, "right everywhere", "correctness", Status.PASSED, backend="emu"),
          TestResult(LAB, "copies A", "correctness", Status.FAILED, "matmul() copied A or B", (), ("correctness",),
                     backend="emu"),
          TestResult(LAB, "reads", "traffic", Status.PASSED, backend="emu")]
    merged = grading.both_backends(rs)
    assert [(r.name, r.suite, r.status) for r in merged] == [
        ("right everywhere", "correctness", Status.PASSED), ("copies A", "correctness", Status.FAILED),
        ("reads", "traffic", Status.PASSED)]
    assert "right on the GPU, but not on the CPU emulator" in merged[1].output and \
        "matmul() copied A or B" in merged[1].output and merged[1].failed_checks == ("correctness",)


def test_on_the_gpu_backend_a_case_only_the_gpu_runs_needs_the_emulators_cases_to_pass():
    """The large case runs on the GPU only: a matmul() that multiplies on the host passes it there, and only the
    emulator's cases see the copy. It counts when every correctness case the emulator ran passed."""
    from course import grading

    def run(emu_status):
        return grading.both_backends([
            TestResult(LAB, "small", "correctness", Status.PASSED, backend="gpu"),
            TestResult(LAB, "large", "correctness", Status.PASSED, backend="gpu"),
            TestResult(LAB, "small", "correctness", emu_status, "matmul() copied A or B", (), ("correctness",),
                       backend="emu")])
    copied = run(Status.FAILED)
    assert [(r.name, r.status) for r in copied] == [("small", Status.FAILED), ("large", Status.FAILED)]
    assert "'small' did not" in copied[1].output and "matmul() copied A or B" in copied[1].output
    assert [(r.name, r.status) for r in run(Status.PASSED)] == [("small", Status.PASSED), ("large", Status.PASSED)]
