# The course package's unit tests (tests/course), with Debian's pytest; its settings are in pyproject.toml.
#   make test-python           run them

PYTEST ?= pytest-3

.PHONY: test-python

TESTS += test-python

test-python:
	@$(PYTEST) -q tests/course
