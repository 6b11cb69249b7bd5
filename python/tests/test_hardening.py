"""Regression tests for crashes and wrong exception types on hostile
arguments: huge or negative dimensions (sizes that overflow int64),
out-of-range integers, wrong dtypes, 0-d inputs and empty tensors with huge
dimensions. Each test names the exception class it expects."""

import copy
import pickle

import numpy as np
import pytest

import nvfp4

EMPTY = np.zeros(0, dtype=np.uint8)


def small_tensor(block=(16, 16)):
    x = np.random.default_rng(3).standard_normal((16, 64)).astype(np.float32)
    return nvfp4.quantize(x, block=block)


# --------------------------------------------------------------------------
# D1: scale swizzle sizes
# --------------------------------------------------------------------------

@pytest.mark.parametrize("rows,cols", [(2**62, 4), (2**32, 2**32),
                                       (2**63 - 1, 1), (1, 2**63 - 1),
                                       (2**62, 2**62)])
def test_unswizzle_overflowing_size_raises_value_error(rows, cols):
    # The padded size used to wrap around to 0 and match the empty array.
    with pytest.raises(ValueError, match="int64"):
        nvfp4.unswizzle_scales(EMPTY, rows, cols)


@pytest.mark.parametrize("rows,cols", [(2**62, 2**62), (-1, -1), (-1, 4),
                                       (4, -1), (2**63 - 1, 1),
                                       (2**63 - 127, 1), (1, 2**63 - 3)])
def test_swizzled_scales_size_invalid_raises_value_error(rows, cols):
    with pytest.raises(ValueError):
        nvfp4.swizzled_scales_size(rows, cols)


@pytest.mark.parametrize("rows,cols", [(2**63, 1), (1, 2**64), (-2**63 - 1, 1)])
def test_swizzle_dims_beyond_int64_raise_value_error(rows, cols):
    # nanobind used to reject these with "incompatible function arguments".
    with pytest.raises(ValueError):
        nvfp4.swizzled_scales_size(rows, cols)
    with pytest.raises(ValueError):
        nvfp4.unswizzle_scales(EMPTY, rows, cols)


def test_swizzled_scales_size_edges():
    assert nvfp4.swizzled_scales_size(0, 0) == 0
    assert nvfp4.swizzled_scales_size(0, 2**62) == 0
    assert nvfp4.swizzled_scales_size(2**62, 0) == 0
    assert nvfp4.swizzled_scales_size(1, 1) == 512
    assert nvfp4.swizzled_scales_size(2**56, 4) == 2**58
    assert nvfp4.swizzled_scales_size(np.int64(129), np.uint8(5)) == 256 * 8


def test_unswizzle_negative_and_non_integer_dims():
    with pytest.raises(ValueError, match="non-negative"):
        nvfp4.unswizzle_scales(EMPTY, -1, 4)
    with pytest.raises(ValueError):
        nvfp4.unswizzle_scales(EMPTY, 1.5, 4)
    with pytest.raises(ValueError):
        nvfp4.unswizzle_scales(EMPTY, "4", 4)


def test_unswizzle_empty_with_huge_dims():
    out = nvfp4.unswizzle_scales(EMPTY, 0, 2**62)
    assert out.shape == (0, 2**62) and out.dtype == np.uint8
    out = nvfp4.unswizzle_scales(EMPTY, 2**40, 0)
    assert out.shape == (2**40, 0)


@pytest.mark.parametrize("shape,tiles", [((0, 5), (0, 2)), ((5, 0), (1, 0)),
                                         ((0, 0), (0, 0)),
                                         ((2**40, 0), (2**33, 0))])
def test_swizzle_empty(shape, tiles):
    z = nvfp4.swizzle_scales(np.zeros(shape, np.uint8))
    assert z.shape == tiles + (32, 4, 4) and z.size == 0
    assert nvfp4.swizzled_scales_size(*shape) == 0


def test_swizzle_wrong_ndim_and_dtype():
    with pytest.raises(ValueError):
        nvfp4.swizzle_scales(np.zeros((2, 2, 2), np.uint8))
    with pytest.raises(ValueError):
        nvfp4.swizzle_scales(np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError):
        nvfp4.swizzle_scales(np.full((2, 2), -1))


def test_swizzle_non_contiguous_input():
    s = np.arange(8 * 12, dtype=np.uint8).reshape(8, 12)
    view = s[::2, ::3]
    z = nvfp4.swizzle_scales(view)
    np.testing.assert_array_equal(nvfp4.unswizzle_scales(z, 4, 4), view)


# --------------------------------------------------------------------------
# D2: tensors whose shape does not match their data
# --------------------------------------------------------------------------

def overflowing_tensor(shape=(2**62, 64)):
    t = small_tensor()
    t.data = EMPTY
    t.scales = EMPTY
    t.shape = shape
    return t


