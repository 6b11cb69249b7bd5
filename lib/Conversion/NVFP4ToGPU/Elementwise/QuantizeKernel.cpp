//===- QuantizeKernel.cpp - The quantize and amax kernels
//------------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The device code of the kernels `nvfp4.quantize` and `nvfp4.amax` launch
// (QuantizePatterns.cpp), and their support checks:
//
//  * `nvfp4_amax_*` (only without an explicit `amax` operand): every CTA
//    reduces a grid-strided share of the (Hadamard-transformed) input to the
//    maximum magnitude and writes it to one slot of a buffer of per-CTA
//    partial maxima;
//  * `nvfp4_quantize_*`: reduces those partials (or takes the explicit amax),
//    derives S_enc and S_dec, and quantizes one 16-element block per thread
//    with BlockQuantizeEmitter (BlockQuantizeIR.h): block amax (over the
//    16x16 tile by a half-warp butterfly for 2D scales), E4M3 block scale,
//    reciprocal multiplier, E2M1 codes (RN by
//    `cvt.rn.satfinite.e2m1x2.f32` on every target but sm_90a, in software
//    there; SR from Philox4x32-10 bits in software, or on request
//    (`hardware-sr`, sm_100a/sm_103a only) by `cvt.rs.satfinite.e2m1x4.f32`),
//    written packed two codes per byte, plus the compact scale bytes and
//    the tensor amax.
//
// Every f32 operation is the one docs/numerics.md §6 prescribes, in the same
// order, so the kernels produce the bytes of nvfp4::quantize. docs/gpu.md
// describes the design; the work assignment lives in QuantizeLayout.h.
//
//===----------------------------------------------------------------------===//

#include "QuantizeKernelBuilder.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Descriptors.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::nvfp4;
using namespace mlir::nvfp4::detail;
namespace layout = ::nvfp4::gpu;

//===----------------------------------------------------------------------===//
// Support checks
//===----------------------------------------------------------------------===//

/// Checks the input rules the amax and quantize kernels share: a
/// non-empty f32 / bf16 / f16 input of rank 1 or more whose last dimension
/// is a multiple of 16 (a run-time one is checked before the launch).
/// Emits an error at `op` and fails otherwise.
static LogicalResult checkKernelInputSupported(Operation *op,
                                               const QuantizeConfig &c) {
  if (c.shape.empty() || (c.runTimeSizes ? c.cols == 0 : c.numElements <= 0))
    return op->emitOpError()
           << "is not supported by the GPU kernel: the input must have a "
              "non-empty shape";
  if (!c.inputElementType.isF32() && !c.inputElementType.isBF16() &&
      !c.inputElementType.isF16())
    return op->emitOpError() << "is not supported by the GPU kernel: input "
                                "elements must be f32, bf16 or f16";
  if (!c.hasRunTimeCols() && c.cols % layout::kQuantizeBlock != 0)
    return op->emitOpError() << "is not supported by the GPU kernel: the last "
                                "dimension must be a multiple of 16";
  return success();
}

LogicalResult mlir::nvfp4::checkQuantizeSupported(QuantizeOp op,
                                                  GPUTarget target,
                                                  bool hardwareSR) {
  QuantizeConfig c = QuantizeConfig::get(op, hardwareSR);
  if (c.hardwareSR && !hasHardwareStochasticE2M1Convert(target))
    return op.emitOpError()
           << "with rounding rs cannot use hardware-sr on "
           << stringifyGPUTarget(target)
           << ": cvt.rs.satfinite.e2m1x4.f32 exists on sm_100a and sm_103a "
              "only (drop hardware-sr to round in software)";
  if (failed(checkKernelInputSupported(op, c)))
    return failure();
  if (c.runTimeSizes && (c.blockRows != 1 || c.scaleAtoms || c.paddedStorage()))
    return op.emitOpError()
           << "is not supported by the GPU kernel: run-time sizes take 1x16 "
              "blocks in the compact scale layout";
  constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
  if (layout::quantizeNumCtas(c.numStorageElements()) > kMaxGridX)
    return op.emitOpError()
           << "is not supported by the GPU kernel: " << c.numStorageElements()
           << " elements need more than " << kMaxGridX << " CTAs";
  return success();
}

LogicalResult mlir::nvfp4::checkAmaxSupported(AmaxOp op, GPUTarget target) {
  // The amax kernel runs at most kAmaxMaxCtas CTAs that stride over the
  // blocks, so any input size fits its grid on every target.
  return checkKernelInputSupported(
      op, QuantizeConfig::getForInput(op.getInput().getType()));
}

