#!/usr/bin/env python3
# ===- bench/gpu/transfer-bench.py - Host/device copies of lowered programs ===//
#
# Part of the NVFP4-MLIR project.
#
# Counts the host<->device copies nvfp4-to-gpu-executable puts in programs:
# each program is lowered for each target twice, with the device buffers
# kept across launches (the default) and with copies-per-launch=true (the
# baseline: every operand copied in before and out after each launch), and
# the gpu.memcpy ops after nvfp4-gpu-stage-launch-operands are counted with
# their bytes (from the memref types; a copy is host-to-device when its
# destination is a gpu.alloc). The programs' host code has no loops around
# launches, so each copy runs once per call: the static count is the count
# at run time (test/GPU/stage-launch-operands-emulated.mlir checks one
# program's copies as the GPU emulator reports them).
#
# Usage: bench/gpu/transfer-bench.py [--build DIR]   (needs a built build/)
#
# ===----------------------------------------------------------------------===//

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (name, file, extra nvfp4-opt flags before the pipeline)
PROGRAMS = [
    ("linear 64x64 (recipe)", "examples/linear.mlir", ["--nvfp4-recipe"]),
    ("2-layer MLP 128x256", "test/GPU/stage-launch-operands-emulated.mlir", []),
    (
        "transformer training step (recipe)",
        "examples/transformer_training.mlir",
        ["--nvfp4-recipe"],
    ),
]
TARGETS = ["sm_100a", "sm_120a", "sm_90a"]

ELEMENT_BYTES = {
    "f32": 4,
    "i32": 4,
    "f16": 2,
    "bf16": 2,
    "i8": 1,
    "i4": 1,
    "i1": 1,
    "f8E4M3FN": 1,
    "f8E5M2": 1,
    "f8E8M0FNU": 1,
    # An E2M1 buffer a kernel writes is copied one code per byte
    # (docs/gpu-runtime.md, "Why the packing is needed").
    "f4E2M1FN": 1,
    "i64": 8,
    "f64": 8,
    "index": 8,
}

ALLOC = re.compile(r"^\s*(%[\w.$-]+) = gpu\.alloc\b")
MEMCPY = re.compile(r"^\s*gpu\.memcpy\s+(%[\w.$-]+), (%[\w.$-]+) : memref<([^>]*)>")
FUNC = re.compile(r"^\s*func\.func\b")


def memref_bytes(shape_and_type):
    parts = shape_and_type.split(",")[0].split("x")
    element = parts[-1]
    if element not in ELEMENT_BYTES:
        raise ValueError("unknown element type in memref<%s>" % shape_and_type)
    count = 1
    for dim in parts[:-1]:
        count *= int(dim)
    return count * ELEMENT_BYTES[element]


def count_copies(ir):
    """(copies, bytes) host-to-device and device-to-host in `ir`."""
    h2d = [0, 0]
    d2h = [0, 0]
    device = set()
    for line in ir.splitlines():
        if FUNC.match(line):
            device = set()
        m = ALLOC.match(line)
        if m:
            device.add(m.group(1))
            continue
        m = MEMCPY.match(line)
        if not m:
            continue
        counter = h2d if m.group(1) in device else d2h
        counter[0] += 1
        counter[1] += memref_bytes(m.group(3))
    return h2d, d2h


def lower(opt, path, flags, target, per_launch):
    pipeline = "target=%s%s" % (target, " copies-per-launch=true" if per_launch else "")
    with tempfile.NamedTemporaryFile("w+", suffix=".mlir") as dump:
        result = subprocess.run(
            [opt, path]
            + flags
            + [
                "--nvfp4-to-gpu-executable=" + pipeline,
                "--mlir-print-ir-after=nvfp4-gpu-stage-launch-operands",
                "-o",
                os.devnull,
            ],
            stderr=dump,
            check=False,
        )
        dump.seek(0)
        text = dump.read()
    if result.returncode != 0:
        sys.exit("nvfp4-opt failed on %s (%s):\n%s" % (path, pipeline, text[-2000:]))
    return text


def mib(n):
    return "%.2f" % (n / (1 << 20))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default=os.environ.get("NVFP4_BUILD_DIR", os.path.join(ROOT, "build")))
    args = parser.parse_args()
    opt = os.path.join(args.build, "bin", "nvfp4-opt")

    print(
        "| program | target | copies per launch: in / out | MiB in / out "
        "| kept on device: in / out | MiB in / out | bytes ratio |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, rel, flags in PROGRAMS:
        path = os.path.join(ROOT, rel)
        for target in TARGETS:
            (bh, bd) = count_copies(lower(opt, path, flags, target, True))
            (rh, rd) = count_copies(lower(opt, path, flags, target, False))
            base = bh[1] + bd[1]
            kept = rh[1] + rd[1]
            ratio = "%.1fx" % (base / kept) if kept else "-"
            print(
                "| %s | %s | %d / %d | %s / %s | %d / %d | %s / %s | %s |"
                % (
                    name,
                    target,
                    bh[0],
                    bd[0],
                    mib(bh[1]),
                    mib(bd[1]),
                    rh[0],
                    rd[0],
                    mib(rh[1]),
                    mib(rd[1]),
                    ratio,
                )
            )


if __name__ == "__main__":
    main()
