"""nvfp4.compile: a module compiled once through the project's C API and
MLIR's ExecutionEngine, called with numpy arrays. Results are checked
against the reference library (an oracle independent of the lowering) and
numpy, never against the compiled code itself."""

import json
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import nvfp4

pytest.importorskip("nvfp4._jit",
                    reason="nvfp4.compile needs the build-tree package")

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "examples", "linear.mlir")

QUANTIZED_LINEAR = """
func.func @main(%a: tensor<{m}x{k}xf32>, %w: tensor<{n}x{k}xf32>, %seed: i64)
    -> tensor<{m}x{n}xf32> {{
  %qa = nvfp4.quantize %a rounding rs seed %seed offset 5
      : tensor<{m}x{k}xf32> -> !nvfp4.tensor<{m}x{k}, 1x16>
  %qw = nvfp4.quantize %w : tensor<{n}x{k}xf32> -> !nvfp4.tensor<{n}x{k}, 16x16>
  %c = nvfp4.matmul %qa, %qw : !nvfp4.tensor<{m}x{k}, 1x16>,
      !nvfp4.tensor<{n}x{k}, 16x16> -> tensor<{m}x{n}xf32>
  return %c : tensor<{m}x{n}xf32>
}}
"""


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and \
        a.tobytes() == b.tobytes()


def library_linear(a, w, seed):
    qa = nvfp4.quantize(a, rounding="rs", seed=seed, offset=5)
    qw = nvfp4.quantize(w, block=(16, 16))
    return nvfp4.matmul(qa, qw)


@pytest.mark.parametrize("options", ["", "kernels=inline"])
def test_block_scaled_linear_is_the_library_bit_for_bit(rng, options):
    m, n, k = 48, 32, 128
    f = nvfp4.compile(QUANTIZED_LINEAR.format(m=m, n=n, k=k), options=options)
    for seed in (0, 1, 2**40 + 3):
        a = rng.standard_normal((m, k)).astype(np.float32)
        w = rng.standard_normal((n, k)).astype(np.float32)
        assert same_bits(f(a, w, seed), library_linear(a, w, seed))


def test_compiled_once_called_many_times_is_deterministic(rng):
    f = nvfp4.compile(QUANTIZED_LINEAR.format(m=32, n=16, k=64))
    a = rng.standard_normal((32, 64)).astype(np.float32)
    w = rng.standard_normal((16, 64)).astype(np.float32)
    first = f(a, w, 11)
    for _ in range(200):
        assert same_bits(f(a, w, 11), first)


def test_inputs_are_converted_and_never_written(rng):
    # The entry writes its result into its argument's buffer unless the
    # compiler marks the argument read-only.
    f = nvfp4.compile("""
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%x : tensor<4x8xf32>) {
  ^bb0(%v: f32):
    %s = arith.mulf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
""")
    # Passed as it is (float32, contiguous): must stay unchanged.
    x = rng.standard_normal((4, 8)).astype(np.float32)
    before = x.copy()
    assert same_bits(f(x), np.square(x))
    assert same_bits(x, before)
    # Converted first (float64, not contiguous).
    x = rng.standard_normal((8, 4)).T
    assert same_bits(f(x), np.square(x.astype(np.float32)))


def test_scalars_several_results_and_dynamic_shapes():
    f = nvfp4.compile("""
func.func @stats(%x: tensor<?x3xf32>, %scale: f32, %n: index)
    -> (tensor<?x3xf32>, f32, i64, tensor<f64>) {
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %x, %c0 : tensor<?x3xf32>
  %e = tensor.empty(%rows) : tensor<?x3xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                             affine_map<(i, j) -> (i, j)>],
                            iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x3xf32>) outs(%e : tensor<?x3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %scale : f32
    linalg.yield %s : f32
  } -> tensor<?x3xf32>
  %first = tensor.extract %scaled[%c0, %c0] : tensor<?x3xf32>
  %sum = arith.addi %rows, %n : index
  %sum64 = arith.index_cast %sum : index to i64
  %half = arith.constant dense<0.5> : tensor<f64>
  return %scaled, %first, %sum64, %half : tensor<?x3xf32>, f32, i64, tensor<f64>
}
""", entry="stats")
    assert repr(f) == ("<nvfp4.CompiledFunction @stats(tensor<?x3xf32>, f32, "
                       "index) -> (tensor<?x3xf32>, f32, i64, tensor<f64>) "
                       "via builtin.module(nvfp4-to-cpu)>")
    x = np.arange(15, dtype=np.float32).reshape(5, 3) + 1
    scaled, first, count, half = f(x, 2.5, 7)
    assert same_bits(scaled, x * np.float32(2.5))
    assert first == np.float32(2.5) and isinstance(first, np.float32)
    assert count == 12 and isinstance(count, np.int64)
    assert half.shape == () and half == 0.5
    # Another size of the dynamic dimension, same program.
    assert f(np.ones((1, 3)), 3.0, 0)[0].tolist() == [[3.0, 3.0, 3.0]]


