# ===- linear.py - A linear layer's three GEMMs under the recipe --------=== #
#
# Part of the NVFP4-MLIR project.
#
# ===---------------------------------------------------------------------=== #
"""The forward and backward GEMMs of a linear layer ``Y = X W^T`` under a
:class:`~nvfp4.recipe.Recipe`, on numpy arrays. The PyTorch and JAX front
ends (``nvfp4.torch``, ``nvfp4.jax``) wrap these two functions, and take
a layer's precision from :func:`layer_gemms`: the recipe's layer rules
(keep-first, keep-last, high-layers) need the layer's place in the model,
and a layer without one warns rather than silently running in FP4.

* fprop ``Y = X W^T``: X and W quantized along K (W in 16x16 blocks).
* dgrad ``dX = dY W``: dY along N (stochastic rounding); W's NVFP4 tensor
  from the forward pass, transposed exactly (:func:`nvfp4.transpose`) when
  its blocks are 16x16, so the weight is quantized once.
* wgrad ``dW = dY^T X``: dY^T and X^T along the tokens, both through the
  random Hadamard transform, dY^T stochastically rounded.

Which rule applies to which operand comes from the recipe's policy
(:meth:`Recipe.quantization`), the same C++ functions the compiler's
passes use. A contraction dimension that is not a multiple of 16 is padded
with zeros (which leave every block amax, every Hadamard-transformed block
product and so every product sum unchanged); so is W's other dimension for
16x16 blocks.

In an MX format (``mxfp4``, ``mxfp8_e4m3``, ``mxfp8_e5m2``; see
:mod:`nvfp4.mx`) every operand is quantized along the contraction
dimension with 1x32 blocks, round-to-nearest and no transform, as the
compiler's MX contractions are (W^T is quantized afresh for dgrad), the
contraction dimension zero-padded to a multiple of 32.
"""

import os
import warnings
from typing import NamedTuple, Optional, Tuple

import numpy as np

from . import MAX_THREADS, matmul, mx, quantize, transpose
from .fake_quant import fake_quantize
from .recipe import Recipe

__all__ = ["linear_forward", "linear_backward", "linear_context",
           "LinearContext", "layer_gemms", "warn_without_layer_index"]


class LinearContext(NamedTuple):
    """What the backward pass needs from the forward pass."""

    x: np.ndarray
    w: np.ndarray
    recipe: Optional[Recipe]
    fp4: bool
    # The weight's quantized tensor of the forward pass (exact mode) or its
    # fake-quantized values (fake mode), padded; None in high precision.
    weight: object
    # The block-scaled format of the GEMMs (None in high precision).
    format: Optional[str] = None


def _pad(x: np.ndarray, axis: int, multiple: int = 16) -> np.ndarray:
    size = x.shape[axis]
    extra = -size % multiple
    if not extra:
        return x
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, extra)
    return np.pad(x, widths)


# Quantization threads: the result does not depend on them.
_THREADS = max(1, min(os.cpu_count() or 1, MAX_THREADS))


