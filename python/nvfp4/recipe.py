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
import os
from typing import Iterable, Optional, Tuple

from . import _nvfp4
from .fake_quant import Generator

__all__ = ["Recipe", "OperandQuantization", "ABLATIONS"]

#: The ablation arms of the paper's study, by name: the full recipe and one
#: rule removed at a time, plus bf16 (no quantization), all layers FP4, the
#: recipe in MXFP4, and NVFP4 with the layers it keeps out of FP4 in MXFP8.
ABLATIONS = ("bf16", "nvfp4", "no-rht", "no-sr", "1x16-weights", "all-fp4",
             "mxfp4", "nvfp4+mxfp8")

#: Block-scaled formats by the compiler's names, and their aliases.
_FORMATS = {"nvfp4": "nvfp4", "mxfp4": "mxfp4", "mxfp8_e4m3": "mxfp8_e4m3",
            "mxfp8": "mxfp8_e4m3", "mxfp8_e5m2": "mxfp8_e5m2"}
_FP4_FORMATS = ("nvfp4", "mxfp4")


def _member(enum, name: str, what: str):
    """The enumerator of the policy's `enum` called `name`."""
    try:
        return enum[name]
    except KeyError:
        names = ", ".join(repr(member.name) for member in enum)
        raise ValueError(f"{what} must be one of {names}, got {name!r}") \
            from None


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
      inference: the compiled graph is a forward pass (``nvfp4-recipe``'s
        ``mode=inference``: fprop roles only, constant weights quantized at
        compile time). Only :meth:`pass_options` reads it.
      calibration: path of a JSON file of static activation amaxes per
        contraction (``calibration=``, see ``nvfp4-apply-calibration``);
        ``None`` measures the amax at run time. Only :meth:`pass_options`
        reads it.
      format: the 4-bit format of the quantized layers, ``"nvfp4"`` or
        ``"mxfp4"`` (``format=``).
      formats: a precision ladder (``formats=``): block-scaled formats in
        order of preference (``"nvfp4"``, ``"mxfp4"``, ``"mxfp8_e4m3"`` or
        ``"mxfp8"``, ``"mxfp8_e5m2"``), optionally ending in ``"bf16"``; a
        layer the recipe keeps out of FP4 (keep-first / keep-last) takes the
        first 8-bit format of the ladder instead of high precision. Give
        `format` or `formats`, not both.
    """

    def __init__(self, *, hadamard: bool = True,
                 stochastic_rounding: bool = True,
                 weight_blocks_2d: bool = True, keep_first: int = 0,
                 keep_last: int = 0, high_layers: Iterable[int] = (),
                 enabled: bool = True, mode: str = "exact", seed: int = 0,
                 inference: bool = False,
                 calibration: Optional[str] = None, format: str = "nvfp4",
                 formats: Optional[Iterable[str]] = None):
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
        self.inference = bool(inference)
        if calibration is not None:
            calibration = os.fspath(calibration)
            if any(c.isspace() or c in "{}" for c in calibration):
                raise ValueError("the calibration path must not contain "
                                 "spaces or braces (it is a pass option)")
        self.calibration = calibration
        self.formats = self._ladder(format, formats)

    @staticmethod
    def _ladder(format: str, formats) -> Tuple[str, ...]:
        """The precision ladder as the compiler's format names."""
        if format not in _FP4_FORMATS:
            raise ValueError(f"format must be 'nvfp4' or 'mxfp4', got "
                             f"{format!r}")
        if formats is None:
            return (format,)
        if format != "nvfp4":
            raise ValueError("give format or formats, not both")
        if isinstance(formats, str):
            raise TypeError("formats must be a sequence of format names")
        names = list(formats)
        ladder = []
        for i, name in enumerate(names):
            if name in ("bf16", "high"):
                if i + 1 != len(names):
                    raise ValueError(f"{name!r} ends the formats ladder")
                break
            if name not in _FORMATS:
                raise ValueError(f"unknown format {name!r}; expected one of "
                                 f"{', '.join(_FORMATS)} (then bf16)")
            if _FORMATS[name] in ladder:
                raise ValueError(f"format {name!r} appears twice")
            ladder.append(_FORMATS[name])
        if not ladder:
            raise ValueError("formats names no block-scaled format")
        return tuple(ladder)

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
            "mxfp4": dict(format="mxfp4"),
            "nvfp4+mxfp8": dict(formats=("nvfp4", "mxfp8_e4m3", "bf16")),
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
                f", enabled={self.enabled}, mode={self.mode!r}, inference="
                f"{self.inference}, calibration={self.calibration!r}, "
                f"formats={self.formats})")

    @property
    def layer_rules(self) -> Tuple[str, ...]:
        """The rules that treat layers by their place in the model, as
        ``name=value`` (``keep_first=1``, ``high_layers=(3,)``); empty when
        every layer is treated alike (no such rule, or the recipe is
        disabled)."""
        if not self.enabled:
            return ()
        rules = []
        if self.keep_first:
            rules.append(f"keep_first={self.keep_first}")
        if self.keep_last:
            rules.append(f"keep_last={self.keep_last}")
        if self.high_layers:
            rules.append(f"high_layers={self.high_layers}")
        return tuple(rules)

    @staticmethod
    def operand_kinds(role: str) -> Tuple[str, str]:
        """The operand kinds the passes assume for a GEMM of `role`."""
        lhs, rhs = _nvfp4.recipe_operand_kinds(_member(_nvfp4.RecipeRole,
                                                       role, "role"))
        return lhs.name, rhs.name

    def _options(self):
        """The switches as the C++ policy takes them."""
        options = _nvfp4.RecipeOptions()
        options.hadamard = self.hadamard
        options.stochastic_rounding = self.stochastic_rounding
        options.weight_blocks_2d = self.weight_blocks_2d
        options.keep_first = self.keep_first
        options.keep_last = self.keep_last
        options.high_layers = list(self.high_layers)
        return options

    def quantization(self, role: str, kind: str) -> OperandQuantization:
        """How an operand of `kind` ("activation", "weight", "gradient") of
        the GEMM of `role` ("fprop", "dgrad", "wgrad") is quantized."""
        q = _nvfp4.recipe_quantization(
            _member(_nvfp4.RecipeRole, role, "role"),
            _member(_nvfp4.RecipeOperandKind, kind, "kind"), self._options())
        return OperandQuantization(block=(q.block_rows, 16),
                                   rounding="rs" if q.stochastic else "rn",
                                   hadamard=q.hadamard)

    def layer_precision(self, layer: int, num_layers: int,
                        position: Optional[int] = None) -> str:
        """``"fp4"``, or why layer `layer` stays in high precision
        (``"high-listed"``, ``"high-first"``, ``"high-last"``, ``"high"``
        when the recipe is disabled). Layers are numbered 0 to
        ``num_layers - 1`` unless `position` gives the layer's place among
        them."""
        if not self.enabled:
            return "high"
        position = layer if position is None else position
        if not 0 <= position < num_layers:
            raise ValueError(f"position {position} is not in [0, "
                             f"{num_layers})")
        precision = _nvfp4.recipe_layer_precision(
            int(layer), int(position), int(num_layers), self._options())
        return precision.name.replace("_", "-")

    def is_fp4(self, layer: Optional[int] = None,
               num_layers: Optional[int] = None) -> bool:
        """Whether the layer's GEMMs are quantized (always, when no layer
        is given and the recipe is enabled)."""
        if layer is None or num_layers is None:
            return self.enabled
        return self.layer_precision(layer, num_layers) == "fp4"

    def layer_format(self, layer: Optional[int] = None,
                     num_layers: Optional[int] = None) -> Optional[str]:
        """The block-scaled format of the layer's GEMMs as the compiler
        names it (``"nvfp4"``, ``"mxfp4"``, ``"mxfp8_e4m3"``,
        ``"mxfp8_e5m2"``), or None for high precision: the first format of
        the ladder the layer rules allow. keep-first / keep-last keep a
        layer out of the 4-bit formats only; high-layers keeps it high."""
        precision = ("fp4" if layer is None or num_layers is None else
                     self.layer_precision(layer, num_layers))
        if not self.enabled or precision in ("high", "high-listed"):
            return None
        for fmt in self.formats:
            if precision == "fp4" or fmt not in _FP4_FORMATS:
                return fmt
        return None

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
        if self.inference:
            options.append("mode=inference")
        if self.calibration is not None:
            options.append(f"calibration={self.calibration}")
        if len(self.formats) > 1:
            options.append("formats=" + ",".join(self.formats))
        elif self.formats[0] != "nvfp4":
            options.append(f"format={self.formats[0]}")
        return " ".join(options)
