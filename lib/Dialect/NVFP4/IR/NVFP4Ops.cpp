//===- NVFP4Ops.cpp - NVFP4 operations ------------------------------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::nvfp4;

//===----------------------------------------------------------------------===//
// Shared verification helpers
//===----------------------------------------------------------------------===//

/// Verifies that the static shaped `type` of the operand or result `name`
/// has an element count and byte size that fit in int64_t, so that every
/// lowering's index arithmetic on it is exact.
static LogicalResult verifySizeRepresentable(Operation *op, ShapedType type,
                                             StringRef name) {
  if (!type.hasStaticShape())
    return success();
  int64_t bits = isa<NVFP4TensorType>(type)
                     ? getElementBits(cast<NVFP4TensorType>(type).getFormat())
                     : type.getElementType().getIntOrFloatBitWidth();
  if (!getCheckedByteSize(type.getShape(), bits))
    return op->emitOpError()
           << name << " shape " << formatShape(type.getShape())
           << " has more elements or bytes than a 64-bit index can count";
  return success();
}

/// Verifies a Hadamard sign vector: 16 entries, each +1 or -1.
static LogicalResult verifyHadamardSigns(Operation *op,
                                         std::optional<ArrayRef<int8_t>> signs,
                                         StringRef name) {
  if (!signs)
    return success();
  if (signs->size() != kBlockSize)
    return op->emitOpError() << "'" << name << "' must have 16 entries, got "
                             << signs->size();
  for (int8_t sign : *signs)
    if (sign != 1 && sign != -1)
      return op->emitOpError()
             << "'" << name << "' entries must be 1 or -1, got " << int(sign);
  return success();
}

/// Verifies the (rounding, seed, offset) triple shared by quantize and
/// rescale: stochastic rounding needs a counter offset; round-to-nearest
/// takes neither seed nor offset.
static LogicalResult verifyRounding(Operation *op, Rounding rounding,
                                    Value seed, std::optional<int64_t> offset) {
  if (rounding == Rounding::Stochastic) {
    if (!offset)
      return op->emitOpError()
             << "stochastic rounding requires an 'offset' (the Philox "
                "counter of the first block)";
    if (*offset < 0)
      return op->emitOpError() << "'offset' must be non-negative, got "
                               << *offset;
    return success();
  }
  if (seed || offset)
    return op->emitOpError()
           << "'seed' and 'offset' are only valid with stochastic rounding";
  return success();
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

LogicalResult QuantizeOp::verify() {
  auto inputType = getInput().getType();
  NVFP4TensorType resultType = getResult().getType();
  if (inputType.getShape() != resultType.getShape())
    return emitOpError() << "input shape " << formatShape(inputType.getShape())
                         << " does not match result shape "
                         << formatShape(resultType.getShape());
  if (resultType.hasDecodeScale())
    return emitOpError() << "result must carry an amax: quantization derives "
                            "its scales from the tensor amax and cannot "
                            "produce a `decode` tensor ("
                         << resultType << ")";
  if (failed(verifySizeRepresentable(*this, inputType, "input")))
    return failure();
  if (!resultType.isNVFP4()) {
    StringRef format = stringifyFormat(resultType.getFormat());
    if (getAmax())
      return emitOpError() << "an " << format
                           << " result has no tensor scale and takes no "
                              "'amax' operand";
    if (getRounding() != Rounding::NearestEven)
      return emitOpError() << "an " << format
                           << " result is rounded to nearest even; "
                              "stochastic rounding is NVFP4 only";
    if (getHadamard())
      return emitOpError() << "an " << format
                           << " result takes no fused 'hadamard'; apply "
                              "nvfp4.hadamard to the input first";
  }
  if (failed(verifyRounding(*this, getRounding(), getSeed(), getOffset())))
    return failure();
  return verifyHadamardSigns(*this, getHadamard(), "hadamard");
}

/// quantize(dequantize(q)) -> q when the quantize re-derives the same
/// encoding: same type, round-to-nearest, no Hadamard, no explicit amax, and
/// an f32 dequantization (a narrower one would round the values first).
/// Re-quantizing a dequantized NVFP4 tensor reproduces its codes and block
/// scales byte for byte whenever every block scale is a normal E4M3 value,
/// while the recomputed decode scale may differ from the original by one ulp
/// (docs/numerics.md); for blocks with subnormal scales the folded program
/// keeps the original, more accurate encoding. MX tensors are not folded: a
/// block whose largest element is below the format's largest binade gets a
/// smaller shared scale when re-quantized. The lossy dequantize(quantize(x))
/// is never folded.
OpFoldResult QuantizeOp::fold(FoldAdaptor) {
  auto dequantize = getInput().getDefiningOp<DequantizeOp>();
  if (!dequantize || dequantize.getInput().getType() != getType() ||
      !getType().isNVFP4())
    return {};
  if (!dequantize.getType().getElementType().isF32())
    return {};
  if (getRounding() != Rounding::NearestEven || getHadamard() || getAmax())
    return {};
  return dequantize.getInput();
}

namespace {
/// quantize(hadamard(x)) -> quantize(x) hadamard [signs] when the transform
/// has no other user, so that lowerings fuse the transform into the
/// quantization kernel. The two forms are defined to be bit-identical.
struct FuseHadamardIntoQuantize : public OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getHadamard())
      return rewriter.notifyMatchFailure(op, "already has a Hadamard");
    if (!op.getType().isNVFP4())
      return rewriter.notifyMatchFailure(op, "MX quantization has no fused "
                                             "Hadamard");
    auto hadamard = op.getInput().getDefiningOp<HadamardOp>();
    if (!hadamard || !hadamard->hasOneUse())
      return rewriter.notifyMatchFailure(op, "input is not a single-use "
                                             "nvfp4.hadamard");
    SmallVector<int8_t> signs = hadamard.getSignsOrDefault();
    rewriter.modifyOpInPlace(op, [&] {
      op.getInputMutable().assign(hadamard.getInput());
      op.setHadamard(signs);
    });
    rewriter.eraseOp(hadamard);
    return success();
  }
};

