//===- QuantizePatterns.cpp - Lower quantize and amax to kernel launches --===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The host side of `nvfp4.quantize` and `nvfp4.amax` on the GPU: buffers,
// grids (sized at launch for run-time sizes) and the launches of the kernels
// of QuantizeKernel.cpp. The host reads the amax back and rebuilds the NVFP4
// value with `nvfp4.assemble` over the very buffers the kernel wrote; the
// matmul lowering takes them from there without copies. `nvfp4.amax`
// launches the amax kernel (a quantization of the same input type shares
// it) and takes the maximum of the partials on the host.
//
//===----------------------------------------------------------------------===//

#include "QuantizeKernelBuilder.h"

#include "nvfp4/Conversion/NVFP4ToGPU/LaunchOperandAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::nvfp4;
using namespace mlir::nvfp4::detail;
namespace layout = ::nvfp4::gpu;

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// The quantize kernel's CTAs for the run-time-sized buffer `input`, one
/// thread per block, at least 1 (an empty input launches one CTA, whose
/// threads store nothing) and at most `maxCtas`.
static Value createRunTimeGridSize(OpBuilder &b, Location loc,
                                   const QuantizeConfig &config, Value input,
                                   std::optional<int64_t> maxCtas = {}) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value ctas =
      arith::CeilDivUIOp::create(b, loc, createNumBlocks(b, loc, config, input),
                                 cst(layout::kQuantizeThreads));
  ctas = arith::MaxUIOp::create(b, loc, ctas, cst(1));
  if (maxCtas)
    ctas = arith::MinUIOp::create(b, loc, ctas, cst(*maxCtas));
  return ctas;
}

/// Launches the amax kernel of `config` with the CTA shape `block` on the
/// buffer `input`, building the kernel with `emitter` on first use (ops on
/// inputs of one type and shape share it), and returns a new buffer of its
/// per-CTA partial maxima.
static Value launchAmaxKernel(OpBuilder &b, Location loc,
                              const QuantizeConfig &config,
                              QuantizeEmitter &emitter,
                              gpu::GPUModuleOp kernelModule,
                              gpu::KernelDim3 block, Value input) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value numCtas =
      config.runTimeSizes
          ? createRunTimeGridSize(b, loc, config, input, layout::kAmaxMaxCtas)
          : cst(layout::amaxNumCtas(config.numElements));
  Value partials = memref::AllocOp::create(
      b, loc,
      MemRefType::get({config.runTimeSizes
                           ? ShapedType::kDynamic
                           : layout::amaxNumCtas(config.numElements)},
                      b.getF32Type()),
      config.runTimeSizes ? ValueRange{numCtas} : ValueRange{},
      b.getI64IntegerAttr(16));
  SmallVector<Value> args = {input, partials};
  auto kernel =
      kernelModule.lookupSymbol<gpu::GPUFuncOp>(config.amaxKernelName());
  if (!kernel)
    kernel = emitter.buildAmaxKernel(kernelModule, ValueRange(args).getTypes());
  auto launch = gpu::LaunchFuncOp::create(
      b, loc, kernel, gpu::KernelDim3{numCtas, cst(1), cst(1)}, block,
      /*dynamicSharedMemorySize=*/Value(), args);
  setLaunchOperandAccess(launch, /*written=*/partials);
  return partials;
}

/// Checks, before the launches of `op`'s kernels, that the run-time last
/// dimension of its input buffer `input` is a multiple of 16: the blocks
/// of a row must not straddle two rows.
static void checkRunTimeCols(OpBuilder &b, Operation *op, Value input) {
  Location loc = op->getLoc();
  Value cols = memref::DimOp::create(
      b, loc, input, cast<MemRefType>(input.getType()).getRank() - 1);
  createRunTimeMultipleCheck(b, op, cols, layout::kQuantizeBlock,
                             "the input's last dimension");
}

namespace {
/// Lowers `nvfp4.quantize` to the amax and quantize kernels and rebuilds the
/// NVFP4 value from their outputs with `nvfp4.assemble`.
struct QuantizeOpLowering : public OpRewritePattern<QuantizeOp> {
  QuantizeOpLowering(MLIRContext *ctx, GPUTarget target, bool hardwareSR)
      : OpRewritePattern(ctx), target(target), hardwareSR(hardwareSR) {}

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a builtin.module");
    if (!mlir::nvfp4::detail::succeedsSilently(op.getContext(), [&] {
          return checkQuantizeSupported(op, target, hardwareSR);
        }))
      return rewriter.notifyMatchFailure(op, "unsupported quantize");
    QuantizeConfig config = QuantizeConfig::get(op, hardwareSR);
    Location loc = op.getLoc();
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    auto alignment = rewriter.getI64IntegerAttr(16);
    gpu::GPUModuleOp kernelModule =
        getOrCreateNVFP4KernelModule(rewriter, module);
    QuantizeEmitter emitter(rewriter, loc, config, target);
    gpu::KernelDim3 block{cst(layout::kQuantizeThreads), cst(1), cst(1)};

    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    Value input = bufferization::ToBufferOp::create(
        rewriter, loc,
        MemRefType::get(inputType.getShape(), inputType.getElementType()),
        op.getInput(), /*read_only=*/true);

    if (config.hasRunTimeCols())
      checkRunTimeCols(rewriter, op, input);

    // Tensor amax: the explicit operand, or the amax kernel's partials.
    Value amaxSource = op.getAmax();
    Value partials;
    if (!amaxSource) {
      partials = launchAmaxKernel(rewriter, loc, config, emitter, kernelModule,
                                  block, input);
      amaxSource = partials;
    }

