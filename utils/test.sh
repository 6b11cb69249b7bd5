#!/usr/bin/env bash
#===- utils/test.sh - Run every test -------------------------------------===//
#
# Part of the NVFP4-MLIR project.
#
# Builds what is out of date, then runs the whole suite through lit: the
# FileCheck tests, the GoogleTest unit tests, the C API test, the Python
# tests and the CPU integration tests. Tests that need ptxas or a GPU are
# reported as unsupported where those are absent. Ends with one summary line.
#
#===----------------------------------------------------------------------===//
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${NVFP4_BUILD_DIR:-$root/build}"
jobs="${NVFP4_JOBS:-$(nproc)}"

if [ ! -f "$build/build.ninja" ]; then
  NVFP4_SKIP_EXAMPLE=1 "$root/utils/setup.sh"
fi
ninja -C "$build" -j"$jobs" all mlir-doc

results="$build/test-results.json"
status=0
/usr/lib/llvm-22/bin/lit -sv -j"$jobs" -o "$results" \
  "$build/test" "$build/unittests" || status=$?

"${PYTHON:-python3}" - "$results" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    tests = json.load(f)["tests"]
codes = [t["code"] for t in tests]
passed = sum(c in ("PASS", "XFAIL") for c in codes)
failed = sum(c in ("FAIL", "XPASS", "UNRESOLVED", "TIMEOUT") for c in codes)
skipped = sum(c == "UNSUPPORTED" for c in codes)
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
PY
exit "$status"