/// quantize(x) -> quantize(x) amax %a when `%a = nvfp4.amax x` precedes the
/// quantization in its block and it has no Hadamard transform: %a is, by
/// definition, the tensor amax the quantization would compute, so lowerings
/// reduce the input once instead of twice.
struct UseComputedAmax : public OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getAmax() || op.getHadamard() || !op.getType().isNVFP4())
      return rewriter.notifyMatchFailure(
          op, "has an amax operand, transforms its input or is MX");
    AmaxOp earliest;
    for (Operation *user : op.getInput().getUsers()) {
      auto amax = dyn_cast<AmaxOp>(user);
      if (!amax || amax->getBlock() != op->getBlock() ||
          !amax->isBeforeInBlock(op))
        continue;
      if (!earliest || amax->isBeforeInBlock(earliest))
        earliest = amax;
    }
    if (!earliest)
      return rewriter.notifyMatchFailure(
          op, "no nvfp4.amax of the input before it in its block");
    rewriter.modifyOpInPlace(
        op, [&] { op.getAmaxMutable().assign(earliest.getResult()); });
    return success();
  }
};
} // namespace

void QuantizeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<FuseHadamardIntoQuantize, UseComputedAmax>(context);
}

//===----------------------------------------------------------------------===//
// AmaxOp
//===----------------------------------------------------------------------===//

