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
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

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
    // As the canonicalizer pass: a rewrite that has not converged within the
    // driver's iteration limit is not an error.
    (void)applyPatternsGreedily(func, std::move(patterns));
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
      Operation *target = reductionLoopsFirst(rewriter, op);
      FailureOr<linalg::VectorizationResult> result =
          linalg::vectorize(rewriter, target);
      if (failed(result))
        continue;
      rewriter.replaceOp(target, result->replacements);
    }
    // 5. Keep each contraction's accumulator tile in registers across its
    //    K loop: transfers on subviews rewritten on the base buffers, loop
    //    invariants hoisted, then the read / write pairs of the tile.
    RewritePatternSet foldPatterns(ctx);
    memref::populateFoldMemRefAliasOpPatterns(foldPatterns);
    (void)applyPatternsGreedily(func, std::move(foldPatterns));
    func.walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      hoistAccumulator(rewriter, loop);
  }

  /// If the body of `loop` reads a vector from a buffer and writes it back
  /// at the same loop-invariant position, and nothing else in the loop
  /// touches that buffer (a contraction's accumulator tile over its K
  /// loop), carries the vector through the loop instead: one read before,
  /// one write after. (Upstream's hoistRedundantVectorTransfers declines
  /// whenever the buffer has other uses anywhere, such as the peeled
  /// remainder tiles.)
  static void hoistAccumulator(RewriterBase &rewriter, scf::ForOp loop) {
    Block *body = loop.getBody();
    for (Operation &op : *body) {
      auto read = dyn_cast<vector::TransferReadOp>(&op);
      if (!read || !llvm::all_of(read->getOperands(), [&](Value v) {
            return loop.isDefinedOutsideOfLoop(v);
          }))
        continue;
      Value buffer = read.getBase();
      vector::TransferWriteOp write;
      bool otherUse = false;
      for (Operation *user : buffer.getUsers()) {
        if (user == read || !loop->isAncestor(user))
          continue;
        auto w = dyn_cast<vector::TransferWriteOp>(user);
        if (w && !write && w->getBlock() == body &&
            w.getIndices() == read.getIndices() &&
            w.getVector().getType() == read.getType() &&
            w.getPermutationMap() == read.getPermutationMap() &&
            w.getInBoundsAttr() == read.getInBoundsAttr() &&
            read->isBeforeInBlock(w))
          write = w;
        else
          otherUse = true;
      }
      if (!write || otherUse)
        continue;
      rewriter.moveOpBefore(read, loop);
      FailureOr<LoopLikeOpInterface> carried = loop.replaceWithAdditionalYields(
          rewriter, read.getResult(), /*replaceInitOperandUsesInLoop=*/true,
          [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
            return SmallVector<Value>{write.getVector()};
          });
      if (failed(carried))
        return;
      Operation *newLoop = carried->getOperation();
      rewriter.moveOpAfter(write, newLoop);
      rewriter.modifyOpInPlace(write, [&] {
        write.getValueToStoreMutable().assign(newLoop->getResults().back());
      });
      return; // one accumulator per K loop
    }
  }

  /// A contraction as a linalg.generic whose reduction loops come first, so
  /// that its vector form reduces over the outermost vector dimension: the
  /// K slices of the product are added to the accumulator one after the
  /// other (the scalar loops' order) with no transposition of the product.
  /// Other ops are returned as they are.
  static Operation *reductionLoopsFirst(RewriterBase &rewriter,
                                        linalg::LinalgOp op) {
    if (!linalg::isaContractionOpInterface(op))
      return op;
    SmallVector<unsigned> order;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    for (auto [i, it] : llvm::enumerate(iterators))
      if (it == utils::IteratorType::reduction)
        order.push_back(i);
    for (auto [i, it] : llvm::enumerate(iterators))
      if (it == utils::IteratorType::parallel)
        order.push_back(i);
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      FailureOr<linalg::GenericOp> generalized =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generalized))
        return op;
      generic = *generalized;
    }
    FailureOr<linalg::GenericOp> interchanged =
        linalg::interchangeGenericOp(rewriter, generic, order);
    return succeeded(interchanged) ? interchanged->getOperation()
                                   : generic.getOperation();
  }
};

} // namespace
