"""build/ stays bounded (course/cache.py): a made-up build/ filled past a small bound with fake entries, pruned least
recently used first, keeping each lab's newest entry, the entries in use and what is not an entry."""
import os
import time

import pytest

from course import cache, paths

KB = 1024
NOW = time.time()
HOUR = 3600


def fake(build, relpath, size, age_s):
    """A file of `size` bytes at build/relpath, and it and its folder last modified `age_s` seconds ago."""
    path = os.path.join(build, relpath)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"\0" * size)
    for p in (path, os.path.dirname(path)):
        os.utime(p, (NOW - age_s, NOW - age_s))
    return os.path.dirname(path)


@pytest.fixture
def build(tmp_path):
    """Lab 3's student run and six pitfalls an hour or more old, one lesson program, and the shared objects."""
    b = str(tmp_path / "build")
    entries = {"student": fake(b, "emu/lab3-boundary/student/tests", 200 * KB, 9 * HOUR)}
    for i in range(6):  # pitfall-0 the oldest, pitfall-5 the newest
        entries["pitfall-%d" % i] = fake(b, "emu/lab3-boundary/pitfall-%d/tests" % i, 200 * KB, (8 - i) * HOUR)
    entries["lesson"] = fake(b, "lessons/lab1-naive/solutions-lab1-naive-kernel-cu/measure", 200 * KB, 10 * HOUR)
    fake(b, "emu/obj/harness.o", 200 * KB, 20 * HOUR)
    fake(b, "emu/runtime-0123456789abcdef.o", 200 * KB, 20 * HOUR)
    return b, entries


def total(build):
    return cache.size_and_time(build)[0]


def test_the_oldest_entries_go_until_build_is_under_the_bound(build):
    b, e = build
    assert total(b) == 10 * 200 * KB
    bound = 1300 * KB  # 2000 KB now: four entries of 200 KB must go
    removed = cache.prune(b, bound, now=NOW)
    assert removed == [e["student"], e["pitfall-0"], e["pitfall-1"], e["pitfall-2"]]
    assert total(b) <= bound < total(b) + 200 * KB  # no more than needed
    for name in ("pitfall-3", "pitfall-4", "pitfall-5", "lesson"):
        assert os.path.isdir(e[name]), name
    assert os.path.isfile(os.path.join(b, "emu", "obj", "harness.o"))


def test_each_labs_newest_entry_and_what_is_not_an_entry_stay_whatever_the_bound(build):
    b, e = build
    removed = cache.prune(b, 1, now=NOW)
    assert sorted(removed) == sorted(p for name, p in e.items() if name not in ("pitfall-5", "lesson"))
    assert os.path.isdir(e["pitfall-5"]) and os.path.isdir(e["lesson"])  # lab 3's newest, lab 1's only one
    assert os.path.isfile(os.path.join(b, "emu", "runtime-0123456789abcdef.o"))
    assert total(b) == 4 * 200 * KB


def test_an_entry_used_recently_stays_even_if_older_than_the_newest(build):
    b, e = build
    fake(b, "emu/lab3-boundary/pitfall-0/demo", 10, 60)  # a command beside this one is building pitfall-0 now
    cache.used(e["pitfall-1"])  # and another reuses pitfall-1 as it is
    removed = cache.prune(b, 1, now=time.time())
    assert e["pitfall-0"] not in removed and e["pitfall-1"] not in removed
    assert os.path.isdir(e["pitfall-0"]) and os.path.isdir(e["pitfall-1"])
    assert e["pitfall-2"] in removed


def test_under_the_bound_or_without_one_nothing_goes(build):
    b, e = build
    assert cache.prune(b, 10 * 200 * KB, now=NOW) == []
    assert cache.prune(b, 0, now=NOW) == []
    assert all(os.path.isdir(p) for p in e.values())


def test_the_bound_comes_from_build_limit_mb(monkeypatch, tmp_path):
    monkeypatch.delenv("BUILD_LIMIT_MB", raising=False)
    assert cache.limit_bytes() == 0  # the course repository: its build/ holds the test suites' programs
    monkeypatch.setattr(paths, "ROOT", str(tmp_path))  # a handout: no tests/
    assert cache.limit_bytes() == cache.DEFAULT_LIMIT_MB * 1024 * 1024
    monkeypatch.undo()
    monkeypatch.setenv("BUILD_LIMIT_MB", "2.5")
    assert cache.limit_bytes() == int(2.5 * 1024 * 1024)
    monkeypatch.setenv("BUILD_LIMIT_MB", "0")
    assert cache.limit_bytes() == 0
    with open(os.path.join(paths.ROOT, "README.md"), encoding="utf-8") as f:  # the students' page says the same
        assert "Past %d MB the oldest go" % cache.DEFAULT_LIMIT_MB in " ".join(f.read().split())
    monkeypatch.setenv("BUILD_LIMIT_MB", "lots")
    with pytest.raises(SystemExit, match="BUILD_LIMIT_MB=lots is not a number"):
        cache.limit_bytes()

