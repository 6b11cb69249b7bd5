//===- EmulateGPUKernels.cpp - NVVM kernels as host functions -------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// nvfp4-emulate-gpu-kernels moves the kernels of every gpu.module (NVVM and
// LLVM dialects, as they go to the NVVM target) into the host module and
// replaces their NVVM operations by calls of libnvfp4_gpu_emulator. The
// kernel bodies are otherwise the very IR that would be compiled to PTX.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/GPUToEmulator/GPUToEmulator.h"

#include "nvfp4/ExecutionEngine/GPUEmulator.h"

#include "EmulatorSymbols.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_EMULATEGPUKERNELS
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4::detail;
using ::nvfp4::emulator::ShuffleMode;
using ::nvfp4::emulator::SpecialRegister;

LLVM::LLVMFuncOp mlir::nvfp4::detail::getOrCreateRuntimeFunction(
    ModuleOp module, StringRef name, Type result, ArrayRef<Type> params) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  return LLVM::LLVMFuncOp::create(
      b, module.getLoc(), name,
      LLVM::LLVMFunctionType::get(result, params, /*isVarArg=*/false));
}

LLVM::CallOp mlir::nvfp4::detail::createRuntimeCall(OpBuilder &b, Location loc,
                                                    ModuleOp module,
                                                    StringRef name, Type result,
                                                    ValueRange args) {
  SmallVector<Type> types;
  for (Type type : args.getTypes())
    types.push_back(isa<LLVM::LLVMPointerType>(type)
                        ? LLVM::LLVMPointerType::get(b.getContext())
                        : type);
  return LLVM::CallOp::create(
      b, loc, getOrCreateRuntimeFunction(module, name, result, types), args);
}

/// `file:line:col` of the innermost file location in `loc`.
static std::string getLocationText(Location loc) {
  std::string text = "an unknown location";
  loc->walk([&](Location inner) {
    auto file = dyn_cast<FileLineColLoc>(inner);
    if (!file)
      return WalkResult::advance();
    text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
               .str();
    return WalkResult::interrupt();
  });
  return text;
}

/// The special register an NVVM `read.ptx.sreg` operation reads.
static std::optional<SpecialRegister> getSpecialRegister(Operation *op) {
  return llvm::StringSwitch<std::optional<SpecialRegister>>(
             op->getName().getStringRef())
      .Case("nvvm.read.ptx.sreg.tid.x", SpecialRegister::TidX)
      .Case("nvvm.read.ptx.sreg.tid.y", SpecialRegister::TidY)
      .Case("nvvm.read.ptx.sreg.tid.z", SpecialRegister::TidZ)
      .Case("nvvm.read.ptx.sreg.ntid.x", SpecialRegister::NtidX)
      .Case("nvvm.read.ptx.sreg.ntid.y", SpecialRegister::NtidY)
      .Case("nvvm.read.ptx.sreg.ntid.z", SpecialRegister::NtidZ)
      .Case("nvvm.read.ptx.sreg.ctaid.x", SpecialRegister::CtaidX)
      .Case("nvvm.read.ptx.sreg.ctaid.y", SpecialRegister::CtaidY)
      .Case("nvvm.read.ptx.sreg.ctaid.z", SpecialRegister::CtaidZ)
      .Case("nvvm.read.ptx.sreg.nctaid.x", SpecialRegister::NctaidX)
      .Case("nvvm.read.ptx.sreg.nctaid.y", SpecialRegister::NctaidY)
      .Case("nvvm.read.ptx.sreg.nctaid.z", SpecialRegister::NctaidZ)
      .Case("nvvm.read.ptx.sreg.laneid", SpecialRegister::LaneId)
      .Case("nvvm.read.ptx.sreg.warpid", SpecialRegister::WarpId)
      .Case("nvvm.read.ptx.sreg.clusterid.x", SpecialRegister::ClusterIdX)
      .Case("nvvm.read.ptx.sreg.clusterid.y", SpecialRegister::ClusterIdY)
      .Case("nvvm.read.ptx.sreg.clusterid.z", SpecialRegister::ClusterIdZ)
      .Case("nvvm.read.ptx.sreg.nclusterid.x", SpecialRegister::NclusterIdX)
      .Case("nvvm.read.ptx.sreg.nclusterid.y", SpecialRegister::NclusterIdY)
      .Case("nvvm.read.ptx.sreg.nclusterid.z", SpecialRegister::NclusterIdZ)
      .Case("nvvm.read.ptx.sreg.cluster.ctaid.x",
            SpecialRegister::ClusterCtaidX)
      .Case("nvvm.read.ptx.sreg.cluster.ctaid.y",
            SpecialRegister::ClusterCtaidY)
      .Case("nvvm.read.ptx.sreg.cluster.ctaid.z",
            SpecialRegister::ClusterCtaidZ)
      .Case("nvvm.read.ptx.sreg.cluster.nctaid.x",
            SpecialRegister::ClusterNctaidX)
      .Case("nvvm.read.ptx.sreg.cluster.nctaid.y",
            SpecialRegister::ClusterNctaidY)
      .Case("nvvm.read.ptx.sreg.cluster.nctaid.z",
            SpecialRegister::ClusterNctaidZ)
      .Case("nvvm.read.ptx.sreg.cluster.ctarank",
            SpecialRegister::ClusterCtaRank)
      .Case("nvvm.read.ptx.sreg.cluster.nctarank",
            SpecialRegister::ClusterNctaRank)
      .Default(std::nullopt);
}

