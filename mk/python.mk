# The course package's unit tests (tests/course), with Debian's pytest; its settings are in tests/pytest.ini.
#   make test-python           run them, and class grading's unit tests (tests/grader/test_submissions.py)
#   make test-lint             pyflakes over every Python file of the course (unused names, undefined names)

PYTEST ?= pytest-3

PYFLAKES ?= pyflakes3
# every Python source, those without a .py suffix (the command-line scripts) included
PYTHON_SOURCES := course grader tools tests common/emu/cudaemu_cc common/emu/emucc

.PHONY: test-python test-lint

TESTS += test-lint test-python

test-lint:
	@$(PYFLAKES) $(PYTHON_SOURCES) && echo "test-lint: pyflakes finds nothing in the course's Python"

test-python:
	@$(PYTEST) -q tests/course tests/grader/test_submissions.py
