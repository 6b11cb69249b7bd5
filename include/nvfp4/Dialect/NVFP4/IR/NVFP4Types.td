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
  let summary = "a block-scaled tensor: NVFP4 (the default), MXFP4 or MXFP8";
  let description = [{
    A tensor quantized along its last dimension in one of
    the block-scaled formats of Blackwell's tensor cores, the optional
    `format` parameter (after the block, default `nvfp4`):

    | format | element | block | block scale | tensor scale |
    | --- | --- | --- | --- | --- |
    | `nvfp4` | E2M1 | `1x16` or `16x16` | E4M3 | f32 |
    | `mxfp4` | E2M1 | `1x32` | E8M0 | none |
    | `mxfp8_e4m3` | E4M3 | `1x32` | E8M0 | none |
    | `mxfp8_e5m2` | E5M2 | `1x32` | E8M0 | none |

    **NVFP4.** Each element is an E2M1 value; each block (see `#nvfp4.block`)
    of elements has one E4M3 scale; the tensor carries one FP32 tensor scale.
    By default that is the amax its scales were derived from, as Transformer
    Engine's NVFP4 tensors do, and the logical value of element `i` is
    `e2m1[i] * ((e4m3[block(i)] * amax) * fl(1 / (6 * 448)))`.

    With the optional parameter `decode`, the tensor scale is a decode
    scale that multiplies the block scales, as in the NVFP4 checkpoints
    NVIDIA's Model Optimizer exports (`weight_scale_2` = amax / (6 * 448))
    and vLLM loads: element `i` is `e2m1[i] * (e4m3[block(i)] * scale)`. Such
    tensors come from `nvfp4.assemble` (e.g. of a checkpoint's constants);
    quantization produces amax-scaled ones. A GEMM scales its result by the
    product of the operands' decode scales, where an amax contributes
    `amax * fl(1 / (6 * 448))`; two amaxes keep Transformer Engine's
    `(amaxA * amaxB) * fl(1 / (6 * 448)^2)`.

    **MX (OCP Microscaling v1.0).** Every 32 consecutive elements of the last
    dimension share one E8M0 scale, a power of two `2^(s - 127)`, and there
    is no tensor scale: element `i` is `elem[i] * 2^(e8m0[block(i)] - 127)`
    (docs/numerics.md §13).

    The components, as `nvfp4.disassemble` returns them, are:
    - data: `tensor<d0 x ... x dn x E>` with `E` the element type
      (`f4E2M1FN`, `f8E4M3FN` or `f8E5M2`);
    - scales: `tensor<d0 x ... x d(n-1)/R x dn/C x S>` for a block of `R`x`C`
      (compact: one scale per 16x16 tile for `16x16`), `S` = `f8E4M3FN`
      (NVFP4) or `f8E8M0FNU` (MX);
    - NVFP4 only, the tensor scale: `f32`.

    Rules: rank >= 1, every dimension positive, the last dimension a
    multiple of the block's columns, for `16x16` rank >= 2 and the
    second-to-last dimension a multiple of 16, the block one the format
    takes (above), `decode` only for `nvfp4`, and the element count and the
    size in bytes of each component representable in int64.

    A dimension may be a run-time size, `?` (a batch or sequence length):
    the rules hold for the static dimensions here and for the run-time ones
    when the program runs (the CPU lowering's library kernels check them;
    the inline kernels and the GPU kernels take static shapes, and the GPU
    lowering leaves ops of run-time sizes to the host). The components have
    the same run-time sizes, divided by the block for the scales:
    `!nvfp4.tensor<?x4096, 1x16>` has scales `tensor<?x256xf8E4M3FN>`.

    Example:

    ```mlir
    !nvfp4.tensor<128x4096, 1x16>      // activations
    !nvfp4.tensor<4096x4096, 16x16>    // a weight with 2D scales
    !nvfp4.tensor<8x128x64, 1x16>      // batched
    !nvfp4.tensor<?x4096, 1x16>        // activations of run-time token count
    !nvfp4.tensor<4096x4096, 1x16, decode>  // a Model Optimizer weight
    !nvfp4.tensor<128x4096, 1x32, mxfp4>
    !nvfp4.tensor<128x4096, 1x32, mxfp8_e4m3>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::nvfp4::BlockAttr":$block,
                        "::mlir::nvfp4::TensorScaleKind":$tensorScale,
                        "::mlir::nvfp4::Format":$format);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    TypeBuilder<(ins "::llvm::ArrayRef<int64_t>":$shape,
                     "::mlir::nvfp4::BlockAttr":$block,
                     CArg<"::mlir::nvfp4::TensorScaleKind",
                          "::mlir::nvfp4::TensorScaleKind::Amax">:$tensorScale,
                     CArg<"::mlir::nvfp4::Format",
                          "::mlir::nvfp4::Format::NVFP4">:$format), [{
      return $_get($_ctxt, shape, block, tensorScale, format);
    }]>,
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
                                        "::mlir::nvfp4::BlockAttr":$block,
                                        CArg<"::mlir::nvfp4::TensorScaleKind",
                                             "::mlir::nvfp4::TensorScaleKind::Amax">:$tensorScale,
                                        CArg<"::mlir::nvfp4::Format",
                                             "::mlir::nvfp4::Format::NVFP4">:$format), [{
      return $_get(block.getContext(), shape, block, tensorScale, format);
    }]>,
    TypeBuilder<(ins "::llvm::ArrayRef<int64_t>":$shape,
                     "int64_t":$blockRows,
                     CArg<"::mlir::nvfp4::TensorScaleKind",
                          "::mlir::nvfp4::TensorScaleKind::Amax">:$tensorScale), [{
      return $_get($_ctxt, shape, BlockAttr::get($_ctxt, blockRows, 16),
                   tensorScale, ::mlir::nvfp4::Format::NVFP4);
    }]>
  ];
  let extraClassDeclaration = [{
    /// ShapedType interface.
    bool hasRank() const { return true; }
    /// The element type of the data component (f4E2M1FN, f8E4M3FN, f8E5M2).
    ::mlir::Type getElementType() const;
    ::mlir::ShapedType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                                 ::mlir::Type elementType) const;

    /// The builtin tensor type of the data component.
    ::mlir::RankedTensorType getDataType() const;
    /// The builtin tensor type of the block-scale component (E4M3 or E8M0).
    ::mlir::RankedTensorType getScalesType() const;
    /// Shape of the block-scale component.
    ::llvm::SmallVector<int64_t> getScalesShape() const;
    /// Number of elements.
    int64_t getNumElements() const;
    /// Whether this is an NVFP4 tensor (not one of the MX formats).
    bool isNVFP4() const { return getFormat() == ::mlir::nvfp4::Format::NVFP4; }
    /// Whether the tensor carries an f32 tensor scale (NVFP4 does, MX not).
    bool hasTensorScale() const { return isNVFP4(); }
    /// Whether the tensor scale is a decode scale (the `decode` parameter).
    bool hasDecodeScale() const {
      return getTensorScale() == ::mlir::nvfp4::TensorScaleKind::Decode;
    }
    /// This type with another tensor-scale kind.
    NVFP4TensorType withTensorScale(::mlir::nvfp4::TensorScaleKind kind) const;
    /// This type with another shape (same block, tensor scale and format).
    NVFP4TensorType withShape(::llvm::ArrayRef<int64_t> shape) const;
  }];
}

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4TYPES_TD
