//===- OutlineLoopNests.cpp - Loop nests of large functions outlined ------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Moves every top-level op holding regions (a loop nest, an scf.if) of a
// large function into a private function of its own, so that no large
// function holds a region when convert-scf-to-cf splits blocks (see
// Passes.td). Identical outlined functions are shared.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::nvfp4 {
#define GEN_PASS_DEF_OUTLINELOOPNESTS
#include "nvfp4/Transforms/Passes.h.inc"
} // namespace mlir::nvfp4

using namespace mlir;

namespace {

struct OutlineLoopNestsPass
    : public nvfp4::impl::OutlineLoopNestsBase<OutlineLoopNestsPass> {
  using Base::Base;
  void runOnOperation() override;

private:
  /// Outlines `nest` (a top-level op of `func`) into a new function placed
  /// after `last` (which then becomes that function), or calls an identical
  /// one outlined before.
  void outline(func::FuncOp func, Operation *nest, unsigned &counter,
               Operation *&last);

  /// Outlined functions by their body's printed form (the name left out).
  llvm::StringMap<func::FuncOp> functionsByBody;
  SymbolTable *symbols = nullptr;
};

/// The printed form of `func` without its name: the key under which
/// identical outlined functions are shared.
std::string printedBody(func::FuncOp func) {
  std::string name = func.getSymName().str();
  func.setSymName("outlined");
  std::string text;
  llvm::raw_string_ostream os(text);
  func->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
  func.setSymName(name);
  return text;
}

} // namespace

void OutlineLoopNestsPass::outline(func::FuncOp func, Operation *nest,
                                   unsigned &counter, Operation *&last) {
  // Inputs: the nest's operands and the values its regions use from
  // outside, in order of first use; constants are cloned in instead.
  llvm::SetVector<Value> used;
  for (Value operand : nest->getOperands())
    used.insert(operand);
  nest->walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (!nest->isAncestor(operand.getParentRegion()->getParentOp()))
        used.insert(operand);
  });
  SmallVector<Value> inputs;
  SmallVector<Operation *> constants;
  for (Value value : used) {
    Operation *def = value.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>() &&
        def->getNumResults() == 1)
      constants.push_back(def);
    else
      inputs.push_back(value);
  }

  OpBuilder b(func.getContext());
  b.setInsertionPointAfter(last);
  auto type = b.getFunctionType(ValueRange(inputs).getTypes(),
                                nest->getResultTypes());
  auto outlined = func::FuncOp::create(
      b, nest->getLoc(), (func.getName() + "_nest" + Twine(counter)).str(),
      type);
  outlined.setPrivate();
  Block *body = outlined.addEntryBlock();
  IRMapping mapping;
  for (auto [input, arg] : llvm::zip(inputs, body->getArguments()))
    mapping.map(input, arg);
  b.setInsertionPointToStart(body);
  for (Operation *constant : constants)
    b.clone(*constant, mapping);
  Operation *copy = b.clone(*nest, mapping);
  // Discardable attributes (the recipe's annotations: layer, role,
  // precision) are not semantics, and would keep the same op of every layer
  // from being shared.
  copy->setDiscardableAttrs(DictionaryAttr::get(func.getContext()));
  func::ReturnOp::create(b, nest->getLoc(), copy->getResults());

  // Share the function of an identical nest.
  std::string key = printedBody(outlined);
  auto [it, inserted] = functionsByBody.try_emplace(key, outlined);
  if (inserted) {
    symbols->insert(outlined);
    last = outlined;
    ++counter;
  } else {
    outlined.erase();
  }
  b.setInsertionPoint(nest);
  auto call = func::CallOp::create(b, nest->getLoc(), it->second, inputs);
  nest->replaceAllUsesWith(call.getResults());
  nest->erase();
}

void OutlineLoopNestsPass::runOnOperation() {
  ModuleOp module = getOperation();
  SymbolTable table(module);
  symbols = &table;
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  for (func::FuncOp func : funcs) {
    if (func.isExternal())
      continue;
    Block &entry = func.getBody().front();
    // Single-block functions only: after the bufferized pipelines' loop
    // lowering (before convert-scf-to-cf) a function body is one block.
    if (!func.getBody().hasOneBlock())
      continue;
    SmallVector<Operation *> nests;
    for (Operation &op : entry)
      if (op.getNumRegions() > 0)
        nests.push_back(&op);
    if (nests.size() < minLoopNests)
      continue;
    unsigned counter = 0;
    Operation *last = func;
    for (Operation *nest : nests)
      outline(func, nest, counter, last);
  }
  functionsByBody.clear();
}