@pytest.mark.parametrize("op", [
    lambda t: nvfp4.matmul(t, t),
    lambda t: nvfp4.transpose(t),
    lambda t: nvfp4.dequantize(t),
    lambda t: nvfp4.matmul(small_tensor(), t),
])
def test_overflowing_shape_raises_value_error(op):
    # rows * cols / 2 used to wrap around and match the empty data.
    with pytest.raises(ValueError, match="int64"):
        op(overflowing_tensor())


@pytest.mark.parametrize("shape", [(2**40, 64), (2**57, 64), (64, 2**57),
                                   (16, 2**60)])
def test_huge_shape_with_small_data_raises_value_error(shape):
    t = overflowing_tensor(shape)
    for op in (nvfp4.dequantize, nvfp4.transpose,
               lambda u: nvfp4.matmul(u, u)):
        with pytest.raises(ValueError):
            op(t)


def test_shape_setter_validates_form():
    t = small_tensor()
    with pytest.raises(ValueError):
        t.shape = (16, 64, 1)
    with pytest.raises(ValueError):
        t.shape = (2**63, 64)
    with pytest.raises(ValueError):
        t.shape = (16.5, 64)
    with pytest.raises(ValueError):
        t.shape = 16
    t.shape = (np.int64(16), 64.0)
    assert t.shape == (16, 64) and all(type(v) is int for v in t.shape)
    t.shape = (-16, 64)  # checked on use
    with pytest.raises(ValueError, match="non-negative"):
        nvfp4.dequantize(t)


def test_block_mismatch_is_checked_on_use():
    t = nvfp4.quantize(np.ones((8, 32), np.float32))
    t.block = (16, 16)
    with pytest.raises(ValueError, match="multiple of 16"):
        nvfp4.dequantize(t)
    with pytest.raises(ValueError):
        t.block = (16,)
    with pytest.raises(ValueError):
        t.block = (2**31, 16)


def test_tensor_constructor_huge_dims_raise_value_error():
    with pytest.raises(ValueError):
        nvfp4.Tensor([], [], 0.0, (2**64, 16))
    with pytest.raises(ValueError, match="int64"):
        nvfp4.Tensor([], [], 0.0, (2**62, 64))
    with pytest.raises(ValueError):
        nvfp4.Tensor([], [], 0.0, "ab")
    msg = nvfp4.check_quantizable(2**64, 16)
    assert isinstance(msg, str) and "int64" in msg
    assert "int64" in nvfp4.check_quantizable(2**62, 64)
    with pytest.raises(ValueError):
        nvfp4.check_quantizable(1.5, 16)


# Empty tensors with huge dimensions are valid and cost nothing.

def test_empty_tensor_with_huge_rows():
    t = nvfp4.Tensor([], [], 0.0, (2**40, 0), block=(16, 16))
    d = nvfp4.dequantize(t)
    assert d.shape == (2**40, 0) and d.dtype == np.float32
    tt = nvfp4.transpose(t)
    assert tt.shape == (0, 2**40) and tt.block == (16, 16)
    assert tt.data.shape == (0, 2**39) and tt.scales.shape == (0, 2**36)
    assert nvfp4.transpose(tt) == t


def test_quantize_empty_with_huge_rows_returns_at_once():
    # Used to walk 2**40 empty rows.
    x = np.zeros((2**40, 0), np.float32)
    for kwargs in ({}, {"threads": 4}, {"block": (16, 16)},
                   {"rounding": "rs", "hadamard": True}):
        t = nvfp4.quantize(x, **kwargs)
        assert t.shape == (2**40, 0) and t.amax == 0
        assert t.data.shape == (2**40, 0) and t.scales.shape == (2**40, 0)
    assert nvfp4.quantize(x, amax=5.0).amax == 5.0
    with pytest.raises(ValueError, match="amax"):
        nvfp4.quantize(x, amax=-1.0)
    with pytest.raises(ValueError, match="16x16"):
        nvfp4.quantize(np.zeros((2**40 + 1, 0), np.float32), block=(16, 16))


def test_matmul_output_overflow_raises_value_error():
    a = nvfp4.Tensor([], [], 1.0, (2**40, 0))
    with pytest.raises(ValueError, match="int64"):
        nvfp4.matmul(a, a)


def test_matmul_output_too_large_raises_memory_error():
    # 2**62 floats: representable, but more bytes than can be addressed.
    a = nvfp4.Tensor([], [], 1.0, (2**31, 0))
    with pytest.raises(MemoryError):
        nvfp4.matmul(a, a)


def test_matmul_empty_outputs():
    a = nvfp4.Tensor([], [], 1.0, (2**40, 0))
    b = nvfp4.Tensor([], [], 1.0, (0, 0))
    assert nvfp4.matmul(a, b).shape == (2**40, 0)
    assert nvfp4.matmul(b, a).shape == (0, 2**40)


