#!/usr/bin/env bash
#===- bench/gpu/emulator-bench.sh - GPU emulator wall time ---------------===//
#
# Part of the NVFP4-MLIR project.
#
# Times a 256x512 x 384x512 NVFP4 GEMM (test/GPU/Inputs/matmul-tile-cases.mlir:
# fill, reference quantization, the matmul, the check) lowered five ways and
# run under mlir-runner, each time from the lowered IR (JIT compilation
# included):
#   cpu          nvfp4-to-cpu: the bit-exact reference lowering (the baseline);
#   sm_90a       nvfp4-to-gpu-emulation: the sm_90a kernel in the GPU emulator;
#   sm_120a      the same for the block-scaled sm_120a kernel;
#   sm_100a      the tcgen05 kernel (1-CTA, 128x128 tiles);
#   sm_100a-pair the tcgen05 CTA pair (256x128 tiles, clusters of two).
# Prints the best of N runs (default 3) per variant, its ratio to cpu, and
# the modelled operations the emulator executed in the matmul kernel (its
# runtime calls: NVVM operations and checked memory accesses).
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
for target in sm_90a sm_120a sm_100a; do
  "$build/bin/nvfp4-opt" "$input" --nvfp4-to-gpu-emulation="target=$target" \
    -o "$work/$target.mlir"
done
"$build/bin/nvfp4-opt" "$input" \
  --nvfp4-to-gpu-emulation="target=sm_100a tcgen05-cta-pair=on" \
  -o "$work/sm_100a-pair.mlir"

best_time() { # variant shared-libs
  local best=""
  for _ in $(seq "$runs"); do
    local start end elapsed
    start=$(date +%s.%N)
    NVFP4_GPU_EMULATOR_TRACE=1 "$llvm/bin/mlir-runner" "$work/$1.mlir" \
      -e main -entry-point-result=void -shared-libs="$2" > "$work/$1.out" \
      2> "$work/$1.err"
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
printf '%-13s %10s %8s %22s\n' variant seconds vs_cpu modelled_operations
printf '%-13s %10.3f %8.2f %22s\n' cpu "$cpu" 1 -
for target in sm_90a sm_120a sm_100a sm_100a-pair; do
  t=$(best_time "$target" "$build/lib/libnvfp4_gpu_emulator.so,$libs_common")
  ops=$(sed -n 's/.*done nvfp4_[a-z0-9_]*matmul[a-z0-9_]*: \([0-9]*\) modelled.*/\1/p' \
    "$work/$target.err" | head -n 1)
  printf '%-13s %10.3f %8.2f %22s\n' "$target" "$t" \
    "$(echo "$t / $cpu" | bc -l)" "$ops"
done
