#!/usr/bin/env bash
# run.sh — on a machine with a GPU: builds tools/wmma-agreement/products.cu with nvcc and with the emulator's emucc,
# runs both, and prints compare.py's table (docs/emulator.md, "Tensor cores", shows the H100's).
# Usage, from the repository root: tools/wmma-agreement/run.sh
set -eu
cd "$(dirname "$0")/../.."
OUT=build/wmma-agreement
mkdir -p "$OUT/gpu" "$OUT/emu"
nvcc -arch="${NVCC_ARCH:-sm_90}" -o "$OUT/products.gpu" tools/wmma-agreement/products.cu
common/emu/emucc -o "$OUT/products.emu" tools/wmma-agreement/products.cu
"$OUT/products.gpu" "$OUT/gpu"
CUDAEMU_QUIET=1 "$OUT/products.emu" "$OUT/emu"
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
python3 tools/wmma-agreement/compare.py "$OUT/gpu" "$OUT/emu"
