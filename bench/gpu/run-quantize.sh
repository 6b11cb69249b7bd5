#!/usr/bin/env bash
# Generates the quantize kernels (amax + quantize) of one M x K tensor with
# nvfp4-opt and runs nvfp4-bench-gpu-quantize on them (on a machine with a
# GPU).
#
#   bench/gpu/run-quantize.sh <build dir> <target: sm_90a|sm_100a|sm_120a|...>
#                             [M K [block rows: 1|16 [type: f32|bf16]]]
set -euo pipefail
usage="usage: run-quantize.sh <build dir> <target> [M K [1|16 [f32|bf16]]]"
build=${1:?$usage}
target=${2:?$usage}
m=${3:-8192}; k=${4:-8192}; rows=${5:-1}; type=${6:-f32}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/quantize.mlir" <<MLIR
func.func @quantize(%x: tensor<${m}x${k}x${type}>) -> !nvfp4.tensor<${m}x${k}, ${rows}x16> {
  %q = nvfp4.quantize %x : tensor<${m}x${k}x${type}> -> !nvfp4.tensor<${m}x${k}, ${rows}x16>
  return %q : !nvfp4.tensor<${m}x${k}, ${rows}x16>
}
MLIR
"$build/bin/nvfp4-opt" "$work/quantize.mlir" --nvfp4-to-ptx="target=$target" \
  | "$build/bin/nvfp4-translate" --nvfp4-extract-ptx -o "$work/kernels.ptx"
"$build/bin/nvfp4-bench-gpu-quantize" --kernels "$work/kernels.ptx" \
  --m "$m" --k "$k" --block-rows "$rows" --type "$type"