void mlir::nvfp4::reportQuantizeFallbacks(QuantizeOp op, GPUTarget target,
                                          bool hardwareSR) {
  if (op.getRounding() == Rounding::Stochastic) {
    if (hardwareSR)
      return;
    InFlightDiagnostic remark =
        op.emitRemark()
        << "nvfp4: fallback: stochastic rounding in software (Philox4x32-10 "
           "random bits, integer rounding) instead of "
           "cvt.rs.satfinite.e2m1x4.f32: ";
    if (hasHardwareStochasticE2M1Convert(target))
      remark << "hardware-sr is off (the instruction's random-bit assignment "
                "is unverified on hardware, docs/gpu.md)";
    else
      remark << stringifyGPUTarget(target)
             << " does not have the instruction (sm_100a and sm_103a only)";
    return;
  }
  if (!hasHardwareE2M1Convert(target))
    op.emitRemark() << "nvfp4: fallback: E2M1 rounding in software instead "
                       "of cvt.rn.satfinite.e2m1x2.f32: "
                    << stringifyGPUTarget(target)
                    << " does not have the instruction";
}

//===----------------------------------------------------------------------===//
// Device code
//===----------------------------------------------------------------------===//

Value QuantizeEmitter::globalBasePointer(Value memref) {
  return mlir::nvfp4::detail::createGlobalBasePointer(b, loc, memref);
}

Value QuantizeEmitter::byteAddress(Value base, IndexExpr byteOffset) {
  return mlir::nvfp4::detail::createByteAddress(b, loc, base, byteOffset.v);
}

SmallVector<Value> QuantizeEmitter::loadBlock(Value inputPtr, IndexExpr block) {
  const int64_t elemBytes = c.inputElementType.getIntOrFloatBitWidth() / 8;
  return mlir::nvfp4::detail::createBlockLoadF32(
      b, loc, inputPtr, (layout::quantizeInputElement(block) * elemBytes).v,
      c.inputElementType);
}

void QuantizeEmitter::hadamard(SmallVector<Value> &v) {
  mlir::nvfp4::detail::createHadamard16(b, loc, v, c.signMask());
}

Value QuantizeEmitter::ctaMax(Value v, Value smem, IndexExpr lane,
                              IndexExpr warp) {
  v = mlir::nvfp4::detail::createButterflyMax(b, loc, v, {16, 8, 4, 2, 1});
  Value isLeader = cmpI(arith::CmpIPredicate::eq, lane.v, idx(0).v);
  auto ifOp = scf::IfOp::create(b, loc, isLeader, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    memref::StoreOp::create(b, loc, v, smem, ValueRange{warp.v});
  }
  gpu::BarrierOp::create(b, loc);
  Value r = memref::LoadOp::create(b, loc, smem, ValueRange{idx(0).v});
  for (int64_t w = 1; w < layout::kQuantizeWarps; ++w) {
    Value x = memref::LoadOp::create(b, loc, smem, ValueRange{idx(w).v});
    r = select(cmpF(arith::CmpFPredicate::OGT, x, r), x, r);
  }
  return r;
}

Value mlir::nvfp4::detail::createPartialsMax(OpBuilder &b, Location loc,
                                             Value partials, Value first,
                                             Value numPartials, int64_t step) {
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  auto loop = scf::ForOp::create(
      b, loc, first, numPartials, arith::ConstantIndexOp::create(b, loc, step),
      ValueRange{zero},
      [&](OpBuilder &nb, Location nloc, Value i, ValueRange acc) {
        Value x = memref::LoadOp::create(nb, nloc, partials, ValueRange{i});
        Value greater = arith::CmpFOp::create(
            nb, nloc, arith::CmpFPredicate::OGT, x, acc[0]);
        scf::YieldOp::create(
            nb, nloc,
            ValueRange{arith::SelectOp::create(nb, nloc, greater, x, acc[0])});
      });
  return loop.getResult(0);
}

Value mlir::nvfp4::detail::createNumElements(OpBuilder &b, Location loc,
                                             Value memref) {
  int64_t staticProduct = 1;
  Value product;
  for (auto [i, size] :
       llvm::enumerate(cast<MemRefType>(memref.getType()).getShape())) {
    if (!ShapedType::isDynamic(size)) {
      staticProduct *= size;
      continue;
    }
    Value dim = memref::DimOp::create(b, loc, memref, i);
    product = product ? arith::MulIOp::create(b, loc, product, dim) : dim;
  }
  Value constant = arith::ConstantIndexOp::create(b, loc, staticProduct);
  return product ? arith::MulIOp::create(b, loc, product, constant) : constant;
}

Value mlir::nvfp4::detail::createNumBlocks(OpBuilder &b, Location loc,
                                           const QuantizeConfig &c,
                                           Value input) {
  if (!c.runTimeSizes)
    return arith::ConstantIndexOp::create(b, loc, c.numBlocks());
  return arith::DivUIOp::create(
      b, loc, createNumElements(b, loc, input),
      arith::ConstantIndexOp::create(b, loc, layout::kQuantizeBlock));
}

