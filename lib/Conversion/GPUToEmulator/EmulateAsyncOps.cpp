//===- EmulateAsyncOps.cpp - Cluster, mbarrier, TMA and tcgen05 ops -------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The part of nvfp4-emulate-gpu-kernels that rewrites the operations of the
// sm_90+ asynchronous machinery and of the 5th-generation tensor core
// (clusters, mbarriers, TMA and bulk copies, proxy fences, `elect.sync`,
// tcgen05) into calls of libnvfp4_gpu_emulator, and the conversions between
// shared pointers and integers, whose values are PTX shared addresses.
//
//===----------------------------------------------------------------------===//

#include "EmulatorSymbols.h"

#include "nvfp4/ExecutionEngine/GPUEmulator.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::nvfp4::detail;
using ::nvfp4::emulator::Tcgen05MmaKind;

namespace {

/// Builds the replacement of one operation.
class AsyncOpRewriter {
public:
  AsyncOpRewriter(Operation *op, Value thread, ModuleOp module,
                  function_ref<Value(OpBuilder &, Location)> locationOf)
      : op(op), thread(thread), module(module), locationOf(locationOf),
        b(op), loc(op->getLoc()), ctx(op->getContext()),
        i8(IntegerType::get(ctx, 8)), i16(IntegerType::get(ctx, 16)),
        i32(IntegerType::get(ctx, 32)), i64(IntegerType::get(ctx, 64)),
        ptr(LLVM::LLVMPointerType::get(ctx)),
        voidType(LLVM::LLVMVoidType::get(ctx)) {}

  LogicalResult rewrite(bool &handled);

private:
  Value call(StringRef name, Type result, ValueRange args) {
    SmallVector<Value> all = {thread};
    llvm::append_range(all, args);
    LLVM::CallOp callOp = createRuntimeCall(b, loc, module, name, result, all);
    return result == voidType ? Value() : callOp.getResult();
  }
  Value constant(Type type, int64_t value) {
    return LLVM::ConstantOp::create(b, loc, type, value);
  }
  /// `value` zero-extended or truncated to `type`.
  Value castInteger(Value value, Type type) {
    unsigned from = value.getType().getIntOrFloatBitWidth();
    unsigned to = type.getIntOrFloatBitWidth();
    if (from < to)
      return LLVM::ZExtOp::create(b, loc, type, value);
    if (from > to)
      return LLVM::TruncOp::create(b, loc, type, value);
    return value;
  }
  Value pairFlag(bool pair) { return constant(i32, pair ? 1 : 0); }
  Value location() { return locationOf(b, loc); }
  LogicalResult unsupported(const Twine &what) {
    return op->emitError("nvfp4-emulate-gpu-kernels: ")
           << what << " is not modelled by the GPU emulator yet";
  }
  /// Replaces the operation by `value` (or erases it when null). A generic
  /// pointer from the runtime is cast back to the result's address space,
  /// which the rewriting of later operations inspects (the address spaces
  /// are dropped at the end).
  LogicalResult replace(Value value = Value()) {
    if (value) {
      Type type = op->getResult(0).getType();
      if (value.getType() != type && isa<LLVM::LLVMPointerType>(type))
        value = LLVM::AddrSpaceCastOp::create(b, loc, type, value);
      op->getResult(0).replaceAllUsesWith(value);
    }
    op->erase();
    return success();
  }

  LogicalResult rewritePointerCast();
  LogicalResult rewriteMbarrier();
  LogicalResult rewriteCopies();
  LogicalResult rewriteTcgen05();

  Operation *op;
  Value thread;
  ModuleOp module;
  function_ref<Value(OpBuilder &, Location)> locationOf;
  OpBuilder b;
  Location loc;
  MLIRContext *ctx;
  Type i8, i16, i32, i64, ptr, voidType;
};

/// Whether `type` is a pointer to shared (3) or shared::cluster (7) memory.
bool isSharedPointer(Type type) {
  auto pointer = dyn_cast<LLVM::LLVMPointerType>(type);
  return pointer &&
         (pointer.getAddressSpace() == 3 || pointer.getAddressSpace() == 7);
}

bool isPair(std::optional<NVVM::CTAGroupKind> group) {
  return group && *group == NVVM::CTAGroupKind::CTA_2;
}

} // namespace

