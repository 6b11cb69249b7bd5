"""NVFP4 reference numerics for Python.

Bit-exact bindings of the project's C++ reference library (the ground truth
every lowering of the ``nvfp4`` dialect is checked against), with numpy
arrays in and out:

* :func:`quantize` / :func:`dequantize` -- Transformer-Engine-compatible
  NVFP4 quantization (E2M1 elements, E4M3 block scales, a per-tensor FP32
  scale derived from the tensor amax), 1x16 or 16x16 blocks,
  round-to-nearest-even or stochastic rounding (Philox4x32-10 keyed by
  ``(seed, offset)``), optional 16x16 random Hadamard transform.
* :func:`matmul` -- the block-scaled GEMM ``C = A @ B.T`` on NVFP4 operands.
* :func:`fake_quantize` -- ``dequantize(quantize(x))`` of an N-D array along
  any axis in one call, stochastic rounding drawing from a
  :class:`Generator` that advances with every call.
* :class:`Recipe` -- the training recipe's rules (the C++ policy the
  passes use), and :func:`linear_forward` / :func:`linear_backward`, a
  linear layer's three GEMMs under it; ``nvfp4.torch`` and ``nvfp4.jax``
  wrap them for PyTorch and JAX.
* :func:`compile` -- an MLIR module compiled once (CPU, GPU or the GPU
  emulator) and called with numpy arrays (nvfp4/compiler.py).
* :func:`hadamard`, :func:`swizzle_scales`, :func:`unswizzle_scales`,
  :func:`transpose`, element conversions and :func:`philox`.

A :class:`Tensor` carries the tensor ``amax`` its scales were derived from,
as Transformer Engine does; dequantization and GEMM scaling follow TE's
kernels (:func:`dequantize_scale`, :func:`matmul_alpha`). A tensor brought
in from a checkpoint another tool quantized (:meth:`Tensor.from_components`,
:func:`from_modelopt`) carries a decode scale instead, and follows that
tool's dequantization (``e2m1 * (e4m3 * decode_scale)``).

Input conversion: every array argument is converted with
``numpy.asarray(x, dtype=..., order="C")`` first (float32 for values, uint8 for
codes), so non-contiguous views and other dtypes (float64, float16, ints) are
accepted; the conversion from float64 rounds to float32 before quantizing.
Integer arrays passed where bytes are expected must hold values in
``[0, 255]``. Float scalars (amax, scales) are rounded to float32 first.

Errors:

* Invalid arguments (bad shapes, out-of-range integers, non-numeric input)
  raise :class:`ValueError`, carrying the library's message where the
  library makes the check.
* Sizes are computed with checked arithmetic: a shape whose element count
  (or an output's, or a swizzled size) does not fit in int64 raises
  :class:`ValueError`; an output whose size is representable but cannot be
  allocated raises :class:`MemoryError`.
* Assigning an array of another dtype than uint8 to :attr:`Tensor.data` or
  :attr:`Tensor.scales` raises :class:`TypeError` (the bytes would otherwise
  be reinterpreted).
"""

from __future__ import annotations

import math
import operator
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
    "from_modelopt",
    "quantize",
    "dequantize",
    "fake_quantize",
    "compile",
    "CompiledFunction",
    "Recipe",
    "OperandQuantization",
    "ABLATIONS",
    "linear_forward",
    "linear_backward",
    "Generator",
    "default_generator",
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
    "global_decode_scale",
    "dequantize_scale",
    "matmul_alpha",
    "block_scale",
    "check_quantizable",
    "E2M1_MAX",
    "E4M3_MAX",
    "BLOCK_SIZE",
    "DEFAULT_HADAMARD_SIGNS",
    "MAX_THREADS",
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
#: Largest ``threads`` :func:`quantize` accepts.
MAX_THREADS: int = int(_nvfp4.MAX_THREADS)

_INT64_MIN, _INT64_MAX = -2**63, 2**63 - 1

_ROUNDINGS = {"rn": False, "rne": False, "nearest": False,
              "rs": True, "sr": True, "stochastic": True}

