#!/usr/bin/env bash
#===- utils/setup.sh - Install, configure, build, run the example --------===//
#
# Part of the NVFP4-MLIR project.
#
# Idempotent: installs the Debian and PyPI packages that are missing,
# configures the build directory (default: build/, or $NVFP4_BUILD_DIR) if
# needed, builds everything, then runs the main job on the bundled example
# (utils/run-example.sh). Set NVFP4_SKIP_EXAMPLE=1 to stop after the build,
# NVFP4_INSTALL_FRAMEWORKS=1 to also install PyTorch and JAX (CPU), which
# the tests of nvfp4.torch / nvfp4.jax need (they skip without them).
#
#===----------------------------------------------------------------------===//
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${NVFP4_BUILD_DIR:-$root/build}"
jobs="${NVFP4_JOBS:-$(nproc)}"

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

apt_packages=(
  cmake ninja-build g++ git
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libgtest-dev libbenchmark-dev
)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== Installing Debian packages: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq \
    --no-install-recommends "${missing[@]}"
fi

python="${PYTHON:-python3}"
if ! "$python" -c "import nanobind, numpy, ml_dtypes, pytest" 2>/dev/null; then
  echo "== Installing Python packages"
  "$python" -m pip install -q nanobind numpy ml_dtypes pytest scikit-build-core
fi
if [ "${NVFP4_INSTALL_FRAMEWORKS:-0}" = "1" ] &&
   ! "$python" -c "import torch, jax" 2>/dev/null; then
  echo "== Installing PyTorch and JAX"
  # Optional: without them (no disk space, no network) their tests skip.
  "$python" -m pip install -q --timeout 60 torch "jax[cpu]" ||
    echo "== PyTorch / JAX not installed: the front ends' tests will skip"
fi

if [ ! -f "$build/build.ninja" ]; then
  echo "== Configuring $build"
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DPython_EXECUTABLE="$(command -v "$python")"
fi

echo "== Building (ninja -j$jobs)"
ninja -C "$build" -j"$jobs"

if [ "${NVFP4_SKIP_EXAMPLE:-0}" != "1" ]; then
  "$root/utils/run-example.sh"
fi
