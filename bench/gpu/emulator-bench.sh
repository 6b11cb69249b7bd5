#!/usr/bin/env bash
#===- bench/gpu/emulator-bench.sh - GPU emulator wall time ---------------===//
#
# Part of the NVFP4-MLIR project.
#
# Times a 256x512 x 384x512 NVFP4 GEMM (test/GPU/Inputs/matmul-tile-cases.mlir:
# fill, reference quantization, the matmul, the check) lowered three ways and
# run under mlir-runner, each time from the lowered IR (JIT compilation
# included):
#   cpu      nvfp4-to-cpu: the bit-exact reference lowering (the baseline);
#   sm_90a   nvfp4-to-gpu-emulation: the sm_90a kernel in the GPU emulator;
#   sm_120a  the same for the block-scaled sm_120a kernel.
# Prints the best of N runs (default 3) per variant and its ratio to cpu.
#
# Usage: bench/gpu/emulator-bench.sh [RUNS]   (needs a built build/)
#
#===----------------------------------------------------------------------===//
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${NVFP4_BUILD_DIR:-$root/build}"
runs="${1:-3}"
llvm=/usr/lib/llvm-22
input="$root/test/GPU/Inputs/matmul-tile-cases.mlir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

libs_common="$llvm/lib/libmlir_c_runner_utils.so,$build/lib/libnvfp4_reference_runtime.so,$build/lib/libnvfp4_cuda_runtime_checks.so"

"$build/bin/nvfp4-opt" "$input" --nvfp4-to-cpu -o "$work/cpu.mlir"
for target in sm_90a sm_120a; do
  "$build/bin/nvfp4-opt" "$input" --nvfp4-to-gpu-emulation="target=$target" \
    -o "$work/$target.mlir"
done

best_time() { # variant shared-libs
  local best=""
  for _ in $(seq "$runs"); do
    local start end elapsed
    start=$(date +%s.%N)
    "$llvm/bin/mlir-runner" "$work/$1.mlir" -e main -entry-point-result=void \
      -shared-libs="$2" > "$work/$1.out"
    end=$(date +%s.%N)
    elapsed=$(echo "$end - $start" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$elapsed < $best" | bc -l)" = 1 ]; then
      best=$elapsed
    fi
  done
  grep -q "outside bound 0" "$work/$1.out" || {
    echo "error: $1 gave a wrong result:" >&2; cat "$work/$1.out" >&2; exit 1; }
  echo "$best"
}

cpu=$(best_time cpu "$libs_common")
printf '%-8s %10s %8s\n' variant seconds vs_cpu
printf '%-8s %10.3f %8.2f\n' cpu "$cpu" 1
for target in sm_90a sm_120a; do
  t=$(best_time "$target" "$build/lib/libnvfp4_gpu_emulator.so,$libs_common")
  printf '%-8s %10.3f %8.2f\n' "$target" "$t" "$(echo "$t / $cpu" | bc -l)"
done
