//===- ScaleLayoutUtils.cpp - Scale layouts at function boundaries --------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Utils/ScaleLayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::nvfp4;

/// Whether `attr` names the atoms layout.
static bool isAtoms(ScaleLayoutAttr attr) {
  return attr && attr.getValue() == ScaleLayout::Atoms;
}

bool mlir::nvfp4::isAtomsScaleLayoutSink(OpOperand &use) {
  Operation *owner = use.getOwner();
  const unsigned index = use.getOperandNumber();
  if (isa<func::ReturnOp>(owner)) {
    auto function = dyn_cast<func::FuncOp>(owner->getParentOp());
    return function && isAtoms(function.getResultAttrOfType<ScaleLayoutAttr>(
                           index, NVFP4Dialect::kScaleLayoutAttrName));
  }
  if (auto call = dyn_cast<func::CallOp>(owner)) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    return callee && index < callee.getNumArguments() &&
           isAtoms(callee.getArgAttrOfType<ScaleLayoutAttr>(
               index, NVFP4Dialect::kScaleLayoutAttrName));
  }
  return false;
}

bool mlir::nvfp4::isAtomsScaleLayoutSource(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto function = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    return function && arg.getOwner()->isEntryBlock() &&
           isAtoms(function.getArgAttrOfType<ScaleLayoutAttr>(
               arg.getArgNumber(), NVFP4Dialect::kScaleLayoutAttrName));
  }
  auto call = value.getDefiningOp<func::CallOp>();
  if (!call)
    return false;
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  const unsigned index = cast<OpResult>(value).getResultNumber();
  return callee && index < callee.getNumResults() &&
         isAtoms(callee.getResultAttrOfType<ScaleLayoutAttr>(
             index, NVFP4Dialect::kScaleLayoutAttrName));
}

/// Row-major bytes viewed as [R/128, 4, 32, C/4, 4] (row block, row / 32 %
/// 4, row % 32, column block, column % 4) are the atoms' [R/128, C/4, 32,
/// 4, 4] (byte ((r / 128) * (C / 4) + c / 4) * 512 + (r % 32) * 16 +
/// (r / 32 % 4) * 4 + c % 4) with dimensions 1 and 3 swapped, both ways.
Value mlir::nvfp4::createScaleRelayout(OpBuilder &b, Location loc, Value scales,
                                       bool toAtoms) {
  auto type = cast<RankedTensorType>(scales.getType());
  const int64_t cols = type.getShape().back();
  const int64_t rows = type.getNumElements() / cols;
  Type i8 = b.getI8Type();
  auto bytesType = type.clone(i8);
  Value bytes = arith::BitcastOp::create(b, loc, bytesType, scales);
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(type.getRank()));
  auto flatType = RankedTensorType::get({type.getNumElements()}, i8);
  Value flat = tensor::CollapseShapeOp::create(
      b, loc, flatType, bytes, ArrayRef<ReassociationIndices>{all});
  const int64_t rowBlocks = rows / kScaleAtomRows,
                colBlocks = cols / kScaleAtomBlocks;
  SmallVector<int64_t> rowMajorShape = {rowBlocks, 4, 32, colBlocks, 4};
  SmallVector<int64_t> atomsShape = {rowBlocks, colBlocks, 32, 4, 4};
  ReassociationIndices five = {0, 1, 2, 3, 4};
  Value view = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(toAtoms ? rowMajorShape : atomsShape, i8),
      flat, ArrayRef<ReassociationIndices>{five});
  Value empty =
      tensor::EmptyOp::create(b, loc, toAtoms ? atomsShape : rowMajorShape, i8);
  Value permuted = linalg::TransposeOp::create(b, loc, view, empty,
                                               ArrayRef<int64_t>{0, 3, 2, 1, 4})
                       ->getResult(0);
  Value permutedFlat = tensor::CollapseShapeOp::create(
      b, loc, flatType, permuted, ArrayRef<ReassociationIndices>{five});
  Value shaped = tensor::ExpandShapeOp::create(
      b, loc, bytesType, permutedFlat, ArrayRef<ReassociationIndices>{all});
  return arith::BitcastOp::create(b, loc, type, shaped);
}

