"""MX formats (nvfp4.mx) against independent oracles.

* ml_dtypes' ``float8_e8m0fnu``, ``float8_e5m2``, ``float8_e4m3fn`` and
  ``float4_e2m1fn`` for every code and conversion;
* a numpy transcription of the OCP Microscaling specification v1.0's
  conversion (section 6.3) as its reference implementation, Microsoft's
  microxcaling ``_quantize_mx``, computes it: shared exponent
  ``floor(log2(amax)) - emax`` (amax 0 taken as the smallest normal f32),
  clamped below at -127 and NaN above 127, elements ``x / 2^e`` rounded to
  nearest even and saturated to the element type's largest normal;
* the GEMM's definition (per-block exact sums in float64, rounded to f32,
  accumulated in f32).
"""

import math

import ml_dtypes
import numpy as np
import pytest

import nvfp4.mx as mx

ELEMENTS = {
    "mxfp4": (ml_dtypes.float4_e2m1fn, 2, 6.0),
    "mxfp8": (ml_dtypes.float8_e4m3fn, 8, 448.0),
    "mxfp8_e4m3": (ml_dtypes.float8_e4m3fn, 8, 448.0),
    "mxfp8_e5m2": (ml_dtypes.float8_e5m2, 15, 57344.0),
}


def spec_quantize(x, fmt):
    """The OCP MX v1.0 conversion of ``x`` (rows x cols, cols % 32 == 0),
    dequantized: per block of 32, X = 2^e with e = floor(log2(max|x|)) -
    emax, elements cast to the element type (round to nearest even) after
    clipping to +-max normal, times X."""
    dtype, emax, max_normal = ELEMENTS[fmt]
    x = np.asarray(x, np.float32)
    blocks = x.reshape(x.shape[0], -1, 32)
    out = np.empty_like(blocks)
    for r in range(blocks.shape[0]):
        for b in range(blocks.shape[1]):
            block = blocks[r, b]
            amax = np.max(np.abs(block))
            if not np.isfinite(amax):
                out[r, b] = np.nan
                continue
            # floor(log2(amax)), exact through frexp; 0 -> 2^-126.
            e = math.frexp(float(amax))[1] - 1 if amax > 0 else -126
            e -= emax
            if e > 127:
                out[r, b] = np.nan
                continue
            e = max(e, -127)
            scaled = np.ldexp(block.astype(np.float64), -e).astype(np.float32)
            clipped = np.clip(scaled, -max_normal, max_normal)
            elements = clipped.astype(dtype).astype(np.float32)
            out[r, b] = np.ldexp(elements.astype(np.float64), e).astype(
                np.float32)
    return out.reshape(x.shape)


def fill(rows, cols, seed, low=-20, high=10):
    rng = np.random.default_rng(seed)
    mant = rng.uniform(1.0, 2.0, (rows, cols))
    exp = rng.integers(low, high, (rows, cols))
    sign = rng.choice([-1.0, 1.0], (rows, cols))
    return (sign * np.ldexp(mant, exp)).astype(np.float32)


def test_e8m0_decode_every_code():
    codes = np.arange(256, dtype=np.uint8)
    want = codes.view(ml_dtypes.float8_e8m0fnu).astype(np.float32)
    got = mx.decode_e8m0(codes)
    np.testing.assert_array_equal(got, want)  # NaN == NaN here


def test_e8m0_round_down_of_powers_of_two_and_between():
    # Every representable scale, and values just below the next one, round
    # down to it; ml_dtypes gives the value of each code.
    exps = np.arange(-127, 128)
    powers = np.ldexp(np.float64(1.0), exps).astype(np.float32)
    codes = mx.encode_e8m0_round_down(powers)
    np.testing.assert_array_equal(codes.astype(int), exps + 127)
    # The largest f32 below each next power (2^128 is FLT_MAX's successor).
    with np.errstate(over="ignore"):
        next_powers = np.ldexp(np.float32(1.0), exps + 1).astype(np.float32)
    below_next = np.nextafter(next_powers, np.float32(0))
    got = mx.encode_e8m0_round_down(below_next)
    np.testing.assert_array_equal(
        got.view(ml_dtypes.float8_e8m0fnu).astype(np.float32),
        powers[: got.size])
    assert mx.encode_e8m0_round_down(np.float32(np.nan)) == 0xFF
    assert mx.encode_e8m0_round_down(np.float32(np.inf)) == 0xFE


