"""The verdict record (common/doctest_main.cpp) says what failed without English: a known-wrong lab 3 kernel, built
with the emulator as the grader builds it, leaves records whose findings name the race with its file and line, and
whose failed_checks name the check; the reference kernel leaves none. Needs what the emulator needs (clang, LLVM,
doctest-dev); run from the repository root: pytest-3 tests/course/test_verdicts.py"""
import os
import secrets
import subprocess

import pytest

from course import catalogue, runner
from course.results import Finding, Status
from course.toolchain import Toolchain

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAB = "lab3-boundary"
ENTRY = catalogue.find("lab3/missing_second_barrier")  # no barrier after the dot product: a race
WRONG = ENTRY.shown  # the name diagnostics give it
REFERENCE = "solutions/lab3-boundary/kernel.cu"
MEMORY_SAFETY = "no race, divergent barrier, uninitialised shared read or out-of-bounds access"
CORRECTNESS = "width=34 with A = 1, B = 2: every value is 68.0"


def build(kernel, shown_as):
    """The lab's test program against `kernel` (a path), built for the emulator as `make labN` and the grader build
    it; diagnostics name the kernel `shown_as`."""
    name = os.path.splitext(os.path.basename(kernel))[0]
    out_dir = os.path.join(ROOT, "build", "emu", LAB, "verdict-findings-" + name)
    return Toolchain("emu").build_lab(LAB, kernel, out_dir, shown_as=shown_as, with_demo=False)["tests"]


def record_of(binary, name):
    """Runs the one test case `name` with a verdict channel, as the grader does; returns its record."""
    verdicts = os.path.join(os.path.dirname(binary), "verdicts.jsonl")
    if os.path.exists(verdicts):
        os.remove(verdicts)
    token = secrets.token_hex(16)
    subprocess.run([binary, "--test-case=" + name.replace(",", "\\,"), "--reporters=xml", "--no-version"],
                   input=token + "\n", capture_output=True, text=True, timeout=600, cwd=ROOT,
                   env=dict(runner.test_env(), CUDAGRADE_VERDICTS=verdicts))
    record, why_none = runner.read_verdicts(verdicts, token, name)
    assert record is not None, why_none
    return record


def line_of(path, text):
    """The 1-based number of the one line of `path` that holds `text`."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        found = [i + 1 for i, line in enumerate(f) if text in line]
    assert len(found) == 1, (text, found)
    return found[0]


@pytest.fixture(scope="module")
def wrong_binary():
    return build(catalogue.materialise(ENTRY), WRONG)


def test_race_is_a_finding_with_its_file_and_line(wrong_binary):
    record = record_of(wrong_binary, MEMORY_SAFETY)
    assert record["status"] == "failed"
    assert record["failed_checks"] == ["memory safety"]
    races = [f for f in record["findings"] if f["kind"] == "race"]
    assert races, record["findings"]
    # the finding is where the race was found: the next phase's store into the A tile, which overwrites what the
    # dot product is still reading; its message names that read too
    store = line_of(ENTRY.path, "As[ty][tx] = A[row * K + a_col];")
    read = line_of(ENTRY.path, "sum += As[ty][k] * Bs[k][tx];")
    assert [(f["file"], f["line"]) for f in races] == [(WRONG, store)]
    assert races[0]["message"].startswith("race on shared memory between %s:%d and :%d" % (WRONG, read, store))
    assert record["findings_left_out"] == 0
    # the text the student reads is as it was: the finding's kind and message, in the messages
    assert any("race: " + races[0]["message"] in m for m in record["messages"])


def test_wrong_values_fail_correctness_and_still_carry_the_finding(wrong_binary):
    record = record_of(wrong_binary, CORRECTNESS)
    assert record["status"] == "failed"
    assert record["failed_checks"] == ["correctness"]
    assert "race" in {f["kind"] for f in record["findings"]}


def test_the_reference_kernel_leaves_no_findings():
    record = record_of(build(os.path.join(ROOT, REFERENCE), REFERENCE), MEMORY_SAFETY)
    assert record["status"] == "passed"
    assert record["failed_checks"] == []
    assert record["findings"] == []
    assert record["messages"] == []


def test_the_grader_reads_the_findings_and_the_failed_checks(wrong_binary):
    """What grading keeps of a test: its status, the findings as (kind, file, line) and the checks that failed, all
    from the record, none from the text."""
    verdict = runner.run_test_case(wrong_binary, MEMORY_SAFETY)
    store = line_of(ENTRY.path, "As[ty][tx] = A[row * K + a_col];")
    assert verdict.status is Status.FAILED
    assert verdict.findings == (Finding("race", WRONG, store),)
    assert verdict.failed_checks == ("memory safety",)


def test_a_case_ended_by_std_bad_alloc_says_so_by_its_type(tmp_path):
    """What a sandbox's memory limit looks like to the test program: new throws std::bad_alloc. The record says
    out_of_memory (the grader then stops the lab with the sandbox's reason), judged by the exception's type; a case
    that fails otherwise says false."""
    import resource
    lab1 = "lab1-naive"
    kernel = os.path.join(ROOT, "grader", "malicious", "lab1", "allocate_forever.cu")  # new char[512 MiB], forever
    binary = Toolchain("emu").build_lab(lab1, kernel, str(tmp_path / "build"), with_demo=False)["tests"]
    name = next(n for n, suite in Toolchain("emu").test_cases(lab1) if suite == "correctness")
    verdicts = str(tmp_path / "verdicts.jsonl")
    token = secrets.token_hex(16)

    def limit_memory():  # as the sandbox does, so that the allocations fail soon
        resource.setrlimit(resource.RLIMIT_DATA, (4 << 30, 4 << 30))

    subprocess.run([binary, "--test-case=" + name.replace(",", "\\,"), "--reporters=xml", "--no-version"],
                   input=token + "\n", capture_output=True, text=True, timeout=600, cwd=ROOT, preexec_fn=limit_memory,
                   env=dict(runner.test_env(), CUDAGRADE_VERDICTS=verdicts))
    record, why_none = runner.read_verdicts(verdicts, token, name)
    assert record is not None, why_none
    assert record["status"] == "failed" and record["out_of_memory"] is True
    assert record_of(build(os.path.join(ROOT, REFERENCE), REFERENCE), MEMORY_SAFETY)["out_of_memory"] is False
