#!/usr/bin/env bash
# Regenerates the dialect and pass docs from ODS and refreshes docs/generated.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${NVFP4_BUILD_DIR:-$root/build}"
ninja -C "$build" mlir-doc
rm -rf "$root/docs/generated"
cp -r "$build/docs" "$root/docs/generated"
