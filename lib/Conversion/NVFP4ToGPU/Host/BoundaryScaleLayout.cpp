//===- BoundaryScaleLayout.cpp - Scale layouts at function boundaries -----===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// An NVFP4 value crosses a function boundary (argument, result, call
// operand or call result) with its scale buffer in the layout the function's
// `nvfp4.scale_layout` names: the dialect's row-major matrix, or the 128x4
// atoms of the block-scaled MMA, which the tcgen05 matmul kernel loads by
// bulk copies instead of its producer lanes' loads and stores. Inside the
// function the value means the same either way; this file makes the
// lowering honour the layout:
//
// - a value that arrives in atoms becomes an atoms-layout value (KernelIR.h)
//   for the matmul operands whose kernel reads atoms and for the sinks, and
//   a row-major copy, relaid out on the host, for every other use;
// - a value that leaves in atoms is written in atoms by its quantize kernel
//   or NVFP4 epilogue (producesTcgen05ScaleAtoms counts the sink), passed on
//   unchanged if it arrived in atoms, and relaid out on the host otherwise.
//
// The relayouts and the bookkeeping of sources and sinks are the dialect's
// (ScaleLayoutUtils.h); this file says which kernels read and write atoms.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Host/BoundaryScaleLayout.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Matmul.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Dialect/NVFP4/Utils/ScaleLayoutUtils.h"

#include "KernelIR.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::nvfp4;
namespace tc = ::nvfp4::gpu::tcgen05;

/// Gives `function` the atoms layout at every boundary position that has
/// no layout and can hold atoms.
static void assignDefaultLayouts(func::FuncOp function) {
  StringRef name = NVFP4Dialect::kScaleLayoutAttrName;
  // Created for an NVFP4 type only, whose dialect is loaded.
  auto getAtoms = [](NVFP4TensorType type) {
    return ScaleLayoutAttr::get(type.getContext(), ScaleLayout::Atoms);
  };
  auto eligible = [](Type type) {
    auto tensorType = dyn_cast<NVFP4TensorType>(type);
    return tensorType && getAtomsScaleLayoutBlocker(tensorType).empty();
  };
  for (auto [index, type] : llvm::enumerate(function.getArgumentTypes()))
    if (eligible(type) && !function.getArgAttr(index, name))
      function.setArgAttr(index, name, getAtoms(cast<NVFP4TensorType>(type)));
  for (auto [index, type] : llvm::enumerate(function.getResultTypes()))
    if (eligible(type) && !function.getResultAttr(index, name))
      function.setResultAttr(index, name,
                             getAtoms(cast<NVFP4TensorType>(type)));
}

void mlir::nvfp4::prepareBoundaryScaleLayouts(ModuleOp module, GPUTarget target,
                                              tc::CtaPairMode ctaPair,
                                              bool atomsByDefault,
                                              bool report) {
  if (atomsByDefault && isTcgen05Target(target))
    for (func::FuncOp function : module.getOps<func::FuncOp>())
      assignDefaultLayouts(function);

  BoundaryScaleLayoutHooks hooks;
  hooks.report = report;
  if (isTcgen05Target(target)) {
    hooks.readsAtoms = [&](OpOperand &use) {
      auto matmul = dyn_cast<MatmulOp>(use.getOwner());
      return matmul && canReadTcgen05ScaleAtoms(matmul, use.getOperandNumber(),
                                                target, ctaPair);
    };
    hooks.createAtomsValue = [](OpBuilder &b, Value source,
                                DisassembleOp parts) {
      return mlir::nvfp4::detail::createTcgen05AtomsNVFP4Value(
          b, source.getLoc(), source.getType(), parts.getData(),
          parts.getScales(), parts.getAmax());
    };
    hooks.writesAtoms = [&](Value value) {
      Operation *def = value.getDefiningOp();
      if (mlir::nvfp4::detail::isTcgen05AtomsNVFP4Value(def))
        return true;
      auto quantize = dyn_cast_or_null<QuantizeOp>(def);
      return quantize && quantize.getType().isNVFP4() &&
             producesTcgen05ScaleAtoms(quantize, target, ctaPair);
    };
  }
  materializeBoundaryScaleLayouts(module, hooks);
}

