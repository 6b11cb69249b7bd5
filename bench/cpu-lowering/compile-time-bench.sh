#!/usr/bin/env bash
#===- bench/cpu-lowering/compile-time-bench.sh - CPU compile time in depth ===//
#
# Part of the NVFP4-MLIR project.
#
# Compiles the bundled training-step generator's model (hidden 256, 128
# tokens) at 6, 12, 24 and 48 layers through `nvfp4-recipe="keep-first=1
# keep-last=2"` and `nvfp4-to-cpu` (with the kernels given as the first
# argument: library, the default, or inline) and prints, per depth, the
# wall time, the peak resident memory, the output size, and the growth of
# the time against the 6-layer run divided by the growth of the depth (1.0
# at every size when compile time is linear in the model). The last line is
# the slope of log(time) over log(layers): 1 is linear, 2 quadratic.
#
# Usage: bench/cpu-lowering/compile-time-bench.sh [library|inline] [layers...]
#        (needs a built build/; NVFP4_BUILD_DIR overrides)
#
#===----------------------------------------------------------------------===//
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${NVFP4_BUILD_DIR:-$root/build}"
kernels="${1:-library}"
shift || true
layers=("$@")
[ ${#layers[@]} -eq 0 ] && layers=(6 12 24 48)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

printf 'kernels=%s\n' "$kernels"
printf '%-7s %9s %10s %11s %14s\n' layers seconds peak_MiB output_MiB time/layers
base=""
points=()
for n in "${layers[@]}"; do
  mkdir -p "$work/$n"
  "${PYTHON:-python3}" "$root/examples/gen_transformer_training.py" \
    --layers "$n" --tokens 128 --hidden 256 "$work/$n" > /dev/null
  /usr/bin/time -f '%e %M' -o "$work/$n/time" \
    "$build/bin/nvfp4-opt" "$work/$n/transformer_training.mlir" \
      --nvfp4-recipe="keep-first=1 keep-last=2" \
      --nvfp4-to-cpu="kernels=$kernels" -o "$work/$n/out.mlir"
  read -r seconds kib < "$work/$n/time"
  bytes=$(stat -c %s "$work/$n/out.mlir")
  per=$(echo "$seconds / $n" | bc -l)
  [ -z "$base" ] && base=$per
  printf '%-7s %9.2f %10.0f %11.1f %14.2f\n' "$n" "$seconds" \
    "$(echo "$kib / 1024" | bc -l)" "$(echo "$bytes / 1048576" | bc -l)" \
    "$(echo "$per / $base" | bc -l)"
  points+=("$n $seconds")
done
printf '%s\n' "${points[@]}" | awk '
  { x[NR] = log($1); y[NR] = log($2) }
  END {
    n = NR; sx = sy = sxx = sxy = 0
    for (i = 1; i <= n; ++i) { sx += x[i]; sy += y[i]; sxx += x[i]*x[i]; sxy += x[i]*y[i] }
    if (n > 1) printf "slope of log(seconds) over log(layers): %.2f\n", (n*sxy - sx*sy) / (n*sxx - sx*sx)
  }'
