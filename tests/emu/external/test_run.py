#!/usr/bin/env python3
"""test_run.py — run.py's own checks, on canned compiler messages and stand-in programs (no CUDA, no GPU):
how a failed build is classified, which output lines are compared, and each emulator verdict."""
import os
import stat
import tempfile
import unittest

import run  # beside this file: pytest puts the test's folder on the path


def program(name, ignore="", origin_ignore=""):
    return run.Program(name, {"origin": "o", "path": "p", "category": "c", "ignore": ignore},
                       {"ignore": origin_ignore})


class MissingFeatures(unittest.TestCase):
    def test_emucc_refusals_are_named(self):
        log = ('x.cu:3: error: dynamic shared memory (extern __shared__) is not supported by the CPU emulator; ...\n'
               'cuda_runtime.h:222:1: error: static_assert failed due to requirement \'sizeof...(Args) > 1000000\' '
               '"__shfl_down_sync is not supported by the CPU emulator: no warp-synchronous code"\n'
               'x.cu:9:1: error: __constant__ memory is not supported by the CPU emulator (docs/emulator.md)\n')
        self.assertEqual(run.missing_features(log), ["extern __shared__", "__shfl_down_sync", "__constant__"])

    def test_missing_headers_and_cuda_apis_are_named(self):
        log = ("a.cu:1:10: fatal error: 'cooperative_groups.h' file not found\n"
               "a.cu:5:3: error: use of undeclared identifier 'cudaFreeHost'; did you mean 'cudaFree'?\n"
               "a.cu:6:3: error: no member named 'asyncEngineCount' in 'cudaDeviceProp'\n"
               "a.cu:7:3: error: use of undeclared identifier 'cudaFreeHost'\n"
               "a.cu:8:3: error: use of undeclared identifier 'atomicSub'\n"
               "a.cu:9:3: error: unknown type name 'uint4'\n")
        self.assertEqual(run.missing_features(log), ["<cooperative_groups.h>", "cudaFreeHost",
                                                     "cudaDeviceProp::asyncEngineCount", "2 more"])

    def test_other_errors_name_no_feature(self):
        log = ("a.cu:130:5: error: use of undeclared identifier 'print_NVCC_min_spec'\n"
               "a.cu:77:26: error: expected unqualified-id\n")
        self.assertEqual(run.missing_features(log), [])
        self.assertEqual(run.first_error(log), "a.cu:130:5: error: use of undeclared identifier 'print_NVCC_min_spec'")


    def test_a_link_failure_shows_the_linker_message(self):
        log = ("`__sancov_bools' referenced in section `.text.initScan' of a.o: defined in discarded section\n"
               "clang: error: linker command failed with exit code 1 (use -v to see invocation)\n")
        self.assertEqual(run.missing_features(log), [])
        self.assertTrue(run.first_error(log).startswith("link: `__sancov_bools' referenced"), run.first_error(log))


class Comparison(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.saved = run.EXPECTED
        run.EXPECTED = self.tmp

    def tearDown(self):
        run.EXPECTED = self.saved

    def stand_in(self, name, stdout, status):
        """An executable that prints `stdout` and exits with `status`, as a built program would."""
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\nprintf '%s'\nexit %d\n" % (stdout.replace("%", "%%").replace("\n", "\\n"), status))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def verdict(self, p, stdout, status, expected):
        with open(os.path.join(self.tmp, p.name + ".out"), "w") as f:
            f.write(expected)
        exe = self.stand_in(p.name, stdout, status)
        return run.check_emu(p, (exe, 0, "", 0.0), timeout=30)

    def test_identical_output_passes_and_ignored_lines_do_not_count(self):
        p = program("a", ignore=r"^time", origin_ignore=r"GB/s")
        r = self.verdict(p, "result 42\ntime 1.5 ms\n3 GB/s\nTest passed\n", 0,
                         "result 42\ntime 0.01 ms\n900 GB/s\nTest passed\nexit: 0\n")
        self.assertEqual(r["verdict"], "pass", r)

    def test_a_different_result_line_fails_and_is_shown(self):
        p = program("b", ignore=r"^time")
        r = self.verdict(p, "L1 norm: 1.7E-07\nTest passed\n", 0, "L1 norm: 1.8E-07\nTest passed\nexit: 0\n")
        self.assertEqual(r["verdict"], "fail")
        self.assertIn("line 1", r["detail"])

    def test_a_different_exit_status_fails(self):
        p = program("c")
        r = self.verdict(p, "Test passed\n", 1, "Test passed\nexit: 0\n")
        self.assertEqual((r["verdict"], r["detail"]), ("fail", "exit status 1, the H100's 0"))

    def test_a_refused_build_is_unsupported_and_names_the_feature(self):
        p = program("d")
        log = "d.cu:1:10: fatal error: 'cuda_fp16.h' file not found\n"
        r = run.check_emu(p, ("/nonexistent", 1, log, 0.0), timeout=30)
        self.assertEqual((r["verdict"], r["detail"]), ("unsupported", "<cuda_fp16.h>"))

    def test_any_other_build_failure_fails(self):
        p = program("e")
        r = run.check_emu(p, ("/nonexistent", 1, "e.cu:77:26: error: expected unqualified-id\n", 0.0), timeout=30)
        self.assertEqual(r["verdict"], "fail")
        self.assertTrue(r["detail"].startswith("build: e.cu:77:26"), r)


if __name__ == "__main__":
    unittest.main(verbosity=1)
