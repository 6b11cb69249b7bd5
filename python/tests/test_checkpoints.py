"""Pre-quantized checkpoints: NVFP4 weights that Model Optimizer exported
(packed E2M1 codes, row-major E4M3 block scales, the float32
``weight_scale_2``) brought in as decode-scaled tensors, in Python
(``nvfp4.from_modelopt``, ``nvfp4.Tensor.from_components``) and in IR
(``nvfp4.assemble`` to ``!nvfp4.tensor<..., decode>``), through every
lowering.

The oracles are independent of the library: the checkpoint is written by a
numpy transcription of Model Optimizer's ``NVFP4QTensor.quantize`` (its
public source: ``weight_scale_2 = amax / (6 * 448)``, block scales
``block_amax / (6 * weight_scale_2)`` with zeros set to 1 before the E4M3
cast, codes ``x / (scale * weight_scale_2)`` rounded to E2M1, element ``2j``
in the low nibble), values are decoded with ml_dtypes, and the GEMM is its
definition written out in float32 numpy arithmetic."""

import numpy as np
import pytest

import nvfp4

ml_dtypes = pytest.importorskip("ml_dtypes")

F32 = np.float32
INV_2688 = F32(1.0 / 2688.0)


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and \
        a.tobytes() == b.tobytes()


