#!/usr/bin/env bash
# Prepares, on a machine without a GPU, everything a GPU machine needs to
# run the GPU benchmarks with nothing but the CUDA driver and cuBLAS (no
# MLIR): the benchmark binaries, the sources to rebuild them there if they
# cannot load, and per case the kernels' PTX and launch plan; plus
# run-all.sh, which runs every case and prints one Markdown table.
#
#   bench/gpu/device-bundle.sh <build dir> <bundle dir> [target (sm_90a)]
#   <bundle dir>/run-all.sh            # on the GPU machine
#
# Targets: sm_90a (H100, H200), sm_100a / sm_103a / sm_110a (B200, B300,
# Thor: the persistent tcgen05 kernels, their grid from the device's SM
# count, their tensor maps encoded by the benchmark), sm_120a / sm_121a.
#
# Cases: GEMMs (A 1x16, B 16x16 unless named, f32 result) 4096^3, 8192^3,
# 4096^3 with B 1x16, and a decode-shaped 16 x 8192 x 8192; quantizes of
# 8192 x 8192 f32 and bf16 with 1x16 blocks and f32 with 16x16 blocks.
set -euo pipefail
usage="usage: device-bundle.sh <build dir> <bundle dir> [target]"
build=$(cd "${1:?$usage}" && pwd)
out=${2:?$usage}
target=${3:-sm_90a}
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out/bin" "$out/src/bench/gpu" "$out/src/lib/Numerics" \
  "$out/src/include/nvfp4/Numerics" \
  "$out/src/include/nvfp4/Conversion/NVFP4ToGPU/Tcgen05" \
  "$out/src/include/nvfp4/ExecutionEngine"
cp "$build/bin/nvfp4-bench-gpu" "$build/bin/nvfp4-bench-gpu-quantize" \
  "$out/bin/"
cp "$src"/bench/gpu/{GemmBench,QuantizeBench,LaunchPlanReader,PlanLauncher}.cpp \
  "$src"/bench/gpu/{LaunchPlanReader,PlanLauncher}.h "$out/src/bench/gpu/"
cp "$src"/lib/Numerics/*.cpp "$src"/lib/Numerics/*.h "$out/src/lib/Numerics/"
cp "$src"/include/nvfp4/Numerics/*.h "$out/src/include/nvfp4/Numerics/"
# The tensor-map rules the plan reader checks (MLIR-free headers).
cp "$src"/include/nvfp4/Conversion/NVFP4ToGPU/Tcgen05/{Tcgen05TensorMap,Tcgen05Descriptors}.h \
  "$out/src/include/nvfp4/Conversion/NVFP4ToGPU/Tcgen05/"
# ... and the encoding the launcher shares with the runtime.
cp "$src"/include/nvfp4/ExecutionEngine/CudaTensorMap.h \
  "$out/src/include/nvfp4/ExecutionEngine/"

cases=()
gemm() { # name M N K A-rows B-rows
  NVFP4_BENCH_KEEP="$out/$1" "$src/bench/gpu/run.sh" --dry-run "$build" \
    "$target" "$2" "$3" "$4" "$5" "$6" > /dev/null
  rm -f "$out/$1/gemm.lowered.mlir"
  cases+=("gemm $1")
}
quantize() { # name M K rows type
  NVFP4_BENCH_KEEP="$out/$1" "$src/bench/gpu/run-quantize.sh" --dry-run \
    "$build" "$target" "$2" "$3" "$4" "$5" > /dev/null
  rm -f "$out/$1/quantize.lowered.mlir"
  cases+=("quantize $1")
}
gemm gemm-4096 4096 4096 4096 1 16
gemm gemm-8192 8192 8192 8192 1 16
gemm gemm-4096-b1x16 4096 4096 4096 1 1
gemm gemm-decode-16x8192x8192 16 8192 8192 1 16
quantize quantize-8192-f32 8192 8192 1 f32
quantize quantize-8192-bf16 8192 8192 1 bf16
quantize quantize-8192-f32-16x16 8192 8192 16 f32

{
  cat <<'HEAD'
#!/usr/bin/env bash
# Written by bench/gpu/device-bundle.sh: runs every benchmark case of this
# bundle on device 0 and prints the logs, then one Markdown table. Exits 1
# when a case fails (a driver error or a result that differs from the
# reference library).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
# cuBLAS from the nvidia-cublas wheel where the toolkit has none.
if cublas=$(python3 -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null); then
  export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$cublas
  cublasLink=-L$cublas
fi
bin=$here/bin
if ldd "$bin/nvfp4-bench-gpu" | grep -q "not found"; then
  echo "prebuilt binaries do not load here; rebuilding from the bundled sources"
  bin=$here/rebuilt; mkdir -p "$bin"
  s=$here/src
  flags="-std=c++17 -O2 -I$s/include -I/usr/local/cuda/include -pthread"
  objs=()
  for f in "$s"/lib/Numerics/*.cpp; do
    o=$bin/$(basename "$f" .cpp).o
    contract=off; [[ $f == */Matmul.cpp ]] && contract=fast
    g++ $flags -ffp-contract=$contract -fno-fast-math -c "$f" -o "$o" || exit 1
    objs+=("$o")
  done
  for tool in GemmBench:nvfp4-bench-gpu QuantizeBench:nvfp4-bench-gpu-quantize; do
    g++ $flags "$s/bench/gpu/${tool%%:*}.cpp" "$s/bench/gpu/LaunchPlanReader.cpp" \
      "$s/bench/gpu/PlanLauncher.cpp" "${objs[@]}" -o "$bin/${tool##*:}" \
      -L/usr/local/cuda/lib64 ${cublasLink:-} -L/usr/local/cuda/lib64/stubs \
      -l:libcublas.so.13 -lcuda || exit 1
  done
fi
status=0
rows=()
HEAD
  for c in "${cases[@]}"; do
    kind=${c%% *}; name=${c#* }
    tool=nvfp4-bench-gpu; [[ $kind == quantize ]] && tool=nvfp4-bench-gpu-quantize
    cat <<CASE
echo "== $name"
if log=\$("\$bin/$tool" --kernels "\$here/$name/kernels.ptx" --plan "\$here/$name/plan.txt" 2>&1); then ok=yes; else ok=no; status=1; fi
echo "\$log"
rows+=("| $name | \$(echo "\$log" | grep -E '^(nvfp4 GEMM|nvfp4 quantize)' | sed 's/,.*//; s/^[^:]*: //') | \$(echo "\$log" | grep -E '^(cuBLAS|memcpy)' | head -1 | sed 's/^[^:]*: //') | \$(echo "\$log" | grep -E '^ratio' | sed 's/.*: //') | \$(echo "\$log" | grep -E '^check' | sed 's/^[^:]*: //') | \$ok |")
CASE
  done
  cat <<'TAIL'
echo
echo "| case | nvfp4 | baseline (cuBLAS bf16 / memcpy) | ratio | check | ok |"
echo "| --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
exit $status
TAIL
} > "$out/run-all.sh"
chmod +x "$out/run-all.sh"
du -sh "$out" | cut -f1 | sed "s|^|bundle $out: |"
