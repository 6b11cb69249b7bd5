//===- QuantizeContractions.cpp - linalg contractions to nvfp4 ops --------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites the linalg contractions selected for NVFP4 to nvfp4.quantize of
// both operands and nvfp4.matmul, applying the recipe table of
// docs/recipe.md.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"
#include "nvfp4/Dialect/NVFP4/Transforms/RecipeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4QUANTIZECONTRACTIONS
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

/// The operand kinds of a contraction: annotated, or those its role implies.
static std::array<TensorKind, 2> getKindsOrDefault(Operation *op) {
  if (auto kinds = getOperandKinds(op))
    return *kinds;
  StringRef role = getRole(op);
  if (role == "dgrad")
    return {TensorKind::Gradient, TensorKind::Weight};
  if (role == "wgrad")
    return {TensorKind::Activation, TensorKind::Gradient};
  return {TensorKind::Activation, TensorKind::Weight};
}

/// Whether `init` is a linalg.fill of (positive or negative) zero.
static bool isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}

namespace {

/// linalg contraction with `nvfp4.precision = "fp4"` ->
/// nvfp4.quantize (lhs), nvfp4.quantize (rhs), nvfp4.matmul.
struct QuantizeContraction
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  QuantizeContraction(MLIRContext *context,
                      const QuantizeContractionsOptions &options)
      : OpInterfaceRewritePattern(context), options(options) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (getPrecision(op) != "fp4")
      return rewriter.notifyMatchFailure(op, "not selected for NVFP4");
    std::string reason;
    FailureOr<ContractionInfo> info = analyzeContraction(op, reason);
    if (failed(info))
      return rewriter.notifyMatchFailure(op, reason);
    if (info->k % kBlockSize != 0)
      return rewriter.notifyMatchFailure(op, "K is not a multiple of 16");
    std::array<TensorKind, 2> kinds = getKindsOrDefault(op);
    bool wgrad = getRole(op) == "wgrad";
    auto is2D = [&](int i) {
      return kinds[i] == TensorKind::Weight && !wgrad && !options.disable2D;
    };
    if ((is2D(0) && info->m % kBlockSize != 0) ||
        (is2D(1) && info->n % kBlockSize != 0))
      return rewriter.notifyMatchFailure(
          op, "16x16 weight dimensions are not multiples of 16");

    Location loc = op.getLoc();
    auto prepare = [&](int i, Value value, bool kOuter) -> Value {
      auto type = cast<RankedTensorType>(value.getType());
      SmallVector<int64_t> shape(type.getShape());
      unsigned rank = shape.size();
      if (!is2D(i) && kOuter) {
        // High-precision transpose to the K-major layout.
        SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(rank));
        std::swap(perm[rank - 1], perm[rank - 2]);
        std::swap(shape[rank - 1], shape[rank - 2]);
        Value empty = tensor::EmptyOp::create(rewriter, loc, shape,
                                              type.getElementType());
        value = linalg::TransposeOp::create(rewriter, loc, value, empty, perm)
                    ->getResult(0);
      }
      auto quantizedType = NVFP4TensorType::get(
          rewriter.getContext(), shape, is2D(i) ? kBlockSize : 1);
      auto quantize =
          QuantizeOp::create(rewriter, loc, quantizedType, value, Value(),
                             Value(), Rounding::NearestEven, IntegerAttr(),
                             DenseI8ArrayAttr());
      if (kinds[i] == TensorKind::Gradient &&
          !options.disableStochasticRounding) {
        quantize.setRounding(Rounding::Stochastic);
        quantize.setOffset(0);
      }
      if (wgrad && !options.disableRHT)
        quantize.setHadamard(getDefaultHadamardSigns());
      quantize->setAttr(NVFP4Dialect::kKindAttrName,
                        rewriter.getStringAttr(stringifyTensorKind(kinds[i])));
      Value result = quantize.getResult();
      if (is2D(i) && kOuter) {
        // Exact transpose of the 16x16-scaled tensor.
        std::swap(shape[rank - 1], shape[rank - 2]);
        auto transposedType =
            NVFP4TensorType::get(rewriter.getContext(), shape, kBlockSize);
        result = TransposeOp::create(rewriter, loc, transposedType, result);
      }
      return result;
    };
    Value lhs = prepare(0, info->lhs(), info->lhsKOuter);
    Value rhs = prepare(1, info->rhs(), info->rhsKOuter);
    Value acc = isZeroFill(info->init()) ? Value() : info->init();
    auto matmul = MatmulOp::create(rewriter, loc, op->getResult(0).getType(),
                                   lhs, rhs, acc);
    for (StringRef name :
         {NVFP4Dialect::kRoleAttrName, NVFP4Dialect::kLayerAttrName})
      if (Attribute attr = op->getAttr(name))
        matmul->setAttr(name, attr);
    rewriter.replaceOp(op, matmul.getResult());
    return success();
  }

private:
  QuantizeContractionsOptions options;
};

struct NVFP4QuantizeContractionsPass
    : public nvfp4::impl::NVFP4QuantizeContractionsBase<
          NVFP4QuantizeContractionsPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    QuantizeContractionsOptions options;
    options.disableRHT = disableRHT;
    options.disableStochasticRounding = disableStochasticRounding;
    options.disable2D = disable2D;
    RewritePatternSet patterns(&getContext());
    populateQuantizeContractionsPatterns(patterns, options);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(func, std::move(patterns), config)))
      return signalPassFailure();
    // What the patterns could not rewrite stays in high precision.
    func.walk([&](linalg::LinalgOp op) {
      if (getPrecision(op) != "fp4")
        return;
      op->emitWarning() << "nvfp4: selected for NVFP4 but not rewritten "
                           "(unsupported form or shape); kept in high "
                           "precision";
      op->setAttr(NVFP4Dialect::kPrecisionAttrName,
                  StringAttr::get(&getContext(), "high"));
    });
    if (failed(assignStochasticOffsets(func, /*baseOffset=*/0)))
      return signalPassFailure();
  }
};

} // namespace

void nvfp4::populateQuantizeContractionsPatterns(
    RewritePatternSet &patterns, const QuantizeContractionsOptions &options) {
  patterns.add<QuantizeContraction>(patterns.getContext(), options);
}
