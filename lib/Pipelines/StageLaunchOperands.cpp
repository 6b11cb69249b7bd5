//===- StageLaunchOperands.cpp - Device buffers of kernel operands --------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// nvfp4-gpu-stage-launch-operands: on buffers (after bufferization), gives
// every memref operand of a host gpu.launch_func a device buffer, and keeps
// that buffer across the launches of its block, so that a kernel's output is
// read by the next kernel where it is, without a round trip through the host.
//
// Each block that holds launches is walked in order, tracking per staged
// host buffer which copies are current:
//
// - at a launch: an operand gets a `gpu.alloc` on its first use in the
//   block, a host-to-device `gpu.memcpy` when the kernel reads it and the
//   device copy is not current, and, when the kernel writes it, the device
//   copy becomes the only current one;
// - at any other operation that reads or writes a staged buffer (through
//   any view of it; nested regions included): a device-to-host copy first
//   when the host copy is not current, and when the operation may write
//   the buffer (by its memory effects; any operation without them counts as
//   writing), the device copy is no longer current;
// - at an operation whose blocks hold launches (a loop): a buffer that,
//   inside it, only those launches use, and only read, gets its device copy
//   before the operation, which the nested blocks borrow: a loop-invariant
//   input crosses once, not at each iteration, and a kernel's output the
//   loop reads never goes back to the host;
// - at the end of the block: a device-to-host copy of every buffer the
//   kernels changed and code after the block can see (anything but an
//   allocation of the block itself), then each device buffer is freed after
//   its last use.
//
// Blocks are staged outer first; a nested block's own device copies live
// within it.
//
// A buffer that may share memory with another the staging tracks apart (a
// loop's iteration argument, the result of arith.select or a call, a
// non-constant global), or whose address leaves the memref world (an
// aligned pointer taken for anything but a tensor map, a cast out of the
// memref type, a yield), is copied around each launch (mayAlias), as is
// every buffer with `per-launch`. Function arguments are assumed not to
// alias each other.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Pipelines/Pipelines.h"

#include "nvfp4/Conversion/NVFP4ToGPU/LaunchOperandAccess.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Matmul.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

/// The buffer `value` is a view of (through view-like ops), or `value`.
Value getRootBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view || view.getViewDest() != value)
      break;
    value = view.getViewSource();
  }
  return value;
}

/// `root` and every view of it, transitively (ViewLikeOpInterface).
SmallVector<Value> getViewsOf(Value root) {
  SmallVector<Value> views = {root};
  for (size_t i = 0; i < views.size(); ++i)
    for (Operation *user : views[i].getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == views[i])
        views.push_back(view.getViewDest());
  return views;
}

/// The host value a launch operand is staged as: the byte buffer under a
/// `memref.view` (E2M1 / E4M3 operands are packed bytes the kernel sees
/// with its type), or the operand.
Value getStagedValue(Value operand) {
  if (auto view = operand.getDefiningOp<memref::ViewOp>())
    return view.getSource();
  return operand;
}

/// Whether `root` may share memory with buffers the staging tracks apart
/// (it follows views only), or code may reach its memory other than through
/// `root` and its views (ViewLikeOpInterface). Either way its device copy
/// must not outlive a launch. That is the case for:
/// - `root` itself an alias: a block argument other than a function's (a
///   loop's iteration argument, a successor block's argument), the result
///   of an operation that takes memrefs and is no view (arith.select, a
///   call, an scf loop or branch), or a non-constant global (several
///   `memref.get_global` of it are several roots);
/// - a use of `root` or of a view of it that makes an alias or leaks the
///   address: an aligned pointer taken for anything but a tcgen05 tensor
///   map, a cast to another type, an operation returning a memref, an scf
///   loop or branch passing it into its regions, a terminator other than a
///   function's return passing it on.
/// Function arguments are assumed not to alias each other.
bool mayAlias(Value root) {
  auto isMemRef = [](Type type) {
    return isa<MemRefType, UnrankedMemRefType>(type);
  };
  if (auto arg = dyn_cast<BlockArgument>(root)) {
    if (!isa<FunctionOpInterface>(arg.getOwner()->getParentOp()) ||
        !arg.getOwner()->isEntryBlock())
      return true;
  } else if (auto global = root.getDefiningOp<memref::GetGlobalOp>()) {
    auto symbol = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        global, global.getNameAttr());
    if (!symbol || !symbol.getConstant())
      return true;
  } else if (Operation *def = root.getDefiningOp()) {
    if (isa<RegionBranchOpInterface, CallOpInterface>(def) ||
        llvm::any_of(def->getOperandTypes(), isMemRef))
      return true;
  }
  for (Value value : getViewsOf(root)) {
    for (Operation *user : value.getUsers()) {
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value)
        continue;
      if (isa<memref::ExtractAlignedPointerAsIndexOp>(user)) {
        if (!mlir::nvfp4::isTcgen05TensorMapAddress(user))
          return true;
        continue;
      }
      if (isa<UnrealizedConversionCastOp, RegionBranchOpInterface>(user) ||
          llvm::any_of(user->getResultTypes(), isMemRef) ||
          (user->hasTrait<OpTrait::IsTerminator>() &&
           !(user->hasTrait<OpTrait::ReturnLike>() &&
             isa<FunctionOpInterface>(user->getParentOp()))))
        return true;
    }
  }
  return false;
}

