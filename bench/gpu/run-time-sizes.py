#!/usr/bin/env python3
# ===- run-time-sizes.py - Kernels and compile time, run-time vs static M -=== #
#
# Part of the NVFP4-MLIR project.
#
# ===----------------------------------------------------------------------=== #
#
# What kernels of run-time sizes save: the training step of
# test/Integration/dynamic-shapes.test (a two-layer MLP, forward, dgrads and
# wgrads, recipe applied) compiled for a GPU target once per token count
# with M static (what a shape-specialized compiler does for each new batch)
# against once with M a run-time size. Prints, per token count and in
# total, the PTX kernels and the compile time (nvfp4-opt --nvfp4-recipe,
# then --nvfp4-to-ptx, wall clock, best of --repeat), and the ratios of the
# static totals to the run-time-sized compile, measured in the same run.
#
#   bench/gpu/run-time-sizes.py [--target sm_100a] [--sizes 1 77 300 ...]
#       [--nvfp4-opt build/bin/nvfp4-opt] [--repeat 3]
#
# ===----------------------------------------------------------------------=== #
import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GENERATOR = os.path.join(ROOT, "test", "Integration", "Inputs", "gen_dynamic_mlp.py")


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_dynamic_mlp", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_step(opt, source, target, repeat, workdir):
    """Best wall time (s) of recipe + nvfp4-to-ptx, and the kernel names."""
    src = os.path.join(workdir, "step.mlir")
    with open(src, "w") as f:
        f.write(source)
    best, out = None, ""
    for _ in range(repeat):
        start = time.perf_counter()
        recipe = subprocess.run(
            [opt, src, "--nvfp4-recipe=disable-stochastic-rounding"],
            check=True, capture_output=True, text=True).stdout
        out = subprocess.run(
            [opt, f"--nvfp4-to-ptx=target={target}"], input=recipe,
            check=True, capture_output=True, text=True).stdout
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    kernels = sorted(set(re.findall(r"gpu\.func @(\w+)", out)) |
                     set(re.findall(r"\.entry (\w+)", out)))
    return best, kernels


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--target", default="sm_100a")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 77, 300])
    parser.add_argument("--nvfp4-opt",
                        default=os.path.join(ROOT, "build", "bin", "nvfp4-opt"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    gen = load_generator()

    with tempfile.TemporaryDirectory() as workdir:
        static = []
        for m in args.sizes:
            source = gen.MAPS + gen.step(f"step_{m}", str(m))
            static.append((m, *compile_step(args.nvfp4_opt, source, args.target,
                                            args.repeat, workdir)))
        dyn_time, dyn_kernels = compile_step(
            args.nvfp4_opt, gen.MAPS + gen.step("step_dyn", "?"), args.target,
            args.repeat, workdir)

    print(f"target {args.target}, best of {args.repeat}")
    print(f"{'compile':>14} {'kernels':>8} {'seconds':>8}")
    for m, seconds, kernels in static:
        print(f"{'M = ' + str(m):>14} {len(kernels):>8} {seconds:>8.3f}")
    static_kernels = sum(len(k) for _, _, k in static)
    static_seconds = sum(s for _, s, _ in static)
    print(f"{'static total':>14} {static_kernels:>8} {static_seconds:>8.3f}")
    print(f"{'run-time M':>14} {len(dyn_kernels):>8} {dyn_time:>8.3f}")
    print(f"static / run-time: kernels {static_kernels / len(dyn_kernels):.2f}x, "
          f"compile time {static_seconds / dyn_time:.2f}x "
          f"({len(args.sizes)} token counts)")
    print("run-time kernels: " + " ".join(dyn_kernels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
