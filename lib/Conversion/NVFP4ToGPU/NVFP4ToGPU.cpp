//===- NVFP4ToGPU.cpp - Lower NVFP4 matmuls to GPU kernels ----------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// convert-nvfp4-to-gpu: the GPU targets, the matmul support checks and
// fallback reports, the pattern that lowers `nvfp4.matmul` to a
// `gpu.launch_func` of an mma.sync kernel (sm_120a / sm_121a block-scaled,
// sm_90a bf16 on dequantized operands; built in MmaSyncMatmul.cpp), and the
// pass, which also applies the tcgen05 (Tcgen05Matmul.cpp), quantize,
// transpose and elementwise patterns. docs/gpu.md describes the design.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Conversion/NVFP4ToGPU/LaunchOperandAccess.h"

#include "MmaSync/MmaSyncMatmul.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Elementwise/ElementwiseKernels.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Elementwise/TransposeKernel.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Host/BoundaryScaleLayout.h"
#include "nvfp4/Conversion/NVFP4ToGPU/MmaSync/MmaLayout.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Matmul.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05TensorMap.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "BlockQuantizeIR.h"
#include "KernelIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir::nvfp4 {
#define GEN_PASS_DEF_CONVERTNVFP4TOGPU
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace mlir::nvfp4

using namespace mlir;
using namespace mlir::nvfp4;
using namespace mlir::nvfp4::detail;
namespace layout = ::nvfp4::gpu;

std::optional<GPUTarget> mlir::nvfp4::parseGPUTarget(StringRef name) {
  return llvm::StringSwitch<std::optional<GPUTarget>>(name)
      .Case("sm_120a", GPUTarget::SM120a)
      .Case("sm_121a", GPUTarget::SM121a)
      .Case("sm_90a", GPUTarget::SM90a)
      .Case("sm_100a", GPUTarget::SM100a)
      .Case("sm_103a", GPUTarget::SM103a)
      .Case("sm_110a", GPUTarget::SM110a)
      .Default(std::nullopt);
}

StringRef mlir::nvfp4::stringifyGPUTarget(GPUTarget target) {
  switch (target) {
  case GPUTarget::SM120a:
    return "sm_120a";
  case GPUTarget::SM121a:
    return "sm_121a";
  case GPUTarget::SM90a:
    return "sm_90a";
  case GPUTarget::SM100a:
    return "sm_100a";
  case GPUTarget::SM103a:
    return "sm_103a";
  case GPUTarget::SM110a:
    return "sm_110a";
  }
  llvm_unreachable("unknown GPU target");
}

bool mlir::nvfp4::hasBlockScaledMma(GPUTarget target) {
  return target == GPUTarget::SM120a || target == GPUTarget::SM121a;
}

std::optional<::nvfp4::gpu::TileShape>
mlir::nvfp4::parseMatmulTile(StringRef spec) {
  auto [ms, ns] = spec.split('x');
  int64_t m = 0, n = 0;
  if (ms.getAsInteger(10, m) || ns.getAsInteger(10, n))
    return std::nullopt;
  if (const layout::TileShape *t = layout::findTileShape(m, n))
    return *t;
  return std::nullopt;
}

/// Whether a type of `types` is a shaped type with a run-time size.
static bool hasRunTimeSize(TypeRange types) {
  return llvm::any_of(types, [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.hasRank() && !shaped.hasStaticShape();
  });
}

/// Whether a GPU kernel of `target` takes the run-time sizes of `op`: the
/// mma.sync matmul kernels a run-time M and K (batched too), the tcgen05
/// ones a run-time M and K (unbatched; a static K must be a multiple of
/// 32, which needs no K-padded copy); the quantize (1x16 blocks) and amax
/// kernels any run-time size (they walk the elements as blocks of 16; the last
/// dimension is checked to be a multiple of 16 at launch).
static bool hasRunTimeSizeKernel(Operation *op, GPUTarget target) {
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    ArrayRef<int64_t> lhs = matmul.getLhs().getType().getShape();
    ArrayRef<int64_t> rhs = matmul.getRhs().getType().getShape();
    // The batch and N are static.
    if (llvm::any_of(lhs.drop_back(2), ShapedType::isDynamic) ||
        llvm::any_of(rhs.drop_back(), ShapedType::isDynamic))
      return false;
    if (!isTcgen05Target(target))
      return true;
    // tcgen05: unbatched; a static K a multiple of 32 (the TMA row
    // stride), a run-time K checked to be one at launch.
    const int64_t k = MatmulShape::of(matmul).k;
    return lhs.size() == 2 &&
           (ShapedType::isDynamic(k) ||
            k % ::nvfp4::gpu::tcgen05::kTensorMapStrideAlignmentCodes == 0);
  }
  if (auto quantize = dyn_cast<QuantizeOp>(op))
    return quantize.getType().isNVFP4() &&
           quantize.getType().getBlock().getRows() == 1;
  return isa<AmaxOp>(op);
}

