#!/usr/bin/env python3
# ===- triton_rows.py - Triton rows of the static comparison -----------=== #
#
# Part of the NVFP4-MLIR project.
#
# ===-------------------------------------------------------------------=== #
#
# Rows of the static comparison (bench/gpu/static-compare.sh) for Triton's
# `tl.dot_scaled` NVFP4 GEMM, compiled ahead of time without a GPU:
#
#   triton_rows.py <work dir>
#
# The kernel below is the plain Triton block-scaled matmul: tensor
# descriptors (TMA) for e2m1 A (M x K) and B (N x K) and their row-major e4m3
# scales (one per 16 elements along K), one output tile per program,
# `tl.dot_scaled` in a `tl.range` loop, and plain stores of the f32 tile (a
# descriptor store stages the whole tile in shared memory: 128 KiB at
# 128 x 256, more than sm_120 has). Triton lowers it to
# tcgen05.mma kind::mxf4nvf4 block16 on sm_100a and to mma.sync
# kind::mxf4nvf4 block_scale on sm_120a. Each row gives the cubin Triton
# compiled (its `asm["cubin"]`) to nvdisasm ($NVDISASM) and the `ptxas -v`
# log of that same compilation to sass_stats.py; the shared bytes are the
# launch's (`metadata.shared`). Triton comes from the PyPI wheel
# $NVFP4_TRITON_WHEEL, installed into the work directory; a row that does
# not compile prints the reason.
#
# ===-------------------------------------------------------------------=== #

import contextlib
import io
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WHEEL = os.environ.get("NVFP4_TRITON_WHEEL", "triton==3.9.0")

# (label, compute capability, BLOCK_M, BLOCK_N, BLOCK_K, stages, warps,
# warp-specialized). sm_100a: the 128 x 256-deep tiles of the project's
# tcgen05 kernels, software-pipelined (the MMA and TMA loads in one loop) and
# warp-specialized (`tl.range(warp_specialize=True)`: a TMA producer warp).
# sm_120a: K = 128 and the stages that fit its 99 KiB of shared memory, as
# the project's mma.sync kernels. 4 warps (Triton's default), 8 for the
# 128 x 256 tiles on sm_100a (with 4, the 256 f32 accumulator columns per
# thread spill) and on sm_120a (the MMA warps of CUTLASS's cooperative
# kernel).
CONFIGS = [
    ("Triton sm_100a 128x128x256", 100, 128, 128, 256, 4, 4, False),
    ("Triton sm_100a 128x256x256", 100, 128, 256, 256, 4, 8, False),
    ("Triton sm_100a 128x128x256 warp-specialized", 100, 128, 128, 256, 4, 4, True),
    ("Triton sm_100a 128x256x256 warp-specialized", 100, 128, 256, 256, 4, 8, True),
    ("Triton sm_120a 128x128x128", 120, 128, 128, 128, 4, 8, False),
    ("Triton sm_120a 128x256x128", 120, 128, 256, 128, 3, 8, False),
]

VECTOR = 16  # elements per e4m3 scale: NVFP4


def failed_row(label, why):
    print("| %s | %s |%s" % (label, why.replace("|", "/"), " - |" * 9))


def import_triton(work):
    target = os.path.join(work, "triton-pip")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target",
                    target, WHEEL], check=True, stdout=sys.stderr)
    # A fresh cache: a cached kernel would not print its ptxas log.
    os.environ["TRITON_CACHE_DIR"] = os.path.join(work, "triton-cache")
    # Triton 3.9's default (FMA contraction), stated to silence its warning.
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    sys.path.insert(0, target)
    import triton
    return triton


