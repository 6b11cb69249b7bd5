//===- GridConstantKernelParams.cpp - Byval grid-constant parameters ------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// nvfp4-grid-constant-kernel-params: an aggregate kernel argument that the
// kernel only spills to a stack slot in order to take its address (a TMA
// tensor map) becomes a byval grid-constant parameter, read in place.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_GRIDCONSTANTKERNELPARAMS
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;

namespace {
/// The stack slot an aggregate kernel argument is only spilled to.
struct SpilledArgument {
  LLVM::StoreOp store;
  LLVM::AllocaOp slot;
};
} // namespace

/// Whether `user` only reads through `slot`: a load from it, or a TMA
/// operation or tensor-map prefetch taking it as its tensor map.
static bool onlyReads(Operation *user, Value slot) {
  if (auto load = dyn_cast<LLVM::LoadOp>(user))
    return load.getAddr() == slot;
  if (auto prefetch = dyn_cast<NVVM::PrefetchOp>(user))
    return prefetch.getTensormap() && prefetch.getAddr() == slot;
  auto readsMap = [&](auto op) {
    return llvm::count(user->getOperands(), slot) == 1 &&
           op.getTmaDescriptor() == slot;
  };
  if (auto op = dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(user))
    return readsMap(op);
  if (auto op = dyn_cast<NVVM::CpAsyncBulkTensorPrefetchOp>(user))
    return readsMap(op);
  if (auto op = dyn_cast<NVVM::CpAsyncBulkTensorReduceOp>(user))
    return readsMap(op);
  if (auto op = dyn_cast<NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(user))
    return readsMap(op);
  return false;
}

/// The store of `arg` into a one-element slot of its type in the entry
/// block, when that is the argument's only use and the slot is otherwise
/// only read (onlyReads).
static std::optional<SpilledArgument> getSpilledArgument(BlockArgument arg) {
  if (!isa<LLVM::LLVMArrayType, LLVM::LLVMStructType>(arg.getType()) ||
      !arg.hasOneUse())
    return std::nullopt;
  auto store = dyn_cast<LLVM::StoreOp>(*arg.getUsers().begin());
  if (!store || store.getValue() != arg || store->getBlock() != arg.getOwner())
    return std::nullopt;
  auto slot = store.getAddr().getDefiningOp<LLVM::AllocaOp>();
  if (!slot || slot->getBlock() != arg.getOwner() ||
      slot.getElemType() != arg.getType() ||
      !matchPattern(slot.getArraySize(), m_One()))
    return std::nullopt;
  for (Operation *user : slot->getUsers())
    if (user != store.getOperation() && !onlyReads(user, slot.getResult()))
      return std::nullopt;
  return SpilledArgument{store, slot};
}

namespace {
struct GridConstantKernelParamsPass
    : public mlir::nvfp4::impl::GridConstantKernelParamsBase<
          GridConstantKernelParamsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    getOperation().walk([&](LLVM::LLVMFuncOp fn) {
      if (fn.isExternal() ||
          !fn->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
        return;
      Block &entry = fn.getBody().front();
      LLVM::LLVMFunctionType type = fn.getFunctionType();
      SmallVector<Type> params(type.getParams());
      bool changed = false;
      for (BlockArgument arg : entry.getArguments()) {
        std::optional<SpilledArgument> spilled = getSpilledArgument(arg);
        if (!spilled)
          continue;
        unsigned index = arg.getArgNumber();
        Type aggregate = arg.getType();
        uint64_t alignment = spilled->slot.getAlignment().value_or(1);
        spilled->store.erase();
        arg.setType(ptrType);
        spilled->slot.getResult().replaceAllUsesWith(arg);
        // A tensor-map prefetch of the parameter reads the parameter space
        // (`prefetch.param.tensormap`): through the generic address, the
        // NVPTX back end issues a generic prefetch as well.
        for (Operation *user : arg.getUsers())
          if (auto prefetch = dyn_cast<NVVM::PrefetchOp>(user);
              prefetch && prefetch.getTensormap())
            prefetch.setInParamSpace(true);
        Value size = spilled->slot.getArraySize();
        spilled->slot.erase();
        if (Operation *sizeOp = size.getDefiningOp();
            sizeOp && sizeOp->use_empty())
          sizeOp->erase();
        params[index] = ptrType;
        fn.setArgAttr(index, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(aggregate));
        fn.setArgAttr(index, LLVM::LLVMDialect::getAlignAttrName(),
                      IntegerAttr::get(IntegerType::get(ctx, 64), alignment));
        fn.setArgAttr(index, NVVM::NVVMDialect::getGridConstantAttrName(),
                      UnitAttr::get(ctx));
        changed = true;
      }
      if (changed)
        fn.setFunctionType(LLVM::LLVMFunctionType::get(
            type.getReturnType(), params, type.isVarArg()));
    });
  }
};
} // namespace
