#!/usr/bin/env bash
#===- utils/fuzz.sh - Run the nvfp4 MLIR fuzzer --------------------------===//
#
# Part of the NVFP4-MLIR project.
#
# usage: utils/fuzz.sh [SECONDS] [libFuzzer options...]
#
# Configures (once) a clang build with NVFP4_ENABLE_FUZZERS=ON, builds
# nvfp4-mlir-fuzzer, builds the seed corpus and dictionary from the test
# suite (fuzz/build-corpus.py), and fuzzes for SECONDS (default 600) on one
# core. The corpus grows in $work/corpus across runs; findings (crashing,
# leaking or timing-out inputs) land in $work/findings/. Replay one with
#   $build/bin/nvfp4-mlir-fuzzer FILE      (or nvfp4-fuzz-replay FILE)
#
# Environment: NVFP4_FUZZ_BUILD_DIR (default <repo>/build-fuzz),
# NVFP4_FUZZ_WORK (default <build>/fuzz-work), NVFP4_JOBS (default 1),
# CC/CXX (default clang-22/clang++-22), NVFP4_FUZZ_PIPELINES (see the
# fuzzer's source).
#
#===----------------------------------------------------------------------===//
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${NVFP4_FUZZ_BUILD_DIR:-$root/build-fuzz}"
work="${NVFP4_FUZZ_WORK:-$build/fuzz-work}"
jobs="${NVFP4_JOBS:-1}"
seconds="${1:-600}"
[ "$#" -gt 0 ] && shift

if [ ! -f "$build/build.ninja" ]; then
  CC="${CC:-clang-22}" CXX="${CXX:-clang++-22}" cmake -G Ninja -S "$root" \
    -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DNVFP4_ENABLE_FUZZERS=ON -DNVFP4_ENABLE_PYTHON=OFF \
    -DNVFP4_ENABLE_BENCHMARKS=OFF
fi
ninja -C "$build" -j"$jobs" nvfp4-mlir-fuzzer nvfp4-fuzz-replay

mkdir -p "$work/corpus" "$work/findings"
rm -rf "$work/seed"
"${PYTHON:-python3}" "$root/fuzz/build-corpus.py" "$work/seed" \
  --dict "$work/mlir.dict"

# libMLIR.so is not instrumented, and containers and allocators shared
# between it and the project's instrumented code would report falsely:
# container-overflow checks are off, and so is the poisoning that LLVM's
# header-only BumpPtrAllocator does in instrumented code (libMLIR would then
# hand out memory of a slab poisoned by the project's code).
export ASAN_OPTIONS="detect_container_overflow=0:allow_user_poisoning=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:${UBSAN_OPTIONS:-}"
exec "$build/bin/nvfp4-mlir-fuzzer" "$work/corpus" "$work/seed" \
  -dict="$work/mlir.dict" -max_len=32768 -timeout=60 -rss_limit_mb=4096 \
  -max_total_time="$seconds" -artifact_prefix="$work/findings/" \
  -print_final_stats=1 "$@"
