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

echo
echo "== 2. CPU: one training step of the same model at CPU size (2 blocks, hidden 64),"
echo "      bf16 vs NVFP4 through the bit-exact CPU lowering"
"$root/bench/cpu-lowering/training-step-error.sh" "$build" | sed -e 's/^/   /'

echo
echo "== 3. GPU lowering of the NVFP4 GEMMs to PTX"
ptxas="$(command -v ptxas || true)"
[ -z "$ptxas" ] && [ -x "${CUDA_PATH:-/usr/local/cuda}/bin/ptxas" ] && ptxas="${CUDA_PATH:-/usr/local/cuda}/bin/ptxas"
for target in sm_100a sm_120a sm_121a sm_90a; do
  "$opt" "$out/transformer_training.nvfp4.mlir" --nvfp4-to-ptx="target=$target" \
    | "$build/bin/nvfp4-translate" --nvfp4-extract-ptx -o "$out/$target.ptx"
  kernels=$(grep -c "^.visible .entry" "$out/$target.ptx" || true)
  line="   $target: $kernels kernels -> $out/$target.ptx"
  if [ -n "$ptxas" ]; then
    log="$("$ptxas" -arch="$target" -v "$out/$target.ptx" -o "$out/$target.cubin" 2>&1)"
    regs=$(echo "$log" | sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' | sort -n | tail -1)
    spills=$(echo "$log" | grep -cE "[1-9][0-9]* bytes spill" || true)
    line="$line; ptxas: max $regs registers, $spills kernels with spills"
  fi
  echo "$line"
done
