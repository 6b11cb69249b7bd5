//===- NVFP4Ops.td - NVFP4 operations ----------------------*- tablegen -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_IR_NVFP4OPS_TD
#define NVFP4_DIALECT_NVFP4_IR_NVFP4OPS_TD

include "nvfp4/Dialect/NVFP4/IR/NVFP4Types.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinTypes.td"

/// Floating-point tensors an NVFP4 tensor is quantized from or dequantized to.
def NVFP4_HighPrecisionTensor : RankedTensorOf<[F32, BF16, F16]>;
/// Matmul results and accumulators: what the block-scaled MMA produces.
def NVFP4_MatmulResultTensor : RankedTensorOf<[F32, BF16]>;
/// The data component of a block-scaled tensor, by format.
def NVFP4_DataTensor : RankedTensorOf<[F4E2M1FN, F8E4M3FN, F8E5M2]>;
/// The block-scale component: E4M3 (NVFP4) or E8M0 (MX).
def NVFP4_ScalesTensor : RankedTensorOf<[F8E4M3FN, F8E8M0FNU]>;

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

def NVFP4_QuantizeOp : NVFP4_Op<"quantize", [Pure, AttrSizedOperandSegments]> {
  let summary = "quantize a floating-point tensor to NVFP4";
  let description = [{
    Quantizes `input` along its last dimension to the NVFP4 tensor type of
    the result (whose block layout, `1x16` or `16x16`, selects the scaling),
    with Transformer Engine's semantics:

    - if `hadamard` is present, the random Hadamard transform
      `H = (1/4) H16 diag(signs)` (see `nvfp4.hadamard`) is first applied to
      every 16 consecutive elements of the last dimension;
    - `amax` = max |x| over the (transformed) tensor, or the `amax` operand;
      `S_enc = 6 * 448 / amax` (1 when amax is 0 or S_enc underflows to 0);
    - per block: `s_b = e4m3_rn_satfinite(block_amax * (S_enc / 6))`;
    - per element: `q = e2m1(x * (1 / (s_b * (1 / S_enc))))`, rounded as
      `rounding` says; the tensor carries `amax` (as Transformer Engine's
      tensors do), from which dequantization and matmuls rescale.

    With `rounding rs` (stochastic), the random bits of the element at
    row-major linear index `i` come from Philox4x32-10 keyed by `seed`
    (operand, 0 when absent) at counter `offset + i / 16`; `offset` is then
    required. Distinct stochastic quantizations should use disjoint counter
    ranges (`nvfp4-assign-rounding` assigns them).

    On sm_100a/sm_103a/sm_120a/sm_121a the conversion maps to
    `cvt.rn.satfinite.e2m1x2.f32`, and for `rs` on sm_100a/sm_103a to
    `cvt.rs.satfinite.e2m1x4.f32`.

    A result in an MX format (`mxfp4`, `mxfp8_e4m3`, `mxfp8_e5m2`) is
    quantized as the OCP MX specification v1.0 says: each block of 32
    elements gets the E8M0 scale `X = 2^(floor(log2(block_amax)) - emax_elem)`
    and each element `elem_rn_satfinite(x / X)` (docs/numerics.md §13). MX
    quantization has no tensor amax, so it takes no `amax` operand, and it
    rounds to nearest even without a Hadamard transform (apply
    `nvfp4.hadamard` first for one).

    Example:

    ```mlir
    %w = nvfp4.quantize %w32 : tensor<4096x4096xf32> -> !nvfp4.tensor<4096x4096, 16x16>
    %g = nvfp4.quantize %dy rounding rs seed %s offset 0 hadamard
           [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1]
           : tensor<4096x2048xbf16> -> !nvfp4.tensor<4096x2048, 1x16>
    %m = nvfp4.quantize %x : tensor<128x4096xbf16>
           -> !nvfp4.tensor<128x4096, 1x32, mxfp8_e4m3>
    ```
  }];
  let arguments = (ins NVFP4_HighPrecisionTensor:$input,
                       Optional<F32>:$amax,
                       Optional<I64>:$seed,
                       DefaultValuedAttr<NVFP4_RoundingAttr,
                         "::mlir::nvfp4::Rounding::NearestEven">:$rounding,
                       OptionalAttr<I64Attr>:$offset,
                       OptionalAttr<DenseI8ArrayAttr>:$hadamard);
  let results = (outs NVFP4_TensorType:$result);
  let assemblyFormat = [{
    $input (`amax` $amax^)? (`rounding` `` $rounding^)? (`seed` $seed^)?
    (`offset` $offset^)? (`hadamard` $hadamard^)? attr-dict
    `:` type($input) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// AmaxOp
//===----------------------------------------------------------------------===//

def NVFP4_AmaxOp : NVFP4_Op<"amax", [Pure]> {
  let summary = "the maximum magnitude of a floating-point tensor";
  let description = [{
    Returns `max |x|` over every element of `input` (read as f32, exactly),
    ignoring NaN elements; 0 when there is no other element. It is the
    tensor amax `nvfp4.quantize` computes when it has no `amax` operand and
    no Hadamard transform, with the same input rules: rank >= 1 and a last
    dimension that is a multiple of 16 (a run-time size is checked when the
    op runs).

    With delayed scaling, a step quantizes a tensor with the amax of an
    earlier step and records the tensor's own amax for the next one:

    ```mlir
    %y = nvfp4.matmul %a, %b : !nvfp4.tensor<256x1024, 1x16>,
           !nvfp4.tensor<512x1024, 16x16> -> tensor<256x512xbf16>
    %q = nvfp4.quantize %y amax %previous
           : tensor<256x512xbf16> -> !nvfp4.tensor<256x512, 1x16>
    %next = nvfp4.amax %y : tensor<256x512xbf16>
    ```

    On sm_100a / sm_103a / sm_110a the amax of a matmul result is computed
    in the tcgen05 kernel's epilogue, with or without a fused quantization.
  }];
  let arguments = (ins NVFP4_HighPrecisionTensor:$input);
  let results = (outs F32:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

def NVFP4_DequantizeOp : NVFP4_Op<"dequantize", [Pure]> {
  let summary = "dequantize an NVFP4 tensor to a floating-point tensor";
  let description = [{
    Returns `e2m1(q) * ((e4m3(s_b) * amax) * fl(1 / (6 * 448)))` for every
    element, computed in f32 in that order (Transformer Engine's
    `dequantize_fp4_kernel`) and rounded to the result element type, where
    `amax` is the tensor amax the input carries. For an input with a `decode`
    tensor scale `d` it is `e2m1(q) * (e4m3(s_b) * d)` (Model Optimizer's
    order). An MX input gives `elem(q) * 2^(e8m0(s_b) - 127)`, computed
    exactly in f32 (NaN for the NaN scale 0xFF). The result has the shape
    of the input.

    Example:

    ```mlir
    %x = nvfp4.dequantize %q : !nvfp4.tensor<128x64, 1x16> -> tensor<128x64xf32>
    %y = nvfp4.dequantize %m : !nvfp4.tensor<128x64, 1x32, mxfp4>
           -> tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins NVFP4_TensorType:$input);
  let results = (outs NVFP4_HighPrecisionTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` qualified(type($input)) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

def NVFP4_MatmulOp : NVFP4_Op<"matmul", [Pure]> {
  let summary = "block-scaled matmul: C = A * B^T (+ acc), both operands K-major";
  let description = [{
    Multiplies `lhs` [M, K] by the transpose of `rhs` [N, K] (both operands
    are stored with the contraction dimension K innermost, as the hardware
    requires), giving [M, N]; with a leading batch dimension both operands are
    [B, M, K] and [B, N, K] and the result is [B, M, N]. The block scales of
    both operands multiply each 16-wide K block's partial products,
    accumulation is in f32, and the sum is multiplied by
    `alpha = (amax_lhs * amax_rhs) * fl(1 / (6 * 6 * 448 * 448))` (Transformer
    Engine's per-tensor GEMM scale); `acc`, when present, is added to the
    result. A bf16 result is the f32 result rounded to nearest even. When an
    operand has a `decode` tensor scale, `alpha = d_lhs * d_rhs` with each
    decode scale `d` either the operand's own or `amax * fl(1 / (6 * 448))`
    (vLLM's `input_scale * weight_scale_2` for two decode scales).

    Both operands are NVFP4, or both are MX: `mxfp4` with `mxfp4`, or any
    mix of `mxfp4`, `mxfp8_e4m3` and `mxfp8_e5m2` (the hardware's
    `kind::mxf8f6f4`). An MX GEMM sums each 32-wide K block's products
    exactly, scales the block's f32 partial sum by `2^(eA + eB)` and
    accumulates the blocks in f32 in increasing K (docs/numerics.md §13);
    there is no `alpha`.

    On sm_100a/sm_103a/sm_110a NVFP4 is
    `tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16`; on
    sm_120a/sm_121a `mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.
    block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3`.

    Example:

    ```mlir
    %y = nvfp4.matmul %x, %w : !nvfp4.tensor<128x4096, 1x16>,
           !nvfp4.tensor<14336x4096, 16x16> -> tensor<128x14336xbf16>
    %z = nvfp4.matmul %x, %w acc(%c : tensor<128x14336xf32>)
           : !nvfp4.tensor<128x4096, 1x16>, !nvfp4.tensor<14336x4096, 16x16>
           -> tensor<128x14336xf32>
    %m = nvfp4.matmul %xm, %wm : !nvfp4.tensor<128x4096, 1x32, mxfp8_e4m3>,
           !nvfp4.tensor<14336x4096, 1x32, mxfp4> -> tensor<128x14336xbf16>
    ```
  }];
  let arguments = (ins NVFP4_TensorType:$lhs, NVFP4_TensorType:$rhs,
                       Optional<NVFP4_MatmulResultTensor>:$acc);
  let results = (outs NVFP4_MatmulResultTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`acc` `(` $acc^ `:` type($acc) `)`)? attr-dict
    `:` qualified(type($lhs)) `,` qualified(type($rhs)) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// HadamardOp
//===----------------------------------------------------------------------===//

def NVFP4_HadamardOp : NVFP4_Op<"hadamard",
    [Pure, SameOperandsAndResultType]> {
  let summary = "16x16 random Hadamard transform along the last dimension";
  let description = [{
    Replaces every group of 16 consecutive elements `x` of the last dimension
    by `H x`, `H = (1/4) H16 diag(signs)` with `H16` the Sylvester-ordered
    Hadamard matrix (`H16[i][j] = (-1)^popcount(i & j)`). `H` is orthonormal,
    so applying it to both operands of a contraction along the contraction
    dimension leaves the product unchanged in exact arithmetic while spreading
    outliers across the block. `signs` defaults to Transformer Engine's
    vector `[1,1,1,-1,1,-1,-1,-1,-1,-1,-1,1,-1,1,-1,-1]`. The evaluation
    order is fixed (docs/numerics.md), so every lowering is bit-exact.

    Example:

    ```mlir
    %y = nvfp4.hadamard %x : tensor<4096x2048xbf16>
    %z = nvfp4.hadamard %x signs [1, -1, 1, -1, 1, -1, 1, -1,
                                           1, -1, 1, -1, 1, -1, 1, -1]
           : tensor<64x32xf32>
    ```
  }];
  let arguments = (ins NVFP4_HighPrecisionTensor:$input,
                       OptionalAttr<DenseI8ArrayAttr>:$signs);
  let results = (outs NVFP4_HighPrecisionTensor:$result);
  let assemblyFormat = [{
    $input (`signs` $signs^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The sign vector, defaulted.
    ::llvm::SmallVector<int8_t> getSignsOrDefault();
  }];
}

//===----------------------------------------------------------------------===//
// RescaleOp
//===----------------------------------------------------------------------===//

def NVFP4_RescaleOp : NVFP4_Op<"rescale", [Pure, AttrSizedOperandSegments]> {
  let summary = "re-quantize an NVFP4 tensor to a new tensor scale or block layout";
  let description = [{
    Equivalent to `nvfp4.quantize` of `nvfp4.dequantize(input)` to f32: the
    tensor is re-encoded against a new per-tensor scale (from the `amax`
    operand, or recomputed) and the block layout of the result type, with
    the given rounding. Use it to move a 1x16 tensor to 16x16 scales, or to
    rescale a tensor to an amax observed elsewhere (delayed scaling).
    Shapes must match, and both types are NVFP4 (for an MX tensor,
    dequantize and quantize).

    Example:

    ```mlir
    %r = nvfp4.rescale %q amax %a : !nvfp4.tensor<64x64, 1x16>
           -> !nvfp4.tensor<64x64, 16x16>
    ```
  }];
  let arguments = (ins NVFP4_TensorType:$input,
                       Optional<F32>:$amax,
                       Optional<I64>:$seed,
                       DefaultValuedAttr<NVFP4_RoundingAttr,
                         "::mlir::nvfp4::Rounding::NearestEven">:$rounding,
                       OptionalAttr<I64Attr>:$offset);
  let results = (outs NVFP4_TensorType:$result);
  let assemblyFormat = [{
    $input (`amax` $amax^)? (`rounding` `` $rounding^)? (`seed` $seed^)?
    (`offset` $offset^)? attr-dict
    `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

def NVFP4_TransposeOp : NVFP4_Op<"transpose", [Pure]> {
  let summary = "exact transpose of a 16x16-scaled NVFP4 tensor";
  let description = [{
    Swaps the two innermost dimensions of a tensor with `16x16` block scales,
    moving codes and tile scales without re-quantization. Because every
    element of a tile shares one scale, the result equals quantizing the
    transposed high-precision tensor: the forward (W) and backward (Wᵀ)
    GEMMs see the same weight. 1x16 tensors cannot be transposed exactly and
    are rejected.

    Example:

    ```mlir
    %wt = nvfp4.transpose %w : !nvfp4.tensor<4096x14336, 16x16>
            -> !nvfp4.tensor<14336x4096, 16x16>
    ```
  }];
  let arguments = (ins NVFP4_TensorType:$input);
  let results = (outs NVFP4_TensorType:$result);
  let assemblyFormat = [{
    $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// AssembleOp / DisassembleOp
//===----------------------------------------------------------------------===//

def NVFP4_AssembleOp : NVFP4_Op<"assemble", [Pure]> {
  let summary = "build a block-scaled tensor from its data, scales and tensor scale";
  let description = [{
    Packs E2M1 `data`, E4M3 `scales` (one per block, compact: [.., M/16, K/16]
    for 16x16) and the f32 tensor `amax` the scales were derived from
    (`S_enc = 6 * 448 / amax`) into an NVFP4 tensor. When the result type
    has a `decode` tensor scale, the f32 operand is that decode scale
    instead: this is how weights that another tool quantized (Model
    Optimizer's `weight`, `weight_scale` and `weight_scale_2`) enter a
    program. An MX result has no tensor scale and takes only the data and
    its E8M0 scales. The component types must be those the result type
    implies (see `!nvfp4.tensor`).

    Example:

    ```mlir
    %q = nvfp4.assemble %d, %s, %amax : tensor<32x64xf4E2M1FN>,
           tensor<32x4xf8E4M3FN> -> !nvfp4.tensor<32x64, 1x16>
    %w = nvfp4.assemble %wd, %ws, %ws2 : tensor<64x64xf4E2M1FN>,
           tensor<64x4xf8E4M3FN> -> !nvfp4.tensor<64x64, 1x16, decode>
    %m = nvfp4.assemble %md, %ms : tensor<32x64xf8E4M3FN>,
           tensor<32x2xf8E8M0FNU> -> !nvfp4.tensor<32x64, 1x32, mxfp8_e4m3>
    ```
  }];
  let arguments = (ins NVFP4_DataTensor:$data,
                       NVFP4_ScalesTensor:$scales,
                       Optional<F32>:$amax);
  let results = (outs NVFP4_TensorType:$result);
  let assemblyFormat = [{
    $data `,` $scales (`,` $amax^)? attr-dict `:` type($data) `,`
    type($scales) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def NVFP4_DisassembleOp : NVFP4_Op<"disassemble",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "take a block-scaled tensor apart into data, scales and tensor scale";
  let description = [{
    The inverse of `nvfp4.assemble`: returns the data, the compact block
    scales and, for NVFP4, the f32 tensor scale (an MX tensor has none).
    Result types follow from the input type.

    Example:

    ```mlir
    %d, %s, %amax = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 16x16>
    // %d: tensor<32x64xf4E2M1FN>, %s: tensor<2x4xf8E4M3FN>, %amax: f32
    %md, %ms = nvfp4.disassemble %m : !nvfp4.tensor<32x64, 1x32, mxfp4>
    // %md: tensor<32x64xf4E2M1FN>, %ms: tensor<32x2xf8E8M0FNU>
    ```
  }];
  let arguments = (ins NVFP4_TensorType:$input);
  let results = (outs NVFP4_DataTensor:$data,
                      NVFP4_ScalesTensor:$scales,
                      Optional<F32>:$amax);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input))";
  let hasFolder = 1;
}

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4OPS_TD