namespace {

/// Rewrites the gpu.modules of one host module.
class KernelEmulator {
public:
  explicit KernelEmulator(ModuleOp module)
      : module(module), ctx(module.getContext()),
        ptrType(LLVM::LLVMPointerType::get(ctx)), i8(IntegerType::get(ctx, 8)),
        i32(IntegerType::get(ctx, 32)), i64(IntegerType::get(ctx, 64)) {}

  LogicalResult emulate(gpu::GPUModuleOp gpuModule);

private:
  LogicalResult layOutSharedMemory(gpu::GPUModuleOp gpuModule);
  LogicalResult rewriteFunction(LLVM::LLVMFuncOp fn, StringRef moduleName);
  LogicalResult rewriteOp(Operation *op, Value thread);
  /// Before a load or store of generic (0), global (1) or shared (3) memory:
  /// a call of nvfp4EmuCheckAccess with its address, size, direction, memory,
  /// site number and source location.
  void insertAccessCheck(Operation *op, Value thread);
  /// `ldmatrix.m8n8.x{1,2,4}.b16` (row layout) as a call of
  /// nvfp4EmuLdMatrix, which checks and counts the lane's row read as an
  /// access site of its own.
  LogicalResult rewriteLdMatrix(NVVM::LdMatrixOp op, Value thread);
  /// The address of a NUL-terminated global string holding `text`.
  Value getLocationString(OpBuilder &b, Location loc, StringRef text);
  void createEntry(LLVM::LLVMFuncOp kernel, StringRef moduleName,
                   StringRef name);
  Value i32Constant(OpBuilder &b, Location loc, int64_t value) {
    return LLVM::ConstantOp::create(b, loc, i32, value);
  }
  LLVM::CallOp call(OpBuilder &b, Location loc, StringRef name, Type result,
                    ValueRange args) {
    return createRuntimeCall(b, loc, module, name, result, args);
  }

  ModuleOp module;
  MLIRContext *ctx;
  Type ptrType, i8, i32, i64;
  /// Offsets of the shared-memory variables of the gpu.module at hand, and
  /// each kernel's static shared memory size (where its dynamic shared
  /// memory starts).
  llvm::StringMap<int64_t> sharedOffsets;
  llvm::StringMap<int64_t> kernelStaticSharedBytes;
  /// The location strings of checked accesses, by text.
  llvm::StringMap<std::string> locationGlobals;
  /// Checked accesses so far: each gets its own site number, which the
  /// emulator's counters use to group the lanes of one warp access.
  int32_t accessSites = 0;
  /// Host names of the functions and other globals of that gpu.module.
  llvm::StringMap<std::string> hostNames;
};

} // namespace

