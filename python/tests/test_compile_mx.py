"""MX programs (nvfp4.quantize / dequantize / matmul on `mxfp4`,
`mxfp8_e4m3` and `mxfp8_e5m2` tensors) compiled by nvfp4-to-cpu and run,
checked against independent oracles: the numpy + ml_dtypes transcription
of the OCP MX v1.0 conversion in test_mx.py and the GEMM's definition
(per-block exact sums in float64, rounded to f32, accumulated in f32)."""

import numpy as np
import pytest

import nvfp4
from test_mx import ELEMENTS, fill, spec_quantize

ml_dtypes = pytest.importorskip("ml_dtypes")
pytest.importorskip("nvfp4._jit",
                    reason="nvfp4.compile needs the build-tree package")

# The dialect's format names (test_mx.py's spec_quantize takes them).
FORMATS = ("mxfp4", "mxfp8_e4m3", "mxfp8_e5m2")

ROUND_TRIP = """
func.func @main(%x: tensor<{shape}x{elem}>) -> tensor<{shape}xf32> {{
  %q = nvfp4.quantize %x : tensor<{shape}x{elem}> -> !nvfp4.tensor<{shape}, 1x32, {fmt}>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<{shape}, 1x32, {fmt}> -> tensor<{shape}xf32>
  return %d : tensor<{shape}xf32>
}}
"""

MATMUL = """
func.func @main(%a: tensor<{a}xf32>, %b: tensor<{b}xf32>, %c: tensor<{c}xf32>)
    -> (tensor<{c}xf32>, tensor<{c}xbf16>) {{
  %qa = nvfp4.quantize %a : tensor<{a}xf32> -> !nvfp4.tensor<{a}, 1x32, {fa}>
  %qb = nvfp4.quantize %b : tensor<{b}xf32> -> !nvfp4.tensor<{b}, 1x32, {fb}>
  %y = nvfp4.matmul %qa, %qb acc(%c : tensor<{c}xf32>)
      : !nvfp4.tensor<{a}, 1x32, {fa}>, !nvfp4.tensor<{b}, 1x32, {fb}>
      -> tensor<{c}xf32>
  %z = nvfp4.matmul %qa, %qb : !nvfp4.tensor<{a}, 1x32, {fa}>,
      !nvfp4.tensor<{b}, 1x32, {fb}> -> tensor<{c}xbf16>
  return %y, %z : tensor<{c}xf32>, tensor<{c}xbf16>
}}
"""


def dims(shape):
    return "x".join(str(d) for d in shape)


def special_values(rows, cols):
    """Random magnitudes over many binades, plus a zero block, a block of
    f32 subnormals, a block whose amax saturates the element type, exact
    ties and a NaN block."""
    x = fill(rows, cols, 3)
    x[0, :32] = 0.0
    x[1, 32:64] = np.float32(1e-42)
    x[2, 5] = np.float32(7.0 * 2.0 ** 60)
    x[3, :32] = np.float32(0.75) * np.arange(32, dtype=np.float32)
    x[4, 40] = np.nan
    return x


@pytest.mark.parametrize("fmt", FORMATS)
def test_quantize_dequantize_is_the_specification(fmt):
    x = special_values(8, 96)
    f = nvfp4.compile(ROUND_TRIP.format(shape="8x96", elem="f32", fmt=fmt))
    got = f(x)
    want = spec_quantize(x, fmt)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("fmt", FORMATS)
def test_bf16_rank3_input(fmt):
    x = fill(2 * 5, 64, 9).astype(ml_dtypes.bfloat16)
    f = nvfp4.compile(ROUND_TRIP.format(shape="2x5x64", elem="bf16", fmt=fmt))
    got = f(x.reshape(2, 5, 64))
    want = spec_quantize(x.astype(np.float32), fmt).reshape(2, 5, 64)
    assert got.tobytes() == want.tobytes()


