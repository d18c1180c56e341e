"""The Lab model: finding labs by any of their names, lab.ini, and lab.h's facts as the compiler gives them."""
import os
import subprocess

import pytest

from course import labs, paths


def test_every_name_of_a_lab_finds_it():
    for lab in labs.all_labs():
        assert labs.find(lab.folder) == labs.find(lab.short) == labs.find(str(lab.number)) == labs.find(lab.number) == lab


@pytest.mark.parametrize("name", ["0", "lab99", "lab3-other", "", "../labs/lab3-boundary"])
def test_an_unknown_lab_is_refused_with_the_list(name):
    with pytest.raises(labs.LabError, match="one of: lab1, lab2"):
        labs.find(name)


def test_labs_are_numbered_in_order():
    numbers = [lab.number for lab in labs.all_labs()]
    assert numbers == sorted(numbers) and numbers[0] == 1


def test_constants_come_from_the_compiler():
    """lab.h's values as evaluated by C++: lab 2's SIZE_MULTIPLE is written as TILE_WIDTH, not a number."""
    lab2 = labs.find(2)
    assert lab2.constants == {"TILE_WIDTH": 16, "SIZE_MULTIPLE": 16, "INPUT_MANTISSA_BITS": 23}
    assert lab2.size_multiple == 16 and labs.find(3).size_multiple == 1
    assert labs.find(6).constants["STAGES"] == 2
    assert labs.find(1).constants == {"INPUT_MANTISSA_BITS": 23} and labs.find(1).block_tile is None
    assert labs.find(7).constants["INPUT_MANTISSA_BITS"] == 10  # TF32 on tensor cores
    assert labs.find(5).block_tile == (128, 128)


def test_valid_shape_is_lab_h_s_function():
    lab2, lab3 = labs.find(2), labs.find(3)
    assert lab2.valid_shapes([(16, 32, 48), (16, 17, 16), (0, 16, 16)]) == [True, False, False]
    assert lab3.valid_shapes([(1, 1, 1), (17, 5, 3), (0, 1, 1)]) == [True, True, False]
    assert lab3.valid_shape(100, 75, 130)


def test_the_readme_lists_every_lab_as_its_folder_describes_it():
    """The README's table of labs is generated (python3 -m course info --readme-table): a new lab's folder is all it
    takes, and the table follows its lab.ini and lab.h."""
    with open(os.path.join(paths.ROOT, "README.md"), encoding="utf-8") as f:
        assert labs.readme_table() in f.read()


