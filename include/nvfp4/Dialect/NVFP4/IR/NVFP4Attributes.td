//===- NVFP4Attributes.td - NVFP4 attributes ---------------*- tablegen -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_IR_NVFP4ATTRIBUTES_TD
#define NVFP4_DIALECT_NVFP4_IR_NVFP4ATTRIBUTES_TD

include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// RoundingAttr
//===----------------------------------------------------------------------===//

def NVFP4_RoundingNearestEven : I32EnumAttrCase<"NearestEven", 0, "rn">;
def NVFP4_RoundingStochastic : I32EnumAttrCase<"Stochastic", 1, "rs">;

def NVFP4_Rounding : I32EnumAttr<"Rounding",
    "rounding mode of the E2M1 conversion",
    [NVFP4_RoundingNearestEven, NVFP4_RoundingStochastic]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nvfp4";
}

def NVFP4_RoundingAttr : EnumAttr<NVFP4_Dialect, NVFP4_Rounding, "rounding"> {
  let summary = "E2M1 rounding mode: `rn` (nearest-even) or `rs` (stochastic)";
  let description = [{
    `rn` rounds to the nearest E2M1 value, ties to even, saturating to +-6
    (`cvt.rn.satfinite.e2m1x2.f32`). `rs` rounds stochastically with 8 random
    bits per element from Philox4x32-10 keyed by the op's seed and offset
    (`cvt.rs.satfinite.e2m1x4.f32` on sm_100a/sm_103a, software elsewhere);
    docs/numerics.md states how the bits are used.

    Example: `#nvfp4<rounding rs>`; inside an op, just `rs`.
  }];
}

//===----------------------------------------------------------------------===//
// TensorScaleKind
//===----------------------------------------------------------------------===//

def NVFP4_TensorScaleAmax : I32EnumAttrCase<"Amax", 0, "amax">;
def NVFP4_TensorScaleDecode : I32EnumAttrCase<"Decode", 1, "decode">;

// What the f32 tensor scale of an NVFP4 tensor is: a parameter of
// `!nvfp4.tensor` (see there), not an attribute of its own.
def NVFP4_TensorScaleKind : I32EnumAttr<"TensorScaleKind",
    "what the f32 tensor scale of an NVFP4 tensor is",
    [NVFP4_TensorScaleAmax, NVFP4_TensorScaleDecode]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nvfp4";
}

//===----------------------------------------------------------------------===//
// Format
//===----------------------------------------------------------------------===//

def NVFP4_FormatNVFP4 : I32EnumAttrCase<"NVFP4", 0, "nvfp4">;
def NVFP4_FormatMXFP4 : I32EnumAttrCase<"MXFP4", 1, "mxfp4">;
def NVFP4_FormatMXFP8E4M3 : I32EnumAttrCase<"MXFP8E4M3", 2, "mxfp8_e4m3">;
def NVFP4_FormatMXFP8E5M2 : I32EnumAttrCase<"MXFP8E5M2", 3, "mxfp8_e5m2">;

// The block-scaled format of a `!nvfp4.tensor`: a parameter of the type (see
// there), not an attribute of its own.
def NVFP4_Format : I32EnumAttr<"Format",
    "block-scaled format of an !nvfp4.tensor",
    [NVFP4_FormatNVFP4, NVFP4_FormatMXFP4, NVFP4_FormatMXFP8E4M3,
     NVFP4_FormatMXFP8E5M2]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nvfp4";
}

//===----------------------------------------------------------------------===//
// ScaleLayoutAttr
//===----------------------------------------------------------------------===//

def NVFP4_ScaleLayoutRowMajor : I32EnumAttrCase<"RowMajor", 0, "row_major">;
def NVFP4_ScaleLayoutAtoms : I32EnumAttrCase<"Atoms", 1, "atoms">;

def NVFP4_ScaleLayout : I32EnumAttr<"ScaleLayout",
    "memory layout of the E4M3 scales of an NVFP4 function argument or result",
    [NVFP4_ScaleLayoutRowMajor, NVFP4_ScaleLayoutAtoms]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nvfp4";
}

def NVFP4_ScaleLayoutAttr
    : EnumAttr<NVFP4_Dialect, NVFP4_ScaleLayout, "scale_layout"> {
  let summary = "memory layout of the scales at a function boundary: "
                "`row_major` or `atoms`";
  let description = [{
    The value of the discardable argument / result attribute
    `nvfp4.scale_layout` of a function: how the caller stores the E4M3 scale
    buffer of an `!nvfp4.tensor` argument, and how the function stores that
    of a result. It is part of the function's calling convention, not of the
    value: inside the function the tensor means the same in either layout.

    - `row_major`: the dialect's `[rows, K/16]` (or `[rows/16, K/16]` for
      16x16 blocks) row-major matrix, as `nvfp4.disassemble` shows it.
    - `atoms`: the same `[rows, K/16]` bytes in the 128x4 atoms of the
      Blackwell block-scaled MMA, which cuBLAS and Transformer Engine call
      swizzled (GEMM-ready) scales: for a row `r` (the leading dimensions
      flattened) and scale column `c` of `C = K/16` columns, the byte at
      `((r / 128) * (C / 4) + c / 4) * 512 + (r % 32) * 16 + (r / 32 % 4) * 4
      + c % 4`. Only for NVFP4 with 1x16 blocks, rank >= 2, rows a
      multiple of 128 and `C` a multiple of 4.

    `convert-nvfp4-to-gpu` gives every eligible NVFP4 argument and result
    without the attribute the `atoms` layout on the tcgen05 targets (option
    `boundary-scale-layout`); its tcgen05 matmul kernel loads such scales
    by bulk copies and its quantize kernels write them. The lowerings
    (`convert-nvfp4-to-gpu`, `convert-nvfp4-to-reference`) implement the
    attribute, relaying scales out on the host for readers and writers of
    the other layout, and drop it. See docs/formats.md, "Scale layout at
    function boundaries".

    Example:
    `func.func @f(%w: !nvfp4.tensor<256x512, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<row_major>})`
  }];
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// BlockAttr
//===----------------------------------------------------------------------===//

def NVFP4_BlockAttr : AttrDef<NVFP4_Dialect, "Block"> {
  let mnemonic = "block";
  let summary = "shape of the block that shares one scale: 1x16, 16x16 or 1x32";
  let description = [{
    NVFP4 (one E4M3 scale per block): `1x16` is one scale per 16 consecutive
    elements of the last (contraction) dimension; `16x16` one scale per 16x16
    tile of the two innermost dimensions, used for weights so that
    quantize(Wᵀ) == transpose(quantize(W)). The OCP MX formats (one E8M0
    scale per block): `1x32`, one scale per 32 consecutive elements of the
    last dimension. No other block shape exists; `!nvfp4.tensor` checks that
    the block fits its format.

    Example: `#nvfp4.block<16x16>`
  }];
  let parameters = (ins "int64_t":$rows, "int64_t":$cols);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether this is the 2D 16x16 layout.
    bool is2D() const { return getRows() == 16; }
    /// Custom printer/parser of the bare `RxC` form used inside types.
    void printShape(::mlir::AsmPrinter &printer) const;
  }];
}

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4ATTRIBUTES_TD
