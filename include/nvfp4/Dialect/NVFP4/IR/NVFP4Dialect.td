//===- NVFP4Dialect.td - NVFP4 dialect definition ----------*- tablegen -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_TD
#define NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_TD

include "mlir/IR/OpBase.td"

def NVFP4_Dialect : Dialect {
  let name = "nvfp4";
  let cppNamespace = "::mlir::nvfp4";
  let summary = "NVIDIA's 4-bit NVFP4 tensors, block scales and block-scaled matmul";
  let description = [{
    The `nvfp4` dialect models tensors in NVIDIA's NVFP4 format: E2M1 element
    values (+-{0, 0.5, 1, 1.5, 2, 3, 4, 6}), one E4M3 scale per block of 16
    values along the contraction (last) dimension -- or one per 16x16 tile for
    weights -- and one FP32 scale per tensor. It provides quantization with
    Transformer Engine's semantics (round-to-nearest-even or stochastic
    rounding, optional random Hadamard transform), dequantization,
    re-quantization, the exact transpose of a 16x16-scaled tensor, and the
    block-scaled matmul that Blackwell's `tcgen05.mma ... kind::mxf4nvf4` and
    `mma.sync ... block_scale` instructions execute.

    Values of `!nvfp4.tensor` have value semantics like builtin tensors. Their
    components (E2M1 data, E4M3 scales, FP32 decode scale) are reached with
    `nvfp4.disassemble` and `nvfp4.assemble`.

    The recipe passes annotate linalg contractions with the discardable
    attributes `nvfp4.kind`, `nvfp4.role`, `nvfp4.layer` and
    `nvfp4.precision`, which frontends may also set (docs/recipe.md).
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 0;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Discardable attribute names of the recipe.
    static constexpr ::llvm::StringLiteral kKindAttrName = "nvfp4.kind";
    static constexpr ::llvm::StringLiteral kRoleAttrName = "nvfp4.role";
    static constexpr ::llvm::StringLiteral kLayerAttrName = "nvfp4.layer";
    static constexpr ::llvm::StringLiteral kPrecisionAttrName =
        "nvfp4.precision";
    /// The function argument / result attribute naming the layout of an
    /// NVFP4 tensor's scales at the boundary (ScaleLayoutAttr).
    static constexpr ::llvm::StringLiteral kScaleLayoutAttrName =
        "nvfp4.scale_layout";
    /// The record a lowering that implemented `nvfp4.scale_layout` leaves
    /// on the arguments and results whose scale buffers it gave the atoms
    /// layout: drivers of the lowered program (launch plans) read it.
    static constexpr ::llvm::StringLiteral kLoweredScaleLayoutAttrName =
        "nvfp4.lowered_scale_layout";

  private:
    void registerAttributes();
    void registerTypes();
  public:
  }];
}

class NVFP4_Op<string mnemonic, list<Trait> traits = []>
    : Op<NVFP4_Dialect, mnemonic, traits>;

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_TD
