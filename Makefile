# CUDA matrix multiplication labs: from the naive kernel to tensor cores.
#
#   make lab1 | lab2 | lab3 ... build your labs/<lab>/kernel.cu, run its tests, then a short demo
#        KERNEL=path/to/kernel.cu   test another file instead
#   make pitfall LAB=3 NAME=missing_second_barrier   a known-wrong kernel through lab 3's tests: its feedback
#   make grade                  score every lab in labs/   (SUBMISSION=dir to score a student's folder)
#   BACKEND=gpu|emu             where kernels run; default: the GPU if one is usable, else the CPU emulator
#
# Build outputs go to build/. `make help` lists every target, those of the included .mk files too.

PYTHON  ?= python3
EMUCC   := common/emu/emucc
LABTOOL := $(PYTHON) -m course
BACKEND ?=
backend_flag = $(if $(BACKEND),--backend $(BACKEND))

# one target per folder labs/labN-topic
LAB_TARGETS := $(sort $(foreach d,$(wildcard labs/lab*-*/lab.h),$(firstword $(subst -, ,$(notdir $(patsubst %/,%,$(dir $(d))))))))

.PHONY: $(LAB_TARGETS) help pitfall grade clean

$(LAB_TARGETS):
	@$(LABTOOL) lab $@ $(if $(KERNEL),--kernel $(KERNEL)) $(backend_flag)

pitfall:
	@$(LABTOOL) pitfall $(if $(LAB),--lab $(LAB)) $(if $(NAME),--name $(NAME))

grade:
	@$(LABTOOL) grade $(if $(SUBMISSION),--submission $(SUBMISSION)) $(backend_flag)

clean:
	rm -rf build

# Further targets live beside what they serve: the lesson tools in tools/lessons/lessons.mk, the GPU tools in
# tools/perf/gpu.mk, and, instructor-only (the student handout has none of them), class grading in
# grader/grading.mk, the course's own tests in tests/tests.mk, the emulator's in tests/emu/Makefile.inc and the
# external programs in tests/emu/external/external.mk. Each test suite adds itself to TESTS, which `make test` runs.
TESTS :=
MAKEFILES_INCLUDED := $(wildcard tools/*/*.mk grader/*.mk tests/*.mk tests/emu/external/*.mk)
include $(MAKEFILES_INCLUDED) $(wildcard tests/emu/Makefile.inc)
.DEFAULT_GOAL := help

ifeq ($(wildcard tests/tests.mk),)
test:  # the student handout has no tests/
	@echo "make test: the course's own tests need the full repository, not the student handout; run make labN" >&2; exit 1
endif

help:
	@sed -n '/^#   make/,/^#\{0,1\}$$/p' Makefile $(MAKEFILES_INCLUDED) | sed '/^#\{0,1\}$$/d; s/^# \{0,1\}//'
