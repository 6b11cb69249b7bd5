//===- AssignRounding.cpp - Stochastic rounding of gradients --------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Sets stochastic rounding on the quantizations of gradients and gives every
// stochastic quantization a reproducible, disjoint range of Philox counters.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"
#include "nvfp4/Dialect/NVFP4/Transforms/RecipeUtils.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4ASSIGNROUNDING
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

/// The argument of `func` annotated `nvfp4.seed` (null if there is none);
/// fails with an error at the argument when it is not an i64.
static FailureOr<BlockArgument> findSeedArgument(func::FuncOp func) {
  for (BlockArgument arg : func.getArguments()) {
    if (!func.getArgAttr(arg.getArgNumber(), kSeedAttrName))
      continue;
    if (!arg.getType().isInteger(64))
      return emitError(arg.getLoc())
             << "nvfp4: the argument annotated '" << kSeedAttrName
             << "' must be an i64, got " << arg.getType();
    return arg;
  }
  return BlockArgument();
}

/// The stochastic-rounding counters reserved for a quantization of run-time
/// size: 2^40 blocks (2^44 elements).
static constexpr int64_t kRunTimeSizeCounters = int64_t(1) << 40;

/// The number of 1x16 blocks of `type` (its element count / 16, exact: the
/// last dimension is a multiple of 16), or nothing if it overflows int64_t.
static std::optional<int64_t> getNumBlocks(NVFP4TensorType type) {
  ArrayRef<int64_t> shape = type.getShape();
  int64_t blocks = shape.back() / kBlockSize;
  for (int64_t dim : shape.drop_back())
    if (llvm::MulOverflow(blocks, dim, blocks))
      return std::nullopt;
  return blocks;
}

LogicalResult nvfp4::assignStochasticOffsets(func::FuncOp func,
                                             int64_t baseOffset) {
  FailureOr<BlockArgument> seedArg = findSeedArgument(func);
  if (failed(seedArg))
    return failure();
  BlockArgument seed = *seedArg;
  int64_t next = baseOffset;
  auto assign = [&](auto op, NVFP4TensorType type) -> WalkResult {
    if (op.getRounding() != Rounding::Stochastic)
      return WalkResult::advance();
    // A tensor of run-time size gets a window of kRunTimeSizeCounters
    // counters, whole and aligned: no tensor that fits in memory has as
    // many blocks, so the windows never overlap.
    std::optional<int64_t> blocks = kRunTimeSizeCounters;
    bool aligned = true;
    if (type.hasStaticShape())
      blocks = getNumBlocks(type);
    else if (int64_t rest = next % kRunTimeSizeCounters)
      aligned = !llvm::AddOverflow(next, kRunTimeSizeCounters - rest, next);
    int64_t end;
    if (!blocks || !aligned || llvm::AddOverflow(next, *blocks, end)) {
      op.emitError() << "nvfp4: the stochastic-rounding counters of " << type
                     << " at offset " << next << " overflow int64_t";
      return WalkResult::interrupt();
    }
    op.setOffset(next);
    next = end;
    if (seed && !op.getSeed())
      op.getSeedMutable().assign(seed);
    return WalkResult::advance();
  };
  WalkResult result = func.walk([&](Operation *op) {
    if (auto quantize = dyn_cast<QuantizeOp>(op))
      return assign(quantize, quantize.getType());
    if (auto rescale = dyn_cast<RescaleOp>(op))
      return assign(rescale, rescale.getType());
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Whether `quantize` quantizes a gradient: annotated so, or its input is
/// (through transposes and Hadamard transforms) a gradient argument.
static bool isGradientQuantize(QuantizeOp quantize) {
  if (auto kind =
          quantize->getAttrOfType<StringAttr>(NVFP4Dialect::kKindAttrName))
    return kind.getValue() == "gradient";
  Value input = quantize.getInput();
  while (true) {
    input = stripTransposes(input);
    auto hadamard = input.getDefiningOp<HadamardOp>();
    if (!hadamard)
      break;
    input = hadamard.getInput();
  }
  return getArgumentKind(input) == TensorKind::Gradient;
}

namespace {
struct NVFP4AssignRoundingPass
    : public nvfp4::impl::NVFP4AssignRoundingBase<NVFP4AssignRoundingPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    // Before any rounding changes: assignStochasticOffsets checks it again.
    if (failed(findSeedArgument(func)))
      return signalPassFailure();
    if (baseOffset < 0) {
      func.emitError() << "nvfp4: base-offset must be non-negative";
      return signalPassFailure();
    }
    func.walk([&](QuantizeOp quantize) {
      // MX quantization rounds to nearest even only.
      if (quantize.getRounding() == Rounding::NearestEven &&
          quantize.getType().isNVFP4() && isGradientQuantize(quantize))
        quantize.setRounding(Rounding::Stochastic);
    });
    if (failed(assignStochasticOffsets(func, baseOffset)))
      return signalPassFailure();
  }
};
} // namespace
