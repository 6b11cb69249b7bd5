//===- NVFP4Types.td - NVFP4 types -------------------------*- tablegen -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_IR_NVFP4TYPES_TD
#define NVFP4_DIALECT_NVFP4_IR_NVFP4TYPES_TD

include "nvfp4/Dialect/NVFP4/IR/NVFP4Attributes.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "mlir/IR/BuiltinTypes.td"

def NVFP4_TensorType : TypeDef<NVFP4_Dialect, "NVFP4Tensor",
    [ShapedTypeInterface, ValueSemantics]> {
  let mnemonic = "tensor";
  let summary = "an NVFP4 tensor: E2M1 values, E4M3 block scales, FP32 tensor scale";
  let description = [{
    A statically shaped tensor quantized along its last dimension. Each
    element is an E2M1 value; each block (see `#nvfp4.block`) of elements has
    one E4M3 scale; the tensor carries the FP32 amax its scales were derived
    from, as Transformer Engine's NVFP4 tensors do. The logical value of
    element `i` is `e2m1[i] * ((e4m3[block(i)] * amax) * fl(1 / (6 * 448)))`.

    The components, as `nvfp4.disassemble` returns them, are:
    - data: `tensor<d0 x ... x dn x f4E2M1FN>`;
    - scales: `tensor<d0 x ... x d(n-1)/R x dn/16 x f8E4M3FN>` for a block of
      `R`x16 (compact: one scale per 16x16 tile for `16x16`);
    - amax: `f32`.

    Rules: rank >= 1, every dimension static and positive, the last dimension
    a multiple of 16, for `16x16` rank >= 2 and the second-to-last dimension
    a multiple of 16, and the element count and the size in bytes of each
    component representable in int64.

    Example:

    ```mlir
    !nvfp4.tensor<128x4096, 1x16>      // activations
    !nvfp4.tensor<4096x4096, 16x16>    // a weight with 2D scales
    !nvfp4.tensor<8x128x64, 1x16>      // batched
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::nvfp4::BlockAttr":$block);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
                                        "::mlir::nvfp4::BlockAttr":$block), [{
      return $_get(block.getContext(), shape, block);
    }]>,
    TypeBuilder<(ins "::llvm::ArrayRef<int64_t>":$shape,
                     "int64_t":$blockRows), [{
      return $_get($_ctxt, shape, BlockAttr::get($_ctxt, blockRows, 16));
    }]>
  ];
  let extraClassDeclaration = [{
    /// ShapedType interface.
    bool hasRank() const { return true; }
    ::mlir::Type getElementType() const;
    ::mlir::ShapedType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                                 ::mlir::Type elementType) const;

    /// The builtin tensor type of the E2M1 data component.
    ::mlir::RankedTensorType getDataType() const;
    /// The builtin tensor type of the E4M3 block-scale component.
    ::mlir::RankedTensorType getScalesType() const;
    /// Shape of the block-scale component.
    ::llvm::SmallVector<int64_t> getScalesShape() const;
    /// Number of elements.
    int64_t getNumElements() const;
  }];
}

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4TYPES_TD