def test_matmul_f32_sizes():
    a = np.zeros((2**40, 0), np.float32)
    with pytest.raises(ValueError, match="int64"):
        nvfp4.matmul_f32(a, a)
    assert nvfp4.matmul_f32(a, np.zeros((0, 0))).shape == (2**40, 0)
    with pytest.raises(MemoryError):
        nvfp4.matmul_f32(np.zeros((2**31, 0)), np.zeros((2**31, 0)))
    with pytest.raises(ValueError, match="2-D"):
        nvfp4.matmul_f32(np.zeros(16), np.zeros((1, 16)))
    with pytest.raises(ValueError, match="contraction"):
        nvfp4.matmul_f32(np.zeros((1, 16)), np.zeros((1, 32)))


def test_hadamard_empty_with_huge_rows():
    y = nvfp4.hadamard(np.zeros((2**40, 0), np.float32))
    assert y.shape == (2**40, 0)


# --------------------------------------------------------------------------
# D7: integers, dtypes, 0-d arrays
# --------------------------------------------------------------------------

@pytest.mark.parametrize("threads", [2**40, 2**31, nvfp4.MAX_THREADS + 1, -1,
                                     0, 1.5, "2", None])
def test_bad_threads_raise_value_error(threads):
    with pytest.raises(ValueError, match="threads"):
        nvfp4.quantize(np.zeros((16, 16), np.float32), threads=threads)


def test_threads_accepts_integers():
    x = np.random.default_rng(0).standard_normal((64, 32)).astype(np.float32)
    want = nvfp4.quantize(x)
    assert nvfp4.quantize(x, threads=np.int64(3)) == want
    assert nvfp4.quantize(x, threads=2.0) == want
    assert nvfp4.quantize(x, threads=nvfp4.MAX_THREADS) == want


@pytest.mark.parametrize("byte", [np.uint8(0x3A), np.array(0x3A, np.uint8),
                                  0x3A, np.int64(0x3A)])
def test_unpack_e2m1_scalar_gives_both_codes(byte):
    out = nvfp4.unpack_e2m1(byte)
    assert out.dtype == np.uint8 and out.shape == (2,)
    np.testing.assert_array_equal(out, [0xA, 0x3])
    np.testing.assert_array_equal(nvfp4.pack_e2m1(out), [0x3A])


def test_unpack_e2m1_rejects_non_bytes():
    with pytest.raises(ValueError):
        nvfp4.unpack_e2m1(np.float32(3))
    with pytest.raises(ValueError):
        nvfp4.unpack_e2m1(256)
    with pytest.raises(ValueError):
        nvfp4.pack_e2m1(np.uint8(3))


@pytest.mark.parametrize("field", ["data", "scales"])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.uint16, np.int64,
                                   np.float64, np.bool_])
def test_tensor_field_wrong_dtype_raises_type_error(field, dtype):
    t = small_tensor()
    before = getattr(t, field).copy()
    with pytest.raises(TypeError, match="uint8"):
        setattr(t, field, np.zeros(getattr(t, field).shape, dtype))
    np.testing.assert_array_equal(getattr(t, field), before)


@pytest.mark.parametrize("field", ["data", "scales"])
def test_tensor_field_non_arrays_raise_type_error(field):
    t = small_tensor()
    with pytest.raises(TypeError):
        setattr(t, field, getattr(t, field).tolist())
    with pytest.raises(TypeError):
        setattr(t, field, "abc")


def test_tensor_fields_accept_uint8_views():
    t = small_tensor()
    want = nvfp4.dequantize(t)
    # A non-contiguous uint8 view with the same contents.
    wide = np.zeros((16, 64), np.uint8)
    wide[:, ::2] = t.data
    t.data = wide[:, ::2]
    assert not t.data.flags.c_contiguous
    np.testing.assert_array_equal(nvfp4.dequantize(t), want)
    # Raw bytes of another dtype, explicitly viewed as uint8.
    t.scales = np.ascontiguousarray(t.scales).view(np.int8).view(np.uint8)
    np.testing.assert_array_equal(nvfp4.dequantize(t), want)


def test_tensor_constructor_dtypes():
    t = small_tensor()
    with pytest.raises(ValueError, match="uint8"):
        nvfp4.Tensor(t.data.astype(np.float32), t.scales, t.amax, t.shape,
                     t.block)
    with pytest.raises(ValueError):
        nvfp4.Tensor(t.data.astype(np.int64) + 256, t.scales, t.amax,
                     t.shape, t.block)
    # Integer arrays within [0, 255] are converted.
    u = nvfp4.Tensor(t.data.astype(np.int64), t.scales.astype(np.int32),
                     t.amax, t.shape, t.block)
    assert u == t


