//===- Tcgen05Matmul.cpp - NVFP4 matmul on tcgen05 tensor cores -----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Lowers `nvfp4.matmul` for sm_100a / sm_103a / sm_110a to a launch of a
// persistent, warp-specialized 1-CTA kernel built on
// `tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16` (MX
// operands: kind::mxf4 or kind::mxf8f6f4 with .block32, UE8M0 scales, no
// alpha; the same kernel with 128-byte K tiles of 8-bit elements for MXFP8):
//
//  - CTA tile 128 x N x 256 (N = 256, 128 or 64, the largest dividing the
//    output width); the grid is min(#tiles, #SMs) CTAs, each computing the
//    tiles blockIdx.x, blockIdx.x + gridDim.x, ... (Tcgen05Pipeline.h);
//  - 192 threads: warp 0 loads the A and B tiles of each K tile with TMA
//    (`cp.async.bulk.tensor`, 128-byte swizzle, tensor maps built by the
//    host through libnvfp4_cuda_runtime) and the E4M3 scales with its 32
//    lanes into 128x4 atoms; one thread of warp 1 copies the atoms to tensor
//    memory (tcgen05.cp.32x128b.warpx4) and issues the 4 MMAs of the K tile
//    with compiler-built descriptors; warps 2..5 read the accumulator with
//    tcgen05.ld.32x32b.x16, multiply by the operands' alpha (from their
//    amaxes), add `acc` and store f32 or bf16;
//  - up to 6 shared-memory stages between producer and MMA (full / empty
//    mbarriers) and, when tensor memory allows, two accumulators between MMA
//    and epilogue (accFull / accEmpty mbarriers).
//
// This file holds the support checks, the patterns and the host side of the
// launch; Tcgen05KernelBuilder.h, Tcgen05Kernel.cpp and Tcgen05Epilogue.cpp
// build the kernel, Tcgen05HostPasses.cpp holds the passes around the host
// code (tensor-map retargeting, target attachment). docs/tcgen05.md describes
// the design and its ptxas figures.
//
//===----------------------------------------------------------------------===//

#include "Tcgen05KernelBuilder.h"
#include "nvfp4/Conversion/NVFP4ToGPU/LaunchOperandAccess.h"
#include "nvfp4/Dialect/NVFP4/Utils/ScaleLayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::nvfp4;
using namespace mlir::nvfp4::detail;

bool mlir::nvfp4::isTcgen05Target(GPUTarget target) {
  return target == GPUTarget::SM100a || target == GPUTarget::SM103a ||
         target == GPUTarget::SM110a;
}

LogicalResult
mlir::nvfp4::checkTcgen05MatmulSupported(MatmulOp op, GPUTarget target,
                                         tc::CtaPairMode ctaPair) {
  if (!isTcgen05Target(target))
    return op.emitOpError() << "the tcgen05 kernel needs sm_100a, sm_103a or "
                               "sm_110a";
  Tcgen05Config c = Tcgen05Config::get(op, target, std::nullopt, ctaPair);
  auto fail = [&]() {
    return op.emitOpError()
           << "is not supported by the tcgen05 kernel: M = " << c.m
           << ", N = " << c.n << ", K = " << c.k << "; ";
  };
  // M and N are any size: TMA zero-fills the rows of the last tiles past
  // the operands, and the epilogue stores only inside M x N. A run-time M
  // (unbatched; the 1-CTA kernel) sizes A's tensor map, the grid and the
  // tiles at run time.
  if (c.hasRunTimeM() && c.batch)
    return fail() << "a run-time M needs an unbatched matmul";
  if (c.hasRunTimeM() && ctaPair == tc::CtaPairMode::On)
    return fail() << "tcgen05-cta-pair=on needs a static M (a CTA pair "
                     "computes whole 256-row tiles)";
  // A run-time K (unbatched; the 1-CTA kernel) sizes both tensor maps and
  // the K loop at run time; the host checks that it is a positive multiple
  // of 32 before the launch.
  if (c.hasRunTimeK() && c.batch)
    return fail() << "a run-time K needs an unbatched matmul";
  if (c.hasRunTimeK() && ctaPair == tc::CtaPairMode::On)
    return fail() << "tcgen05-cta-pair=on needs a static K";
  if (ctaPair == tc::CtaPairMode::On && !c.plan.ctaPair)
    return fail() << "tcgen05-cta-pair=on needs M to be a multiple of "
                  << tc::kPairTileM << " and N of the tile N " << c.plan.tileN
                  << " (a CTA pair computes whole 256-row tiles with "
                     "tcgen05.mma.cta_group::2)";
  // K need not be a multiple of the K tile (TMA zero-fills the last one),
  // but TMA needs row strides (K / 2 bytes) that are multiples of 16 bytes.
  if (!c.hasRunTimeK() && c.k % tc::kTensorMapStrideAlignmentCodes != 0)
    return fail() << "K must be a multiple of "
                  << tc::kTensorMapStrideAlignmentCodes
                  << " (TMA row strides of K / 2 bytes are multiples of 16 "
                     "bytes)";
  if (!tc::tensorMapRowsFitCoordinates(
          c.batches(), c.hasRunTimeM() ? c.n : std::max(c.m, c.n)))
    return fail() << "the batch size times M and times N must be below 2^31 "
                     "(TMA coordinates are signed 32-bit)";
  // Any 16-byte aligned device address stands for the buffers here; the
  // runtime checks the actual ones.
  Tcgen05Config sized = c.withRunTimeSizesAsTiles();
  for (const tc::ByteTensorMap2D &map :
       {sized.lhsTensorMap(tc::kTensorMapAddressAlignment),
        sized.rhsTensorMap(tc::kTensorMapAddressAlignment)})
    if (tc::TensorMapIssue issue = tc::checkByteTensorMap2D(map);
        issue != tc::TensorMapIssue::None)
      return fail() << "no TMA tensor map describes the operands: "
                    << tc::describeTensorMapIssue(issue);
  if (!c.hasRunTimeM() && !c.hasRunTimeK() &&
      !tc::pipelineStepsFit32Bits(c.numTiles(), c.kTiles(), c.plan.stages))
    return fail() << "the output tiles times the K tiles must be below 2^31 "
                     "(the pipeline counters are 32-bit)";
  return success();
}