def test_one_scalar_result_and_sixteen_bit_floats():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    f = nvfp4.compile("""
func.func @main(%x: tensor<3xbf16>, %y: f16) -> f32 {
  %c2 = arith.constant 2 : index
  %v = tensor.extract %x[%c2] : tensor<3xbf16>
  %a = arith.extf %v : bf16 to f32
  %b = arith.extf %y : f16 to f32
  %s = arith.addf %a, %b : f32
  return %s : f32
}
""")
    x = np.array([1.0, 2.0, 3.140625], dtype=ml_dtypes.bfloat16)
    assert f(x, np.float16(0.25)) == np.float32(3.390625)


def test_rank_0_arguments_and_memref_outputs():
    f = nvfp4.compile("""
func.func @main(%x: tensor<f32>, %out: memref<2xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = tensor.extract %x[] : tensor<f32>
  %w = arith.addf %v, %v : f32
  memref.store %v, %out[%c0] : memref<2xf32>
  memref.store %w, %out[%c1] : memref<2xf32>
  %r = tensor.from_elements %w : tensor<f32>
  return %r : tensor<f32>
}
""")
    assert repr(f).startswith("<nvfp4.CompiledFunction @main(tensor<f32>, "
                              "memref<2xf32>) -> (tensor<f32>)")
    out = np.zeros(2, np.float32)
    assert f(np.float32(1.5), out) == 3.0
    assert out.tolist() == [1.5, 3.0]
    with pytest.raises(TypeError, match="argument 1: a memref argument is "
                       "the caller's buffer"):
        f(1.0, np.zeros(2, np.float64))


def test_results_sharing_a_buffer_are_copied_before_it_is_freed():
    f = nvfp4.compile("""
func.func @main(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %y, %y : tensor<64xf32>, tensor<64xf32>
}
""")
    x = np.arange(64, dtype=np.float32)
    for _ in range(50):
        a, b = f(x)
        assert same_bits(a, 2 * x) and same_bits(b, 2 * x)


def test_a_result_that_is_an_input_is_a_copy():
    f = nvfp4.compile("""
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %x, %x : tensor<4xf32>, tensor<4xf32>
}
""")
    x = np.arange(4, dtype=np.float32)
    a, b = f(x)
    assert same_bits(a, x) and same_bits(b, x)
    a[0] = 42
    assert x[0] == 0 and b[0] == 0


def test_gpu_kernels_in_the_emulator_are_the_library(rng):
    m, n, k = 128, 128, 128
    src = """
func.func @main(%a: tensor<128x128xf32>, %w: tensor<128x128xf32>)
    -> tensor<128x128xf32> {
  %qa = nvfp4.quantize %a : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
  %qw = nvfp4.quantize %w : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 16x16>
  %c = nvfp4.matmul %qa, %qw : !nvfp4.tensor<128x128, 1x16>,
      !nvfp4.tensor<128x128, 16x16> -> tensor<128x128xf32>
  return %c : tensor<128x128xf32>
}
"""
    f = nvfp4.compile(src, pipeline="gpu-emulator", target="sm_120a")
    a = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    expected = nvfp4.matmul(nvfp4.quantize(a),
                            nvfp4.quantize(w, block=(16, 16)))
    assert same_bits(f(a, w), expected)


def test_recipe_runs_before_the_pipeline(rng):
    # The example of the README: a path, compiled with and without the
    # recipe.
    path = EXAMPLE
    x = rng.standard_normal((64, 64)).astype(np.float32)
    w = rng.standard_normal((64, 64)).astype(np.float32)
    exact = nvfp4.compile(path)(x, w)
    np.testing.assert_allclose(exact, x @ w.T, rtol=1e-4, atol=1e-4)
    fp4 = nvfp4.compile(pathlib.Path(path), recipe=True)(x, w)
    expected = nvfp4.matmul(nvfp4.quantize(x), nvfp4.quantize(w, block=(16, 16)))
    assert same_bits(fp4, expected)


