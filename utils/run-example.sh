#!/usr/bin/env bash
#===- utils/run-example.sh - The main job on the bundled example ---------===//
#
# Part of the NVFP4-MLIR project.
#
# Runs the compiler on the bundled decoder-only transformer training step
# (examples/transformer_training.mlir: 4 layers, hidden 4096, FFN 14336,
# forward and backward):
#   1. the NVFP4 training recipe, printing its decisions and FLOP share;
#   2. the CPU reference lowering of a reduced-size instance, run with
#      mlir-runner, printing the error of the NVFP4 result relative to the
#      high-precision result;
#   3. the GPU lowering to PTX for each supported target (assembled with
#      ptxas when the CUDA toolkit is present).
# Outputs go to $NVFP4_EXAMPLE_OUT (default: build/example).
#
#===----------------------------------------------------------------------===//
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${NVFP4_BUILD_DIR:-$root/build}"
out="${NVFP4_EXAMPLE_OUT:-$build/example}"
opt="$build/bin/nvfp4-opt"
mkdir -p "$out"

echo "== 1. NVFP4 recipe on examples/transformer_training.mlir (keep-first=1 keep-last=1)"
"$opt" "$root/examples/transformer_training.mlir" \
  --nvfp4-recipe="keep-first=1 keep-last=1 summary report=$out/recipe-report.json" \
  -o "$out/transformer_training.nvfp4.mlir"
echo "   IR: $out/transformer_training.nvfp4.mlir  report: $out/recipe-report.json"
