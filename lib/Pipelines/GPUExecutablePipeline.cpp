//===- GPUExecutablePipeline.cpp - The nvfp4-to-gpu-executable pipeline ---===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Lowers an nvfp4 program to an LLVM-dialect module that runs on an NVIDIA
// GPU with mlir-runner and libnvfp4_cuda_runtime: the matmuls become kernels
// (nvfp4-to-ptx), everything else runs on the host through the reference
// lowering, and the buffers the kernels use live in device memory, copied
// from and to the host where host code needs them.
//
// nvfp4-gpu-pack-launch-operands (tensors, before the reference lowering),
// in this file: an E2M1 operand becomes a 1-D byte tensor holding two codes
// per byte (even element in the low nibble, docs/gpu.md), an E4M3 (or E5M2,
// E8M0) operand a 1-D byte tensor of its codes, each passed to the kernel
// through a `memref.view` of its buffer with the kernel's memref type. The
// launch is marked with which memref operands it reads and writes, which
// nvfp4-gpu-stage-launch-operands (StageLaunchOperands.cpp) reads after
// bufferization to give the operands device buffers.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Pipelines/Pipelines.h"

#include "nvfp4/Conversion/NVFP4ToGPU/LaunchOperandAccess.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Matmul.h"
#include "nvfp4/Conversion/Passes.h"
#include "nvfp4/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::nvfp4;

/// Whether kernels see `type` as bytes: an E2M1 code (packed two per
/// byte), or an E4M3, E5M2 or E8M0 code or scale (one per byte).
static bool isComponentElementType(Type type) {
  return isa<Float4E2M1FNType, Float8E4M3FNType, Float8E5M2Type,
             Float8E8M0FNUType>(type);
}

