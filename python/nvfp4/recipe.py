# ===- recipe.py - The NVFP4 training recipe as a Python object ---------=== #
#
# Part of the NVFP4-MLIR project.
#
# ===---------------------------------------------------------------------=== #
"""The NVFP4 training recipe (arXiv 2509.25149) as one object shared by the
compiler and the framework front ends.

:class:`Recipe` holds the recipe's switches, which mirror the options of the
``nvfp4-recipe`` pass pipeline. Its rules -- how each operand of each GEMM of
a linear layer is quantized, which layers stay in high precision -- are not
re-implemented here: they are calls into the same C++ functions the passes
call (``nvfp4/Recipe/Policy.h``), so Python and the compiler cannot
disagree. :meth:`Recipe.pass_options` gives the matching ``nvfp4-recipe``
options for :func:`nvfp4.compile`.
"""

import dataclasses
from typing import Iterable, Optional, Tuple, Union

from . import _nvfp4
from .fake_quant import Generator

__all__ = ["Recipe", "OperandQuantization", "ABLATIONS"]

ROLES = ("fprop", "dgrad", "wgrad")
KINDS = ("activation", "weight", "gradient")

#: The ablation arms of the paper's study, by name: the full recipe and one
#: rule removed at a time, plus bf16 (no quantization) and all layers FP4.
ABLATIONS = ("bf16", "nvfp4", "no-rht", "no-sr", "1x16-weights", "all-fp4")


@dataclasses.dataclass(frozen=True)
class OperandQuantization:
    """How one GEMM operand is quantized: keyword arguments of
    :func:`nvfp4.quantize` / :func:`nvfp4.fake_quantize`."""

    block: Tuple[int, int]
    rounding: str
    hadamard: bool


class Recipe:
    """The recipe's switches (defaults: the paper's recipe).

    Args:
      hadamard: random Hadamard transform on both wgrad operands
        (``disable-rht`` turns it off).
      stochastic_rounding: stochastic rounding of gradients
        (``disable-stochastic-rounding``).
      weight_blocks_2d: 16x16 weight blocks (``disable-2d-quantization``
        gives 1x16).
      keep_first, keep_last: the first / last layers kept in high precision.
      high_layers: layer numbers forced to high precision.
      enabled: ``False`` quantizes nothing (the high-precision baseline).
      mode: ``"exact"`` -- GEMMs on NVFP4 operands through the bit-exact
        block-scaled GEMM (:func:`nvfp4.matmul`); ``"fake"`` -- operands
        fake-quantized (:func:`nvfp4.fake_quantize`), then a float32 GEMM.
      seed: the Philox key of stochastic rounding; :attr:`generator`
        advances with every stochastically rounded quantization.
    """

    def __init__(self, *, hadamard: bool = True,
                 stochastic_rounding: bool = True,
                 weight_blocks_2d: bool = True, keep_first: int = 0,
                 keep_last: int = 0, high_layers: Iterable[int] = (),
                 enabled: bool = True, mode: str = "exact", seed: int = 0):
        if mode not in ("exact", "fake"):
            raise ValueError(f"mode must be 'exact' or 'fake', got {mode!r}")
        for name, value in (("keep_first", keep_first),
                            ("keep_last", keep_last)):
            if isinstance(value, bool) or not isinstance(value, int) or \
                    value < 0:
                raise ValueError(f"{name} must be a non-negative integer")
        self.hadamard = bool(hadamard)
        self.stochastic_rounding = bool(stochastic_rounding)
        self.weight_blocks_2d = bool(weight_blocks_2d)
        self.keep_first = keep_first
        self.keep_last = keep_last
        self.high_layers = tuple(int(layer) for layer in high_layers)
        self.enabled = bool(enabled)
        self.mode = mode
        self.generator = Generator(seed)

    @classmethod
    def ablation(cls, name: str, keep_first: int = 1, keep_last: int = 1,
                 **kwargs) -> "Recipe":
        """One arm of :data:`ABLATIONS`. ``nvfp4`` and the one-rule
        ablations keep `keep_first` / `keep_last` layers in high precision;
        ``all-fp4`` keeps none; ``bf16`` quantizes nothing."""
        if name not in ABLATIONS:
            raise ValueError(f"unknown ablation {name!r}; expected one of "
                             f"{ABLATIONS}")
        arms = {
            "bf16": dict(enabled=False),
            "nvfp4": {},
            "no-rht": dict(hadamard=False),
            "no-sr": dict(stochastic_rounding=False),
            "1x16-weights": dict(weight_blocks_2d=False),
            "all-fp4": dict(keep_first=0, keep_last=0),
        }
        options = dict(keep_first=keep_first, keep_last=keep_last)
        options.update(arms[name])
        options.update(kwargs)
        return cls(**options)

    def __repr__(self):
        return (f"Recipe(hadamard={self.hadamard}, stochastic_rounding="
                f"{self.stochastic_rounding}, weight_blocks_2d="
                f"{self.weight_blocks_2d}, keep_first={self.keep_first}, "
                f"keep_last={self.keep_last}, high_layers={self.high_layers}"
                f", enabled={self.enabled}, mode={self.mode!r})")

    @staticmethod
    def operand_kinds(role: str) -> Tuple[str, str]:
        """The operand kinds the passes assume for a GEMM of `role`."""
        return _nvfp4.recipe_operand_kinds(role)

    def quantization(self, role: str, kind: str) -> OperandQuantization:
        """How an operand of `kind` ("activation", "weight", "gradient") of
        the GEMM of `role` ("fprop", "dgrad", "wgrad") is quantized."""
        rows, stochastic, hadamard = _nvfp4.recipe_quantization(
            role, kind, self.hadamard, self.stochastic_rounding,
            self.weight_blocks_2d)
        return OperandQuantization(block=(rows, 16),
                                   rounding="rs" if stochastic else "rn",
                                   hadamard=hadamard)

    def layer_precision(self, layer: int, num_layers: int,
                        position: Optional[int] = None) -> str:
        """``"fp4"``, or why layer `layer` stays in high precision
        (``"high-listed"``, ``"high-first"``, ``"high-last"``, ``"high"``
        when the recipe is disabled). Layers are numbered 0 to
        ``num_layers - 1`` unless `position` gives the layer's place among
        them."""
        if not self.enabled:
            return "high"
        return _nvfp4.recipe_layer_precision(
            int(layer), int(layer if position is None else position),
            int(num_layers), self.keep_first, self.keep_last,
            list(self.high_layers))

    def is_fp4(self, layer: Optional[int] = None,
               num_layers: Optional[int] = None) -> bool:
        """Whether the layer's GEMMs are quantized (always, when no layer
        is given and the recipe is enabled)."""
        if layer is None or num_layers is None:
            return self.enabled
        return self.layer_precision(layer, num_layers) == "fp4"

    def pass_options(self) -> Optional[str]:
        """The ``nvfp4-recipe`` options with the same switches, for
        ``nvfp4.compile(..., recipe=recipe.pass_options())``; None for a
        disabled recipe (no recipe runs)."""
        if not self.enabled:
            return None
        options = [f"keep-first={self.keep_first}",
                   f"keep-last={self.keep_last}"]
        if self.high_layers:
            options.append("high-layers=" +
                           ",".join(str(layer) for layer in self.high_layers))
        if not self.hadamard:
            options.append("disable-rht")
        if not self.stochastic_rounding:
            options.append("disable-stochastic-rounding")
        if not self.weight_blocks_2d:
            options.append("disable-2d-quantization")
        return " ".join(options)
