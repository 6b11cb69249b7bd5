# ===- jax.py - NVFP4 linear layers for JAX -----------------------------=== #
#
# Part of the NVFP4-MLIR project.
#
# ===---------------------------------------------------------------------=== #
"""JAX front end of the recipe: :func:`nvfp4_linear`, a ``jax.custom_vjp``
whose forward and backward GEMMs run the recipe's quantization on the host
through ``jax.pure_callback`` (:mod:`nvfp4.linear`), in NVFP4 or an MX
format of the recipe's ladder: the same bits as ``nvfp4.torch`` and the
library.

The backward pass quantizes the weight again rather than carrying the
forward pass's NVFP4 tensor: round-to-nearest quantization is deterministic,
so the bits are those of quantizing once. Stochastic rounding draws from
``recipe.generator``, which advances on every execution of the callback
(also under ``jax.jit``).

``import nvfp4.jax`` needs JAX; nothing else in the package does.
"""

import functools
from typing import Optional

import jax
import jax.numpy as jnp
import numpy as np

from .linear import (layer_gemms, linear_backward, linear_context,
                     linear_forward)
from .recipe import Recipe

__all__ = ["nvfp4_linear"]


def _forward_host(recipe, fp4, format, x, w):
    y, _ = linear_forward(np.asarray(x), np.asarray(w), recipe, fp4, format)
    return y


def _backward_host(recipe, fp4, format, x, w, dy):
    # The forward pass's weight tensor, requantized (the same bits).
    return linear_backward(np.asarray(dy),
                           linear_context(np.asarray(x), np.asarray(w),
                                          recipe, fp4, format))


@functools.partial(jax.custom_vjp, nondiff_argnums=(2, 3, 4))
def _linear(x, w, recipe, fp4, format):
    shape = jax.ShapeDtypeStruct((x.shape[0], w.shape[0]), jnp.float32)
    return jax.pure_callback(
        functools.partial(_forward_host, recipe, fp4, format), shape, x, w)


def _linear_fwd(x, w, recipe, fp4, format):
    return _linear(x, w, recipe, fp4, format), (x, w)


def _linear_bwd(recipe, fp4, format, residuals, dy):
    x, w = residuals
    shapes = (jax.ShapeDtypeStruct(x.shape, jnp.float32),
              jax.ShapeDtypeStruct(w.shape, jnp.float32))
    return jax.pure_callback(
        functools.partial(_backward_host, recipe, fp4, format), shapes, x, w,
        dy)


_linear.defvjp(_linear_fwd, _linear_bwd)


def nvfp4_linear(x, w, recipe: Optional[Recipe] = None, fp4: bool = True,
                 format: Optional[str] = None, *,
                 layer: Optional[int] = None,
                 num_layers: Optional[int] = None):
    """``x @ w.T`` with x [..., K] and w [N, K], its forward and backward
    GEMMs quantized by `recipe` (none: float32; ``fp4=False``: a layer the
    recipe keeps in high precision) in `format` (``nvfp4``, ``mxfp4``,
    ``mxfp8_e4m3``, ``mxfp8_e5m2``; default: the first of the recipe's
    ladder, :meth:`Recipe.layer_format` gives a layer's). `layer` and
    `num_layers`, the layer's place in the model, let the recipe's layer
    rules (keep-first, keep-last, high-layers) pick the format instead; a
    recipe with layer rules and neither these nor `format` / ``fp4=False``
    warns, once per call site (under ``jax.jit``, when traced). Computed in
    float32 and returned in x's dtype."""
    x = jnp.asarray(x)
    w = jnp.asarray(w)
    if w.ndim != 2 or x.shape[-1] != w.shape[-1]:
        raise ValueError(f"nvfp4_linear: expected x [..., K] and w [N, K], "
                         f"got {x.shape} and {w.shape}")
    fp4, format = layer_gemms(recipe, fp4, format, layer, num_layers,
                              "nvfp4.jax.nvfp4_linear", stacklevel=2)
    x2 = x.reshape(-1, x.shape[-1]).astype(jnp.float32)
    y = _linear(x2, w.astype(jnp.float32), recipe, bool(fp4), format)
    return y.reshape(*x.shape[:-1], w.shape[0]).astype(x.dtype)
