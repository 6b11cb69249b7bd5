"""bench/python/compiled-step-bench.py measures what it names: its recipe
leaves a layer in FP4 by default, also on a small model, and it warns when
the recipe's report puts no contraction in FP4 (the nvfp4 run would time
bf16)."""

import importlib.util
import os
import subprocess
import sys

import pytest

pytest.importorskip("nvfp4._jit",
                    reason="nvfp4.compile needs the build-tree package")
pytest.importorskip("ml_dtypes")

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "bench", "python", "compiled-step-bench.py")
# A model small enough to compile in seconds, one step.
SMALL = ["--layers", "2", "--tokens", "32", "--hidden", "64", "--ffn", "96",
         "--heads", "4", "--vocab", "48", "--steps", "1"]


def bench_module():
    spec = importlib.util.spec_from_file_location("compiled_step_bench",
                                                  BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_bench(*options):
    return subprocess.run([sys.executable, BENCH, *SMALL, *options],
                          check=True, capture_output=True, text=True)


def test_default_keeps_leave_a_layer_in_fp4():
    kept_layers = bench_module().kept_layers
    assert kept_layers(4, None, None) == (1, 1)
    assert kept_layers(3, None, None) == (1, 1)
    assert kept_layers(2, None, None) == (0, 1)
    assert kept_layers(1, None, None) == (0, 0)
    # Given values stand; only the defaults give way.
    assert kept_layers(2, 1, None) == (1, 0)
    assert kept_layers(2, None, 2) == (0, 2)
    assert kept_layers(2, 1, 1) == (1, 1)


def test_two_layers_measure_fp4_by_default():
    result = run_bench()
    assert "recipe: keep-first=0 keep-last=1 (defaults reduced for 2 " \
        "layers: keep-first 1 -> 0)" in result.stdout
    fp4 = [line for line in result.stdout.splitlines()
           if line.startswith("recipe report: ")]
    assert len(fp4) == 1 and not fp4[0].startswith("recipe report: 0 of")
    assert "WARNING" not in result.stderr


def test_a_recipe_without_fp4_contractions_warns():
    result = run_bench("--keep-first", "1", "--keep-last", "1")
    assert "recipe: keep-first=1 keep-last=1\n" in result.stdout
    assert "recipe report: 0 of " in result.stdout
    assert "WARNING: the recipe (keep-first=1 keep-last=1) puts no " \
        "contraction in FP4" in result.stderr
