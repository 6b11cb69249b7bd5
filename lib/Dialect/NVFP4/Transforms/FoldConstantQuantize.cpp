//===- FoldConstantQuantize.cpp - Constant quantizations at compile time --===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Replaces nvfp4.quantize of constants by nvfp4.assemble of constant
// components computed with the reference numerics library (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Dialect/NVFP4/Utils/MXElementType.h"
#include "nvfp4/Numerics/MX.h"
#include "nvfp4/Numerics/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4FOLDCONSTANTQUANTIZE
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

/// A tensor of `shape` x `elementType` holding one byte per element, the
/// element's bits in the low bits (the storage of f4E2M1FN and f8E4M3FN
/// dense elements).
DenseElementsAttr bytesAttr(ArrayRef<int64_t> shape, Type elementType,
                            ArrayRef<uint8_t> bytes) {
  auto type = RankedTensorType::get(shape, elementType);
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(reinterpret_cast<const char *>(bytes.data()),
                           bytes.size()));
}

/// The elements of the constant tensor `value`, row-major, as f32 (bf16
/// and f16 widen exactly): an `arith.constant`, or a `tensor.pad` with
/// static sizes and a constant padding value of such a tensor (the recipe
/// zero-pads K to whole blocks). Fails when `value` is not constant.
LogicalResult getConstantValues(Value value, std::vector<float> &values) {
  auto toFloat = [](APFloat v) {
    bool losesInfo;
    v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &losesInfo);
    return v.convertToFloat();
  };
  DenseElementsAttr constant;
  if (matchPattern(value, m_Constant(&constant))) {
    values.clear();
    values.reserve(constant.getNumElements());
    for (APFloat v : constant.getValues<APFloat>())
      values.push_back(toFloat(v));
    return success();
  }
  auto pad = value.getDefiningOp<tensor::PadOp>();
  FloatAttr padValue;
  if (!pad || !pad.getResultType().hasStaticShape() ||
      !pad.getSourceType().hasStaticShape() || !pad.getLow().empty() ||
      !pad.getHigh().empty() || !pad.getConstantPaddingValue() ||
      !matchPattern(pad.getConstantPaddingValue(), m_Constant(&padValue)))
    return failure();
  std::vector<float> source;
  if (failed(getConstantValues(pad.getSource(), source)))
    return failure();
  ArrayRef<int64_t> from = pad.getSourceType().getShape();
  ArrayRef<int64_t> to = pad.getResultType().getShape();
  ArrayRef<int64_t> low = pad.getStaticLow();
  values.assign(pad.getResultType().getNumElements(),
                toFloat(padValue.getValue()));
  // Each source element to its place, shifted by the low padding.
  for (int64_t i = 0, e = static_cast<int64_t>(source.size()); i < e; ++i) {
    int64_t rest = i, index = 0, stride = 1;
    for (int64_t d = static_cast<int64_t>(from.size()) - 1; d >= 0; --d) {
      index += (rest % from[d] + low[d]) * stride;
      rest /= from[d];
      stride *= to[d];
    }
    values[index] = source[i];
  }
  return success();
}

/// Replaces the MX quantization `op` of the constant `values` by the
/// assembled constant components.
LogicalResult foldMXQuantize(QuantizeOp op, ArrayRef<float> values,
                             RewriterBase &rewriter) {
  NVFP4TensorType type = op.getType();
  ArrayRef<int64_t> shape = type.getShape();
  int64_t cols = shape.back();
  int64_t numel = static_cast<int64_t>(values.size());
  ::nvfp4::mx::Tensor t;
  if (auto err = ::nvfp4::mx::quantize(values.data(), numel / cols, cols,
                                       getMXElementType(type.getFormat()), t)) {
    op.emitOpError() << "cannot be quantized at compile time: " << *err;
    return failure();
  }
  // One byte per element in the dialect's layout: E2M1 codes unpacked.
  std::vector<uint8_t> codes = t.data;
  if (getElementBits(type.getFormat()) == 4) {
    codes.resize(numel);
    for (int64_t i = 0; i < numel; ++i)
      codes[i] = i % 2 ? t.data[i / 2] >> 4 : t.data[i / 2] & 0xF;
  }
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value data = arith::ConstantOp::create(
      rewriter, loc, bytesAttr(shape, type.getElementType(), codes));
  Value scales = arith::ConstantOp::create(
      rewriter, loc,
      bytesAttr(type.getScalesShape(), type.getScalesType().getElementType(),
                t.scales));
  rewriter.replaceOpWithNewOp<AssembleOp>(op, type, data, scales, Value());
  return success();
}