LogicalResult AmaxOp::verify() {
  RankedTensorType inputType = getInput().getType();
  if (inputType.getRank() < 1)
    return emitOpError() << "input must have rank >= 1, got " << inputType;
  // A run-time last dimension is checked when the op runs.
  if (!inputType.isDynamicDim(inputType.getRank() - 1) &&
      inputType.getShape().back() % kBlockSize != 0)
    return emitOpError() << "input's last dimension must be a multiple of "
                         << kBlockSize << " (as nvfp4.quantize reads it), got "
                         << inputType.getShape().back();
  return verifySizeRepresentable(*this, inputType, "input");
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

LogicalResult DequantizeOp::verify() {
  NVFP4TensorType inputType = getInput().getType();
  auto resultType = getResult().getType();
  if (inputType.getShape() != resultType.getShape())
    return emitOpError() << "result shape "
                         << formatShape(resultType.getShape())
                         << " does not match input shape "
                         << formatShape(inputType.getShape());
  return verifySizeRepresentable(*this, resultType, "result");
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  NVFP4TensorType lhsType = getLhs().getType();
  NVFP4TensorType rhsType = getRhs().getType();
  if (lhsType.isNVFP4() != rhsType.isNVFP4())
    return emitOpError() << "operands must both be NVFP4 or both MX, got "
                         << stringifyFormat(lhsType.getFormat()) << " and "
                         << stringifyFormat(rhsType.getFormat())
                         << " (no instruction mixes E4M3 and E8M0 block "
                            "scales)";
  ArrayRef<int64_t> lhs = lhsType.getShape();
  ArrayRef<int64_t> rhs = rhsType.getShape();
  ArrayRef<int64_t> result = getResult().getType().getShape();
  if (lhs.size() != rhs.size())
    return emitOpError() << "operands must have the same rank, got "
                         << lhs.size() << " and " << rhs.size();
  if (lhs.size() != 2 && lhs.size() != 3)
    return emitOpError() << "operands must be [M, K] and [N, K], or batched "
                            "[B, M, K] and [B, N, K]; got rank "
                         << lhs.size();
  size_t rank = lhs.size();
  if (lhs.back() != rhs.back())
    return emitOpError() << "contraction dimensions differ: lhs K = "
                         << lhs.back() << ", rhs K = " << rhs.back()
                         << " (both operands are K-major)";
  if (rank == 3 && lhs[0] != rhs[0])
    return emitOpError() << "batch dimensions differ: " << lhs[0] << " and "
                         << rhs[0];
  SmallVector<int64_t> expected(lhs.drop_back());
  expected.push_back(rhs[rank - 2]);
  if (result != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape " << formatShape(result)
                         << " does not match the expected "
                         << formatShape(expected);
  if (getAcc() && getAcc().getType() != getResult().getType())
    return emitOpError() << "accumulator type " << getAcc().getType()
                         << " does not match result type "
                         << getResult().getType();
  return verifySizeRepresentable(*this, getResult().getType(), "result");
}

//===----------------------------------------------------------------------===//
// HadamardOp
//===----------------------------------------------------------------------===//

LogicalResult HadamardOp::verify() {
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (shape.empty())
    return emitOpError() << "input must have rank >= 1";
  // A run-time last dimension is checked when the op runs.
  if (!ShapedType::isDynamic(shape.back()) && shape.back() % kBlockSize != 0)
    return emitOpError() << "last dimension must be a multiple of 16, got "
                         << shape.back();
  if (failed(verifySizeRepresentable(*this, getInput().getType(), "input")))
    return failure();
  return verifyHadamardSigns(*this, getSigns(), "signs");
}

SmallVector<int8_t> HadamardOp::getSignsOrDefault() {
  if (std::optional<ArrayRef<int8_t>> signs = getSigns())
    return SmallVector<int8_t>(*signs);
  return SmallVector<int8_t>(getDefaultHadamardSigns());
}

//===----------------------------------------------------------------------===//
// RescaleOp
//===----------------------------------------------------------------------===//

LogicalResult RescaleOp::verify() {
  for (NVFP4TensorType type : {getInput().getType(), getResult().getType()})
    if (!type.isNVFP4())
      return emitOpError() << "rescales NVFP4 tensors only, got " << type
                           << "; dequantize and quantize an MX tensor";
  if (getInput().getType().getShape() != getResult().getType().getShape())
    return emitOpError() << "input shape "
                         << formatShape(getInput().getType().getShape())
                         << " does not match result shape "
                         << formatShape(getResult().getType().getShape());
  if (getResult().getType().hasDecodeScale())
    return emitOpError() << "result must carry an amax: rescaling derives its "
                            "scales from the tensor amax and cannot produce a "
                            "`decode` tensor ("
                         << getResult().getType() << ")";
  return verifyRounding(*this, getRounding(), getSeed(), getOffset());
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  NVFP4TensorType inputType = getInput().getType();
  NVFP4TensorType resultType = getResult().getType();
  if (!inputType.getBlock().is2D())
    return emitOpError() << "only tensors with 16x16 block scales can be "
                            "transposed exactly; 1x16 and 1x32 scales run "
                            "along the other dimension";
  if (resultType.getBlock() != inputType.getBlock())
    return emitOpError() << "result must keep 16x16 block scales";
  if (resultType.getTensorScale() != inputType.getTensorScale())
    return emitOpError() << "result must keep the input's tensor scale kind ("
                         << stringifyTensorScaleKind(inputType.getTensorScale())
                         << ")";
  SmallVector<int64_t> expected(inputType.getShape());
  std::swap(expected[expected.size() - 1], expected[expected.size() - 2]);
  if (resultType.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape "
                         << formatShape(resultType.getShape())
                         << " is not the input shape with the two innermost "
                            "dimensions swapped ("
                         << formatShape(expected) << ")";
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<TransposeOp>())
    return inner.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// AssembleOp
//===----------------------------------------------------------------------===//

LogicalResult AssembleOp::verify() {
  NVFP4TensorType resultType = getResult().getType();
  auto dataType = getData().getType();
  auto scalesType = getScales().getType();
  if (dataType.getShape() != resultType.getShape())
    return emitOpError() << "data shape " << formatShape(dataType.getShape())
                         << " does not match result shape "
                         << formatShape(resultType.getShape());
  if (scalesType.getShape() != ArrayRef<int64_t>(resultType.getScalesShape()))
    return emitOpError() << "scales shape "
                         << formatShape(scalesType.getShape())
                         << " does not match the expected "
                         << formatShape(resultType.getScalesShape())
                         << " for block " << resultType.getBlock();
  StringRef format = stringifyFormat(resultType.getFormat());
  if (dataType.getElementType() != resultType.getElementType())
    return emitOpError() << "data element type " << dataType.getElementType()
                         << " is not the " << format << " element type "
                         << resultType.getElementType();
  Type scaleType = resultType.getScalesType().getElementType();
  if (scalesType.getElementType() != scaleType)
    return emitOpError() << "scales element type "
                         << scalesType.getElementType() << " is not the "
                         << format << " scale type " << scaleType;
  if (resultType.hasTensorScale() && !getAmax())
    return emitOpError() << "an " << format
                         << " result needs its f32 tensor scale operand";
  if (!resultType.hasTensorScale() && getAmax())
    return emitOpError() << "an " << format
                         << " result has no tensor scale operand";
  return success();
}

/// assemble(disassemble(q)) -> q.
OpFoldResult AssembleOp::fold(FoldAdaptor) {
  auto disassemble = getData().getDefiningOp<DisassembleOp>();
  if (!disassemble || disassemble.getData() != getData() ||
      disassemble.getScales() != getScales() ||
      disassemble.getAmax() != getAmax() ||
      disassemble.getInput().getType() != getType())
    return {};
  return disassemble.getInput();
}

//===----------------------------------------------------------------------===//
// DisassembleOp
//===----------------------------------------------------------------------===//

LogicalResult DisassembleOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location,
    DisassembleOp::Adaptor adaptor, SmallVectorImpl<Type> &inferredReturnTypes) {
  auto type = dyn_cast<NVFP4TensorType>(adaptor.getInput().getType());
  if (!type)
    return emitOptionalError(location, "expected an NVFP4 tensor operand");
  inferredReturnTypes.push_back(type.getDataType());
  inferredReturnTypes.push_back(type.getScalesType());
  if (type.hasTensorScale())
    inferredReturnTypes.push_back(Float32Type::get(context));
  return success();
}

/// disassemble(assemble(d, s, g)) -> d, s, g.
LogicalResult DisassembleOp::fold(FoldAdaptor,
                                  SmallVectorImpl<OpFoldResult> &results) {
  auto assemble = getInput().getDefiningOp<AssembleOp>();
  if (!assemble)
    return failure();
  results.push_back(assemble.getData());
  results.push_back(assemble.getScales());
  if (Value amax = assemble.getAmax())
    results.push_back(amax);
  return success();
}

#define GET_OP_CLASSES
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Ops.cpp.inc"
