//===- TileAndVectorize.cpp - Vector code for linalg ops on buffers -------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Tiles the static linalg ops of a function (on buffers) into
// register-sized tiles, peels the partial tiles and vectorizes the full
// ones, with upstream's tiling, peeling and vectorization (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nvfp4 {
#define GEN_PASS_DEF_TILEANDVECTORIZE
#include "nvfp4/Transforms/Passes.h.inc"
} // namespace mlir::nvfp4

using namespace mlir;

namespace {

/// Whether `op` has static loop ranges and works on buffers.
bool isCandidate(linalg::LinalgOp op) {
  return op.hasPureBufferSemantics() &&
         !llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic);
}

/// Tile sizes of `op`'s loops (0: not tiled).
SmallVector<int64_t> chooseTiles(linalg::LinalgOp op,
                                 ArrayRef<int64_t> contractionTiles,
                                 int64_t vectorWidth) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> tiles(ranges.size(), 1);
  auto clampTo = [&](unsigned loop, int64_t tile) {
    tiles[loop] = std::min(tile, ranges[loop]);
  };
  if (linalg::isaContractionOpInterface(op) && contractionTiles.size() == 3) {
    SmallVector<unsigned> parallel, reduction;
    for (auto [i, it] : llvm::enumerate(iterators))
      (it == utils::IteratorType::parallel ? parallel : reduction).push_back(i);
    if (parallel.size() >= 2)
      clampTo(parallel[parallel.size() - 2], contractionTiles[0]);
    if (!parallel.empty())
      clampTo(parallel.back(), contractionTiles[1]);
    if (!reduction.empty())
      clampTo(reduction.back(), contractionTiles[2]);
  } else if (!ranges.empty()) {
    clampTo(ranges.size() - 1, vectorWidth);
  }
  return tiles;
}

struct TileAndVectorizePass
    : public nvfp4::impl::TileAndVectorizeBase<TileAndVectorizePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<int64_t> mnk(contractionTiles.begin(), contractionTiles.end());
    if (mnk.empty())
      mnk = {8, 16, 8};
    if (mnk.size() != 3 || llvm::any_of(mnk, [](int64_t t) { return t < 1; }) ||
        vectorWidth < 1) {
      func.emitError() << getArgument()
                       << ": contraction-tiles needs three sizes >= 1 and "
                          "vector-width one >= 1";
      return signalPassFailure();
    }

    // 1. Tile; remember the loops whose last tile is partial.
    IRRewriter rewriter(ctx);
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) {
      if (isCandidate(op))
        ops.push_back(op);
    });
    SmallVector<scf::ForOp> partialLoops;
    for (linalg::LinalgOp op : ops) {
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      SmallVector<int64_t> tiles = chooseTiles(op, mnk, vectorWidth);
      if (tiles == ranges)
        continue; // one tile: vectorized as it is
      scf::SCFTilingOptions options;
      options.setTileSizes(getAsIndexOpFoldResult(ctx, tiles));
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(tiled))
        continue;
      rewriter.eraseOp(op);
      for (LoopLikeOpInterface loop : tiled->loops) {
        auto forOp = dyn_cast<scf::ForOp>(loop.getOperation());
        if (!forOp)
          continue;
        std::optional<int64_t> lb = getConstantIntValue(forOp.getLowerBound());
        std::optional<int64_t> ub = getConstantIntValue(forOp.getUpperBound());
        std::optional<int64_t> step = getConstantIntValue(forOp.getStep());
        if (lb && ub && step && (*ub - *lb) % *step != 0)
          partialLoops.push_back(forOp);
      }
    }
    // 2. Peel the partial tiles: the main loops get constant tile sizes.
    for (scf::ForOp forOp : partialLoops) {
      scf::ForOp partial;
      (void)scf::peelForLoopAndSimplifyBounds(rewriter, forOp, partial);
    }
    // 3. Fold the constant sizes into static subviews (and the casts into
    //    the tiled ops).
    RewritePatternSet patterns(ctx);
    for (Dialect *dialect : ctx->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName name : ctx->getRegisteredOperations())
      name.getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
    // 4. Vectorize every static op the vectorizer takes.
    SmallVector<linalg::LinalgOp> tiles;
    func.walk([&](linalg::LinalgOp op) {
      if (isCandidate(op) &&
          succeeded(linalg::vectorizeOpPrecondition(op.getOperation())))
        tiles.push_back(op);
    });
    for (linalg::LinalgOp op : tiles) {
      // Whole untiled ops larger than a tile stay scalar (no huge vectors).
      int64_t elements = 1;
      for (int64_t range : op.getStaticLoopRanges())
        elements *= range;
      if (elements > mnk[0] * mnk[1] * mnk[2] &&
          elements > vectorWidth)
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::VectorizationResult> result =
          linalg::vectorize(rewriter, op.getOperation());
      if (failed(result))
        continue;
      rewriter.replaceOp(op, result->replacements);
    }
  }
};

} // namespace