std::string
mlir::nvfp4::getTcgen05EpilogueFusionBlocker(QuantizeOp op, GPUTarget target,
                                             tc::CtaPairMode ctaPair) {
  if (!isTcgen05Target(target))
    return "the NVFP4 epilogue is a feature of the tcgen05 kernel (sm_100a, "
           "sm_103a, sm_110a)";
  auto matmul = op.getInput().getDefiningOp<MatmulOp>();
  if (!matmul)
    return "the input is not the result of an nvfp4.matmul";
  if (MatmulShape::of(matmul).hasRunTimeM() ||
      MatmulShape::of(matmul).hasRunTimeK())
    return "the matmul has a run-time M or K (the NVFP4 epilogue is built "
           "for static shapes)";
  if (llvm::any_of(matmul->getUsers(), [&](Operation *user) {
        return user != op && !isa<AmaxOp>(user);
      }))
    return "the matmul result has other uses, so it is stored anyway";
  if (!op.getAmax())
    return op.getHadamard()
               ? "without an amax operand the tensor scale depends on the "
                 "whole result, which no CTA sees"
               : "without an amax operand the tensor scale depends on the "
                 "whole result, which no CTA sees (the matmul kernel's "
                 "epilogue computes the result's amax for the quantize "
                 "kernel)";
  // The kernel replaces the matmul, so the operands must exist there.
  DominanceInfo dominance(matmul->getParentOp());
  if (!dominance.properlyDominates(op.getAmax(), matmul))
    return "the amax operand is defined after the matmul (e.g. from its "
           "result), so the tensor scale is unknown when the kernel runs";
  if (op.getSeed() && !dominance.properlyDominates(op.getSeed(), matmul))
    return "the seed operand is defined after the matmul";
  if (!mlir::nvfp4::detail::succeedsSilently(op.getContext(), [&] {
        return checkTcgen05MatmulSupported(matmul, target, ctaPair);
      }))
    return "the tcgen05 kernel does not take the matmul";
  return "";
}

bool mlir::nvfp4::canReadTcgen05ScaleAtoms(MatmulOp op, unsigned operandIndex,
                                           GPUTarget target,
                                           tc::CtaPairMode ctaPair) {
  if (!isTcgen05Target(target) || operandIndex > 1)
    return false;
  if (!mlir::nvfp4::detail::succeedsSilently(op.getContext(), [&] {
        return checkTcgen05MatmulSupported(op, target, ctaPair);
      }))
    return false;
  // The selection of both lowerings (with or without the NVFP4 epilogue).
  // Whole atoms per CTA: A 128 rows (a pair's 256-row tile is two blocks),
  // B every tileN row (each CTA of a pair copies all of them).
  Tcgen05Config c = Tcgen05Config::get(op, target, std::nullopt, ctaPair);
  // MX scales come from host quantization, row-major.
  if (c.isMX() || c.hasRunTimeK())
    return false;
  const int64_t scaleCols = c.k / mlir::nvfp4::kBlockSize;
  // The producer copies the atoms of whole K tiles; a run-time M's A
  // scales are compact (the quantize kernel of run-time rows).
  if (c.k % tc::kTileK != 0 || (operandIndex == 0 && c.hasRunTimeM()))
    return false;
  return operandIndex == 0 ? tc::hasWholeScaleAtoms(c.m, scaleCols)
                           : c.plan.tileN % tc::kScaleAtomRows == 0 &&
                                 tc::hasWholeScaleAtoms(c.n, scaleCols);
}