/// The shared-memory globals each kernel of `gpuModule` references,
/// directly or through the functions it calls.
static llvm::StringMap<llvm::StringSet<>>
getKernelSharedGlobals(gpu::GPUModuleOp gpuModule) {
  llvm::StringMap<llvm::StringSet<>> direct, callees;
  for (auto fn : gpuModule.getOps<LLVM::LLVMFuncOp>())
    fn.walk([&](Operation *op) {
      if (auto addressOf = dyn_cast<LLVM::AddressOfOp>(op))
        direct[fn.getName()].insert(addressOf.getGlobalName());
      else if (auto call = dyn_cast<LLVM::CallOp>(op))
        if (auto callee = call.getCallee())
          callees[fn.getName()].insert(*callee);
    });
  llvm::StringMap<llvm::StringSet<>> result;
  for (auto fn : gpuModule.getOps<LLVM::LLVMFuncOp>()) {
    if (!fn->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
      continue;
    llvm::StringSet<> &globals = result[fn.getName()];
    llvm::StringSet<> visited;
    SmallVector<StringRef> worklist = {fn.getName()};
    while (!worklist.empty()) {
      StringRef name = worklist.pop_back_val();
      if (!visited.insert(name).second)
        continue;
      for (const auto &global : direct[name])
        globals.insert(global.getKey());
      for (const auto &callee : callees[name])
        worklist.push_back(callee.getKey());
    }
  }
  return result;
}

/// Lays the shared-memory globals out per kernel, as the hardware does:
/// each kernel's CTAs get its own static shared memory, so the globals
/// only one kernel references start at the same offset in every kernel
/// (after those that several kernels, or none, reference). Dynamic shared
/// memory (`extern __shared__`) follows the largest static area.
LogicalResult KernelEmulator::layOutSharedMemory(gpu::GPUModuleOp gpuModule) {
  sharedOffsets.clear();
  kernelStaticSharedBytes.clear();
  DataLayout layout = DataLayout::closest(gpuModule);
  llvm::StringMap<llvm::StringSet<>> kernelGlobals =
      getKernelSharedGlobals(gpuModule);
  llvm::StringMap<int> users;
  for (const auto &kernel : kernelGlobals)
    for (const auto &global : kernel.getValue())
      ++users[global.getKey()];
  auto place = [&](LLVM::GlobalOp global, int64_t &cursor) {
    int64_t align = global.getAlignment().value_or(16);
    cursor = llvm::alignTo(cursor, align);
    sharedOffsets[global.getSymName()] = cursor;
    cursor += layout.getTypeSize(global.getGlobalType());
  };
  SmallVector<LLVM::GlobalOp> dynamic, shared;
  int64_t commonEnd = 0;
  for (auto global : gpuModule.getOps<LLVM::GlobalOp>()) {
    if (global.getAddrSpace() != 3)
      continue;
    auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
    if (array && array.getNumElements() == 0)
      dynamic.push_back(global);
    else if (users.lookup(global.getSymName()) == 1)
      shared.push_back(global);
    else
      place(global, commonEnd);
  }
  int64_t staticEnd = commonEnd;
  for (const auto &kernel : kernelGlobals) {
    int64_t cursor = commonEnd;
    for (LLVM::GlobalOp global : shared)
      if (kernel.getValue().contains(global.getSymName()))
        place(global, cursor);
    kernelStaticSharedBytes[kernel.getKey()] = cursor;
    staticEnd = std::max(staticEnd, cursor);
  }
  // Dynamic shared memory starts after the static variables, at the largest
  // alignment any of them asks for; a kernel that uses it reserves the
  // largest static area in front of it.
  int64_t dynamicAlign = 16;
  for (LLVM::GlobalOp global : dynamic)
    dynamicAlign =
        std::max<int64_t>(dynamicAlign, global.getAlignment().value_or(16));
  const int64_t dynamicStart = llvm::alignTo(staticEnd, dynamicAlign);
  for (LLVM::GlobalOp global : dynamic)
    sharedOffsets[global.getSymName()] = dynamicStart;
  for (auto &kernel : kernelStaticSharedBytes)
    if (llvm::any_of(dynamic, [&](LLVM::GlobalOp global) {
          return kernelGlobals[kernel.getKey()].contains(global.getSymName());
        }))
      kernel.getValue() = dynamicStart;
  return success();
}

Value mlir::nvfp4::detail::createEntryAlloca(Operation *op, Type type,
                                             int64_t count) {
  auto fn = op->getParentOfType<LLVM::LLVMFuncOp>();
  OpBuilder b = OpBuilder::atBlockBegin(&fn.getBody().front());
  Value n = LLVM::ConstantOp::create(b, op->getLoc(), b.getI32Type(), count);
  return LLVM::AllocaOp::create(
      b, op->getLoc(), LLVM::LLVMPointerType::get(op->getContext()), type, n);
}

LogicalResult KernelEmulator::rewriteOp(Operation *op, Value thread) {
  Location loc = op->getLoc();
  OpBuilder b(op);
  if (std::optional<SpecialRegister> reg = getSpecialRegister(op)) {
    Value value = call(b, loc, "nvfp4EmuSreg", i32,
                       {thread, i32Constant(b, loc, int64_t(*reg))})
                      .getResult();
    Type type = op->getResult(0).getType();
    if (type != i32)
      value = LLVM::ZExtOp::create(b, loc, type, value);
    op->getResult(0).replaceAllUsesWith(value);
    op->erase();
    return success();
  }
  if (isa<NVVM::Barrier0Op>(op)) {
    call(b, loc, "nvfp4EmuBarrier0", LLVM::LLVMVoidType::get(ctx), {thread});
    op->erase();
    return success();
  }
  if (auto sync = dyn_cast<NVVM::SyncWarpOp>(op)) {
    call(b, loc, "nvfp4EmuWarpSync", LLVM::LLVMVoidType::get(ctx),
         {thread, sync.getMask()});
    op->erase();
    return success();
  }
  if (auto shfl = dyn_cast<NVVM::ShflOp>(op)) {
    ShuffleMode mode = ShuffleMode::Index;
    switch (shfl.getKind()) {
    case NVVM::ShflKind::bfly:
      mode = ShuffleMode::Butterfly;
      break;
    case NVVM::ShflKind::up:
      mode = ShuffleMode::Up;
      break;
    case NVVM::ShflKind::down:
      mode = ShuffleMode::Down;
      break;
    case NVVM::ShflKind::idx:
      mode = ShuffleMode::Index;
      break;
    }
    // The verifier admits i32 and f32 values; the emulator moves 32 bits.
    Value value = shfl.getVal();
    Type valueType = value.getType();
    if (valueType.isF32())
      value = LLVM::BitcastOp::create(b, loc, i32, value);
    bool wantsValid = shfl.getReturnValueAndIsValid().has_value();
    Value validSlot;
    if (wantsValid) {
      validSlot = createEntryAlloca(op, i8, 1);
    } else {
      validSlot = LLVM::ZeroOp::create(b, loc, ptrType);
    }
    Value result =
        call(b, loc, "nvfp4EmuShflSync", i32,
             {thread, i32Constant(b, loc, int64_t(mode)), shfl.getThreadMask(),
              value, shfl.getOffset(), shfl.getMaskAndClamp(), validSlot})
            .getResult();
    if (valueType.isF32())
      result = LLVM::BitcastOp::create(b, loc, valueType, result);
    if (wantsValid) {
      Value valid =
          LLVM::TruncOp::create(b, loc, IntegerType::get(ctx, 1),
                                LLVM::LoadOp::create(b, loc, i8, validSlot));
      Type structType = shfl.getRes().getType();
      Value packed = LLVM::PoisonOp::create(b, loc, structType);
      packed = LLVM::InsertValueOp::create(b, loc, packed, result,
                                           ArrayRef<int64_t>{0});
      result = LLVM::InsertValueOp::create(b, loc, packed, valid,
                                           ArrayRef<int64_t>{1});
    }
    shfl.getRes().replaceAllUsesWith(result);
    op->erase();
    return success();
  }
  if (auto cvt = dyn_cast<NVVM::ConvertF32x2ToF4x2Op>(op)) {
    Value relu = LLVM::ConstantOp::create(b, loc, i8, cvt.getRelu() ? 1 : 0);
    Value result = call(b, loc, "nvfp4EmuCvtF32x2ToE2M1x2", i8,
                        {cvt.getA(), cvt.getB(), relu})
                       .getResult();
    if (cvt.getType() != i8)
      result = LLVM::ZExtOp::create(b, loc, cvt.getType(), result);
    cvt.getResult().replaceAllUsesWith(result);
    op->erase();
    return success();
  }
  if (auto cvt = dyn_cast<NVVM::ConvertF32x4ToF4x4Op>(op)) {
    if (!isa<Float4E2M1FNType>(cvt.getDstTy()))
      return op->emitError("nvfp4-emulate-gpu-kernels: only cvt.rs to "
                           "e2m1x4 is modelled by the GPU emulator yet");
    SmallVector<Value> args;
    for (int64_t i = 0; i < 4; ++i)
      args.push_back(LLVM::ExtractElementOp::create(
          b, loc, cvt.getSrc(), i32Constant(b, loc, i)));
    args.push_back(cvt.getRbits());
    args.push_back(
        LLVM::ConstantOp::create(b, loc, i8, cvt.getRelu() ? 1 : 0));
    Value result =
        call(b, loc, "nvfp4EmuCvtRsF32x4ToE2M1x4", IntegerType::get(ctx, 16),
             args)
            .getResult();
    cvt.getDst().replaceAllUsesWith(result);
    op->erase();
    return success();
  }
  if (auto copy = dyn_cast<NVVM::CpAsyncOp>(op)) {
    Value srcSize = copy.getCpSize()
                        ? copy.getCpSize()
                        : Value(LLVM::ConstantOp::create(b, loc, i32, -1));
    call(b, loc, "nvfp4EmuCpAsync", LLVM::LLVMVoidType::get(ctx),
         {thread, copy.getDst(), copy.getSrc(),
          i32Constant(b, loc, copy.getSize()), srcSize});
    op->erase();
    return success();
  }
  if (isa<NVVM::CpAsyncCommitGroupOp>(op)) {
    call(b, loc, "nvfp4EmuCpAsyncCommitGroup", LLVM::LLVMVoidType::get(ctx),
         {thread});
    op->erase();
    return success();
  }
  if (auto wait = dyn_cast<NVVM::CpAsyncWaitGroupOp>(op)) {
    call(b, loc, "nvfp4EmuCpAsyncWaitGroup", LLVM::LLVMVoidType::get(ctx),
         {thread, i32Constant(b, loc, wait.getN())});
    op->erase();
    return success();
  }
  if (auto ldmatrix = dyn_cast<NVVM::LdMatrixOp>(op))
    return rewriteLdMatrix(ldmatrix, thread);
  if (isa<NVVM::MmaOp, NVVM::MmaBlockScaleOp>(op))
    return rewriteWarpMma(op, thread, module);
  if (auto addressOf = dyn_cast<LLVM::AddressOfOp>(op)) {
    StringRef name = addressOf.getGlobalName();
    auto shared = sharedOffsets.find(name);
    if (shared != sharedOffsets.end()) {
      Value offset = LLVM::ConstantOp::create(b, loc, i64, shared->second);
      Value address =
          call(b, loc, "nvfp4EmuShared", ptrType, {thread, offset}).getResult();
      // Back in address space 3 until the address spaces are dropped:
      // the rewriting of the operations after it inspects the type.
      address = LLVM::AddrSpaceCastOp::create(b, loc, addressOf.getType(),
                                              address);
      addressOf.getResult().replaceAllUsesWith(address);
      op->erase();
      return success();
    }
    auto host = hostNames.find(name);
    if (host == hostNames.end())
      return op->emitError("nvfp4-emulate-gpu-kernels: @")
             << name << " is not defined in the gpu.module";
    addressOf.setGlobalName(host->second);
    return success();
  }
  if (auto callOp = dyn_cast<LLVM::CallOp>(op)) {
    std::optional<StringRef> callee = callOp.getCallee();
    auto host = callee ? hostNames.find(*callee) : hostNames.end();
    if (host == hostNames.end())
      return op->emitError("nvfp4-emulate-gpu-kernels: only direct calls of "
                           "functions of the gpu.module are emulated");
    SmallVector<Value> operands = {thread};
    llvm::append_range(operands, callOp.getArgOperands());
    auto newCall = LLVM::CallOp::create(
        b, loc, callOp.getResultTypes(),
        FlatSymbolRefAttr::get(ctx, host->second), operands);
    callOp.replaceAllUsesWith(newCall.getResults());
    op->erase();
    return success();
  }
  bool handled = false;
  if (failed(rewriteAsyncOp(
          op, thread, module,
          [&](OpBuilder &builder, Location at) {
            return getLocationString(builder, at, getLocationText(at));
          },
          handled)))
    return failure();
  if (handled)
    return success();
  if (isa<NVVM::NVVMDialect>(op->getDialect()) || isa<LLVM::InlineAsmOp>(op))
    return op->emitError("nvfp4-emulate-gpu-kernels: '")
           << op->getName() << "' is not modelled by the GPU emulator yet";
  return success();
}

LogicalResult KernelEmulator::rewriteLdMatrix(NVVM::LdMatrixOp op,
                                              Value thread) {
  const int64_t num = op.getNum();
  if (op.getLayout() != NVVM::MMALayout::row ||
      op.getEltType() != NVVM::LdStMatrixEltType::B16 ||
      op.getShape().getM() != 8 || op.getShape().getN() != 8)
    return op.emitError("nvfp4-emulate-gpu-kernels: only "
                        "ldmatrix.m8n8.b16 without .trans is modelled by the "
                        "GPU emulator yet");
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value d = createEntryAlloca(op, i32, num);
  call(b, loc, "nvfp4EmuLdMatrix", LLVM::LLVMVoidType::get(ctx),
       {thread, op.getPtr(), i32Constant(b, loc, num),
        i32Constant(b, loc, accessSites++),
        getLocationString(b, loc, getLocationText(loc)), d});
  auto element = [&](int64_t m) -> Value {
    Value address =
        LLVM::GEPOp::create(b, loc, ptrType, i32, d,
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(m)});
    return LLVM::LoadOp::create(b, loc, i32, address);
  };
  Value result;
  if (num == 1) {
    result = element(0);
  } else {
    result = LLVM::PoisonOp::create(b, loc, op.getRes().getType());
    for (int64_t m = 0; m < num; ++m)
      result = LLVM::InsertValueOp::create(b, loc, result, element(m),
                                           ArrayRef<int64_t>{m});
  }
  op.getRes().replaceAllUsesWith(result);
  op->erase();
  return success();
}