namespace {
//===----------------------------------------------------------------------===//
// nvfp4-gpu-pack-launch-operands
//===----------------------------------------------------------------------===//

struct PackLaunchOperandsPass
    : public PassWrapper<PackLaunchOperandsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PackLaunchOperandsPass)

  StringRef getArgument() const override {
    return "nvfp4-gpu-pack-launch-operands";
  }
  StringRef getDescription() const override {
    return "Pass E2M1 / E4M3 kernel operands as packed byte buffers viewed "
           "with the kernel's memref type, and record which memref operands "
           "each gpu.launch_func reads and writes";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, bufferization::BufferizationDialect,
                    memref::MemRefDialect, tensor::TensorDialect>();
  }

  /// The codes of `tensor` (f4E2M1FN or f8E4M3FN, any rank, static or
  /// run-time sizes) as a 1-D i8 tensor in memory order: E2M1 packed two per
  /// byte, E4M3 one per byte.
  Value packToBytes(OpBuilder &b, Location loc, Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    Type i8 = b.getI8Type();
    Value bytes;
    if (isa<Float4E2M1FNType>(type.getElementType())) {
      Value codes = arith::BitcastOp::create(
          b, loc, type.clone(b.getIntegerType(4)), tensor);
      bytes = arith::ExtUIOp::create(b, loc, type.clone(i8), codes);
    } else {
      bytes = arith::BitcastOp::create(b, loc, type.clone(i8), tensor);
    }
    const int64_t count =
        type.hasStaticShape() ? type.getNumElements() : ShapedType::kDynamic;
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      all[0].push_back(d);
    auto flatType = RankedTensorType::get({count}, i8);
    Value flat =
        type.getRank() == 1
            ? bytes
            : tensor::CollapseShapeOp::create(b, loc, flatType, bytes, all)
                  .getResult();
    if (!isa<Float4E2M1FNType>(type.getElementType()))
      return flat;
    // byte i = code[2i] | code[2i + 1] << 4.
    const int64_t halfCount = ShapedType::isDynamic(count) ? count : count / 2;
    auto halfType = RankedTensorType::get({halfCount}, i8);
    SmallVector<Value> halfSizes;
    OpFoldResult halfSize = b.getIndexAttr(halfCount);
    if (ShapedType::isDynamic(count)) {
      Value elements = tensor::DimOp::create(b, loc, flat, 0);
      Value half = arith::DivUIOp::create(
          b, loc, elements, arith::ConstantIndexOp::create(b, loc, 2));
      halfSizes.push_back(half);
      halfSize = half;
    }
    auto slice = [&](int64_t offset) -> Value {
      SmallVector<OpFoldResult> offsets{b.getIndexAttr(offset)};
      SmallVector<OpFoldResult> sizes{halfSize};
      SmallVector<OpFoldResult> strides{b.getIndexAttr(2)};
      return tensor::ExtractSliceOp::create(b, loc, halfType, flat, offsets,
                                            sizes, strides);
    };
    Value lo = slice(0), hi = slice(1);
    Value four = tensor::SplatOp::create(
        b, loc, halfType,
        arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(4)), halfSizes);
    Value shifted = arith::ShLIOp::create(b, loc, hi, four);
    return arith::OrIOp::create(b, loc, lo, shifted);
  }

  /// The inverse of packToBytes: the `type` (f4E2M1FN or f8E4M3FN, any
  /// rank) tensor whose codes the 1-D i8 tensor `bytes` holds in memory
  /// order.
  Value unpackBytes(OpBuilder &b, Location loc, Value bytes,
                    RankedTensorType type) {
    Type i8 = b.getI8Type();
    const int64_t count = type.getNumElements();
    auto flatType = RankedTensorType::get({count}, i8);
    Value flat = bytes;
    if (isa<Float4E2M1FNType>(type.getElementType())) {
      // code[2i] = byte i & 0xF, code[2i + 1] = byte i >> 4.
      auto halfType = RankedTensorType::get({count / 2}, i8);
      auto splat = [&](int8_t v) -> Value {
        return arith::ConstantOp::create(
            b, loc,
            DenseElementsAttr::get(halfType, b.getI8IntegerAttr(v).getValue()));
      };
      Value lo = arith::AndIOp::create(b, loc, bytes, splat(0xF));
      Value hi = arith::ShRUIOp::create(b, loc, bytes, splat(4));
      Value codes = tensor::EmptyOp::create(b, loc, flatType.getShape(), i8);
      for (auto [offset, half] : {std::pair<int64_t, Value>(0, lo),
                                  std::pair<int64_t, Value>(1, hi)}) {
        SmallVector<OpFoldResult> offsets{b.getIndexAttr(offset)};
        SmallVector<OpFoldResult> sizes{b.getIndexAttr(count / 2)};
        SmallVector<OpFoldResult> strides{b.getIndexAttr(2)};
        codes = tensor::InsertSliceOp::create(b, loc, half, codes, offsets,
                                              sizes, strides);
      }
      flat = codes;
    }
    Value shaped = flat;
    if (type.getRank() != 1) {
      SmallVector<ReassociationIndices> all(1);
      for (int64_t d = 0; d < type.getRank(); ++d)
        all[0].push_back(d);
      shaped = tensor::ExpandShapeOp::create(b, loc, type.clone(i8), flat, all);
    }
    if (isa<Float4E2M1FNType>(type.getElementType())) {
      Value codes = arith::TruncIOp::create(
          b, loc, type.clone(b.getIntegerType(4)), shaped);
      return arith::BitcastOp::create(b, loc, type, codes);
    }
    return arith::BitcastOp::create(b, loc, type, shaped);
  }

  /// A kernel's E2M1 / E4M3 output buffer that host code reads (through
  /// bufferization.to_tensor: e.g. an NVFP4 result returned by the
  /// function): allocated as packed bytes that the kernels see through a
  /// memref.view and the host unpacks into the codes the reference lowering
  /// takes (it rejects tensors of these types made from buffers).
  void packHostReadOutput(memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    Type element = type.getElementType();
    if (!isComponentElementType(element) || !type.hasStaticShape() ||
        !type.getLayout().isIdentity() ||
        (isa<Float4E2M1FNType>(element) && type.getNumElements() % 2 != 0))
      return;
    SmallVector<bufferization::ToTensorOp> reads;
    for (Operation *user : alloc->getUsers())
      if (auto read = dyn_cast<bufferization::ToTensorOp>(user))
        reads.push_back(read);
    if (reads.empty())
      return;
    OpBuilder b(alloc);
    Location loc = alloc.getLoc();
    const int64_t bytes = isa<Float4E2M1FNType>(element)
                              ? type.getNumElements() / 2
                              : type.getNumElements();
    auto bytesType = MemRefType::get({bytes}, b.getI8Type());
    Value buffer =
        memref::AllocOp::create(b, loc, bytesType, alloc.getAlignmentAttr());
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value view =
        memref::ViewOp::create(b, loc, type, buffer, zero, ValueRange{});
    for (bufferization::ToTensorOp read : reads) {
      b.setInsertionPoint(read);
      Value packed = bufferization::ToTensorOp::create(
          b, read.getLoc(), RankedTensorType::get({bytes}, b.getI8Type()),
          buffer, read.getRestrict(), read.getWritable());
      read.replaceAllUsesWith(unpackBytes(
          b, read.getLoc(), packed, cast<RankedTensorType>(read.getType())));
      read.erase();
    }
    // Deallocations free the bytes; every other use sees the view.
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user))
        dealloc.getMemrefMutable().assign(buffer);
    alloc.replaceAllUsesWith(view);
    alloc.erase();
  }

  LogicalResult packLaunch(gpu::LaunchFuncOp launch) {
    OpBuilder b(launch);
    Location loc = launch.getLoc();
    SmallVector<int32_t> access;
    SmallVector<Value> operands(launch.getKernelOperands());
    for (auto [index, operand] : llvm::enumerate(operands)) {
      auto memrefType = dyn_cast<MemRefType>(operand.getType());
      if (!memrefType) {
        access.push_back(kLaunchOperandNone);
        continue;
      }
      Operation *def = operand.getDefiningOp();
      if (isa_and_nonnull<memref::AllocOp>(def)) {
        // A fresh result buffer is only written by the kernel; one that
        // something used before (e.g. the output of an earlier launch) is
        // copied both ways.
        bool usedBefore = llvm::any_of(operand.getUsers(), [&](Operation *u) {
          if (u == launch.getOperation())
            return false;
          return u->getBlock() != launch->getBlock() ||
                 u->isBeforeInBlock(launch);
        });
        access.push_back(usedBefore ? (kLaunchOperandRead | kLaunchOperandWrite)
                                    : kLaunchOperandWrite);
        continue;
      }
      auto toBuffer = dyn_cast_or_null<bufferization::ToBufferOp>(def);
      if (!toBuffer) {
        // Unknown origin: copied both ways.
        access.push_back(kLaunchOperandRead | kLaunchOperandWrite);
        continue;
      }
      access.push_back(kLaunchOperandRead);
      Type element = memrefType.getElementType();
      if (!isComponentElementType(element))
        continue;
      if (!memrefType.getLayout().isIdentity())
        return launch.emitOpError()
               << "kernel operand #" << index
               << " of E2M1/E4M3 type must have an identity layout to be "
                  "packed";
      // (A run-time E2M1 count is even: the last dimension holds whole
      // blocks.)
      if (isa<Float4E2M1FNType>(element) && memrefType.hasStaticShape() &&
          memrefType.getNumElements() % 2 != 0)
        return launch.emitOpError() << "kernel operand #" << index
                                    << " has an odd number of E2M1 elements";
      Value bytes = packToBytes(b, loc, toBuffer.getTensor());
      auto bytesType = cast<RankedTensorType>(bytes.getType());
      auto bufferType =
          MemRefType::get(bytesType.getShape(), bytesType.getElementType());
      Value buffer = bufferization::ToBufferOp::create(
          b, loc, bufferType, bytes, /*read_only=*/true);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      // The view's run-time sizes are the packed tensor's, read from its
      // integer codes (the host lowering takes no other op on the codes'
      // element types).
      // (At the buffer, which dominates every read of its sizes.)
      Value codes;
      const bool readsSizes =
          !memrefType.hasStaticShape() ||
          llvm::any_of(toBuffer->getUsers(), llvm::IsaPred<memref::DimOp>);
      if (readsSizes) {
        OpBuilder atBuffer(toBuffer);
        auto tensorType =
            cast<RankedTensorType>(toBuffer.getTensor().getType());
        codes =
            arith::BitcastOp::create(atBuffer, loc,
                                     tensorType.clone(atBuffer.getIntegerType(
                                         element.getIntOrFloatBitWidth())),
                                     toBuffer.getTensor());
      }
      SmallVector<Value> sizes;
      for (int64_t d = 0; d < memrefType.getRank(); ++d)
        if (memrefType.isDynamicDim(d))
          sizes.push_back(tensor::DimOp::create(b, loc, codes, d));
      Value view =
          memref::ViewOp::create(b, loc, memrefType, buffer, zero, sizes);
      launch.getKernelOperandsMutable()[index].set(view);
      // The host's reads of a run-time size (shape checks, tensor-map
      // sizes) read the codes' instead, so that the unpacked buffer goes.
      for (Operation *user : llvm::make_early_inc_range(toBuffer->getUsers()))
        if (auto dim = dyn_cast<memref::DimOp>(user)) {
          OpBuilder at(dim);
          dim.replaceAllUsesWith(
              tensor::DimOp::create(at, dim.getLoc(), codes, dim.getIndex())
                  .getResult());
          dim.erase();
        }
      if (toBuffer->use_empty())
        toBuffer->erase();
    }
    // What the lowering that created the launch recorded wins over where
    // the operands come from.
    if (auto recorded = launch->getAttrOfType<DenseI32ArrayAttr>(
            kLaunchOperandAccessAttrName)) {
      if (recorded.size() != static_cast<int64_t>(operands.size()))
        return launch.emitOpError() << kLaunchOperandAccessAttrName
                                    << " does not have one entry per operand";
      return success();
    }
    launch->setAttr(kLaunchOperandAccessAttrName,
                    b.getDenseI32ArrayAttr(access));
    return success();
  }

  void runOnOperation() override {
    SmallVector<gpu::LaunchFuncOp> launches;
    getOperation().walk([&](gpu::LaunchFuncOp op) {
      if (isHostLaunch(op))
        launches.push_back(op);
    });
    for (gpu::LaunchFuncOp launch : launches)
      if (failed(packLaunch(launch)))
        return signalPassFailure();
    // The kernels' E2M1 / E4M3 outputs that host code reads.
    SmallVector<memref::AllocOp> outputs;
    for (gpu::LaunchFuncOp launch : launches)
      for (Value operand : launch.getKernelOperands())
        if (auto alloc = operand.getDefiningOp<memref::AllocOp>();
            alloc && !llvm::is_contained(outputs, alloc))
          outputs.push_back(alloc);
    for (memref::AllocOp alloc : outputs)
      packHostReadOutput(alloc);
  }
};

} // namespace

