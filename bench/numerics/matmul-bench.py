#!/usr/bin/env python3
# ===- bench/numerics/matmul-bench.py - NVFP4 GEMM vs f32 sgemm ----------=== #
#
# Part of the NVFP4-MLIR project.
#
# Times the reference library's block-scaled NVFP4 GEMM (nvfp4.matmul, the
# bit-exact lib/Numerics/Matmul.cpp through the Python bindings) against
# numpy's f32 GEMM (the BLAS numpy links, OpenBLAS from PyPI) on the same
# dequantized operands, measured in the same run, and prints GFLOP/s
# (2 M N K flops) and the ratio. Both use every core unless
# OPENBLAS_NUM_THREADS and the --threads-free defaults are changed. Also
# checks that nvfp4.matmul equals the GEMM of the dequantized operands
# within f32 rounding (the exact check is the unit test MatmulTest).
#
# Usage: PYTHONPATH=build/python_packages bench/numerics/matmul-bench.py
#          [--sizes 256,512,1024] [--repeats 3]
#
# ===---------------------------------------------------------------------=== #
import argparse
import time

import numpy as np

import nvfp4


def best_of(repeats, fn):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="256,512,1024")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(1234)
    print(f"{'M=N=K':>7} {'nvfp4 s':>9} {'GFLOP/s':>8} {'sgemm s':>9} "
          f"{'GFLOP/s':>8} {'nvfp4/sgemm':>12}")
    for size in (int(s) for s in args.sizes.split(",")):
        x = rng.standard_normal((size, size)).astype(np.float32)
        w = rng.standard_normal((size, size)).astype(np.float32)
        qa = nvfp4.quantize(x)
        qb = nvfp4.quantize(w)
        da, db = nvfp4.dequantize(qa), nvfp4.dequantize(qb)
        c = nvfp4.matmul(qa, qb)
        ref = (da @ db.T).astype(np.float32)
        scale = np.abs(ref).max()
        assert np.abs(c - ref).max() <= 1e-4 * scale, "results differ"
        t_fp4 = best_of(args.repeats, lambda: nvfp4.matmul(qa, qb))
        t_f32 = best_of(args.repeats, lambda: da @ db.T)
        flops = 2.0 * size ** 3
        print(f"{size:>7} {t_fp4:>9.4f} {flops / t_fp4 / 1e9:>8.2f} "
              f"{t_f32:>9.4f} {flops / t_f32 / 1e9:>8.2f} "
              f"{t_f32 / t_fp4:>12.3f}")


if __name__ == "__main__":
    main()
