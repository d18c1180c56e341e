"""The grader's catalogue (course/catalogue.py): the strict patch applier, the entries' .ini files, materialising the
kernels, and the README's generated tables. Nothing here builds a kernel: grading them is the self-test's job."""
import os
import re

import pytest

from course import catalogue, labs, paths, pitfalls
from course.catalogue import CatalogueError, apply_patch, unified_diff

BASE = "".join("line %d\n" % i for i in range(1, 21))  # line 1 .. line 20


def patch_of(*hunks, base="solutions/x/kernel.cu"):
    return "--- %s\n+++ grader/catalogue/lab9/x.cu\n" % base + "".join(hunks)


# ---------------------------------------------------------------------------------------------------------------
# The applier, on canned patches
# ---------------------------------------------------------------------------------------------------------------
def test_a_clean_patch_applies():
    patch = patch_of("@@ -2,3 +2,4 @@\n line 2\n-line 3\n+line three\n+line 3b\n line 4\n",
                     "@@ -19,2 +20,2 @@\n line 19\n-line 20\n+the end\n")
    got = apply_patch(patch, BASE, "x.patch", "solutions/x/kernel.cu").splitlines()
    assert got[:5] == ["line 1", "line 2", "line three", "line 3b", "line 4"]
    assert got[-2:] == ["line 19", "the end"] and len(got) == 21


def test_a_whole_file_from_dev_null():
    patch = patch_of("@@ -0,0 +1,2 @@\n+// a kernel\n+int x;\n", base="/dev/null")
    assert apply_patch(patch, "", "x.patch", "/dev/null") == "// a kernel\nint x;\n"


def test_one_line_ranges_and_an_insertion_at_the_top():
    patch = patch_of("@@ -0,0 +1 @@\n+// header\n", "@@ -5 +6 @@\n-line 5\n+line five\n")
    got = apply_patch(patch, BASE, "x.patch", "solutions/x/kernel.cu").splitlines()
    assert got[:2] == ["// header", "line 1"] and got[5] == "line five"


def test_a_hunk_one_line_off_is_refused_not_moved():
    """Offsets are refused: the hunk below fits two lines further down, but applying it there would move every line
    after it, and the expected words quote line numbers."""
    patch = patch_of("@@ -5,3 +5,3 @@\n line 7\n-line 8\n+line eight\n line 9\n")
    with pytest.raises(CatalogueError, match=r"x\.patch:4: hunk 1 \(@@ -5,3 \+5,3 @@\) does not apply: line 5 of "
                                             r"solutions/x/kernel\.cu is 'line 5', the patch expects 'line 7'"):
        apply_patch(patch, BASE, "x.patch", "solutions/x/kernel.cu")


def test_a_hunk_that_does_not_match_names_the_patch_and_the_line():
    patch = patch_of("@@ -2,3 +2,3 @@\n line 2\n-line 3 changed upstream\n+line three\n line 4\n")
    with pytest.raises(CatalogueError) as e:
        apply_patch(patch, BASE, "grader/catalogue/lab9/x.patch", "solutions/x/kernel.cu")
    assert str(e.value).startswith("grader/catalogue/lab9/x.patch:5: hunk 1")
    assert "line 3 of solutions/x/kernel.cu is 'line 3'" in str(e.value)


@pytest.mark.parametrize("patch, words", [
    ("", "not a unified diff"),
    ("+++ b\n--- a\n@@ -1 +1 @@\n-line 1\n+x\n", "not a unified diff"),
    (patch_of(base="solutions/y/kernel.cu") + "@@ -1 +1 @@\n-line 1\n+x\n", "the patch is from solutions/y/kernel.cu"),
    (patch_of(), "no hunk"),
    (patch_of("@@ -1,2 +1,2 @@\n line 1\n-line 2\n"), "ends after 2 of its 2 base lines and 1 of its 2 kernel lines"),
    (patch_of("@@ -1 +1 @@\n-line 1\n+x\n+y\n"), "expected a hunk header"),
    (patch_of("@@ -1 +1 @@\n-line 1\n+x\n\\ No newline at end of file\n"), "expected a hunk header"),
    (patch_of("@@ -1 +1 @@\n-line 1\n\\ No newline at end of file\n+x\n"), "end with a newline"),
    (patch_of("@@ -1 +1 @@\n*line 1\n+x\n"), "begins with ' ', '-' or '+'"),
    (patch_of("@@ -3 +3 @@\n-line 3\n+x\n", "@@ -2 +2 @@\n-line 2\n+y\n"), "which the hunk before it already covers"),
    (patch_of("@@ -30 +30 @@\n-line 30\n+x\n"), "which has only 20 lines"),
    (patch_of("@@ -2 +3 @@\n-line 2\n+x\n"), "says the kernel's lines start at 3, but they start at 2"),
    (patch_of("@@ -1 +1 @@\n-line 1\n+x"), "the patch does not end with a newline"),
])
def test_malformed_patches_are_errors(patch, words):
    with pytest.raises(CatalogueError, match="^x.patch:") as e:
        apply_patch(patch, BASE, "x.patch", "solutions/x/kernel.cu")
    assert words in str(e.value)