def reference_matmul(a, b, fa, fb, batch):
    """[batch, M, K] x [batch, N, K]: per 32-wide K block the exact float64
    sum of the dequantized products rounded to f32, accumulated in f32."""
    da = spec_quantize(a.reshape(-1, a.shape[-1]), fa).reshape(a.shape)
    db = spec_quantize(b.reshape(-1, b.shape[-1]), fb).reshape(b.shape)
    da, db = da.astype(np.float64), db.astype(np.float64)
    out = np.zeros((batch, a.shape[-2], b.shape[-2]), np.float32)
    for blk in range(a.shape[-1] // 32):
        s = slice(32 * blk, 32 * blk + 32)
        partial = np.einsum("bmk,bnk->bmn", da[..., s], db[..., s])
        out = (out + partial.astype(np.float32)).astype(np.float32)
    return out


@pytest.mark.parametrize("fa,fb", [("mxfp4", "mxfp4"),
                                   ("mxfp8_e4m3", "mxfp8_e4m3"),
                                   ("mxfp8_e4m3", "mxfp4"),
                                   ("mxfp4", "mxfp8_e5m2"),
                                   ("mxfp8_e5m2", "mxfp8_e4m3")])
@pytest.mark.parametrize("batch", [1, 3])
def test_matmul_is_the_definition(fa, fb, batch):
    m, n, k = 7, 5, 160
    a = fill(batch * m, k, 21, low=-6, high=6).reshape(batch, m, k)
    b = fill(batch * n, k, 22, low=-6, high=6).reshape(batch, n, k)
    c = fill(batch * m, n, 23).reshape(batch, m, n)
    shapes = ((m, k), (n, k), (m, n)) if batch == 1 else \
        ((batch, m, k), (batch, n, k), (batch, m, n))
    f = nvfp4.compile(MATMUL.format(a=dims(shapes[0]), b=dims(shapes[1]),
                                    c=dims(shapes[2]), fa=fa, fb=fb))
    y, z = f(a.reshape(shapes[0]), b.reshape(shapes[1]), c.reshape(shapes[2]))
    product = reference_matmul(a, b, fa, fb, batch)
    want_y = (product + c).astype(np.float32).reshape(shapes[2])
    want_z = product.astype(ml_dtypes.bfloat16).reshape(shapes[2])
    assert y.tobytes() == want_y.tobytes()
    assert z.tobytes() == want_z.tobytes()


def test_inline_kernels_reject_mx():
    with pytest.raises(RuntimeError, match="lowers with kernels=library only"):
        nvfp4.compile(ROUND_TRIP.format(shape="2x32", elem="f32",
                                        fmt="mxfp4"),
                      options="kernels=inline")


LADDER_MODEL = """
func.func @main(%x: tensor<8x48xf32> {nvfp4.kind = "activation"},
                %w: tensor<48x40xf32> {nvfp4.kind = "weight"})
    -> (tensor<8x40xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x40xf32>)
      -> tensor<8x40xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x48xf32>, tensor<48x40xf32>)
      outs(%f : tensor<8x40xf32>) -> tensor<8x40xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x8xf32>)
      -> tensor<8x8xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %x : tensor<8x48xf32>, tensor<8x48xf32>)
      outs(%f2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y, %s : tensor<8x40xf32>, tensor<8x8xf32>
}
"""


def test_recipe_ladder_runs_each_format_as_specified(rng):
    # formats=mxfp4,mxfp8_e5m2: the linear layer in MXFP4 (its weight stored
    # [K, N], K = 48 zero-padded to 64), the product of two activations,
    # which the recipe keeps out of FP4, in MXFP8 (E5M2).
    f = nvfp4.compile(LADDER_MODEL,
                      recipe="mode=inference formats=mxfp4,mxfp8_e5m2")
    x = fill(8, 48, 31, low=-4, high=4)
    w = fill(48, 40, 32, low=-4, high=4)
    y, s = f(x, w)
    xp = np.pad(x, ((0, 0), (0, 16)))
    wp = np.pad(np.ascontiguousarray(w.T), ((0, 0), (0, 16)))
    want_y = reference_matmul(xp[None], wp[None], "mxfp4", "mxfp4", 1)[0]
    want_s = reference_matmul(xp[None], xp[None], "mxfp8_e5m2", "mxfp8_e5m2",
                              1)[0]
    assert y.tobytes() == want_y.tobytes()
    assert s.tobytes() == want_s.tobytes()


@pytest.mark.parametrize("target", ["sm_120a", "sm_121a", "sm_100a"])
def test_recipe_ladder_on_the_emulated_gpu_is_the_cpu_result(target):
    # The same ladder compiled for the GPU and run in the emulator: the MX
    # quantizations on the host, both GEMMs (kind::mxf4 and kind::mxf8f6f4;
    # mma.sync on sm_120a / sm_121a, tcgen05.mma on sm_100a) as kernels; the
    # results are the CPU lowering's, bit for bit (which
    # test_recipe_ladder_runs_each_format_as_specified checks against the
    # specification).
    recipe = "mode=inference formats=mxfp4,mxfp8_e5m2"
    gpu = nvfp4.compile(LADDER_MODEL, pipeline="gpu-emulator", target=target,
                        recipe=recipe + f" gpu-target={target}")
    cpu = nvfp4.compile(LADDER_MODEL, recipe=recipe)
    x = fill(8, 48, 33, low=-4, high=4)
    w = fill(48, 40, 34, low=-4, high=4)
    for got, want in zip(gpu(x, w), cpu(x, w)):
        assert got.tobytes() == want.tobytes()
