"""NVFP4 reference numerics for Python.

Bit-exact bindings of the project's C++ reference library (the ground truth
every lowering of the ``nvfp4`` dialect is checked against), with numpy
arrays in and out:

* :func:`quantize` / :func:`dequantize` -- Transformer-Engine-compatible
  NVFP4 quantization (E2M1 elements, E4M3 block scales, a per-tensor FP32
  scale), 1x16 or 16x16 blocks, round-to-nearest-even or stochastic rounding
  (Philox4x32-10 keyed by ``(seed, offset)``), optional 16x16 random
  Hadamard transform.
* :func:`matmul` -- the block-scaled GEMM ``C = A @ B.T`` on NVFP4 operands.
* :func:`hadamard`, :func:`swizzle_scales`, :func:`unswizzle_scales`,
  :func:`transpose`, element conversions and :func:`philox`.

Input conversion: every array argument is converted with
``numpy.asarray(x, dtype=..., order="C")`` first (float32 for values, uint8 for
codes), so non-contiguous views and other dtypes (float64, float16, ints) are
accepted; the conversion from float64 rounds to float32 before quantizing.

Invalid arguments raise :class:`ValueError` carrying the library's message.
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence, Tuple, Union

import numpy as np

try:
    from . import _nvfp4
except ImportError as _e:  # pragma: no cover - depends on the installation
    raise ImportError(
        "nvfp4: the compiled extension nvfp4._nvfp4 is missing next to "
        f"{__file__}. Import the package from a build tree "
        "(PYTHONPATH=<build>/python_packages) or install it with "
        "`pip install ./python`; the source directory python/nvfp4 alone "
        "cannot be imported.") from _e

__all__ = [
    "Tensor",
    "quantize",
    "dequantize",
    "matmul",
    "matmul_f32",
    "transpose",
    "hadamard",
    "swizzle_scales",
    "unswizzle_scales",
    "swizzled_scales_size",
    "encode_e2m1",
    "encode_e2m1_stochastic",
    "decode_e2m1",
    "encode_e4m3",
    "decode_e4m3",
    "pack_e2m1",
    "unpack_e2m1",
    "philox",
    "stochastic_rounding_bits",
    "global_encode_scale",
    "block_scale",
    "check_quantizable",
    "E2M1_MAX",
    "E4M3_MAX",
    "BLOCK_SIZE",
    "DEFAULT_HADAMARD_SIGNS",
]

__version__ = "0.1.0"

#: Largest finite E2M1 magnitude (6.0).
E2M1_MAX: float = float(_nvfp4.E2M1_MAX)
#: Largest finite E4M3 magnitude (448.0).
E4M3_MAX: float = float(_nvfp4.E4M3_MAX)
#: Elements per 1-D block along the contraction dimension (16).
BLOCK_SIZE: int = int(_nvfp4.BLOCK_SIZE)
#: Transformer Engine's fixed sign vector for the 16x16 RHT.
DEFAULT_HADAMARD_SIGNS: Tuple[int, ...] = tuple(
    int(s) for s in _nvfp4.DEFAULT_HADAMARD_SIGNS)

_ROUNDINGS = {"rn": False, "rne": False, "nearest": False,
              "rs": True, "sr": True, "stochastic": True}

BlockLike = Union[Tuple[int, int], Sequence[int]]


def _as_f32(x, name: str = "x") -> np.ndarray:
    try:
        return np.asarray(x, dtype=np.float32, order="C")
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name} cannot be converted to float32: {e}") from e


def _as_u8(x, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype != np.uint8:
        if arr.size and (not np.issubdtype(arr.dtype, np.integer)
                         or arr.min() < 0 or arr.max() > 255):
            raise ValueError(f"{name} must hold bytes (uint8), got {arr.dtype}")
        arr = arr.astype(np.uint8)
    return np.asarray(arr, order="C")


def _check_uint64(value, name: str) -> int:
    try:
        v = int(value)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name} must be an integer: {e}") from e
    if v != value or not 0 <= v < 2**64:
        raise ValueError(f"{name} must be an integer in [0, 2**64), got {value!r}")
    return v


def _block(block: BlockLike) -> Tuple[int, int]:
    try:
        b = tuple(int(v) for v in block)
    except TypeError as e:
        raise ValueError(f"block must be a pair (rows, cols), got {block!r}") from e
    if len(b) != 2 or not all(0 <= v < 2**31 for v in b):
        raise ValueError(f"block must be a pair (rows, cols), got {block!r}")
    # Which block shapes are valid is the library's call (checkQuantizable).
    return b  # type: ignore[return-value]


def _signs(signs: Optional[Iterable[int]]) -> Optional[np.ndarray]:
    if signs is None:
        return None
    arr = np.asarray(signs)
    if arr.shape != (16,):
        raise ValueError(f"signs must have shape (16,), got {arr.shape}")
    if not np.all((arr == 1) | (arr == -1)):
        raise ValueError("signs must contain only +1 and -1")
    return np.ascontiguousarray(arr, dtype=np.int8)


class Tensor:
    """An NVFP4 tensor of logical shape ``[M, K]``, quantized along ``K``.

    Fields:

    * ``data`` -- uint8 ``[M, K/2]``: two E2M1 codes per byte, the
      even-indexed element in the low nibble.
    * ``scales`` -- uint8 ``[M, K/16]``: E4M3 bit patterns, one per 1x16 row
      block. For 16x16 blocks each tile's scale is replicated to its 16 rows.
    * ``global_scale`` -- float32 per-tensor decode scale ``S_dec = 1/S_enc``.
    * ``shape`` -- ``(M, K)``.
    * ``block`` -- ``(1, 16)`` or ``(16, 16)``.

    Constructing a ``Tensor`` directly wraps externally produced data (for
    instance codes and scales read back from a GPU kernel); the components
    are checked for consistent shapes, not re-derived.
    """

    __slots__ = ("data", "scales", "global_scale", "shape", "block")

    def __init__(self, data, scales, global_scale, shape, block=(1, 16)):
        shape = tuple(int(v) for v in shape)
        if len(shape) != 2:
            raise ValueError(f"shape must be (rows, cols), got {shape!r}")
        rows, cols = shape
        blk = _block(block)
        err = _nvfp4.check_quantizable(rows, cols, blk[0], blk[1])
        if err is not None:
            raise ValueError(err)
        data = _as_u8(data, "data")
        scales = _as_u8(scales, "scales")
        if data.size != rows * cols // 2:
            raise ValueError(
                f"data has {data.size} bytes, expected {rows * cols // 2} "
                f"for shape {shape}")
        if scales.size != rows * (cols // 16):
            raise ValueError(
                f"scales has {scales.size} bytes, expected "
                f"{rows * (cols // 16)} for shape {shape}")
        self.data: np.ndarray = data.reshape(rows, cols // 2)
        self.scales: np.ndarray = scales.reshape(rows, cols // 16)
        self.global_scale: np.float32 = np.float32(global_scale)
        self.shape: Tuple[int, int] = shape
        self.block: Tuple[int, int] = blk

    @classmethod
    def _from_tuple(cls, t) -> "Tensor":
        data, scales, gs, rows, cols, br, bc = t
        obj = cls.__new__(cls)
        obj.data = data
        obj.scales = scales
        obj.global_scale = np.float32(gs)
        obj.shape = (int(rows), int(cols))
        obj.block = (int(br), int(bc))
        return obj

    def _args(self):
        return (self.data, self.scales, float(self.global_scale),
                self.shape[0], self.shape[1], self.block[0], self.block[1])

    # Convenience methods.
    def dequantize(self) -> np.ndarray:
        """Same as :func:`nvfp4.dequantize`."""
        return dequantize(self)

    def transpose(self) -> "Tensor":
        """Same as :func:`nvfp4.transpose` (16x16 blocks only)."""
        return transpose(self)

    @property
    def T(self) -> "Tensor":
        return transpose(self)

    def swizzled_scales(self) -> np.ndarray:
        """The scales in the 128x4 atom layout (see :func:`swizzle_scales`)."""
        return swizzle_scales(self.scales)

    def codes(self) -> np.ndarray:
        """The unpacked E2M1 codes, uint8 ``[M, K]`` (one code per byte)."""
        return unpack_e2m1(self.data)

    @property
    def nbytes(self) -> int:
        """Storage in bytes: codes + block scales + the 4-byte global scale."""
        return int(self.data.nbytes + self.scales.nbytes + 4)

    def __eq__(self, other) -> bool:
        """Exact equality of every field (the global scale bit for bit)."""
        if not isinstance(other, Tensor):
            return NotImplemented
        return (self.shape == other.shape and self.block == other.block
                and self.global_scale.tobytes() == other.global_scale.tobytes()
                and np.array_equal(self.data, other.data)
                and np.array_equal(self.scales, other.scales))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"nvfp4.Tensor(shape={self.shape}, block={self.block[0]}x"
                f"{self.block[1]}, global_scale={float(self.global_scale)!r})")


def quantize(x, block: BlockLike = (1, 16), rounding: str = "rn",
             seed: int = 0, offset: int = 0, hadamard: bool = False,
             signs: Optional[Iterable[int]] = None,
             amax: Optional[float] = None, threads: int = 1) -> Tensor:
    """Quantizes a 2-D array to NVFP4 along its last dimension.

    Args:
      x: ``[M, K]`` values; converted to C-contiguous float32 first.
        ``K`` must be a multiple of 16 (and ``M`` of 16 for 16x16 blocks).
      block: ``(1, 16)`` (one scale per 16 elements of a row) or ``(16, 16)``
        (one scale per 16x16 tile, replicated to its rows).
      rounding: ``"rn"`` round-to-nearest-even, or ``"rs"`` stochastic
        rounding with Philox4x32-10 bits keyed by ``(seed, offset)``.
      seed, offset: Philox key and counter base for ``"rs"``.
      hadamard: apply the 16x16 random Hadamard transform along ``K`` first
        (the amax is taken after it).
      signs: the RHT's 16 signs (default :data:`DEFAULT_HADAMARD_SIGNS`).
      amax: explicit tensor amax; computed from the (transformed) input if
        ``None``.
      threads: split rows over this many threads; bit-identical result.

    Returns:
      A :class:`Tensor`.
    """
    blk = _block(block)
    if not isinstance(rounding, str) or rounding.lower() not in _ROUNDINGS:
        raise ValueError(
            f"rounding must be 'rn' (nearest-even) or 'rs' (stochastic), "
            f"got {rounding!r}")
    stochastic = _ROUNDINGS[rounding.lower()]
    arr = _as_f32(x)
    if arr.ndim != 2:
        raise ValueError(
            f"quantize expects a 2-D array, got {arr.ndim} dimensions "
            f"(shape {arr.shape})")
    threads = int(threads)
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    if amax is not None:
        amax = float(amax)
    return Tensor._from_tuple(_nvfp4.quantize(
        arr, blk[0], blk[1], stochastic, _check_uint64(seed, "seed"),
        _check_uint64(offset, "offset"), bool(hadamard), _signs(signs), amax,
        threads))


def dequantize(t: Tensor) -> np.ndarray:
    """Decodes ``t`` to float32 ``[M, K]``:
    ``decode_e2m1(q) * decode_e4m3(s) * global_scale``."""
    if not isinstance(t, Tensor):
        raise ValueError(f"dequantize expects an nvfp4.Tensor, got {type(t)!r}")
    return _nvfp4.dequantize(*t._args())


def matmul(a: Tensor, b: Tensor) -> np.ndarray:
    """Block-scaled GEMM: ``C[M, N] = A[M, K] @ B[N, K].T`` in float32.

    Each 16-wide K block contributes ``sA * sB * sum(qA * qB)`` (exact in
    f32), blocks accumulate in f32 in increasing k, and the result is scaled
    by ``a.global_scale * b.global_scale``.
    """
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise ValueError("matmul expects two nvfp4.Tensor operands")
    return _nvfp4.matmul(*a._args(), *b._args())


def matmul_f32(a, b) -> np.ndarray:
    """High-precision reference ``A[M, K] @ B[N, K].T`` (double accumulation,
    rounded to float32)."""
    return _nvfp4.matmul_f32(_as_f32(a, "a"), _as_f32(b, "b"))


def transpose(t: Tensor) -> Tensor:
    """The transpose of a 16x16-block tensor, computed on the codes alone.

    Exact: ``transpose(quantize(W, (16, 16))) == quantize(W.T, (16, 16))``.
    """
    if not isinstance(t, Tensor):
        raise ValueError(f"transpose expects an nvfp4.Tensor, got {type(t)!r}")
    return Tensor._from_tuple(_nvfp4.transpose2d(*t._args()))


def hadamard(x, signs: Optional[Iterable[int]] = None) -> np.ndarray:
    """Applies ``H = (1/4) * H16 * diag(signs)`` to every group of 16
    consecutive elements along the last dimension. Returns a new float32
    array of the same shape; ``x`` is not modified."""
    arr = np.array(x, dtype=np.float32, order="C", copy=True)
    if arr.ndim == 0:
        raise ValueError("hadamard expects at least a 1-D array")
    shape = arr.shape
    if shape[-1] % 16 != 0:
        raise ValueError(
            f"hadamard: the last dimension ({shape[-1]}) must be a multiple "
            f"of 16")
    flat = arr.reshape(-1, shape[-1]) if arr.size else arr.reshape(0, shape[-1])
    _nvfp4.hadamard_inplace(flat, _signs(signs))
    return flat.reshape(shape)


def swizzled_scales_size(rows: int, cols: int) -> int:
    """Bytes of the swizzled form of a ``[rows, cols]`` scale matrix (rows
    padded to 128, cols to 4)."""
    return int(_nvfp4.swizzled_scales_size(int(rows), int(cols)))


def swizzle_scales(s) -> np.ndarray:
    """Row-major ``[rows, cols]`` scales -> the 128x4 atom layout of
    tcgen05 / cuBLAS / Triton.

    Returns a contiguous uint8 array of shape
    ``(ceil(rows/128), ceil(cols/4), 32, 4, 4)``: entry ``(r, c)`` goes to
    ``[r//128][c//4][r%32][(r//32)%4][c%4]``; padding is zero. Use
    ``.reshape(-1)`` for the flat byte stream.
    """
    arr = _as_u8(s, "scales")
    if arr.ndim != 2:
        raise ValueError(
            f"swizzle_scales expects a 2-D [rows, cols] array, got shape "
            f"{arr.shape}")
    return _nvfp4.swizzle_scales(arr)


def unswizzle_scales(s, rows: int, cols: int) -> np.ndarray:
    """Inverse of :func:`swizzle_scales` (any shape with the right number of
    bytes); drops the padding and returns uint8 ``[rows, cols]``."""
    arr = _as_u8(s, "scales").reshape(-1)
    return _nvfp4.unswizzle_scales(arr, int(rows), int(cols))


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
    codes."""
    arr = _as_u8(data, "data")
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


def global_encode_scale(amax: float) -> np.float32:
    """``S_enc = (6*448)/amax``, clamped to FLT_MAX; 1.0 when amax is 0 or
    S_enc is 0."""
    return np.float32(_nvfp4.global_encode_scale(float(amax)))


def block_scale(block_amax: float, s_enc: float) -> int:
    """E4M3 bits of ``e4m3_satfinite_rn(min(block_amax * (s_enc/6),
    FLT_MAX))``."""
    return int(_nvfp4.block_scale(float(block_amax), float(s_enc)))


def check_quantizable(rows: int, cols: int,
                      block: BlockLike = (1, 16)) -> Optional[str]:
    """The library's error message for an invalid shape, or ``None``."""
    b = _block(block)
    return _nvfp4.check_quantizable(int(rows), int(cols), b[0], b[1])