bool mlir::nvfp4::stagesTcgen05Scales(MatmulOp op, unsigned operandIndex,
                                      GPUTarget target,
                                      tc::CtaPairMode ctaPair) {
  return isTcgen05Target(target) && operandIndex <= 1 &&
         Tcgen05Config::get(op, target, std::nullopt, ctaPair)
             .canStageScales(operandIndex);
}

bool mlir::nvfp4::producesTcgen05ScaleAtoms(QuantizeOp op, GPUTarget target,
                                            tc::CtaPairMode ctaPair) {
  if (!isTcgen05Target(target))
    return false;
  // The stored tensor (K-padded storage included) and the matmuls reading
  // it, directly or through its padded-storage views.
  NVFP4TensorType type = mlir::nvfp4::detail::getNVFP4StorageType(op);
  ArrayRef<int64_t> shape = type.getShape();
  if (!type.isNVFP4() || shape.empty() || !type.hasStaticShape())
    return false;
  const int64_t cols = shape.back(), blockSize = mlir::nvfp4::kBlockSize;
  if (cols % blockSize != 0 ||
      !tc::hasWholeScaleAtoms(type.getNumElements() / cols, cols / blockSize))
    return false;
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : op.getResult().getUses()) {
    if (!mlir::nvfp4::detail::isPaddedStorageView(use.getOwner())) {
      uses.push_back(&use);
      continue;
    }
    for (OpOperand &viewUse : use.getOwner()->getResult(0).getUses())
      uses.push_back(&viewUse);
  }
  return !uses.empty() && llvm::all_of(uses, [&](OpOperand *use) {
    if (isAtomsScaleLayoutSink(*use))
      return true;
    auto matmul = dyn_cast<MatmulOp>(use->getOwner());
    return matmul && canReadTcgen05ScaleAtoms(matmul, use->getOperandNumber(),
                                              target, ctaPair);
  });
}

//===----------------------------------------------------------------------===//
// Host code
//===----------------------------------------------------------------------===//

Value mlir::nvfp4::detail::hostAddressOf(OpBuilder &b, Location loc,
                                         Value memref) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value i64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), i64);
}

namespace {

/// The tensor map of `data` (`map`), encoded into a 64-byte aligned stack
/// slot by `nvfp4CudaTensorMapEncode2D(slot, address of data, map
/// parameters)` and loaded from it: the 128-byte value the launch passes.
/// A run-time K (`runTimeInnerBytes`, i64: K / 2 bytes for E2M1) replaces
/// the map's row bytes and row stride, a run-time M (`runTimeOuterRows`)
/// its rows.
Value encodeTensorMap(OpBuilder &b, Location loc, Value data,
                      const tc::ByteTensorMap2D &map,
                      Value runTimeOuterRows = Value(),
                      Value runTimeInnerBytes = Value()) {
  MLIRContext *ctx = b.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  Type mapType = getTensorMapValueType(ctx);
  auto i64 = [&](uint64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                        static_cast<int64_t>(v));
  };
  auto i32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  };
  // The slot in the entry block, so that a launch in a loop reuses it.
  Value slot;
  {
    OpBuilder::InsertionGuard guard(b);
    Region *body = b.getInsertionBlock()->getParent();
    while (!isa<FunctionOpInterface>(body->getParentOp()))
      body = body->getParentOp()->getParentRegion();
    b.setInsertionPointToStart(&body->front());
    slot = LLVM::AllocaOp::create(
        b, loc, ptrType, mapType,
        LLVM::ConstantOp::create(b, loc, b.getI32Type(), 1),
        static_cast<unsigned>(tc::kTensorMapObjectAlignment));
  }
  SmallVector<Value> operands{
      slot,
      hostAddressOf(b, loc, data),
      runTimeInnerBytes ? runTimeInnerBytes : i64(map.innerBytes),
      runTimeOuterRows ? runTimeOuterRows : i64(map.outerRows),
      runTimeInnerBytes ? runTimeInnerBytes : i64(map.rowStrideBytes),
      i32(static_cast<int64_t>(map.boxInnerBytes)),
      i32(static_cast<int64_t>(map.boxOuterRows)),
      i32(static_cast<int32_t>(map.swizzle))};
  LLVM::CallOp::create(b, loc, TypeRange(), kTcgen05TensorMapEncodeFn,
                       operands);
  return LLVM::LoadOp::create(b, loc, mapType, slot,
                              tc::kTensorMapObjectAlignment);
}

