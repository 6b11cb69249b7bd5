#!/usr/bin/env bash
#===- bench/recipe/infer-roles-bench.sh - Recipe scaling in graph size ---===//
#
# Part of the NVFP4-MLIR project.
#
# Times nvfp4-infer-roles and the whole nvfp4-recipe on generated chains of
# N 16x16 contractions that share one weight (the first an fprop, every
# later one a dgrad of it: the case whose role inference used a backward
# slice per contraction), for N = 1250, 2500, 5000 and 12500, and prints the
# seconds, the microseconds per contraction and the growth against the
# smallest N. Linear scaling keeps the per-contraction time flat (a ratio of
# time to N near 1 at every size).
#
# Usage: bench/recipe/infer-roles-bench.sh   (needs a built build/)
#
#===----------------------------------------------------------------------===//
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${NVFP4_BUILD_DIR:-$root/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

generate() { # N
  "${PYTHON:-python3}" - "$1" <<'PY'
import sys
n = int(sys.argv[1])
print('func.func @chain(%x: tensor<16x16xf32> {nvfp4.kind = "activation"},')
print('                 %w: tensor<16x16xf32> {nvfp4.kind = "weight"}) -> tensor<16x16xf32> {')
print('  %zero = arith.constant 0.0 : f32')
print('  %e = tensor.empty() : tensor<16x16xf32>')
print('  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>')
prev = '%x'
for i in range(n):
    print(f'  %y{i} = linalg.matmul ins({prev}, %w : tensor<16x16xf32>, tensor<16x16xf32>) '
          f'outs(%init : tensor<16x16xf32>) -> tensor<16x16xf32>')
    prev = f'%y{i}'
print(f'  return {prev} : tensor<16x16xf32>')
print('}')
PY
}

seconds() { # file pipeline
  local start end
  start=$(date +%s.%N)
  "$build/bin/nvfp4-opt" "$1" --pass-pipeline="$2" -o /dev/null
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

printf '%-7s %-12s %9s %12s %10s\n' N pass seconds us_per_op growth
declare -A base
for n in 1250 2500 5000 12500; do
  generate "$n" > "$work/chain.mlir"
  for pass in infer-roles recipe; do
    case $pass in
      infer-roles) pipeline='builtin.module(func.func(nvfp4-infer-roles))' ;;
      recipe) pipeline='builtin.module(nvfp4-recipe)' ;;
    esac
    t=$(seconds "$work/chain.mlir" "$pipeline")
    per=$(echo "$t * 1000000 / $n" | bc -l)
    [ -z "${base[$pass]:-}" ] && base[$pass]=$per
    printf '%-7s %-12s %9.3f %12.1f %10.2f\n' "$n" "$pass" "$t" "$per" \
      "$(echo "$per / ${base[$pass]}" | bc -l)"
  done
done