std::unique_ptr<Pass> mlir::nvfp4::createGPUPackLaunchOperandsPass() {
  return std::make_unique<PackLaunchOperandsPass>();
}

//===----------------------------------------------------------------------===//
// nvfp4-to-gpu-executable
//===----------------------------------------------------------------------===//

void mlir::nvfp4::buildNVFP4ToGPUExecutablePipeline(
    OpPassManager &pm, const NVFP4ToPTXPipelineOptions &options) {
  // 1. Kernels: nvfp4.matmul -> gpu.launch_func + gpu.binary.
  buildNVFP4ToPTXPipeline(pm, options);
  // 2.-4. The host.
  buildGPUHostToLLVMPipeline(pm, options.copiesPerLaunch);
  addCheckLLVMLoweringPass(pm, "nvfp4-to-gpu-executable");
}

void mlir::nvfp4::buildGPUHostToLLVMPipeline(OpPassManager &pm,
                                             bool copiesPerLaunch) {
  // 2. Packed byte buffers for the E2M1 / E4M3 kernel operands, then the
  //    rest of the program through the reference lowering (as nvfp4-to-cpu).
  pm.addPass(createGPUPackLaunchOperandsPass());
  // The TMA tensor maps of tcgen05 launches describe the packed bytes (and
  // no longer keep the E2M1 buffer alive).
  pm.addPass(createTcgen05RetargetTensorMapsPass());
  pm.addPass(createConvertNVFP4ToReference());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());

  // 3. Bufferization with identity-layout function boundaries, then the
  //    device copies. No buffer deallocation pipeline: the ownership-based
  //    deallocation rejects gpu.launch_func (an op on memrefs without
  //    memory-effect information), so host buffers the bufferization
  //    allocates are not freed (docs/gpu-runtime.md, "Limitations").
  bufferization::OneShotBufferizePassOptions bufferizeOptions;
  bufferizeOptions.bufferizeFunctionBoundaries = true;
  bufferizeOptions.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // Loops that carry tensors (scf.for / scf.while iter_args, and the
  // components of NVFP4 values carried through them) yield new buffers.
  bufferizeOptions.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions));
  pm.addPass(createGPUStageLaunchOperandsPass(copiesPerLaunch));
  // The TMA tensor maps of tcgen05 launches describe the device copies.
  pm.addPass(createTcgen05RetargetTensorMapsPass());

  // 4. Host code to the LLVM dialect; gpu-async-region puts the copies and
  //    launches on a stream, gpu-to-llvm turns them into mgpu* calls.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  arith::ArithExpandOpsPassOptions expandOptions;
  expandOptions.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expandOptions));
  // As on the CPU pipeline: run-time-size views first.
  pm.addNestedPass<func::FuncOp>(createExpandRunTimeReshapes());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  // Math as on the CPU pipeline (exact GELU is `math.erf`), before the
  // vector, arith and func conversions.
  addHostMathToLLVMPasses(pm);
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::nvfp4::registerNVFP4ToGPUExecutablePipeline() {
  PassRegistration<PackLaunchOperandsPass>();
  registerGPUStageLaunchOperandsPass();
  registerTcgen05RetargetTensorMapsPass();
  PassPipelineRegistration<NVFP4ToPTXPipelineOptions>(
      "nvfp4-to-gpu-executable",
      "Lower an nvfp4 program to the LLVM dialect for mlir-runner on an "
      "NVIDIA GPU: matmuls as kernels (nvfp4-to-ptx) with device copies of "
      "their operands, everything else through the reference lowering; "
      "link libnvfp4_cuda_runtime",
      buildNVFP4ToGPUExecutablePipeline);
}