/// Whether `root` and its views are only used in `block` and in the
/// regions of its operations, so that nothing after the block sees them.
bool usedOnlyWithin(Value root, Block &block) {
  for (Value value : getViewsOf(root))
    for (Operation *user : value.getUsers())
      if (!block.findAncestorOpInBlock(*user))
        return false;
  return true;
}

/// How an operation touches a buffer on the host.
struct HostAccess {
  bool reads = false;
  bool writes = false;
  bool frees = false;
};

/// The host accesses of `op` (its nested operations included) per root
/// buffer, for the memref operands whose root is in `tracked`. An operation
/// that does not describe its memory effects reads and writes each of its
/// memref operands; view-like operations and pure address computations (a
/// tensor map's address) access nothing.
llvm::SmallDenseMap<Value, HostAccess>
getHostAccesses(Operation *op, const llvm::DenseSet<Value> &tracked) {
  llvm::SmallDenseMap<Value, HostAccess> accesses;
  op->walk([&](Operation *nested) {
    if (isa<ViewLikeOpInterface>(nested) ||
        mlir::nvfp4::isTcgen05TensorMapAddress(nested))
      return;
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    SmallVector<MemoryEffects::EffectInstance> instances;
    if (effects)
      effects.getEffects(instances);
    for (Value operand : nested->getOperands()) {
      if (!isa<MemRefType, UnrankedMemRefType>(operand.getType()))
        continue;
      Value root = getRootBuffer(operand);
      if (!tracked.contains(root))
        continue;
      HostAccess &access = accesses[root];
      if (!effects) {
        access.reads = access.writes = true;
        continue;
      }
      for (const MemoryEffects::EffectInstance &instance : instances) {
        if (instance.getValue() && instance.getValue() != operand)
          continue;
        if (isa<MemoryEffects::Read>(instance.getEffect()))
          access.reads = true;
        else if (isa<MemoryEffects::Write>(instance.getEffect()))
          access.writes = true;
        else if (isa<MemoryEffects::Free>(instance.getEffect()) && nested == op)
          access.frees = true;
        // A free in a nested region may not happen: the buffer may live on.
        else if (isa<MemoryEffects::Free>(instance.getEffect()))
          access.reads = access.writes = true;
      }
    }
  });
  return accesses;
}

/// The device buffer of one staged host buffer in the block being staged.
struct DeviceCopy {
  /// What the copies move on the host side: the staged value, or a
  /// reinterpret_cast of it (see getOrCreateCopy).
  Value host;
  Value device;
  Value root;
  bool deviceCurrent = false;
  bool hostCurrent = true;
  /// Copied in before and out after each launch.
  bool perLaunch = false;
  /// Lent by the enclosing block, which allocated and frees it: its
  /// launches here only read it.
  bool borrowed = false;
  /// The last operation that uses `device`.
  Operation *lastUse = nullptr;
};

/// The device copies an enclosing block lends to the launches of nested
/// blocks, per nested block, by staged host value.
using LentCopies =
    llvm::DenseMap<Block *, llvm::SmallMapVector<Value, Value, 4>>;

/// Stages the launches of one block.
class BlockStager {
public:
  BlockStager(Block &block, bool perLaunch, LentCopies &lent)
      : block(block), perLaunch(perLaunch), lent(lent) {}

