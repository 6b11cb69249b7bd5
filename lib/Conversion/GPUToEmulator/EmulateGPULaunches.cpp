//===- EmulateGPULaunches.cpp - Launches of emulated kernels --------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// nvfp4-emulate-gpu-launches replaces the LLVM-lowered launches of the
// kernels nvfp4-emulate-gpu-kernels turned into host functions by calls of
// the emulator's launch function, with the launch's arguments in a
// kernelParams-style array.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/GPUToEmulator/GPUToEmulator.h"

#include "EmulatorSymbols.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_EMULATEGPULAUNCHES
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4::detail;

/// The alignment of aggregate kernel parameters: a CUtensorMap's.
static constexpr unsigned kKernelParamAlignment = 64;

namespace {

struct EmulateGPULaunchesPass
    : public mlir::nvfp4::impl::EmulateGPULaunchesBase<EmulateGPULaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    for (gpu::LaunchFuncOp launch : launches) {
      auto binary =
          module.lookupSymbol<gpu::BinaryOp>(launch.getKernelModuleName());
      if (!binary || !binary->hasAttr(kEmulatedAttrName))
        continue;
      auto sizes = binary->getAttrOfType<DictionaryAttr>(kEmulatedAttrName);
      if (failed(replaceLaunch(
              module, launch,
              sizes ? sizes.getAs<IntegerAttr>(launch.getKernelName())
                    : IntegerAttr())))
        return signalPassFailure();
    }
    for (auto binary : llvm::to_vector(module.getOps<gpu::BinaryOp>()))
      if (binary->hasAttr(kEmulatedAttrName))
        binary.erase();
  }

  LogicalResult replaceLaunch(ModuleOp module, gpu::LaunchFuncOp launch,
                              IntegerAttr staticSharedBytes) {
    if (!staticSharedBytes)
      return launch.emitError("nvfp4-emulate-gpu-launches: the emulated "
                              "binary does not record the static shared "
                              "memory size of the kernel");
    MLIRContext *ctx = &getContext();
    Location loc = launch.getLoc();
    Type ptrType = LLVM::LLVMPointerType::get(ctx);
    Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
    if (launch.getAsyncToken())
      return launch.emitError("nvfp4-emulate-gpu-launches: expected a launch "
                              "lowered by convert-gpu-to-llvm (no async "
                              "token)");
    std::string entryName =
        getEntryName(launch.getKernelModuleName().getValue(),
                     launch.getKernelName().getValue());
    if (!module.lookupSymbol<LLVM::LLVMFuncOp>(entryName))
      return launch.emitError("nvfp4-emulate-gpu-launches: no emulated "
                              "kernel @")
             << entryName;
    for (Value operand : launch.getKernelOperands())
      if (!LLVM::isCompatibleType(operand.getType()))
        return launch.emitError("nvfp4-emulate-gpu-launches: kernel operand "
                                "of type ")
               << operand.getType() << " is not lowered to the LLVM dialect";

    // The argument slots and their pointer array, in the entry block of the
    // enclosing function (a launch in a loop reuses them).
    auto fn = launch->getParentOfType<LLVM::LLVMFuncOp>();
    if (!fn)
      return launch.emitError("nvfp4-emulate-gpu-launches: expected the "
                              "launch in an llvm.func");
    OpBuilder entry = OpBuilder::atBlockBegin(&fn.getBody().front());
    ValueRange operands = launch.getKernelOperands();
    Value one = LLVM::ConstantOp::create(entry, loc, i32, 1);
    Value count = LLVM::ConstantOp::create(
        entry, loc, i32, std::max<int64_t>(operands.size(), 1));
    Value params = LLVM::AllocaOp::create(entry, loc, ptrType, ptrType, count);
    SmallVector<Value> slots;
    // Aggregates (tensor maps, read in place by the kernel) 64-byte aligned,
    // the largest alignment of a kernel parameter.
    for (Value operand : operands)
      slots.push_back(LLVM::AllocaOp::create(
          entry, loc, ptrType, operand.getType(), one,
          isa<LLVM::LLVMArrayType, LLVM::LLVMStructType>(operand.getType())
              ? kKernelParamAlignment
              : 0));

    OpBuilder b(launch);
    for (auto [index, operand] : llvm::enumerate(operands)) {
      LLVM::StoreOp::create(b, loc, operand, slots[index]);
      Value address = LLVM::GEPOp::create(
          b, loc, ptrType, ptrType, params,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
      LLVM::StoreOp::create(b, loc, slots[index], address);
    }
    auto toI64 = [&](Value v) -> Value {
      if (!v)
        return LLVM::ConstantOp::create(b, loc, i64, 1);
      if (v.getType() == i64)
        return v;
      return LLVM::ZExtOp::create(b, loc, i64, v);
    };
    Value sharedBytes = launch.getDynamicSharedMemorySize()
                            ? launch.getDynamicSharedMemorySize()
                            : Value(LLVM::ConstantOp::create(b, loc, i32, 0));
    Value stream = launch.getAsyncObject()
                       ? launch.getAsyncObject()
                       : Value(LLVM::ZeroOp::create(b, loc, ptrType));
    Value entryAddress = LLVM::AddressOfOp::create(
        b, loc, ptrType, FlatSymbolRefAttr::get(ctx, entryName));
    std::string nameGlobal =
        getHostName(launch.getKernelModuleName().getValue(),
                    launch.getKernelName().getValue()) +
        "_name";
    Value name =
        module.lookupSymbol(nameGlobal)
            ? Value(LLVM::AddressOfOp::create(
                  b, loc, ptrType, FlatSymbolRefAttr::get(ctx, nameGlobal)))
            : LLVM::createGlobalString(
                  loc, b, nameGlobal,
                  (launch.getKernelName().getValue() + Twine('\0')).str(),
                  LLVM::Linkage::Internal);
    bool cluster = launch.hasClusterSize();
    SmallVector<Value> args = {
        entryAddress,
        name,
        toI64(launch.getGridSizeX()),
        toI64(launch.getGridSizeY()),
        toI64(launch.getGridSizeZ()),
        toI64(launch.getBlockSizeX()),
        toI64(launch.getBlockSizeY()),
        toI64(launch.getBlockSizeZ()),
        toI64(cluster ? launch.getClusterSizeX() : Value()),
        toI64(cluster ? launch.getClusterSizeY() : Value()),
        toI64(cluster ? launch.getClusterSizeZ() : Value()),
        LLVM::ConstantOp::create(b, loc, i64, staticSharedBytes.getInt()),
        sharedBytes,
        stream,
        params};
    SmallVector<Type> types(ValueRange(args).getTypes());
    LLVM::LLVMFuncOp launchFn = getOrCreateRuntimeFunction(
        module, "nvfp4EmuLaunch", LLVM::LLVMVoidType::get(ctx), types);
    LLVM::CallOp::create(b, loc, launchFn, args);
    launch.erase();
    return success();
  }
};

} // namespace
