"""What the lesson tools' tests share: the repository's paths, the tools' modules, and running the tools."""
import concurrent.futures
import os
import subprocess
import sys

from course import catalogue  # the grader's catalogue of kernels, materialised under build/

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(argv, **kwargs):
    """Runs a command from the repository root; returns the CompletedProcess with text output."""
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, **kwargs)


def catalogue_kernel(name):
    """The path of a catalogue kernel (lab3/tile32), written under build/catalogue from its patch."""
    return catalogue.materialise(catalogue.find(name))


def lesson(*argv):
    return run([sys.executable, "-m", "tools.lessons"] + list(argv))


def assert_usage_error(test, command, argv, why):
    """`python3 -m tools.lessons command argv` fails with status 2, printing nothing but one line of stderr: why, then the
    command's usage."""
    proc = lesson(command, *argv)
    test.assertEqual(proc.returncode, 2)
    test.assertEqual(proc.stdout, "")
    test.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
    test.assertIn(why, proc.stderr)
    test.assertIn("usage: make " + command, proc.stderr)


def build_all(builds):
    """Builds measuring programs, {key: (lab, kernel, tile)} -> {key: program}. The first alone, so that the
    objects every build shares are made once, then the rest side by side."""
    from tools.lessons import emulator
    keys = list(builds)
    programs = {keys[0]: emulator.build(*builds[keys[0]])}
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        futures = {k: pool.submit(emulator.build, *builds[k]) for k in keys[1:]}
        programs.update({k: f.result() for k, f in futures.items()})
    return programs


def staged_kernel(name, text):
    """A kernel file made by a test (a reference with its shape fixed, say), as build/lessons/staged/<name>."""
    from tools.lessons import emulator
    path = os.path.join(emulator.BUILD, "staged", name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    emulator.write_if_changed(path, text)
    return path


def lab6_shape_defines(**changes):
    """The -D LAB6_... macros of the lab 6 reference, as #define lines: lab.h's shape with `changes`, which the
    reference then takes for every problem instead of choosing a tile."""
    from tools.lessons import calculator
    constants = dict(calculator.lab_constants(6), **changes)
    return "".join("#define LAB6_%s %d\n" % kv for kv in sorted(constants.items()))
