#!/usr/bin/env python3
# ===- bench/recipe/model-coverage.py - How much of each model is FP4 ----=== #
#
# Part of the NVFP4-MLIR project.
#
# Runs the default recipe (nvfp4-recipe, with gpu-target= each target) on
# every third-party model in test/ThirdParty/Inputs, on a generated
# transformer of MobileBERT's size with constant weights (24 layers, 384
# tokens, hidden 512, FFN 2048, 4 heads, vocabulary 30522; the bundled
# generator with --inference --constant-weights), and on any further
# .mlir files given, and prints one table per model from the recipe's JSON
# report: contractions, how many are FP4, all FLOPs, the FP4 share of all
# FLOPs, the FP4 share of the linear layers' FLOPs (contractions with a
# weight operand that are not one-hot embeddings), and why the rest stay in
# high precision (count and FLOPs per reason). Forward graphs run with
# mode=inference; a file whose name contains "train" with the default
# mode=training.
#
# Usage: bench/recipe/model-coverage.py [--targets sm_100a,sm_120a]
#          [--no-generated] [model.mlir ...]      (needs a built build/;
#          NVFP4_BUILD_DIR overrides)
#
# ===---------------------------------------------------------------------=== #
import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = os.environ.get("NVFP4_BUILD_DIR", os.path.join(ROOT, "build"))
NVFP4_OPT = os.path.join(BUILD, "bin", "nvfp4-opt")


def generated_model(workdir):
    """A transformer of MobileBERT's size, forward only, constant weights."""
    subprocess.run(
        [sys.executable,
         os.path.join(ROOT, "examples", "gen_transformer_training.py"),
         "--inference", "--constant-weights", "--layers", "24", "--tokens",
         "384", "--hidden", "512", "--ffn", "2048", "--heads", "4",
         "--vocab", "30522", workdir], check=True, capture_output=True)
    path = os.path.join(workdir, "mobilebert-size-inference.mlir")
    os.replace(os.path.join(workdir, "transformer_inference.mlir"), path)
    return path


def report(model, target, workdir):
    mode = "training" if "train" in os.path.basename(model) else "inference"
    out = os.path.join(workdir, "report.json")
    options = f"mode={mode} report={out}"
    if target:
        options += f" gpu-target={target}"
    # IREE's input-phase files (generic form) first become func.func; the
    # import does nothing to other modules.
    run = subprocess.run([NVFP4_OPT, "--allow-unregistered-dialect", model,
                          "--nvfp4-import-iree-input",
                          f"--nvfp4-recipe={options}", "-o", os.devnull],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"model-coverage: the recipe failed on {model}:\n"
                 f"{run.stderr}")
    with open(out) as f:
        return mode, json.load(f)


def is_linear(c):
    return ("weight" in (c.get("kinds") or "").split(",") and
            not c["reason"].startswith("embedding"))


def percent(part, whole):
    return f"{100.0 * part / whole:.2f}" if whole else "-"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--targets", default="sm_100a,sm_120a")
    parser.add_argument("--no-generated", action="store_true")
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    targets = [t for t in args.targets.split(",") if t]
    with tempfile.TemporaryDirectory() as workdir:
        models = sorted(glob.glob(os.path.join(ROOT, "test", "ThirdParty",
                                               "Inputs", "*.mlir")))
        if not args.no_generated:
            models.append(generated_model(workdir))
        models += args.models
        for model in models:
            rows, reasons = [], []
            for target in targets:
                mode, data = report(model, target, workdir)
                cs = data["contractions"]
                fp4 = [c for c in cs if c["decision"] == "fp4"]
                linear = [c for c in cs if is_linear(c)]
                flops = sum(c["flops"] for c in cs)
                rows.append((target, len(cs), len(fp4), flops,
                             percent(sum(c["flops"] for c in fp4), flops),
                             percent(sum(c["flops"] for c in linear
                                         if c["decision"] == "fp4"),
                                     sum(c["flops"] for c in linear))))
                high = collections.defaultdict(lambda: [0, 0])
                for c in cs:
                    if c["decision"] != "fp4":
                        high[c["reason"]][0] += 1
                        high[c["reason"]][1] += c["flops"]
                reasons.append((target, high))
            print(f"\n{os.path.basename(model)} ({mode})")
            print(f"  {'target':<8} {'contractions':>12} {'fp4':>5} "
                  f"{'FLOPs':>10} {'fp4 % all':>10} {'fp4 % linear':>13}")
            for target, n, nfp4, flops, share, linear in rows:
                print(f"  {target:<8} {n:>12} {nfp4:>5} {flops:>10.3e} "
                      f"{share:>10} {linear:>13}")
            for target, high in reasons:
                for reason, (count, flops) in sorted(
                        high.items(), key=lambda item: -item[1][1]):
                    print(f"  high on {target}: {count} x {reason} "
                          f"({flops:.3e} FLOPs)")


if __name__ == "__main__":
    main()