def test_the_readme_and_each_lesson_say_what_the_grade_checks_as_the_tests_name_it():
    """What each lab's grade checks is its tests.cpp's list (python3 -m course info --grade-checks), in the README
    and in the lab's lesson: a test added, renamed or removed must show there too."""
    with open(os.path.join(paths.ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    for lab in labs.all_labs():
        with open(lab.lesson, encoding="utf-8") as f:
            lesson = f.read()
        checks = labs.grade_checks(lab)
        assert "**Lab %d.** %s" % (lab.number, checks) in readme, "README.md: lab %d's grade checks" % lab.number
        assert checks in lesson, "%s: its grade checks" % lab.lesson


def test_test_names_read_every_case_of_each_tests_cpp():
    for lab in labs.all_labs():
        with open(os.path.join(lab.path, "tests.cpp"), encoding="utf-8") as f:
            text = f.read()
        names = labs.test_names(lab)
        assert len(names) == text.count("TEST_CASE(") and all(suite in labs.SUITES for suite, _ in names), lab.folder
    lab5 = labs.find("lab5-register-tiling")
    # a name split over two string literals is joined, as doctest joins it
    assert ("traffic", "register reuse: at most (TM+TN)/(TM*TN) shared-memory loads per multiply-add (55x48 * "
            "48x43, 130x36 * 36x260)") in labs.test_names(lab5)


def test_the_tile_comes_from_each_labs_contract():
    assert labs.find("lab1-naive").block_tile is None
    assert labs.find("lab3-boundary").block_tile == (16, 16)


def test_the_formula_matches_the_lessons():
    # 55×48·48×43 with 16×16 tiles: the lab 3 traffic test's bound is 64,704 bytes of A and B
    total, _ = labs.traffic_bytes((16, 16), 55, 43, 48)
    assert total - 4 * 55 * 43 == 64704
    naive, text = labs.traffic_bytes(None, 55, 43, 48)
    assert naive - 4 * 55 * 43 == 908160
    assert text == "2·M·N·K·4 + M·N·4"


def test_traffic_formula():
    # a 16×16 tile on 100×130·130×75: A read ⌈75/16⌉ = 5 times, B ⌈100/16⌉ = 7 times, C written once
    assert labs.find(3).traffic_bytes(100, 75, 130)[0] == 4 * (100 * 130 * 5 + 130 * 75 * 7) + 4 * 100 * 75
    assert labs.find(1).traffic_bytes(4, 5, 6)[0] == 4 * 2 * 4 * 5 * 6 + 4 * 4 * 5


def write_lab(tmp_path, ini):
    folder = tmp_path / "lab9-test"
    folder.mkdir()
    (folder / "lab.h").write_text("constexpr int X = 2 * 3;\nconstexpr bool valid_shape(int, int, int) { return true; }\n")
    (folder / "lab.ini").write_text(ini)
    return folder


GOOD = """[lab]
title = a test
idea = what it teaches
demo = 8 1 2
[points]
correctness = 50
traffic = 30
memory safety = 20
[hidden]
max size = 40
"""


def test_a_manifest_is_read(tmp_path):
    m = labs.read_manifest(str(write_lab(tmp_path, GOOD) / "lab.ini"))
    assert (m.title, m.demo_args, m.demo_program, m.hidden_max_size) == ("a test", ("8", "1", "2"), "demo", 40)
    assert m.points == {"correctness": 50, "traffic": 30, "memory safety": 20}


@pytest.mark.parametrize("bad, why", [
    (GOOD.replace("demo = 8 1 2", "demo = 8 1"), "demo must be three whole numbers"),
    (GOOD.replace("traffic = 30", "trafic = 30"), "traffic"),
    (GOOD.replace("[hidden]\nmax size = 40\n", ""), "hidden"),
    (GOOD.replace("max size = 40", "max size = forty"), "forty"),
    ("not an ini file", "lab.ini"),
])
def test_a_bad_manifest_says_what_is_wrong(tmp_path, bad, why):
    with pytest.raises(labs.LabError, match=why):
        labs.read_manifest(str(write_lab(tmp_path, bad) / "lab.ini"))


def test_a_lab_h_that_does_not_compile_is_named(tmp_path):
    folder = write_lab(tmp_path, GOOD)
    (folder / "lab.h").write_text("constexpr int X = ;\n")
    with pytest.raises(labs.LabError, match="does not compile"):
        labs.probe(str(folder / "lab.h"))


def test_the_probe_reads_any_lab_h(tmp_path):
    folder = write_lab(tmp_path, GOOD)
    p = labs.probe(str(folder / "lab.h"))
    assert p.constants == {"X": 6} and p.valid(((1, 2, 3),)) == [True]


def test_every_demo_and_every_hidden_shape_is_one_the_lab_takes():
    """The demo's WIDTH (lab.ini) and the sizes class grading draws (multiples of SIZE_MULTIPLE, up to the hidden
    tests' max size) pass lab.h's valid_shape, which demo.cpp and hidden_run.cpp also enforce."""
    import random

    from grader import classgrade
    rng = random.Random(7)
    for lab in labs.all_labs():
        width = int(lab.demo_args[0])
        assert lab.valid_shape(width, width, width), lab
        shapes = [p[:3] for _ in range(20) for p in classgrade.hidden_problems(lab.folder, rng)]
        assert all(max(s) <= lab.hidden_max_size for s in shapes)
        assert all(lab.valid_shapes([(M, N, K) for M, N, K in shapes])), lab


def test_the_traffic_formula_is_the_harness_s(tmp_path):
    """One formula in C++ (block_tile_floats in common/lab_tests.h, the bound the labs' traffic tests allow) and one
    in Python (labs.block_tile_floats, what the tools print): compiled and compared on edge cases."""
    shapes = [(1, 1, 1, 16, 16), (16, 16, 16, 16, 16), (17, 15, 33, 16, 16), (100, 75, 130, 64, 64),
              (130, 260, 36, 128, 128), (4096, 4096, 1023, 128, 256), (1, 1000, 7, 128, 128), (50000, 50000, 9, 8, 8)]
    calls = "".join("    p.M = %d, p.N = %d, p.K = %d;\n"
                    '    std::printf("%%llu\\n", (unsigned long long)block_tile_floats(p, %d, %d));\n' % s for s in shapes)
    source = tmp_path / "formula.cpp"
    source.write_text('#include <cstdio>\n#include "lab_tests.h"\nint main() {\n    Problem p;\n%s}\n' % calls)
    exe = tmp_path / "formula"
    flags = ["-std=c++17", "-DDOCTEST_CONFIG_DISABLE", "-I", os.path.join(paths.ROOT, "common"), "-I", labs.find(3).path]
    build = subprocess.run(labs.probe_compiler() + flags + [str(source), "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    got = [int(v) for v in subprocess.run([str(exe)], capture_output=True, text=True).stdout.split()]
    assert got == [labs.block_tile_floats(M, N, K, bm, bn) for M, N, K, bm, bn in shapes]
