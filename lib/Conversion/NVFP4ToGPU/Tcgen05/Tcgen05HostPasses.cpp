//===- Tcgen05HostPasses.cpp - Host passes of the tcgen05 pipeline --------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The passes around the tcgen05 matmul's host code (Tcgen05Matmul.cpp):
// nvfp4-tcgen05-retarget-tensor-maps, which rebuilds each launch's TMA
// tensor maps from the launch operands they describe once a pipeline
// replaced them, and nvfp4-attach-tcgen05-nvvm-target, which attaches the
// NVVM target to the kernel module.
//
//===----------------------------------------------------------------------===//

#include "Tcgen05KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::nvfp4;
using namespace mlir::nvfp4::detail;

//===----------------------------------------------------------------------===//
// Tensor maps of staged launches
//===----------------------------------------------------------------------===//

bool mlir::nvfp4::isTcgen05TensorMapAddress(Operation *op) {
  auto pointer = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(op);
  if (!pointer)
    return false;
  for (Operation *toInteger : pointer->getUsers()) {
    if (!isa<arith::IndexCastUIOp>(toInteger))
      return false;
    for (Operation *toPointer : toInteger->getUsers()) {
      if (!isa<LLVM::IntToPtrOp>(toPointer))
        return false;
      for (OpOperand &use : toPointer->getUses()) {
        auto call = dyn_cast<LLVM::CallOp>(use.getOwner());
        if (!call || call.getCallee() != kTcgen05TensorMapEncodeFn ||
            use.getOperandNumber() != 1)
          return false;
      }
    }
  }
  return true;
}

namespace {
/// Builds each tensor map of a host launch from the buffer the launch passes
/// right before it: moves the `nvfp4CudaTensorMapEncode2D` call and the
/// load of the map it encodes to just before the launch, replaces the call's
/// address operand by the address of that launch operand, and erases the
/// previous address computation (down to the `bufferization.to_buffer` the
/// lowering created for it) once unused. nvfp4-to-gpu-executable runs it after
/// each pass that replaces launch operands: after the packing of the E2M1
/// operands (so that nothing keeps the unpacked buffer, which the reference
/// lowering rejects) and after the device staging (so that the maps describe
/// the device copies).
struct Tcgen05RetargetTensorMapsPass
    : public PassWrapper<Tcgen05RetargetTensorMapsPass,
                         OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(Tcgen05RetargetTensorMapsPass)

  StringRef getArgument() const final {
    return "nvfp4-tcgen05-retarget-tensor-maps";
  }
  StringRef getDescription() const final {
    return "Build the TMA tensor maps of the tcgen05 kernel launches from the "
           "launch operands they describe (after device staging)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, bufferization::BufferizationDialect,
                    LLVM::LLVMDialect, memref::MemRefDialect>();
  }

  LogicalResult retarget(gpu::LaunchFuncOp launch) {
    SmallVector<Value> operands(launch.getKernelOperands());
    for (auto [index, operand] : llvm::enumerate(operands)) {
      // A map is the load of the slot an encode call wrote.
      auto load = operand.getDefiningOp<LLVM::LoadOp>();
      if (!load)
        continue;
      LLVM::CallOp call;
      for (Operation *user : load.getAddr().getUsers())
        if (auto encode = dyn_cast<LLVM::CallOp>(user);
            encode && encode.getCallee() == kTcgen05TensorMapEncodeFn &&
            encode.getOperand(0) == load.getAddr())
          call = encode;
      if (!call)
        continue;
      if (index == 0 || !isa<MemRefType>(operands[index - 1].getType()))
        return launch.emitOpError()
               << "kernel operand #" << index
               << " is a tensor map that does not follow a memref";
      OpBuilder b(launch);
      call->moveBefore(launch);
      load->moveBefore(launch);
      b.setInsertionPoint(call);
      Value oldAddress = call.getOperand(1);
      call->setOperand(1,
                       hostAddressOf(b, launch.getLoc(), operands[index - 1]));
      // The previous address computation, if nothing else uses it.
      Operation *dead = oldAddress.getDefiningOp();
      while (dead && dead->use_empty() &&
             isa<LLVM::IntToPtrOp, arith::IndexCastUIOp,
                 memref::ExtractAlignedPointerAsIndexOp,
                 bufferization::ToBufferOp>(dead)) {
        Operation *next = dead->getOperand(0).getDefiningOp();
        dead->erase();
        dead = next;
      }
    }
    return success();
  }

  void runOnOperation() override {
    SmallVector<gpu::LaunchFuncOp> launches;
    getOperation().walk([&](gpu::LaunchFuncOp op) {
      if (!op->getParentOfType<gpu::GPUModuleOp>())
        launches.push_back(op);
    });
    for (gpu::LaunchFuncOp launch : launches)
      if (failed(retarget(launch)))
        return signalPassFailure();
  }
};
} // namespace

std::unique_ptr<Pass> mlir::nvfp4::createTcgen05RetargetTensorMapsPass() {
  return std::make_unique<Tcgen05RetargetTensorMapsPass>();
}

void mlir::nvfp4::registerTcgen05RetargetTensorMapsPass() {
  PassRegistration<Tcgen05RetargetTensorMapsPass>();
}

//===----------------------------------------------------------------------===//
// Target attachment
//===----------------------------------------------------------------------===//

namespace {
struct AttachTcgen05NVVMTargetPass
    : public PassWrapper<AttachTcgen05NVVMTargetPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AttachTcgen05NVVMTargetPass)

  AttachTcgen05NVVMTargetPass() = default;
  AttachTcgen05NVVMTargetPass(const AttachTcgen05NVVMTargetPass &other)
      : PassWrapper(other) {}
  AttachTcgen05NVVMTargetPass(StringRef chip, StringRef features,
                              unsigned optLevel) {
    this->chip = chip.str();
    this->features = features.str();
    this->optLevel = optLevel;
  }

  StringRef getArgument() const final {
    return "nvfp4-attach-tcgen05-nvvm-target";
  }
  StringRef getDescription() const final {
    return "Attach an NVVM target without the op-level SM check";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<NVVM::NVVMDialect>();
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto target = NVVM::NVVMTargetAttr::get(
        ctx, optLevel, "nvptx64-nvidia-cuda", chip, features,
        /*targetFlags=*/nullptr, /*linkFiles=*/nullptr,
        /*verifyTarget=*/false);
    getOperation().walk([&](gpu::GPUModuleOp module) {
      if (!module.getTargetsAttr() || module.getTargetsAttr().empty())
        module.setTargetsAttr(ArrayAttr::get(ctx, {target}));
    });
  }

  // Options, so that the pass prints and parses as part of a textual
  // pipeline (nvfp4-to-ptx's, for example).
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target chip, e.g. sm_103a"),
                           llvm::cl::init("sm_100a")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("PTX features, e.g. +ptx88"),
                               llvm::cl::init("+ptx88")};
  Option<unsigned> optLevel{*this, "O", llvm::cl::desc("Optimization level"),
                            llvm::cl::init(2)};
};
} // namespace

void mlir::nvfp4::registerAttachTcgen05NVVMTargetPass() {
  PassRegistration<AttachTcgen05NVVMTargetPass>();
}

std::unique_ptr<Pass> mlir::nvfp4::createAttachTcgen05NVVMTargetPass(
    StringRef chip, StringRef features, unsigned optLevel) {
  return std::make_unique<AttachTcgen05NVVMTargetPass>(chip, features,
                                                       optLevel);
}
