#!/usr/bin/env bash
# Rows of the static comparison (bench/gpu/static-compare.sh) for the CUTLASS
# NVFP4 block-scaled GEMMs (cutlass_nvfp4_gemm.cu): the sm_100a tcgen05
# kernels with the 128 x 128 and 128 x 256 1-SM tiles and the 256 x 256 CTA
# pair, and the sm_120a mma.sync kernels with the 128 x 128 and 128 x 256
# tiles. Each is compiled to PTX with nvcc, assembled with the same ptxas and
# disassembled with the same nvdisasm as the project's kernels, and measured
# by sass_stats.py. A configuration that does not build prints its row with
# the reason.
#
#   bench/gpu/baselines/cutlass-rows.sh <work dir>
#
# The CUTLASS headers come from $CUTLASS_INCLUDE (the directory with cute/
# and cutlass/) or from the PyPI wheel nvidia-cutlass ($NVFP4_CUTLASS_WHEEL,
# installed into the work directory). Needs $NVDISASM and the toolkit
# (CUDA_HOME, default /usr/local/cuda).
set -euo pipefail
work=${1:?usage: cutlass-rows.sh <work dir>}
here=$(cd "$(dirname "$0")" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
nvdisasm=${NVDISASM:?cutlass-rows.sh needs NVDISASM}
wheel=${NVFP4_CUTLASS_WHEEL:-nvidia-cutlass==4.2.0.0}

failed_row() {
  echo "| $1 | $2 | - | - | - | - | - | - | - | - | - |"
}

include=${CUTLASS_INCLUDE:-}
if [ -z "$include" ]; then
  if python3 -m pip install -q --target "$work/cutlass-pip" "$wheel" >&2; then
    # The wheel ships the C++ sources under cutlass_library/source.
    header=$(find "$work/cutlass-pip" -path '*/include/cutlass/cutlass.h' | head -1)
    include=${header%/cutlass/cutlass.h}
  fi
fi
if [ -z "$include" ] || [ ! -d "$include/cute" ]; then
  echo "static-compare: no CUTLASS headers (${CUTLASS_INCLUDE:-from $wheel})" >&2
  failed_row "CUTLASS" "no CUTLASS headers (${CUTLASS_INCLUDE:-from $wheel})"
  exit 0
fi

# <label> <arch> <tile M> <tile N> <tile K> <cluster M>
row() {
  local label=$1 arch=$2
  local dir="$work/cutlass-$arch-$3x$4x$5-$6"
  mkdir -p "$dir"
  if ! nvcc_err=$("$cuda/bin/nvcc" -std=c++17 -O3 -arch="$arch" -ptx \
        --expt-relaxed-constexpr -I"$include" -DNVFP4_ARCH="${arch:3:3}" \
        -DTILE_M="$3" -DTILE_N="$4" -DTILE_K="$5" -DCLUSTER_M="$6" \
        "$here/cutlass_nvfp4_gemm.cu" -o "$dir/kernel.ptx" 2>&1); then
    echo "static-compare: $label does not build:" >&2
    echo "$nvcc_err" | grep -m 3 'error' >&2 || true
    failed_row "$label" "does not build: $(echo "$nvcc_err" | grep -m 1 -o 'error: .*' | tr -d '|' | cut -c1-120)"
    return
  fi
  "$cuda/bin/ptxas" -arch="$arch" -v "$dir/kernel.ptx" -o "$dir/kernel.cubin" \
    > "$dir/ptxas.txt" 2>&1
  "$nvdisasm" -c "$dir/kernel.cubin" > "$dir/sass.txt"
  local kernel
  kernel=$(sed -n 's/^\.entry \([A-Za-z0-9_]*\)(.*/\1/p' "$dir/kernel.ptx")
  echo "$kernel $(sed -n 's/.* nvfp4_baseline_dynamic_shared_bytes = \([0-9]*\);/\1/p' "$dir/kernel.ptx")" \
    > "$dir/shared.txt"
  # The name column: the mainloop's dispatch policy and its stage count.
  local name
  name=$(echo "$kernel" | sed -n 's/.*\(Mainloop[A-Za-z0-9]*\)ILi\([0-9]*\)E.*/\1, \2 stages/p')
  python3 "$here/../sass_stats.py" --label "$label" --kernel "^$kernel\$" \
    --name "$name" --ptxas "$dir/ptxas.txt" --sass "$dir/sass.txt" \
    --shared "$dir/shared.txt"
}

row "CUTLASS sm_100a 1-SM 128x128x256" sm_100a 128 128 256 1
row "CUTLASS sm_100a 1-SM 128x256x256" sm_100a 128 256 256 1
row "CUTLASS sm_100a 2-SM 256x256x256" sm_100a 256 256 256 2
row "CUTLASS sm_120a 128x128x128" sm_120a 128 128 128 1
row "CUTLASS sm_120a 128x256x128" sm_120a 128 256 128 1
