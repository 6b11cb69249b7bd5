#!/usr/bin/env bash
# Generates the nvfp4 kernels of one GEMM with nvfp4-opt, writes their PTX
# and launch plan, and runs nvfp4-bench-gpu on them (on a machine with a
# GPU; --dry-run checks the plan against the PTX anywhere).
#
#   bench/gpu/run.sh [--dry-run] <build dir>
#                    <target: sm_90a|sm_100a|sm_103a|sm_110a|sm_120a|sm_121a>
#                    [M N K [A block rows: 1|16 [B block rows: 1|16]]]
#
# With NVFP4_BENCH_KEEP=<dir>, the program, PTX and plan are left in <dir>.
set -euo pipefail
usage="usage: run.sh [--dry-run] <build dir> <target> [M N K [1|16 [1|16]]]"
dry=()
if [[ ${1:-} == --dry-run ]]; then dry=(--dry-run); shift; fi
build=${1:?$usage}
target=${2:?$usage}
m=${3:-4096}; n=${4:-4096}; k=${5:-4096}; ra=${6:-1}; rb=${7:-16}
if [[ -n ${NVFP4_BENCH_KEEP:-} ]]; then
  work=$NVFP4_BENCH_KEEP; mkdir -p "$work"
else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fi
ta="!nvfp4.tensor<${m}x${k}, ${ra}x16>"
tb="!nvfp4.tensor<${n}x${k}, ${rb}x16>"
cat > "$work/gemm.mlir" <<MLIR
func.func @gemm(%a: $ta, %b: $tb) -> tensor<${m}x${n}xf32> {
  %c = nvfp4.matmul %a, %b : $ta, $tb -> tensor<${m}x${n}xf32>
  return %c : tensor<${m}x${n}xf32>
}
MLIR
"$build/bin/nvfp4-opt" "$work/gemm.mlir" --nvfp4-to-ptx="target=$target" \
  -o "$work/gemm.lowered.mlir"
"$build/bin/nvfp4-translate" --nvfp4-extract-ptx "$work/gemm.lowered.mlir" \
  -o "$work/kernels.ptx"
"$build/bin/nvfp4-translate" --nvfp4-extract-launch-plan \
  "$work/gemm.lowered.mlir" -o "$work/plan.txt"
"$build/bin/nvfp4-bench-gpu" "${dry[@]}" --kernels "$work/kernels.ptx" \
  --plan "$work/plan.txt"
