#!/usr/bin/env bash
# Generates the nvfp4 matmul kernel of one GEMM shape with nvfp4-opt and
# runs nvfp4-bench-gpu on it (on a machine with a GPU).
#
#   bench/gpu/run.sh <build dir> <target: sm_90a|sm_120a|sm_121a> [M N K]
set -euo pipefail
build=${1:?usage: run.sh <build dir> <target> [M N K]}
target=${2:?usage: run.sh <build dir> <target> [M N K]}
m=${3:-4096}; n=${4:-4096}; k=${5:-4096}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/gemm.mlir" <<MLIR
func.func @gemm(%a: !nvfp4.tensor<${m}x${k}, 1x16>, %b: !nvfp4.tensor<${n}x${k}, 16x16>) -> tensor<${m}x${n}xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<${m}x${k}, 1x16>, !nvfp4.tensor<${n}x${k}, 16x16> -> tensor<${m}x${n}xf32>
  return %c : tensor<${m}x${n}xf32>
}
MLIR
"$build/bin/nvfp4-opt" "$work/gemm.mlir" --nvfp4-to-ptx="target=$target" \
  | "$build/bin/nvfp4-translate" --nvfp4-extract-ptx -o "$work/kernels.ptx"
"$build/bin/nvfp4-bench-gpu" --kernels "$work/kernels.ptx" \
  --m "$m" --n "$n" --k "$k" --b-block-rows 16