@pytest.mark.parametrize("amax", [-1.0, float("nan"), "1.0", [1.0, 2.0],
                                  1 + 2j])
def test_tensor_amax_validation(amax):
    t = small_tensor()
    with pytest.raises(ValueError):
        t.amax = amax
    with pytest.raises(ValueError):
        nvfp4.Tensor(t.data, t.scales, amax, t.shape, t.block)


def test_tensor_amax_is_float32():
    t = small_tensor()
    t.amax = 1e300  # beyond float32: rounds to +Inf
    assert isinstance(t.amax, np.float32) and np.isinf(t.amax)
    t.amax = 10**400
    assert np.isinf(t.amax)
    t.amax = 0.1
    assert t.amax == np.float32(0.1)
    t.amax = -0.0
    assert t.amax == 0


def test_global_decode_scale_is_read_only():
    t = small_tensor()
    assert t.global_decode_scale == nvfp4.global_decode_scale(t.amax)
    with pytest.raises(AttributeError):
        t.global_decode_scale = 1.0
    with pytest.raises(AttributeError):
        t.global_scale = 1.0
    with pytest.raises(AttributeError):
        t.unknown = 1  # __slots__


def test_tensor_copy_and_pickle():
    t = small_tensor()
    for u in (copy.deepcopy(t), pickle.loads(pickle.dumps(t)), copy.copy(t)):
        assert u == t and u.amax.tobytes() == t.amax.tobytes()


@pytest.mark.parametrize("amax", [1e300, 10**400, float("inf")],
                         ids=["1e300", "10**400", "inf"])
def test_quantize_amax_beyond_float32_is_inf(amax):
    x = np.ones((16, 16), np.float32)
    t = nvfp4.quantize(x, amax=amax)
    assert np.isinf(t.amax)
    assert t == nvfp4.quantize(x, amax=float("inf"))


@pytest.mark.parametrize("amax", ["1.0", [1.0], float("nan"), -1.0, 1j])
def test_quantize_bad_amax_raises_value_error(amax):
    with pytest.raises(ValueError, match="amax"):
        nvfp4.quantize(np.ones((16, 16), np.float32), amax=amax)


def test_scalar_helpers_with_huge_and_bad_values():
    assert nvfp4.global_encode_scale(10**400) == 1.0  # Inf
    assert nvfp4.global_encode_scale(1e300) == 1.0
    assert nvfp4.global_decode_scale(np.float64(1e300)) == 1.0
    with pytest.raises(ValueError):
        nvfp4.global_encode_scale("abc")
    with pytest.raises(ValueError):
        nvfp4.global_encode_scale(np.ones(2))
    with pytest.raises(ValueError):
        nvfp4.block_scale("1", 1.0)
    assert nvfp4.block_scale(1e300, 1.0) == 0x7E


def test_dequantize_scale_arguments():
    got = nvfp4.dequantize_scale(0x7E, 2688.0)
    assert isinstance(got, np.float32)
    assert got == (np.float32(448.0) * np.float32(2688.0)) * np.float32(
        1 / 2688.0)
    for code in (256, -1, 1.5, "1"):
        with pytest.raises(ValueError):
            nvfp4.dequantize_scale(code, 1.0)
    with pytest.raises(ValueError):
        nvfp4.dequantize_scale(np.array([1, 300]), 1.0)
    out = nvfp4.dequantize_scale(np.arange(6, dtype=np.uint8).reshape(2, 3),
                                 1.0)
    assert out.shape == (2, 3) and out.dtype == np.float32


def test_quantize_rejects_complex_and_unconvertible():
    with pytest.raises(ValueError, match="real"):
        nvfp4.quantize(np.ones((16, 16), np.complex64))
    with pytest.raises(ValueError):
        nvfp4.quantize([[10**400] * 16])
    with pytest.raises(ValueError):
        nvfp4.quantize(np.zeros((16, 16)), block=(1.5, 16))
    with pytest.raises(ValueError):
        nvfp4.quantize(np.zeros((16, 16)), block=(-1, 16))


def test_non_tensor_operands_raise_value_error():
    t = small_tensor()
    for op in (nvfp4.dequantize, nvfp4.transpose):
        with pytest.raises(ValueError):
            op(np.zeros((16, 32)))
    with pytest.raises(ValueError):
        nvfp4.matmul(t, t.data)


def test_stochastic_rounding_bits_bad_indices():
    with pytest.raises(ValueError):
        nvfp4.stochastic_rounding_bits(0, 0, [-1])
    with pytest.raises(ValueError):
        nvfp4.stochastic_rounding_bits(0, 0, [2**64])
    with pytest.raises(ValueError):
        nvfp4.stochastic_rounding_bits(0, 0, [1.5])
    assert nvfp4.stochastic_rounding_bits(0, 0, 2**64 - 1).shape == ()
