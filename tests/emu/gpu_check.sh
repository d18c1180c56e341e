#!/usr/bin/env bash
# gpu_check.sh: on a machine with an NVIDIA GPU, check that the emulator's test programs print the same thing on
# the GPU and on the CPU emulator. Every tests/emu/programs/*.cu except hang_* and those in GPU_HANGS (they never
# finish on a GPU) is built with nvcc and with common/emu/emucc; both binaries run, and their stdout and exit status are
# diffed. Names given as arguments check only those programs.
# Prints one line per program, `NAME: same` or `NAME: DIFFERENT` followed by the diff (< GPU, > emulator);
# exits 1 if any program differs or fails to build. Some error_* programs are expected to differ: a GPU does not
# trap every bug the emulator reports (one element past a small allocation, use after free, a divergent barrier),
# and the diff shows exactly where the two disagree.
#
# Usage, from the repository root: tests/emu/gpu_check.sh [NAME...]   (NVCC=... and NVCC_ARCH=sm_NN override)

set -u
cd "$(dirname "$0")/../.." || exit 2

NVCC=${NVCC:-nvcc}
ARCH=${NVCC_ARCH:-sm_90}
OUT=build/tests/emu/gpu_check
command -v "$NVCC" >/dev/null || { echo "gpu_check: $NVCC not found (install the CUDA toolkit or set NVCC)" >&2; exit 2; }
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 ||
    echo "gpu_check: warning: nvidia-smi sees no GPU; the nvcc builds will likely fail to run" >&2
mkdir -p "$OUT"

# Runs $2 with stdout to $1 and appends its exit status, so a crash shows in the diff too.
run_one() {
    timeout 120 "$2" >"$1" 2>/dev/null
    echo "exit: $?" >>"$1"
}

# Known-wrong programs whose bug deadlocks a GPU: a warp collective or a tile's sync whose threads wait at a
# __syncthreads(), a grid.sync() that a block never reaches, a cuda::barrier phase that misses arrivals.
GPU_HANGS="error_warp_stuck_collective error_tile_stuck_sync error_grid_sync_block_exits error_barrier_wait_never_completes"

status=0
if [ $# -gt 0 ]; then sources=$(for n in "$@"; do echo "tests/emu/programs/$n.cu"; done); else sources=$(ls tests/emu/programs/*.cu); fi
for src in $sources; do
    name=$(basename "$src" .cu)
    case "$name" in hang_*) continue ;; esac
    case " $GPU_HANGS " in *" $name "*) continue ;; esac
    # a program of several files: NAME.cu and parts/NAME_*.cu
    parts=$(ls tests/emu/programs/parts/"$name"_*.cu 2>/dev/null)
    # shellcheck disable=SC2086  # $parts is a list of file names without spaces
    if ! "$NVCC" -arch="$ARCH" -o "$OUT/$name.gpu" "$src" $parts 2>"$OUT/$name.build.log" ||
       ! common/emu/emucc -o "$OUT/$name.emu" "$src" $parts 2>>"$OUT/$name.build.log"; then
        echo "$name: BUILD FAILED"
        cat "$OUT/$name.build.log"
        status=1
        continue
    fi
    run_one "$OUT/$name.gpu.txt" "$OUT/$name.gpu"
    CUDAEMU_QUIET=1 run_one "$OUT/$name.emu.txt" "$OUT/$name.emu"
    if diff -q "$OUT/$name.gpu.txt" "$OUT/$name.emu.txt" >/dev/null; then
        echo "$name: same"
    else
        echo "$name: DIFFERENT"
        diff "$OUT/$name.gpu.txt" "$OUT/$name.emu.txt" | sed 's/^/    /'
        status=1
    fi
done
exit $status