  LogicalResult run() {
    for (auto [key, device] : lent.lookup(&block)) {
      DeviceCopy copy;
      copy.host = key;
      copy.device = device;
      copy.root = getRootBuffer(key);
      copy.deviceCurrent = true;
      copy.borrowed = true;
      copies.insert({key, copy});
    }
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
          launch && isHostLaunch(launch)) {
        if (failed(stageLaunch(launch)))
          return failure();
        continue;
      }
      llvm::DenseSet<Value> lentRoots;
      // Only to scf-like operations, whose regions run before the next
      // operation of the block (not later, as an async region might).
      if (isa<RegionBranchOpInterface>(op) && !perLaunch)
        lentRoots = lendToNestedLaunches(&op);
      synchronizeBefore(&op, lentRoots);
    }
    finish();
    return success();
  }

private:
  /// A launch operand as staged: the host value copied, and the view the
  /// kernel sees the device bytes through, if any.
  struct StagedOperand {
    unsigned index;
    Value key;
    memref::ViewOp view;
  };

  LogicalResult stageLaunch(gpu::LaunchFuncOp launch);
  FailureOr<StagedOperand> getStagedOperand(gpu::LaunchFuncOp launch,
                                            unsigned index);
  DeviceCopy &getOrCreateCopy(OpBuilder &b, Location loc, Value key);
  llvm::SmallDenseMap<Value, unsigned>
  flushOtherViews(OpBuilder &b, Location loc,
                  const llvm::SmallDenseSet<Value> &keys);
  llvm::DenseSet<Value> lendToNestedLaunches(Operation *op);
  void synchronizeBefore(Operation *op, const llvm::DenseSet<Value> &skipped);
  void copyToDevice(OpBuilder &b, Location loc, DeviceCopy &copy);
  void copyToHost(OpBuilder &b, Location loc, DeviceCopy &copy);
  void retire(Value key);
  void finish();

  Block &block;
  bool perLaunch;
  LentCopies &lent;
  /// The device copies in use, by staged host value, in staging order.
  llvm::MapVector<Value, DeviceCopy> copies;
  /// Retired device buffers and their last uses, in retirement order.
  SmallVector<std::pair<Value, Operation *>> retired;
};

FailureOr<BlockStager::StagedOperand>
BlockStager::getStagedOperand(gpu::LaunchFuncOp launch, unsigned index) {
  Value operand = launch.getKernelOperands()[index];
  // A packed byte buffer seen through memref.view: stage the bytes. The
  // view's run-time sizes (values of the host) are the device view's too.
  StagedOperand staged{index, getStagedValue(operand),
                       operand.getDefiningOp<memref::ViewOp>()};
  if (staged.view && !matchPattern(staged.view.getByteShift(), m_Zero()))
    return staged.view.emitOpError()
           << "of a kernel operand must have no byte shift to be staged";
  if (!cast<MemRefType>(staged.key.getType()).getLayout().isIdentity())
    return launch.emitOpError()
           << "kernel operand #" << index
           << " does not have an identity layout; it cannot be copied to the "
              "device as one block";
  return staged;
}

DeviceCopy &BlockStager::getOrCreateCopy(OpBuilder &b, Location loc,
                                         Value key) {
  auto it = copies.find(key);
  if (it != copies.end())
    return it->second;
  DeviceCopy copy;
  copy.root = getRootBuffer(key);
  copy.perLaunch = perLaunch || mayAlias(copy.root);
  // A memref.cast to the identity layout of a strided view that is laid out
  // the same (e.g. a leading-rows slice of a row-major buffer): copy through
  // a reinterpret_cast instead, which the canonicalizer does not fold into
  // the gpu.memcpy (a memcpy of a strided memref has no lowering).
  auto hostType = cast<MemRefType>(key.getType());
  copy.host = key;
  auto hostCast = key.getDefiningOp<memref::CastOp>();
  if (hostCast && hostType.hasStaticShape()) {
    auto sourceType = cast<MemRefType>(hostCast.getSource().getType());
    int64_t sourceOffset = ShapedType::kDynamic;
    SmallVector<int64_t> sourceStrides;
    if (!sourceType.getLayout().isIdentity() &&
        succeeded(
            sourceType.getStridesAndOffset(sourceStrides, sourceOffset)) &&
        sourceOffset == 0) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(hostCast);
      copy.host = memref::ReinterpretCastOp::create(
          b, loc, hostType, hostCast.getSource(), /*offset=*/0,
          hostType.getShape(), hostType.getStridesAndOffset().first);
    }
  }
  // The run-time sizes of the host buffer, read where the copy is made.
  SmallVector<Value> dynamicSizes;
  for (auto [i, size] : llvm::enumerate(hostType.getShape()))
    if (ShapedType::isDynamic(size))
      dynamicSizes.push_back(memref::DimOp::create(b, loc, copy.host, i));
  auto alloc = gpu::AllocOp::create(
      b, loc, MemRefType::get(hostType.getShape(), hostType.getElementType()),
      /*asyncToken=*/Type(), /*asyncDependencies=*/ValueRange{}, dynamicSizes,
      /*symbolOperands=*/ValueRange{},
      /*hostShared=*/false);
  copy.device = alloc.getMemref();
  copy.lastUse = alloc;
  return copies.insert({key, copy}).first->second;
}