LogicalResult AsyncOpRewriter::rewritePointerCast() {
  // Shared pointers are host pointers into the emulated shared memory;
  // as integers they are PTX shared addresses (descriptors encode them).
  if (auto toInt = dyn_cast<LLVM::PtrToIntOp>(op)) {
    Value address = call("nvfp4EmuSharedToInt", i64, {toInt.getArg()});
    return replace(castInteger(address, toInt.getType()));
  }
  auto toPtr = cast<LLVM::IntToPtrOp>(op);
  Value address = castInteger(toPtr.getArg(), i64);
  return replace(call("nvfp4EmuIntToShared", ptr, {address}));
}

LogicalResult AsyncOpRewriter::rewriteMbarrier() {
  if (auto init = dyn_cast<NVVM::MBarrierInitOp>(op)) {
    if (init.getPredicate())
      return unsupported("a predicated mbarrier.init");
    call("nvfp4EmuMbarrierInit", voidType,
         {init.getAddr(), castInteger(init.getCount(), i32)});
    return replace();
  }
  if (auto arrive = dyn_cast<NVVM::MBarrierArriveOp>(op)) {
    if (arrive.getCount())
      return unsupported("mbarrier.arrive with a count");
    Value state = call("nvfp4EmuMbarrierArrive", i64, {arrive.getAddr()});
    if (arrive.getRes())
      return replace(castInteger(state, arrive.getRes().getType()));
    return replace();
  }
  if (auto arrive = dyn_cast<NVVM::MBarrierArriveExpectTxOp>(op)) {
    if (arrive.getPredicate())
      return unsupported("a predicated mbarrier.arrive.expect_tx");
    // expect-tx, then arrive (PTX ISA: in this order, atomically; no other
    // thread runs in between here).
    call("nvfp4EmuMbarrierExpectTx", voidType,
         {arrive.getAddr(), castInteger(arrive.getTxcount(), i32)});
    Value state = call("nvfp4EmuMbarrierArrive", i64, {arrive.getAddr()});
    if (arrive->getNumResults() == 1)
      return replace(castInteger(state, arrive->getResult(0).getType()));
    return replace();
  }
  if (auto expect = dyn_cast<NVVM::MBarrierExpectTxOp>(op)) {
    call("nvfp4EmuMbarrierExpectTx", voidType,
         {expect.getAddr(), castInteger(expect.getTxcount(), i32)});
    return replace();
  }
  auto wait = cast<NVVM::MBarrierTryWaitOp>(op);
  // An i32 operand is the phase parity (try_wait.parity); an i64 one the
  // state of an arrival.
  if (!wait.getStateOrPhase().getType().isInteger(32))
    return unsupported("mbarrier.try_wait on an arrival state");
  Value done = call("nvfp4EmuMbarrierTryWaitParity", i8,
                    {wait.getAddr(), wait.getStateOrPhase()});
  return replace(castInteger(done, wait.getRes().getType()));
}

LogicalResult AsyncOpRewriter::rewriteCopies() {
  if (auto tma = dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(op)) {
    if (tma.getCoordinates().size() != 2 ||
        tma.getMode() != NVVM::TMALoadMode::TILE || tma.getMulticastMask() ||
        tma.getPredicate() || tma.getIm2colOffsets().size() ||
        tma.getL2CacheHint())
      return unsupported("cp.async.bulk.tensor other than a 2-D tile load "
                         "without multicast, predicate or cache hint");
    call("nvfp4EmuTmaLoad2D", voidType,
         {tma.getDstMem(), tma.getTmaDescriptor(), tma.getMbar(),
          castInteger(tma.getCoordinates()[0], i32),
          castInteger(tma.getCoordinates()[1], i32),
          pairFlag(isPair(tma.getGroup())), location()});
    return replace();
  }
  auto bulk = cast<NVVM::CpAsyncBulkGlobalToSharedClusterOp>(op);
  if (bulk.getMulticastMask() || bulk.getL2CacheHint())
    return unsupported("cp.async.bulk with multicast or a cache hint");
  call("nvfp4EmuBulkCopy", voidType,
       {bulk.getDstMem(), bulk.getSrcMem(), castInteger(bulk.getSize(), i32),
        bulk.getMbar(), location()});
  return replace();
}