def test_compiled_function_exposes_the_recipe_report(tmp_path, monkeypatch):
    # No recipe: no report.
    assert nvfp4.compile(EXAMPLE).report is None
    # The recipe's decisions, from a temporary file: the one contraction
    # in FP4; the pipeline shows the options as given.
    f = nvfp4.compile(EXAMPLE, recipe="keep-first=0")
    (row,) = f.report["contractions"]
    assert (row["function"], row["op"], row["decision"], row["m"], row["n"],
            row["k"]) == ("main", "linalg.matmul", "fp4", 64, 64, 64)
    assert f.report["summary"]["fp4"] == 1
    assert f.pipeline.startswith("builtin.module(nvfp4-recipe{keep-first=0},")
    assert "report" not in repr(f)
    assert nvfp4.compile(EXAMPLE, recipe=True).report == f.report
    # A recipe that keeps everything high says so.
    high = nvfp4.compile(EXAMPLE, recipe="min-k=128").report
    assert high["summary"]["fp4"] == 0
    assert high["contractions"][0]["decision"] == "high"
    # The caller's report file is kept, and read back.
    path = tmp_path / "report.json"
    g = nvfp4.compile(EXAMPLE, recipe=f"min-k=128 report={path} summary")
    assert path.exists() and g.report == high
    assert json.loads(path.read_text()) == high
    # An empty report= is none.
    assert nvfp4.compile(EXAMPLE, recipe="report= min-k=128").report == high
    # Paths with spaces: the caller's, quoted, and the temporary file's.
    spaced = tmp_path / "my reports"
    spaced.mkdir()
    for quoted in (f'"{spaced}/a.json"', f"'{spaced}/b.json'",
                   f"{{{spaced}/c.json}}"):
        assert nvfp4.compile(EXAMPLE, recipe=f"min-k=128 report={quoted}") \
            .report == high
    assert sorted(p.name for p in spaced.iterdir()) == ["a.json", "b.json",
                                                        "c.json"]
    monkeypatch.setattr(tempfile, "tempdir", str(spaced))
    assert nvfp4.compile(EXAMPLE, recipe="min-k=128").report == high


@pytest.mark.parametrize("kwargs, message", [
    (dict(module="func.func @main( {"), "<source>:1:"),
    (dict(module="func.func @f() { return }"),
     "the module has no function 'main'"),
    (dict(module="func.func private @main() { return }"),
     "the entry function must be public"),
    (dict(module="func.func @main(%x: !nvfp4.tensor<16x16, 1x16>) { return }"),
     "argument 0 has type '!nvfp4.tensor<16x16, 1x16>'"),
    (dict(module="func.func @main() -> tensor<*xf32> { %0 = tensor.empty() : "
          "tensor<1xf32>\n %1 = tensor.cast %0 : tensor<1xf32> to tensor<*xf32>"
          "\n return %1 : tensor<*xf32> }"), "result 0 has type"),
    (dict(module="func.func @main() { return }",
          pipeline="builtin.module(no-such-pass)"), "invalid pass pipeline"),
    (dict(module="func.func @main() { return }",
          shared_libs=["/no/such/library.so"]),
     "cannot load the runtime library '/no/such/library.so'"),
    (dict(module="func.func @main() { return }", opt_level=7),
     "the optimization level must be 0 to 3"),
])
def test_errors_carry_mlir_diagnostics(kwargs, message):
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(")
                       .replace(")", r"\)").replace("*", r"\*")):
        nvfp4.compile(**kwargs)


def test_argument_errors():
    f = nvfp4.compile(QUANTIZED_LINEAR.format(m=16, n=16, k=32))
    a = np.zeros((16, 32), np.float32)
    with pytest.raises(TypeError, match="takes 3 arguments, got 2"):
        f(a, a)
    with pytest.raises(ValueError, match=r"argument 1: expected "
                       r"tensor<16x32xf32>, got shape \(16, 31\)"):
        f(a, np.zeros((16, 31)), 0)
    with pytest.raises(ValueError, match="argument 2: expected a scalar"):
        f(a, a, [1, 2])
    with pytest.raises(ValueError, match="unknown pipeline"):
        nvfp4.compile("", pipeline="tpu")
    with pytest.raises(ValueError, match="the cpu pipeline has no target"):
        nvfp4.compile("", target="sm_100a")


