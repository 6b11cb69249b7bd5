#!/usr/bin/env bash
#===- utils/test-sanitizers.sh - The test suite under ASan and UBSan -----===//
#
# Part of the NVFP4-MLIR project.
#
# Builds the project with AddressSanitizer and UBSan (NVFP4_ENABLE_SANITIZERS,
# g++, Release, no Python extension, no benchmarks) in its own build
# directory, and runs the whole lit suite with it: FileCheck tests, CPU
# integration tests under mlir-runner, the plugin, C API and determinism
# tests, and the GoogleTest unit tests (the Python package and the
# installed-package consumer are not built with the sanitizer runtimes and
# are reported as skipped, like the GPU execution tests without a GPU).
#
# NVFP4_SANITIZER_SUITES overrides the list of suites, relative to the build
# directory (e.g. `test/Dialect unittests`). Ends with one line:
# `sanitizer tests: N passed, N failed, N skipped`; exits non-zero when a
# test fails.
#
# Environment: NVFP4_SANITIZER_BUILD_DIR (default <repo>/build-asan),
# NVFP4_JOBS (default: the number of cores).
#
#===----------------------------------------------------------------------===//
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${NVFP4_SANITIZER_BUILD_DIR:-$root/build-asan}"
jobs="${NVFP4_JOBS:-$(nproc)}"
suites="${NVFP4_SANITIZER_SUITES:-test unittests}"

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DNVFP4_ENABLE_SANITIZERS=ON \
    -DNVFP4_ENABLE_PYTHON=OFF \
    -DNVFP4_ENABLE_BENCHMARKS=OFF
fi
echo "== Building the sanitizer configuration in $build (ninja -j$jobs)"
# Everything the suite uses, and the generated documentation it compares.
ninja -C "$build" -j"$jobs" all mlir-doc

# libMLIR.so is not instrumented, and containers and allocators shared
# between it and the project's instrumented code would report falsely:
# container-overflow checks are off, and so is the poisoning that LLVM's
# header-only BumpPtrAllocator does in instrumented code (libMLIR would then
# hand out memory of a slab poisoned by the project's code).
export ASAN_OPTIONS="detect_container_overflow=0:allow_user_poisoning=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:${UBSAN_OPTIONS:-}"

paths=()
for suite in $suites; do
  paths+=("$build/$suite")
done
results="$build/sanitizer-test-results.json"
status=0
/usr/lib/llvm-22/bin/lit -sv -j"$jobs" -o "$results" "${paths[@]}" \
  || status=$?

"${PYTHON:-python3}" - "$results" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    tests = json.load(f)["tests"]
codes = [t["code"] for t in tests]
passed = sum(c in ("PASS", "XFAIL") for c in codes)
failed = sum(c in ("FAIL", "XPASS", "UNRESOLVED", "TIMEOUT") for c in codes)
skipped = sum(c == "UNSUPPORTED" for c in codes)
print(f"sanitizer tests: {passed} passed, {failed} failed, {skipped} skipped")
PY
exit "$status"