/// Why the matmul operand `operand`, which the tcgen05 kernel could read as
/// atoms, has row-major scales; `def` is its producer (through a
/// padded-storage view), null for a block argument.
static std::string getRowMajorOperandReason(Value operand, Operation *def) {
  if (auto arg = dyn_cast<BlockArgument>(operand)) {
    auto function = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    std::string name = "argument #" + std::to_string(arg.getArgNumber()) +
                       (function ? " of @" + function.getSymName().str() : "");
    std::string blocker =
        getAtomsScaleLayoutBlocker(cast<NVFP4TensorType>(arg.getType()));
    if (!blocker.empty())
      return name + " crosses the function boundary row-major: " + blocker;
    return name + " has row-major scales at the function boundary (its "
                  "nvfp4.scale_layout, or boundary-scale-layout=row-major)";
  }
  if (isa<func::CallOp>(def))
    return "the callee returns it with row-major scales";
  if (isa<QuantizeOp>(def))
    return "the quantization has a use that reads row-major scales (or "
           "leaves the function row-major)";
  return "'" + def->getName().getStringRef().str() +
         "' produces row-major scales";
}

/// Leaves `nvfp4.lowered_scale_layout` = atoms on each argument and result
/// whose `nvfp4.scale_layout` is atoms: the lowered function's interface,
/// which drivers that fill or read its buffers must follow.
static void recordAtomsScaleLayouts(ModuleOp module) {
  StringRef name = NVFP4Dialect::kScaleLayoutAttrName;
  StringRef record = NVFP4Dialect::kLoweredScaleLayoutAttrName;
  auto isAtoms = [](Attribute attr) {
    auto layout = dyn_cast_or_null<ScaleLayoutAttr>(attr);
    return layout && layout.getValue() == ScaleLayout::Atoms;
  };
  for (func::FuncOp function : module.getOps<func::FuncOp>()) {
    for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
      if (Attribute attr = function.getArgAttr(i, name); isAtoms(attr))
        function.setArgAttr(i, record, attr);
    for (unsigned i = 0, e = function.getNumResults(); i < e; ++i)
      if (Attribute attr = function.getResultAttr(i, name); isAtoms(attr))
        function.setResultAttr(i, record, attr);
  }
}

void mlir::nvfp4::reportRowMajorTcgen05Operands(ModuleOp module,
                                                GPUTarget target,
                                                tc::CtaPairMode ctaPair) {
  // canReadTcgen05ScaleAtoms holds only for NVFP4 operands of matmuls the
  // tcgen05 kernel takes.
  module.walk([&](MatmulOp op) {
    if (isLeftForHost(op, target))
      return;
    for (unsigned index : {0u, 1u}) {
      Value operand = op->getOperand(index);
      Operation *def = operand.getDefiningOp();
      if (mlir::nvfp4::detail::isPaddedStorageView(def))
        def = def->getOperand(0).getDefiningOp();
      // Staged scales (16x16 blocks) come by TMA too.
      if (!canReadTcgen05ScaleAtoms(op, index, target, ctaPair) ||
          stagesTcgen05Scales(op, index, target, ctaPair) ||
          mlir::nvfp4::detail::isTcgen05AtomsNVFP4Value(def) ||
          (isa_and_nonnull<QuantizeOp>(def) &&
           def->hasAttr(mlir::nvfp4::detail::kTcgen05ScaleAtomsAttrName)))
        continue;
      op.emitRemark()
          << "nvfp4: fallback: the producer warp loads and stores the "
             "row-major scales of operand #"
          << index
          << " of the tcgen05 matmul instead of bulk-copying 128x4 atoms: "
          << getRowMajorOperandReason(operand, def);
    }
  });
}

void mlir::nvfp4::finishBoundaryScaleLayouts(ModuleOp module) {
  SmallVector<Operation *> atomsValues;
  module.walk([&](Operation *op) {
    if (mlir::nvfp4::detail::isTcgen05AtomsNVFP4Value(op) &&
        !op->getParentOfType<gpu::GPUModuleOp>())
      atomsValues.push_back(op);
  });
  OpBuilder b(module.getContext());
  for (Operation *op : atomsValues) {
    Value components;
    for (OpOperand &use :
         llvm::make_early_inc_range(op->getResult(0).getUses())) {
      if (!isAtomsScaleLayoutSink(use))
        continue;
      // The components of a value that arrived in atoms: that value.
      auto parts = op->getOperand(0).getDefiningOp<DisassembleOp>();
      if (!components && parts &&
          op->getOperands() == parts->getResults().take_front(3))
        components = parts.getInput();
      if (!components) {
        b.setInsertionPointAfter(op);
        components = AssembleOp::create(
            b, op->getLoc(), op->getResult(0).getType(), op->getOperand(0),
            op->getOperand(1), op->getOperand(2));
      }
      use.set(components);
    }
  }
  recordAtomsScaleLayouts(module);
  dropBoundaryScaleLayouts(module);
}
