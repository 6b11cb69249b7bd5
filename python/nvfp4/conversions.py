"""Element conversions of the NVFP4 formats (E2M1 codes, E4M3 scale bytes),
E2M1 packing, and the Philox random bits of stochastic rounding: bindings of
the reference library over numpy arrays of any shape."""

from __future__ import annotations

from typing import Tuple

import numpy as np

from . import _as_f32, _as_u8, _check_uint64, _nvfp4


def _map_f32(fn, x) -> np.ndarray:
    arr = _as_f32(x)
    return fn(arr.reshape(-1)).reshape(arr.shape)


def _map_u8(fn, codes) -> np.ndarray:
    arr = _as_u8(codes, "codes")
    return fn(arr.reshape(-1)).reshape(arr.shape)


def encode_e2m1(x) -> np.ndarray:
    """E2M1 codes (uint8, 0..15, one per element) with round-to-nearest-even
    and saturation to +-6 (``cvt.rn.satfinite.e2m1x2.f32``)."""
    return _map_f32(_nvfp4.encode_e2m1, x)


def encode_e2m1_stochastic(x, rbits) -> np.ndarray:
    """E2M1 codes with stochastic rounding from one random byte per element
    (``rbits``, same shape as ``x``), saturating to +-6."""
    arr = _as_f32(x)
    bits = _as_u8(rbits, "rbits")
    if bits.shape != arr.shape:
        raise ValueError(
            f"rbits must have the shape of x {arr.shape}, got {bits.shape}")
    return _nvfp4.encode_e2m1_stochastic(
        arr.reshape(-1), bits.reshape(-1)).reshape(arr.shape)


def decode_e2m1(codes) -> np.ndarray:
    """float32 values of E2M1 codes (the low nibble of each byte)."""
    return _map_u8(_nvfp4.decode_e2m1, codes)


def encode_e4m3(x) -> np.ndarray:
    """E4M3 (fn) bit patterns with round-to-nearest-even and saturation to
    +-448 (satfinite); NaN encodes as 0x7F / 0xFF."""
    return _map_f32(_nvfp4.encode_e4m3, x)


def decode_e4m3(codes) -> np.ndarray:
    """float32 values of E4M3 (fn) bytes; 0x7F / 0xFF decode to NaN."""
    return _map_u8(_nvfp4.decode_e4m3, codes)


def pack_e2m1(codes) -> np.ndarray:
    """Packs E2M1 codes ``[..., K]`` (K even) two per byte ``[..., K/2]``,
    the even-indexed element in the low nibble."""
    arr = _as_u8(codes, "codes")
    if arr.ndim == 0 or arr.shape[-1] % 2 != 0:
        raise ValueError("pack_e2m1 expects an even-length last dimension")
    return np.ascontiguousarray(
        (arr[..., 0::2] & 0xF) | ((arr[..., 1::2] & 0xF) << 4)).astype(np.uint8)


def unpack_e2m1(data) -> np.ndarray:
    """Inverse of :func:`pack_e2m1`: ``[..., N]`` bytes -> ``[..., 2N]``
    codes, the low nibble first. A single byte (a Python int, a numpy
    scalar or a 0-d array) is treated as ``[1]`` and gives its two codes,
    shape ``(2,)``."""
    arr = _as_u8(data, "data")
    if arr.ndim == 0:
        arr = arr.reshape(1)
    out = np.empty(arr.shape[:-1] + (arr.shape[-1] * 2,), dtype=np.uint8)
    out[..., 0::2] = arr & 0xF
    out[..., 1::2] = arr >> 4
    return out


def philox(seed: int, offset: int) -> Tuple[int, int, int, int]:
    """One Philox4x32-10 evaluation keyed by ``seed`` with counter
    ``offset``: four 32-bit words."""
    return tuple(int(w) for w in _nvfp4.philox4x32(
        _check_uint64(seed, "seed"), _check_uint64(offset, "offset")))


def stochastic_rounding_bits(seed: int, offset: int, index) -> np.ndarray:
    """The 8 random bits stochastic rounding uses for the element(s) at
    row-major linear ``index`` of a tensor quantized with
    ``(seed, offset)``."""
    idx = np.asarray(index)
    if idx.size and (not np.issubdtype(idx.dtype, np.integer) or idx.min() < 0):
        raise ValueError("index must hold non-negative integers")
    flat = np.ascontiguousarray(idx, dtype=np.uint64).reshape(-1)
    out = _nvfp4.stochastic_rounding_bits(
        _check_uint64(seed, "seed"), _check_uint64(offset, "offset"), flat)
    return out.reshape(idx.shape)