def test_a_blank_context_line_may_lose_its_space():
    base = "a\n\nb\n"
    patch = "--- base\n+++ new\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n"
    assert apply_patch(patch, base, "x.patch", "base") == "a\n\nc\n"


@pytest.mark.parametrize("new", [
    BASE.replace("line 10\n", "line ten\n"),
    BASE.replace("line 1\n", "// header\n// more\n", 1) + "line 21\n",
    "".join("line %d\n" % i for i in range(1, 21) if i % 4),
    "a whole new file\n",
    "",
])
def test_what_record_writes_applies_back(new):
    patch = unified_diff(BASE, new, "solutions/x/kernel.cu", "grader/catalogue/lab9/x.cu")
    assert apply_patch(patch, BASE, "x.patch", "solutions/x/kernel.cu") == new
    whole = unified_diff("", new or "x\n", "/dev/null", "x.cu")
    assert apply_patch(whole, "", "x.patch", "/dev/null") == (new or "x\n")


def test_the_diff_is_diff_u_s():
    patch = unified_diff(BASE, BASE.replace("line 10\n", "line ten\n"), "a", "b")
    assert patch == ("--- a\n+++ b\n@@ -7,7 +7,7 @@\n line 7\n line 8\n line 9\n-line 10\n+line ten\n line 11\n"
                     " line 12\n line 13\n")


# ---------------------------------------------------------------------------------------------------------------
# Entries in a catalogue of our own (catalogue.FOLDER and OUT moved to a temporary folder)
# ---------------------------------------------------------------------------------------------------------------
GOOD_INI = """[kernel]
lab = lab3
base = solutions/lab3-boundary/kernel.cu
verdict = wrong
description = the second barrier is missing.
bug = no second `__syncthreads()`

[expect]
fails = correctness, traffic, memory safety
words =
    race on shared memory
findings = race
must get = race
"""


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setattr(catalogue, "FOLDER", str(tmp_path / "catalogue"))
    monkeypatch.setattr(catalogue, "OUT", str(tmp_path / "build"))
    (tmp_path / "catalogue" / "lab3").mkdir(parents=True)
    return tmp_path / "catalogue"


def write_entry(folder, name, ini=GOOD_INI, header="// Grader catalogue, lab 3, known WRONG: a test.\n"):
    (folder / (name + ".ini")).write_text(ini)
    base = open(os.path.join(catalogue.paths.ROOT, "solutions", "lab3-boundary", "kernel.cu")).read()
    patch = unified_diff(base, header + base, "solutions/lab3-boundary/kernel.cu", "x")
    (folder / (name + ".patch")).write_text(patch)
    return header + base


def test_materialise_writes_once_and_again_when_the_patch_changes(folder):
    want = write_entry(folder, "lab3/demo")
    entry = catalogue.find("lab3/demo")
    path = catalogue.materialise(entry)
    assert path == os.path.join(catalogue.OUT, "lab3", "demo.cu") and open(path).read() == want
    os.utime(path, (1, 1))
    catalogue.materialise(entry)
    assert os.path.getmtime(path) == 1  # unchanged content: not rewritten
    want = write_entry(folder, "lab3/demo", header="// another header\n")
    catalogue.materialise(entry)
    assert open(path).read() == want and os.path.getmtime(path) > 1


def test_record_writes_the_patch_from_the_edited_kernel(folder):
    write_entry(folder, "lab3/demo")
    entry = catalogue.find("lab3/demo")
    path = catalogue.materialise(entry)
    edited = open(path).read().replace("__syncthreads();  // every thread is done", "// every thread is done")
    with open(path, "w") as f:
        f.write(edited)
    catalogue.record(entry)
    os.remove(path)
    assert open(catalogue.materialise(entry)).read() == edited
    assert "-        __syncthreads();  // every thread is done" in (folder / "lab3" / "demo.patch").read_text()


def test_a_patch_without_its_ini_is_an_error(folder):
    write_entry(folder, "lab3/demo")
    (folder / "lab3" / "demo.ini").unlink()
    with pytest.raises(CatalogueError, match=r"lab3/demo.patch has no demo.ini beside it"):
        catalogue.entries()


def test_the_error_names_the_kernel_whose_patch_does_not_apply(folder):
    write_entry(folder, "lab3/demo")
    patch = folder / "lab3" / "demo.patch"
    patch.write_text(patch.read_text().replace("\n // Lab 3 reference solution", "\n // Lab 3 solution"))
    with pytest.raises(CatalogueError, match=r"lab3/demo\.patch:\d+: hunk 1 .* does not apply"):
        catalogue.materialise(catalogue.find("lab3/demo"))


