"""The OCP MX formats (MXFP4, MXFP8) beside NVFP4, bit-exact.

Bindings of the reference library's MX numerics (include/nvfp4/Numerics/
MX.h, docs/numerics.md §13): blocks of 32 elements -- E2M1 for ``mxfp4``,
E4M3 for ``mxfp8_e4m3`` (or ``mxfp8``), E5M2 for ``mxfp8_e5m2`` -- share one E8M0 scale (a
power of two) chosen as the OCP Microscaling specification v1.0 and its
reference implementation do: ``floor(log2(block amax)) - emax`` of the
element type, elements rounded to nearest even and saturated. There is no
tensor scale.

>>> import numpy as np, nvfp4.mx as mx
>>> t = mx.quantize(np.ones((2, 64), np.float32), "mxfp4")
>>> t.scales.shape, float(t.dequantize()[0, 0])
((2, 2), 1.0)
"""

from __future__ import annotations

from typing import Tuple

import numpy as np

from . import _nvfp4

__all__ = ["FORMATS", "MXTensor", "quantize", "dequantize", "matmul",
           "shared_scale", "encode_e5m2", "decode_e5m2",
           "encode_e8m0_round_down", "decode_e8m0"]

#: Format name -> element type. The dialect's names (``mxfp4``,
#: ``mxfp8_e4m3``, ``mxfp8_e5m2``), and ``mxfp8`` for ``mxfp8_e4m3``.
FORMATS = {"mxfp4": "e2m1", "mxfp8_e4m3": "e4m3", "mxfp8": "e4m3",
           "mxfp8_e5m2": "e5m2"}
#: Elements per MX block.
BLOCK_SIZE = _nvfp4.MX_BLOCK_SIZE


def _element(fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown MX format {fmt!r} "
                         f"(one of {', '.join(FORMATS)})")
    return FORMATS[fmt]


class MXTensor:
    """An MX tensor of logical shape ``[rows, cols]``, blocked along cols.

    ``data``: the element codes, row-major (E2M1 two per byte, the even
    element in the low nibble; E4M3 / E5M2 one per byte). ``scales``: the
    E8M0 bytes, ``[rows, cols / 32]``.
    """

    def __init__(self, data, scales, shape: Tuple[int, int], fmt: str):
        self.format = fmt
        self.element = _element(fmt)
        self.shape = (int(shape[0]), int(shape[1]))
        self.data = np.ascontiguousarray(data, dtype=np.uint8)
        self.scales = np.ascontiguousarray(scales, dtype=np.uint8)

    def _args(self):
        return (self.data, self.scales, self.element)

    def dequantize(self) -> np.ndarray:
        """The f32 values: element * 2^(scale - 127); NaN for a NaN scale."""
        return _nvfp4.mx_dequantize(self.data, self.scales, self.shape[0],
                                    self.shape[1], self.element)

    def __repr__(self) -> str:
        return (f"MXTensor(shape={self.shape}, format={self.format!r})")


def quantize(x, fmt: str = "mxfp4", threads: int = 1) -> MXTensor:
    """Quantizes the 2-D array ``x`` (its last dimension a multiple of 32),
    its blocks split over `threads` threads (1 to ``nvfp4.MAX_THREADS``;
    the result does not depend on it)."""
    x = np.asarray(x, dtype=np.float32, order="C")
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, got {x.ndim} dimensions")
    data, scales = _nvfp4.mx_quantize(x, _element(fmt), threads)
    return MXTensor(data, scales, x.shape, fmt)


def dequantize(t: MXTensor) -> np.ndarray:
    """``t.dequantize()``."""
    return t.dequantize()


def matmul(a: MXTensor, b: MXTensor) -> np.ndarray:
    """``C = A @ B.T`` (f32) for MX tensors A ``[M, K]`` and B ``[N, K]`` of
    any formats: each 32-wide block's products summed exactly, rounded to
    f32, scaled by both scales and accumulated in f32 in increasing k."""
    return _nvfp4.mx_matmul(a.data, a.scales, a.element, b.data, b.scales,
                            b.element, a.shape[0], b.shape[0], a.shape[1],
                            b.shape[1])


def shared_scale(amax: float, fmt: str) -> int:
    """The E8M0 scale of a block whose largest magnitude is ``amax``."""
    return int(_nvfp4.mx_shared_scale(float(amax), _element(fmt)))


def encode_e5m2(x) -> np.ndarray:
    """E5M2 codes of ``x``: round to nearest even, saturated to +-57344."""
    x = np.asarray(x, dtype=np.float32, order="C")
    return _nvfp4.encode_e5m2(x.ravel()).reshape(x.shape)


def decode_e5m2(codes) -> np.ndarray:
    codes = np.asarray(codes, dtype=np.uint8, order="C")
    return _nvfp4.decode_e5m2(codes.ravel()).reshape(codes.shape)


def encode_e8m0_round_down(x) -> np.ndarray:
    """E8M0 codes of ``|x|`` rounded toward zero to a power of two, clipped
    to [2^-127, 2^127]; NaN gives 0xFF."""
    x = np.asarray(x, dtype=np.float32, order="C")
    return _nvfp4.encode_e8m0_round_down(x.ravel()).reshape(x.shape)


def decode_e8m0(codes) -> np.ndarray:
    codes = np.asarray(codes, dtype=np.uint8, order="C")
    return _nvfp4.decode_e8m0(codes.ravel()).reshape(codes.shape)