def test_libraries_loaded_later_keep_their_own_llvm(tmp_path):
    """The runtime libraries' dependencies (libLLVM, libMLIR) stay out of
    the global symbol scope: a library with its own LLVM loaded after a
    compilation (PyTorch's Triton) must not bind to them."""
    pytest.importorskip("torch")
    script = tmp_path / "after_compile.py"
    script.write_text(
        "import nvfp4\n"
        "nvfp4.compile('func.func @main() { return }')\n"
        "import torch\n"
        "torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.1)\n"
        "print('ok')\n")
    result = subprocess.run([sys.executable, str(script)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout == "ok\n"


def test_gpu_pipeline_resolves_the_runtime_and_runs_its_constructors(tmp_path):
    """pipeline="gpu" with the CUDA toolkit's stub libcuda in place of the
    driver (no GPU here): the mgpu* functions the LLVM translation of
    gpu.launch_func adds resolve in libnvfp4_cuda_runtime, and the kernel
    module load in the global constructor runs at compile time and reports
    the missing driver."""
    from nvfp4 import _config
    runtime = os.path.join(_config.LIBRARY_DIR, "libnvfp4_cuda_runtime.so")
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    stub = os.path.join(cuda, "lib64", "stubs", "libcuda.so")
    if not (os.path.exists(runtime) and os.path.exists(stub)):
        pytest.skip("needs libnvfp4_cuda_runtime and the CUDA stub libcuda")
    os.symlink(stub, tmp_path / "libcuda.so.1")
    script = tmp_path / "gpu.py"
    script.write_text(
        "import nvfp4\n"
        f"nvfp4.compile({EXAMPLE!r}, pipeline='gpu', target='sm_90a', "
        "recipe=True)\n")
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path))
    result = subprocess.run([sys.executable, str(script)], env=env,
                            capture_output=True, text=True)
    assert result.returncode == 1, result.stderr[-2000:]
    assert "nvfp4-cuda-runtime: mgpuModuleLoadJIT: cuInit(0) failed: " \
           "CUDA_ERROR_STUB_LIBRARY" in result.stderr


def linear_with_constant_weight(w, m, loc=""):
    """@main(x [m, K]) -> x @ w.T, w [N, K] an f32 constant, as importers
    write inference graphs; `loc` is appended to the matmul."""
    n, k = w.shape
    return f"""
func.func @main(%x: tensor<{m}x{k}xf32>) -> tensor<{m}x{n}xf32> {{
  %w = arith.constant dense<"0x{w.tobytes().hex()}"> : tensor<{n}x{k}xf32>
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<{m}x{k}xf32>, tensor<{n}x{k}xf32>)
      outs(%f : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {loc}
  return %y : tensor<{m}x{n}xf32>
}}
"""


def test_inference_recipe_with_calibration(rng, tmp_path):
    # An inference graph with a constant weight, as importers write them:
    # mode=inference quantizes the weight at compile time, the calibration
    # file gives the activation a static amax (half the measured one, so
    # that values saturate and the result differs from the dynamic amax).
    m, n, k = 32, 64, 64
    w = rng.standard_normal((n, k)).astype(np.float32)
    x = rng.standard_normal((m, k)).astype(np.float32)
    static_amax = float(np.abs(x).max()) / 2
    src = linear_with_constant_weight(w, m, loc='loc("fc1")')
    calibration = tmp_path / "calibration.json"
    calibration.write_text(f'{{"fc1": {static_amax!r}}}')
    recipe = nvfp4.Recipe(inference=True, calibration=calibration)
    assert recipe.pass_options().endswith(
        f"mode=inference calibration={calibration}")
    qw = nvfp4.quantize(w, block=(16, 16))
    static = nvfp4.compile(src, recipe=recipe.pass_options())(x)
    assert same_bits(static, nvfp4.matmul(
        nvfp4.quantize(x, amax=static_amax), qw))
    dynamic = nvfp4.compile(
        src, recipe=nvfp4.Recipe(inference=True).pass_options())(x)
    assert same_bits(dynamic, nvfp4.matmul(nvfp4.quantize(x), qw))
    assert not same_bits(static, dynamic)


def test_recipe_calibration_path_must_be_a_plain_option():
    with pytest.raises(ValueError, match="calibration path"):
        nvfp4.Recipe(calibration="/tmp/my calibration.json")


def test_inference_recipe_pads_k_to_whole_blocks(rng):
    # K = 10 (torch.nn.Linear(10, 8)): the recipe zero-pads K to 16 before
    # quantizing, so the GEMM is FP4; the constant weight's padded
    # quantization is folded at compile time. Bit for bit the library's
    # quantize of the zero-padded operands (1x16 weight blocks: N = 8 has no
    # whole 16x16 tiles, and an inference graph needs none).
    m, n, k = 4, 8, 10
    w = rng.standard_normal((n, k)).astype(np.float32)
    x = rng.standard_normal((m, k)).astype(np.float32)
    src = linear_with_constant_weight(w, m)
    f = nvfp4.compile(src, recipe=nvfp4.Recipe(inference=True).pass_options())
    pad = ((0, 0), (0, 16 - k))
    expected = nvfp4.matmul(nvfp4.quantize(np.pad(x, pad)),
                            nvfp4.quantize(np.pad(w, pad)))
    assert same_bits(f(x), expected)
