"""emucc's command line (cudaemu_cc/cli.py): what each option sets, and that a wrong command line gets one clear
line and exit status 1, before any compiler runs."""
import os
import subprocess
import sys

import pytest

from cudaemu_cc.cli import main, parse_args
from cudaemu_cc.errors import Error

EMUCC = os.path.join(os.path.dirname(__file__), "..", "..", "common", "emu", "emucc")


@pytest.fixture
def sources(tmp_path, monkeypatch):
    """An empty a.cu and b.cpp in the working directory (parse_args checks that sources exist)."""
    monkeypatch.chdir(tmp_path)
    for name in ("a.cu", "b.cpp"):
        (tmp_path / name).write_text("")
    return tmp_path


def test_options_set_what_they_name(sources):
    o = parse_args(["-c", "a.cu", "-o", "a.o", "-I", "inc", "-Iinc2", "-DN=4", "-U", "M", "-O3", "-g", "-std=c++20",
                    "-Wall", "-w", "--source-name=labs/k.cu", "--emit-ir=a.ll", "--no-checks"])
    assert o.sources == ["a.cu"] and o.out == "a.o" and o.compile_only
    assert o.user == ["-I", "inc", "-I", "inc2", "-D", "N=4", "-U", "M", "-Wall", "-w"]
    assert (o.opt_level, o.debug, o.std) == ("-O3", "-g", "-std=c++20")
    assert (o.source_name, o.emit_ir, o.checks) == ("labs/k.cu", "a.ll", False)


def test_defaults(sources):
    o = parse_args(["a.cu"])
    assert (o.out, o.compile_only, o.opt_level, o.debug, o.std, o.checks) == \
        (None, False, "-O2", "-gline-tables-only", "-std=c++17", True)


def test_link_options_and_inputs(sources):
    o = parse_args(["-oprog", "a.cu", "b.cpp", "lib.a", "x.o", "-L", "dir", "-lm", "-l", "pthread", "-Wl,--as-needed"])
    assert o.out == "prog"
    assert o.sources == ["a.cu", "b.cpp"] and o.objects == ["lib.a", "x.o"]
    assert o.link_flags == ["-L", "dir", "-lm", "-lpthread", "-Wl,--as-needed"]


def test_nvcc_only_options_are_ignored_with_their_values(sources):
    o = parse_args(["-arch", "sm_90", "-arch=sm_80", "-gencode=arch=compute_90,code=sm_90", "-Xcompiler", "-fopenmp",
                    "-Xcompiler=-Wextra", "--expt-relaxed-constexpr", "--use_fast_math", "a.cu"])
    assert o.sources == ["a.cu"] and o.user == [] and o.link_flags == []


def test_lineinfo_is_no_library(sources):
    # nvcc's -lineinfo starts like `-l ineinfo`, a library the link would not find
    o = parse_args(["-lineinfo", "a.cu"])
    assert o.sources == ["a.cu"] and o.link_flags == []


def test_print_runtime_object_needs_no_input():
    assert parse_args(["--print-runtime-object"]).print_runtime_object


@pytest.mark.parametrize("argv, message", [
    (["--bogus", "a.cu"], "unsupported option '--bogus' (see common/emu/emucc --help)"),
    (["a.cu", "-o"], "-o needs a value"),
    (["a.cu", "-I"], "-I needs a value"),
    (["-L"], "-L needs a value"),
    (["missing.cu"], "no such file: missing.cu"),
    (["notes.txt"], "don't know what to do with 'notes.txt' (expected .cu, .cpp, .o or .a)"),
    ([], "no input files"),
    (["-O2"], "no input files"),
    (["-c", "-o", "x.o", "a.cu", "b.cpp"], "-c with -o takes one source file"),
    (["--print-runtime-object", "a.cu"], "--print-runtime-object takes no input files"),
    (["--print-libdevice", "a.cu"], "--print-libdevice takes no input files"),
])
def test_wrong_command_line_is_one_error(sources, argv, message, capsys):
    with pytest.raises(Error) as wrong:
        parse_args(argv)
    assert str(wrong.value) == message
    if argv:  # main without arguments prints the usage instead
        assert main(argv) == 1
        out, err = capsys.readouterr()
        assert (out, err) == ("", "emucc: error: %s\n" % message)


@pytest.mark.parametrize("argv", [["--bogus"], ["-o"]])
def test_script_says_what_is_wrong_in_one_line_and_exits_1(argv):
    run = subprocess.run([sys.executable, EMUCC] + argv, capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stdout == ""
    assert len(run.stderr.splitlines()) == 1 and run.stderr.startswith("emucc: error: ")


def test_help_lists_the_options(capsys):
    assert main(["--help"]) == 0
    usage = capsys.readouterr().out
    for option in ("--source-name=", "--emit-ir=", "--no-checks", "--print-runtime-object"):
        assert option in usage
