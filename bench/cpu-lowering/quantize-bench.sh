#!/bin/sh
# Quantize throughput of the nvfp4-to-cpu lowering against the reference
# library, in one mlir-runner process (single thread each).
#
#   bench/cpu-lowering/quantize-bench.sh [build-dir]
#
# Runs both CPU lowerings (kernels=library: calls of libnvfp4_cpu_runtime,
# kernels=inline: upstream ops), each on one thread. Prints one line per
# block layout: block rows, seconds per 4096x4096
# quantization (lowered, reference), and the lowered/reference throughput
# ratio; then the bit-exact check of the lowered result.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
llvm_bin=${LLVM_BIN:-/usr/lib/llvm-22/bin}
llvm_lib=$(dirname "$llvm_bin")/lib
for kernels in library inline; do
  echo "kernels=$kernels"
  "$build/bin/nvfp4-opt" "$here/quantize-bench.mlir" --nvfp4-to-cpu="kernels=$kernels" \
    | NVFP4_CPU_THREADS=1 "$llvm_bin/mlir-runner" -O3 -e main -entry-point-result=void \
        -shared-libs="$llvm_lib/libmlir_c_runner_utils.so,$llvm_lib/libmlir_runner_utils.so,$build/lib/libnvfp4_reference_runtime.so,$build/lib/libnvfp4_cpu_runtime.so" \
    | awk '/^[0-9]/ { gsub(",", ""); printf "block %sx16: lowered %.4f s, reference %.4f s, lowered/reference throughput %.2f\n", $1, $2, $3, $4; next } { print }'
done
