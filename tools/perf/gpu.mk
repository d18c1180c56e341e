# tools/perf/gpu.mk: measuring kernels on a real GPU (python3 -m tools.perf.gputool). Each target says so in one line and exits
# non-zero when no GPU is usable.
#
#   make bench [LAB=N KERNEL=file | SUBMISSION=dir]   GFLOP/s of every lab's reference (and yours) next to cuBLAS
#        [SIZES="512 1024"] [SHAPES="MxNxK ..."]      CSV, table and SVG plots in build/bench/
#   make profile LAB=N [KERNEL=file] [SIZE=n | SHAPE=MxNxK]   Nsight Compute counters, why the kernel waits, and the
#                                                      emulator's exact count (up to 2048³)
#   make sanitize LAB=N [KERNEL=file]                  compute-sanitizer memcheck, racecheck, synccheck, initcheck
#   make sanitize-catalogue [LAB=N]                    the grader's known-wrong kernels (one lab's) through the same four tools
#   make autotune [SIZE=n] [WIDE=1] [ONLY=BN=256,...]  sweeps lab 6's tile shape (-D LAB6_...), fastest first

GPUTOOL := $(PYTHON) -m tools.perf.gputool
lab_flag = $(if $(LAB),--lab $(LAB))
kernel_flag = $(if $(KERNEL),--kernel $(KERNEL))

.PHONY: bench profile sanitize sanitize-catalogue autotune

bench:
	@$(GPUTOOL) bench $(lab_flag) $(kernel_flag) $(if $(SUBMISSION),--submission $(SUBMISSION)) \
	  $(if $(SIZES),--sizes "$(SIZES)") $(if $(SHAPES),--shapes "$(SHAPES)")

profile:
	@$(GPUTOOL) profile $(lab_flag) $(kernel_flag) $(if $(SIZE),--size $(SIZE)) $(if $(SHAPE),--shape $(SHAPE))

sanitize:
	@$(GPUTOOL) sanitize $(lab_flag) $(kernel_flag)

sanitize-catalogue:
	@$(GPUTOOL) sanitize-catalogue $(lab_flag)

autotune:
	@$(GPUTOOL) autotune $(if $(SIZE),--size $(SIZE)) $(if $(WIDE),--wide) $(if $(ONLY),--only $(ONLY))
