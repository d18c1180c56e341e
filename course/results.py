"""A test's result, and every report built from results: results.json (Gradescope's format), junit.xml, the table
`make grade` prints and a gradebook row. Each report has one builder here; nothing downstream reads a report's
English to decide anything: it reads a result's status and findings.
"""
import enum
import json
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

OUTPUT_CAP = 4000  # characters of one test's report kept in results.json and junit.xml
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


class Status(enum.Enum):
    """How a test ended. Only PASSED earns points."""
    PASSED = "passed"
    FAILED = "failed"        # it ran to its verdict, and a check failed
    CRASHED = "crashed"      # the test program died, or exited before its verdict
    TIMED_OUT = "timed out"  # the test program or the emulator's watchdog ran out of time
    FORGED = "forged"        # something other than the test wrote to its verdict channel
    MISSING = "missing"      # the submission has no kernel.cu for the lab
    NOT_BUILT = "not built"  # kernel.cu does not compile or link
    REFUSED = "refused"      # it compiled, but uses what a kernel may not (confine.py)
    STOPPED = "stopped"      # a sandbox limit or the lab's time budget ended it, and the lab with it
    NOT_RUN = "not run"      # an earlier test was stopped, or its program could not be built


@dataclass(frozen=True)
class Finding:
    """What the emulator found in a test's run, as its verdict record carries it."""
    kind: str  # "race", "out-of-bounds", ...
    file: str
    line: int


@dataclass
class TestResult:
    __test__ = False  # not a test class, for pytest
    lab: str    # the lab's folder, or "submission" for a submission that could not be graded at all
    name: str
    suite: str  # "correctness", "traffic" or "memory safety"
    status: Status
    output: str = ""
    findings: tuple = ()       # Finding (kind, file, line): what the emulator found in the test's runs
    failed_checks: tuple = ()  # the harness's checks that failed ("correctness", "memory safety", ...)
    visibility: str = "visible"
    # set by scoring.score()
    max_score: float = 0.0
    score: float = 0.0
    withheld: str = ""  # why points a passed test would earn are not awarded
    backend: str = ""   # where it ran, when a grade used both ("gpu" or "emu"; course/grading.py)
    cpu_s: float = 0.0  # the test program's CPU seconds (sandboxed runs only; for the lab's CPU budget)

    @property
    def passed(self):
        return self.status is Status.PASSED

    @property
    def earned(self):
        """Whether it earned its points: it passed, and scoring did not withhold them."""
        return self.passed and not self.withheld

    def report_output(self):
        """What a report says about it: why its points were withheld, if they were, then its own output."""
        return "\n".join(t for t in (self.withheld, self.output) if t)

    def title(self):
        return "%s: %s: %s" % (self.lab, self.suite, self.name)


def clean(text):
    """Text for a report: control characters (and what XML cannot hold) written as \\xNN, newlines and tabs kept."""
    return CONTROL.sub(lambda m: "\\x%02x" % ord(m.group()) if ord(m.group()) < 0x100 else "\\u%04x" % ord(m.group()),
                       text)


def cap_output(text, limit=OUTPUT_CAP):
    if len(text) <= limit:
        return text
    return text[:limit] + "\n[... %d more characters cut]" % (len(text) - limit)


def labs_of(results):
    """The labs the results are about, in the order they first appear."""
    return list(dict.fromkeys(r.lab for r in results))


# ---------------------------------------------------------------------------------------------------------------
# results.json (Gradescope)
# ---------------------------------------------------------------------------------------------------------------
def results_json(results, backend, note=""):
    return {
        "score": round(sum(r.score for r in results), 2),
        "output": "Graded on the %s.%s" % ("GPU (traffic and safety on the CPU emulator)" if backend == "gpu"
                                           else "CPU emulator", " " + clean(note) if note else ""),
        "tests": [{"name": clean(r.title()), "score": r.score, "max_score": r.max_score,
                   "status": "passed" if r.earned else "failed", "output": clean(cap_output(r.report_output())),
                   "visibility": r.visibility}
                  for r in results],
    }