def test_e5m2_every_code_and_conversion():
    codes = np.arange(256, dtype=np.uint8)
    want = codes.view(ml_dtypes.float8_e5m2).astype(np.float32)
    np.testing.assert_array_equal(mx.decode_e5m2(codes), want)
    x = fill(256, 256, 1, low=-20, high=17).ravel()
    x = np.concatenate([x, want[np.isfinite(want)]])
    # Saturating conversion: ml_dtypes of the value clipped to +-57344.
    expect = np.clip(x, -57344, 57344).astype(ml_dtypes.float8_e5m2)
    np.testing.assert_array_equal(
        mx.decode_e5m2(mx.encode_e5m2(x)), expect.astype(np.float32))


@pytest.mark.parametrize("fmt", sorted(ELEMENTS))
def test_quantize_matches_the_specification(fmt):
    x = fill(48, 256, 7)
    x[3, :32] = 0.0                      # a zero block
    x[4, 40] = 7.0 * 2.0 ** 60            # a block whose amax saturates
    x[5, :32] = np.float32(1e-42)         # f32 subnormals
    t = mx.quantize(x, fmt)
    assert t.scales.shape == (48, 8)
    np.testing.assert_array_equal(t.dequantize(), spec_quantize(x, fmt))


@pytest.mark.parametrize("fmt", sorted(ELEMENTS))
def test_scale_is_floor_log2_amax_minus_emax(fmt):
    _, emax, _ = ELEMENTS[fmt]
    for amax in [1.0, 6.0, 7.999, 8.0, 448.0, 1e-30, 3e37]:
        e = math.frexp(amax)[1] - 1 - emax
        assert mx.shared_scale(np.float32(amax), fmt) == max(e, -127) + 127
    assert mx.shared_scale(0.0, fmt) == 0
    assert mx.shared_scale(np.inf, fmt) == 0xFF
    assert mx.shared_scale(np.nan, fmt) == 0xFF


def test_nan_block():
    x = np.ones((1, 64), np.float32)
    x[0, 33] = np.nan
    y = mx.quantize(x, "mxfp8").dequantize()
    assert np.all(y[0, :32] == 1.0) and np.all(np.isnan(y[0, 32:]))


@pytest.mark.parametrize("fa,fb", [("mxfp4", "mxfp4"), ("mxfp8", "mxfp8"),
                                   ("mxfp4", "mxfp8"), ("mxfp8", "mxfp4")])
def test_matmul_definition(fa, fb):
    m, n, k = 6, 5, 128
    a = mx.quantize(fill(m, k, 11), fa)
    b = mx.quantize(fill(n, k, 12), fb)
    da, db = a.dequantize().astype(np.float64), b.dequantize().astype(
        np.float64)
    want = np.zeros((m, n), np.float32)
    for blk in range(k // 32):
        s = slice(32 * blk, 32 * blk + 32)
        # Exact in float64: the products of one block span fewer than 53
        # bits for E2M1 / E4M3 elements.
        partial = (da[:, s] @ db[:, s].T).astype(np.float32)
        want = (want + partial).astype(np.float32)
    np.testing.assert_array_equal(mx.matmul(a, b), want)


def test_errors():
    with pytest.raises(ValueError, match="multiple of 32"):
        mx.quantize(np.zeros((2, 48), np.float32))
    with pytest.raises(ValueError, match="unknown MX format"):
        mx.quantize(np.zeros((2, 32), np.float32), "mxfp6")
    a = mx.quantize(np.zeros((2, 64), np.float32))
    b = mx.quantize(np.zeros((2, 32), np.float32))
    with pytest.raises(ValueError, match="K differ"):
        mx.matmul(a, b)
    bad = mx.MXTensor(a.data[:, :1], a.scales, (2, 64), "mxfp4")
    with pytest.raises(ValueError, match="data size"):
        bad.dequantize()


def test_dialect_format_names():
    # The dialect's `mxfp8_e4m3` is `mxfp8`.
    x = fill(4, 64, 5)
    a, b = mx.quantize(x, "mxfp8_e4m3"), mx.quantize(x, "mxfp8")
    assert a.element == b.element == "e4m3"
    assert a.data.tobytes() == b.data.tobytes()
    assert a.scales.tobytes() == b.scales.tobytes()


@pytest.mark.parametrize("fmt", ["mxfp4", "mxfp8_e5m2"])
def test_threads_do_not_change_the_result(fmt):
    # Enough blocks (4096) for up to four threads of 1024 blocks.
    x = fill(64, 2048, 13)
    one = mx.quantize(x, fmt)
    for threads in (2, 3, 4, 16):
        t = mx.quantize(x, fmt, threads=threads)
        assert t.data.tobytes() == one.data.tobytes()
        assert t.scales.tobytes() == one.scales.tobytes()
    np.testing.assert_array_equal(one.dequantize(), spec_quantize(x, fmt))
    with pytest.raises(ValueError, match="threads must be in"):
        mx.quantize(x, fmt, threads=0)
