//===- ShareQuantizations.cpp - Quantize every tensor once ----------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Shares identical quantizations and reuses a 16x16-scaled weight for its
// transpose through the exact nvfp4.transpose.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"
#include "nvfp4/Dialect/NVFP4/Transforms/RecipeUtils.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4SHAREQUANTIZATIONS
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

/// quantize(linalg.transpose(x)) with 16x16 blocks ->
/// nvfp4.transpose(quantize(x)). Exact: a 16x16 tile shares one scale and
/// the tensor amax does not depend on the layout. Not for stochastic rounding
/// (its random bits follow the linear index) nor a Hadamard transform (it
/// mixes along the last dimension).
struct QuantizeOfTransposeToTranspose : public OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    NVFP4TensorType type = op.getType();
    if (!type.getBlock().is2D())
      return rewriter.notifyMatchFailure(op, "not 16x16 scaled");
    if (op.getRounding() != Rounding::NearestEven || op.getHadamard())
      return rewriter.notifyMatchFailure(op, "stochastic or transformed");
    bool swapped = false;
    Value input = stripTransposes(op.getInput(), &swapped);
    if (input == op.getInput())
      return rewriter.notifyMatchFailure(op, "input is not a transpose");
    SmallVector<int64_t> shape(cast<ShapedType>(input.getType()).getShape());
    auto quantizedType =
        NVFP4TensorType::get(rewriter.getContext(), shape, kBlockSize);
    auto quantize = QuantizeOp::create(
        rewriter, op.getLoc(), quantizedType, input, op.getAmax(), Value(),
        Rounding::NearestEven, IntegerAttr(), DenseI8ArrayAttr());
    quantize->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    Value result = quantize.getResult();
    if (swapped)
      result = TransposeOp::create(rewriter, op.getLoc(), type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Whether `a` and `b` compute the same NVFP4 tensor.
static bool isSameQuantization(QuantizeOp a, QuantizeOp b) {
  return a.getInput() == b.getInput() && a.getAmax() == b.getAmax() &&
         a.getSeed() == b.getSeed() && a.getRounding() == b.getRounding() &&
         a.getOffset() == b.getOffset() &&
         a.getHadamardAttr() == b.getHadamardAttr() &&
         a.getType() == b.getType();
}

struct NVFP4ShareQuantizationsPass
    : public nvfp4::impl::NVFP4ShareQuantizationsBase<
          NVFP4ShareQuantizationsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateShareQuantizationsPatterns(patterns);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();
    shareIdenticalQuantizations(getOperation());
  }
};

} // namespace

void nvfp4::populateShareQuantizationsPatterns(RewritePatternSet &patterns) {
  patterns.add<QuantizeOfTransposeToTranspose>(patterns.getContext());
}

void nvfp4::shareIdenticalQuantizations(func::FuncOp func) {
  DominanceInfo dominance(func);
  llvm::DenseMap<Value, SmallVector<QuantizeOp>> byInput;
  SmallVector<QuantizeOp> duplicates;
  func.walk([&](QuantizeOp quantize) {
    SmallVector<QuantizeOp> &candidates = byInput[quantize.getInput()];
    for (QuantizeOp earlier : candidates) {
      if (isSameQuantization(earlier, quantize) &&
          dominance.properlyDominates(earlier.getOperation(),
                                      quantize.getOperation())) {
        quantize.getResult().replaceAllUsesWith(earlier.getResult());
        duplicates.push_back(quantize);
        return;
      }
    }
    candidates.push_back(quantize);
  });
  for (QuantizeOp quantize : duplicates)
    quantize.erase();
}