# ---------------------------------------------------------------------------------------------------------------
# junit.xml
# ---------------------------------------------------------------------------------------------------------------
def junit_xml(results):
    root = ET.Element("testsuites", tests=str(len(results)), failures=str(sum(not r.earned for r in results)))
    for lab in labs_of(results):
        rs = [r for r in results if r.lab == lab]
        suite = ET.SubElement(root, "testsuite", name=lab, tests=str(len(rs)),
                              failures=str(sum(not r.earned for r in rs)))
        for r in rs:
            case = ET.SubElement(suite, "testcase", classname=lab, name=clean("%s: %s" % (r.suite, r.name)))
            if not r.earned:
                output = clean(cap_output(r.report_output()))
                first = output.splitlines()[0] if output else "failed"
                ET.SubElement(case, "failure", message=first[:300]).text = output
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_reports(results, out_dir, backend, note=""):
    """Writes results.json (with `note`, a sentence for the student, after what it was graded on) and junit.xml
    into out_dir; returns the total score."""
    os.makedirs(out_dir, exist_ok=True)
    doc = results_json(results, backend, note)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(out_dir, "junit.xml"), "w") as f:
        f.write(junit_xml(results))
    return doc["score"]


# ---------------------------------------------------------------------------------------------------------------
# The table `make grade` prints, and a gradebook row
# ---------------------------------------------------------------------------------------------------------------
def table(results, totals, suites):
    """Lines: one row per lab with its points per suite and its score, then the total."""
    width = max(len(lab) for lab in list(totals) + ["total"]) + 2
    header = "%-*s" % (width, "lab") + "".join("%15s" % s for s in suites) + "%12s" % "score"
    lines = [header, "-" * len(header)]
    for lab, (s, m) in totals.items():
        row = "%-*s" % (width, lab)
        for suite in suites:
            rs = [r for r in results if r.lab == lab and r.suite == suite]
            row += "%15s" % ("%g/%g" % (round(sum(r.score for r in rs), 1), round(sum(r.max_score for r in rs), 1))
                             if rs else "-")
        lines.append(row + "%12s" % ("%g/%g" % (s, m)))
    s = round(sum(v[0] for v in totals.values()), 2)
    m = round(sum(v[1] for v in totals.values()), 2)
    lines.append("%-*s" % (width, "total") + " " * (15 * len(suites)) + "%12s" % ("%g/%g" % (s, m)))
    return lines


def gradebook_header(labs):
    return ["student"] + list(labs) + ["total", "status", "reason"]


# What a spreadsheet takes as the start of a formula (OWASP, CSV injection): such a cell gets a ' in front, which
# the spreadsheet shows as text and does not evaluate.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(text):
    """A gradebook cell of text (a student's name, a reason quoting their output) that no spreadsheet evaluates."""
    return "'" + text if text.startswith(FORMULA_START) else text


def gradebook_row(meta, labs):
    """A student's row of gradebook.csv from their meta.json: score per lab, total, status, reason. The text cells
    are made safe for spreadsheets (spreadsheet_text); the numbers are the course's own."""
    scores = meta.get("scores", {})
    return ([spreadsheet_text(clean(meta["student"]))] + ["%g" % scores[lab] if lab in scores else "" for lab in labs] +
            ["%g" % meta.get("total", 0), meta["status"],
             spreadsheet_text(clean(meta.get("reason", "").replace("\n", " "))[:2000])])


def failure_summary(results, labs):
    """One line for the gradebook: for each lab that lost points, why (its first failure's first line)."""
    reasons = []
    for lab in labs:
        rs = [r for r in results if r.lab == lab]
        if not rs or all(r.passed for r in rs):
            continue
        first = next((r for r in rs if not r.passed and r.output.strip()), None)
        text = first.output if first else "failed"
        if first is not None and first.status is Status.NOT_BUILT:
            detail = next((l for l in text.splitlines() if "error" in l), "")
            text = "kernel.cu does not build" + (": " + detail.strip() if detail else "")
        line = " ".join(l.strip() for l in text.strip().splitlines() if l.strip() and l.strip() != "exception:")
        reasons.append("%s: %s" % (lab, line[:200]))
    return "; ".join(reasons)