bool mlir::nvfp4::isLeftForHost(Operation *op, GPUTarget target) {
  if (!isa_and_nonnull<NVFP4Dialect>(op->getDialect()))
    return false;
  if ((hasRunTimeSize(op->getOperandTypes()) ||
       hasRunTimeSize(op->getResultTypes())) &&
      !hasRunTimeSizeKernel(op, target))
    return true;
  // Producers of an NVFP4 operand of a host op (a static weight's
  // quantization feeding a matmul of run-time M, say), through transposes.
  return isa<QuantizeOp, TransposeOp>(op) &&
         llvm::any_of(op->getUsers(), [&](Operation *user) {
           return isLeftForHost(user, target);
         });
}

LogicalResult mlir::nvfp4::checkMXMatmulSupported(MatmulOp op,
                                                  GPUTarget target) {
  Format lhs = op.getLhs().getType().getFormat();
  Format rhs = op.getRhs().getType().getFormat();
  // The kernels' operands share a byte layout: two E2M1 operands
  // (kind::mxf4) or two 8-bit ones (kind::mxf8f6f4), on the targets with
  // block-scaled MMAs (mma.sync on sm_120a / sm_121a, tcgen05.mma on the
  // sm_100a family).
  if ((hasBlockScaledMma(target) || isTcgen05Target(target)) &&
      getElementBits(lhs) == getElementBits(rhs))
    return success();
  return op.emitOpError()
         << "on " << stringifyFormat(lhs) << " x " << stringifyFormat(rhs)
         << " operands has no GPU kernel for " << stringifyGPUTarget(target)
         << ": the MX GEMM kernels are MXFP4 x MXFP4 (kind::mxf4) and MXFP8 "
            "x MXFP8 (kind::mxf8f6f4) on sm_100a, sm_103a, sm_110a, sm_120a "
            "and sm_121a; lower the program with --nvfp4-to-cpu";
}

LogicalResult
mlir::nvfp4::checkMatmulSupported(MatmulOp op, GPUTarget target,
                                  std::optional<::nvfp4::gpu::TileShape> tile) {
  if (!op.getLhs().getType().isNVFP4() &&
      failed(checkMXMatmulSupported(op, target)))
    return failure();
  if (isTcgen05Target(target))
    return checkTcgen05MatmulSupported(op, target);
  MatmulConfig c = MatmulConfig::get(op, target, tile);
  const int64_t tileM = c.tile.m, tileN = c.tile.n;
  auto fail = [&]() {
    return op.emitOpError() << "is not supported by the GPU kernel: M = " << c.m
                            << ", N = " << c.n << ", K = " << c.k << "; ";
  };
  if (!hasBlockScaledMma(target) && c.tile == ::nvfp4::gpu::kTile128x256)
    return fail() << "the 128x256 tile has no kernel for "
                  << stringifyGPUTarget(target)
                  << " (its 64x64 warp tiles of dequantized operands exceed "
                     "255 registers); use tile=128x128";
  // M, N and K (a multiple of 16, the block) are any size: the last CTA
  // tile's rows past M or N and the last K step's columns past K are
  // zero-filled on load, and results past M or N are not stored.
  constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
  if (llvm::divideCeil(c.n, tileN) > kMaxGridX)
    return fail() << "ceil(N / " << tileN << ") must not exceed " << kMaxGridX
                  << " (grid x limit)";
  constexpr int64_t kMaxGridYZ = 65535;
  // A run-time M's grid is checked nowhere: ceil(M / 64) > 65535 means
  // more than 4M rows, which no activation of a linear layer has.
  if ((!c.hasRunTimeM() && llvm::divideCeil(c.m, tileM) > kMaxGridYZ) ||
      c.batch > kMaxGridYZ)
    return fail() << "ceil(M / " << tileM << ") and the batch size must "
                  << "not exceed " << kMaxGridYZ << " (grid y and z limits)";
  return success();
}

