#!/usr/bin/env bash
# Static figures of the generated GEMM kernels, without a GPU (see
# bench/gpu/README.md, "Static comparison"): for each kernel, ptxas's
# registers / spills, the shared memory of the launch, the SASS of its main
# loops (nvdisasm: instructions and shared-memory loads per MMA, barriers per
# iteration, the producer loop's TMA and plain global loads), and the GPU
# emulator's global coalescing and bank conflicts on a runnable case of the
# same kernel family. Prints one Markdown table, then the same figures of
# the external baselines (bench/gpu/baselines: CUTLASS's SM100 and SM120
# NVFP4 block-scaled GEMMs, Triton's `tl.dot_scaled`), without the emulator
# columns; NVFP4_STATIC_COMPARE_BASELINES=0 leaves them out.
#
#   bench/gpu/static-compare.sh <build dir> [M K]
#
# Needs the CUDA toolkit's ptxas (CUDA_HOME, default /usr/local/cuda) and
# nvdisasm: $NVDISASM, the toolkit's, or the PyPI wheel nvidia-cuda-nvdisasm
# (installed into a temporary directory when missing). The baselines install
# their PyPI wheels (nvidia-cutlass, triton) into the same directory.
set -euo pipefail
build=$(cd "${1:?usage: static-compare.sh <build dir> [M K]}" && pwd)
m=${2:-4096}; k=${3:-4096}
root=$(cd "$(dirname "$0")/../.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

nvdisasm=${NVDISASM:-}
if [ -z "$nvdisasm" ] && [ -x "$cuda/bin/nvdisasm" ]; then
  nvdisasm=$cuda/bin/nvdisasm
fi
if [ -z "$nvdisasm" ]; then
  python3 -m pip install -q --target "$work/pip" nvidia-cuda-nvdisasm >&2
  nvdisasm=$(find "$work/pip" -name nvdisasm -type f | head -1)
  chmod +x "$nvdisasm"
fi

runner=/usr/lib/llvm-22/bin/mlir-runner
libs="$build/lib/libnvfp4_gpu_emulator.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so,$build/lib/libnvfp4_reference_runtime.so,$build/lib/libnvfp4_cuda_runtime_checks.so"

# The emulated case of a row: test/GPU/Inputs/matmul-tile-cases.mlir (M =
# 256, K = 512, checked against the reference) with N = $1 (384, or 512 for
# the 256-wide tiles) and B's scale block $2, its matmul in a function
# @gemm of the row's signature, so that the operands cross a function
# boundary as in the row's kernel (the same kernel family, scale layouts
# included). Only the file's first case (1x16 A x 16x16 B) runs: the
# others are dropped. Prints the file's path.
emulated_case() {
  local n=$1 bblock=$2 out="$work/cases${1}_${2}.mlir"
  local scaleRows=$((n / 16)) blockRows=16
  if [ "$bblock" = 1x16 ]; then scaleRows=$n; blockRows=1; fi
  local ta="!nvfp4.tensor<256x512, 1x16>" tb="!nvfp4.tensor<${n}x512, ${bblock}>"
  local tc="tensor<256x${n}xf32>"
  sed -E "/^func.func @matmul_tiles_16x16_a/,/^}/d; /call @matmul_tiles_16x16_a/d;
          s/384/$n/g; s/<24x32/<${scaleRows}x32/g;
          s/%bR = arith.constant 16 : i64/%bR = arith.constant $blockRows : i64/;
          s/${n}x512, 16x16>/${n}x512, ${bblock}>/g;
          s/^  %y = nvfp4.matmul %qa, %qb : .*$/  %y = func.call @gemm(%qa, %qb) : ($ta, $tb) -> $tc/" \
    "$root/test/GPU/Inputs/matmul-tile-cases.mlir" > "$out"
  cat >> "$out" <<MLIR
func.func @gemm(%a: $ta, %b: $tb) -> $tc {
  %c = nvfp4.matmul %a, %b : $ta, $tb -> $tc
  return %c : $tc
}
MLIR
  echo "$out"
}

# <label> <target> <options> <N> <emulated N> [B block]: one GEMM of
# M x N x K (1x16 A, f32) and the emulated case of that N with the same
# options. B's scale block: 16x16 (the default; a weight of the recipe,
# which crosses the function boundary with row-major scales) or 1x16 (like
# CUTLASS's B: in the 128x4 atoms the tcgen05 kernel bulk-copies).
row() {
  local label=$1 target=$2 options=$3 n=$4 emulatedN=$5 bblock=${6:-16x16}
  local dir="$work/$label"
  mkdir -p "$dir"
  cat > "$dir/gemm.mlir" <<MLIR
func.func @gemm(%a: !nvfp4.tensor<${m}x${k}, 1x16>, %b: !nvfp4.tensor<${n}x${k}, ${bblock}>) -> tensor<${m}x${n}xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<${m}x${k}, 1x16>, !nvfp4.tensor<${n}x${k}, ${bblock}> -> tensor<${m}x${n}xf32>
  return %c : tensor<${m}x${n}xf32>
}
MLIR
  "$build/bin/nvfp4-opt" "$dir/gemm.mlir" \
    --convert-nvfp4-to-gpu="target=$target $options" \
    | sed -n 's/.*gpu.launch_func *@nvfp4_kernels::@\([a-z0-9_]*\) .*dynamic_shared_memory_size %c\([0-9]*\)_i32.*/\1 \2/p' \
    > "$dir/shared.txt"
  "$build/bin/nvfp4-opt" "$dir/gemm.mlir" --nvfp4-to-ptx="target=$target $options" \
    | "$build/bin/nvfp4-translate" --nvfp4-extract-ptx -o "$dir/kernels.ptx"
  "$cuda/bin/ptxas" -arch="$target" -v "$dir/kernels.ptx" -o "$dir/kernels.cubin" \
    > "$dir/ptxas.txt" 2>&1
  "$nvdisasm" -c "$dir/kernels.cubin" > "$dir/sass.txt"
  "$build/bin/nvfp4-opt" "$(emulated_case "$emulatedN" "$bblock")" \
    --nvfp4-to-gpu-emulation="target=$target $options" \
    | NVFP4_GPU_EMULATOR_REPORT=1 "$runner" -e main -entry-point-result=void \
        -shared-libs="$libs" > "$dir/emulator.txt" 2>&1
  if ! grep -q "outside bound 0 " "$dir/emulator.txt"; then
    echo "static-compare: the emulated $label case failed:" >&2
    cat "$dir/emulator.txt" >&2
    exit 1
  fi
  python3 "$root/bench/gpu/sass_stats.py" --label "$label" \
    --ptxas "$dir/ptxas.txt" --sass "$dir/sass.txt" \
    --shared "$dir/shared.txt" --emulator "$dir/emulator.txt"
}

