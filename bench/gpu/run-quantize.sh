#!/usr/bin/env bash
# Generates the quantize kernels (amax + quantize) of one M x K tensor with
# nvfp4-opt, writes their PTX and launch plan, and runs
# nvfp4-bench-gpu-quantize on them (on a machine with a GPU; --dry-run
# checks the plan against the PTX anywhere).
#
#   bench/gpu/run-quantize.sh [--dry-run] <build dir>
#       <target: sm_90a|sm_100a|sm_120a|...> [M K [block rows: 1|16
#       [type: f32|bf16]]]
#
# With NVFP4_BENCH_KEEP=<dir>, the program, PTX and plan are left in <dir>.
set -euo pipefail
usage="usage: run-quantize.sh [--dry-run] <build dir> <target> [M K [1|16 [f32|bf16]]]"
dry=()
if [[ ${1:-} == --dry-run ]]; then dry=(--dry-run); shift; fi
build=${1:?$usage}
target=${2:?$usage}
m=${3:-8192}; k=${4:-8192}; rows=${5:-1}; type=${6:-f32}
if [[ -n ${NVFP4_BENCH_KEEP:-} ]]; then
  work=$NVFP4_BENCH_KEEP; mkdir -p "$work"
else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fi
cat > "$work/quantize.mlir" <<MLIR
func.func @quantize(%x: tensor<${m}x${k}x${type}>) -> !nvfp4.tensor<${m}x${k}, ${rows}x16> {
  %q = nvfp4.quantize %x : tensor<${m}x${k}x${type}> -> !nvfp4.tensor<${m}x${k}, ${rows}x16>
  return %q : !nvfp4.tensor<${m}x${k}, ${rows}x16>
}
MLIR
"$build/bin/nvfp4-opt" "$work/quantize.mlir" --nvfp4-to-ptx="target=$target" \
  -o "$work/quantize.lowered.mlir"
"$build/bin/nvfp4-translate" --nvfp4-extract-ptx \
  "$work/quantize.lowered.mlir" -o "$work/kernels.ptx"
"$build/bin/nvfp4-translate" --nvfp4-extract-launch-plan \
  "$work/quantize.lowered.mlir" -o "$work/plan.txt"
"$build/bin/nvfp4-bench-gpu-quantize" "${dry[@]}" \
  --kernels "$work/kernels.ptx" --plan "$work/plan.txt"