LogicalResult AsyncOpRewriter::rewriteTcgen05() {
  if (auto alloc = dyn_cast<NVVM::Tcgen05AllocOp>(op)) {
    call("nvfp4EmuTcgen05Alloc", voidType,
         {alloc.getAddr(), castInteger(alloc.getNCols(), i32),
          pairFlag(alloc.getGroup() == NVVM::CTAGroupKind::CTA_2),
          location()});
    return replace();
  }
  if (auto dealloc = dyn_cast<NVVM::Tcgen05DeallocOp>(op)) {
    call("nvfp4EmuTcgen05Dealloc", voidType,
         {dealloc.getTaddr(), castInteger(dealloc.getNCols(), i32),
          pairFlag(dealloc.getGroup() == NVVM::CTAGroupKind::CTA_2),
          location()});
    return replace();
  }
  if (auto relinquish = dyn_cast<NVVM::Tcgen05RelinquishAllocPermitOp>(op)) {
    call("nvfp4EmuTcgen05Relinquish", voidType,
         {pairFlag(relinquish.getGroup() == NVVM::CTAGroupKind::CTA_2),
          location()});
    return replace();
  }
  // The emulator executes every tcgen05 operation in its thread's order and
  // tcgen05.ld at once: the ordering fences and the load wait are no-ops.
  if (isa<NVVM::Tcgen05FenceOp, NVVM::Tcgen05WaitOp>(op))
    return replace();
  if (auto copy = dyn_cast<NVVM::Tcgen05CpOp>(op)) {
    if (copy.getShape() != NVVM::Tcgen05CpShape::SHAPE_32x128b ||
        copy.getMulticast() != NVVM::Tcgen05CpMulticast::WARPX4 ||
        copy.getSrcFormat())
      return unsupported("tcgen05.cp other than .32x128b.warpx4");
    call("nvfp4EmuTcgen05Copy", voidType,
         {copy.getTaddr(), copy.getSmemDesc(),
          pairFlag(copy.getGroup() == NVVM::CTAGroupKind::CTA_2),
          location()});
    return replace();
  }
  if (auto mma = dyn_cast<NVVM::Tcgen05MMABlockScaleOp>(op)) {
    // The kinds with the scale vectors the kernels use.
    std::optional<Tcgen05MmaKind> kind;
    if (mma.getKind() == NVVM::MMABlockScaleKind::MXF4NVF4 &&
        mma.getBlockScale() == NVVM::Tcgen05MMABlockScale::BLOCK16)
      kind = Tcgen05MmaKind::Mxf4Nvf4Block16;
    else if (mma.getKind() == NVVM::MMABlockScaleKind::MXF4 &&
             mma.getBlockScale() == NVVM::Tcgen05MMABlockScale::BLOCK32)
      kind = Tcgen05MmaKind::Mxf4Block32;
    else if (mma.getKind() == NVVM::MMABlockScaleKind::MXF8F6F4 &&
             mma.getBlockScale() == NVVM::Tcgen05MMABlockScale::BLOCK32)
      kind = Tcgen05MmaKind::Mxf8f6f4Block32;
    if (!kind || mma.getCollectorOp() != NVVM::Tcgen05MMACollectorOp::DISCARD ||
        !mma.getMatrixA().getType().isInteger(64))
      return unsupported("tcgen05.mma.block_scale other than "
                         "kind::mxf4nvf4.block16, kind::mxf4.block32 or "
                         "kind::mxf8f6f4.block32 with A in shared memory");
    call("nvfp4EmuTcgen05MmaBlockScaled", voidType,
         {constant(i32, static_cast<int64_t>(*kind)), mma.getMatrixD(),
          mma.getMatrixA(), mma.getMatrixB(), castInteger(mma.getIdesc(), i32),
          castInteger(mma.getEnableInputD(), i8), mma.getScaleA(),
          mma.getScaleB(),
          pairFlag(mma.getCtaGroup() == NVVM::CTAGroupKind::CTA_2),
          location()});
    return replace();
  }
  if (auto commit = dyn_cast<NVVM::Tcgen05CommitOp>(op)) {
    Value mask = commit.getMulticastMask()
                     ? castInteger(commit.getMulticastMask(), i32)
                     : constant(i32, -1);
    call("nvfp4EmuTcgen05Commit", voidType,
         {commit.getAddr(), mask,
          pairFlag(commit.getGroup() == NVVM::CTAGroupKind::CTA_2),
          location()});
    return replace();
  }
  auto load = cast<NVVM::Tcgen05LdOp>(op);
  Type type = load.getRes().getType();
  auto vector = dyn_cast<VectorType>(type);
  int64_t count = vector ? vector.getNumElements() : 1;
  if (load.getShape() != NVVM::Tcgen05LdStShape::SHAPE_32X32B ||
      load.getPack() || load.getOffset() ||
      !(vector ? vector.getElementType() : type).isInteger(32))
    return unsupported("tcgen05.ld other than .32x32b of b32 values");
  // The values land in an entry-block slot and are read back.
  auto fn = op->getParentOfType<LLVM::LLVMFuncOp>();
  Value slot;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&fn.getBody().front());
    slot = LLVM::AllocaOp::create(b, loc, ptr, i32, constant(i32, count));
  }
  call("nvfp4EmuTcgen05Load32x32b", voidType,
       {load.getTmemAddr(), constant(i32, count), slot, location()});
  // The slot is an array of i32: 4-byte aligned.
  return replace(LLVM::LoadOp::create(b, loc, type, slot, /*alignment=*/4));
}