def _quantized(x: np.ndarray, recipe: Recipe, role: str, kind: str):
    """`x` [rows, K] quantized along K as the recipe says: an nvfp4.Tensor
    (exact mode) or its fake-quantized float32 values (fake mode)."""
    q = recipe.quantization(role, kind)
    x = _pad(x, 1)
    if q.block[0] == 16:
        x = _pad(x, 0)
    if recipe.mode == "fake":
        return fake_quantize(x, block=q.block, rounding=q.rounding,
                             seed=recipe.generator if q.rounding == "rs"
                             else None, hadamard=q.hadamard,
                             threads=_THREADS)
    offset = 0
    if q.rounding == "rs":
        offset = recipe.generator.take(x.size // 16)
    return quantize(x, block=q.block, rounding=q.rounding,
                    seed=recipe.generator.seed, offset=offset,
                    hadamard=q.hadamard, threads=_THREADS)


def _quantized_mx(x: np.ndarray, fmt: str, recipe: Recipe):
    """`x` [rows, K] quantized along K in the MX format `fmt` (K padded to
    a multiple of 32): an nvfp4.mx.MXTensor (exact mode) or its values
    (fake mode)."""
    t = mx.quantize(_pad(x, 1, mx.BLOCK_SIZE), fmt, threads=_THREADS)
    return t.dequantize() if recipe.mode == "fake" else t


def _gemm(a, b, rows: int, cols: int) -> np.ndarray:
    """``A @ B^T`` of two quantized operands, cut to [rows, cols]."""
    if isinstance(a, np.ndarray):
        c = a @ b.T
    elif isinstance(a, mx.MXTensor):
        c = mx.matmul(a, b)
    else:
        c = matmul(a, b)
    return np.ascontiguousarray(c[:rows, :cols], dtype=np.float32)


def warn_without_layer_index(recipe: Optional[Recipe], caller: str,
                             stacklevel: int = 1) -> None:
    """Warns (``UserWarning``) that a layer of `caller` has no layer index,
    so the layer rules of `recipe` (:attr:`Recipe.layer_rules`) cannot
    apply to it; nothing when the recipe has none. `stacklevel` counts from
    the function that calls this one, as :func:`warnings.warn` does."""
    rules = () if recipe is None else recipe.layer_rules
    if not rules:
        return
    warnings.warn(
        f"{caller}: the layer has no layer index, so the recipe's "
        f"{', '.join(rules)} cannot apply to it and its GEMMs run in "
        f"{recipe.formats[0]}; pass layer= and num_layers= (the layer's "
        f"place in the model)", UserWarning, stacklevel=stacklevel + 1)


def layer_gemms(recipe: Optional[Recipe], fp4: bool, format: Optional[str],
                layer: Optional[int], num_layers: Optional[int], caller: str,
                stacklevel: int = 1) -> Tuple[bool, Optional[str]]:
    """The `fp4` and `format` of a front end's GEMMs. Given the layer's
    place in the model (`layer` of `num_layers`), the recipe's layer rules
    pick its format (:meth:`Recipe.layer_format`; None, and so not `fp4`,
    in high precision). Otherwise `fp4` and `format` stand as given, with
    a warning (:func:`warn_without_layer_index`) when they leave the
    layer's precision to a recipe with layer rules."""
    if layer is None and num_layers is None:
        if fp4 and format is None:
            warn_without_layer_index(recipe, caller, stacklevel + 1)
        return fp4, format
    if layer is None or num_layers is None:
        raise ValueError(f"{caller}: give both layer and num_layers")
    if format is not None:
        raise ValueError(f"{caller}: give format or layer and num_layers, "
                         f"not both")
    format = None if recipe is None else recipe.layer_format(layer,
                                                             num_layers)
    return fp4 and format is not None, format


def linear_context(x, w, recipe: Optional[Recipe] = None, fp4: bool = True,
                   format: Optional[str] = None) -> LinearContext:
    """The context of the layer on X [M, K] and W [N, K]: the operands as
    float32 and, when quantized, W's fprop quantization. With no recipe, a
    disabled one, or ``fp4=False`` (a layer kept in high precision) the
    GEMMs are float32. `format` is the block-scaled format of the GEMMs
    (default: the first of the recipe's ladder, :meth:`Recipe.layer_format`
    for a layer)."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    w = np.ascontiguousarray(w, dtype=np.float32)
    if x.ndim != 2 or w.ndim != 2 or x.shape[1] != w.shape[1]:
        raise ValueError(f"linear: expected X [M, K] and W [N, K], got "
                         f"{x.shape} and {w.shape}")
    if not (fp4 and recipe is not None and recipe.enabled):
        return LinearContext(x, w, recipe, False, None)
    fmt = recipe.formats[0] if format is None else format
    if fmt == "nvfp4":
        return LinearContext(x, w, recipe, True,
                             _quantized(w, recipe, "fprop", "weight"), fmt)
    if fmt not in ("mxfp4", "mxfp8_e4m3", "mxfp8_e5m2"):
        raise ValueError(f"linear: unknown format {fmt!r}")
    return LinearContext(x, w, recipe, True, _quantized_mx(w, fmt, recipe),
                         fmt)


def linear_forward(x, w, recipe: Optional[Recipe] = None, fp4: bool = True,
                   format: Optional[str] = None):
    """``Y = X W^T`` for X [M, K] and W [N, K]; returns Y [M, N] (float32)
    and the :class:`LinearContext` for :func:`linear_backward`."""
    ctx = linear_context(x, w, recipe, fp4, format)
    if not ctx.fp4:
        return (ctx.x @ ctx.w.T).astype(np.float32), ctx
    if ctx.format != "nvfp4":
        qx = _quantized_mx(ctx.x, ctx.format, recipe)
        return _gemm(qx, ctx.weight, ctx.x.shape[0], ctx.w.shape[0]), ctx
    qx = _quantized(ctx.x, recipe, "fprop", "activation")
    return _gemm(qx, ctx.weight, ctx.x.shape[0], ctx.w.shape[0]), ctx


def linear_backward(dy, ctx: LinearContext):
    """``dX = dY W`` and ``dW = dY^T X`` for dY [M, N]; returns (dX, dW)."""
    dy = np.ascontiguousarray(dy, dtype=np.float32)
    x, w, recipe = ctx.x, ctx.w, ctx.recipe
    m, k = x.shape
    n = w.shape[0]
    if dy.shape != (m, n):
        raise ValueError(f"linear_backward: expected dY {(m, n)}, got "
                         f"{dy.shape}")
    if not ctx.fp4:
        return (dy @ w).astype(np.float32), (dy.T @ x).astype(np.float32)
    if ctx.format != "nvfp4":
        # dgrad along N, wgrad along the tokens M; W^T quantized afresh.
        fmt = ctx.format
        dx = _gemm(_quantized_mx(dy, fmt, recipe),
                   _quantized_mx(np.ascontiguousarray(w.T), fmt, recipe), m, k)
        dw = _gemm(_quantized_mx(np.ascontiguousarray(dy.T), fmt, recipe),
                   _quantized_mx(np.ascontiguousarray(x.T), fmt, recipe), n, k)
        return dx, dw

    # dgrad: dY [M, N] and W^T [K, N], both along N.
    q_dy = _quantized(dy, recipe, "dgrad", "gradient")
    weight_quantization = recipe.quantization("dgrad", "weight")
    if weight_quantization == recipe.quantization("fprop", "weight") and \
            weight_quantization.block == (16, 16):
        # The forward pass's 16x16 tensor, transposed exactly (padded to
        # [N', K'] there, so [K', N'] here).
        q_wt = (ctx.weight.T if recipe.mode == "fake" else
                transpose(ctx.weight))
    else:
        q_wt = _quantized(np.ascontiguousarray(w.T), recipe, "dgrad",
                          "weight")
    dx = _gemm(q_dy, q_wt, m, k)

    # wgrad: dY^T [N, M] and X^T [K, M], both along the tokens M.
    q_dyt = _quantized(np.ascontiguousarray(dy.T), recipe, "wgrad",
                       "gradient")
    q_xt = _quantized(np.ascontiguousarray(x.T), recipe, "wgrad",
                      "activation")
    dw = _gemm(q_dyt, q_xt, n, k)
    return dx, dw

