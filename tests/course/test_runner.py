"""The test runner's parsing, on canned inputs: doctest's XML list of test cases, and the verdict file, which only
the course's doctest_main.cpp may write (a record with the run's secret token), whatever else is in it."""
import json

import pytest

from course import runner
from course.results import Finding

DOCTEST_LIST = """cudaemu: note printed before the list
<?xml version="1.0" encoding="UTF-8"?>
<doctest binary="tests">
  <Options order_by="file" rand_seed="0" first="0" last="4294967295" abort_after="0" subcase_filter_levels="2147483647" case_sensitive="false" no_throw="false" no_skip="false"/>
  <TestCase name="width=34 with A = 1, B = 2: every value is 68.0" filename="tests.cpp" line="20" testsuite="correctness"/>
  <TestCase name="reads &lt;= a 16×16 tiled kernel, 100×130·130×75" filename="tests.cpp" line="40" testsuite="traffic"/>
  <TestCase name="no suite" filename="tests.cpp" line="50"/>
</doctest>
"""


def test_the_test_list_is_read_from_doctest_s_xml():
    assert runner.parse_test_list(DOCTEST_LIST) == [
        ("width=34 with A = 1, B = 2: every value is 68.0", "correctness"),
        ("reads <= a 16×16 tiled kernel, 100×130·130×75", "traffic"),
        ("no suite", "")]


@pytest.mark.parametrize("text, why", [
    ("", "no XML"),
    ("Segmentation fault", "no XML"),
    ('<?xml version="1.0"?>\n<doctest><TestCase name="a"', "does not parse"),
    ('<?xml version="1.0"?>\n<doctest></doctest>', "listed no test cases"),
    ('<?xml version="1.0"?>\n<doctest><TestCase testsuite="x"/></doctest>', "without a name"),
])
def test_a_list_that_cannot_be_read_says_why(text, why):
    with pytest.raises(RuntimeError, match=why):
        runner.parse_test_list(text, "lab3's tests")


TOKEN = "5ec2e7"


def record(**fields):
    base = {"kind": "test-case", "token": TOKEN, "name": "case", "suite": "correctness", "status": "passed",
            "messages": []}
    base.update(fields)
    return json.dumps(base)


def verdicts(tmp_path, *lines):
    path = tmp_path / "verdicts.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def test_the_record_with_the_token_is_the_verdict(tmp_path):
    found, why = runner.read_verdicts(verdicts(tmp_path, record(name="other"), record()), TOKEN, "case")
    assert found["name"] == "case" and why == ""


@pytest.mark.parametrize("lines", [
    [record(token="guess")],                      # another token: written by the student's code
    [record(), "not json"],                       # anything else in the file
    [record(), record()],                         # the case twice
    [record(), json.dumps(["a", "list"])],
])
def test_anything_but_the_one_record_is_forged(tmp_path, lines):
    found, why = runner.read_verdicts(verdicts(tmp_path, *lines), TOKEN, "case")
    assert found is None and why == "something other than the test wrote to its verdict channel"


def test_no_file_or_no_record_is_no_verdict(tmp_path):
    assert runner.read_verdicts(str(tmp_path / "missing.jsonl"), TOKEN, "case") == (None, "no verdict")
    assert runner.read_verdicts(verdicts(tmp_path, record(name="other")), TOKEN, "case") == (None, "no verdict")


def test_a_verdict_file_that_is_not_a_plain_file_is_not_read(tmp_path):
    (tmp_path / "target.jsonl").write_text(record() + "\n")
    (tmp_path / "verdicts.jsonl").symlink_to(tmp_path / "target.jsonl")
    assert runner.read_verdicts(str(tmp_path / "verdicts.jsonl"), TOKEN, "case") == (None, "no verdict")


def test_findings_are_kept_when_well_formed():
    rec = {"findings": [{"kind": "race", "file": "k.cu", "line": 41, "message": "m"},
                        {"kind": "race", "file": "k.cu", "line": 41, "message": "again"},
                        {"kind": 7}, "text", {"kind": "out-of-bounds", "file": "k.cu", "line": "x"}]}
    assert runner.findings_of(rec) == (Finding("race", "k.cu", 41),)
    assert runner.findings_of({"findings": "race"}) == () and runner.findings_of({}) == ()
