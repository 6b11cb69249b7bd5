# ===- torch.py - NVFP4 linear layers for PyTorch -----------------------=== #
#
# Part of the NVFP4-MLIR project.
#
# ===---------------------------------------------------------------------=== #
"""PyTorch front end of the recipe: :func:`nvfp4_linear` (a
``torch.autograd.Function``) and the :class:`Linear` module.

The three GEMMs of the layer are quantized per role as the recipe's policy
says (:mod:`nvfp4.linear`): 16x16 round-to-nearest weights, quantized once
and transposed exactly for dgrad; 1x16 round-to-nearest activations; 1x16
stochastically rounded gradients; the Hadamard transform on both wgrad
operands. ``recipe.mode`` picks the bit-exact block-scaled GEMM
(``"exact"``) or fake quantization (``"fake"``). The arithmetic runs on the
host: tensors on another device are copied to the CPU and the results back.
Inputs of any floating dtype are computed in float32 and returned in the
input's dtype.

``import nvfp4.torch`` needs PyTorch; nothing else in the package does.
"""

from typing import Optional

import numpy as np
import torch

from .linear import (layer_gemms, linear_backward, linear_forward,
                     warn_without_layer_index)
from .recipe import Recipe

__all__ = ["nvfp4_linear", "Linear"]


def _to_numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().to(device="cpu", dtype=torch.float32).contiguous() \
        .numpy()


def _to_torch(a: np.ndarray, like) -> torch.Tensor:
    """`a` as a tensor of the (dtype, device) `like`."""
    dtype, device = like
    return torch.from_numpy(np.ascontiguousarray(a)).to(device=device,
                                                        dtype=dtype)


class _NVFP4LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, recipe, fp4, format):
        k = x.shape[-1]
        y, saved = linear_forward(_to_numpy(x.reshape(-1, k)),
                                  _to_numpy(weight), recipe, fp4, format)
        # The numpy context holds the operands (and the quantized weight)
        # the backward GEMMs use.
        ctx.saved = saved
        ctx.x_shape = x.shape
        ctx.x_like = (x.dtype, x.device)
        ctx.w_like = (weight.dtype, weight.device)
        return _to_torch(y, ctx.x_like).reshape(*x.shape[:-1],
                                                weight.shape[0])

    @staticmethod
    def backward(ctx, dy):
        n = ctx.saved.w.shape[0]
        dx, dw = linear_backward(_to_numpy(dy.reshape(-1, n)), ctx.saved)
        return (_to_torch(dx, ctx.x_like).reshape(ctx.x_shape),
                _to_torch(dw, ctx.w_like), None, None, None)


def nvfp4_linear(x: torch.Tensor, weight: torch.Tensor,
                 recipe: Optional[Recipe] = None, fp4: bool = True,
                 format: Optional[str] = None, *,
                 layer: Optional[int] = None,
                 num_layers: Optional[int] = None) -> torch.Tensor:
    """``x @ weight.T`` with x [..., K] and weight [N, K], its forward and
    backward GEMMs quantized by `recipe` (none: float32; ``fp4=False``: a
    layer the recipe keeps in high precision) in `format` (default: the
    first of the recipe's ladder; see :meth:`Recipe.layer_format`).
    `layer` and `num_layers`, the layer's place in the model, let the
    recipe's layer rules pick the format instead; a recipe with layer rules
    and neither these nor `format` / ``fp4=False`` warns
    (:func:`nvfp4.linear.layer_gemms`)."""
    if x.shape[-1] != weight.shape[-1] or weight.dim() != 2:
        raise ValueError(f"nvfp4_linear: expected x [..., K] and weight "
                         f"[N, K], got {tuple(x.shape)} and "
                         f"{tuple(weight.shape)}")
    fp4, format = layer_gemms(recipe, fp4, format, layer, num_layers,
                              "nvfp4.torch.nvfp4_linear", stacklevel=2)
    return _NVFP4LinearFunction.apply(x, weight, recipe, fp4, format)


class Linear(torch.nn.Module):
    """``torch.nn.Linear`` with its GEMMs quantized by `recipe`.

    Args:
      in_features, out_features, bias, device, dtype: as torch.nn.Linear.
      recipe: the :class:`~nvfp4.recipe.Recipe` (None: float32 GEMMs).
      layer, num_layers: the layer's place in the model, for the recipe's
        keep-first / keep-last / high-layers rules. Without them those
        rules cannot apply, and a recipe that has any warns once, when the
        layer is constructed.
      high_precision: keep this layer out of FP4 whatever the recipe says.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 recipe: Optional[Recipe] = None, layer: Optional[int] = None,
                 num_layers: Optional[int] = None,
                 high_precision: bool = False, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.recipe = recipe
        self.layer = layer
        self.num_layers = num_layers
        self.high_precision = high_precision
        if not high_precision and (layer is None or num_layers is None):
            warn_without_layer_index(recipe, "nvfp4.torch.Linear",
                                     stacklevel=2)
        reference = torch.nn.Linear(in_features, out_features, bias=bias,
                                    device=device, dtype=dtype)
        self.weight = reference.weight
        self.bias = reference.bias

    @property
    def format(self) -> Optional[str]:
        """The block-scaled format of this layer's GEMMs, None in high
        precision (:meth:`Recipe.layer_format`)."""
        if self.recipe is None or self.high_precision:
            return None
        return self.recipe.layer_format(self.layer, self.num_layers)

    @property
    def fp4(self) -> bool:
        """Whether this layer's GEMMs are quantized."""
        return self.format is not None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        fmt = self.format
        y = nvfp4_linear(x, self.weight, self.recipe, fmt is not None, fmt)
        return y if self.bias is None else y + self.bias

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features="
                f"{self.out_features}, bias={self.bias is not None}, "
                f"fp4={self.fp4}, format={self.format}")
