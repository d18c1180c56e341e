"""The grader's self-test (grader/selftest.py) under pytest, one test per check (make test-grader): every reference
solution scores full marks, every skeleton builds and scores zero, every catalogue entry gets the grade and diagnosis
its .ini states, and the entries with a [student report] read as `make labN` must show them.
`python3 -m grader.selftest` makes the same checks and prints them as a table."""
import os
import shutil

import pytest

from course import labs
from grader import selftest

ENTRIES, READ = selftest.read_catalogue()


@pytest.fixture(scope="module")
def work():
    """build/selftest, emptied once for the whole run, as the table program does."""
    shutil.rmtree(selftest.WORK, ignore_errors=True)
    os.makedirs(selftest.WORK)
    return selftest.WORK


def assert_check(check):
    assert check.ok, "%s\n%s" % (check.what, check.detail)


@pytest.mark.parametrize("lab", labs.folders())
def test_the_reference_solution_scores_full_marks(lab, work):
    assert_check(selftest.check_reference(lab, work))


@pytest.mark.parametrize("lab", labs.folders())
def test_the_skeleton_builds_and_scores_zero(lab, work):
    assert_check(selftest.check_skeleton(lab, work))


def test_the_catalogue_reads_and_has_entries():
    assert_check(READ)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_the_catalogue_entry_gets_its_verdict(entry, work):
    assert_check(selftest.check_entry(entry, work))


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.student_report],
                         ids=[e.name for e in ENTRIES if e.student_report])
def test_make_lab_shows_the_student_report(entry):
    assert_check(selftest.check_student_report(entry))
