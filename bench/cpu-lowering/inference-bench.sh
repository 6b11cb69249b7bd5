#!/usr/bin/env bash
#===- bench/cpu-lowering/inference-bench.sh - A model's forward on the CPU ===//
#
# Part of the NVFP4-MLIR project.
#
# The forward pass of a transformer of MobileBERT's size (24 layers, 384
# tokens, hidden 512, FFN 2048, 4 heads, vocabulary 30522; the bundled
# generator with --inference) through `nvfp4-recipe` (FP4 linears) and
# `nvfp4-to-cpu`, then run by mlir-runner on weights uniform in [-1/8, 1/8)
# and random token ids. Prints the compile time (recipe + nvfp4-to-cpu), the
# time of the forward call alone (measured inside the program, so without
# mlir-runner's JIT), the wall time of the whole mlir-runner process, and
# one logit as a checksum. The same program at bf16 (no recipe) is timed as
# the baseline, in the same run.
#
# Usage: bench/cpu-lowering/inference-bench.sh [layers] [kernels]
#        (TOKENS, HIDDEN, FFN, HEADS, VOCAB override the shape)
#        (needs a built build/; NVFP4_BUILD_DIR overrides)
#
#===----------------------------------------------------------------------===//
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${NVFP4_BUILD_DIR:-$root/build}"
layers="${1:-24}"
kernels="${2:-library}"
llvm_bin="${LLVM_BIN:-/usr/lib/llvm-22/bin}"
llvm_lib="$(dirname "$llvm_bin")/lib"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
T=${TOKENS:-384} H=${HIDDEN:-512} F=${FFN:-2048} NH=${HEADS:-4} V=${VOCAB:-30522}

"${PYTHON:-python3}" "$root/examples/gen_transformer_training.py" --inference \
  --layers "$layers" --tokens $T --hidden $H --ffn $F --heads $NH --vocab $V \
  "$work" > /dev/null

# @main: fills the weights (f32, rounded to bf16) and the ids, times the
# forward call, prints its seconds and logits[0][0].
"${PYTHON:-python3}" - "$layers" $T $H $F $V > "$work/main.mlir" <<'PY'
import sys
L, T, H, F, V = map(int, sys.argv[1:])
shapes = [("emb", [V, H])]
for l in range(L):
    shapes += [(f"wq{l}", [H, H]), (f"wk{l}", [H, H]), (f"wv{l}", [H, H]),
               (f"wo{l}", [H, H]), (f"wg{l}", [F, H]), (f"wu{l}", [F, H]),
               (f"wd{l}", [H, F])]
shapes.append(("head", [V, H]))
print("func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}")
print("func.func private @nvfp4RtFillIds(memref<*xi64>, i64, i64) attributes {llvm.emit_c_interface}")
print("func.func private @rtclock() -> f64")
print("func.func private @printF64(f64)")
print("func.func private @printF32(f32)")
print("func.func private @printNewline()")
print("func.func @main() {")
print("  %mode = arith.constant 3 : i32")
print(f"  %vocab = arith.constant {V} : i64")
print("  %c0 = arith.constant 0 : index")
args = []
for i, (name, (r, c)) in enumerate(shapes):
    print(f"  %m{i} = memref.alloc() : memref<{r}x{c}xf32>")
    print(f"  %u{i} = memref.cast %m{i} : memref<{r}x{c}xf32> to memref<*xf32>")
    print(f"  %s{i} = arith.constant {i + 1} : i64")
    print(f"  call @nvfp4RtFill(%u{i}, %s{i}, %mode) : (memref<*xf32>, i64, i32) -> ()")
    print(f"  %t{i} = bufferization.to_tensor %m{i} restrict : memref<{r}x{c}xf32> to tensor<{r}x{c}xf32>")
    print(f"  %w{i} = arith.truncf %t{i} : tensor<{r}x{c}xf32> to tensor<{r}x{c}xbf16>")
    args.append((f"%w{i}", f"tensor<{r}x{c}xbf16>"))
print(f"  %idm = memref.alloc() : memref<{T}xi64>")
print(f"  %idu = memref.cast %idm : memref<{T}xi64> to memref<*xi64>")
print("  %idseed = arith.constant 7 : i64")
print("  call @nvfp4RtFillIds(%idu, %idseed, %vocab) : (memref<*xi64>, i64, i64) -> ()")
print(f"  %ids = bufferization.to_tensor %idm restrict : memref<{T}xi64> to tensor<{T}xi64>")
print("  %start = call @rtclock() : () -> f64")
operands = ", ".join(["%ids"] + [a for a, _ in args])
types = ", ".join([f"tensor<{T}xi64>"] + [t for _, t in args])
print(f"  %logits = call @forward({operands}) : ({types}) -> tensor<{T}x{V}xf32>")
print(f"  %x = tensor.extract %logits[%c0, %c0] : tensor<{T}x{V}xf32>")
print("  %end = call @rtclock() : () -> f64")
print("  %seconds = arith.subf %end, %start : f64")
print("  call @printF64(%seconds) : (f64) -> ()")
print("  call @printNewline() : () -> ()")
print("  call @printF32(%x) : (f32) -> ()")
print("  call @printNewline() : () -> ()")
print("  return")
print("}")
PY
cat "$work/transformer_inference.mlir" "$work/main.mlir" > "$work/model.mlir"

libs="$build/lib/libnvfp4_cpu_runtime.so,$build/lib/libnvfp4_reference_runtime.so,$llvm_lib/libmlir_c_runner_utils.so,$llvm_lib/libmlir_runner_utils.so"
run() { # name recipe-pipeline
  local start end
  start=$(date +%s.%N)
  "$build/bin/nvfp4-opt" "$work/model.mlir" $2 \
    --nvfp4-to-cpu="kernels=$kernels" -o "$work/$1.ll.mlir"
  end=$(date +%s.%N)
  local compile
  compile=$(echo "$end - $start" | bc -l)
  start=$(date +%s.%N)
  "$llvm_bin/mlir-runner" -O3 "$work/$1.ll.mlir" -e main \
    -entry-point-result=void -shared-libs="$libs" > "$work/$1.out"
  end=$(date +%s.%N)
  local total forward logit
  total=$(echo "$end - $start" | bc -l)
  forward=$(sed -n 1p "$work/$1.out")
  logit=$(sed -n 2p "$work/$1.out")
  printf '%-6s compile %6.2f s   forward %7.3f s   mlir-runner %7.2f s   logit[0][0] %s\n' \
    "$1" "$compile" "$forward" "$total" "$logit"
  echo "$forward" > "$work/$1.seconds"
}
echo "forward pass: $layers layers, $T tokens, hidden $H, FFN $F, vocabulary $V (kernels=$kernels)"
run nvfp4 "--nvfp4-recipe"
run bf16 ""
printf 'nvfp4 forward / bf16 forward: %.2f\n' \
  "$(echo "$(cat "$work/nvfp4.seconds") / $(cat "$work/bf16.seconds")" | bc -l)"
