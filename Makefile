# CUDA matrix multiplication labs: from the naive kernel to a warp-tiled SGEMM.
#
#   make lab1 | lab2 | lab3 ... build your labs/<lab>/kernel.cu, run its tests, then a short demo
#        KERNEL=path/to/kernel.cu   test another file instead
#   make pitfall LAB=3 NAME=missing_second_barrier   a known-wrong kernel through lab 3's tests: its feedback
#   make grade                  score every lab in labs/   (SUBMISSION=dir to score a student's folder)
#   make test                   the project's own tests (emulator, harness, grader)
#   make bench-emu              emulator speed, next to Numba's CUDA simulator
#   BACKEND=gpu|emu             where kernels run; default: the GPU if one is usable, else the CPU emulator
#
# Build outputs go to build/. `make help` lists every target, those of mk/*.mk included.

PYTHON  ?= python3
EMUCC   := common/emu/emucc
LABTOOL := $(PYTHON) -m course
BACKEND ?=
backend_flag = $(if $(BACKEND),--backend $(BACKEND))

# one target per folder labs/labN-topic
LAB_TARGETS := $(sort $(foreach d,$(wildcard labs/lab*-*/lab.h),$(firstword $(subst -, ,$(notdir $(patsubst %/,%,$(dir $(d))))))))

.PHONY: $(LAB_TARGETS) help pitfall grade test test-emulator test-grader test-nvcc bench-emu clean

$(LAB_TARGETS):
	@$(LABTOOL) lab $@ $(if $(KERNEL),--kernel $(KERNEL)) $(backend_flag)

pitfall:
	@$(LABTOOL) pitfall $(if $(LAB),--lab $(LAB)) $(if $(NAME),--name $(NAME))

grade:
	@$(LABTOOL) grade $(if $(SUBMISSION),--submission $(SUBMISSION)) $(backend_flag)

# Further targets live in mk/, one file per topic (GPU measurements, lesson tools, Python tests), and with what they
# belong to where that is instructor-only: class grading in grader/grading.mk, the emulator's tests in
# tests/emu/Makefile.inc, the external programs in tests/emu/external/external.mk (the student handout has none of
# them). Each adds its tests to TESTS, before `test` reads it.
TESTS :=
include $(wildcard mk/*.mk grader/*.mk tests/emu/Makefile.inc tests/emu/external/*.mk)
.DEFAULT_GOAL := help

ifneq ($(wildcard grader/selftest.py),)
test: test-emulator test-nvcc $(TESTS) test-grader
else
test:  # the student handout has no solutions and no grader self-test
	@echo "make test: the course's own tests need the full repository, not the student handout; run make labN" >&2; exit 1
endif

# The grader's self-test (grader/selftest.py) under pytest; `python3 -m grader.selftest` prints its checks as a table.
test-grader:
	@$(PYTEST) -q tests/grader/test_selftest.py

# Every skeleton, solution and catalogue kernel must compile with nvcc for sm_90 without warnings.
test-nvcc:
	@$(PYTEST) -q tests/grader/test_nvcc.py

bench-emu:
	@$(PYTHON) tools/bench-emu/run.py

clean:
	rm -rf build

help:
	@sed -n '/^#   make/,/^#\{0,1\}$$/p' Makefile $(wildcard mk/*.mk grader/*.mk tests/emu/external/*.mk) | sed '/^#\{0,1\}$$/d; s/^# \{0,1\}//'

