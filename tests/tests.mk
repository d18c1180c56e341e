# tests/tests.mk — the course's own tests. Instructor-only, like the rest of tests/ (the student handout has none of
# it). Included by the top-level Makefile.
#
#   make test                 the suites below but those of TEST_ALL_ONLY, side by side on the cores (TEST_JOBS=n;
#                             default one per core), after building once what several of them use; a table of their
#                             times at the end (about 15 minutes on two cores)
#   make test-all             every suite (what CI runs): make test's and the long ones, TEST_ALL_ONLY
#   make test-list            every suite's name
#   make test-SUITE           one suite on its own: test-emulator test-emucc test-nvcc test-format test-lint
#                             test-python test-lessons test-perf test-grading test-slurm test-readme
#                             test-grader test-external-runner test-external-in-suite
#   make format               rewrite the C++ and CUDA sources in .clang-format's layout
#   make bench-emu            the emulator's speed on the lab 3 reference, next to Numba's CUDA simulator

PYTEST ?= pytest-3
PYFLAKES ?= pyflakes3
CLANG_FORMAT ?= clang-format
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: test test-all test-list test-build format test-format test-python test-lint test-lessons test-perf test-grader test-nvcc bench-emu

# The long suites, left to make test-all: class grading end to end (test-grading), the self-test of the whole
# catalogue (test-grader), every kernel through nvcc (test-nvcc), every README command in a fresh copy
# (test-readme), a Slurm cluster (test-slurm) and the external programs (test-external-in-suite).
TEST_ALL_ONLY = test-grading test-grader test-nvcc test-readme test-slurm test-external-in-suite

# The suites reuse, side by side, programs another built minutes before: build/ is not pruned while they run
# (course/cache.py prunes a student's past BUILD_LIMIT_MB; tests/course/test_cache.py tests it on a build/ of its own)
test: export BUILD_LIMIT_MB = 0
test-%: export BUILD_LIMIT_MB = 0

# Each suite is independent of the others; what several of them use (the emulator's runtime, the catalogue's
# kernels) is built first, once; the rest each suite builds as it goes, side by side with the others, every
# shared output written under a temporary name and renamed into place (the handout under a lock: conftest.py).
# tests/run_suites.py runs them and says how long each took.
test: test-build
	@echo "make test: leaves $(TEST_ALL_ONLY) to make test-all"
	@$(PYTHON) tests/run_suites.py --jobs $(TEST_JOBS) $(filter-out $(TEST_ALL_ONLY),$(TESTS))

test-all: test-build
	@$(PYTHON) tests/run_suites.py --jobs $(TEST_JOBS) $(TESTS)

# every suite (make test-all's), one per line
test-list:
	@printf '%s\n' $(TESTS)

test-build:
	@$(PYTHON) -m course.catalogue materialise >/dev/null
	@$(EMUCC) --print-runtime-object >/dev/null

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
