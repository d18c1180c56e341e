"""What the grader's tests share: the student handout, built with `make handout` and unpacked once for the whole run
(test_grading.py checks the release, test_handout_commands.py the lessons' commands in it), and a fresh copy of the
repository, where test_readme_commands.py runs the instructors' commands."""
import fcntl
import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile

import pytest

from course.paths import ROOT


def course_files_hash():
    """A hash of every file git would commit from the working tree: what the handout is made from."""
    listed = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.decode().split("\0")
    h = hashlib.sha256()
    for name in sorted(n for n in listed if n):
        path = os.path.join(ROOT, name)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                h.update(name.encode() + b"\0" + hashlib.sha256(f.read()).digest())
    return h.hexdigest()


@pytest.fixture(scope="session")
def handout_build():
    """`make handout`, run once: (its CompletedProcess, the tarball it must write). Suites running side by side
    (make test) share one: the first to get here builds it under a lock, and a later one takes the same tarball
    when no file of the course has changed since (make test builds it before the suites start)."""
    tarball = os.path.join(ROOT, "build", "handout", "course.tar.gz")
    stamp = os.path.join(ROOT, "build", "tests", "handout.stamp")
    os.makedirs(os.path.dirname(stamp), exist_ok=True)
    with open(stamp + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        current = course_files_hash()
        try:
            with open(stamp) as f:
                built = f.read().strip()
        except OSError:
            built = None
        if built == current and os.path.isfile(tarball):
            return subprocess.CompletedProcess(["make", "-s", "handout"], 0, "(built for this tree already)\n", ""), \
                tarball
        proc = subprocess.run(["make", "-s", "handout"], capture_output=True, text=True, cwd=ROOT)
        if proc.returncode == 0:
            with open(stamp, "w") as f:
                f.write(current + "\n")
        return proc, tarball


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


def fresh_copy(dest):
    """What a fresh clone of this repository holds, in dest: every file git would commit from the working tree
    (tracked, and new files not ignored), committed there, with no build/ of this checkout's. So the tests of
    the README's instructor commands run on the tree as it will land, uncommitted edits included."""
    listed = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in sorted(n for n in listed if n):
        src = os.path.join(ROOT, name)
        if not os.path.isfile(src) or os.path.islink(src):
            continue  # deleted in the working tree, not yet in git
        os.makedirs(os.path.dirname(os.path.join(dest, name)) or dest, exist_ok=True)
        shutil.copy2(src, os.path.join(dest, name))
    git = ["git", "-C", dest, "-c", "user.name=course", "-c", "user.email=course@localhost"]
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "fresh copy"]):
        subprocess.run(git + cmd, check=True, capture_output=True)
    return dest


@pytest.fixture(scope="session")
def fresh():
    """A fresh copy of the repository (fresh_copy), made once for the run: the instructors' commands run there."""
    with tempfile.TemporaryDirectory(prefix="test-fresh-clone-") as where:
        os.chmod(where, 0o755)  # the sandbox's users read the course from here
        yield fresh_copy(os.path.join(where, "course"))