/// The `linalg.transpose` of the two innermost dimensions that defines
/// `value`, if any.
linalg::TransposeOp innerTransposeDefining(Value value) {
  auto transpose = value.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || !transpose.hasPureTensorSemantics())
    return nullptr;
  ArrayRef<int64_t> perm = transpose.getPermutation();
  const int64_t rank = static_cast<int64_t>(perm.size());
  for (int64_t i = 0; i < rank; ++i)
    if (perm[i] != (i < rank - 2 ? i : (i == rank - 2 ? rank - 1 : rank - 2)))
      return nullptr;
  return transpose;
}

/// The transpose of the two innermost dimensions that is the only use of
/// `op`'s result, when the accumulator (if any) is such a transpose too: a
/// few-row GEMM computed as its transposed product (Tcgen05SmallM.cpp),
/// whose kernel then reads and stores them transposed.
linalg::TransposeOp getTransposedResultUse(MatmulOp op) {
  if (!op.getResult().hasOneUse())
    return nullptr;
  auto transpose =
      dyn_cast<linalg::TransposeOp>(*op.getResult().getUsers().begin());
  if (!transpose ||
      innerTransposeDefining(transpose.getResult()[0]) != transpose ||
      transpose.getInput() != op.getResult())
    return nullptr;
  if (op.getAcc() && !innerTransposeDefining(op.getAcc()))
    return nullptr;
  return transpose;
}