def modelopt_quantize(w):
    """Model Optimizer's NVFP4 weight quantization, in numpy: returns the
    checkpoint's (weight uint8 [N, K/2], weight_scale float8_e4m3fn
    [N, K/16], weight_scale_2 float32)."""
    w = np.asarray(w, dtype=F32)
    n, k = w.shape
    ws2 = F32(np.max(np.abs(w))) / F32(6.0 * 448.0)
    blocks = w.reshape(n, k // 16, 16)
    block_amax = np.max(np.abs(blocks), axis=-1)
    scale = block_amax / (F32(6.0) * ws2)
    scale[scale == 0] = F32(1.0)
    scale_e4m3 = scale.astype(ml_dtypes.float8_e4m3fn)
    q = blocks / (scale_e4m3.astype(F32) * ws2)[..., None]
    q = np.clip(q, -6.0, 6.0).astype(ml_dtypes.float4_e2m1fn)
    codes = q.reshape(n, k).view(np.uint8) & 0xF
    packed = (codes[:, 1::2] << 4) | codes[:, 0::2]
    return packed.astype(np.uint8), scale_e4m3, F32(ws2)


def decode_e2m1(codes):
    return (np.asarray(codes, dtype=np.uint8) & 0xF).view(
        ml_dtypes.float4_e2m1fn).astype(F32)


def decode_e4m3(bits):
    return np.asarray(bits, dtype=np.uint8).view(
        ml_dtypes.float8_e4m3fn).astype(F32)


def unpack(packed):
    packed = np.asarray(packed, dtype=np.uint8)
    codes = np.empty((packed.shape[0], 2 * packed.shape[1]), dtype=np.uint8)
    codes[:, 0::2] = packed & 0xF
    codes[:, 1::2] = packed >> 4
    return codes


def modelopt_dequantize(packed, scale_bits, ws2, block_rows=1):
    """Model Optimizer's dequantization: e2m1 * (scale.float() * ws2)."""
    factor = decode_e4m3(scale_bits) * F32(ws2)
    factor = np.repeat(np.repeat(factor, 16, axis=1), block_rows, axis=0)
    return decode_e2m1(unpack(packed)) * factor


def oracle_matmul(a_codes, a_scales, b_codes, b_scales, alpha):
    """C = (sum over K blocks, in increasing K, of partial * (sA * sB)) *
    alpha in float32; every block's partial sum of E2M1 products is exact
    in float32, so BLAS may add it in any order."""
    ea, eb = decode_e2m1(a_codes), decode_e2m1(b_codes)
    sa, sb = decode_e4m3(a_scales), decode_e4m3(b_scales)
    acc = np.zeros((ea.shape[0], eb.shape[0]), dtype=F32)
    for blk in range(ea.shape[1] // 16):
        cols = slice(16 * blk, 16 * blk + 16)
        partial = ea[:, cols] @ eb[:, cols].T
        acc = acc + partial * (sa[:, blk][:, None] * sb[:, blk][None, :])
    return acc * F32(alpha)


def row_scales(scales, block_rows):
    """Compact scales [rows / R, K / 16] as one row of scales per row."""
    return np.repeat(np.asarray(scales, dtype=np.uint8), block_rows, axis=0)


@pytest.fixture
def checkpoint(rng):
    w = (rng.standard_normal((48, 96)) * 0.05).astype(F32)
    w[3, :16] = 0.0  # an all-zero block: Model Optimizer's scale 1.0
    return w, modelopt_quantize(w)


def test_the_transcription_reproduces_the_weights(checkpoint):
    # The oracle itself: the checkpoint dequantizes close to the weights.
    w, (packed, scale, ws2) = checkpoint
    deq = modelopt_dequantize(packed, scale.view(np.uint8), ws2)
    assert np.max(np.abs(deq - w)) <= 0.25 * np.max(np.abs(w))
    assert scale.view(np.uint8)[3, 0] == 0x38  # E4M3 1.0


def test_from_modelopt_keeps_the_components(checkpoint):
    _, (packed, scale, ws2) = checkpoint
    t = nvfp4.from_modelopt(packed, scale, ws2)
    assert t.shape == (48, 96) and t.block == (1, 16)
    assert t.tensor_scale == "decode" and t.amax is None
    assert t.decode_scale.tobytes() == ws2.tobytes()
    assert same_bits(t.data, packed)
    assert same_bits(t.scales, scale.view(np.uint8))
    # The nibble order: element 2j in the low nibble, as pack_e2m1 packs.
    assert same_bits(t.codes(), unpack(packed))
    assert "decode_scale=" in repr(t)


def test_from_modelopt_dequantizes_as_modelopt(checkpoint):
    _, (packed, scale, ws2) = checkpoint
    t = nvfp4.from_modelopt(packed, scale, ws2)
    assert same_bits(nvfp4.dequantize(t),
                     modelopt_dequantize(packed, scale.view(np.uint8), ws2))
    # Not the amax semantics: the same components read as an amax of
    # ws2 * 2688 differ in the last bits.
    as_amax = nvfp4.Tensor(packed, scale.view(np.uint8), ws2 * F32(2688.0),
                           (48, 96))
    assert not same_bits(nvfp4.dequantize(as_amax), nvfp4.dequantize(t))


def test_matmul_with_a_decode_scaled_weight(rng, checkpoint):
    _, (packed, scale, ws2) = checkpoint
    w = nvfp4.from_modelopt(packed, scale, ws2)
    x = rng.standard_normal((33, 96)).astype(F32)
    qx = nvfp4.quantize(x)
    amax = F32(np.max(np.abs(x)))
    alpha = (amax * INV_2688) * ws2
    expected = oracle_matmul(qx.codes(), qx.scales, unpack(packed),
                             scale.view(np.uint8), alpha)
    assert same_bits(nvfp4.matmul(qx, w), expected)
    assert same_bits(nvfp4.matmul(qx, w, threads=1), expected)
    # Weight as the left operand.
    expected_t = oracle_matmul(unpack(packed), scale.view(np.uint8),
                               qx.codes(), qx.scales, ws2 * (amax * INV_2688))
    assert same_bits(nvfp4.matmul(w, qx), expected_t)


def test_matmul_of_two_decode_scales_is_vllms_alpha(rng):
    # vLLM: alpha = input_scale * weight_scale_2.
    a = modelopt_quantize(rng.standard_normal((16, 64)).astype(F32))
    b = modelopt_quantize(rng.standard_normal((32, 64)).astype(F32) * 3)
    ta, tb = nvfp4.from_modelopt(*a), nvfp4.from_modelopt(*b)
    expected = oracle_matmul(unpack(a[0]), a[1].view(np.uint8), unpack(b[0]),
                             b[1].view(np.uint8), a[2] * b[2])
    assert same_bits(nvfp4.matmul(ta, tb), expected)


def test_from_modelopt_with_2d_blocks(rng):
    # Scales equal over every 16x16 tile are accepted as 16x16 blocks; the
    # transpose keeps the decode scale.
    w = rng.standard_normal((32, 64)).astype(F32)
    q = nvfp4.quantize(w, block=(16, 16))
    ws2 = F32(0.0125)
    t = nvfp4.from_modelopt(q.data, q.scales, ws2, block=(16, 16))
    assert t.block == (16, 16)
    tt = t.T
    assert tt.tensor_scale == "decode" and tt.decode_scale == ws2
    assert same_bits(nvfp4.dequantize(tt), nvfp4.dequantize(t).T)
    with pytest.raises(ValueError, match="16 rows of every tile"):
        scales = q.scales.copy()
        scales[1, 0] ^= 1
        nvfp4.from_modelopt(q.data, scales, ws2, block=(16, 16))


def test_from_modelopt_accepts_torch_tensors(checkpoint):
    torch = pytest.importorskip("torch")
    if not hasattr(torch, "float8_e4m3fn"):
        pytest.skip("this torch has no float8_e4m3fn")
    _, (packed, scale, ws2) = checkpoint
    t = nvfp4.from_modelopt(
        torch.from_numpy(packed),
        torch.from_numpy(scale.view(np.uint8)).view(torch.float8_e4m3fn),
        torch.tensor(ws2))
    assert t == nvfp4.from_modelopt(packed, scale, ws2)
    # The general form takes torch components too.
    u = nvfp4.Tensor.from_components(
        torch.from_numpy(packed),
        torch.from_numpy(scale.view(np.uint8)).view(torch.float8_e4m3fn),
        (48, 96), decode_scale=ws2)
    assert u == t


def test_from_modelopt_rejects_inconsistent_components(checkpoint):
    _, (packed, scale, ws2) = checkpoint
    with pytest.raises(ValueError, match="weight_scale has shape"):
        nvfp4.from_modelopt(packed, scale[:, :3], ws2)
    with pytest.raises(ValueError, match="weight_scale_2 must be one value"):
        nvfp4.from_modelopt(packed, scale, np.array([ws2, ws2]))
    with pytest.raises(ValueError, match="2-D uint8"):
        nvfp4.from_modelopt(packed.reshape(-1), scale, ws2)
    with pytest.raises(ValueError, match="not a multiple of 16"):
        nvfp4.from_modelopt(packed[:, :4], scale[:, :1], ws2)
    with pytest.raises(ValueError, match="finite non-negative"):
        nvfp4.from_modelopt(packed, scale, -1.0)


def test_from_components_takes_one_tensor_scale(checkpoint):
    _, (packed, scale, ws2) = checkpoint
    with pytest.raises(ValueError, match="exactly one of"):
        nvfp4.Tensor.from_components(packed, scale, (48, 96))
    with pytest.raises(ValueError, match="exactly one of"):
        nvfp4.Tensor.from_components(packed, scale, (48, 96), amax=1.0,
                                     decode_scale=ws2)
    a = nvfp4.Tensor.from_components(packed, scale, (48, 96), amax=2.0)
    assert a.tensor_scale == "amax" and a.amax == 2.0 and a.decode_scale is None
    d = nvfp4.Tensor.from_components(packed, scale, (48, 96), decode_scale=2.0)
    assert a != d  # same bits, different meaning
    d.amax = 2.0
    assert a == d and d.tensor_scale == "amax"


PROGRAM = """
func.func @main(%x: tensor<{m}x{k}xf32>, %wc: tensor<{n}x{k}xi8>,
                %ws: tensor<{sr}x{kb}xi8>, %ws2: f32)
    -> (tensor<{m}x{n}xf32>, tensor<{n}x{k}xf32>) {{
  %c4 = arith.trunci %wc : tensor<{n}x{k}xi8> to tensor<{n}x{k}xi4>
  %d = arith.bitcast %c4 : tensor<{n}x{k}xi4> to tensor<{n}x{k}xf4E2M1FN>
  %s = arith.bitcast %ws : tensor<{sr}x{kb}xi8> to tensor<{sr}x{kb}xf8E4M3FN>
  %w = nvfp4.assemble %d, %s, %ws2 : tensor<{n}x{k}xf4E2M1FN>,
      tensor<{sr}x{kb}xf8E4M3FN> -> !nvfp4.tensor<{n}x{k}, {r}x16, decode>
  %qx = nvfp4.quantize %x : tensor<{m}x{k}xf32> -> !nvfp4.tensor<{m}x{k}, 1x16>
  %y = nvfp4.matmul %qx, %w : !nvfp4.tensor<{m}x{k}, 1x16>,
      !nvfp4.tensor<{n}x{k}, {r}x16, decode> -> tensor<{m}x{n}xf32>
  %dw = nvfp4.dequantize %w : !nvfp4.tensor<{n}x{k}, {r}x16, decode>
      -> tensor<{n}x{k}xf32>
  return %y, %dw : tensor<{m}x{n}xf32>, tensor<{n}x{k}xf32>
}}
"""


@pytest.mark.parametrize("pipeline,target,options,block_rows", [
    ("cpu", None, "", 1),
    ("cpu", None, "", 16),
    ("cpu", None, "kernels=inline", 1),
    ("cpu", None, "kernels=inline", 16),
    ("gpu-emulator", "sm_120a", "", 1),
    ("gpu-emulator", "sm_90a", "", 16),
    ("gpu-emulator", "sm_100a", "", 1),
    ("gpu-emulator", "sm_100a", "", 16),
])
def test_compiled_programs_follow_the_checkpoint(rng, pipeline, target,
                                                 options, block_rows):
    pytest.importorskip("nvfp4._jit",
                        reason="nvfp4.compile needs the build-tree package")
    m, n, k = 48, 64, 96
    src = PROGRAM.format(m=m, n=n, k=k, r=block_rows, sr=n // block_rows,
                         kb=k // 16)
    kwargs = {"options": options}
    if target:
        kwargs["target"] = target
    f = nvfp4.compile(src, pipeline=pipeline, **kwargs)
    x = rng.standard_normal((m, k)).astype(F32)
    codes = rng.integers(0, 16, (n, k)).astype(np.uint8)
    scales = rng.integers(0, 0x7F, (n // block_rows, k // 16)).astype(np.uint8)
    ws2 = F32(0.00123)
    y, dw = f(x, codes.view(np.int8), scales.view(np.int8), ws2)

    packed = (codes[:, 1::2] << 4) | codes[:, 0::2]
    assert same_bits(dw, modelopt_dequantize(packed, scales, ws2, block_rows))
    qx = nvfp4.quantize(x)
    alpha = (F32(np.max(np.abs(x))) * INV_2688) * ws2
    expected = oracle_matmul(qx.codes(), qx.scales, codes,
                             row_scales(scales, block_rows), alpha)
    assert same_bits(y, expected)


GRAPH = """
func.func @main(%x: tensor<{m}x{k}xf32>, %wc: tensor<{n}x{k}xi8>,
                %ws: tensor<{n}x{kb}xi8>, %ws2: f32) -> tensor<{m}x{n}xf32> {{
  %c4 = arith.trunci %wc : tensor<{n}x{k}xi8> to tensor<{n}x{k}xi4>
  %d = arith.bitcast %c4 : tensor<{n}x{k}xi4> to tensor<{n}x{k}xf4E2M1FN>
  %s = arith.bitcast %ws : tensor<{n}x{kb}xi8> to tensor<{n}x{kb}xf8E4M3FN>
  %w = nvfp4.assemble %d, %s, %ws2 : tensor<{n}x{k}xf4E2M1FN>,
      tensor<{n}x{kb}xf8E4M3FN> -> !nvfp4.tensor<{n}x{k}, 1x16, decode>
  %wd = nvfp4.dequantize %w : !nvfp4.tensor<{n}x{k}, 1x16, decode>
      -> tensor<{n}x{k}xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>)
      -> tensor<{m}x{n}xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %wd : tensor<{m}x{k}xf32>, tensor<{n}x{k}xf32>)
      outs(%init : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %y : tensor<{m}x{n}xf32>
}}
"""


@pytest.mark.parametrize("pipeline,target", [
    ("cpu", None), ("gpu-emulator", "sm_120a"), ("gpu-emulator", "sm_100a")])
def test_the_recipe_runs_a_checkpoint_weight_as_it_is(checkpoint, rng,
                                                      pipeline, target):
    # A high-precision graph whose weight is the checkpoint's, dequantized:
    # after the recipe, the GEMM multiplies the checkpoint's own codes
    # (bit for bit the oracle), not a re-quantization of its values.
    pytest.importorskip("nvfp4._jit",
                        reason="nvfp4.compile needs the build-tree package")
    _, (packed, scale, ws2) = checkpoint
    n, k = 48, 96
    m = 32
    src = GRAPH.format(m=m, n=n, k=k, kb=k // 16)
    kwargs = {"target": target} if target else {}
    f = nvfp4.compile(src, pipeline=pipeline, recipe="mode=inference",
                      **kwargs)
    x = rng.standard_normal((m, k)).astype(F32)
    codes = unpack(packed)
    y = f(x, codes.view(np.int8), scale.view(np.int8), ws2)
    qx = nvfp4.quantize(x)
    alpha = (F32(np.max(np.abs(x))) * INV_2688) * ws2
    assert same_bits(y, oracle_matmul(qx.codes(), qx.scales, codes,
                                      scale.view(np.uint8), alpha))
