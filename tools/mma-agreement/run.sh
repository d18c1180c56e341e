#!/usr/bin/env bash
# run.sh — on a machine with a GPU: builds tools/mma-agreement/probe.cu with nvcc and with the emulator's emucc,
# runs both, and prints compare.py's table (docs/emulator.md, "PTX matrix instructions"); exits 1 if any output
# differs. Writes DIR/gpu/ and DIR/emu/ (the probe's files) and DIR/compare.md (the table).
#
# emucc needs clang++. On a GPU machine without it, the emulator's side comes from another machine: there (no GPU),
# run.sh writes DIR/emu/ only; copy that folder over and name it in EMU_DIR.
#
# Usage, from the repository root: tools/mma-agreement/run.sh [DIR]       (default DIR: build/mma-agreement)
#                                  EMU_DIR=FOLDER tools/mma-agreement/run.sh [DIR]
set -eu
OUT=$(realpath -m "${1:-$(dirname "$0")/../../build/mma-agreement}")
EMU_DIR=${EMU_DIR:+$(realpath -m "$EMU_DIR")}
cd "$(dirname "$0")/../.."
mkdir -p "$OUT/gpu" "$OUT/emu"
rm -f "$OUT/gpu/"*.bin "$OUT/compare.md"

if [ -n "$EMU_DIR" ]; then
    ls "$EMU_DIR"/*.bin >/dev/null 2>&1 || { echo "run.sh: EMU_DIR=$EMU_DIR holds no probe files" >&2; exit 2; }
    if [ "$EMU_DIR" != "$OUT/emu" ]; then
        rm -f "$OUT/emu/"*.bin
        cp "$EMU_DIR"/*.bin "$OUT/emu/"
    fi
    echo "emulator: the files of $EMU_DIR"
else
    rm -f "$OUT/emu/"*.bin
    common/emu/emucc -o "$OUT/probe.emu" tools/mma-agreement/probe.cu ||
        { echo "run.sh: emucc failed; without clang++ here, name another machine's emu/ in EMU_DIR" >&2; exit 2; }
    CUDAEMU_QUIET=1 "$OUT/probe.emu" "$OUT/emu"
    echo "emulator: $(find "$OUT/emu" -name "*.bin" | wc -l) files in $OUT/emu"
fi

if ! command -v nvcc >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "run.sh: no GPU here (nvcc and nvidia-smi -L needed): the emulator's side only; on a GPU machine run" \
         "EMU_DIR=<a copy of $OUT/emu> tools/mma-agreement/run.sh"
    exit 0
fi
nvcc -arch="${NVCC_ARCH:-sm_90}" -o "$OUT/probe.gpu" tools/mma-agreement/probe.cu
"$OUT/probe.gpu" "$OUT/gpu"
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
status=0
python3 tools/mma-agreement/compare.py "$OUT/gpu" "$OUT/emu" >"$OUT/compare.md" || status=$?
cat "$OUT/compare.md"
exit $status