/// Quantizes `op` if its input, amax and seed are constants. Returns
/// whether it did, or failure (with a diagnostic) if the library rejects
/// the constant.
FailureOr<bool> foldQuantize(QuantizeOp op, RewriterBase &rewriter) {
  std::vector<float> values;
  if (failed(getConstantValues(op.getInput(), values)))
    return false;
  if (!op.getType().isNVFP4()) {
    if (failed(foldMXQuantize(op, values, rewriter)))
      return failure();
    return true;
  }
  ::nvfp4::QuantizeOptions opts;
  if (Value amax = op.getAmax()) {
    FloatAttr value;
    if (!matchPattern(amax, m_Constant(&value)))
      return false;
    opts.amax = static_cast<float>(value.getValueAsDouble());
  }
  if (Value seed = op.getSeed()) {
    IntegerAttr value;
    if (!matchPattern(seed, m_Constant(&value)))
      return false;
    opts.seed = value.getValue().getZExtValue();
  }
  NVFP4TensorType type = op.getType();
  int64_t blockRows = type.getBlock().getRows();
  opts.block = {static_cast<int>(blockRows), 16};
  opts.rounding = op.getRounding() == Rounding::Stochastic
                      ? ::nvfp4::Rounding::Stochastic
                      : ::nvfp4::Rounding::NearestEven;
  opts.offset = op.getOffset().value_or(0);
  if (std::optional<ArrayRef<int8_t>> signs = op.getHadamard()) {
    opts.hadamard = true;
    std::copy(signs->begin(), signs->end(), opts.signs.begin());
  }

  // The input viewed as [rows, cols].
  ArrayRef<int64_t> shape = type.getShape();
  int64_t cols = shape.back();
  int64_t numel = static_cast<int64_t>(values.size());
  int64_t rows = cols == 0 ? 0 : numel / cols;
  ::nvfp4::QuantizedTensor t;
  if (auto err = ::nvfp4::quantize(values.data(), rows, cols, opts, t)) {
    op.emitOpError() << "cannot be quantized at compile time: " << *err;
    return failure();
  }

  // Components in the dialect's layout: one code per element, compact
  // scales [.., rows / R, cols / 16].
  std::vector<uint8_t> codes(numel);
  for (int64_t i = 0; i < numel; ++i)
    codes[i] = i % 2 ? t.data[i / 2] >> 4 : t.data[i / 2] & 0xF;
  int64_t blocksPerRow = cols / 16;
  std::vector<uint8_t> scales;
  scales.reserve(rows / blockRows * blocksPerRow);
  for (int64_t r = 0; r < rows; r += blockRows)
    for (int64_t b = 0; b < blocksPerRow; ++b)
      scales.push_back(t.scales[r * blocksPerRow + b]);

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value data = arith::ConstantOp::create(
      rewriter, loc,
      bytesAttr(shape, rewriter.getType<Float4E2M1FNType>(), codes));
  Value scaleValues = arith::ConstantOp::create(
      rewriter, loc,
      bytesAttr(type.getScalesShape(), rewriter.getType<Float8E4M3FNType>(),
                scales));
  Value amax = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getF32FloatAttr(t.amax));
  rewriter.replaceOpWithNewOp<AssembleOp>(op, type, data, scaleValues, amax);
  return true;
}

struct NVFP4FoldConstantQuantizePass
    : public mlir::nvfp4::impl::NVFP4FoldConstantQuantizeBase<
          NVFP4FoldConstantQuantizePass> {
  void runOnOperation() override {
    SmallVector<QuantizeOp> quantizes;
    getOperation().walk([&](QuantizeOp op) { quantizes.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (QuantizeOp op : quantizes)
      if (failed(foldQuantize(op, rewriter)))
        return signalPassFailure();
  }
};

} // namespace
