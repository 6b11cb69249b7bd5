//===- CloneSharedInits.cpp - One destination tensor per op ---------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Clones shared `tensor.empty` / `linalg.fill` destinations per user, so
// that One-Shot Bufferize does not compare every use of one shared
// destination with every other (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::nvfp4 {
#define GEN_PASS_DEF_CLONESHAREDINITS
#include "nvfp4/Transforms/Passes.h.inc"
} // namespace mlir::nvfp4

using namespace mlir;

namespace {

/// Whether `value` is a destination this pass copies: a tensor.empty, or a
/// linalg.fill on tensors of a scalar into a tensor.empty.
bool isClonableInit(Value value) {
  if (value.getDefiningOp<tensor::EmptyOp>())
    return true;
  auto fill = value.getDefiningOp<linalg::FillOp>();
  return fill && fill.hasPureTensorSemantics() &&
         fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
}

/// A copy of the init `value` built at `b`'s insertion point.
Value cloneInit(OpBuilder &b, Value value) {
  Operation *def = value.getDefiningOp();
  IRMapping mapping;
  if (auto fill = dyn_cast<linalg::FillOp>(def)) {
    Value empty = fill.getOutputs()[0];
    mapping.map(empty, b.clone(*empty.getDefiningOp())->getResult(0));
  }
  return b.clone(*def, mapping)->getResult(0);
}

struct CloneSharedInitsPass
    : public nvfp4::impl::CloneSharedInitsBase<CloneSharedInitsPass> {
  void runOnOperation() override {
    SmallVector<OpOperand *> shared;
    getOperation().walk([&](DestinationStyleOpInterface op) {
      for (OpOperand &init : op.getDpsInitsMutable())
        if (isClonableInit(init.get()) && !init.get().hasOneUse())
          shared.push_back(&init);
    });
    OpBuilder b(&getContext());
    for (OpOperand *init : shared) {
      Value value = init->get();
      if (value.hasOneUse())
        continue; // the last use keeps the original
      b.setInsertionPoint(init->getOwner());
      init->set(cloneInit(b, value));
    }
  }
};

} // namespace
