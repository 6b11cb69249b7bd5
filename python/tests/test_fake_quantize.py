"""nvfp4.fake_quantize: bit for bit dequantize(quantize(...)) along any
axis of an N-D array, and stochastic rounding that never reuses random bits
unless asked."""

import numpy as np
import pytest

import nvfp4


def randn(rng, *shape):
    x = rng.standard_normal(shape).astype(np.float32)
    x.reshape(-1)[::29] *= 40  # scales spread over the E4M3 range
    return x


def round_trip(x2d, **kwargs):
    return nvfp4.dequantize(nvfp4.quantize(x2d, **kwargs))


def same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and \
        a.tobytes() == b.tobytes()


@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(block=(16, 16)),
    dict(rounding="rs", seed=7, offset=3),
    dict(block=(16, 16), rounding="rs", seed=9, offset=1000, hadamard=True),
    dict(hadamard=True, signs=[1, -1] * 8),
    dict(amax=50.0),
])
def test_two_d_last_axis_is_the_round_trip(rng, kwargs):
    x = randn(rng, 64, 96)
    assert same_bits(nvfp4.fake_quantize(x, **kwargs), round_trip(x, **kwargs))


@pytest.mark.parametrize("shape, axis", [((4, 32, 48), -1), ((4, 32, 48), 1),
                                         ((32, 3, 16), 0), ((2, 5, 16, 32), 2),
                                         ((64,), 0)])
def test_any_axis_moves_it_last_and_flattens_the_rest(rng, shape, axis):
    x = randn(rng, *shape)
    y = nvfp4.fake_quantize(x, axis=axis, rounding="rs", seed=5, offset=11)
    moved = np.moveaxis(x, axis, -1)
    expected = round_trip(moved.reshape(-1, moved.shape[-1]), rounding="rs",
                          seed=5, offset=11)
    expected = np.moveaxis(expected.reshape(moved.shape), -1, axis)
    assert y.shape == x.shape and y.dtype == np.float32
    assert y.flags.c_contiguous
    assert same_bits(y, np.ascontiguousarray(expected))


def test_sixteen_by_sixteen_tiles_along_the_dimension_before_the_axis(rng):
    # [batch, rows, cols] quantized along cols: tiles of 16 rows x 16 cols
    # within each matrix of the batch, one tensor amax for the whole array.
    x = randn(rng, 3, 32, 64)
    y = nvfp4.fake_quantize(x, block=(16, 16))
    amax = float(np.abs(x).max())
    for b in range(3):
        assert same_bits(y[b], round_trip(x[b], block=(16, 16), amax=amax))


def test_a_generator_advances_by_the_blocks_it_used(rng):
    x = randn(rng, 32, 64)
    gen = nvfp4.Generator(seed=42, offset=10)
    first = nvfp4.fake_quantize(x, rounding="rs", seed=gen)
    assert gen.offset == 10 + x.size // 16
    second = nvfp4.fake_quantize(x, rounding="rs", seed=gen)
    assert gen.offset == 10 + 2 * (x.size // 16)
    # New random bits each time ...
    assert not same_bits(first, second)
    # ... and exactly those an explicit offset names.
    assert same_bits(first, round_trip(x, rounding="rs", seed=42, offset=10))
    assert same_bits(second, round_trip(x, rounding="rs", seed=42,
                                        offset=10 + x.size // 16))
    assert same_bits(second, nvfp4.fake_quantize(
        x, rounding="rs", seed=42, offset=10 + x.size // 16))


def test_stochastic_rounding_without_a_seed_uses_the_default_generator(rng):
    x = randn(rng, 16, 32)
    before = nvfp4.default_generator().offset
    a = nvfp4.fake_quantize(x, rounding="rs")
    b = nvfp4.fake_quantize(x, rounding="rs")
    assert nvfp4.default_generator().offset == before + 2 * (x.size // 16)
    assert not same_bits(a, b)


def test_round_to_nearest_leaves_generators_alone(rng):
    x = randn(rng, 16, 32)
    gen = nvfp4.Generator(1, 5)
    y = nvfp4.fake_quantize(x, seed=gen)
    assert gen.offset == 5 and same_bits(y, round_trip(x))


@pytest.mark.parametrize("call, message", [
    (lambda x: nvfp4.fake_quantize(x, axis=3), "out of range"),
    (lambda x: nvfp4.fake_quantize(x, axis=0), "multiple of 16"),
    (lambda x: nvfp4.fake_quantize(x[:8], block=(16, 16)), "16x16"),
    (lambda x: nvfp4.fake_quantize(np.float32(1.0)), "scalar"),
    (lambda x: nvfp4.fake_quantize(x, rounding="rs",
                                   seed=nvfp4.Generator(), offset=2),
     "Generator"),
    (lambda x: nvfp4.fake_quantize(x, rounding="rs", offset=2), "integer seed"),
    (lambda x: nvfp4.fake_quantize(x, rounding="rs", seed=-1), "seed"),
    (lambda x: nvfp4.fake_quantize(x, axis=1.0), "axis"),
])
def test_invalid_arguments(rng, call, message):
    x = randn(rng, 24, 32)
    with pytest.raises(ValueError, match=message):
        call(x)


def test_generator_validation():
    with pytest.raises(ValueError, match="seed"):
        nvfp4.Generator(seed=2**64)
    gen = nvfp4.Generator(0, 2**64 - 4)
    with pytest.raises(ValueError, match="2\\*\\*64"):
        gen.take(8)
    assert gen.take(3) == 2**64 - 4 and gen.offset == 2**64 - 1
    assert repr(gen) == f"nvfp4.Generator(seed=0, offset={2**64 - 1})"
