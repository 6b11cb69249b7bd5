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
#include "nvfp4/Dialect/NVFP4/Transforms/RecipePolicy.h"
#include "nvfp4/Dialect/NVFP4/Transforms/RecipeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4QUANTIZECONTRACTIONS
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

/// The multiple a run-time K is zero-padded to: the tcgen05 kernels'
/// tensor maps take rows of K / 2 bytes, a multiple of 16 (docs/recipe.md,
/// "Run-time sizes").
static constexpr int64_t kRunTimeKAlignment = 32;

/// The role of `op` as the policy names it (fprop when not annotated).
static recipe::Role getPolicyRole(Operation *op) {
  return parsePolicyRole(getRole(op)).value_or(recipe::Role::Fprop);
}

/// The operand kinds of a contraction: annotated, or those its role implies.
static std::array<TensorKind, 2> getKindsOrDefault(Operation *op) {
  if (auto kinds = getOperandKinds(op))
    return *kinds;
  std::array<recipe::OperandKind, 2> kinds =
      recipe::operandKinds(getPolicyRole(op));
  return {fromPolicyKind(kinds[0]), fromPolicyKind(kinds[1])};
}

/// How the recipe quantizes operand `i` of `op` (`info`).
static recipe::OperandQuantization
getOperandQuantization(Operation *op, const ContractionInfo &info, int i,
                       const QuantizeContractionsOptions &options) {
  recipe::Options policy;
  policy.hadamard = !options.disableRHT;
  policy.stochasticRounding = !options.disableStochasticRounding;
  policy.weightBlocks2D = !options.disable2D;
  policy.inference = options.inference;
  return recipe::quantization(getPolicyRole(op),
                              toPolicyKind(getKindsOrDefault(op)[i]), policy,
                              i == 0 ? info.m : info.n);
}

/// Whether operand `i` of `op` (`info`) is quantized with 16x16 blocks.
static bool is2DWeight(Operation *op, const ContractionInfo &info, int i,
                       const QuantizeContractionsOptions &options) {
  return getOperandQuantization(op, info, i, options).blockRows == kBlockSize;
}

/// The contraction `op` as the rewrite to `format` sees it; fails with the
/// reason when the rewrite cannot express it (the wording of
/// nvfp4-select-precision's hardware rules).
static FailureOr<ContractionInfo>
analyzeRewritable(linalg::LinalgOp op, Format format,
                  const QuantizeContractionsOptions &options,
                  std::string &reason) {
  FailureOr<ContractionInfo> info = analyzeContraction(op, reason);
  if (failed(info)) {
    reason = "unsupported: " + reason;
    return failure();
  }
  if (!info->hasRepresentableSizes()) {
    reason = kSizesNotRepresentable;
    return failure();
  }
  // MX operands have 1x32 blocks along K only. A run-time size cannot
  // promise whole 16x16 tiles.
  for (int i = 0; i < 2 && format == Format::NVFP4; ++i) {
    int64_t other = i == 0 ? info->m : info->n;
    bool runTime = ShapedType::isDynamic(other);
    if (is2DWeight(op, *info, i, options) &&
        (runTime || other % kBlockSize != 0)) {
      reason = llvm::formatv("16x16 weight needs {0}={1} to be a multiple "
                             "of 16",
                             i == 0 ? "M" : "N",
                             runTime ? std::string("? (a run-time size)")
                                     : std::to_string(other));
      return failure();
    }
  }
  return info;
}

/// `type` with the sizes of `shape` where they are static (a contraction's
/// loop sizes: an operand may leave dynamic what another operand fixes).
static RankedTensorType withStaticSizes(RankedTensorType type,
                                        ArrayRef<int64_t> shape) {
  SmallVector<int64_t> sizes(type.getShape());
  for (auto [size, known] : llvm::zip_equal(sizes, shape))
    if (!ShapedType::isDynamic(known))
      size = known;
  return type.clone(sizes);
}

/// `value`, cast to withStaticSizes of its type.
static Value castToSizes(OpBuilder &b, Location loc, Value value,
                         ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  RankedTensorType target = withStaticSizes(type, shape);
  if (target == type)
    return value;
  return tensor::CastOp::create(b, loc, target, value);
}

/// A tensor.empty of `value`'s sizes with the two innermost swapped.
static Value emptyTransposed(OpBuilder &b, Location loc, Value value) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  std::swap(sizes[sizes.size() - 1], sizes[sizes.size() - 2]);
  return tensor::EmptyOp::create(
      b, loc, sizes, cast<RankedTensorType>(value.getType()).getElementType());
}

/// Whether `init` is a linalg.fill of (positive or negative) zero.
static bool isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}