Value mlir::nvfp4::detail::createNumPartials(OpBuilder &b, Location loc,
                                             const QuantizeConfig &c,
                                             Value partials) {
  if (!c.runTimeSizes)
    return arith::ConstantIndexOp::create(b, loc,
                                          layout::amaxNumCtas(c.numElements));
  return memref::DimOp::create(b, loc, partials, 0);
}

/// Creates a kernel with `argTypes` and one workgroup buffer of kQuantizeWarps
/// f32 for the CTA reduction; the builder is left at its entry.
static gpu::GPUFuncOp createKernel(OpBuilder &b, Location loc,
                                   gpu::GPUModuleOp module, StringRef name,
                                   TypeRange argTypes) {
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto smemType = MemRefType::get({layout::kQuantizeWarps}, b.getF32Type(),
                                  MemRefLayoutAttrInterface(), workgroup);
  return mlir::nvfp4::detail::createKernelFunc(b, loc, module, name, argTypes,
                                               layout::kQuantizeThreads,
                                               TypeRange{smemType});
}

gpu::GPUFuncOp QuantizeEmitter::buildAmaxKernel(gpu::GPUModuleOp module,
                                                TypeRange argTypes) {
  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(b, loc, module, c.amaxKernelName(), argTypes);
  Block &entry = kernel.front();
  Value input = entry.getArgument(0), partials = entry.getArgument(1);
  Value smem = kernel.getWorkgroupAttributions()[0];

  IndexExpr tid = idx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  IndexExpr cta = idx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  IndexExpr gid = layout::quantizeGlobalThread(cta, tid);
  Value inputPtr = globalBasePointer(input);
  // The grid's threads: amaxNumCtas of them, or as many as the host
  // launched for a run-time size.
  IndexExpr stride =
      c.runTimeSizes
          ? idx(gpu::GridDimOp::create(b, loc, gpu::Dimension::x)) *
                layout::kQuantizeThreads
          : idx(layout::amaxNumCtas(c.numElements) * layout::kQuantizeThreads);

  // Grid-strided walk over the blocks; the order does not matter for a max.
  auto loop =
      scf::ForOp::create(b, loc, gid.v, createNumBlocks(b, loc, c, input),
                         stride.v, ValueRange{f32(0.0f)});
  {
    OpBuilder::InsertionGuard loopGuard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> v = loadBlock(inputPtr, idx(loop.getInductionVar()));
    if (c.hadamard)
      hadamard(v);
    Value acc = loop.getRegionIterArgs()[0];
    for (Value x : v)
      acc = quantizer.absMaxAccumulate(acc, x);
    scf::YieldOp::create(b, loc, acc);
  }
  Value ctaAmax = ctaMax(loop.getResult(0), smem, tid % 32, tid / 32);
  Value isFirst = cmpI(arith::CmpIPredicate::eq, tid.v, idx(0).v);
  auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  memref::StoreOp::create(b, loc, ctaAmax, partials, ValueRange{cta.v});
  b.setInsertionPointAfter(ifOp);
  gpu::ReturnOp::create(b, loc);
  return kernel;
}

