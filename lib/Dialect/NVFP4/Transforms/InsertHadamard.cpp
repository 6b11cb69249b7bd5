//===- InsertHadamard.cpp - Hadamard transform of wgrad operands ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Applies the 16x16 random Hadamard transform to both operands of the
// weight-gradient GEMMs, before their amax, as the NVFP4 recipe prescribes.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"
#include "nvfp4/Dialect/NVFP4/Transforms/RecipeUtils.h"

#include "mlir/IR/Builders.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4INSERTHADAMARD
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

/// Whether every user of `quantize` is an operand of a wgrad matmul.
static bool onlyFeedsWgrad(QuantizeOp quantize) {
  return llvm::all_of(quantize->getUsers(), [](Operation *user) {
    return isa<MatmulOp>(user) && getRole(user) == "wgrad";
  });
}

namespace {
struct NVFP4InsertHadamardPass
    : public nvfp4::impl::NVFP4InsertHadamardBase<NVFP4InsertHadamardPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<MatmulOp> wgrads;
    // The transform is part of the NVFP4 recipe: MX GEMMs are left alone.
    getOperation().walk([&](MatmulOp matmul) {
      if (getRole(matmul) == "wgrad" && matmul.getLhs().getType().isNVFP4())
        wgrads.push_back(matmul);
    });
    OpBuilder builder(&getContext());
    for (MatmulOp matmul : wgrads) {
      for (OpOperand *operand : {&matmul.getLhsMutable(),
                                 &matmul.getRhsMutable()}) {
        auto quantize = operand->get().getDefiningOp<QuantizeOp>();
        if (!quantize) {
          // Nothing here can take the transform: a fallback, reported.
          matmul.emitRemark()
              << "nvfp4: fallback: wgrad operand #"
              << operand->getOperandNumber()
              << " does not get the Hadamard transform: it is not produced "
                 "by nvfp4.quantize (transform its input before quantizing)";
          continue;
        }
        if (quantize.getHadamard() ||
            quantize.getInput().getDefiningOp<HadamardOp>())
          continue;
        if (!onlyFeedsWgrad(quantize)) {
          // Keep the other users' operand as it is.
          builder.setInsertionPoint(quantize);
          quantize = cast<QuantizeOp>(builder.clone(*quantize));
          operand->set(quantize.getResult());
        }
        quantize.setHadamard(getDefaultHadamardSigns());
      }
    }
  }
};
} // namespace
