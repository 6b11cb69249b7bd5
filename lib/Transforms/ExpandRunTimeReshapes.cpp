//===- ExpandRunTimeReshapes.cpp - expand_shape of run-time sizes as views ===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites the memref.expand_shape ops that split a dimension into several
// run-time sizes, which MLIR 22's expand-strided-metadata cannot take, as
// memref.reinterpret_cast views (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nvfp4 {
#define GEN_PASS_DEF_EXPANDRUNTIMERESHAPES
#include "nvfp4/Transforms/Passes.h.inc"
} // namespace mlir::nvfp4

using namespace mlir;

namespace {

/// Whether `op` splits a source dimension into two or more run-time sizes.
bool splitsIntoRunTimeSizes(memref::ExpandShapeOp op) {
  MemRefType type = op.getResultType();
  for (const ReassociationIndices &group : op.getReassociationIndices())
    if (llvm::count_if(group, [&](int64_t dim) {
          return type.isDynamicDim(dim);
        }) >= 2)
      return true;
  return false;
}

struct ExpandShapeOpLowering : public OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    if (!splitsIntoRunTimeSizes(op))
      return rewriter.notifyMatchFailure(op, "expand-strided-metadata takes it");
    Location loc = op.getLoc();
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSrc());
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(sizes.size());
    auto multiply = [&](OpFoldResult a, OpFoldResult b) -> OpFoldResult {
      std::optional<int64_t> x = getConstantIntValue(a);
      std::optional<int64_t> y = getConstantIntValue(b);
      if (x && y)
        return rewriter.getIndexAttr(*x * *y);
      return arith::MulIOp::create(
                 rewriter, loc,
                 getValueOrCreateConstantIndexOp(rewriter, loc, a),
                 getValueOrCreateConstantIndexOp(rewriter, loc, b))
          .getResult();
    };
    // Within a group, the innermost dimension keeps the source dimension's
    // stride; each outer one multiplies by the size of the one inside it.
    SmallVector<OpFoldResult> sourceStrides = metadata.getConstifiedMixedStrides();
    for (auto [sourceDim, group] :
         llvm::enumerate(op.getReassociationIndices())) {
      OpFoldResult stride = sourceStrides[sourceDim];
      for (int64_t dim : llvm::reverse(group)) {
        strides[dim] = stride;
        stride = multiply(stride, sizes[dim]);
      }
    }
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, op.getResultType(), metadata.getBaseBuffer(),
        metadata.getConstifiedMixedOffset(), sizes, strides);
    return success();
  }
};

struct ExpandRunTimeReshapesPass
    : public mlir::nvfp4::impl::ExpandRunTimeReshapesBase<
          ExpandRunTimeReshapesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandShapeOpLowering>(&getContext());
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      signalPassFailure();
  }
};

} // namespace
