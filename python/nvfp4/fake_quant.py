# ===- fake_quant.py - One-call fake quantization along any axis ---------=== #
#
# Part of the NVFP4-MLIR project.
#
# ===---------------------------------------------------------------------=== #
"""Fake quantization: the values an NVFP4 round trip gives, in one call.

:func:`fake_quantize` quantizes an N-D array along any axis and returns the
dequantized float32 values, bit for bit ``dequantize(quantize(...))`` of the
reference library. Stochastic rounding draws its Philox counters from a
:class:`Generator`, which every call advances past the counters it used, so
repeated calls never reuse random bits unless an explicit ``offset`` asks
for it.
"""

from typing import Iterable, Optional, Union

import numpy as np

__all__ = ["Generator", "default_generator", "fake_quantize"]

_UINT64_MAX = 2**64 - 1


def _uint64(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if not 0 <= value <= _UINT64_MAX:
        raise ValueError(f"{name} must be in [0, 2**64 - 1], got {value}")
    return value


class Generator:
    """The Philox key (``seed``) and next counter (``offset``) of stochastic
    rounding. Block ``b`` of a quantization (its 16 consecutive elements
    along the quantized axis, counted over the whole array) draws
    ``philox4x32(seed, offset + b)``; a call that quantizes ``n`` blocks
    advances ``offset`` by ``n``."""

    def __init__(self, seed: int = 0, offset: int = 0):
        self._seed = _uint64(seed, "seed")
        self._offset = _uint64(offset, "offset")

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def offset(self) -> int:
        """The first counter the next quantization uses."""
        return self._offset

    def take(self, blocks: int) -> int:
        """Reserves ``blocks`` counters; returns the first."""
        blocks = _uint64(blocks, "blocks")
        first = self._offset
        if first + blocks > _UINT64_MAX:
            raise ValueError(
                f"Generator: {blocks} more counters would pass 2**64 - 1 "
                f"(offset {first}); start a generator with another seed")
        self._offset = first + blocks
        return first

    def __repr__(self) -> str:
        return f"nvfp4.Generator(seed={self._seed}, offset={self._offset})"


_DEFAULT_GENERATOR = Generator(0, 0)


def default_generator() -> Generator:
    """The generator stochastic :func:`fake_quantize` calls use when given
    no ``seed``."""
    return _DEFAULT_GENERATOR


def fake_quantize(x, axis: int = -1, block=(1, 16), rounding: str = "rn",
                  seed: Union[None, int, Generator] = None,
                  offset: Optional[int] = None,
                  hadamard: bool = False,
                  signs: Optional[Iterable[int]] = None,
                  amax: Optional[float] = None,
                  threads: int = 1) -> np.ndarray:
    """Quantizes ``x`` to NVFP4 along ``axis`` and returns the dequantized
    values (float32, the shape of ``x``): bit for bit
    ``dequantize(quantize(x2d, ...))`` of ``x`` with ``axis`` moved last and
    the other dimensions flattened in order into rows.

    Args:
      x: an array of at least one dimension, converted to float32 first.
        The size of ``axis`` must be a multiple of 16.
      axis: the dimension the 16-element blocks run along.
      block: ``(1, 16)``, or ``(16, 16)``: tiles of 16 consecutive rows of
        the flattened array, i.e. along the dimension before ``axis`` once
        ``axis`` is moved last, whose size must then be a multiple of 16.
      rounding: ``"rn"`` (round to nearest even) or ``"rs"`` (stochastic).
      seed: for ``"rs"``: a :class:`Generator`, which the call advances by
        the number of blocks (``x.size / 16``); an integer key, with
        ``offset`` (default 0) as the first counter; or ``None``, the
        :func:`default_generator`. Ignored for ``"rn"``.
      offset: the first counter with an integer ``seed`` (not with a
        :class:`Generator`).
      hadamard, signs, amax, threads: as :func:`nvfp4.quantize` (the
        Hadamard transform runs along ``axis``; ``amax`` is the whole
        array's).

    Returns:
      float32 values of the shape of ``x``.
    """
    from . import quantize, dequantize

    arr = np.asarray(x, dtype=np.float32)
    if arr.ndim == 0:
        raise ValueError("fake_quantize expects an array of at least one "
                         "dimension, got a scalar")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise ValueError(f"fake_quantize: axis must be an integer, got "
                         f"{axis!r}")
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"fake_quantize: axis {axis} is out of range for "
                         f"{arr.ndim} dimensions")
    axis = int(axis) % arr.ndim
    moved = np.moveaxis(arr, axis, -1)
    if moved.shape[-1] % 16 != 0:
        raise ValueError(f"fake_quantize: the size of axis {axis} "
                         f"({moved.shape[-1]}) must be a multiple of 16")
    if tuple(block) == (16, 16) and (moved.ndim < 2 or moved.shape[-2] % 16):
        raise ValueError(
            "fake_quantize: 16x16 blocks need the dimension before the "
            f"quantized axis (after moving it last, shape {moved.shape}) to "
            "be a multiple of 16")
    rows = int(np.prod(moved.shape[:-1], dtype=np.int64))
    flat = np.ascontiguousarray(moved.reshape(rows, moved.shape[-1]))
    blocks = flat.size // 16
    key, first = 0, 0
    stochastic = isinstance(rounding, str) and rounding.lower() == "rs"
    if stochastic:
        if isinstance(seed, Generator):
            if offset is not None:
                raise ValueError("fake_quantize: offset is taken from the "
                                 "Generator; pass an integer seed to choose "
                                 "it")
            key, first = seed.seed, seed.take(blocks)
        elif seed is None:
            if offset is not None:
                raise ValueError("fake_quantize: an offset needs an integer "
                                 "seed")
            generator = default_generator()
            key, first = generator.seed, generator.take(blocks)
        else:
            key = _uint64(seed, "seed")
            first = _uint64(0 if offset is None else offset, "offset")
            if first + blocks > _UINT64_MAX:
                raise ValueError("fake_quantize: offset + blocks passes "
                                 "2**64 - 1")
    t = quantize(flat, block=block, rounding=rounding, seed=key, offset=first,
                 hadamard=hadamard, signs=signs, amax=amax, threads=threads)
    return np.ascontiguousarray(
        np.moveaxis(dequantize(t).reshape(moved.shape), -1, axis))
