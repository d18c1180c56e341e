"""Running a lab's doctest program one test case at a time, each in its own process.

A test's verdict is never what the process prints (the student's kernel shares it): it is the record the course's
doctest_main.cpp writes to a file named by CUDAGRADE_VERDICTS, marked with a secret token only that code reads (from
stdin, before the student's code runs). A missing or forged record fails the test with its reason.
"""
import json
import os
import secrets
import signal
import stat
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from .results import Finding, Status, cap_output

TEST_TIMEOUT_S = 120  # per test case, on top of the emulator's own CUDAEMU_TIMEOUT
VERDICT_CAP = 1 << 20  # bytes of the verdict file read


def test_env():
    env = dict(os.environ)
    env.setdefault("CUDAEMU_TIMEOUT", "60")
    return env


class SandboxLimit(Exception):
    """A sandboxed test program was stopped by one of the sandbox's limits."""


def parse_test_list(text, program="the test program"):
    """[(name, suite)] from doctest's `--list-test-cases --reporters=xml` output (the course's own test program, so
    trusted; anything before the XML declaration, such as the emulator's notes, is skipped). BuildError-like
    RuntimeError when there is no list to read."""
    start = text.find("<?xml")
    try:
        root = ET.fromstring(text[start:]) if start >= 0 else None
    except ET.ParseError as e:
        raise RuntimeError("%s listed its test cases in XML that does not parse: %s" % (program, e)) from None
    if root is None:
        raise RuntimeError("%s listed no test cases (no XML in its output)" % program)
    cases = [(tc.get("name"), tc.get("testsuite") or "") for tc in root.iter("TestCase")]
    if not cases or any(not name for name, _ in cases):
        raise RuntimeError("%s listed no test cases, or one without a name" % program)
    return cases


def read_verdicts(path, token, name):
    """The record of test case `name` from the verdict file, or a reason why there is no trustworthy one."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None, "no verdict"
    with os.fdopen(fd, "rb") as f:
        data = f.read(VERDICT_CAP + 1) if stat_regular(f) else b""
    found, forged = [], 0
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            forged += 1
            continue
        if not isinstance(record, dict) or record.get("token") != token:
            forged += 1
        elif record.get("kind") == "test-case" and record.get("name") == name:
            found.append(record)
    if forged or len(found) > 1:
        return None, "something other than the test wrote to its verdict channel"
    return (found[0], "") if found else (None, "no verdict")


def stat_regular(f):
    return stat.S_ISREG(os.fstat(f.fileno()).st_mode)


@dataclass(frozen=True)
class Verdict:
    status: Status
    output: str
    findings: tuple = ()       # Finding (kind, file, line), as the record carries them
    failed_checks: tuple = ()  # "correctness", "reads", "written once", "coalescing", "tensor cores", "memory safety", "host flow"
    cpu_s: float = 0.0         # the test program's CPU seconds (sandboxed runs only)


def findings_of(record):
    """The emulator's findings a verdict record carries, as Finding tuples (malformed entries are skipped)."""
    found = []
    for f in record.get("findings", []) if isinstance(record.get("findings"), list) else []:
        if isinstance(f, dict) and isinstance(f.get("kind"), str) and isinstance(f.get("line", 0), int):
            found.append(Finding(f["kind"], str(f.get("file", "")), f.get("line", 0)))
    return tuple(dict.fromkeys(found))


def run_test_case(binary, name, sandbox=None):
    """Runs one test case alone, in its own process (in the sandbox, when there is one); returns its Verdict.
    Raises SandboxLimit when the sandbox stopped it: the lab's remaining tests would be stopped the same way."""
    cmd = [binary, "--test-case=" + name.replace(",", "\\,"), "--reporters=xml", "--no-version"]
    token = secrets.token_hex(16)
    verdicts = os.path.join(os.path.dirname(binary), "verdicts.jsonl")
    if os.path.lexists(verdicts):
        os.remove(verdicts)
    env = {"CUDAGRADE_VERDICTS": verdicts}
    if sandbox:
        proc = sandbox.run(cmd, env, stdin=token.encode() + b"\n")
        if proc.limit:
            raise SandboxLimit("stopped by the sandbox's %s" % proc.limit)
        if proc.returncode == 124:  # the emulator's watchdog: the next test would hang the same way
            raise SandboxLimit("stopped by the emulator's watchdog: the kernel did not finish in %s s (an endless "
                               "loop?)" % test_env()["CUDAEMU_TIMEOUT"])
    else:
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TEST_TIMEOUT_S, input=token + "\n",
                                  env=dict(test_env(), **env), start_new_session=True, errors="replace")
        except subprocess.TimeoutExpired:
            return Verdict(Status.TIMED_OUT,
                           "timed out after %d s — is there an endless loop in your kernel?" % TEST_TIMEOUT_S)
    record, why_none = read_verdicts(verdicts, token, name)
    stderr = cap_output(proc.stderr.strip(), 1000)
    if record is None:
        if why_none != "no verdict":
            return Verdict(Status.FORGED, why_none, cpu_s=getattr(proc, "cpu_s", 0.0))
        status = Status.CRASHED
        if proc.returncode < 0:
            why = "the test program crashed (%s)" % signal.Signals(-proc.returncode).name
        elif proc.returncode == 124:
            status, why = Status.TIMED_OUT, "the kernel did not finish (emulator watchdog)"
        elif sandbox and "std::bad_alloc" in proc.stdout + proc.stderr:
            # no record: the program died of it outside a test case (the only case left to its text, which can
            # only stop the submission's own lab)
            raise SandboxLimit("stopped by the sandbox's memory limit (%d MiB): std::bad_alloc"
                               % sandbox.limits["memory_mb"])
        else:
            why = "the test program exited with code %d before finishing" % proc.returncode
        return Verdict(status, (why + "\n" + stderr).strip(), cpu_s=getattr(proc, "cpu_s", 0.0))
    messages = [m for m in record.get("messages", []) if isinstance(m, str)]
    if sandbox and record.get("out_of_memory") is True:  # the case ended in std::bad_alloc: the memory limit
        raise SandboxLimit("stopped by the sandbox's memory limit (%d MiB): std::bad_alloc"
                           % sandbox.limits["memory_mb"])
    passed = record.get("status") == "passed" and proc.returncode == 0
    if not passed and not messages:
        messages.append(stderr or "failed (exit code %d)" % proc.returncode)
    checks = record.get("failed_checks") if isinstance(record.get("failed_checks"), list) else []
    return Verdict(Status.PASSED if passed else Status.FAILED, cap_output("\n".join(messages)), findings_of(record),
                   tuple(c for c in checks if isinstance(c, str)), getattr(proc, "cpu_s", 0.0))
