# mk/external.mk: CUDA programs written outside this project (tests/emu/external/, each with its origin and
# licence), run on the CPU emulator and compared with what the same programs printed on an H100.
#
#   make test-external          build each with tools/emucc, run it, compare with the H100: pass / fail / unsupported
#        ONLY=name,name ...      just those programs (names as in tests/emu/external/corpus.ini); JOBS=N parallel builds
#   make test-external-gpu      the same programs with nvcc on this machine's GPU (RECORD=1 stores their output
#                                as the expected output, and the GPU column in tests/emu/external/h100.json)
#   make external-readme        rewrite the results table in tests/emu/external/README.md from the last two runs
#   make test-external-runner   the runner's own tests, on canned compiler messages (part of make test)
#
# test-external is not part of `make test`: most programs still stop at a missing emulator feature, and building
# them all takes minutes on two cores.

EXTERNAL := $(PYTHON) tests/emu/external/run.py

.PHONY: test-external test-external-gpu external-readme test-external-runner

test-external:
	@$(EXTERNAL) -j $(or $(JOBS),1) $(if $(ONLY),--only $(ONLY))

test-external-gpu:
	@$(EXTERNAL) --gpu -j $(or $(JOBS),4) $(if $(RECORD),--record) $(if $(ONLY),--only $(ONLY))

external-readme:
	@$(EXTERNAL) --readme

test-external-runner:
	@$(PYTHON) tests/emu/external/test_run.py

TESTS += test-external-runner
