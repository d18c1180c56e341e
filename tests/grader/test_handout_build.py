"""make handout, through the fixture that every suite checking the handout shares (make test runs this first, so
that the suites side by side find it built)."""


def test_make_handout_builds_the_tarball(handout_build):
    proc, tarball = handout_build
    assert proc.returncode == 0, "make handout\n" + proc.stdout + proc.stderr