/// Emits the host code of a tcgen05 matmul: tensor maps, buffers, the
/// launch of the (shared) kernel of `config`. Returns the buffers the kernel
/// writes: the result, or with the NVFP4 epilogue (`epilogue`, the
/// quantization of the result it computes) the data and the scales of the
/// NVFP4 result; then, with `config.computesAmax`, the result's amax
/// (memref<1xf32>).
SmallVector<Value> emitTcgen05Launch(PatternRewriter &rewriter, MatmulOp op,
                                     const Tcgen05Config &config,
                                     QuantizeOp epilogue) {
  auto module = op->getParentOfType<ModuleOp>();
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto i32Type = rewriter.getI32Type(), i64Type = rewriter.getI64Type();
  declareRuntimeFunction(
      rewriter, module, kTcgen05TensorMapEncodeFn,
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                  {ptrType, ptrType, i64Type, i64Type, i64Type,
                                   i32Type, i32Type, i32Type}));
  declareRuntimeFunction(rewriter, module, kTcgen05MultiprocessorCountFn,
                         LLVM::LLVMFunctionType::get(i32Type, {}));

  // Host side: the components as buffers (KernelArg order), a tensor map
  // after each data buffer. An operand built by nvfp4.assemble (a lowered
  // quantization) passes its components through.
  SmallVector<Value> args;
  // A run-time M (unbatched): the rows of A's data buffer, which size A's
  // tensor map, the result and the grid.
  Value m;
  // The operands' buffers (data, scales) and tensor scales first: a
  // run-time K is checked on the data buffers before any tensor map is
  // encoded from it.
  struct OperandBuffers {
    Value data, scales, amax;
  };
  SmallVector<OperandBuffers, 2> buffers;
  for (auto [operand, isLhs] :
       {std::pair(op.getLhs(), true), std::pair(op.getRhs(), false)}) {
    mlir::nvfp4::detail::ScaleLayout scaleLayout;
    auto [data, scales, amax] = mlir::nvfp4::detail::getNVFP4Components(
        rewriter, loc, operand, &scaleLayout);
    // setOperandScaleLayouts read the layouts from the same values.
    assert((scaleLayout == mlir::nvfp4::detail::ScaleLayout::Tcgen05Atoms) ==
               (isLhs ? config.lhsScaleAtoms : config.rhsScaleAtoms) &&
           "the kernel's scale layout differs from the operand's");
    buffers.push_back(
        {mlir::nvfp4::detail::createReadOnlyBuffer(rewriter, loc, data),
         mlir::nvfp4::detail::createReadOnlyBuffer(rewriter, loc, scales),
         amax});
  }
  // A run-time K: both tensor maps' row strides (K / 2 bytes for E2M1) must
  // be multiples of 16 bytes, and the MMA thread issues K tile 0 of every
  // output tile.
  createRunTimeKChecks(rewriter, op, buffers[0].data, buffers[1].data,
                       tc::kTensorMapStrideAlignmentCodes, /*positive=*/true);
  Tcgen05Config sized = config.withRunTimeSizesAsTiles();
  for (auto [index, operand] : llvm::enumerate(buffers)) {
    const bool isLhs = index == 0;
    args.push_back(operand.data);
    // The address is the buffer's as the launch receives it here;
    // pipelines that replace launch operands (nvfp4-to-gpu-executable)
    // rebind it with nvfp4-tcgen05-retarget-tensor-maps.
    Value runTimeRows, runTimeRowBytes;
    if (isLhs && config.hasRunTimeM()) {
      m = memref::DimOp::create(rewriter, loc, operand.data, 0);
      // A tensor map describes a non-empty tensor: the runtime's encode
      // fails on an empty M (docs/gpu.md, "Run-time sizes").
      runTimeRows = arith::IndexCastUIOp::create(rewriter, loc, i64Type, m);
    }
    if (config.hasRunTimeK()) {
      // The operand's own K (checked equal to the other's above).
      Value k = memref::DimOp::create(rewriter, loc, operand.data, 1);
      Value bytes = arith::DivUIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, k,
                                arith::ConstantIndexOp::create(
                                    rewriter, loc, config.elementBits())),
          arith::ConstantIndexOp::create(rewriter, loc, 8));
      runTimeRowBytes =
          arith::IndexCastUIOp::create(rewriter, loc, i64Type, bytes);
    }
    args.push_back(
        encodeTensorMap(rewriter, loc, operand.data,
                        isLhs ? sized.lhsTensorMap(0) : sized.rhsTensorMap(0),
                        runTimeRows, runTimeRowBytes));
    args.push_back(operand.scales);
    if (isLhs ? config.plan.scaleStaging.lhs : config.plan.scaleStaging.rhs)
      args.push_back(encodeTensorMap(rewriter, loc, operand.scales,
                                     isLhs
                                         ? config.lhsStagedScaleTensorMap(0)
                                         : config.rhsStagedScaleTensorMap(0)));
    // MX operands have no tensor scale (operandArg).
    if (operand.amax)
      args.push_back(operand.amax);
  }
  // A transposed result and accumulator are the buffers of the transposes
  // around the matmul (getTransposedResultUse).
  RankedTensorType resultType = op.getResult().getType();
  Value acc = op.getAcc();
  if (config.transposedResult) {
    resultType = cast<RankedTensorType>(
        getTransposedResultUse(op).getResult()[0].getType());
    if (acc)
      acc = innerTransposeDefining(acc).getInput();
  }
  auto memrefOf = [](RankedTensorType type) {
    return MemRefType::get(type.getShape(), type.getElementType());
  };
  if (acc)
    args.push_back(bufferization::ToBufferOp::create(
        rewriter, loc, memrefOf(resultType), acc, /*read_only=*/true));
  SmallVector<Value> outputs;
  if (epilogue) {
    args.push_back(epilogue.getAmax());
    if (config.nvfp4Output->stochastic)
      args.push_back(epilogue.getSeed() ? epilogue.getSeed()
                                        : arith::ConstantIntOp::create(
                                              rewriter, loc, i64Type, 0)
                                              .getResult());
    NVFP4TensorType outputType =
        mlir::nvfp4::detail::getNVFP4StorageType(epilogue);
    RankedTensorType scalesType =
        config.nvfp4Output->scaleAtoms
            ? mlir::nvfp4::detail::getTcgen05AtomsScalesType(outputType)
            : outputType.getScalesType();
    for (RankedTensorType type : {outputType.getDataType(), scalesType})
      outputs.push_back(memref::AllocOp::create(
          rewriter, loc, memrefOf(type), rewriter.getI64IntegerAttr(16)));
  } else {
    outputs.push_back(memref::AllocOp::create(
        rewriter, loc, memrefOf(resultType), m ? ValueRange{m} : ValueRange{}));
  }
  if (config.computesAmax) {
    // The epilogue merges into it with atomic maxima: it starts at 0.
    Value amax = memref::AllocOp::create(
        rewriter, loc, MemRefType::get({1}, rewriter.getF32Type()));
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
    memref::StoreOp::create(
        rewriter, loc, zero, amax,
        ValueRange{arith::ConstantIndexOp::create(rewriter, loc, 0)});
    outputs.push_back(amax);
  }
  llvm::append_range(args, outputs);

  // Device side: the kernel, shared by identical matmuls.
  auto kernelModule =
      module.lookupSymbol<gpu::GPUModuleOp>(kNVFP4KernelModuleName);
  if (!kernelModule) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(module.getBody());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    rewriter.getUnitAttr());
    kernelModule = gpu::GPUModuleOp::create(rewriter, module.getLoc(),
                                            kNVFP4KernelModuleName);
  }
  std::string name = config.kernelName();
  auto kernel = kernelModule.lookupSymbol<gpu::GPUFuncOp>(name);
  if (!kernel)
    kernel = Tcgen05KernelBuilder(rewriter, loc, config)
                 .build(kernelModule, name, ValueRange(args).getTypes());

  // Persistent grid: one CTA per SM, at most one per tile. A CTA pair
  // computes a tile: min(#tiles, max(#SMs / 2, 1)) clusters of 2 CTAs.
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  auto cstI32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, i32Type, v);
  };
  const int64_t ctasPerTile = config.plan.ctaPair ? tc::kPairCtas : 1;
  Value sms = LLVM::CallOp::create(rewriter, loc, i32Type,
                                   kTcgen05MultiprocessorCountFn, ValueRange())
                  .getResult();
  Value tileSlots = sms;
  if (ctasPerTile != 1)
    tileSlots = arith::MaxUIOp::create(
        rewriter, loc,
        arith::DivUIOp::create(rewriter, loc, sms, cstI32(ctasPerTile)),
        cstI32(1));
  // A run-time M's tiles: ceil(M / 128) rows of them, at least one (an
  // empty M launches one CTA, which gets no tile).
  Value numTiles;
  if (m) {
    Value mI32 = arith::IndexCastUIOp::create(rewriter, loc, i32Type, m);
    Value rowTiles = arith::CeilDivUIOp::create(rewriter, loc, mI32,
                                                cstI32(config.plan.tileM));
    numTiles = arith::MaxUIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc, rowTiles, cstI32(config.nTiles())),
        cstI32(1));
  } else {
    numTiles = cstI32(config.numTiles());
  }
  Value ctas = arith::MinUIOp::create(rewriter, loc, tileSlots, numTiles);
  if (ctasPerTile != 1)
    ctas = arith::MulIOp::create(rewriter, loc, ctas, cstI32(ctasPerTile));
  Value gridX = arith::IndexCastUIOp::create(rewriter, loc,
                                             rewriter.getIndexType(), ctas);
  gpu::KernelDim3 grid{gridX, cst(1), cst(1)};
  gpu::KernelDim3 block{cst(config.plan.threads()), cst(1), cst(1)};
  std::optional<gpu::KernelDim3> cluster;
  if (config.plan.ctaPair)
    cluster = gpu::KernelDim3{cst(tc::kPairCtas), cst(1), cst(1)};
  Value smemBytes = arith::ConstantIntOp::create(rewriter, loc, i32Type,
                                                 config.plan.sharedBytes);
  auto launch = gpu::LaunchFuncOp::create(
      rewriter, loc, kernel, grid, block, smemBytes, args,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/ValueRange(), cluster);
  // The result's amax starts at the host's 0 and takes atomic maxima.
  ValueRange written(outputs);
  ValueRange readWritten;
  if (config.computesAmax) {
    written = written.drop_back();
    readWritten = ValueRange(outputs).take_back();
  }
  setLaunchOperandAccess(launch, written, readWritten);
  return outputs;
}

