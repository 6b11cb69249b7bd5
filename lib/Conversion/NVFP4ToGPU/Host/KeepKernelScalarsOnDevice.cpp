//===- KeepKernelScalarsOnDevice.cpp - Scalars passed by reference --------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// nvfp4-keep-kernel-scalars-on-device: a scalar that host code loads from a
// one-element buffer a kernel wrote (a tensor amax), and passes to later
// kernels, reaches them as the buffer instead, loaded in the kernel, so that
// the host does not wait for the first kernel to read it.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/Passes.h"

#include "nvfp4/Conversion/NVFP4ToGPU/LaunchOperandAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <map>

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_KEEPKERNELSCALARSONDEVICE
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

/// The buffer `load` reads when kernels of its block may read that buffer
/// instead of the loaded value: a `memref<1xT>` (scalar `T`) allocated in the
/// load's block, that a host launch uses, whose uses are only launches,
/// stores, loads and deallocations (no alias through which it could change
/// unseen), all in the load's block, and whose launches and stores come
/// before the load, so that nothing changes it after the load. Null
/// otherwise.
static Value getForwardableBuffer(memref::LoadOp load) {
  MemRefType type = load.getMemRefType();
  if (type.getRank() != 1 || type.getDimSize(0) != 1 ||
      !type.getLayout().isIdentity() || type.getMemorySpace() ||
      !type.getElementType().isIntOrIndexOrFloat() ||
      !llvm::all_of(load.getIndices(),
                    [](Value index) { return matchPattern(index, m_Zero()); }))
    return nullptr;
  auto alloc = load.getMemRef().getDefiningOp<memref::AllocOp>();
  Block *block = load->getBlock();
  if (!alloc || alloc->getBlock() != block)
    return nullptr;
  bool writtenByKernel = false;
  for (Operation *user : alloc->getUsers()) {
    if (!isa<gpu::LaunchFuncOp, memref::StoreOp, memref::LoadOp,
             memref::DeallocOp>(user))
      return nullptr;
    if (isa<memref::LoadOp>(user))
      continue;
    if (user->getBlock() != block)
      return nullptr;
    if (isa<memref::DeallocOp>(user))
      continue;
    if (!user->isBeforeInBlock(load))
      return nullptr;
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(user))
      writtenByKernel |= isHostLaunch(launch);
  }
  return writtenByKernel ? alloc.getResult() : nullptr;
}

/// The copy of `kernel` whose operands `indices` (ascending) are
/// `memref<1xT>` buffers of what `kernel` takes as `T`, each loaded at the
/// start of the entry block; created the first time.
static gpu::GPUFuncOp getByReferenceKernel(gpu::GPUFuncOp kernel,
                                           ArrayRef<unsigned> indices) {
  std::string name = kernel.getName().str() + "_byref";
  for (auto [n, index] : llvm::enumerate(indices))
    name += (n ? "_" : "") + std::to_string(index);
  SmallVector<Type> inputs(kernel.getArgumentTypes());
  for (unsigned index : indices)
    inputs[index] = MemRefType::get({1}, inputs[index]);
  auto type =
      FunctionType::get(kernel.getContext(), inputs, kernel.getResultTypes());
  auto module = kernel->getParentOfType<gpu::GPUModuleOp>();
  if (Operation *existing = module.lookupSymbol(name)) {
    auto copy = dyn_cast<gpu::GPUFuncOp>(existing);
    return copy && copy.getFunctionType() == type ? copy : nullptr;
  }

  // Before `kernel`, after the copies made before: in the order they are
  // made.
  OpBuilder b(kernel);
  auto clone = cast<gpu::GPUFuncOp>(b.clone(*kernel));
  SymbolTable::setSymbolName(clone, name);
  Block &entry = clone.getBody().front();
  b.setInsertionPointToStart(&entry);
  Value zero = arith::ConstantIndexOp::create(b, clone.getLoc(), 0);
  for (unsigned index : indices) {
    BlockArgument scalar = entry.getArgument(index);
    auto referenceType = MemRefType::get({1}, scalar.getType());
    BlockArgument reference =
        entry.insertArgument(index, referenceType, scalar.getLoc());
    Value loaded =
        memref::LoadOp::create(b, scalar.getLoc(), reference, ValueRange{zero});
    scalar.replaceAllUsesWith(loaded);
    entry.eraseArgument(index + 1);
    // Attributes of the scalar do not describe the buffer.
    clone.setArgAttrs(index, ArrayRef<NamedAttribute>{});
  }
  clone.setFunctionTypeAttr(TypeAttr::get(type));
  return clone;
}