gpu::GPUFuncOp QuantizeEmitter::buildQuantizeKernel(gpu::GPUModuleOp module,
                                                    TypeRange argTypes) {
  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(b, loc, module, c.quantizeKernelName(), argTypes);
  Block &entry = kernel.front();
  // Arguments: input, amax (f32) or partials (memref), data, scales, the
  // tensor amax out (memref<1xf32>), [seed].
  Value input = entry.getArgument(0), amaxSource = entry.getArgument(1);
  Value data = entry.getArgument(2), scales = entry.getArgument(3);
  Value amaxOut = entry.getArgument(4);
  Value seed = c.stochastic ? entry.getArgument(5) : Value();
  Value smem = kernel.getWorkgroupAttributions()[0];

  IndexExpr tid = idx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  IndexExpr cta = idx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  IndexExpr gid = layout::quantizeGlobalThread(cta, tid);

  // Tensor amax: explicit, or the maximum of the amax kernel's partials.
  Value amax = amaxSource;
  if (!c.explicitAmax) {
    Value threadMax = createPartialsMax(
        b, loc, amaxSource, tid.v, createNumPartials(b, loc, c, amaxSource),
        layout::kQuantizeThreads);
    amax = ctaMax(threadMax, smem, tid % 32, tid / 32);
  }

  // S_enc (docs/numerics.md §6 4.); thread 0 stores the tensor amax, the
  // NVFP4 tensor's f32 component.
  Value sEnc = quantizer.globalEncodeScale(amax);
  {
    Value isFirst = cmpI(arith::CmpIPredicate::eq, gid.v, idx(0).v);
    auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
    OpBuilder::InsertionGuard ifGuard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    memref::StoreOp::create(b, loc, amax, amaxOut, ValueRange{idx(0).v});
  }

  // The thread's block of the storage; threads past the end compute on
  // zeros (so that the 16x16 butterfly runs on full warps) and store
  // nothing. With padded storage, the blocks past the input's columns are
  // zeros too (zero codes, zero scales), and the input block, like the
  // random bits, is the one of the unpadded tensor.
  IndexExpr block =
      layout::quantizeBlockOfThread(gid, c.storageCols, c.blockRows);
  // Storage is padded only for static sizes: a run-time size's storage
  // blocks are its input blocks.
  Value numStorageBlocks = c.runTimeSizes ? createNumBlocks(b, loc, c, input)
                                          : idx(c.numStorageBlocks()).v;
  Value valid = cmpI(arith::CmpIPredicate::ult, gid.v, numStorageBlocks);
  IndexExpr inputBlock = block;
  Value loads = valid;
  if (c.paddedStorage()) {
    const int64_t storageBlocksPerRow = c.storageCols / layout::kQuantizeBlock;
    const int64_t inputBlocksPerRow = c.cols / layout::kQuantizeBlock;
    IndexExpr columnBlock = block % storageBlocksPerRow;
    inputBlock =
        (block / storageBlocksPerRow) * inputBlocksPerRow + columnBlock;
    loads = arith::AndIOp::create(b, loc, valid,
                                  cmpI(arith::CmpIPredicate::ult, columnBlock.v,
                                       idx(inputBlocksPerRow).v));
  }
  Value inputPtr = globalBasePointer(input);
  SmallVector<Type> blockTypes(layout::kQuantizeBlock, b.getF32Type());
  auto loadIf = scf::IfOp::create(b, loc, blockTypes, loads,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard ifGuard(b);
    b.setInsertionPointToStart(loadIf.thenBlock());
    scf::YieldOp::create(b, loc, loadBlock(inputPtr, inputBlock));
    b.setInsertionPointToStart(loadIf.elseBlock());
    scf::YieldOp::create(b, loc,
                         SmallVector<Value>(layout::kQuantizeBlock, f32(0.0f)));
  }
  SmallVector<Value> v(loadIf.getResults().begin(), loadIf.getResults().end());
  if (c.hadamard)
    hadamard(v);

  // The block scale from the amax of the block (1x16) or of the tile
  // (16x16: the maximum over the half warp), then the codes.
  Value bamax = quantizer.blockAmax(v);
  if (c.blockRows == 16)
    bamax =
        mlir::nvfp4::detail::createButterflyMax(b, loc, bamax, {1, 2, 4, 8});
  std::optional<BlockStochasticRounding> stochastic;
  if (c.stochastic) {
    Value counter = arith::IndexCastUIOp::create(
        b, loc, b.getI64Type(),
        layout::quantizePhiloxCounter(inputBlock,
                                      static_cast<int64_t>(c.offset))
            .v);
    stochastic = BlockStochasticRounding{seed, counter, c.hardwareSR};
  }
  BlockQuantizeEmitter::Block quantized =
      quantizer.quantizeBlock(v, sEnc, bamax, stochastic);

  auto storeIf = scf::IfOp::create(b, loc, valid, /*withElse=*/false);
  b.setInsertionPointToStart(storeIf.thenBlock());
  LLVM::StoreOp::create(
      b, loc, quantized.packed,
      byteAddress(globalBasePointer(data), layout::quantizeDataByte(block)), 8);
  auto storeScale = [&]() {
    LLVM::StoreOp::create(
        b, loc, quantized.scale,
        byteAddress(globalBasePointer(scales),
                    layout::quantizeScaleIndex(gid, c.blockRows)),
        1);
  };
  if (c.scaleAtoms) {
    // The tcgen05 atoms layout: the block's scale at its row and column
    // block (16x16: every row of the tile stores the tile's scale).
    const int64_t blocksPerRow = c.storageCols / layout::kQuantizeBlock;
    LLVM::StoreOp::create(b, loc, quantized.scale,
                          byteAddress(globalBasePointer(scales),
                                      ::nvfp4::gpu::tcgen05::scaleAtomsOffset(
                                          block / blocksPerRow,
                                          block % blocksPerRow, blocksPerRow)),
                          1);
  } else if (c.blockRows == 1) {
    storeScale();
  } else {
    Value first = cmpI(arith::CmpIPredicate::eq,
                       layout::quantizeRowInTile(gid).v, idx(0).v);
    auto firstIf = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    OpBuilder::InsertionGuard ifGuard(b);
    b.setInsertionPointToStart(firstIf.thenBlock());
    storeScale();
  }
  b.setInsertionPointAfter(storeIf);
  gpu::ReturnOp::create(b, loc);
  return kernel;
}
