#!/usr/bin/env python3
# ===- bench/numerics/matmul-bench.py - NVFP4 GEMM vs f32 sgemm ----------=== #
#
# Part of the NVFP4-MLIR project.
#
# Times the reference library's block-scaled NVFP4 GEMM (nvfp4.matmul, the
# bit-exact lib/Numerics/Matmul.cpp through the Python bindings) against
# numpy's f32 GEMM (the BLAS numpy links, OpenBLAS from PyPI) on the same
# dequantized operands, measured in the same run, both on --threads threads
# (OPENBLAS_NUM_THREADS and nvfp4.matmul's threads), and prints GFLOP/s
# (2 M N K flops) and the ratio. Also checks that nvfp4.matmul equals the
# GEMM of the dequantized operands within f32 rounding (the exact check is
# the unit test MatmulTest).
#
# Usage: PYTHONPATH=build/python_packages bench/numerics/matmul-bench.py
#          [--sizes 256,512,1024] [--repeats 20] [--threads 1]
#
# ===---------------------------------------------------------------------=== #
import argparse
import os
import sys
import time


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
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    # The BLAS reads its thread count when numpy is first imported.
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    if "numpy" in sys.modules:
        sys.exit("matmul-bench: numpy was imported before the thread count "
                 "was set")
    global np, nvfp4
    import numpy as np
    import nvfp4
    rng = np.random.default_rng(1234)
    print(f"threads: {args.threads}")
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
        t_fp4 = best_of(args.repeats,
                        lambda: nvfp4.matmul(qa, qb, threads=args.threads))
        t_f32 = best_of(args.repeats, lambda: da @ db.T)
        flops = 2.0 * size ** 3
        print(f"{size:>7} {t_fp4:>9.4f} {flops / t_fp4 / 1e9:>8.2f} "
              f"{t_f32:>9.4f} {flops / t_f32 / 1e9:>8.2f} "
              f"{t_f32 / t_fp4:>12.3f}")


if __name__ == "__main__":
    main()