echo "M = $m, K = $k; A 1x16 (atoms at the function boundary on sm_100a), B 16x16 unless the row says 1x16, f32 result (emulator: M = 256, N = 384 or 512, K = 512)"
echo
echo "| kernel | name | registers | spill bytes | shared bytes | MMA loop: instructions / MMAs | shared loads per MMA | barriers per MMA-loop iteration | producer loop: instructions | emulator: global coalescing | emulator: bank conflicts |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
# N = M + 128 is an odd multiple of 128: the 128-wide tcgen05 tile.
row "sm_100a 1-CTA N=128" sm_100a "tcgen05-cta-pair=off" $((m + 128)) 384
row "sm_100a 1-CTA N=256" sm_100a "tcgen05-cta-pair=off" "$m" 512
row "sm_100a pair N=256" sm_100a "tcgen05-cta-pair=on" "$m" 512
row "sm_100a 1-CTA N=128 B 1x16" sm_100a "tcgen05-cta-pair=off" $((m + 128)) 384 1x16
row "sm_100a 1-CTA N=256 B 1x16" sm_100a "tcgen05-cta-pair=off" "$m" 512 1x16
row "sm_100a pair N=256 B 1x16" sm_100a "tcgen05-cta-pair=on" "$m" 512 1x16
row "sm_120a 128x128" sm_120a "tile=128x128" "$m" 384
row "sm_120a 128x256" sm_120a "tile=128x256" "$m" 512

if [ "${NVFP4_STATIC_COMPARE_BASELINES:-1}" != 0 ]; then
  # A baseline that cannot be built prints its row with the reason; these
  # fail only when the tools themselves do.
  NVDISASM=$nvdisasm "$root/bench/gpu/baselines/cutlass-rows.sh" "$work" \
    || echo "static-compare: the CUTLASS rows failed" >&2
  NVDISASM=$nvdisasm python3 "$root/bench/gpu/baselines/triton_rows.py" "$work" \
    || echo "static-compare: the Triton rows failed" >&2
fi