void mlir::nvfp4::reportMatmulFallbacks(MatmulOp op, GPUTarget target) {
  if (isTcgen05Target(target) || hasBlockScaledMma(target))
    return;
  op.emitRemark() << "nvfp4: fallback: bf16 MMAs (mma.sync m16n8k16, the "
                     "operands dequantized to bf16 in registers, exactly) "
                     "instead of the FP4 block-scaled MMA: sm_90a has no FP4 "
                     "tensor cores; the accumulation order differs from the "
                     "reference (docs/gpu.md)";
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

gpu::GPUModuleOp
mlir::nvfp4::getOrCreateNVFP4KernelModule(RewriterBase &rewriter,
                                          ModuleOp module) {
  if (auto existing =
          module.lookupSymbol<gpu::GPUModuleOp>(kNVFP4KernelModuleName))
    return existing;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToEnd(module.getBody());
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  rewriter.getUnitAttr());
  return gpu::GPUModuleOp::create(rewriter, module.getLoc(),
                                  kNVFP4KernelModuleName);
}

namespace {
/// Lowers `nvfp4.matmul` to a launch of the block-scaled MMA kernel.
struct MatmulOpLowering : public OpRewritePattern<MatmulOp> {
  MatmulOpLowering(MLIRContext *ctx, GPUTarget target,
                   std::optional<layout::TileShape> tile)
      : OpRewritePattern(ctx), target(target), tile(tile) {}

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a builtin.module");
    MatmulConfig config = MatmulConfig::get(op, target, tile);
    if (!mlir::nvfp4::detail::succeedsSilently(op.getContext(), [&] {
          return checkMatmulSupported(op, target, tile);
        }))
      return rewriter.notifyMatchFailure(op, "unsupported shape");
    Location loc = op.getLoc();

    // Host side: components as buffers. An operand built by nvfp4.assemble
    // (e.g. by a lowered nvfp4.quantize) passes its buffers through: no
    // disassembly and no copy.
    SmallVector<Value> args;
    for (Value operand : {op.getLhs(), op.getRhs()}) {
      auto [data, scales, amax] =
          mlir::nvfp4::detail::getNVFP4Components(rewriter, loc, operand);
      for (Value tensor : {data, scales})
        args.push_back(
            mlir::nvfp4::detail::createReadOnlyBuffer(rewriter, loc, tensor));
      // MX operands have no tensor scale.
      if (amax)
        args.push_back(amax);
    }
    // The kernel's K steps and scale rows assume whole blocks.
    createRunTimeKChecks(rewriter, op, /*lhsData=*/args[0],
                         /*rhsData=*/args[config.isMX() ? 2 : 3],
                         config.blockCols(), /*positive=*/false);
    RankedTensorType resultType = op.getResult().getType();
    auto resultMemRef =
        MemRefType::get(resultType.getShape(), resultType.getElementType());
    if (Value acc = op.getAcc())
      args.push_back(bufferization::ToBufferOp::create(
          rewriter, loc, resultMemRef, acc, /*read_only=*/true));
    // A run-time M: the rows of A's data buffer.
    const unsigned mDim = config.batch ? 1 : 0;
    Value m =
        config.hasRunTimeM()
            ? memref::DimOp::create(rewriter, loc, args[0], mDim).getResult()
            : Value();
    Value out = memref::AllocOp::create(rewriter, loc, resultMemRef,
                                        m ? ValueRange{m} : ValueRange{});
    args.push_back(out);

