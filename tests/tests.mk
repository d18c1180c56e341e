# tests/tests.mk — the course's own tests. Instructor-only, like the rest of tests/ (the student handout has none of
# it). Included by the top-level Makefile.
#
#   make test                 every suite below, side by side on the cores (TEST_JOBS=n; default one per core),
#                             after building once what several of them use; a table of their times at the end
#   make test-list            the suites' names
#   make test-SUITE           one suite on its own: test-emulator test-emucc test-nvcc test-format test-lint
#                             test-python test-lessons test-perf test-grading test-slurm test-grader
#                             test-external-runner test-external-in-suite
#   make format               rewrite the C++ and CUDA sources in .clang-format's layout
#   make bench-emu            the emulator's speed on the lab 3 reference, next to Numba's CUDA simulator

PYTEST ?= pytest-3
PYFLAKES ?= pyflakes3
CLANG_FORMAT ?= clang-format
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: test test-list test-build test-handout-build format test-format test-python test-lint test-lessons test-perf test-grader test-nvcc bench-emu

# Each suite is independent of the others; what several of them build (the emulator's runtime, its test programs,
# the catalogue's kernels) is built first, once, on every core. tests/run_suites.py runs them and says how long
# each took.
test: test-build
	@$(PYTHON) tests/run_suites.py --jobs $(TEST_JOBS) $(TESTS)

# the suites make test runs, one per line
test-list:
	@printf '%s\n' $(TESTS)

test-build:
	@$(PYTHON) -m course.catalogue materialise >/dev/null
	@$(MAKE) --no-print-directory -s -j$(TEST_JOBS) test-emulator-build test-handout-build

# the handout, as tests/grader/conftest.py builds it for the suites that check it (under its lock, with its stamp)
test-handout-build:
	@$(PYTEST) -q tests/grader/test_handout_build.py

# -- layout: one layout for the C++ and CUDA sources, written in .clang-format (Google's style, 4-space indentation,
# 120 columns). Folders with a .clang-format of their own that disables it are left as they are: the emulator's test
# programs are quoted by line, and the external corpus is others' code. (The catalogue holds patches, not sources.)
FORMAT_SOURCES = $(shell find common labs solutions grader tools tests -type f \( -name '*.cpp' -o -name '*.cu' \
                   -o -name '*.cuh' -o -name '*.h' \) -not -path '*/build/*' | sort)

format:
	@$(CLANG_FORMAT) -i $(FORMAT_SOURCES)

test-format:
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "test-format: $(CLANG_FORMAT) not found (tools/install-deps all)" >&2; exit 1; }
	@$(CLANG_FORMAT) --dry-run -Werror $(FORMAT_SOURCES) 2>&1 | head -20; \
	  $(CLANG_FORMAT) --dry-run -Werror $(FORMAT_SOURCES) >/dev/null 2>&1 && \
	  echo "test-format: $(words $(FORMAT_SOURCES)) sources are laid out as .clang-format says"

# -- Python: the course package's unit tests (tests/course) and class grading's (tests/grader/test_submissions.py),
# with Debian's pytest (settings in tests/pytest.ini); pyflakes over every Python file of the course, those without
# a .py suffix (the command-line scripts) included.
PYTHON_SOURCES := course grader tools tests common/emu/cudaemu_cc common/emu/emucc

test-lint:
	@$(PYFLAKES) $(PYTHON_SOURCES) && echo "test-lint: pyflakes finds nothing in the course's Python"

test-python:
	@$(PYTEST) -q tests/course tests/grader/test_submissions.py

# -- the lesson tools (tools/lessons), checked against the emulator's counts and the lessons' numbers
test-lessons:
	@$(PYTEST) -q tests/lessons

# -- the GPU tools' CSV, tables, roofline maths and SVG plots, on canned data (no GPU); the plots are rendered by
# headless Chromium
test-perf:
	@$(PYTEST) -q tests/perf

# -- the grader's self-test (grader/selftest.py) under pytest; `python3 -m grader.selftest` prints its checks as a
# table
test-grader:
	@$(PYTEST) -q tests/grader/test_selftest.py

# -- every skeleton, solution and catalogue kernel must compile with nvcc for sm_90 without warnings
test-nvcc:
	@$(PYTEST) -q tests/grader/test_nvcc.py

TESTS += test-emulator test-nvcc test-format test-lint test-python test-lessons test-perf test-grader

bench-emu:
	@$(PYTHON) tools/bench-emu/run.py