/// Splits the uses of `source`, which arrives in atoms, between the value
/// the atoms readers and sinks take and a row-major copy.
static void splitAtomsSource(OpBuilder &b, Value source,
                             const BoundaryScaleLayoutHooks &hooks) {
  if (source.use_empty())
    return;
  Location loc = source.getLoc();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfterValue(source);
  DisassembleOp parts;
  auto getParts = [&] {
    if (!parts) {
      OpBuilder::InsertionGuard partsGuard(b);
      b.setInsertionPointAfterValue(source);
      parts = DisassembleOp::create(b, loc, source);
    }
    return parts;
  };
  Value atoms = source;
  if (hooks.createAtomsValue) {
    DisassembleOp components = getParts();
    b.setInsertionPointAfter(components);
    atoms = hooks.createAtomsValue(b, source, components);
  }
  Value rowMajor;
  for (OpOperand &use : llvm::make_early_inc_range(source.getUses())) {
    if (use.getOwner() == parts)
      continue;
    if (isAtomsScaleLayoutSink(use) ||
        (hooks.readsAtoms && hooks.readsAtoms(use))) {
      use.set(atoms);
      continue;
    }
    if (!rowMajor) {
      DisassembleOp components = getParts();
      b.setInsertionPointAfterValue(atoms == source ? components.getAmax()
                                                    : atoms);
      Value scales = createScaleRelayout(b, loc, components.getScales(),
                                         /*toAtoms=*/false);
      rowMajor =
          AssembleOp::create(b, loc, source.getType(), components.getData(),
                             scales, components.getAmax());
    }
    if (hooks.report)
      use.getOwner()->emitRemark()
          << "nvfp4: fallback: operand #" << use.getOperandNumber()
          << " arrives with its scales in the atoms layout (its "
             "nvfp4.scale_layout) and is relaid out to row-major on the "
             "host: '"
          << use.getOwner()->getName() << "' reads row-major scales here";
    use.set(rowMajor);
  }
}

void mlir::nvfp4::materializeBoundaryScaleLayouts(
    ModuleOp module, const BoundaryScaleLayoutHooks &hooks) {
  SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
  OpBuilder b(module.getContext());
  // Values arriving in atoms: arguments, then call results.
  SmallVector<Value> sources;
  SmallVector<Operation *> sinks;
  for (func::FuncOp function : functions) {
    if (function.isExternal())
      continue;
    for (BlockArgument arg : function.getArguments())
      if (isAtomsScaleLayoutSource(arg))
        sources.push_back(arg);
    function.walk([&](Operation *op) {
      if (!isa<func::ReturnOp, func::CallOp>(op))
        return;
      sinks.push_back(op);
      for (Value result : op->getResults())
        if (isAtomsScaleLayoutSource(result))
          sources.push_back(result);
    });
  }
  for (Value source : sources)
    splitAtomsSource(b, source, hooks);

  // Values leaving in atoms that have none.
  for (Operation *sink : sinks) {
    for (OpOperand &use : sink->getOpOperands()) {
      Value value = use.get();
      if (!isa<NVFP4TensorType>(value.getType()) ||
          !isAtomsScaleLayoutSink(use) || isAtomsScaleLayoutSource(value) ||
          (hooks.writesAtoms && hooks.writesAtoms(value)))
        continue;
      if (hooks.report) {
        Operation *def = value.getDefiningOp();
        sink->emitRemark()
            << "nvfp4: fallback: operand #" << use.getOperandNumber()
            << " leaves with its scales in the atoms layout (the "
               "nvfp4.scale_layout of the "
            << (isa<func::ReturnOp>(sink) ? "result" : "callee's argument")
            << ") and is relaid out from row-major on the host: "
            << (def ? "'" + def->getName().getStringRef().str() +
                          "' does not write its scales in atoms"
                    : std::string("it arrives with row-major scales"));
      }
      b.setInsertionPoint(sink);
      Location loc = sink->getLoc();
      auto parts = DisassembleOp::create(b, loc, value);
      Value scales =
          createScaleRelayout(b, loc, parts.getScales(), /*toAtoms=*/true);
      use.set(AssembleOp::create(b, loc, value.getType(), parts.getData(),
                                 scales, parts.getAmax()));
    }
  }
}

void mlir::nvfp4::dropBoundaryScaleLayouts(ModuleOp module) {
  StringRef name = NVFP4Dialect::kScaleLayoutAttrName;
  for (func::FuncOp function : module.getOps<func::FuncOp>()) {
    for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
      function.removeArgAttr(i, name);
    for (unsigned i = 0, e = function.getNumResults(); i < e; ++i)
      function.removeResultAttr(i, StringAttr::get(module.getContext(), name));
  }
}