LogicalResult BlockStager::stageLaunch(gpu::LaunchFuncOp launch) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitOpError()
           << "is asynchronous; operands are staged before gpu-async-region";
  SmallVector<Value> operands(launch.getKernelOperands());
  SmallVector<int32_t> access;
  if (auto attr = launch->getAttrOfType<DenseI32ArrayAttr>(
          kLaunchOperandAccessAttrName)) {
    access.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
    if (access.size() != operands.size())
      return launch.emitOpError() << kLaunchOperandAccessAttrName
                                  << " does not have one entry per operand";
  } else {
    for (Value v : operands)
      access.push_back(isa<MemRefType>(v.getType())
                           ? kLaunchOperandRead | kLaunchOperandWrite
                           : kLaunchOperandNone);
  }

  SmallVector<StagedOperand> staged;
  for (auto [index, operand] : llvm::enumerate(operands)) {
    if (isa<UnrankedMemRefType>(operand.getType()))
      return launch.emitOpError()
             << "kernel operand #" << index
             << " is an unranked memref; only ranked memrefs are staged";
    if (!isa<MemRefType>(operand.getType()))
      continue;
    FailureOr<StagedOperand> s = getStagedOperand(launch, index);
    if (failed(s))
      return failure();
    staged.push_back(*s);
  }

  OpBuilder b(launch);
  Location loc = launch.getLoc();
  llvm::SmallDenseSet<Value> launchKeys;
  for (const StagedOperand &s : staged)
    launchKeys.insert(s.key);
  llvm::SmallDenseMap<Value, unsigned> keysPerRoot =
      flushOtherViews(b, loc, launchKeys);

  for (StagedOperand &s : staged) {
    DeviceCopy &copy = getOrCreateCopy(b, loc, s.key);
    if (access[s.index] & kLaunchOperandRead)
      copyToDevice(b, loc, copy);
    Value kernelOperand = copy.device;
    if (s.view)
      kernelOperand =
          memref::ViewOp::create(b, loc, s.view.getType(), copy.device,
                                 s.view.getByteShift(), s.view.getSizes());
    launch.getKernelOperandsMutable()[s.index].set(kernelOperand);
    copy.lastUse = launch;
  }
  launch->removeAttr(kLaunchOperandAccessAttrName);

  // After the launch: the written device copies are the current ones.
  b.setInsertionPointAfter(launch);
  for (const StagedOperand &s : staged) {
    if (!(access[s.index] & kLaunchOperandWrite))
      continue;
    DeviceCopy &copy = copies[s.key];
    copy.deviceCurrent = true;
    copy.hostCurrent = false;
  }
  // Buffers copied around each launch, and buffers this launch reaches
  // through several views (each view has its own device copy), go back now.
  for (Value key : llvm::to_vector(copies.keys())) {
    if (!launchKeys.contains(key))
      continue;
    DeviceCopy &copy = copies[key];
    if (copy.perLaunch || keysPerRoot[copy.root] > 1) {
      copyToHost(b, loc, copy);
      retire(key);
    }
  }
  return success();
}

/// Before a use of the staged values `keys`, brings back to the host (and
/// retires) the device copy of every other view of the buffers they reach,
/// so that the use sees its changes; and, for a buffer `keys` reach through
/// several views (each of which then gets its own device copy from the
/// host), every device copy of it. Returns how many of `keys` reach each
/// buffer.
llvm::SmallDenseMap<Value, unsigned>
BlockStager::flushOtherViews(OpBuilder &b, Location loc,
                             const llvm::SmallDenseSet<Value> &keys) {
  llvm::SmallDenseMap<Value, unsigned> keysPerRoot;
  for (Value key : keys)
    ++keysPerRoot[getRootBuffer(key)];
  for (Value key : llvm::to_vector(copies.keys())) {
    DeviceCopy &copy = copies[key];
    unsigned views = keysPerRoot.lookup(copy.root);
    if (views > 1 || (views == 1 && !keys.contains(key))) {
      copyToHost(b, loc, copy);
      retire(key);
    }
  }
  return keysPerRoot;
}

