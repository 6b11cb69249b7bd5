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

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4ASSIGNROUNDING
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

/// The argument of `func` annotated `nvfp4.seed`, if any.
static BlockArgument findSeedArgument(func::FuncOp func) {
  for (BlockArgument arg : func.getArguments())
    if (func.getArgAttr(arg.getArgNumber(), kSeedAttrName))
      return arg;
  return {};
}

void nvfp4::assignStochasticOffsets(func::FuncOp func, int64_t baseOffset) {
  BlockArgument seed = findSeedArgument(func);
  if (seed && !seed.getType().isInteger(64))
    seed = {};
  int64_t next = baseOffset;
  auto assign = [&](auto op, NVFP4TensorType type) {
    if (op.getRounding() != Rounding::Stochastic)
      return;
    op.setOffset(next);
    next += llvm::divideCeil(type.getNumElements(), kBlockSize);
    if (seed && !op.getSeed())
      op.getSeedMutable().assign(seed);
  };
  func.walk([&](Operation *op) {
    if (auto quantize = dyn_cast<QuantizeOp>(op))
      assign(quantize, quantize.getType());
    else if (auto rescale = dyn_cast<RescaleOp>(op))
      assign(rescale, rescale.getType());
  });
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
    for (BlockArgument arg : func.getArguments()) {
      if (func.getArgAttr(arg.getArgNumber(), kSeedAttrName) &&
          !arg.getType().isInteger(64)) {
        emitError(arg.getLoc())
            << "nvfp4: the argument annotated '" << kSeedAttrName
            << "' must be an i64, got " << arg.getType();
        return signalPassFailure();
      }
    }
    if (baseOffset < 0) {
      func.emitError() << "nvfp4: base-offset must be non-negative";
      return signalPassFailure();
    }
    func.walk([&](QuantizeOp quantize) {
      if (quantize.getRounding() == Rounding::NearestEven &&
          isGradientQuantize(quantize))
        quantize.setRounding(Rounding::Stochastic);
    });
    assignStochasticOffsets(func, baseOffset);
  }
};
} // namespace