/// The `nvfp4.amax` ops of the result of `op`: the kernel's epilogue computes
/// them.
SmallVector<AmaxOp> getResultAmaxes(MatmulOp op) {
  SmallVector<AmaxOp> amaxes;
  for (Operation *user : op.getResult().getUsers())
    if (auto amax = dyn_cast<AmaxOp>(user))
      amaxes.push_back(amax);
  return amaxes;
}

/// Replaces `amaxes` by the value the kernel left in `buffer` (the last
/// output of emitTcgen05Launch), read on the host after the launch.
void replaceResultAmaxes(PatternRewriter &rewriter, Location loc,
                         ArrayRef<AmaxOp> amaxes, Value buffer) {
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value amax = memref::LoadOp::create(rewriter, loc, buffer, ValueRange{zero});
  memref::DeallocOp::create(rewriter, loc, buffer);
  for (AmaxOp op : amaxes)
    rewriter.replaceOp(op, amax);
}

/// Sets the scale layouts of `config`'s operands: the atoms layout for an
/// operand carried by the cast of an atoms-layout value, staged scales for a
/// row-major operand that can have them (Tcgen05Config::canStageScales).
/// Fails, with an error, for an atoms operand that the kernel cannot read
/// that way (producesTcgen05ScaleAtoms never marks one).
LogicalResult setOperandScaleLayouts(MatmulOp op, Tcgen05Config &config,
                                     GPUTarget target,
                                     tc::CtaPairMode ctaPair) {
  for (auto [index, flag] : {std::pair(0u, &config.lhsScaleAtoms),
                             std::pair(1u, &config.rhsScaleAtoms)}) {
    *flag = mlir::nvfp4::detail::isTcgen05AtomsNVFP4Value(
        op->getOperand(index).getDefiningOp());
    if (*flag && !canReadTcgen05ScaleAtoms(op, index, target, ctaPair))
      return op.emitOpError()
             << "internal error: operand " << index
             << " has scales in the tcgen05 atoms layout, which this "
                "kernel does not read";
  }
  tc::ScaleStaging staging;
  staging.lhs = !config.lhsScaleAtoms && config.canStageScales(0);
  staging.rhs = !config.rhsScaleAtoms && config.canStageScales(1);
  config.setScaleStaging(staging);
  return success();
}