namespace {
struct KeepKernelScalarsOnDevicePass
    : public mlir::nvfp4::impl::KeepKernelScalarsOnDeviceBase<
          KeepKernelScalarsOnDevicePass> {
  void runOnOperation() override {
    SmallVector<memref::LoadOp> loads;
    getOperation().walk([&](memref::LoadOp load) {
      if (!load->getParentOfType<gpu::GPUModuleOp>())
        loads.push_back(load);
    });
    // Per launch, the kernel operands to pass by reference and their
    // buffers, in the order the loads come.
    llvm::MapVector<gpu::LaunchFuncOp, std::map<unsigned, Value>> byReference;
    SmallVector<memref::LoadOp> forwarded;
    for (memref::LoadOp load : loads) {
      Value buffer = getForwardableBuffer(load);
      if (!buffer)
        continue;
      // The last operation of the load's block that holds such a launch
      // (the launch itself, or a loop around it).
      Operation *lastLaunch = nullptr;
      for (OpOperand &use : load.getResult().getUses()) {
        auto launch = dyn_cast<gpu::LaunchFuncOp>(use.getOwner());
        Operation *holder =
            launch ? load->getBlock()->findAncestorOpInBlock(*launch) : nullptr;
        if (!holder || !isHostLaunch(launch) ||
            !SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
                launch, launch.getKernel()))
          continue;
        std::optional<unsigned> index = getKernelOperandIndex(launch, use);
        if (!index)
          continue;
        byReference[launch][*index] = buffer;
        if (!lastLaunch || lastLaunch->isBeforeInBlock(holder))
          lastLaunch = holder;
      }
      if (!lastLaunch)
        continue;
      // The buffer lives until the last launch that reads it (its
      // deallocation after those of buffers moved there before).
      Operation *after = lastLaunch;
      while (after->getNextNode() &&
             isa<memref::DeallocOp>(after->getNextNode()))
        after = after->getNextNode();
      for (Operation *user : llvm::to_vector(buffer.getUsers()))
        if (isa<memref::DeallocOp>(user) && user->isBeforeInBlock(lastLaunch))
          user->moveAfter(after);
      forwarded.push_back(load);
    }

    // Each launch calls the copy of its kernel that takes those operands by
    // reference.
    llvm::SetVector<gpu::GPUFuncOp> replaced;
    for (auto &[launch, buffers] : byReference) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      SmallVector<unsigned> indices;
      SmallVector<int32_t> access;
      if (auto recorded = launch->getAttrOfType<DenseI32ArrayAttr>(
              kLaunchOperandAccessAttrName))
        access.assign(recorded.asArrayRef().begin(),
                      recorded.asArrayRef().end());
      for (auto &[index, buffer] : buffers)
        indices.push_back(index);
      gpu::GPUFuncOp copy = getByReferenceKernel(kernel, indices);
      if (!copy)
        continue;
      for (unsigned index : indices)
        launch.getKernelOperandsMutable()[index].set(buffers[index]);
      launch.setKernelAttr(
          SymbolRefAttr::get(launch.getKernelModuleName(),
                             {FlatSymbolRefAttr::get(copy.getNameAttr())}));
      // The kernel reads the buffers.
      if (!access.empty()) {
        for (unsigned index : indices)
          if (index < access.size())
            access[index] = kLaunchOperandRead;
        launch->setAttr(kLaunchOperandAccessAttrName,
                        DenseI32ArrayAttr::get(launch.getContext(), access));
      }
      replaced.insert(kernel);
    }
    for (memref::LoadOp load : forwarded)
      if (load.getResult().use_empty())
        load.erase();

    // Kernels nothing refers to any more.
    for (gpu::GPUFuncOp kernel : replaced)
      if (SymbolTable::symbolKnownUseEmpty(kernel, getOperation()))
        kernel.erase();
  }
};
} // namespace