namespace {

/// linalg contraction selected for a block-scaled format (`nvfp4.precision
/// = "fp4"`, `"mxfp4"`, `"mxfp8_e4m3"` or `"mxfp8_e5m2"`) ->
/// nvfp4.quantize (lhs), nvfp4.quantize (rhs), nvfp4.matmul.
struct QuantizeContraction
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  QuantizeContraction(MLIRContext *context,
                      const QuantizeContractionsOptions &options)
      : OpInterfaceRewritePattern(context), options(options) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Format> format = getSelectedFormat(op);
    if (!format)
      return rewriter.notifyMatchFailure(op, "not selected for a "
                                             "block-scaled format");
    std::string reason;
    FailureOr<ContractionInfo> info =
        analyzeRewritable(op, *format, options, reason);
    if (failed(info))
      return rewriter.notifyMatchFailure(op, reason);
    Value matrix =
        info->batched && getKindsOrDefault(op)[1] == TensorKind::Weight
            ? getBatchBroadcastSource(info->rhs())
            : Value();
    rewriter.replaceOp(op, matrix ? rewriteBroadcastWeight(op, *info, *format,
                                                           matrix, rewriter)
                                  : rewrite(op, *info, *format, rewriter));
    return success();
  }

private:
  /// A batched contraction whose B operand is the weight `matrix` broadcast
  /// over the batch, as one GEMM of the [B*M, K] activation (flattened with
  /// tensor.collapse_shape, after a high-precision transpose if it is stored
  /// [B, K, M]) by the matrix, so that the weight is quantized once; the
  /// [B*M, N] result is expanded back to [B, M, N].
  Value rewriteBroadcastWeight(linalg::LinalgOp op, const ContractionInfo &info,
                               Format format, Value matrix,
                               PatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    const int64_t rows =
        ShapedType::isDynamic(info.batch) || ShapedType::isDynamic(info.m)
            ? ShapedType::kDynamic
            : info.batch * info.m;
    SmallVector<ReassociationIndices> flatten = {{0, 1}, {2}};
    Value lhs = info.lhs();
    if (info.lhsKOuter) {
      lhs = linalg::TransposeOp::create(rewriter, loc, lhs,
                                        emptyTransposed(rewriter, loc, lhs),
                                        ArrayRef<int64_t>{0, 2, 1})
                ->getResult(0);
    }
    lhs = tensor::CollapseShapeOp::create(rewriter, loc, lhs, flatten);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    auto flatType =
        RankedTensorType::get({rows, info.n}, resultType.getElementType());
    Value init = info.init();
    if (isZeroFill(init)) {
      // [B*M, N] from the init's sizes.
      Value flatInit =
          tensor::CollapseShapeOp::create(rewriter, loc, init, flatten);
      Value empty = tensor::EmptyOp::create(
          rewriter, loc, tensor::getMixedSizes(rewriter, loc, flatInit),
          flatType.getElementType());
      init = linalg::FillOp::create(
                 rewriter, loc,
                 init.getDefiningOp<linalg::FillOp>().getInputs()[0], empty)
                 .getResult(0);
    } else {
      init = tensor::CollapseShapeOp::create(rewriter, loc, init, flatten);
    }
    init = castToSizes(rewriter, loc, init, flatType.getShape());
    auto matmul =
        linalg::MatmulOp::create(rewriter, loc, TypeRange{flatType},
                                 ValueRange{lhs, matrix}, ValueRange{init});
    AffineExpr m, n, k;
    bindDims(ctx, m, n, k);
    matmul.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(
        {AffineMap::get(3, 0, {m, k}, ctx),
         AffineMap::get(3, 0,
                        info.rhsKOuter ? ArrayRef<AffineExpr>{k, n}
                                       : ArrayRef<AffineExpr>{n, k},
                        ctx),
         AffineMap::get(3, 0, {m, n}, ctx)}));
    for (StringRef name :
         {NVFP4Dialect::kRoleAttrName, NVFP4Dialect::kKindAttrName,
          NVFP4Dialect::kLayerAttrName, NVFP4Dialect::kPrecisionAttrName})
      if (Attribute attr = op->getAttr(name))
        matmul->setAttr(name, attr);
    // The flattened GEMM has the same K, N and operand kinds, so it passes
    // the checks the batched one passed.
    std::string reason;
    FailureOr<ContractionInfo> flatInfo =
        analyzeRewritable(matmul, format, options, reason);
    assert(succeeded(flatInfo) && "flattened contraction not rewritable");
    Value result = rewrite(matmul, *flatInfo, format, rewriter);
    rewriter.eraseOp(matmul);
    return tensor::ExpandShapeOp::create(
        rewriter, loc, resultType, result, flatten,
        tensor::getMixedSizes(rewriter, loc, info.init()));
  }

  /// The block-scaled tensor an operand (`value`) already is, when it is
  /// the `nvfp4.dequantize` of one (a checkpoint's weight, say) that the
  /// GEMM of `format` takes (NVFP4 for NVFP4, any MX format for MX) and
  /// `policy` quantizes it with round-to-nearest and no transform: the
  /// tensor itself, K-major, or its exact transpose when it is stored
  /// [K, N] with 16x16 blocks. Null when the operand must be quantized.
  static Value getPreQuantized(linalg::LinalgOp op,
                               const recipe::OperandQuantization &policy,
                               Value value, bool kOuter, Format format,
                               PatternRewriter &rewriter) {
    auto dequantize = value.getDefiningOp<DequantizeOp>();
    if (!dequantize)
      return Value();
    Value quantized = dequantize.getInput();
    NVFP4TensorType type = dequantize.getInput().getType();
    if (type.isNVFP4() != (format == Format::NVFP4))
      return Value();
    // MX operands are quantized with round-to-nearest and no transform.
    if (format == Format::NVFP4 && (policy.stochastic || policy.hadamard))
      return Value();
    if (!kOuter)
      return quantized;
    if (!type.getBlock().is2D())
      return Value();
    SmallVector<int64_t> shape(type.getShape());
    std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
    NVFP4TensorType transposedType = type.withShape(shape);
    return TransposeOp::create(rewriter, op.getLoc(), transposedType,
                               quantized);
  }

  /// The nvfp4.quantize ops and the nvfp4.matmul computing `op`; returns the
  /// matmul's result.
  Value rewrite(linalg::LinalgOp op, const ContractionInfo &info, Format format,
                PatternRewriter &rewriter) const {
    std::array<TensorKind, 2> kinds = getKindsOrDefault(op);
    const bool isNVFP4 = format == Format::NVFP4;
    auto is2D = [&](int i) {
      return isNVFP4 && is2DWeight(op, info, i, options);
    };
    // Elements per block along K: 16 (NVFP4) or 32 (MX).
    const int64_t blockCols = isNVFP4 ? kBlockSize : kMXBlockSize;

    Location loc = op.getLoc();
    auto prepare = [&](int i, Value value, bool kOuter) -> Value {
      recipe::OperandQuantization policy =
          getOperandQuantization(op, info, i, options);
      if (Value quantized =
              getPreQuantized(op, policy, value, kOuter, format, rewriter))
        return quantized;
      // The operand with the contraction's static sizes, as stored.
      const int64_t rows = i == 0 ? info.m : info.n;
      SmallVector<int64_t> stored = kOuter ? SmallVector<int64_t>{info.k, rows}
                                           : SmallVector<int64_t>{rows, info.k};
      if (info.batched)
        stored.insert(stored.begin(), info.batch);
      value = castToSizes(rewriter, loc, value, stored);
      auto type = cast<RankedTensorType>(value.getType());
      SmallVector<int64_t> shape(type.getShape());
      unsigned rank = shape.size();
      if (!is2D(i) && kOuter) {
        // High-precision transpose to the K-major layout.
        SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(rank));
        std::swap(perm[rank - 1], perm[rank - 2]);
        std::swap(shape[rank - 1], shape[rank - 2]);
        value = linalg::TransposeOp::create(
                    rewriter, loc, value, emptyTransposed(rewriter, loc, value),
                    perm)
                    ->getResult(0);
      }
      const unsigned kDim = is2D(i) && kOuter ? rank - 2 : rank - 1;
      if (ShapedType::isDynamic(info.k)) {
        // K known at run time, zero-padded there to a multiple of 32 (by
        // zero rows when it already is): whole blocks, and the row stride
        // the tcgen05 kernels' tensor maps need (K / 2 bytes, a multiple of
        // 16), so that one quantization serves every target. The padded
        // codes are zeros: every product keeps its value.
        const int64_t alignment =
            std::max<int64_t>(blockCols, kRunTimeKAlignment);
        Type element = type.getElementType();
        Value zero = arith::ConstantOp::create(rewriter, loc, element,
                                               rewriter.getZeroAttr(element));
        Value k = tensor::DimOp::create(rewriter, loc, value, kDim);
        Value blockMinusOne =
            arith::ConstantIndexOp::create(rewriter, loc, alignment - 1);
        Value block = arith::ConstantIndexOp::create(rewriter, loc, alignment);
        Value blocks = arith::DivUIOp::create(
            rewriter, loc,
            arith::AddIOp::create(rewriter, loc, k, blockMinusOne), block);
        Value paddedK = arith::MulIOp::create(rewriter, loc, blocks, block);
        SmallVector<Value> dynamicSizes;
        for (unsigned d = 0; d < rank; ++d)
          if (ShapedType::isDynamic(shape[d]))
            dynamicSizes.push_back(
                d == kDim ? paddedK
                          : tensor::DimOp::create(rewriter, loc, value, d)
                                .getResult());
        value = tensor::createPadHighOp(RankedTensorType::get(shape, element),
                                        value, zero, /*nofold=*/false, loc,
                                        rewriter, dynamicSizes);
      } else if (info.k % blockCols != 0) {
        // K zero-padded to whole blocks: the padded codes are zeros, so
        // every product keeps its value, and the last block's scale comes
        // from its real values (a 16x16 weight quantized as stored [K, N]
        // pads its rows).
        shape[kDim] = llvm::alignTo(info.k, blockCols);
        Type element = type.getElementType();
        Value zero = arith::ConstantOp::create(rewriter, loc, element,
                                               rewriter.getZeroAttr(element));
        value = tensor::createPadHighOp(RankedTensorType::get(shape, element),
                                        value, zero,
                                        /*nofold=*/false, loc, rewriter);
      }
      auto quantizedType = NVFP4TensorType::get(
          shape,
          BlockAttr::get(rewriter.getContext(), is2D(i) ? kBlockSize : 1,
                         blockCols),
          TensorScaleKind::Amax, format);
      auto quantize = QuantizeOp::create(
          rewriter, loc, quantizedType, value, Value(), Value(),
          Rounding::NearestEven, IntegerAttr(), DenseI8ArrayAttr());
      // Stochastic rounding and the Hadamard transform are NVFP4's: MX
      // operands are rounded to nearest, untransformed.
      if (isNVFP4 && policy.stochastic) {
        quantize.setRounding(Rounding::Stochastic);
        quantize.setOffset(0);
      }
      if (isNVFP4 && policy.hadamard)
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
    Value lhs = prepare(0, info.lhs(), info.lhsKOuter);
    Value rhs = prepare(1, info.rhs(), info.rhsKOuter);
    // The result with the contraction's static sizes ([B, M, N]).
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<int64_t> resultSizes = {info.m, info.n};
    if (info.batched)
      resultSizes.insert(resultSizes.begin(), info.batch);
    Value acc = isZeroFill(info.init())
                    ? Value()
                    : castToSizes(rewriter, loc, info.init(), resultSizes);
    auto matmul = MatmulOp::create(
        rewriter, loc, withStaticSizes(resultType, resultSizes), lhs, rhs, acc);
    for (StringRef name :
         {NVFP4Dialect::kRoleAttrName, NVFP4Dialect::kLayerAttrName})
      if (Attribute attr = op->getAttr(name))
        matmul->setAttr(name, attr);
    if (matmul.getType() == resultType)
      return matmul.getResult();
    return tensor::CastOp::create(rewriter, loc, resultType,
                                  matmul.getResult());
  }

  QuantizeContractionsOptions options;
};