/// Lends device copies to the launches of the blocks of `op` (a loop body,
/// for example) and returns their roots, which `op` then does not touch on
/// the host: the buffers that, inside `op`, only launches directly in its
/// blocks use, each as one staged value defined outside `op` that they only
/// read. The copy is made (or brought up to date) before `op`, once, instead
/// of in each execution of the nested block, and stays current across `op`.
llvm::DenseSet<Value> BlockStager::lendToNestedLaunches(Operation *op) {
  llvm::MapVector<Value, Value> keyOfRoot;
  llvm::DenseSet<Value> refused;
  auto isMemRef = [](Value v) {
    return isa<MemRefType, UnrankedMemRefType>(v.getType());
  };
  // `op` itself passing a buffer into its regions (loop-carried values, for
  // example) aliases it with block arguments.
  for (Value operand : op->getOperands())
    if (isMemRef(operand))
      refused.insert(getRootBuffer(operand));
  op->walk([&](Operation *nested) {
    if (nested == op || isa<ViewLikeOpInterface>(nested) ||
        mlir::nvfp4::isTcgen05TensorMapAddress(nested))
      return;
    auto launch = dyn_cast<gpu::LaunchFuncOp>(nested);
    DenseI32ArrayAttr access =
        launch && isHostLaunch(launch) && launch->getParentOp() == op
            ? launch->getAttrOfType<DenseI32ArrayAttr>(
                  kLaunchOperandAccessAttrName)
            : nullptr;
    for (OpOperand &use : nested->getOpOperands()) {
      Value value = use.get();
      if (!isMemRef(value))
        continue;
      Value root = getRootBuffer(value);
      std::optional<unsigned> index =
          access ? getKernelOperandIndex(launch, use) : std::nullopt;
      if (!index || *index >= static_cast<unsigned>(access.size()) ||
          access[*index] != kLaunchOperandRead) {
        refused.insert(root);
        continue;
      }
      Value key = getStagedValue(value);
      auto keyType = dyn_cast<MemRefType>(key.getType());
      if (!keyType || !keyType.hasStaticShape() ||
          !keyType.getLayout().isIdentity() ||
          op->isAncestor(key.getParentRegion()->getParentOp())) {
        refused.insert(root);
        continue;
      }
      auto [it, inserted] = keyOfRoot.insert({root, key});
      if (!inserted && it->second != key)
        refused.insert(root);
    }
  });

  llvm::DenseSet<Value> lentRoots;
  OpBuilder b(op);
  for (auto [root, key] : keyOfRoot) {
    if (refused.contains(root) || mayAlias(root))
      continue;
    flushOtherViews(b, op->getLoc(), {key});
    DeviceCopy &copy = getOrCreateCopy(b, op->getLoc(), key);
    copyToDevice(b, op->getLoc(), copy);
    copy.lastUse = op;
    for (Region &region : op->getRegions())
      for (Block &nested : region)
        lent[&nested].insert({key, copy.device});
    lentRoots.insert(root);
  }
  return lentRoots;
}

void BlockStager::copyToDevice(OpBuilder &b, Location loc, DeviceCopy &copy) {
  if (copy.deviceCurrent)
    return;
  gpu::MemcpyOp::create(b, loc, /*asyncToken=*/Type(), ValueRange{},
                        copy.device, copy.host);
  copy.deviceCurrent = true;
}

void BlockStager::copyToHost(OpBuilder &b, Location loc, DeviceCopy &copy) {
  if (copy.hostCurrent)
    return;
  copy.lastUse = gpu::MemcpyOp::create(b, loc, /*asyncToken=*/Type(),
                                       ValueRange{}, copy.host, copy.device);
  copy.hostCurrent = true;
}

void BlockStager::retire(Value key) {
  DeviceCopy copy = copies.lookup(key);
  if (!copy.borrowed)
    retired.push_back({copy.device, copy.lastUse});
  copies.erase(key);
}