/// Whether the tcgen05 kernel takes `op` on `target` (diagnostics are the
/// pass's business: the patterns only decline).
bool isTcgen05Supported(MatmulOp op, GPUTarget target,
                        tc::CtaPairMode ctaPair = tc::CtaPairMode::Auto) {
  return mlir::nvfp4::detail::succeedsSilently(op.getContext(), [&] {
    return checkTcgen05MatmulSupported(op, target, ctaPair);
  });
}

/// Lowers `nvfp4.matmul` to a launch of the tcgen05 kernel.
struct Tcgen05MatmulLowering : public OpRewritePattern<MatmulOp> {
  Tcgen05MatmulLowering(MLIRContext *ctx, GPUTarget target,
                        tc::CtaPairMode ctaPair)
      : OpRewritePattern(ctx), target(target), ctaPair(ctaPair) {}

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!op->getParentOfType<ModuleOp>())
      return rewriter.notifyMatchFailure(op, "not inside a builtin.module");
    if (!isTcgen05Supported(op, target, ctaPair))
      return rewriter.notifyMatchFailure(op, "unsupported shape or target");
    Tcgen05Config config =
        Tcgen05Config::get(op, target, /*nvfp4Output=*/std::nullopt, ctaPair);
    if (failed(setOperandScaleLayouts(op, config, target, ctaPair)))
      return failure();
    SmallVector<AmaxOp> amaxes = getResultAmaxes(op);
    config.computesAmax = !amaxes.empty();
    linalg::TransposeOp transposedUse = getTransposedResultUse(op);
    config.transposedResult = static_cast<bool>(transposedUse);
    SmallVector<Value> outputs =
        emitTcgen05Launch(rewriter, op, config, /*epilogue=*/QuantizeOp());
    if (config.computesAmax)
      replaceResultAmaxes(rewriter, op.getLoc(), amaxes, outputs.back());
    if (!transposedUse) {
      rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
          op, op.getResult().getType(), outputs.front(), /*restrict=*/true,
          /*writable=*/true);
      return success();
    }
    // The kernel wrote the transposed result: it replaces the transpose,
    // and the accumulator's transpose goes when nothing else reads it.
    linalg::TransposeOp accTranspose =
        op.getAcc() ? innerTransposeDefining(op.getAcc()) : nullptr;
    // The transposes' destinations (tensor.empty, possibly one shared by
    // both) go with them when nothing else uses them.
    llvm::SetVector<Operation *> inits;
    if (Operation *init = transposedUse.getInit().getDefiningOp())
      inits.insert(init);
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
        transposedUse, transposedUse.getResult()[0].getType(), outputs.front(),
        /*restrict=*/true, /*writable=*/true);
    rewriter.eraseOp(op);
    if (accTranspose && accTranspose->use_empty()) {
      if (Operation *init = accTranspose.getInit().getDefiningOp())
        inits.insert(init);
      rewriter.eraseOp(accTranspose);
    }
    for (Operation *init : inits)
      if (isa<tensor::EmptyOp>(init) && init->use_empty())
        rewriter.eraseOp(init);
    return success();
  }

  GPUTarget target;
  tc::CtaPairMode ctaPair;
};

