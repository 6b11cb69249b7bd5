"""Quantization, GEMM, Hadamard, swizzle and transpose through the Python
API."""

import numpy as np
import pytest

import nvfp4


def randn(rng, *shape, outliers=True):
    x = rng.standard_normal(shape).astype(np.float32)
    if outliers:
        # A few large values so block scales spread over the E4M3 range.
        x.reshape(-1)[::37] *= 50
    return x


# --------------------------------------------------------------------------
# quantize: fields, dtypes, shapes
# --------------------------------------------------------------------------

@pytest.mark.parametrize("block", [(1, 16), (16, 16)])
def test_quantize_fields(rng, block):
    x = randn(rng, 48, 96)
    t = nvfp4.quantize(x, block=block)
    assert isinstance(t, nvfp4.Tensor)
    assert t.shape == (48, 96) and t.block == block
    assert t.data.dtype == np.uint8 and t.data.shape == (48, 48)
    assert t.scales.dtype == np.uint8 and t.scales.shape == (48, 6)
    assert isinstance(t.amax, np.float32)
    assert t.amax == np.abs(x).max()
    # The decode scale is derived from the amax, read-only.
    assert isinstance(t.global_decode_scale, np.float32)
    assert t.global_scale == t.global_decode_scale
    assert t.data.flags.c_contiguous and t.scales.flags.c_contiguous
    assert t.nbytes == 48 * 48 + 48 * 6 + 4
    assert "48, 96" in repr(t)


def test_global_and_block_scales_follow_the_recipe(rng):
    x = randn(rng, 16, 64)
    amax = np.abs(x).max()
    t = nvfp4.quantize(x)
    assert t.amax == amax
    s_enc = nvfp4.global_encode_scale(amax)
    assert t.global_decode_scale == np.float32(1) / s_enc
    assert nvfp4.global_decode_scale(amax) == np.float32(1) / s_enc
    blocks = np.abs(x).reshape(16, 4, 16).max(axis=2)
    want = [[nvfp4.block_scale(b, s_enc) for b in row] for row in blocks]
    np.testing.assert_array_equal(t.scales, want)


def test_explicit_amax(rng):
    x = randn(rng, 16, 32)
    t = nvfp4.quantize(x, amax=1000.0)
    assert t.amax == np.float32(1000.0)
    assert (t.global_decode_scale
            == np.float32(1) / nvfp4.global_encode_scale(1000.0))
    assert nvfp4.quantize(x, amax=np.abs(x).max()) == nvfp4.quantize(x)


def test_codes_are_packed_low_nibble_first():
    x = np.zeros((1, 16), dtype=np.float32)
    x[0, 0], x[0, 1] = 6.0, -3.0  # amax 6: S_enc = 448, block scale 448
    t = nvfp4.quantize(x)
    assert t.data[0, 0] == 0x7 | (0xD << 4)
    np.testing.assert_array_equal(t.codes()[0, :2], [0x7, 0xD])
    np.testing.assert_allclose(nvfp4.dequantize(t), x, rtol=1e-6)


def test_zero_tensor():
    t = nvfp4.quantize(np.zeros((16, 16), dtype=np.float32))
    assert t.amax == 0.0 and not np.signbit(t.amax)
    assert t.global_decode_scale == 1.0
    assert not t.data.any() and not t.scales.any()
    np.testing.assert_array_equal(nvfp4.dequantize(t), 0.0)


def test_input_conversion(rng):
    w = randn(rng, 64, 32)
    want = nvfp4.quantize(np.ascontiguousarray(w.T))
    # A non-contiguous view, float64, and a nested list all convert.
    assert nvfp4.quantize(w.T) == want
    assert nvfp4.quantize(w.T.astype(np.float64)) == want
    assert nvfp4.quantize(w.T.tolist()) == want
    assert nvfp4.quantize(w[::2, :]) == nvfp4.quantize(w[::2, :].copy())


def test_threads_are_bit_identical(rng):
    x = randn(rng, 80, 64)
    for kwargs in ({}, {"rounding": "rs", "seed": 3}, {"hadamard": True},
                   {"block": (16, 16)}):
        assert (nvfp4.quantize(x, threads=3, **kwargs)
                == nvfp4.quantize(x, **kwargs))


# --------------------------------------------------------------------------
# Round trip
# --------------------------------------------------------------------------

