#!/usr/bin/env python3
"""make test: the course's test suites, side by side on the machine's cores.

    python3 tests/run_suites.py [--jobs N] SUITE...     (make test; SUITE is a make target such as test-emulator)

Each suite is `make SUITE`, run on its own with its output kept in build/tests/logs/SUITE.log. They are independent
by construction: what two of them build in common is built first, once (make test-build), and every shared build
output is written under a temporary name and renamed into place. Up to N suites run at once (default: one per
core), the longest first, as the last run measured them (build/tests/times.json; the order below on a first run).

As each suite ends, its verdict and the last lines of its output are printed (all of it when it failed). Then a
table of every suite's time and verdict, and a closing line `N passed, N failed` counting suites; the exit status
is non-zero when one failed. Ctrl-C stops every suite.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = os.path.join(ROOT, "build", "tests", "logs")
TIMES = os.path.join(ROOT, "build", "tests", "times.json")
TAIL_LINES = 6


def say(text):
    print(text, flush=True)


def load_times():
    try:
        with open(TIMES, encoding="utf-8") as f:
            times = json.load(f)
        return {k: float(v) for k, v in times.items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def save_times(times):
    os.makedirs(os.path.dirname(TIMES), exist_ok=True)
    partial = TIMES + ".%d.tmp" % os.getpid()
    with open(partial, "w", encoding="utf-8") as f:
        json.dump(times, f, indent=1, sort_keys=True)
    os.replace(partial, TIMES)


class Run:
    def __init__(self, suite):
        self.suite = suite
        self.log = os.path.join(LOGS, suite + ".log")
        self.proc = None
        self.seconds = None
        self.status = None

    def start(self):
        self.began = time.monotonic()
        with open(self.log, "wb") as out:
            # its own process group, so that Ctrl-C or a failure elsewhere can stop the whole suite
            self.proc = subprocess.Popen(["make", "--no-print-directory", self.suite], cwd=ROOT, stdout=out,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)

    def wait(self):
        self.status = self.proc.wait()
        self.seconds = time.monotonic() - self.began

    def stop(self):
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def report(self):
        with open(self.log, encoding="utf-8", errors="replace") as f:
            lines = f.read().rstrip("\n").splitlines()
        verdict = "passed" if self.status == 0 else "FAILED (exit %d)" % self.status
        shown = lines if self.status != 0 else lines[-TAIL_LINES:]
        head = "== %s: %s in %.0f s" % (self.suite, verdict, self.seconds)
        if self.status == 0 and len(lines) > TAIL_LINES:
            head += " (last %d lines of %s)" % (TAIL_LINES, os.path.relpath(self.log, ROOT))
        return "\n".join([head] + ["   " + l for l in shown])


def main(argv):
    parser = argparse.ArgumentParser(prog="tests/run_suites.py")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("suites", nargs="+")
    args = parser.parse_args(argv)
    os.makedirs(LOGS, exist_ok=True)
    times = load_times()
    # longest first, so that the last suites to start are short ones; unknown ones in the order given
    order = sorted(dict.fromkeys(args.suites), key=lambda s: (-times.get(s, 0), args.suites.index(s)))
    pending = [Run(s) for s in order]
    running, done = [], []
    lock = threading.Condition()
    began = time.monotonic()
    say("make test: %d suites, %d at a time (logs in %s)" % (len(pending), args.jobs, os.path.relpath(LOGS, ROOT)))

    def watch(run):
        run.wait()
        with lock:
            running.remove(run)
            done.append(run)
            say(run.report())
            lock.notify()

    try:
        with lock:
            while pending or running:
                while pending and len(running) < max(1, args.jobs):
                    run = pending.pop(0)
                    run.start()
                    running.append(run)
                    threading.Thread(target=watch, args=(run,), daemon=True).start()
                lock.wait()
    except KeyboardInterrupt:
        for run in running:
            run.stop()
        say("make test: stopped")
        return 130
    for run in done:
        times[run.suite] = round(run.seconds, 1)
    save_times(times)
    failed = [r for r in done if r.status != 0]
    say("")
    say("%-28s %8s  %s" % ("suite", "seconds", "verdict"))
    for run in sorted(done, key=lambda r: order.index(r.suite)):
        say("%-28s %8.0f  %s" % (run.suite, run.seconds, "passed" if run.status == 0 else "FAILED"))
    say("all suites: %.0f s of wall time on %d jobs" % (time.monotonic() - began, args.jobs))
    if failed:
        say("failed: %s (their output is above, and in %s)" % (" ".join(r.suite for r in failed),
                                                                 os.path.relpath(LOGS, ROOT)))
    say("suites: %d passed, %d failed" % (len(done) - len(failed), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
