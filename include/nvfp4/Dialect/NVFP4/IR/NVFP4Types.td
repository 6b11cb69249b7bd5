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
    one E4M3 scale; the tensor carries one FP32 tensor scale. By default that
    is the amax its scales were derived from, as Transformer Engine's NVFP4
    tensors do, and the logical value of element `i` is
    `e2m1[i] * ((e4m3[block(i)] * amax) * fl(1 / (6 * 448)))`.

    With the optional third parameter `decode`, the tensor scale is a decode
    scale that multiplies the block scales, as in the NVFP4 checkpoints
    NVIDIA's Model Optimizer exports (`weight_scale_2` = amax / (6 * 448))
    and vLLM loads: element `i` is `e2m1[i] * (e4m3[block(i)] * scale)`. Such
    tensors come from `nvfp4.assemble` (e.g. of a checkpoint's constants);
    quantization produces amax-scaled ones. A GEMM scales its result by the
    product of the operands' decode scales, where an amax contributes
    `amax * fl(1 / (6 * 448))`; two amaxes keep Transformer Engine's
    `(amaxA * amaxB) * fl(1 / (6 * 448)^2)`.

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
    !nvfp4.tensor<4096x4096, 1x16, decode>  // a Model Optimizer weight
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::nvfp4::BlockAttr":$block,
                        "::mlir::nvfp4::TensorScaleKind":$tensorScale);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    TypeBuilder<(ins "::llvm::ArrayRef<int64_t>":$shape,
                     "::mlir::nvfp4::BlockAttr":$block,
                     CArg<"::mlir::nvfp4::TensorScaleKind",
                          "::mlir::nvfp4::TensorScaleKind::Amax">:$tensorScale), [{
      return $_get($_ctxt, shape, block, tensorScale);
    }]>,
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
                                        "::mlir::nvfp4::BlockAttr":$block,
                                        CArg<"::mlir::nvfp4::TensorScaleKind",
                                             "::mlir::nvfp4::TensorScaleKind::Amax">:$tensorScale), [{
      return $_get(block.getContext(), shape, block, tensorScale);
    }]>,
    TypeBuilder<(ins "::llvm::ArrayRef<int64_t>":$shape,
                     "int64_t":$blockRows,
                     CArg<"::mlir::nvfp4::TensorScaleKind",
                          "::mlir::nvfp4::TensorScaleKind::Amax">:$tensorScale), [{
      return $_get($_ctxt, shape, BlockAttr::get($_ctxt, blockRows, 16),
                   tensorScale);
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
    /// Whether the tensor scale is a decode scale (the `decode` parameter).
    bool hasDecodeScale() const {
      return getTensorScale() == ::mlir::nvfp4::TensorScaleKind::Decode;
    }
    /// This type with another tensor-scale kind.
    NVFP4TensorType withTensorScale(::mlir::nvfp4::TensorScaleKind kind) const;
  }];
}

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4TYPES_TD