    // Outputs: packed data, compact (or tcgen05 atoms) scales, the amax,
    // in the storage shape (K padded for a tcgen05 matmul).
    NVFP4TensorType storageType = mlir::nvfp4::detail::getNVFP4StorageType(op);
    RankedTensorType dataType = storageType.getDataType();
    RankedTensorType scalesType =
        config.scaleAtoms
            ? mlir::nvfp4::detail::getTcgen05AtomsScalesType(storageType)
            : storageType.getScalesType();
    // Run-time sizes are the input's (1x16 blocks in the compact layout:
    // the data has the input's shape, the scales its rows and a sixteenth
    // of its columns).
    SmallVector<Value> dataSizes, scaleSizes;
    for (auto [i, size] : llvm::enumerate(inputType.getShape())) {
      if (!ShapedType::isDynamic(size))
        continue;
      Value dim = memref::DimOp::create(rewriter, loc, input, i);
      dataSizes.push_back(dim);
      scaleSizes.push_back(
          i + 1 == static_cast<size_t>(inputType.getRank())
              ? arith::DivUIOp::create(rewriter, loc, dim,
                                       cst(layout::kQuantizeBlock))
                    .getResult()
              : dim);
    }
    Value data = memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get(dataType.getShape(), dataType.getElementType()),
        dataSizes, alignment);
    Value scales = memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get(scalesType.getShape(), scalesType.getElementType()),
        scaleSizes, alignment);
    Value amaxOut = memref::AllocOp::create(
        rewriter, loc, MemRefType::get({1}, rewriter.getF32Type()));
    SmallVector<Value> args = {input, amaxSource, data, scales, amaxOut};
    if (config.stochastic) {
      Value seed = op.getSeed();
      if (!seed)
        seed = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getI64IntegerAttr(0));
      args.push_back(seed);
    }
    auto kernel =
        kernelModule.lookupSymbol<gpu::GPUFuncOp>(config.quantizeKernelName());
    if (!kernel)
      kernel = emitter.buildQuantizeKernel(kernelModule,
                                           ValueRange(args).getTypes());
    auto launch = gpu::LaunchFuncOp::create(
        rewriter, loc, kernel,
        gpu::KernelDim3{
            config.runTimeSizes
                ? createRunTimeGridSize(rewriter, loc, config, input)
                : cst(layout::quantizeNumCtas(config.numStorageElements())),
            cst(1), cst(1)},
        block, /*dynamicSharedMemorySize=*/Value(), args);
    setLaunchOperandAccess(launch, /*written=*/{data, scales, amaxOut});

    // Host side: the amax back as a scalar, the buffers as the NVFP4 value.
    Value amax =
        memref::LoadOp::create(rewriter, loc, amaxOut, ValueRange{cst(0)});
    memref::DeallocOp::create(rewriter, loc, amaxOut);
    if (partials)
      memref::DeallocOp::create(rewriter, loc, partials);
    Value dataTensor = bufferization::ToTensorOp::create(
        rewriter, loc, dataType, data, /*restrict=*/true, /*writable=*/true);
    Value scalesTensor = bufferization::ToTensorOp::create(
        rewriter, loc, scalesType, scales, /*restrict=*/true,
        /*writable=*/true);
    mlir::nvfp4::detail::replaceWithNVFP4Storage(
        rewriter, op, dataTensor, scalesTensor, amax, config.scaleAtoms);
    return success();
  }

  GPUTarget target;
  bool hardwareSR;
};

/// Lowers `nvfp4.amax` to a launch of the amax kernel and the maximum of its
/// per-CTA partials on the host.
struct AmaxOpLowering : public OpRewritePattern<AmaxOp> {
  AmaxOpLowering(MLIRContext *ctx, GPUTarget target)
      : OpRewritePattern(ctx), target(target) {}

  LogicalResult matchAndRewrite(AmaxOp op,
                                PatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a builtin.module");
    if (!mlir::nvfp4::detail::succeedsSilently(
            op.getContext(), [&] { return checkAmaxSupported(op, target); }))
      return rewriter.notifyMatchFailure(op, "unsupported amax");
    QuantizeConfig config =
        QuantizeConfig::getForInput(op.getInput().getType());
    Location loc = op.getLoc();
    gpu::GPUModuleOp kernelModule =
        getOrCreateNVFP4KernelModule(rewriter, module);
    QuantizeEmitter emitter(rewriter, loc, config, target);
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value input =
        mlir::nvfp4::detail::createReadOnlyBuffer(rewriter, loc, op.getInput());
    if (config.hasRunTimeCols())
      checkRunTimeCols(rewriter, op, input);
    Value partials = launchAmaxKernel(
        rewriter, loc, config, emitter, kernelModule,
        gpu::KernelDim3{cst(layout::kQuantizeThreads), cst(1), cst(1)}, input);
    Value amax = createPartialsMax(
        rewriter, loc, partials, cst(0),
        createNumPartials(rewriter, loc, config, partials), /*step=*/1);
    memref::DeallocOp::create(rewriter, loc, partials);
    rewriter.replaceOp(op, amax);
    return success();
  }

  GPUTarget target;
};
} // namespace

void mlir::nvfp4::populateNVFP4QuantizeToGPUConversionPatterns(
    RewritePatternSet &patterns, GPUTarget target, bool hardwareSR) {
  patterns.add<QuantizeOpLowering>(patterns.getContext(), target,
                                   hardwareSR); // nvfp4.quantize
}

void mlir::nvfp4::populateNVFP4AmaxToGPUConversionPatterns(
    RewritePatternSet &patterns, GPUTarget target) {
  patterns.add<AmaxOpLowering>(patterns.getContext(), target); // nvfp4.amax
}