BlockLike = Union[Tuple[int, int], Sequence[int]]


def _as_f32(x, name: str = "x") -> np.ndarray:
    if np.iscomplexobj(x):
        raise ValueError(f"{name} must be real, got complex values")
    try:
        return np.asarray(x, dtype=np.float32, order="C")
    except (TypeError, ValueError, OverflowError) as e:
        raise ValueError(f"{name} cannot be converted to float32: {e}") from e


def _as_u8(x, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype != np.uint8:
        if arr.size == 0 and arr.dtype.kind in "biuf":
            # An empty list is float64; an empty array holds no bad values.
            return np.zeros(arr.shape, dtype=np.uint8)
        if not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"{name} must hold bytes (uint8), got {arr.dtype}")
        if arr.size and (arr.min() < 0 or arr.max() > 255):
            raise ValueError(
                f"{name} must hold bytes (uint8): values must be in [0, 255]")
        arr = arr.astype(np.uint8)
    return np.asarray(arr, order="C")


def _u8_field(value, name: str) -> np.ndarray:
    """A uint8 array for a Tensor field: anything else is a TypeError (an
    array of another dtype would be reinterpreted or silently converted)."""
    arr = np.asarray(value)
    if arr.dtype != np.uint8:
        raise TypeError(
            f"Tensor.{name} must be a uint8 array, got dtype {arr.dtype}; "
            f"convert explicitly (e.g. with .view(np.uint8) for raw bytes)")
    return arr


def _check_int(value, name: str, lo: int, hi: int) -> int:
    """An integer in [lo, hi] (floats that are whole numbers accepted);
    ValueError otherwise."""
    if isinstance(value, (str, bytes)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    try:
        v = operator.index(value)
    except TypeError:
        try:
            v = int(value)
        except (TypeError, ValueError, OverflowError) as e:
            raise ValueError(f"{name} must be an integer, got {value!r}") from e
        if v != value:
            raise ValueError(f"{name} must be an integer, got {value!r}")
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be in [{lo}, {hi}], got {v}")
    return v


def _check_uint64(value, name: str) -> int:
    try:
        v = int(value)
    except (TypeError, ValueError, OverflowError) as e:
        raise ValueError(f"{name} must be an integer: {e}") from e
    if v != value or not 0 <= v < 2**64:
        raise ValueError(f"{name} must be an integer in [0, 2**64), got {value!r}")
    return v


def _int64(value, name: str) -> int:
    return _check_int(value, name, _INT64_MIN, _INT64_MAX)


def _f32_scalar(value, name: str) -> float:
    """``value`` rounded to float32 (to nearest; beyond the float32 range it
    becomes +-Inf), returned as a Python float that is exactly that float32.
    """
    if isinstance(value, (str, bytes)) or np.iscomplexobj(value):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    if np.ndim(value) != 0:
        raise ValueError(f"{name} must be a scalar, got shape {np.shape(value)}")
    try:
        v = float(value)
    except OverflowError:  # a Python int beyond the float64 range
        v = math.inf if value > 0 else -math.inf
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name} must be a real number, got {value!r}") from e
    with np.errstate(over="ignore"):
        return float(np.float32(v))


def _amax_value(value, name: str = "amax") -> np.float32:
    """A Tensor amax: a float32 that is non-negative or +Inf (what quantize
    accepts as an explicit amax and what it computes)."""
    v = _f32_scalar(value, name)
    if not v >= 0.0:
        raise ValueError(
            f"{name} must be a non-negative number or +Inf, got {value!r}")
    return np.float32(v)


def _decode_scale_value(value, name: str = "decode_scale") -> np.float32:
    """A tensor decode scale: a finite, non-negative float32."""
    v = _f32_scalar(value, name)
    if not (v >= 0.0 and math.isfinite(v)):
        raise ValueError(
            f"{name} must be a finite non-negative number, got {value!r}")
    return np.float32(v)