LogicalResult AsyncOpRewriter::rewrite(bool &handled) {
  handled = true;
  if (isa<LLVM::PtrToIntOp>(op) && isSharedPointer(op->getOperand(0).getType()))
    return rewritePointerCast();
  if (isa<LLVM::IntToPtrOp>(op) && isSharedPointer(op->getResult(0).getType()))
    return rewritePointerCast();
  if (isa<NVVM::MBarrierInitOp, NVVM::MBarrierArriveOp,
          NVVM::MBarrierArriveExpectTxOp, NVVM::MBarrierExpectTxOp,
          NVVM::MBarrierTryWaitOp>(op))
    return rewriteMbarrier();
  if (isa<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp,
          NVVM::CpAsyncBulkGlobalToSharedClusterOp>(op))
    return rewriteCopies();
  if (isa<NVVM::Tcgen05AllocOp, NVVM::Tcgen05DeallocOp,
          NVVM::Tcgen05RelinquishAllocPermitOp, NVVM::Tcgen05FenceOp,
          NVVM::Tcgen05WaitOp, NVVM::Tcgen05CpOp, NVVM::Tcgen05MMABlockScaleOp,
          NVVM::Tcgen05CommitOp, NVVM::Tcgen05LdOp>(op))
    return rewriteTcgen05();
  if (auto prefetch = dyn_cast<NVVM::PrefetchOp>(op)) {
    // In the parameter space: a byval kernel parameter, whose address is
    // the launch's copy of its bytes under the emulator.
    auto isByValParameter = [](Value address) {
      auto arg = dyn_cast<BlockArgument>(address);
      auto fn = arg ? dyn_cast<LLVM::LLVMFuncOp>(arg.getOwner()->getParentOp())
                    : LLVM::LLVMFuncOp();
      return fn && arg.getOwner()->isEntryBlock() &&
             fn.getArgAttr(arg.getArgNumber(),
                           LLVM::LLVMDialect::getByValAttrName());
    };
    if (!prefetch.getTensormap() || prefetch.getPredicate() ||
        (prefetch.getInParamSpace() && !isByValParameter(prefetch.getAddr())))
      return unsupported("prefetch other than prefetch.tensormap of a "
                         "generic address or of a byval kernel parameter");
    call("nvfp4EmuPrefetchTensorMap", voidType,
         {prefetch.getAddr(), location()});
    return replace();
  }
  if (auto mapa = dyn_cast<NVVM::MapaOp>(op))
    return replace(call("nvfp4EmuMapa", ptr,
                        {mapa.getA(), castInteger(mapa.getB(), i32)}));
  if (auto elect = dyn_cast<NVVM::ElectSyncOp>(op)) {
    Value mask =
        elect.getMembermask() ? elect.getMembermask() : constant(i32, -1);
    Value elected = call("nvfp4EmuElectSync", i8, {mask});
    return replace(castInteger(elected, elect.getPred().getType()));
  }
  if (isa<NVVM::ClusterArriveOp, NVVM::ClusterArriveRelaxedOp>(op)) {
    call("nvfp4EmuClusterArrive", voidType, {});
    return replace();
  }
  if (isa<NVVM::ClusterWaitOp>(op)) {
    call("nvfp4EmuClusterWait", voidType, {});
    return replace();
  }
  if (auto fence = dyn_cast<NVVM::FenceProxyOp>(op)) {
    if (fence.getKind() != NVVM::ProxyKind::async_shared)
      return unsupported("fence.proxy other than .async.shared::cta");
    call("nvfp4EmuFenceProxyAsync", voidType, {});
    return replace();
  }
  // Every operation runs in program order on a sequentially consistent
  // memory: the barrier-initialization fence orders nothing more.
  if (isa<NVVM::FenceMbarrierInitOp>(op))
    return replace();
  handled = false;
  return success();
}

LogicalResult mlir::nvfp4::detail::rewriteAsyncOp(
    Operation *op, Value thread, ModuleOp module,
    function_ref<Value(OpBuilder &, Location)> locationOf, bool &handled) {
  return AsyncOpRewriter(op, thread, module, locationOf).rewrite(handled);
}