    // Device side: the kernel, shared by identical matmuls.
    gpu::GPUModuleOp kernelModule =
        getOrCreateNVFP4KernelModule(rewriter, module);
    std::string name = config.kernelName();
    auto kernel = kernelModule.lookupSymbol<gpu::GPUFuncOp>(name);
    if (!kernel)
      kernel =
          buildMmaSyncMatmulKernel(rewriter, loc, config, target, kernelModule,
                                   name, ValueRange(args).getTypes());

    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    // One CTA per tile of the result: ceil(M / tile rows) rows of tiles,
    // computed at launch for a run-time M, at least one (an empty M runs
    // one row of CTAs that load and store nothing).
    Value tileColumns = cst(llvm::divideCeil(config.n, config.tile.n));
    Value tileRows =
        m ? arith::MaxUIOp::create(rewriter, loc,
                                   arith::CeilDivUIOp::create(
                                       rewriter, loc, m, cst(config.tile.m)),
                                   cst(1))
                .getResult()
          : cst(llvm::divideCeil(config.m, config.tile.m));
    gpu::KernelDim3 grid{tileColumns, tileRows,
                         cst(std::max<int64_t>(config.batch, 1))};
    gpu::KernelDim3 block{cst(config.tile.threads()), cst(1), cst(1)};
    Value sharedBytes = arith::ConstantIntOp::create(
        rewriter, loc, rewriter.getI32Type(), config.sharedBytes());
    auto launch = gpu::LaunchFuncOp::create(rewriter, loc, kernel, grid, block,
                                            sharedBytes, args);
    setLaunchOperandAccess(launch, /*written=*/out);
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
        op, resultType, out, /*restrict=*/true, /*writable=*/true);
    return success();
  }

  GPUTarget target;
  std::optional<layout::TileShape> tile;
};
} // namespace