Value KernelEmulator::getLocationString(OpBuilder &b, Location loc,
                                        StringRef text) {
  auto [it, inserted] = locationGlobals.try_emplace(
      text, "__nvfp4_emu_location_" + std::to_string(locationGlobals.size()));
  if (inserted) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto type = LLVM::LLVMArrayType::get(i8, text.size() + 1);
    LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                           LLVM::Linkage::Internal, it->second,
                           b.getStringAttr((text + Twine('\0')).str()));
  }
  return LLVM::AddressOfOp::create(b, loc, ptrType, it->second);
}

void KernelEmulator::insertAccessCheck(Operation *op, Value thread) {
  Value address;
  Type accessType;
  bool isStore = false;
  if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
    address = load.getAddr();
    accessType = load.getType();
  } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
    address = store.getAddr();
    accessType = store.getValue().getType();
    isStore = true;
  } else {
    return;
  }
  // Global (1), shared (3), or generic (0: either, decided at run time).
  auto pointer = cast<LLVM::LLVMPointerType>(address.getType());
  unsigned space = pointer.getAddressSpace();
  if (space != 0 && space != 1 && space != 3)
    return;
  OpBuilder b(op);
  Location loc = op->getLoc();
  std::string text = getLocationText(loc);
  int64_t bytes = DataLayout::closest(op).getTypeSize(accessType);
  call(b, loc, "nvfp4EmuCheckAccess", LLVM::LLVMVoidType::get(ctx),
       {thread, address, LLVM::ConstantOp::create(b, loc, i64, bytes),
        i32Constant(b, loc, isStore ? 1 : 0), i32Constant(b, loc, space),
        i32Constant(b, loc, accessSites++), getLocationString(b, loc, text)});
}

