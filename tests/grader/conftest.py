"""What the grader's tests share: the student handout, built with `make handout` and unpacked once for the whole run
(test_grading.py checks the release, test_handout_commands.py the lessons' commands in it)."""
import os
import subprocess
import tarfile
import tempfile

import pytest

from course.paths import ROOT


@pytest.fixture(scope="session")
def handout_build():
    """`make handout`, run once: (its CompletedProcess, the tarball it must write)."""
    proc = subprocess.run(["make", "-s", "handout"], capture_output=True, text=True, cwd=ROOT)
    return proc, os.path.join(ROOT, "build", "handout", "course.tar.gz")


@pytest.fixture(scope="session")
def handout(handout_build):
    """The handout unpacked in a temporary folder, as a student gets it: the path of its course/."""
    proc, tarball = handout_build
    if proc.returncode != 0 or not os.path.isfile(tarball):
        pytest.fail("make handout failed, so there is no handout to check:\n" + proc.stdout + proc.stderr)
    with tempfile.TemporaryDirectory(prefix="test-handout-") as where:
        with tarfile.open(tarball) as tf:
            tf.extractall(where)  # our own tarball, just built
        yield os.path.join(where, "course")


@pytest.fixture(scope="session")
def handout_env():
    """The environment for commands run in the handout: its own emulator runtime, built in its own build/."""
    env = dict(os.environ)
    env.pop("CUDAEMU_CACHE", None)
    return env