struct NVFP4QuantizeContractionsPass
    : public mlir::nvfp4::impl::NVFP4QuantizeContractionsBase<
          NVFP4QuantizeContractionsPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    QuantizeContractionsOptions options;
    options.disableRHT = disableRHT;
    options.disableStochasticRounding = disableStochasticRounding;
    options.disable2D = disable2D;
    options.inference = inference;
    RewritePatternSet patterns(&getContext());
    populateQuantizeContractionsPatterns(patterns, options);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(func, std::move(patterns), config)))
      return signalPassFailure();
    // What the patterns could not rewrite stays in high precision. The op
    // was selected for NVFP4 (by nvfp4-select-precision or an annotation),
    // so this is a warning rather than a remark.
    func.walk([&](linalg::LinalgOp op) {
      std::optional<Format> format = getSelectedFormat(op);
      if (!format)
        return;
      // The pattern declines exactly the ops analyzeRewritable rejects,
      // which sets `reason`.
      std::string reason = "the rewrite did not apply";
      (void)analyzeRewritable(op, *format, options, reason);
      op->emitWarning() << "nvfp4: fallback: selected for "
                        << (*format == Format::NVFP4 ? StringRef("NVFP4")
                                                     : stringifyFormat(*format))
                        << " but kept in high precision: " << reason;
      op->setAttr(NVFP4Dialect::kPrecisionAttrName,
                  StringAttr::get(&getContext(), "high"));
    });
    if (failed(assignStochasticOffsets(func, /*baseOffset=*/0)))
      return signalPassFailure();
  }
};

} // namespace

void mlir::nvfp4::populateQuantizeContractionsPatterns(
    RewritePatternSet &patterns, const QuantizeContractionsOptions &options) {
  patterns.add<QuantizeContraction>(patterns.getContext(), options);
}