@pytest.mark.parametrize("change, words", [
    (("lab = lab3", "lab = lab4"), "lab = lab4, but the entry is in lab3/"),
    (("lab = lab3", "lab = lab99"), "no lab 'lab99'"),
    (("verdict = wrong", "verdict = broken"), "verdict = broken: one of wrong, slow, right"),
    (("verdict = wrong", "verdict = right"), "a right kernel fails nothing"),
    (("fails = correctness, traffic, memory safety", "fails = speed"), "fails = speed: each one of"),
    (("findings = race", "findings = racy"), "findings = racy: each one of the emulator's kinds"),
    (("base = solutions/lab3-boundary/kernel.cu", "base = ../etc/passwd"), "base = ../etc/passwd"),
    (("must get = race", "must get ="), "[expect] needs must get"),
    (("bug = no second `__syncthreads()`\n", ""), "[kernel] needs bug"),
    (("must get = race", "must get = race\nmust also = x"), "[expect] has no key must also"),
    (("[expect]", "[expected]"), "unknown section [expected]"),
    (("    race on shared memory\n", ""), "no words say what the failure output must contain"),
])
def test_a_malformed_ini_is_an_error_naming_it(folder, change, words):
    write_entry(folder, "lab3/demo", ini=GOOD_INI.replace(*change))
    with pytest.raises(CatalogueError) as e:
        catalogue.find("lab3/demo")
    assert str(e.value).startswith("grader/catalogue/lab3/demo.ini: ") and words in str(e.value)


def test_a_right_kernel_has_no_failure_words(folder):
    ini = GOOD_INI.replace("verdict = wrong", "verdict = right").replace("fails = correctness, traffic, memory safety",
                                                                         "fails =")
    write_entry(folder, "lab3/demo", ini=ini)
    with pytest.raises(CatalogueError, match="no words, no findings"):
        catalogue.find("lab3/demo")


def test_the_readme_keeps_what_lies_outside_its_marks(folder):
    write_entry(folder, "lab3/demo")
    text = "# intro\n\n%s\nold tables\n%s\n\n## notes\n" % (catalogue.BEGIN, catalogue.END)
    new = catalogue.readme(text, catalogue.entries())
    assert new.startswith("# intro\n\n" + catalogue.BEGIN) and new.endswith(catalogue.END + "\n\n## notes\n")
    assert "old tables" not in new and "| `demo.cu` | wrong | `solutions/lab3-boundary` |" in new
    with pytest.raises(CatalogueError, match="between one line"):
        catalogue.readme("# no marks\n", [])


# ---------------------------------------------------------------------------------------------------------------
# The course's own catalogue
# ---------------------------------------------------------------------------------------------------------------
def test_every_entry_reads_and_its_patch_applies():
    found = catalogue.entries()
    assert len(found) >= 40
    for entry in found:
        text = catalogue.text(entry)
        assert text.startswith("//") and text.endswith("\n"), entry.name
        first = text.splitlines()[0]
        assert ("known WRONG" in first) == entry.pitfall, "%s: its header and its verdict disagree" % entry.name
        assert catalogue.header_description(text) == entry.description, (
            "%s: the .ini's description is not the header comment's" % entry.name)


def test_every_check_has_a_kernel_that_fails_it():
    found = catalogue.entries()
    for suite in labs.SUITES:
        assert any(suite in e.fails for e in found), suite
    assert {"race", "out-of-bounds", "barrier", "uninitialised", "misaligned"} <= {k for e in found for k in e.findings}
    assert any(e.verdict == "right" for e in found)


def test_the_committed_readme_is_the_generated_one():
    with open(catalogue.README, encoding="utf-8") as f:
        committed = f.read()
    assert committed == catalogue.readme(committed, catalogue.entries()), (
        "grader/catalogue/README.md is out of date: python3 -m course.catalogue readme")


def test_pitfalls_come_from_the_catalogue():
    found = pitfalls.available("lab3-boundary")
    pit = found["missing_second_barrier"]
    entry = catalogue.find("lab3/missing_second_barrier")
    assert pit.shown_as == "grader/catalogue/lab3/missing_second_barrier.cu"
    assert pit.description == entry.description and pit.description.startswith("the barrier after the dot product")
    assert pit.source == entry.path and open(pit.source).read() == catalogue.text(entry)
    assert "tile32" not in found  # a right variant is no pitfall


def test_the_finding_kinds_are_the_emulators():
    """An expectation can only name a kind the emulator reports: the kinds kind_name() in common/emu/report.cpp
    returns, one spelling for both."""
    with open(os.path.join(paths.ROOT, "common", "emu", "report.cpp"), encoding="utf-8") as f:
        source = f.read()
    body = source[source.index("const char* kind_name(DiagKind k)"):]
    body = body[:body.index("\n}\n")]
    assert set(re.findall(r'return "([a-z-]+)";', body)) == set(catalogue.FINDING_KINDS)
