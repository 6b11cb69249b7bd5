#!/bin/sh
# Runs one training step (forward + backward) of the 2-block transformer of
# test/Integration/Inputs (examples/gen_transformer_training.py at 32
# tokens, hidden 64, FFN 128, 2 heads, vocabulary 64) on the CPU twice -- as
# written (bf16 GEMMs) and after nvfp4-recipe (NVFP4 GEMMs through the
# bit-exact CPU lowering) -- and prints, for every weight gradient, the
# relative Frobenius error of the NVFP4 result against the high-precision
# one. The full-size examples/transformer_training.mlir would take hours on
# a CPU.
#
#   bench/cpu-lowering/training-step-error.sh [build-dir]
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
llvm_bin=${LLVM_BIN:-/usr/lib/llvm-22/bin}
llvm_lib=$(dirname "$llvm_bin")/lib
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The model, then the driver of the integration test (inputs, the call, the
# comparison).
cat "$root/test/Integration/Inputs/train-step-2layer.mlir" \
    "$root/test/Integration/training-step.mlir" > "$tmp/step.mlir"
run() {
  "$llvm_bin/mlir-runner" -O3 -e main -entry-point-result=void \
    -shared-libs="$llvm_lib/libmlir_c_runner_utils.so,$llvm_lib/libmlir_runner_utils.so,$build/lib/libnvfp4_reference_runtime.so,$build/lib/libnvfp4_cpu_runtime.so"
}
"$build/bin/nvfp4-opt" "$tmp/step.mlir" --nvfp4-to-cpu \
  | NVFP4_RT_STASH="$tmp/hp" NVFP4_RT_STASH_MODE=write run >/dev/null
echo "NVFP4 (nvfp4-recipe, bit-exact CPU lowering) vs bf16, per weight gradient:"
"$build/bin/nvfp4-opt" "$tmp/step.mlir" --nvfp4-recipe --nvfp4-to-cpu \
  | NVFP4_RT_STASH="$tmp/hp" NVFP4_RT_STASH_MODE=compare run
