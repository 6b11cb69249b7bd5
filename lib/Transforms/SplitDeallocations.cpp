//===- SplitDeallocations.cpp - One dealloc per distinct allocation -------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Splits `bufferization.dealloc` ops whose memrefs are distinct allocations
// into one dealloc per allocation, in time linear in the op's operands, so
// that the upstream simplification never sees the block-sized dealloc it
// would compare pairwise (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::nvfp4 {
#define GEN_PASS_DEF_SPLITDEALLOCATIONS
#include "nvfp4/Transforms/Passes.h.inc"
} // namespace mlir::nvfp4

using namespace mlir;

namespace {

/// The buffer `value` is a view of, through view-like ops.
Value getViewBase(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

bool isAllocation(Value value) {
  return value.getDefiningOp<memref::AllocOp>() ||
         value.getDefiningOp<memref::AllocaOp>();
}

/// Whether the buffer `base` cannot alias an allocation made in `func`
/// other than itself: another allocation, a global, or an argument of the
/// function.
bool isDistinctFromAllocations(Value base, func::FuncOp func) {
  if (isAllocation(base) || base.getDefiningOp<memref::GetGlobalOp>())
    return true;
  auto arg = dyn_cast<BlockArgument>(base);
  return arg && arg.getOwner() == &func.getBody().front();
}

/// Splits `dealloc` if its memrefs are distinct allocations and every
/// retained value has a known origin; returns whether it did.
bool splitDealloc(bufferization::DeallocOp dealloc, func::FuncOp func,
                  RewriterBase &rewriter) {
  ValueRange memrefs = dealloc.getMemrefs();
  if (memrefs.size() < 2)
    return false;
  llvm::DenseMap<Value, unsigned> indexOfMemref;
  for (auto [i, memref] : llvm::enumerate(memrefs))
    if (!isAllocation(memref) || !indexOfMemref.try_emplace(memref, i).second)
      return false;
  // The retained values that come from each memref.
  SmallVector<SmallVector<unsigned>> retainedOf(memrefs.size());
  for (auto [j, retained] : llvm::enumerate(dealloc.getRetained())) {
    Value base = getViewBase(retained);
    auto it = indexOfMemref.find(base);
    if (it != indexOfMemref.end())
      retainedOf[it->second].push_back(j);
    else if (!isDistinctFromAllocations(base, func))
      return false;
  }

  rewriter.setInsertionPoint(dealloc);
  Location loc = dealloc.getLoc();
  ValueRange retained = dealloc.getRetained();
  SmallVector<Value> updated(retained.size());
  for (auto [i, memref] : llvm::enumerate(memrefs)) {
    SmallVector<Value> keep;
    for (unsigned j : retainedOf[i])
      keep.push_back(retained[j]);
    auto split = bufferization::DeallocOp::create(
        rewriter, loc, ValueRange{memref},
        ValueRange{dealloc.getConditions()[i]}, keep);
    // A retained value comes from one memref at most: its updated
    // condition is that split's.
    for (auto [k, j] : llvm::enumerate(retainedOf[i]))
      updated[j] = split.getResult(k);
  }
  Value falseValue;
  for (Value &u : updated) {
    if (u)
      continue;
    if (!falseValue)
      falseValue = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getBoolAttr(false));
    u = falseValue;
  }
  rewriter.replaceOp(dealloc, updated);
  return true;
}

struct SplitDeallocationsPass
    : public nvfp4::impl::SplitDeallocationsBase<SplitDeallocationsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<bufferization::DeallocOp> deallocs;
    func.walk([&](bufferization::DeallocOp op) { deallocs.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (bufferization::DeallocOp dealloc : deallocs)
      splitDealloc(dealloc, func, rewriter);
  }
};

} // namespace