/// Lowers `nvfp4.quantize(nvfp4.matmul)` to one launch of the tcgen05 kernel
/// with the NVFP4 epilogue (getTcgen05EpilogueFusionBlocker says when).
struct Tcgen05QuantizedMatmulLowering : public OpRewritePattern<QuantizeOp> {
  Tcgen05QuantizedMatmulLowering(MLIRContext *ctx, GPUTarget target,
                                 bool hardwareSR, tc::CtaPairMode ctaPair)
      : OpRewritePattern(ctx), target(target), hardwareSR(hardwareSR),
        ctaPair(ctaPair) {}

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op->getParentOfType<ModuleOp>())
      return rewriter.notifyMatchFailure(op, "not inside a builtin.module");
    if (!getTcgen05EpilogueFusionBlocker(op, target, ctaPair).empty())
      return rewriter.notifyMatchFailure(op, "not an epilogue quantization");
    auto matmul = op.getInput().getDefiningOp<MatmulOp>();
    NVFP4TensorType storageType = mlir::nvfp4::detail::getNVFP4StorageType(op);
    Tcgen05Config config = Tcgen05Config::get(
        matmul, target, EpilogueQuantization::get(op, hardwareSR), ctaPair);
    if (failed(setOperandScaleLayouts(matmul, config, target, ctaPair)))
      return failure();
    SmallVector<AmaxOp> amaxes = getResultAmaxes(matmul);
    config.computesAmax = !amaxes.empty();
    // At the matmul: its result's amaxes may be used before `op`, and the
    // amax and seed operands of `op` are defined before it (the blocker
    // checks).
    rewriter.setInsertionPoint(matmul);
    SmallVector<Value> outputs =
        emitTcgen05Launch(rewriter, matmul, config, op);
    Location loc = op.getLoc();
    if (config.computesAmax)
      replaceResultAmaxes(rewriter, loc, amaxes, outputs.back());
    Value data = bufferization::ToTensorOp::create(
        rewriter, loc, storageType.getDataType(), outputs[0],
        /*restrict=*/true, /*writable=*/true);
    Value scales = bufferization::ToTensorOp::create(
        rewriter, loc,
        config.nvfp4Output->scaleAtoms
            ? mlir::nvfp4::detail::getTcgen05AtomsScalesType(storageType)
            : storageType.getScalesType(),
        outputs[1], /*restrict=*/true, /*writable=*/true);
    // The result carries the amax it was quantized with.
    mlir::nvfp4::detail::replaceWithNVFP4Storage(
        rewriter, op, data, scales, op.getAmax(),
        config.nvfp4Output->scaleAtoms);
    rewriter.eraseOp(matmul);
    return success();
  }

  GPUTarget target;
  bool hardwareSR;
  tc::CtaPairMode ctaPair;
};

} // namespace

void mlir::nvfp4::populateNVFP4ToTcgen05Patterns(RewritePatternSet &patterns,
                                                 GPUTarget target,
                                                 tc::CtaPairMode ctaPair) {
  patterns.add<Tcgen05MatmulLowering>(patterns.getContext(), target, ctaPair);
}

namespace {
/// `nvfp4.quantize %y` -> `nvfp4.quantize %y amax (nvfp4.amax %y)` for a
/// tcgen05 matmul result `%y` (populateTcgen05ResultAmaxPatterns).
struct Tcgen05ResultAmaxOperand : public OpRewritePattern<QuantizeOp> {
  Tcgen05ResultAmaxOperand(MLIRContext *ctx, GPUTarget target,
                           tc::CtaPairMode ctaPair)
      : OpRewritePattern(ctx), target(target), ctaPair(ctaPair) {}

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getAmax() || op.getHadamard())
      return rewriter.notifyMatchFailure(
          op, "has an amax operand or the amax of the transformed input");
    auto matmul = op.getInput().getDefiningOp<MatmulOp>();
    if (!matmul || !isTcgen05Supported(matmul, target, ctaPair))
      return rewriter.notifyMatchFailure(op, "not a tcgen05 matmul result");
    Value amax = AmaxOp::create(rewriter, op.getLoc(), op.getInput());
    rewriter.modifyOpInPlace(op, [&] { op.getAmaxMutable().assign(amax); });
    return success();
  }

  GPUTarget target;
  tc::CtaPairMode ctaPair;
};
} // namespace

void mlir::nvfp4::populateTcgen05ResultAmaxPatterns(RewritePatternSet &patterns,
                                                    GPUTarget target,
                                                    tc::CtaPairMode ctaPair) {
  patterns.add<Tcgen05ResultAmaxOperand>(patterns.getContext(), target,
                                         ctaPair);
}

void mlir::nvfp4::populateNVFP4ToTcgen05NVFP4EpiloguePatterns(
    RewritePatternSet &patterns, GPUTarget target, bool hardwareSR,
    tc::CtaPairMode ctaPair) {
  patterns.add<Tcgen05QuantizedMatmulLowering>(patterns.getContext(), target,
                                               hardwareSR, ctaPair);
}