def _shape(shape, name: str = "shape") -> Tuple[int, int]:
    try:
        dims = tuple(shape)
    except TypeError as e:
        raise ValueError(f"{name} must be (rows, cols), got {shape!r}") from e
    if len(dims) != 2:
        raise ValueError(f"{name} must be (rows, cols), got {shape!r}")
    return (_int64(dims[0], f"{name}[0]"), _int64(dims[1], f"{name}[1]"))


def _block(block: BlockLike) -> Tuple[int, int]:
    try:
        b = tuple(block)
    except TypeError as e:
        raise ValueError(f"block must be a pair (rows, cols), got {block!r}") from e
    if len(b) != 2:
        raise ValueError(f"block must be a pair (rows, cols), got {block!r}")
    # Which block shapes are valid is the library's call (checkQuantizable).
    return (_check_int(b[0], "block[0]", 0, 2**31 - 1),
            _check_int(b[1], "block[1]", 0, 2**31 - 1))


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
    * ``amax`` -- float32 tensor amax the scales were derived from
      (``S_enc = global_encode_scale(amax)``), as Transformer Engine carries
      it. Element ``i`` dequantizes to
      ``decode_e2m1(q_i) * dequantize_scale(s_i, amax)``.
    * ``shape`` -- ``(M, K)``.
    * ``block`` -- ``(1, 16)`` or ``(16, 16)``.

    Derived, read-only: ``global_decode_scale`` (``S_dec = 1/S_enc``, the
    decode scale quantization multiplies block scales by) and its older name
    ``global_scale``.

    A tensor built by :meth:`from_components` with ``decode_scale=`` (or by
    :func:`from_modelopt`) carries a decode scale instead of an amax:
    :attr:`tensor_scale` is ``"decode"``, :attr:`decode_scale` the f32 scale
    and :attr:`amax` ``None``. Element ``i`` then dequantizes to
    ``decode_e2m1(q_i) * (decode_e4m3(s_i) * decode_scale)`` (Model
    Optimizer's and vLLM's order), and :func:`matmul` scales by the product
    of the operands' decode scales (an amax operand contributes
    ``amax * fl(1/(6*448))``).

    Constructing a ``Tensor`` directly wraps externally produced data (for
    instance codes and scales read back from a GPU kernel); the components
    are checked for consistent shapes, not re-derived. The fields can be
    reassigned: ``data`` and ``scales`` must then be uint8 arrays
    (:class:`TypeError` otherwise), ``amax`` a non-negative number or +Inf,
    ``shape`` and ``block`` pairs of integers. Consistency between the fields
    is checked when the tensor is used (:class:`ValueError`).
    """

    __slots__ = ("_data", "_scales", "_amax", "_shape", "_block", "_decode")

    def __init__(self, data, scales, amax, shape, block=(1, 16)):
        shape = _shape(shape)
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
        self._data: np.ndarray = data.reshape(rows, cols // 2)
        self._scales: np.ndarray = scales.reshape(rows, cols // 16)
        self._amax: np.float32 = _amax_value(amax)
        self._shape: Tuple[int, int] = shape
        self._block: Tuple[int, int] = blk
        self._decode: bool = False

    @classmethod
    def from_components(cls, data, scales, shape, *, amax=None,
                        decode_scale=None, block=(1, 16)) -> "Tensor":
        """An NVFP4 tensor from components produced elsewhere.

        Args:
          data: uint8 ``[M, K/2]`` packed E2M1 codes, the even-indexed
            element in the low nibble (PTX, ``cuda_fp4.h``, Model
            Optimizer's and vLLM's packing). numpy arrays and torch tensors
            (on any device) are accepted, here and for ``scales``.
          scales: ``[M, K/16]`` E4M3 block scales, row-major (not
            swizzled): uint8 bit patterns, or an array of an E4M3 dtype
            (``ml_dtypes.float8_e4m3fn``, which is reinterpreted, not
            converted).
          shape: ``(M, K)``.
          amax: the tensor amax the scales were derived from
            (Transformer Engine's tensors; what :func:`quantize` produces),
            or
          decode_scale: a per-tensor decode scale that multiplies the block
            scales (Model Optimizer's ``weight_scale_2``); exactly one of
            the two.
          block: ``(1, 16)`` or ``(16, 16)``.
        """
        if (amax is None) == (decode_scale is None):
            raise ValueError(
                "from_components takes exactly one of amax= and decode_scale=")
        data = _host_array(data)
        scales = _e4m3_bytes(scales, "scales")
        if amax is not None:
            return cls(data, scales, amax, shape, block)
        obj = cls(data, scales, 0.0, shape, block)
        obj._amax = _decode_scale_value(decode_scale)
        obj._decode = True
        return obj

    @classmethod
    def _from_tuple(cls, t) -> "Tensor":
        data, scales, amax, rows, cols, br, bc, decode = t
        obj = cls.__new__(cls)
        obj._data = data
        obj._scales = scales
        obj._amax = np.float32(amax)
        obj._shape = (int(rows), int(cols))
        obj._block = (int(br), int(bc))
        obj._decode = bool(decode)
        return obj

    def _args(self):
        # The setters keep the dtypes and value ranges valid; the extension
        # checks that the fields agree with each other.
        return (np.ascontiguousarray(self._data),
                np.ascontiguousarray(self._scales), float(self._amax),
                self._shape[0], self._shape[1], self._block[0], self._block[1],
                self._decode)

    # Fields.
    @property
    def data(self) -> np.ndarray:
        """uint8 ``[M, K/2]`` packed E2M1 codes."""
        return self._data

    @data.setter
    def data(self, value) -> None:
        self._data = _u8_field(value, "data")

    @property
    def scales(self) -> np.ndarray:
        """uint8 ``[M, K/16]`` E4M3 block-scale bit patterns."""
        return self._scales

    @scales.setter
    def scales(self, value) -> None:
        self._scales = _u8_field(value, "scales")

    @property
    def amax(self) -> Optional[np.float32]:
        """float32 tensor amax the scales were derived from (``None`` for a
        tensor that carries a decode scale). Assigning one makes the tensor
        an amax-scaled one."""
        return None if self._decode else self._amax

    @amax.setter
    def amax(self, value) -> None:
        self._amax = _amax_value(value)
        self._decode = False

    @property
    def decode_scale(self) -> Optional[np.float32]:
        """float32 decode scale of a tensor from :meth:`from_components`
        with ``decode_scale=`` (``None`` for an amax-scaled tensor).
        Assigning one makes the tensor a decode-scaled one."""
        return self._amax if self._decode else None

    @decode_scale.setter
    def decode_scale(self, value) -> None:
        self._amax = _decode_scale_value(value)
        self._decode = True

    @property
    def tensor_scale(self) -> str:
        """What the tensor's f32 scale is: ``"amax"`` or ``"decode"``."""
        return "decode" if self._decode else "amax"

    @property
    def shape(self) -> Tuple[int, int]:
        """Logical shape ``(M, K)``."""
        return self._shape

    @shape.setter
    def shape(self, value) -> None:
        self._shape = _shape(value)

    @property
    def block(self) -> Tuple[int, int]:
        """Scale block shape, ``(1, 16)`` or ``(16, 16)``."""
        return self._block

    @block.setter
    def block(self, value) -> None:
        self._block = _block(value)

    @property
    def global_decode_scale(self) -> np.float32:
        """``S_dec = 1/S_enc`` with ``S_enc = global_encode_scale(amax)``
        (read-only, derived from :attr:`amax`); the decode scale itself for
        a decode-scaled tensor."""
        if self._decode:
            return self._amax
        return global_decode_scale(self._amax)

    @property
    def global_scale(self) -> np.float32:
        """Older name of :attr:`global_decode_scale` (read-only)."""
        return self.global_decode_scale

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
        return swizzle_scales(self._scales)

    def codes(self) -> np.ndarray:
        """The unpacked E2M1 codes, uint8 ``[M, K]`` (one code per byte)."""
        return unpack_e2m1(self._data)

    @property
    def nbytes(self) -> int:
        """Storage in bytes: codes + block scales + the 4-byte amax."""
        return int(self._data.nbytes + self._scales.nbytes + 4)

    def __eq__(self, other) -> bool:
        """Exact equality of every field (the amax bit for bit)."""
        if not isinstance(other, Tensor):
            return NotImplemented
        return (self._shape == other._shape and self._block == other._block
                and self._decode == other._decode
                and self._amax.tobytes() == other._amax.tobytes()
                and np.array_equal(self._data, other._data)
                and np.array_equal(self._scales, other._scales))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        scale = "decode_scale" if self._decode else "amax"
        return (f"nvfp4.Tensor(shape={self._shape}, block={self._block[0]}x"
                f"{self._block[1]}, {scale}={float(self._amax)!r})")


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
      amax: explicit tensor amax (rounded to float32; must be non-negative
        or +Inf); computed from the (transformed) input if ``None``. It is
        stored as :attr:`Tensor.amax`.
      threads: split rows over this many threads, an integer in
        ``[1, MAX_THREADS]``; bit-identical result.

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
    threads = _check_int(threads, "threads", 1, MAX_THREADS)
    if amax is not None:
        amax = _f32_scalar(amax, "amax")
    return Tensor._from_tuple(_nvfp4.quantize(
        arr, blk[0], blk[1], stochastic, _check_uint64(seed, "seed"),
        _check_uint64(offset, "offset"), bool(hadamard), _signs(signs), amax,
        threads))


def dequantize(t: Tensor) -> np.ndarray:
    """Decodes ``t`` to float32 ``[M, K]`` as Transformer Engine's
    ``dequantize_fp4_kernel``: element ``i`` of block ``b`` is
    ``decode_e2m1(q_i) * dequantize_scale(s_b, t.amax)``, i.e.
    ``e2m1 * ((e4m3(s_b) * amax) * fl(1/(6*448)))`` in float32; for a
    decode-scaled tensor ``e2m1 * (e4m3(s_b) * decode_scale)``."""
    if not isinstance(t, Tensor):
        raise ValueError(f"dequantize expects an nvfp4.Tensor, got {type(t)!r}")
    return _nvfp4.dequantize(*t._args())


def matmul(a: Tensor, b: Tensor, threads: int = 0) -> np.ndarray:
    """Block-scaled GEMM: ``C[M, N] = A[M, K] @ B[N, K].T`` in float32.

    Each 16-wide K block contributes ``sA * sB * sum(qA * qB)`` (exact in
    f32), blocks accumulate in f32 in increasing k, and the accumulator is
    multiplied by ``matmul_alpha(a.amax, b.amax)`` =
    ``(a.amax * b.amax) * fl(1/(6*6*448*448))`` (Transformer Engine's
    per-tensor GEMM scale). With a decode-scaled operand the factor is the
    product of the two decode scales, an amax contributing
    ``amax * fl(1/(6*448))`` (vLLM's ``alpha = input_scale *
    weight_scale_2`` for two decode scales). ``threads``: the threads to use
    (0: one per hardware thread); the result does not depend on it.
    """
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise ValueError("matmul expects two nvfp4.Tensor operands")
    threads = _check_int(threads, "threads", 0, MAX_THREADS)
    return _nvfp4.matmul(*a._args(), *b._args(), threads)


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
    padded to 128, cols to 4; 0 when either is 0). Raises
    :class:`ValueError` for a negative dimension or a size that does not fit
    in int64."""
    return int(_nvfp4.swizzled_scales_size(_int64(rows, "rows"),
                                           _int64(cols, "cols")))


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
    bytes, :func:`swizzled_scales_size`); drops the padding and returns uint8
    ``[rows, cols]``."""
    rows, cols = _int64(rows, "rows"), _int64(cols, "cols")
    arr = _as_u8(s, "scales").reshape(-1)
    return _nvfp4.unswizzle_scales(arr, rows, cols)


def global_encode_scale(amax: float) -> np.float32:
    """``S_enc = (6*448)/amax`` in float32, clamped to FLT_MAX with ``fminf``
    (so a NaN amax gives FLT_MAX, as Transformer Engine); 1.0 when amax is 0
    or S_enc is 0 (amax = Inf). ``amax`` is rounded to float32 first."""
    return np.float32(_nvfp4.global_encode_scale(_f32_scalar(amax, "amax")))


def global_decode_scale(amax: float) -> np.float32:
    """``S_dec = fl(1 / global_encode_scale(amax))``: the per-tensor decode
    scale quantization multiplies block scales by."""
    return np.float32(_nvfp4.global_decode_scale(_f32_scalar(amax, "amax")))


def dequantize_scale(scale_code, amax: float):
    """The float32 factor an element's E2M1 value is multiplied by when
    dequantizing: ``fl(fl(decode_e4m3(scale_code) * amax) * fl(1/(6*448)))``
    (Transformer Engine's ``dequantize_fp4_kernel``). ``scale_code`` is an
    E4M3 byte (``np.float32`` result) or an array of them (float32 array of
    the same shape)."""
    a = _f32_scalar(amax, "amax")
    if np.ndim(scale_code) == 0 and not isinstance(scale_code, np.ndarray):
        code = _check_int(scale_code, "scale_code", 0, 255)
        return np.float32(_nvfp4.dequantize_scale(code, a))
    arr = _as_u8(scale_code, "scale_code")
    return _nvfp4.dequantize_scales(arr.reshape(-1), a).reshape(arr.shape)


def matmul_alpha(amax_a: float, amax_b: float) -> np.float32:
    """The float32 factor :func:`matmul` multiplies its accumulator by:
    ``fl(fl(amax_a * amax_b) * fl(1/(6*6*448*448)))`` (Transformer Engine's
    ``compute_nvfp4_per_tensor_scale_kernel``)."""
    return np.float32(_nvfp4.matmul_alpha(_f32_scalar(amax_a, "amax_a"),
                                          _f32_scalar(amax_b, "amax_b")))


def block_scale(block_amax: float, s_enc: float) -> int:
    """E4M3 bits of ``e4m3_satfinite_rn(min(block_amax * (s_enc/6),
    FLT_MAX))``."""
    return int(_nvfp4.block_scale(_f32_scalar(block_amax, "block_amax"),
                                  _f32_scalar(s_enc, "s_enc")))


def check_quantizable(rows: int, cols: int,
                      block: BlockLike = (1, 16)) -> Optional[str]:
    """The library's error message for an invalid shape, or ``None``."""
    b = _block(block)
    r = _check_int(rows, "rows", -math.inf, math.inf)
    c = _check_int(cols, "cols", -math.inf, math.inf)
    if not (_INT64_MIN <= r <= _INT64_MAX and _INT64_MIN <= c <= _INT64_MAX):
        return (f"shape must fit in int64 (got rows={r}, cols={c})")
    return _nvfp4.check_quantizable(r, c, b[0], b[1])


# Element conversions, packing and stochastic-rounding bits
# (nvfp4/conversions.py).
from .conversions import (  # noqa: E402
    decode_e2m1, decode_e4m3, encode_e2m1, encode_e2m1_stochastic,
    encode_e4m3, pack_e2m1, philox, stochastic_rounding_bits, unpack_e2m1)

# Weights another tool quantized (nvfp4/checkpoint.py).
from .checkpoint import _e4m3_bytes, _host_array, from_modelopt  # noqa: E402

# One-call fake quantization along any axis (nvfp4/fake_quant.py).
from .fake_quant import Generator, default_generator, fake_quantize  # noqa: E402

# The recipe's policy and a linear layer's GEMMs under it (nvfp4/recipe.py,
# nvfp4/linear.py); the PyTorch and JAX front ends are nvfp4.torch and
# nvfp4.jax, imported on demand.
from .recipe import ABLATIONS, OperandQuantization, Recipe  # noqa: E402
from .linear import linear_backward, linear_forward  # noqa: E402

# Compiled programs called from Python (nvfp4/compiler.py).
from .compiler import CompiledFunction, compile  # noqa: E402,A004
