#!/usr/bin/env python3
# ===- compiled-step-bench.py - A training loop of compiled steps -------=== #
#
# Part of the NVFP4-MLIR project.
#
# ===---------------------------------------------------------------------=== #
"""Times a Python loop of whole training steps (loss + Adam update) of the
bundled transformer, compiled once with nvfp4.compile, against the same
step compiled for every call (what one mlir-runner invocation per step
pays), in the same run; once in bf16 and once through the recipe.

  PYTHONPATH=build/python_packages python3 bench/python/compiled-step-bench.py \
      [--layers 4] [--tokens 128] [--hidden 256] [--ffn 512] [--heads 4] \
      [--vocab 128] [--steps 50] [--keep-first N] [--keep-last N]

The recipe keeps --keep-first / --keep-last layers in high precision; by
default one each, fewer when the model has too few layers to leave one in
FP4 (keep-first goes first). Prints the recipe's options, how many
contractions its report puts in FP4 (a warning when none: the nvfp4 run
would measure bf16), then for each run the compile time, the time per
compiled step, the time per step when each step compiles, their ratio, and
the loss of the first and last steps (on a repeating token sequence, which
the model learns).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import ml_dtypes
import numpy as np

import nvfp4

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def kept_layers(layers, keep_first, keep_last):
    """keep-first and keep-last for a model of `layers` layers: those
    given, and one for each not given, fewer (keep-first's first) while
    they would leave no layer in FP4."""
    first = 1 if keep_first is None else keep_first
    last = 1 if keep_last is None else keep_last
    if keep_first is None:
        first = max(0, min(first, layers - last - 1))
    if keep_last is None:
        last = max(0, min(last, layers - first - 1))
    return first, last


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name, default in (("layers", 4), ("tokens", 128), ("hidden", 256),
                          ("ffn", 512), ("heads", 4), ("vocab", 128),
                          ("steps", 50), ("keep-first", None),
                          ("keep-last", None)):
        parser.add_argument(f"--{name}", type=int, default=default)
    args = parser.parse_args()
    keep_first, keep_last = kept_layers(args.layers, args.keep_first,
                                        args.keep_last)
    options = f"keep-first={keep_first} keep-last={keep_last}"
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable,
                        os.path.join(ROOT, "examples",
                                     "gen_transformer_training.py"),
                        "--layers", str(args.layers), "--tokens",
                        str(args.tokens), "--hidden", str(args.hidden),
                        "--ffn", str(args.ffn), "--heads", str(args.heads),
                        "--vocab", str(args.vocab), "--optimizer", "adam",
                        tmp], check=True)
        with open(os.path.join(tmp, "transformer_train_adam.mlir")) as f:
            source = f.read()
    print(f"model: {args.layers} layers, {args.tokens} tokens, hidden "
          f"{args.hidden}, FFN {args.ffn}, {args.heads} heads, vocabulary "
          f"{args.vocab}; Adam; {args.steps} steps")
    defaults = ", ".join(f"{name} 1 -> {value}" for name, given, value in (
        ("keep-first", args.keep_first, keep_first),
        ("keep-last", args.keep_last, keep_last))
        if given is None and value != 1)
    print(f"recipe: {options}" +
          (f" (defaults reduced for {args.layers} layers: {defaults})"
           if defaults else ""))
    text = (np.arange(8 * args.tokens) * 5 % args.vocab).astype(np.int64)
    for name, recipe in (("bf16", None), ("nvfp4", options)):
        start = time.perf_counter()
        step = nvfp4.compile(source, entry="train_step", recipe=recipe)
        compile_s = time.perf_counter() - start
        if step.report is not None:
            summary = step.report["summary"]
            print(f"recipe report: {summary['fp4']} of "
                  f"{summary['contractions']} contractions in FP4 "
                  f"({summary['fp4_flop_percent']}% of the FLOPs)",
                  flush=True)
            if summary["fp4"] == 0:
                print(f"WARNING: the recipe ({options}) puts no contraction "
                      f"in FP4: the nvfp4 run measures the same as bf16; "
                      f"lower --keep-first / --keep-last or raise --layers",
                      file=sys.stderr, flush=True)
        rng = np.random.default_rng(0)
        n = (len(step.inputs) - 4) // 3
        weights = [(rng.standard_normal(s.shape) / np.sqrt(s.shape[1]))
                   .astype(ml_dtypes.bfloat16) for s in step.inputs[4:4 + n]]
        m = [np.zeros(s.shape, np.float32) for s in step.inputs[4:4 + n]]
        v = [np.zeros(s.shape, np.float32) for s in step.inputs[4:4 + n]]
        losses = []
        start = time.perf_counter()
        for t in range(1, args.steps + 1):
            first = (t * 3) % (7 * args.tokens)
            ids = text[first:first + args.tokens]
            labels = text[first + 1:first + 1 + args.tokens]
            step_size = 3e-3 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
            out = step(ids, labels, t, step_size, *weights, *m, *v)
            losses.append(float(out[0]))
            weights = list(out[1:1 + n])
            m = list(out[1 + n:1 + 2 * n])
            v = list(out[1 + 2 * n:])
        step_s = (time.perf_counter() - start) / args.steps
        per_call = compile_s + step_s
        print(f"{name:6s} compile {compile_s:6.2f} s | compiled step "
              f"{step_s * 1e3:8.1f} ms | compile-per-step {per_call:6.2f} s "
              f"| ratio {per_call / step_s:7.1f}x | loss {losses[0]:.3f} -> "
              f"{losses[-1]:.3f}")


if __name__ == "__main__":
    main()
