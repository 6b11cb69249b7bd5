#!/usr/bin/env python3
# ===- bench/numerics/matmul-bench.py - NVFP4 GEMM vs f32 sgemm ----------=== #
#
# Part of the NVFP4-MLIR project.
#
# Times the reference library's block-scaled NVFP4 GEMM (nvfp4.matmul, the
# bit-exact lib/Numerics/Matmul.cpp through the Python bindings) against
# numpy's f32 GEMM (the BLAS numpy links, OpenBLAS from PyPI) on the same
# dequantized operands, measured in the same run on each thread count of
# --threads, and prints GFLOP/s (2 M N K flops), the ratio to sgemm, and each
# GEMM's speedup over its own run on the first thread count: the sgemm's
# speedup is what the cores gave in the same minutes (on a shared virtual
# machine, the host decides that). The thread counts alternate within each
# repetition and the best time of each is kept, so that a slow spell of the
# machine hits all of them. Also checks that nvfp4.matmul equals the GEMM of
# the dequantized operands within f32 rounding (the exact check is the unit
# test MatmulTest).
#
# Usage: PYTHONPATH=build/python_packages bench/numerics/matmul-bench.py
#          [--sizes 256,512,1024] [--repeats 50] [--threads 1,2]
# Several thread counts need threadpoolctl (pip install threadpoolctl) to
# set the BLAS's threads between measurements.
#
# ===---------------------------------------------------------------------=== #
import argparse
import os
import sys
import time


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="256,512,1024")
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()
    thread_counts = [int(t) for t in args.threads.split(",")]
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        if len(thread_counts) > 1:
            sys.exit("matmul-bench: several thread counts need threadpoolctl "
                     "(pip install threadpoolctl)")
        # The BLAS reads its thread count when numpy is first imported.
        os.environ["OPENBLAS_NUM_THREADS"] = str(thread_counts[0])
        if "numpy" in sys.modules:
            sys.exit("matmul-bench: numpy was imported before the thread "
                     "count was set")
        threadpool_limits = None
    global np, nvfp4
    import numpy as np
    import nvfp4

    def blas_threads(count):
        if threadpool_limits is None:
            import contextlib
            return contextlib.nullcontext()
        return threadpool_limits(limits=count, user_api="blas")

    rng = np.random.default_rng(1234)
    print(f"{'M=N=K':>7} {'threads':>7} {'nvfp4 s':>9} {'GFLOP/s':>8} "
          f"{'sgemm s':>9} {'GFLOP/s':>8} {'nvfp4/sgemm':>12} "
          f"{'nvfp4 speedup':>14} {'sgemm speedup':>14}")
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
        best = {(t, g): float("inf") for t in thread_counts
                for g in ("fp4", "f32")}
        for _ in range(args.repeats):
            for t in thread_counts:
                best[t, "fp4"] = min(best[t, "fp4"], timed(
                    lambda: nvfp4.matmul(qa, qb, threads=t)))
                with blas_threads(t):
                    best[t, "f32"] = min(best[t, "f32"],
                                         timed(lambda: da @ db.T))
        flops = 2.0 * size ** 3
        first = thread_counts[0]
        for t in thread_counts:
            t_fp4, t_f32 = best[t, "fp4"], best[t, "f32"]
            print(f"{size:>7} {t:>7} {t_fp4:>9.4f} {flops / t_fp4 / 1e9:>8.2f} "
                  f"{t_f32:>9.4f} {flops / t_f32 / 1e9:>8.2f} "
                  f"{t_f32 / t_fp4:>12.3f} "
                  f"{best[first, 'fp4'] / t_fp4:>14.2f} "
                  f"{best[first, 'f32'] / t_f32:>14.2f}")


if __name__ == "__main__":
    main()
