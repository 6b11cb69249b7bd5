//===- LoweringUtils.h - Tensor helpers of the CPU lowerings ----*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Conversion/NVFP4ToReference: the tensor reshapes, element
// maps and contractions that both lowerings of the nvfp4 ops (inline
// numerics, NVFP4ToReference.cpp; calls of the precompiled kernels,
// LibraryCallLowering.cpp) build around their numerics.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_CONVERSION_NVFP4TOREFERENCE_LOWERINGUTILS_H
#define NVFP4_LIB_CONVERSION_NVFP4TOREFERENCE_LOWERINGUTILS_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "mlir/Transforms/DialectConversion.h"

#include <optional>
#include <type_traits>

namespace mlir {
class RewritePatternSet;
namespace nvfp4 {
namespace reference {

/// What quantizing a tensor needs besides the input (nvfp4.quantize's and
/// nvfp4.rescale's attributes and operands), in both lowerings.
struct QuantizeParams {
  int64_t blockRows = 1;
  Rounding rounding = Rounding::NearestEven;
  Value seed; // i64; 0 when null
  int64_t offset = 0;
  std::optional<SmallVector<int8_t>> hadamard;
  Value amax; // f32; computed when null
};

/// The single value of a 1:1-converted operand.
Value single(ValueRange values);

/// The quantization parameters of a quantize or rescale op (its converted
/// `amax` and `seed` operands from `adaptor`).
template <typename OpTy, typename AdaptorTy>
QuantizeParams getQuantizeParams(OpTy op, AdaptorTy adaptor) {
  QuantizeParams p;
  p.blockRows = op.getType().getBlock().getRows();
  p.rounding = op.getRounding();
  p.seed = op.getSeed() ? single(adaptor.getSeed()) : Value();
  p.offset = op.getOffset().value_or(0);
  p.amax = op.getAmax() ? single(adaptor.getAmax()) : Value();
  if constexpr (std::is_same_v<OpTy, QuantizeOp>)
    if (auto signs = op.getHadamard())
      p.hadamard = SmallVector<int8_t>(*signs);
  return p;
}

/// The [B, M, N] f32 product of the components of `a` and `b` (block rows
/// `ra` and `rb`), plus `accIn` ([B, M, N] f32) when not null.
using MatmulEmitter = function_ref<Value(
    ValueRange a, ValueRange b, int64_t ra, int64_t rb, Value accIn)>;

/// Replaces `op` by `emit`'s product, the acc operand widened to f32 and
/// given a batch dimension before, the batch dimension dropped and the
/// result rounded to the result type after: what both lowerings of
/// nvfp4.matmul share.
void lowerMatmul(MatmulOp op,
                 MatmulOpGenericAdaptor<ArrayRef<ValueRange>> adaptor,
                 ConversionPatternRewriter &rewriter, MatmulEmitter emit);

Value indexConst(OpBuilder &b, Location loc, int64_t v);

/// The ranked tensor type of `sizes` (static where a size is an attribute).
RankedTensorType getTensorType(ArrayRef<OpFoldResult> sizes, Type elementType);

/// The sizes of the block scales of a tensor of blocks `block` whose data
/// has `sizes`: the last size divided by the block's columns, and for 16x16
/// blocks the second-to-last by 16.
SmallVector<OpFoldResult> getScalesSizes(OpBuilder &b, Location loc,
                                         ArrayRef<OpFoldResult> sizes,
                                         BlockAttr block);

/// Views `t` (rank >= 1) as a 2D [rows, cols] tensor: the leading dimensions
/// collapsed into rows, rank 1 as one row.
Value to2D(OpBuilder &b, Location loc, Value t);

/// Inverse of `to2D`: reshapes the 2D tensor `t` to `sizes` (keeping its
/// element type).
Value from2D(OpBuilder &b, Location loc, Value t, ArrayRef<OpFoldResult> sizes);

/// Applies `body` (one scalar in, one scalar of `elementType` out) to every
/// element of `t` with a linalg.generic.
Value mapElements(OpBuilder &b, Location loc, Value t, Type elementType,
                  function_ref<Value(OpBuilder &, Location, Value)> body);

/// Converts a floating-point tensor to `elementType` (extf / truncf, round
/// to nearest even); returns `t` when it already has that element type.
Value castElements(OpBuilder &b, Location loc, Value t, Type elementType);

/// Converts an f32 scalar to `elementType` (f32, bf16 or f16).
Value castScalar(OpBuilder &b, Location loc, Value x, Type elementType);

/// Views a tensor of rank >= 2 as [batch, rows, cols]: a leading unit
/// dimension added to a rank-2 tensor, the dimensions before the last two
/// collapsed for rank > 3.
Value addBatchDim(OpBuilder &b, Location loc, Value t);

/// Views the [batch, rows, cols] tensor `t` as `sizes` (rank >= 2), undoing
/// `addBatchDim`.
Value dropBatchDim(OpBuilder &b, Location loc, Value t,
                   ArrayRef<OpFoldResult> sizes);

/// C[b, i, j] = accIn[b, i, j] (or 0) + sum_k A[b, i, k] * B[b, j, k] for f32
/// A [B, M, K] and B [B, N, K], as a linalg.generic (an ordinary f32
/// contraction: one multiply and one add per term, in increasing k).
Value emitBatchedContraction(OpBuilder &b, Location loc, Value lhs, Value rhs,
                             Value accIn);

/// The names of libnvfp4_cpu_runtime's entry points the library-call
/// patterns declare (reserved in modules lowered with kernels=library).
ArrayRef<StringLiteral> getLibraryCallNames();

/// Adds the patterns lowering quantize, amax, dequantize, hadamard, rescale
/// and matmul to calls of libnvfp4_cpu_runtime (LibraryCallLowering.cpp).
void populateLibraryCallPatterns(const TypeConverter &typeConverter,
                                 RewritePatternSet &patterns, bool fakeQuant);

} // namespace reference
} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_LIB_CONVERSION_NVFP4TOREFERENCE_LOWERINGUTILS_H