def define_kernel(triton):
    tl = triton.language

    @triton.jit
    def nvfp4_matmul(a_desc, a_scale_desc, b_desc, b_scale_desc, c, N, K,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr, VECTOR: tl.constexpr,
                     STAGES: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
        m = tl.program_id(0) * BLOCK_M
        n = tl.program_id(1) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
        for k in tl.range(0, K // BLOCK_K, num_stages=STAGES,
                          warp_specialize=WARP_SPECIALIZE):
            # Two e2m1 values per byte along K.
            a = a_desc.load([m, k * (BLOCK_K // 2)])
            b = b_desc.load([n, k * (BLOCK_K // 2)])
            a_scale = a_scale_desc.load([m, k * (BLOCK_K // VECTOR)])
            b_scale = b_scale_desc.load([n, k * (BLOCK_K // VECTOR)])
            acc = tl.dot_scaled(a, a_scale, "e2m1", b.T, b_scale, "e2m1", acc)
        rows = m + tl.arange(0, BLOCK_M)
        columns = n + tl.arange(0, BLOCK_N)
        tl.store(c + rows[:, None] * N + columns[None, :], acc)

    return nvfp4_matmul


def row(triton, kernel, work, config):
    label, capability, bm, bn, bk, stages, warps, specialize = config
    signature = {
        "a_desc": "tensordesc<u8[%d, %d]>" % (bm, bk // 2),
        "a_scale_desc": "tensordesc<fp8e4nv[%d, %d]>" % (bm, bk // VECTOR),
        "b_desc": "tensordesc<u8[%d, %d]>" % (bn, bk // 2),
        "b_scale_desc": "tensordesc<fp8e4nv[%d, %d]>" % (bn, bk // VECTOR),
        "c": "*fp32",
        "N": "i32",
        "K": "i32",
    }
    constexprs = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "VECTOR": VECTOR,
                  "STAGES": stages, "WARP_SPECIALIZE": specialize}
    signature.update({name: "constexpr" for name in constexprs})
    log = io.StringIO()
    try:
        with contextlib.redirect_stdout(log):
            compiled = triton.compile(
                triton.compiler.ASTSource(fn=kernel, signature=signature,
                                          constexprs=constexprs),
                target=triton.backends.compiler.GPUTarget("cuda", capability, 32),
                options={"num_warps": warps})
    except Exception as error:  # noqa: BLE001 - the row says why
        why = str(error).strip().splitlines()
        print("static-compare: %s does not compile: %s" % (label, why[:1]),
              file=sys.stderr)
        failed_row(label, "does not compile: " + (why[0][:120] if why else
                                                   type(error).__name__))
        return
    directory = os.path.join(work, "triton-%d-%dx%dx%d-%s" % (
        capability, bm, bn, bk, "ws" if specialize else "pipelined"))
    os.makedirs(directory, exist_ok=True)
    paths = {name: os.path.join(directory, name)
             for name in ("kernel.cubin", "ptxas.txt", "sass.txt", "shared.txt")}
    with open(paths["kernel.cubin"], "wb") as f:
        f.write(compiled.asm["cubin"])
    with open(paths["ptxas.txt"], "w") as f:
        f.write(log.getvalue())
    with open(paths["sass.txt"], "w") as f:
        subprocess.run([os.environ["NVDISASM"], "-c", paths["kernel.cubin"]],
                       check=True, stdout=f)
    name = compiled.metadata.name
    with open(paths["shared.txt"], "w") as f:
        f.write("%s %d\n" % (name, compiled.metadata.shared))
    sys.stdout.flush()
    subprocess.run([sys.executable, os.path.join(HERE, "..", "sass_stats.py"),
                    "--label", label, "--kernel", "^%s$" % name,
                    "--name", "%s, %d stages, %d warps" % (
                        name, stages, compiled.metadata.num_warps),
                    "--ptxas", paths["ptxas.txt"], "--sass", paths["sass.txt"],
                    "--shared", paths["shared.txt"]], check=True)


def main():
    work = sys.argv[1]
    try:
        triton = import_triton(work)
    except (subprocess.CalledProcessError, ImportError) as error:
        print("static-compare: no Triton (%s): %s" % (WHEEL, error), file=sys.stderr)
        failed_row("Triton", "no Triton from " + WHEEL)
        return 0
    # The kernel's ptxas log (`ptxas -v`), printed by each compilation.
    triton.knobs.nvidia.dump_ptxas_log = True
    kernel = define_kernel(triton)
    for config in CONFIGS:
        row(triton, kernel, work, config)
    return 0


if __name__ == "__main__":
    sys.exit(main())