@pytest.mark.parametrize("block", [(1, 16), (16, 16)])
@pytest.mark.parametrize("rounding", ["rn", "rs"])
def test_round_trip_error_bound(rng, block, rounding):
    x = randn(rng, 64, 128)
    t = nvfp4.quantize(x, block=block, rounding=rounding, seed=7)
    y = nvfp4.dequantize(t)
    assert y.dtype == np.float32 and y.shape == x.shape
    # Per scale block, the error is at most one E2M1 grid step (2 units of
    # the block scale for RS, 1 for RN) of a scale of about block_amax/6
    # (+1/16 for the E4M3 rounding of the scale).
    br = block[0]
    err = np.abs(y - x).reshape(64 // br, br, 8, 16)
    amax = np.abs(x).reshape(64 // br, br, 8, 16).max(axis=(1, 3),
                                                        keepdims=True)
    steps = 1.0 if rounding == "rn" else 2.0
    assert np.all(err <= steps * amax / 6 * (1 + 1 / 16) + 1e-30)
    # Relative RMS error on Gaussian data (about 0.1 for 1x16 RN).
    g = randn(rng, 64, 128, outliers=False)
    gq = nvfp4.dequantize(nvfp4.quantize(g, block=block, rounding=rounding,
                                         seed=7))
    rel = np.linalg.norm(gq - g) / np.linalg.norm(g)
    limit = {("rn", 1): 0.12, ("rs", 1): 0.18, ("rn", 16): 0.14,
             ("rs", 16): 0.2}[rounding, br]
    assert rel < limit


def test_grid_values_round_trip_exactly():
    row = np.array([6, 4, 3, 2, 1.5, 1, .5, 0, -6, -4, -3, -2, -1.5, -1, -.5,
                    -0.0], dtype=np.float32)
    x = np.stack([row * 2.0 ** k for k in range(-4, 12)])
    # Per-row scale: quantize each row separately with amax = 6 * 2^k so
    # that S_enc * block_amax / 6 = 448 exactly.
    for i in range(x.shape[0]):
        t = nvfp4.quantize(x[i:i + 1], amax=float(np.abs(x[i]).max()))
        np.testing.assert_allclose(nvfp4.dequantize(t)[0], x[i], rtol=1e-6)
        np.testing.assert_array_equal(
            t.codes()[0], nvfp4.encode_e2m1(row))


def test_rn_is_deterministic_and_ignores_seed(rng):
    x = randn(rng, 16, 64)
    assert nvfp4.quantize(x, seed=1) == nvfp4.quantize(x, seed=2)


# --------------------------------------------------------------------------
# Stochastic rounding
# --------------------------------------------------------------------------

def test_rs_reproducible_with_seed_and_offset(rng):
    x = randn(rng, 32, 64)
    a = nvfp4.quantize(x, rounding="rs", seed=42, offset=5)
    assert a == nvfp4.quantize(x, rounding="rs", seed=42, offset=5)
    assert a != nvfp4.quantize(x, rounding="rs", seed=43, offset=5)
    assert a != nvfp4.quantize(x, rounding="rs", seed=42, offset=6)
    assert a != nvfp4.quantize(x, rounding="rn")
    # Scales do not depend on the rounding of the elements.
    np.testing.assert_array_equal(a.scales, nvfp4.quantize(x).scales)
    assert a.amax == nvfp4.quantize(x).amax


def test_rs_offset_addresses_philox_blocks(rng):
    # Element i of a tensor draws from philox(seed, offset + i // 16), so a
    # slice of rows quantized with the matching offset (and the same amax)
    # gets exactly the codes of the whole tensor.
    m, k = 32, 64
    x = randn(rng, m, k)
    amax = float(np.abs(x).max())
    whole = nvfp4.quantize(x, rounding="rs", seed=9, offset=100, amax=amax)
    r0 = 8
    part = nvfp4.quantize(x[r0:], rounding="rs", seed=9,
                          offset=100 + r0 * k // 16, amax=amax)
    np.testing.assert_array_equal(part.data, whole.data[r0:])
    np.testing.assert_array_equal(part.scales, whole.scales[r0:])


def test_rs_is_unbiased(rng):
    x = rng.uniform(-1, 1, (16, 64)).astype(np.float32)
    x[:, 0] = 1.0  # fix every block amax, hence every scale
    rn_err = np.abs(nvfp4.dequantize(nvfp4.quantize(x)) - x).mean()
    mean = np.mean([nvfp4.dequantize(nvfp4.quantize(x, rounding="rs",
                                                    seed=s))
                    for s in range(200)], axis=0)
    # Averaging 200 draws shrinks the error far below round-to-nearest's.
    assert np.abs(mean - x).mean() < rn_err / 4


def test_rounding_spellings(rng):
    x = randn(rng, 16, 32)
    assert nvfp4.quantize(x, rounding="RN") == nvfp4.quantize(x)
    assert (nvfp4.quantize(x, rounding="stochastic", seed=1)
            == nvfp4.quantize(x, rounding="rs", seed=1))


# --------------------------------------------------------------------------
# Hadamard
# --------------------------------------------------------------------------

def hadamard_matrix(signs=None):
    """Rows are H applied to the unit vectors, i.e. the matrix H^T."""
    return nvfp4.hadamard(np.eye(16, dtype=np.float32), signs=signs)


@pytest.mark.parametrize("signs", [None, [1] * 16, [-1, 1] * 8])
def test_hadamard_is_orthogonal(signs):
    ht = hadamard_matrix(signs)
    assert np.all(np.abs(ht) == 0.25)
    np.testing.assert_array_equal(ht @ ht.T, np.eye(16))
    np.testing.assert_array_equal(ht.T @ ht, np.eye(16))


def test_hadamard_blockwise_along_last_dim(rng):
    x = randn(rng, 3, 5, 48, outliers=False)
    y = nvfp4.hadamard(x)
    assert y.shape == x.shape and y.dtype == np.float32
    ht = hadamard_matrix()
    want = (x.reshape(-1, 16).astype(np.float64) @ ht).reshape(x.shape)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
    # Norm preserved per 16-block; input untouched.
    np.testing.assert_allclose(np.linalg.norm(y.reshape(-1, 16), axis=1),
                               np.linalg.norm(x.reshape(-1, 16), axis=1),
                               rtol=1e-5)
    # Inverse: y @ H (i.e. H^T y per block) gives x back.
    back = (y.reshape(-1, 16).astype(np.float64) @ ht.T).reshape(x.shape)
    np.testing.assert_allclose(back, x, rtol=1e-5, atol=1e-5)


def test_hadamard_default_signs(rng):
    x = randn(rng, 2, 32)
    np.testing.assert_array_equal(
        nvfp4.hadamard(x), nvfp4.hadamard(x, signs=nvfp4.DEFAULT_HADAMARD_SIGNS))
    assert nvfp4.DEFAULT_HADAMARD_SIGNS == (1, 1, 1, -1, 1, -1, -1, -1, -1,
                                            -1, -1, 1, -1, 1, -1, -1)


def test_hadamard_does_not_modify_input(rng):
    x = randn(rng, 4, 32)
    x0 = x.copy()
    nvfp4.hadamard(x)
    np.testing.assert_array_equal(x, x0)


def test_quantize_with_hadamard_transforms_first(rng):
    x = randn(rng, 32, 64)
    signs = [-1, 1, 1, -1] * 4
    assert (nvfp4.quantize(x, hadamard=True)
            == nvfp4.quantize(nvfp4.hadamard(x)))
    assert (nvfp4.quantize(x, hadamard=True, signs=signs, rounding="rs",
                           seed=1)
            == nvfp4.quantize(nvfp4.hadamard(x, signs), rounding="rs",
                              seed=1))
    # The RHT cancels in the wgrad-style product A H^T (B H^T)^T = A B^T.
    a, b = randn(rng, 16, 64, outliers=False), randn(rng, 32, 64,
                                                      outliers=False)
    c = nvfp4.matmul(nvfp4.quantize(a, hadamard=True),
                     nvfp4.quantize(b, hadamard=True))
    ref = a.astype(np.float64) @ b.T
    assert np.linalg.norm(c - ref) / np.linalg.norm(ref) < 0.15


def test_hadamard_errors():
    with pytest.raises(ValueError, match="multiple of 16"):
        nvfp4.hadamard(np.zeros((2, 24)))
    with pytest.raises(ValueError, match="signs"):
        nvfp4.hadamard(np.zeros(16), signs=[1] * 15)
    with pytest.raises(ValueError, match="signs"):
        nvfp4.hadamard(np.zeros(16), signs=[2] * 16)


# --------------------------------------------------------------------------
# 16x16 blocks and transpose
# --------------------------------------------------------------------------

def test_16x16_scales_are_replicated(rng):
    x = randn(rng, 64, 48)
    t = nvfp4.quantize(x, block=(16, 16))
    tiles = t.scales.reshape(4, 16, 3)
    np.testing.assert_array_equal(tiles, np.repeat(tiles[:, :1], 16, axis=1))
    s_enc = nvfp4.global_encode_scale(np.abs(x).max())
    tile_amax = np.abs(x).reshape(4, 16, 3, 16).max(axis=(1, 3))
    want = [[nvfp4.block_scale(v, s_enc) for v in row] for row in tile_amax]
    np.testing.assert_array_equal(tiles[:, 0], want)


def test_transpose_commutes_with_16x16_quantize(rng):
    w = randn(rng, 64, 32)
    tw = nvfp4.quantize(w, block=(16, 16))
    t = nvfp4.transpose(tw)
    assert t.shape == (32, 64) and t.block == (16, 16)
    assert t == nvfp4.quantize(w.T, block=(16, 16))
    assert t.T == tw
    np.testing.assert_array_equal(nvfp4.dequantize(t), nvfp4.dequantize(tw).T)


def test_transpose_of_stochastic_16x16_matches_dequantized(rng):
    # SR draws depend on the linear index, so W^T is quantized differently;
    # transposing the codes is still exact.
    w = randn(rng, 32, 48)
    tw = nvfp4.quantize(w, block=(16, 16), rounding="rs", seed=5)
    np.testing.assert_array_equal(nvfp4.dequantize(nvfp4.transpose(tw)),
                                  nvfp4.dequantize(tw).T)


def test_transpose_requires_16x16(rng):
    t = nvfp4.quantize(randn(rng, 16, 32))
    with pytest.raises(ValueError, match="16x16"):
        nvfp4.transpose(t)


# --------------------------------------------------------------------------
# matmul
# --------------------------------------------------------------------------

@pytest.mark.parametrize("blocks", [((1, 16), (1, 16)), ((1, 16), (16, 16)),
                                    ((16, 16), (16, 16))])
def test_matmul_matches_numpy_on_dequantized(rng, blocks):
    a = nvfp4.quantize(randn(rng, 32, 256), block=blocks[0])
    b = nvfp4.quantize(randn(rng, 48, 256), block=blocks[1], rounding="rs",
                       seed=3)
    c = nvfp4.matmul(a, b)
    assert c.shape == (32, 48) and c.dtype == np.float32
    da = nvfp4.dequantize(a).astype(np.float64)
    db = nvfp4.dequantize(b).astype(np.float64)
    ref = da @ db.T
    # Block sums are exact; only the f32 accumulation of 16 blocks and the
    # scale products round.
    tol = 1e-5 * (np.abs(da) @ np.abs(db).T)
    assert np.all(np.abs(c - ref) <= tol + 1e-30)


def test_matmul_is_the_same_on_any_thread_count(rng):
    # Shapes off the library's 32 x 64 tiles; the element-by-element
    # definition is checked bit for bit in the C++ unit test MatmulTest.
    a = nvfp4.quantize(randn(rng, 45, 160))
    b = nvfp4.quantize(randn(rng, 80, 160), block=(16, 16))
    results = [nvfp4.matmul(a, b, threads=t) for t in (0, 1, 2, 3)]
    for c in results[1:]:
        assert c.tobytes() == results[0].tobytes()


@pytest.mark.parametrize("threads", [-1, 1.5, "2", 10**9])
def test_matmul_rejects_bad_thread_counts(rng, threads):
    # As quantize's threads: an integer in range, else ValueError.
    a = nvfp4.quantize(randn(rng, 16, 32))
    with pytest.raises(ValueError, match="threads"):
        nvfp4.matmul(a, a, threads=threads)


def test_matmul_f32_reference(rng):
    a, b = randn(rng, 8, 32), randn(rng, 4, 32)
    np.testing.assert_allclose(nvfp4.matmul_f32(a, b),
                               a.astype(np.float64) @ b.T, rtol=1e-6,
                               atol=1e-4)


def test_matmul_errors(rng):
    a = nvfp4.quantize(randn(rng, 16, 32))
    b = nvfp4.quantize(randn(rng, 16, 48))
    with pytest.raises(ValueError, match="contraction"):
        nvfp4.matmul(a, b)
    with pytest.raises(ValueError):
        nvfp4.matmul(a, np.zeros((16, 32)))


# --------------------------------------------------------------------------
# Scale swizzle
# --------------------------------------------------------------------------

@pytest.mark.parametrize("rows,cols", [(128, 4), (300, 10), (1, 1), (256, 8)])
def test_swizzle_round_trip(rng, rows, cols):
    s = rng.integers(0, 256, (rows, cols), dtype=np.uint8)
    z = nvfp4.swizzle_scales(s)
    rt, ct = -(-rows // 128), -(-cols // 4)
    assert z.shape == (rt, ct, 32, 4, 4) and z.dtype == np.uint8
    assert z.size == nvfp4.swizzled_scales_size(rows, cols)
    np.testing.assert_array_equal(nvfp4.unswizzle_scales(z, rows, cols), s)
    np.testing.assert_array_equal(
        nvfp4.unswizzle_scales(z.reshape(-1), rows, cols), s)
    # Layout: (r, c) -> [r//128][c//4][r%32][(r//32)%4][c%4]; zero padding.
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    np.testing.assert_array_equal(
        z[r // 128, c // 4, r % 32, (r // 32) % 4, c % 4], s)
    mask = np.ones(z.shape, dtype=bool)
    mask[r // 128, c // 4, r % 32, (r // 32) % 4, c % 4] = False
    assert not z[mask].any()


def test_swizzle_errors():
    with pytest.raises(ValueError):
        nvfp4.swizzle_scales(np.zeros(4, dtype=np.uint8))
    with pytest.raises(ValueError):
        nvfp4.unswizzle_scales(np.zeros(100, dtype=np.uint8), 128, 4)
    with pytest.raises(ValueError):
        nvfp4.swizzle_scales(np.full((2, 2), 300))


def test_tensor_swizzled_scales(rng):
    t = nvfp4.quantize(randn(rng, 128, 128))
    np.testing.assert_array_equal(t.swizzled_scales(),
                                  nvfp4.swizzle_scales(t.scales))


# --------------------------------------------------------------------------
# Tensor from external data
# --------------------------------------------------------------------------

def test_tensor_from_components(rng):
    t = nvfp4.quantize(randn(rng, 32, 64), block=(16, 16))
    u = nvfp4.Tensor(t.data.reshape(-1).tolist(), t.scales, t.amax,
                     (32, 64), block=(16, 16))
    assert u == t
    np.testing.assert_array_equal(u.dequantize(), t.dequantize())
    np.testing.assert_array_equal(nvfp4.matmul(u, t), nvfp4.matmul(t, t))


def test_tensor_validation():
    data = np.zeros((16, 16), np.uint8)
    scales = np.zeros((16, 2), np.uint8)
    nvfp4.Tensor(data, scales, 1.0, (16, 32))
    with pytest.raises(ValueError, match="data"):
        nvfp4.Tensor(data[:8], scales, 1.0, (16, 32))
    with pytest.raises(ValueError, match="scales"):
        nvfp4.Tensor(data, scales[:, :1], 1.0, (16, 32))
    with pytest.raises(ValueError):
        nvfp4.Tensor(data, scales, 1.0, (16, 33))
    with pytest.raises(ValueError):
        nvfp4.Tensor(data, scales, 1.0, (16, 32, 1))
    with pytest.raises(ValueError, match="uint8"):
        nvfp4.Tensor(data.astype(np.float32) + 0.5, scales, 1.0, (16, 32))


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------

@pytest.mark.parametrize("shape,block", [((4, 15), (1, 16)),
                                         ((4, 24), (1, 16)),
                                         ((8, 32), (16, 16)),
                                         ((16, 32), (2, 16)),
                                         ((16, 32), (16, 32))])
def test_bad_shapes_raise_library_message(shape, block):
    msg = nvfp4.check_quantizable(shape[0], shape[1], block)
    assert msg
    with pytest.raises(ValueError) as info:
        nvfp4.quantize(np.zeros(shape, np.float32), block=block)
    assert str(info.value) == msg


@pytest.mark.parametrize("kwargs,match", [
    ({"rounding": "rz"}, "rounding"),
    ({"block": (16,)}, "block"),
    ({"seed": -1}, "seed"),
    ({"offset": 2 ** 64}, "offset"),
    ({"seed": 1.5}, "seed"),
    ({"threads": 0}, "threads"),
    ({"signs": [1] * 8}, "signs"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        nvfp4.quantize(np.zeros((16, 16), np.float32), **kwargs)


@pytest.mark.parametrize("x", [np.zeros(16), np.zeros((2, 2, 16)),
                               np.float32(1.0)])
def test_quantize_needs_2d(x):
    with pytest.raises(ValueError, match="2-D"):
        nvfp4.quantize(x)


def test_non_numeric_input():
    with pytest.raises(ValueError):
        nvfp4.quantize([["a"] * 16])
