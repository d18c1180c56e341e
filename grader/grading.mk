# grader/grading.mk — grading a class. Included by the top-level Makefile.
#
#   make grade-all SUBMISSIONS=dir    grade every student's folder or archive in dir, in parallel, each in a sandbox
#        RUNNER=slurm                 one Slurm array task per submission (SLURM_PARTITION, SLURM_GPUS, SLURM_TIME)
#        JOBS=n                       submissions at once (default: one per core)
#   make handout                      the student release: build/handout/course/ and course.tar.gz
#   make gradescope                   the Gradescope autograder of every lab: build/gradescope/autograder.zip
#   make autograder LAB=3             one lab's, for an assignment per lab: build/gradescope/<lab>/autograder.zip;
#                                     it grades that lab alone, from a lone kernel.cu too
#   make test-grading                 class grading's tests (part of make test)
#   make test-slurm                   RUNNER=slurm against a one-node Slurm it starts (part of make test)
#   make test-readme                  every command the README and docs/*.md show, run as written: the students'
#                                     in the handout, the instructors' in a fresh copy (part of make test)
#   make bench-grading                submissions graded per minute, for a generated class of 50 on 2 cores

CLASSGRADE := $(PYTHON) -m grader.classgrade

.PHONY: grade-all handout gradescope autograder test-grading test-slurm test-readme bench-grading

grade-all:
	@test -n "$(SUBMISSIONS)" || { echo "grade-all: say where the submissions are: make grade-all SUBMISSIONS=dir" >&2; exit 2; }
	@$(CLASSGRADE) grade-all --submissions "$(SUBMISSIONS)" $(if $(RUNNER),--runner $(RUNNER)) \
	  $(if $(JOBS),--jobs $(JOBS)) $(backend_flag)

handout:
	@$(PYTHON) -m grader.package handout

gradescope:
	@$(PYTHON) -m grader.package gradescope

autograder:
	@test -n "$(LAB)" || { echo "autograder: say which lab: make autograder LAB=3 (make gradescope: every lab)" >&2; exit 2; }
	@$(PYTHON) -m grader.package autograder "$(LAB)"

TESTS += test-grading test-slurm test-readme

# the handout's lesson commands are checked on the handout test_grading.py builds (tests/grader/conftest.py)
test-grading:
	@$(PYTEST) -q tests/grader/test_grading.py tests/grader/test_handout_commands.py

test-slurm:
	@$(PYTEST) -q tests/grader/test_slurm.py

test-readme:
	@$(PYTEST) -q tests/grader/test_readme_commands.py

BENCH_CLASS := build/bench-grading/class
bench-grading:
	@rm -rf build/bench-grading
	@$(PYTHON) -m grader.gen_class --out $(BENCH_CLASS) --count 50
	@$(CLASSGRADE) grade-all --submissions $(BENCH_CLASS) --out build/bench-grading/graded --jobs 2 --backend emu
