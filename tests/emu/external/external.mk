# tests/emu/external/external.mk: CUDA programs written outside this project (in this folder, each with its
# origin and licence), run on the CPU emulator and compared with what the same programs printed on an H100.
#
#   make test-external          build each with emucc, run it, compare with the H100: pass / fail / unsupported
#        ONLY=name,name ...      just those programs (names as in tests/emu/external/corpus.ini); JOBS=N parallel builds
#   make test-external-gpu      the same programs with nvcc on this machine's GPU (RECORD=1 stores their output
#                                as the expected output, and the GPU column in tests/emu/external/h100.json)
#   make external-readme        rewrite the results table in tests/emu/external/README.md from the last two runs
#   make test-external-runner   the runner's own tests, on canned compiler messages (part of make test)
#
# make test runs test-external too (a few minutes on two cores): every program must keep passing, but those whose
# `differs` line in corpus.ini explains why their output is not the H100's. Its time limit per run there is only a
# guard against a hang, generous for a loaded machine.

EXTERNAL := $(PYTHON) tests/emu/external/run.py

.PHONY: test-external test-external-gpu external-readme test-external-runner test-external-in-suite

test-external:
	@$(EXTERNAL) -j $(or $(JOBS),1) $(if $(ONLY),--only $(ONLY))

test-external-gpu:
	@$(EXTERNAL) --gpu -j $(or $(JOBS),4) $(if $(RECORD),--record) $(if $(ONLY),--only $(ONLY))

external-readme:
	@$(EXTERNAL) --readme

test-external-runner:
	@$(PYTEST) -q tests/emu/external/test_run.py

test-external-in-suite:
	@mkdir -p build && $(EXTERNAL) -j 2 --timeout 900 > build/test-external.log 2>&1 || { cat build/test-external.log; exit 1; }; \
	  tail -1 build/test-external.log

TESTS += test-external-runner test-external-in-suite