void mlir::nvfp4::populateNVFP4ToGPUConversionPatterns(
    RewritePatternSet &patterns, GPUTarget target,
    std::optional<::nvfp4::gpu::TileShape> tile) {
  if (isTcgen05Target(target))
    return populateNVFP4ToTcgen05Patterns(patterns, target);
  patterns.add<MatmulOpLowering>(patterns.getContext(), target,
                                 tile); // nvfp4.matmul
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertNVFP4ToGPUPass
    : public mlir::nvfp4::impl::ConvertNVFP4ToGPUBase<ConvertNVFP4ToGPUPass> {
  using Base::Base;

  /// `report-fallbacks`: a remark at every op whose lowering takes a
  /// fallback (docs/hardening.md lists them), in IR order.
  void reportAllFallbacks(ModuleOp module, GPUTarget gpuTarget,
                          ::nvfp4::gpu::tcgen05::CtaPairMode ctaPair) {
    // An op without a GPU kernel (`what`), lowered on the host.
    auto leftForHost = [](Operation *op, const Twine &what) {
      op->emitRemark()
          << "nvfp4: fallback: left for the host instead of a GPU kernel: "
             "convert-nvfp4-to-gpu has no kernel for "
          << what
          << " (nvfp4-to-gpu-executable runs it on the CPU through the "
             "reference lowering)";
    };
    module.walk([&](Operation *op) {
      if (isLeftForHost(op, gpuTarget)) {
        leftForHost(op, "run-time sizes of this op (or it is an operand of "
                        "an op left for the host); docs/gpu.md lists the "
                        "kernels that take run-time sizes");
      } else if (auto matmul = dyn_cast<MatmulOp>(op)) {
        reportMatmulFallbacks(matmul, gpuTarget);
      } else if (auto quantize = dyn_cast<QuantizeOp>(op);
                 quantize && !quantize.getType().isNVFP4()) {
        leftForHost(op, "MX quantization");
      } else if (auto quantize = dyn_cast<QuantizeOp>(op)) {
        reportQuantizeFallbacks(quantize, gpuTarget, hardwareSR);
        // A quantized matmul result the tcgen05 epilogue does not quantize.
        if (isTcgen05Target(gpuTarget) &&
            quantize.getInput().getDefiningOp<MatmulOp>()) {
          std::string blocker =
              getTcgen05EpilogueFusionBlocker(quantize, gpuTarget, ctaPair);
          if (!blocker.empty())
            quantize.emitRemark()
                << "nvfp4: fallback: the matmul result is stored and "
                   "quantized by a separate kernel instead of in the tcgen05 "
                   "epilogue: "
                << blocker;
        }
      } else if (auto dequantize = dyn_cast<DequantizeOp>(op);
                 dequantize && !dequantize.getInput().getType().isNVFP4()) {
        leftForHost(op, "MX dequantization");
      } else if (isa<RescaleOp>(op)) {
        leftForHost(op, "'" + op->getName().getStringRef() + "'");
      }
    });
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkLowerableModule(module, getArgument())))
      return signalPassFailure();
    std::optional<GPUTarget> gpuTarget = parseGPUTarget(target);
    if (!gpuTarget) {
      emitError(module.getLoc())
          << "convert-nvfp4-to-gpu: unsupported target '" << target
          << "' (supported: sm_100a, sm_103a, sm_110a, sm_120a, sm_121a, "
             "sm_90a)";
      return signalPassFailure();
    }
    std::optional<::nvfp4::gpu::TileShape> matmulTile;
    if (!tile.empty()) {
      matmulTile = parseMatmulTile(tile);
      if (!matmulTile) {
        emitError(module.getLoc())
            << "convert-nvfp4-to-gpu: unsupported tile '" << tile
            << "' (supported: 64x64, 128x64, 64x128, 128x128, 128x256, "
               "16x128, 32x128)";
        return signalPassFailure();
      }
      if (isTcgen05Target(*gpuTarget)) {
        emitError(module.getLoc())
            << "convert-nvfp4-to-gpu: tile applies to the sm_120a, sm_121a "
               "and sm_90a matmul kernels, not to target '"
            << target << "'";
        return signalPassFailure();
      }
    }
    std::optional<::nvfp4::gpu::tcgen05::CtaPairMode> ctaPair =
        llvm::StringSwitch<std::optional<::nvfp4::gpu::tcgen05::CtaPairMode>>(
            tcgen05CtaPair)
            .Case("auto", ::nvfp4::gpu::tcgen05::CtaPairMode::Auto)
            .Case("off", ::nvfp4::gpu::tcgen05::CtaPairMode::Off)
            .Case("on", ::nvfp4::gpu::tcgen05::CtaPairMode::On)
            .Default(std::nullopt);
    if (!ctaPair) {
      emitError(module.getLoc())
          << "convert-nvfp4-to-gpu: unsupported tcgen05-cta-pair '"
          << tcgen05CtaPair << "' (supported: auto, off, on)";
      return signalPassFailure();
    }
    if (boundaryScaleLayout != "atoms" && boundaryScaleLayout != "row-major") {
      emitError(module.getLoc())
          << "convert-nvfp4-to-gpu: unsupported boundary-scale-layout '"
          << boundaryScaleLayout << "' (supported: atoms, row-major)";
      return signalPassFailure();
    }
    // MX: MXFP4 x MXFP4 and MXFP8 x MXFP8 matmuls have kernels on the
    // block-scaled targets; MX quantizations and dequantizations are left
    // for the host.
    bool mxUnsupported = false;
    module.walk([&](MatmulOp op) {
      if (!op.getLhs().getType().isNVFP4() && !isLeftForHost(op, *gpuTarget))
        mxUnsupported |= failed(checkMXMatmulSupported(op, *gpuTarget));
    });
    if (mxUnsupported)
      return signalPassFailure();
    // On tcgen05 targets, few-row GEMMs run as their transposed product,
    // and a K that is not a multiple of 32 gets copies of the operands with
    // K padded.
    swapTcgen05FewRowMatmuls(module, *gpuTarget, reportFallbacks);
    padTcgen05MatmulOperands(module, *gpuTarget, reportFallbacks);
    // Ops of run-time sizes (and their NVFP4 operands' producers) are left
    // for the host: no check, pattern or kernel below sees them.
    bool unsupported = false;
    module.walk([&](MatmulOp op) {
      if (isLeftForHost(op, *gpuTarget))
        return;
      unsupported |=
          isTcgen05Target(*gpuTarget)
              ? failed(checkTcgen05MatmulSupported(op, *gpuTarget, *ctaPair))
              : failed(checkMatmulSupported(op, *gpuTarget, matmulTile));
    });
    module.walk([&](QuantizeOp op) {
      if (op.getType().isNVFP4() && !isLeftForHost(op, *gpuTarget))
        unsupported |=
            failed(checkQuantizeSupported(op, *gpuTarget, hardwareSR));
    });
    module.walk([&](AmaxOp op) {
      if (!isLeftForHost(op, *gpuTarget))
        unsupported |= failed(checkAmaxSupported(op, *gpuTarget));
    });
    module.walk([&](Operation *op) {
      if (isLeftForHost(op, *gpuTarget))
        return;
      if (auto dq = dyn_cast<DequantizeOp>(op);
          dq && dq.getInput().getType().isNVFP4())
        unsupported |= failed(checkDequantizeSupported(dq, *gpuTarget));
      else if (auto transpose = dyn_cast<TransposeOp>(op))
        unsupported |= failed(checkTransposeSupported(transpose, *gpuTarget));
      else if (auto h = dyn_cast<HadamardOp>(op))
        unsupported |= failed(checkHadamardSupported(h, *gpuTarget));
    });
    if (unsupported)
      return signalPassFailure();
    if (reportFallbacks)
      reportAllFallbacks(module, *gpuTarget, *ctaPair);
    // NVFP4 values crossing function boundaries in the atoms layout
    // (BoundaryScaleLayout.cpp): before the quantizations are marked, which
    // counts the boundaries that take atoms.
    prepareBoundaryScaleLayouts(module, *gpuTarget, *ctaPair,
                                boundaryScaleLayout == "atoms",
                                reportFallbacks);

    // Quantizations first, so that the matmuls consuming them find the
    // nvfp4.assemble of the quantize kernels' buffers.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    auto lowerAll = [&](SmallVector<Operation *> ops,
                        RewritePatternSet &&patterns, StringRef opName) {
      bool changed = false, allErased = false;
      if (ops.empty())
        return success();
      if (succeeded(applyOpPatternsGreedily(ops, std::move(patterns), config,
                                            &changed, &allErased)) &&
          allErased)
        return success();
      emitError(module.getLoc())
          << "convert-nvfp4-to-gpu: failed to lower every " << opName;
      return failure();
    };
    // On tcgen05 targets, the amax a quantization of a matmul result needs
    // comes from the matmul kernel's epilogue.
    if (isTcgen05Target(*gpuTarget)) {
      SmallVector<Operation *> amaxlessQuantizes;
      module.walk([&](QuantizeOp op) {
        if (!op.getAmax() && op.getType().isNVFP4() &&
            !isLeftForHost(op, *gpuTarget))
          amaxlessQuantizes.push_back(op);
      });
      RewritePatternSet amaxPatterns(&getContext());
      populateTcgen05ResultAmaxPatterns(amaxPatterns, *gpuTarget, *ctaPair);
      (void)applyOpPatternsGreedily(amaxlessQuantizes, std::move(amaxPatterns),
                                    config);
    }
    // Quantizations whose every use is a 1-CTA tcgen05 matmul that can read
    // the operand's scales as atoms write them in that layout
    // (docs/tcgen05.md, "Scale atoms in global memory").
    module.walk([&](QuantizeOp op) {
      if (op.getType().isNVFP4() && !isLeftForHost(op, *gpuTarget) &&
          producesTcgen05ScaleAtoms(op, *gpuTarget, *ctaPair))
        op->setAttr(mlir::nvfp4::detail::kTcgen05ScaleAtomsAttrName,
                    UnitAttr::get(&getContext()));
    });
    if (reportFallbacks && isTcgen05Target(*gpuTarget))
      reportRowMajorTcgen05Operands(module, *gpuTarget, *ctaPair);
    // Quantizations of a matmul result that the tcgen05 kernel's NVFP4
    // epilogue computes are lowered with their matmul, after the other
    // quantizations (their matmul's operands), together with the
    // transposes, in program order, so that each one's operands are lowered
    // before it.
    SmallVector<Operation *> quantizes, epiloguesAndTransposes, matmuls;
    module.walk([&](Operation *op) {
      if (isLeftForHost(op, *gpuTarget))
        return;
      if (isa<TransposeOp>(op))
        epiloguesAndTransposes.push_back(op);
      else if (auto quantize = dyn_cast<QuantizeOp>(op);
               quantize && quantize.getType().isNVFP4())
        (getTcgen05EpilogueFusionBlocker(quantize, *gpuTarget, *ctaPair).empty()
             ? epiloguesAndTransposes
             : quantizes)
            .push_back(op);
    });
    RewritePatternSet quantizePatterns(&getContext());
    populateNVFP4QuantizeToGPUConversionPatterns(quantizePatterns, *gpuTarget,
                                                 hardwareSR);
    if (failed(lowerAll(quantizes, std::move(quantizePatterns),
                        QuantizeOp::getOperationName())))
      return signalPassFailure();
    // Then the matmuls with an NVFP4 epilogue and the transposes
    // (TransposeKernel.cpp), in program order: the operands of each
    // (quantizations, possibly by an earlier epilogue or transpose) are
    // lowered before it.
    for (Operation *op : epiloguesAndTransposes) {
      RewritePatternSet patterns(&getContext());
      if (isa<TransposeOp>(op))
        populateNVFP4TransposeToGPUConversionPatterns(patterns, *gpuTarget);
      else
        populateNVFP4ToTcgen05NVFP4EpiloguePatterns(patterns, *gpuTarget,
                                                    hardwareSR, *ctaPair);
      if (failed(lowerAll({op}, std::move(patterns),
                          op->getName().getStringRef())))
        return signalPassFailure();
    }
    // Dequantize and Hadamard kernels (ElementwiseKernels.cpp), after the
    // quantizations whose buffers a dequantize may read.
    SmallVector<Operation *> elementwise;
    module.walk([&](Operation *op) {
      auto dequantize = dyn_cast<DequantizeOp>(op);
      if (isLeftForHost(op, *gpuTarget))
        return;
      if (isa<HadamardOp>(op) ||
          (dequantize && dequantize.getInput().getType().isNVFP4()))
        elementwise.push_back(op);
    });
    RewritePatternSet elementwisePatterns(&getContext());
    populateNVFP4ElementwiseToGPUConversionPatterns(elementwisePatterns,
                                                    *gpuTarget);
    if (failed(lowerAll(elementwise, std::move(elementwisePatterns),
                        "nvfp4.dequantize / nvfp4.hadamard")))
      return signalPassFailure();
    module.walk([&](MatmulOp op) {
      if (!isLeftForHost(op, *gpuTarget))
        matmuls.push_back(op);
    });
    RewritePatternSet matmulPatterns(&getContext());
    if (isTcgen05Target(*gpuTarget))
      populateNVFP4ToTcgen05Patterns(matmulPatterns, *gpuTarget, *ctaPair);
    else
      populateNVFP4ToGPUConversionPatterns(matmulPatterns, *gpuTarget,
                                           matmulTile);
    if (failed(lowerAll(matmuls, std::move(matmulPatterns),
                        MatmulOp::getOperationName())))
      return signalPassFailure();
    // The amaxes no matmul epilogue computed.
    SmallVector<Operation *> amaxes;
    module.walk([&](AmaxOp op) {
      if (!isLeftForHost(op, *gpuTarget))
        amaxes.push_back(op);
    });
    RewritePatternSet amaxPatterns(&getContext());
    populateNVFP4AmaxToGPUConversionPatterns(amaxPatterns, *gpuTarget);
    if (failed(lowerAll(amaxes, std::move(amaxPatterns),
                        AmaxOp::getOperationName())))
      return signalPassFailure();

    // The boundaries that take atoms-layout values as they are.
    finishBoundaryScaleLayouts(module);

    // The host values the lowerings left unused: an nvfp4.assemble (or the
    // cast of an atoms-layout value) whose buffers the kernels took
    // directly, and its buffer views. Later host lowerings (the reference
    // lowering of nvfp4-to-gpu-executable) reject E2M1 / E4M3 tensors, so
    // none may remain without a use.
    SmallVector<Operation *> hostViews;
    module.walk([&](Operation *op) {
      if ((isa<AssembleOp, DisassembleOp, bufferization::ToTensorOp>(op) ||
           mlir::nvfp4::detail::isTcgen05AtomsNVFP4Value(op)) &&
          !op->getParentOfType<gpu::GPUModuleOp>())
        hostViews.push_back(op);
    });
    // Users before producers.
    bool atomsValueLeft = false;
    for (Operation *op : llvm::reverse(hostViews)) {
      if (op->use_empty()) {
        op->erase();
        continue;
      }
      // Only the tcgen05 matmul reads the atoms layout, and it consumed
      // every such value: a remaining use would read scales in a layout it
      // does not expect.
      if (mlir::nvfp4::detail::isTcgen05AtomsNVFP4Value(op)) {
        op->emitError() << "convert-nvfp4-to-gpu: internal error: an NVFP4 "
                           "value with scales in the tcgen05 atoms layout "
                           "is used by '"
                        << (*op->getUsers().begin())->getName()
                        << "', which reads compact scales";
        atomsValueLeft = true;
      }
    }
    if (atomsValueLeft)
      return signalPassFailure();

    // Fold the index arithmetic of the generated kernels and deduplicate
    // their constants.
    if (auto kernels =
            module.lookupSymbol<gpu::GPUModuleOp>(kNVFP4KernelModuleName)) {
      if (failed(applyPatternsGreedily(
              kernels,
              FrozenRewritePatternSet(RewritePatternSet(&getContext())))))
        return signalPassFailure();
    }
  }
};
} // namespace
