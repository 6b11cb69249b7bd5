"""Dequantize and matmul checked bit for bit against independent numpy
models of Transformer Engine's kernels.

The models use numpy float32 arithmetic only (float64 only where every
value is exact), E4M3 and E2M1 values from ml_dtypes, and never call into
nvfp4 except to produce the tensors under test:

* dequantize (TE ``dequantize_fp4_kernel``):
  ``e2m1[q] * ((float(e4m3[s]) * amax) * fl(1/(6*448)))``;
* matmul (docs/numerics.md section 8, lib/Numerics/Quantize.cpp ``matmul``):
  per 16-wide K block the exact partial ``sum(qA * qB)`` times the exact
  ``sA * sB``, accumulated in float32 from +0 in increasing k, then
  multiplied by ``alpha = (amaxA * amaxB) * fl(1/(6*6*448*448))`` (TE
  ``compute_nvfp4_per_tensor_scale_kernel``).
"""

import numpy as np
import pytest

import nvfp4

ml_dtypes = pytest.importorskip("ml_dtypes")

FLT_MAX = np.finfo(np.float32).max
FLT_TRUE_MIN = np.float32(2.0 ** -149)
INV_6_448 = np.float32(1.0 / (6.0 * 448.0))
INV_6_6_448_448 = np.float32(1.0 / (6.0 * 6.0 * 448.0 * 448.0))

# E2M1 codes 0..15: bit 3 sign, bits 2..1 exponent, bit 0 mantissa.
E2M1_LITERAL = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
                         -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0],
                        dtype=np.float32)


def e2m1_values(codes):
    codes = np.asarray(codes, dtype=np.uint8)
    if hasattr(ml_dtypes, "float4_e2m1fn"):
        return codes.view(ml_dtypes.float4_e2m1fn).astype(np.float32)
    return E2M1_LITERAL[codes]


def e4m3_values(scales):
    return np.ascontiguousarray(scales, dtype=np.uint8).view(
        ml_dtypes.float8_e4m3fn).astype(np.float32)