void BlockStager::synchronizeBefore(Operation *op,
                                    const llvm::DenseSet<Value> &skipped) {
  if (copies.empty())
    return;
  llvm::DenseSet<Value> trackedRoots;
  for (auto &[key, copy] : copies)
    trackedRoots.insert(copy.root);
  llvm::SmallDenseMap<Value, HostAccess> accesses =
      getHostAccesses(op, trackedRoots);
  for (Value root : skipped)
    accesses.erase(root);
  if (accesses.empty())
    return;
  OpBuilder b(op);
  for (Value key : llvm::to_vector(copies.keys())) {
    DeviceCopy &copy = copies[key];
    auto it = accesses.find(copy.root);
    if (it == accesses.end())
      continue;
    const HostAccess &access = it->second;
    // A freed buffer's contents are dead.
    if (access.frees && !access.reads && !access.writes) {
      retire(key);
      continue;
    }
    copyToHost(b, op->getLoc(), copy);
    if (access.writes || access.frees)
      copy.deviceCurrent = false;
    if (access.frees)
      retire(key);
  }
}

void BlockStager::finish() {
  // Copies the code after the block may read: all but buffers of the block
  // itself that nothing after it uses (the terminator's uses were
  // synchronized above). Before the terminator, or at the end of a block
  // without one.
  OpBuilder b(block.getParent()->getContext());
  Location loc = block.getParent()->getLoc();
  if (block.mightHaveTerminator()) {
    b.setInsertionPoint(block.getTerminator());
    loc = block.getTerminator()->getLoc();
  } else {
    b.setInsertionPointToEnd(&block);
  }
  for (Value key : llvm::to_vector(copies.keys())) {
    DeviceCopy &copy = copies[key];
    Operation *def = copy.root.getDefiningOp();
    bool blockLocal = def && def->getBlock() == &block &&
                      isa<memref::AllocOp, memref::AllocaOp>(def) &&
                      usedOnlyWithin(copy.root, block);
    if (!blockLocal && !copy.borrowed)
      copyToHost(b, loc, copy);
    retire(key);
  }
  // Each device buffer is freed after its last use; buffers that share a
  // last use are freed in the order they were retired.
  llvm::DenseMap<Operation *, Operation *> insertAfter;
  for (auto [device, lastUse] : retired) {
    Operation *&after = insertAfter[lastUse];
    if (!after)
      after = lastUse;
    OpBuilder b(after->getContext());
    b.setInsertionPointAfter(after);
    after = gpu::DeallocOp::create(b, lastUse->getLoc(), /*asyncToken=*/Type(),
                                   ValueRange{}, device);
  }
}

struct StageLaunchOperandsPass
    : public PassWrapper<StageLaunchOperandsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(StageLaunchOperandsPass)

  StageLaunchOperandsPass() = default;
  StageLaunchOperandsPass(const StageLaunchOperandsPass &other)
      : PassWrapper(other) {}
  explicit StageLaunchOperandsPass(bool perLaunch) {
    this->perLaunch = perLaunch;
  }

  StringRef getArgument() const override {
    return "nvfp4-gpu-stage-launch-operands";
  }
  StringRef getDescription() const override {
    return "Give the memref operands of host gpu.launch_func ops device "
           "buffers (gpu.alloc, gpu.memcpy, gpu.dealloc), kept on the device "
           "across the launches of a block and copied back only where host "
           "code or code after the block reads them";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect, memref::MemRefDialect>();
  }

  void runOnOperation() override {
    // Every block holding launches, at any depth; outer blocks first: an
    // operation holding launches in its regions still uses the host buffers
    // when its own block is staged, and lends device copies to its blocks.
    SmallVector<Block *> blocks;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      for (Region &region : op->getRegions())
        for (Block &block : region) {
          WalkResult found = block.walk([](gpu::LaunchFuncOp launch) {
            return isHostLaunch(launch) ? WalkResult::interrupt()
                                        : WalkResult::advance();
          });
          if (found.wasInterrupted())
            blocks.push_back(&block);
        }
      return WalkResult::advance();
    });
    LentCopies lent;
    for (Block *block : blocks)
      if (failed(BlockStager(*block, perLaunch, lent).run()))
        return signalPassFailure();
  }

  Option<bool> perLaunch{
      *this, "per-launch",
      llvm::cl::desc("Copy every operand to the device before each launch "
                     "and back after it (for operands the kernel writes), "
                     "instead of keeping buffers on the device across the "
                     "launches of a block"),
      llvm::cl::init(false)};
};
} // namespace

std::unique_ptr<Pass>
mlir::nvfp4::createGPUStageLaunchOperandsPass(bool perLaunch) {
  return std::make_unique<StageLaunchOperandsPass>(perLaunch);
}

void mlir::nvfp4::registerGPUStageLaunchOperandsPass() {
  PassRegistration<StageLaunchOperandsPass>();
}