LogicalResult KernelEmulator::rewriteFunction(LLVM::LLVMFuncOp fn,
                                              StringRef moduleName) {
  // The thread context first.
  Block &entry = fn.getBody().front();
  Value thread = entry.insertArgument(0u, ptrType, fn.getLoc());
  auto type = fn.getFunctionType();
  SmallVector<Type> params = {ptrType};
  llvm::append_range(params, type.getParams());
  fn.setFunctionType(LLVM::LLVMFunctionType::get(type.getReturnType(), params,
                                                 type.isVarArg()));
  if (ArrayAttr argAttrs = fn.getArgAttrsAttr()) {
    SmallVector<Attribute> attrs = {DictionaryAttr::get(ctx)};
    llvm::append_range(attrs, argAttrs);
    fn.setArgAttrsAttr(ArrayAttr::get(ctx, attrs));
  }

  SmallVector<Operation *> ops;
  fn.walk([&](Operation *op) {
    if (op != fn.getOperation())
      ops.push_back(op);
  });
  // Checks of the global and shared accesses, while the pointer types still
  // say which memory an access reads or writes.
  for (Operation *op : ops)
    insertAccessCheck(op, thread);
  for (Operation *op : ops)
    if (failed(rewriteOp(op, thread)))
      return failure();

  // Drop the NVVM and GPU attributes (kernel, launch bounds) of the
  // function and its arguments; then every address space: global memory is host
  // memory and shared memory is addressed through nvfp4EmuShared.
  for (NamedAttribute attr : llvm::to_vector(fn->getAttrs()))
    if (attr.getName().strref().starts_with("nvvm.") ||
        attr.getName().strref().starts_with("gpu."))
      fn->removeAttr(attr.getName());
  if (ArrayAttr argAttrs = fn.getArgAttrsAttr()) {
    SmallVector<Attribute> stripped;
    for (Attribute attr : argAttrs) {
      NamedAttrList list(cast<DictionaryAttr>(attr));
      for (NamedAttribute named : llvm::to_vector(list.getAttrs()))
        if (named.getName().strref().starts_with("nvvm."))
          list.erase(named.getName());
      stripped.push_back(list.getDictionary(ctx));
    }
    fn.setArgAttrsAttr(ArrayAttr::get(ctx, stripped));
  }
  AttrTypeReplacer replacer;
  replacer.addReplacement(
      [&](LLVM::LLVMPointerType type) -> Type { return ptrType; });
  replacer.recursivelyReplaceElementsIn(fn, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  fn.walk([](LLVM::AddrSpaceCastOp cast) {
    cast.getResult().replaceAllUsesWith(cast.getArg());
    cast.erase();
  });
  return success();
}

void KernelEmulator::createEntry(LLVM::LLVMFuncOp kernel, StringRef moduleName,
                                 StringRef name) {
  Location loc = kernel.getLoc();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto entry = LLVM::LLVMFuncOp::create(
      b, loc, getEntryName(moduleName, name),
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                  {ptrType, ptrType}));
  Block *body = entry.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  Value thread = body->getArgument(0), params = body->getArgument(1);
  SmallVector<Value> args = {thread};
  ArrayRef<Type> kernelParams = kernel.getFunctionType().getParams();
  for (auto [index, type] : llvm::enumerate(kernelParams.drop_front())) {
    Value slotAddress = LLVM::GEPOp::create(
        b, loc, ptrType, ptrType, params,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
    Value slot = LLVM::LoadOp::create(b, loc, ptrType, slotAddress);
    // A byval grid-constant parameter (nvfp4-grid-constant-kernel-params)
    // is read in place, as on the GPU: the kernel gets the address of the
    // slot the launch filled (64-byte aligned), as a plain pointer.
    if (kernel.getArgAttr(index + 1, LLVM::LLVMDialect::getByValAttrName())) {
      kernel.removeArgAttr(index + 1, LLVM::LLVMDialect::getByValAttrName());
      kernel.removeArgAttr(index + 1, LLVM::LLVMDialect::getAlignAttrName());
      args.push_back(slot);
    } else
      args.push_back(LLVM::LoadOp::create(b, loc, type, slot));
  }
  LLVM::CallOp::create(b, loc, kernel, args);
  LLVM::ReturnOp::create(b, loc, ValueRange());
}

LogicalResult KernelEmulator::emulate(gpu::GPUModuleOp gpuModule) {
  StringRef moduleName = gpuModule.getSymName();
  if (failed(layOutSharedMemory(gpuModule)))
    return failure();

  // Host names first, so that calls and references can be rewritten in any
  // order.
  hostNames.clear();
  for (Operation &op : gpuModule.getBody()->getOperations()) {
    auto symbol = dyn_cast<SymbolOpInterface>(&op);
    if (!symbol)
      continue;
    if (auto global = dyn_cast<LLVM::GlobalOp>(&op);
        global && global.getAddrSpace() == 3)
      continue;
    std::string host = getHostName(moduleName, symbol.getName());
    if (module.lookupSymbol(host))
      return op.emitError("nvfp4-emulate-gpu-kernels: the host module "
                          "already defines @")
             << host;
    hostNames[symbol.getName()] = host;
  }

  // Move every function and non-shared global to the host module.
  SmallVector<std::pair<LLVM::LLVMFuncOp, std::string>> kernels;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  for (Operation &op :
       llvm::make_early_inc_range(gpuModule.getBody()->getOperations())) {
    if (auto global = dyn_cast<LLVM::GlobalOp>(&op)) {
      if (global.getAddrSpace() == 3)
        continue;
      auto hostGlobal = cast<LLVM::GlobalOp>(b.clone(op));
      hostGlobal.setSymName(hostNames[global.getSymName()]);
      hostGlobal.setAddrSpace(0);
      continue;
    }
    auto fn = dyn_cast<LLVM::LLVMFuncOp>(&op);
    if (!fn) {
      if (op.hasTrait<OpTrait::IsTerminator>())
        continue;
      return op.emitError("nvfp4-emulate-gpu-kernels: '")
             << op.getName()
             << "' in a gpu.module is not emulated (expected the module "
                "lowered to the NVVM and LLVM dialects)";
    }
    if (fn.isExternal())
      return fn.emitError("nvfp4-emulate-gpu-kernels: the external function "
                          "@")
             << fn.getName() << " has no body to emulate";
    auto hostFn = cast<LLVM::LLVMFuncOp>(b.clone(op));
    hostFn.setSymName(hostNames[fn.getName()]);
    hostFn.setLinkage(LLVM::Linkage::Internal);
    if (fn->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
      kernels.emplace_back(hostFn, fn.getName().str());
  }
  for (auto fn : llvm::to_vector(module.getOps<LLVM::LLVMFuncOp>())) {
    if (!llvm::is_contained(llvm::make_second_range(hostNames),
                            fn.getName().str()))
      continue;
    if (failed(rewriteFunction(fn, moduleName)))
      return failure();
  }
  for (auto &[kernel, name] : kernels)
    createEntry(kernel, moduleName, name);

  // An empty binary in place of the module: host launches keep verifying.
  b.setInsertionPoint(gpuModule);
  Attribute target =
      gpuModule.getTargetsAttr() && !gpuModule.getTargetsAttr().empty()
          ? gpuModule.getTargetsAttr()[0]
          : NVVM::NVVMTargetAttr::get(ctx);
  auto object = gpu::ObjectAttr::get(
      ctx, target, gpu::CompilationTarget::Offload, b.getStringAttr(""),
      DictionaryAttr(), gpu::KernelTableAttr());
  auto binary = gpu::BinaryOp::create(b, gpuModule.getLoc(), moduleName,
                                      Attribute(), ArrayRef<Attribute>{object});
  // The static shared memory of each kernel, for the launches.
  SmallVector<NamedAttribute> sizes;
  for (const auto &kernel : kernelStaticSharedBytes)
    sizes.push_back(b.getNamedAttr(kernel.getKey(),
                                   b.getI64IntegerAttr(kernel.getValue())));
  binary->setAttr(kEmulatedAttrName, b.getDictionaryAttr(sizes));
  gpuModule.erase();
  return success();
}

namespace {

struct EmulateGPUKernelsPass
    : public mlir::nvfp4::impl::EmulateGPUKernelsBase<EmulateGPUKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    KernelEmulator emulator(module);
    for (auto gpuModule : llvm::to_vector(module.getOps<gpu::GPUModuleOp>()))
      if (failed(emulator.emulate(gpuModule)))
        return signalPassFailure();
  }
};

} // namespace