def unpack(data, rows, cols):
    """[rows, cols/2] packed bytes -> [rows, cols] codes, low nibble first
    (independent of nvfp4.unpack_e2m1)."""
    data = np.asarray(data, dtype=np.uint8).reshape(rows, cols // 2)
    codes = np.empty((rows, cols), dtype=np.uint8)
    codes[:, 0::2] = data & 0xF
    codes[:, 1::2] = data >> 4
    return codes


def te_dequantize(t):
    rows, cols = t.shape
    e2m1 = e2m1_values(unpack(t.data, rows, cols))
    scales = np.asarray(t.scales).reshape(rows, cols // 16)
    amax = np.float32(t.amax)
    with np.errstate(all="ignore"):
        factor = (e4m3_values(scales) * amax) * INV_6_448  # float32
        want = e2m1 * np.repeat(factor, 16, axis=1)
    assert want.dtype == np.float32
    return want


def te_alpha(amax_a, amax_b):
    with np.errstate(all="ignore"):
        return (np.float32(amax_a) * np.float32(amax_b)) * INV_6_6_448_448


def te_matmul(a, b):
    (m, k), (n, _) = a.shape, b.shape
    kb = k // 16
    qa = e2m1_values(unpack(a.data, m, k)).astype(np.float64).reshape(m, kb, 16)
    qb = e2m1_values(unpack(b.data, n, k)).astype(np.float64).reshape(n, kb, 16)
    sa = e4m3_values(np.asarray(a.scales).reshape(m, kb)).astype(np.float64)
    sb = e4m3_values(np.asarray(b.scales).reshape(n, kb)).astype(np.float64)
    with np.errstate(all="ignore"):
        # Exact: every E2M1 product is a multiple of 1/4 with |.| <= 36, so
        # any partial sum is a multiple of 1/4 below 576 in magnitude. The
        # library starts each block sum from +0.0f, hence the `0.0 +`.
        partial = 0.0 + np.einsum("ibe,jbe->ijb", qa, qb)
        sab = sa[:, None, :] * sb[None, :, :]  # exact (8 significant bits)
        term = (partial * sab).astype(np.float32)  # exact (<= 20 bits)
        acc = np.zeros((m, n), dtype=np.float32)
        for blk in range(kb):  # increasing k, float32 rounding each step
            acc = acc + term[:, :, blk]
        c = acc * te_alpha(a.amax, b.amax)
    assert c.dtype == np.float32
    return c


def assert_bits_equal(got, want):
    """Bit-exact comparison of float32 arrays. NaN payloads and signs are
    not specified by C or numpy (a compiler may commute the operands of a
    product), so every NaN is canonicalized after checking that both sides
    have NaNs in the same places."""
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == np.float32 and want.dtype == np.float32
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    canon = np.uint32(0x7FC00000)
    g = np.where(np.isnan(got), canon, got.view(np.uint32))
    w = np.where(np.isnan(want), canon, want.view(np.uint32))
    if not np.array_equal(g, w):
        bad = np.argwhere(g != w)[:5]
        detail = [(tuple(i), got[tuple(i)], want[tuple(i)]) for i in bad]
        raise AssertionError(f"{np.count_nonzero(g != w)} elements differ, "
                             f"first (index, got, want): {detail}")


def standard_normal(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


# --------------------------------------------------------------------------
# Scalars
# --------------------------------------------------------------------------

def test_global_encode_scale_nan_is_flt_max():
    # TE clamps with fminf, which returns the non-NaN operand.
    got = nvfp4.global_encode_scale(float("nan"))
    assert isinstance(got, np.float32)
    assert got == FLT_MAX
    assert nvfp4.global_encode_scale(np.float32(np.nan)) == FLT_MAX
    assert nvfp4.global_decode_scale(float("nan")) == np.float32(1) / FLT_MAX


@pytest.mark.parametrize("amax", [0.0, FLT_TRUE_MIN, 1e-30, 0.1, 1.0, 2688.0,
                                  1e30, FLT_MAX, np.inf])
def test_scalar_factors_match_te(amax):
    amax = np.float32(amax)
    with np.errstate(all="ignore"):
        s_enc = np.minimum(np.float32(2688.0) / amax, FLT_MAX)
    if amax == 0 or s_enc == 0:
        s_enc = np.float32(1.0)
    assert nvfp4.global_encode_scale(amax).view(np.uint32) == s_enc.view(
        np.uint32)
    assert (nvfp4.global_decode_scale(amax).view(np.uint32)
            == (np.float32(1) / s_enc).view(np.uint32))
    codes = np.arange(256, dtype=np.uint8)
    with np.errstate(all="ignore"):
        want = (e4m3_values(codes) * amax) * INV_6_448
    assert_bits_equal(nvfp4.dequantize_scale(codes, amax), want)
    for code in (0x00, 0x01, 0x38, 0x7E, 0xFE):
        assert_bits_equal(np.array(nvfp4.dequantize_scale(code, amax)),
                          np.array(want[code]))
    for other in (0.0, 1.0, 2688.0, FLT_MAX, np.inf):
        assert_bits_equal(np.array(nvfp4.matmul_alpha(amax, other)),
                          np.array(te_alpha(amax, other)))


# --------------------------------------------------------------------------
# Dequantize
# --------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"block": (16, 16)},
                                    {"rounding": "rs", "seed": 11},
                                    {"hadamard": True}])
def test_dequantize_standard_normal_bit_exact(rng, kwargs):
    x = standard_normal(rng, 256, 512)
    t = nvfp4.quantize(x, **kwargs)
    got = nvfp4.dequantize(t)
    assert_bits_equal(got, te_dequantize(t))
    # Exactly what the formula says, element by element, for a few.
    for i, j in [(0, 0), (17, 301), (255, 511)]:
        code = int(unpack(t.data, 256, 512)[i, j])
        s = nvfp4.dequantize_scale(int(t.scales[i, j // 16]), t.amax)
        assert got[i, j].view(np.uint32) == (
            e2m1_values(np.uint8(code)) * s).view(np.uint32)


def adversarial_inputs(rng):
    x = standard_normal(rng, 64, 128)
    tiny = (x * np.float32(1e-42)).astype(np.float32)  # subnormal
    assert np.any(tiny != 0) and np.all(np.abs(tiny) < 2.0 ** -126)
    with np.errstate(over="ignore"):
        huge = np.clip(x * np.float32(1e38), -FLT_MAX, FLT_MAX).astype(
            np.float32)
    huge[0, 0] = FLT_MAX
    huge[1, 3] = -FLT_MAX
    mixed = x.copy()
    mixed[:, :16] *= np.float32(1e-30)  # blocks with zero / subnormal scales
    mixed[3, 40] = np.float32(3e4)
    return {
        "zeros": (np.zeros((32, 64), np.float32), {}),
        "negative zeros": (np.full((16, 32), -0.0, np.float32), {}),
        "subnormals": (tiny, {}),
        "smallest subnormal": (np.full((16, 16), FLT_TRUE_MIN, np.float32),
                               {}),
        "near FLT_MAX": (huge, {}),
        "mixed blocks": (mixed, {}),
        "amax 1e-3": (x, {"amax": 1e-3}),
        "amax 1": (x, {"amax": 1.0}),
        "amax 1000": (x, {"amax": 1000.0}),
        "amax 2688": (x, {"amax": 2688.0}),
        "amax FLT_MAX": (x, {"amax": float(FLT_MAX)}),
        "amax subnormal": (x, {"amax": float(FLT_TRUE_MIN)}),
        "amax 0": (x, {"amax": 0.0}),
        "amax inf": (x, {"amax": float("inf")}),
        "amax inf, 16x16": (x, {"amax": float("inf"), "block": (16, 16)}),
        "inf elements": (np.where(x > 2, np.float32(np.inf), x), {}),
    }


@pytest.mark.parametrize("case", [
    "zeros", "negative zeros", "subnormals", "smallest subnormal",
    "near FLT_MAX", "mixed blocks", "amax 1e-3", "amax 1", "amax 1000",
    "amax 2688", "amax FLT_MAX", "amax subnormal", "amax 0", "amax inf",
    "amax inf, 16x16", "inf elements"])
def test_dequantize_adversarial_bit_exact(rng, case):
    x, kwargs = adversarial_inputs(rng)[case]
    t = nvfp4.quantize(x, **kwargs)
    if "amax" in kwargs:
        assert t.amax.view(np.uint32) == np.float32(
            kwargs["amax"]).view(np.uint32)
    assert_bits_equal(nvfp4.dequantize(t), te_dequantize(t))


@pytest.mark.parametrize("amax", [0.0, FLT_TRUE_MIN, 1e-20, 1.0, 448.0,
                                  2688.0, 3e37, FLT_MAX, np.inf])
def test_dequantize_every_code_and_scale_bit_exact(rng, amax):
    # External components: every E2M1 code pair and every E4M3 scale byte
    # (NaN scales 0x7F / 0xFF included), with explicit amax values.
    rows, cols = 64, 128
    data = rng.integers(0, 256, (rows, cols // 2), dtype=np.uint8)
    data[0] = np.arange(64, dtype=np.uint8)
    data[1] = np.arange(64, 128, dtype=np.uint8)
    data[2] = np.arange(128, 192, dtype=np.uint8)
    data[3] = np.arange(192, 256, dtype=np.uint8)
    scales = np.arange(rows * cols // 16, dtype=np.uint8).reshape(rows, -1)
    t = nvfp4.Tensor(data, scales, amax, (rows, cols))
    assert_bits_equal(nvfp4.dequantize(t), te_dequantize(t))


def test_dequantize_is_not_the_old_decode_scale_formula():
    # The old formula, (e2m1 * e4m3) * S_dec, and TE's differ in the last
    # bit for some amax; the library follows TE.
    rng = np.random.default_rng(5)
    differs = False
    for amax in rng.uniform(1, 1000, 50).astype(np.float32):
        t = nvfp4.quantize(rng.standard_normal((16, 64)).astype(np.float32),
                           amax=float(amax))
        got = nvfp4.dequantize(t)
        assert_bits_equal(got, te_dequantize(t))
        old = (e2m1_values(unpack(t.data, 16, 64))
               * np.repeat(e4m3_values(t.scales), 16, axis=1)) \
            * nvfp4.global_decode_scale(amax)
        differs |= not np.array_equal(got.view(np.uint32),
                                      old.astype(np.float32).view(np.uint32))
    assert differs


# --------------------------------------------------------------------------
# Matmul
# --------------------------------------------------------------------------

@pytest.mark.parametrize("blocks", [((1, 16), (1, 16)), ((16, 16), (1, 16)),
                                    ((16, 16), (16, 16))])
def test_matmul_standard_normal_bit_exact(rng, blocks):
    a = nvfp4.quantize(standard_normal(rng, 64, 512), block=blocks[0])
    b = nvfp4.quantize(standard_normal(rng, 48, 512), block=blocks[1],
                       rounding="rs", seed=4)
    assert_bits_equal(nvfp4.matmul(a, b), te_matmul(a, b))


def test_matmul_large_bit_exact(rng):
    a = nvfp4.quantize(standard_normal(rng, 256, 512))
    b = nvfp4.quantize(standard_normal(rng, 128, 512), hadamard=True)
    assert_bits_equal(nvfp4.matmul(a, b), te_matmul(a, b))


@pytest.mark.parametrize("amax_a,amax_b", [
    (0.0, 1.0), (1.0, 0.0), (FLT_TRUE_MIN, FLT_TRUE_MIN), (1e-20, 1e-20),
    (1.0, 1.0), (2688.0, 2688.0), (FLT_MAX, 1.0), (FLT_MAX, FLT_MAX),
    (np.inf, 1.0), (np.inf, 0.0), (np.inf, np.inf)])
def test_matmul_explicit_amax_bit_exact(rng, amax_a, amax_b):
    a = nvfp4.quantize(standard_normal(rng, 32, 256))
    b = nvfp4.quantize(standard_normal(rng, 16, 256))
    a.amax, b.amax = amax_a, amax_b
    c = nvfp4.matmul(a, b)
    assert_bits_equal(c, te_matmul(a, b))


def test_matmul_random_amax_bit_exact(rng):
    # About half of these alphas differ in the last bit from the product of
    # the two decode scales (the formula before the TE alignment).
    a = nvfp4.quantize(standard_normal(rng, 16, 128))
    b = nvfp4.quantize(standard_normal(rng, 8, 128))
    old_differs = 0
    for amax_a, amax_b in rng.uniform(0.01, 1e4, (20, 2)).astype(np.float32):
        a.amax, b.amax = amax_a, amax_b
        assert_bits_equal(nvfp4.matmul(a, b), te_matmul(a, b))
        old = (nvfp4.global_decode_scale(amax_a)
               * nvfp4.global_decode_scale(amax_b))
        old_differs += old != nvfp4.matmul_alpha(amax_a, amax_b)
    assert old_differs > 0


def test_matmul_every_scale_byte_bit_exact(rng):
    # Random codes and every E4M3 scale byte (subnormal, 448, NaN), with
    # amax values that make alpha large, so the f32 accumulation and the
    # final product both round.
    m, n, k = 32, 24, 256
    a = nvfp4.Tensor(rng.integers(0, 256, (m, k // 2), dtype=np.uint8),
                     rng.integers(0, 256, (m, k // 16), dtype=np.uint8),
                     1000.0, (m, k))
    b = nvfp4.Tensor(rng.integers(0, 256, (n, k // 2), dtype=np.uint8),
                     rng.integers(0, 256, (n, k // 16), dtype=np.uint8),
                     3.0, (n, k))
    assert_bits_equal(nvfp4.matmul(a, b), te_matmul(a, b))
    # Without NaN scales every output is finite.
    a.scales = np.where(np.isin(a.scales, [0x7F, 0xFF]), np.uint8(0x7E),
                        a.scales).astype(np.uint8)
    b.scales = np.where(np.isin(b.scales, [0x7F, 0xFF]), np.uint8(0x01),
                        b.scales).astype(np.uint8)
    c = nvfp4.matmul(a, b)
    assert np.isfinite(c).all()
    assert_bits_equal(c, te_matmul(a, b))


@pytest.mark.parametrize("case", ["zeros", "subnormals", "near FLT_MAX",
                                  "mixed blocks", "amax inf"])
def test_matmul_adversarial_bit_exact(rng, case):
    x, kwargs = adversarial_inputs(rng)[case]
    a = nvfp4.quantize(x, **kwargs)
    b = nvfp4.quantize(x[: x.shape[0] // 2], **kwargs)
    assert_bits_equal(nvfp4.matmul(a, b), te_matmul(a, b))


def test_matmul_empty_contraction():
    a = nvfp4.Tensor([], [], 5.0, (3, 0))
    b = nvfp4.Tensor([], [], 7.0, (2, 0))
    c = nvfp4.matmul(a, b)
    assert_bits_equal(c, te_matmul(a, b))
    assert c.shape == (3, 2) and not np.signbit(c).any() and not c.any()
