//===- MmaSyncBlockScaled.cpp - The block-scaled mma.sync K step ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The K step of the mma.sync matmul kernel on sm_120a / sm_121a: the A and
// B fragments by ldmatrix, the lanes' scale words from the staged scale
// slots (ScaleStaging, ScaleSlotLayout: tile rows or compact 16x16 rows,
// per step, per K slice or held for a group), and the block-scaled MMAs
// (`nvvm.mma.block_scale`: m16n8k64 kind::mxf4nvf4 scale_vec::4X with UE4M3
// scales; MXFP4 kind::mxf4 scale_vec::2X, MXFP8 m16n8k32 kind::mxf8f6f4
// scale_vec::1X with UE8M0 scales). The staging pipeline and the epilogue
// are in MmaSyncMatmul.cpp; docs/gpu.md describes the design.
//
//===----------------------------------------------------------------------===//

#include "MmaSyncKernelBuilder.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::nvfp4;
using namespace mlir::nvfp4::detail;
namespace layout = ::nvfp4::gpu;

SmallVector<Value, 4> MmaSyncKernelBuilder::loadMatrixX4(Value slotBase,
                                                         IndexExpr row,
                                                         IndexExpr chunk) {
  using namespace layout;
  MLIRContext *ctx = b.getContext();
  Value address = sharedAddress(
      slotBase, row * kTileRowBytes + swizzleChunk(row, chunk) * kVectorBytes);
  Type i32 = b.getI32Type();
  auto resType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(4, i32));
  Value matrices = NVVM::LdMatrixOp::create(
      b, loc, resType, address, /*num=*/4, NVVM::MMALayout::row,
      NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8), NVVM::LdStMatrixEltType::B16);
  SmallVector<Value, 4> regs;
  for (int64_t r = 0; r < 4; ++r)
    regs.push_back(LLVM::ExtractValueOp::create(b, loc, matrices, r));
  return regs;
}

IndexExpr MmaSyncKernelBuilder::scaleSlotRow(bool lhs, IndexExpr warpBase,
                                             int64_t blockOffset,
                                             IndexExpr laneRow) {
  const int64_t blockRows =
      (lhs ? c.lhsScaleStaging : c.rhsScaleStaging).blockRows;
  if (blockRows == 1)
    return warpBase + blockOffset + laneRow;
  // Warp tiles are multiples of 16 rows, so the block's 16 (or 8) rows lie
  // in one 16-row block.
  assert((lhs ? c.tile.warpTileM() : c.tile.warpTileN()) % blockRows == 0 &&
         "warp tiles cover whole scale blocks");
  return warpBase / blockRows + blockOffset / blockRows;
}

MmaSyncKernelBuilder::LaneScaleRows
MmaSyncKernelBuilder::laneScaleRows(bool lhs, IndexExpr warpBase, IndexExpr g,
                                    IndexExpr q) {
  using namespace layout;
  const ScaleStaging &staging = lhs ? c.lhsScaleStaging : c.rhsScaleStaging;
  const int64_t blocks = lhs ? c.tile.mmasM() : c.tile.mmasN();
  const int64_t blockSize = lhs ? kMmaM : kMmaN;
  IndexExpr laneRow = lhs ? scaleARow(g, q) : scaleBCol(g, q);
  LaneScaleRows result;
  for (int64_t i = 0; i < blocks; ++i) {
    // Blocks in order: a block starts a new slot row or shares the last.
    const int64_t key = i * blockSize / staging.blockRows;
    if (staging.blockRows == 1 ||
        key == static_cast<int64_t>(result.rows.size()))
      result.rows.push_back(
          scaleSlotRow(lhs, warpBase, i * blockSize, laneRow));
    result.ofBlock.push_back(result.rows.size() - 1);
  }
  return result;
}

Value MmaSyncKernelBuilder::loadScaleWord(const StepOperands &op, bool lhs,
                                          IndexExpr row, int64_t word) {
  const layout::ScaleStaging &staging =
      lhs ? c.lhsScaleStaging : c.rhsScaleStaging;
  return LLVM::LoadOp::create(
      b, loc, b.getI32Type(),
      sharedAddress(lhs ? op.lhsStepScales : op.rhsStepScales,
                    row * staging.rowBytes() + 4 * word),
      /*alignment=*/4);
}

SmallVector<Value, 2>
MmaSyncKernelBuilder::loadStepScales(const StepOperands &op, bool lhs,
                                     IndexExpr row) {
  using namespace layout;
  if (c.isMX())
    return {loadScaleWord(op, lhs, row, 0)};
  const ScaleStaging &staging = lhs ? c.lhsScaleStaging : c.rhsScaleStaging;
  Type i32 = b.getI32Type();
  Value address = sharedAddress(lhs ? op.lhsStepScales : op.rhsStepScales,
                                row * staging.rowBytes());
  auto pairType = VectorType::get({kScaleWordsPerRow}, i32);
  Value pair = LLVM::LoadOp::create(b, loc, pairType, address,
                                    /*alignment=*/kScaleRowBytes);
  SmallVector<Value, 2> words;
  for (int64_t w = 0; w < kScaleWordsPerRow; ++w)
    words.push_back(LLVM::ExtractElementOp::create(
        b, loc, pair, LLVM::ConstantOp::create(b, loc, i32, w)));
  return words;
}

SmallVector<Value, 4> MmaSyncKernelBuilder::loadGroupScales(Value groupBase,
                                                            IndexExpr row) {
  using namespace layout;
  Type i32 = b.getI32Type();
  constexpr int64_t words = kScaleGroupBytes / 4;
  Value group =
      LLVM::LoadOp::create(b, loc, VectorType::get({words}, i32),
                           sharedAddress(groupBase, row * kScaleGroupBytes),
                           /*alignment=*/kScaleGroupBytes);
  SmallVector<Value, 4> result;
  for (int64_t w = 0; w < words; ++w)
    result.push_back(LLVM::ExtractElementOp::create(
        b, loc, group, LLVM::ConstantOp::create(b, loc, i32, w)));
  return result;
}

Value MmaSyncKernelBuilder::sliceScale(ArrayRef<Value> stepScales,
                                       int64_t slice) {
  using namespace layout;
  // A slice is 32 bytes of a row: 64 E2M1 codes or 32 8-bit ones.
  const int64_t sliceScaleBytes =
      kMmaRowBytes * 8 / c.elementBits() / c.blockCols();
  Value word = stepScales[sliceScaleWord(slice, sliceScaleBytes)];
  if (int64_t shift = sliceScaleShift(slice, sliceScaleBytes))
    word = arith::ShRUIOp::create(b, loc, word, i32Const(shift));
  return word;
}

SmallVector<Value>
MmaSyncKernelBuilder::emitBlockScaledStep(const StepOperands &op) {
  using namespace layout;
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  const int64_t mmasM = c.tile.mmasM(), mmasN = c.tile.mmasN();
  const int64_t aSlotBytes = c.tile.aStageBytes();
  const int64_t bSlotBytes = c.tile.bStageBytes();
  Value aSlot = sharedAddress(op.smemAPtr, op.slot * aSlotBytes);
  Value bSlot = sharedAddress(op.smemBPtr, op.slot * bSlotBytes);
  auto i16Const = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, b.getI16Type(), v).getResult();
  };
  Value byteId = i16Const(0);
  Value threadIdA = i16Const(kScaleThreadIdA);
  Value threadIdB = i16Const(kScaleThreadIdB);
  auto resType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(kMmaCRegs, f32));
  // The instruction of the operands' formats.
  auto ptxType = [](Format format) {
    return format == Format::MXFP8E4M3   ? NVVM::MMATypes::e4m3
           : format == Format::MXFP8E5M2 ? NVVM::MMATypes::e5m2
                                         : NVVM::MMATypes::e2m1;
  };
  const bool mxf8 = c.isMX() && c.elementBits() == 8;
  const int64_t mmaK = mxf8 ? kMmaK / 2 : kMmaK;
  NVVM::ScaleVecSize scaleVec = !c.isMX() ? NVVM::ScaleVecSize::X4
                                : mxf8    ? NVVM::ScaleVecSize::X1
                                          : NVVM::ScaleVecSize::X2;
  NVVM::MMABlockScaleKind kind = !c.isMX() ? NVVM::MMABlockScaleKind::MXF4NVF4
                                 : mxf8    ? NVVM::MMABlockScaleKind::MXF8F6F4
                                           : NVVM::MMABlockScaleKind::MXF4;
  // On 8-bit elements an m16n8k32 MMA reads 32 bytes of a row, as an
  // m16n8k64 on E2M1 (the byte layouts of the fragments agree, PTX ISA), so
  // the staging and the fragment loads are the same.
  // The step's scales, one load per slot row (laneScaleRows); or one word
  // per row and slice, where it is used (MatmulConfig::loadsScalesPerSlice);
  // or, for held A groups, the words the group's first step loaded.
  LaneScaleRows aScaleRows =
      laneScaleRows(/*lhs=*/true, op.warpRow, op.g, op.q);
  LaneScaleRows bScaleRows =
      laneScaleRows(/*lhs=*/false, op.warpCol, op.g, op.q);
  const bool lhsPerSlice = c.loadsScalesPerSlice(/*lhs=*/true);
  const bool rhsPerSlice = c.loadsScalesPerSlice(/*lhs=*/false);
  SmallVector<SmallVector<Value, 2>> aStepScales, bStepScales;
  if (!lhsPerSlice && op.lhsGroupScales.empty())
    for (IndexExpr row : aScaleRows.rows)
      aStepScales.push_back(loadStepScales(op, /*lhs=*/true, row));
  if (!rhsPerSlice)
    for (IndexExpr row : bScaleRows.rows)
      bStepScales.push_back(loadStepScales(op, /*lhs=*/false, row));
  // The scale register of slot row `index` of `rows` for `slice`.
  const int64_t sliceScaleBytes =
      kMmaRowBytes * 8 / c.elementBits() / c.blockCols();
  auto scaleOf = [&](bool lhs, const LaneScaleRows &rows,
                     ArrayRef<SmallVector<Value, 2>> stepScales, int64_t index,
                     int64_t slice) -> Value {
    if (lhs && !op.lhsGroupScales.empty()) {
      // The slice's byte in the group: the step's, then the slice's.
      const int64_t byte =
          scaleByteInRow(op.phase, c.lhsScaleStaging) + slice * sliceScaleBytes;
      Value word = op.lhsGroupScales[index][byte / 4];
      if (byte % 4)
        word = arith::ShRUIOp::create(b, loc, word, i32Const(8 * (byte % 4)));
      return word;
    }
    if (!(lhs ? lhsPerSlice : rhsPerSlice))
      return sliceScale(stepScales[index], slice);
    Value word = loadScaleWord(op, lhs, rows.rows[index],
                               sliceScaleWord(slice, sliceScaleBytes));
    if (int64_t shift = sliceScaleShift(slice, sliceScaleBytes))
      word = arith::ShRUIOp::create(b, loc, word, i32Const(shift));
    return word;
  };
  SmallVector<Value> acc(op.acc.begin(), op.acc.end());
  for (int64_t slice = 0; slice < kMmaKSlices; ++slice) {
    SmallVector<SmallVector<Value, 4>> aFrags, bFrags;
    // The slice's scale register of each slot row (made where its first
    // block needs it), then of each block.
    SmallVector<Value> aRowScales(aScaleRows.rows.size()),
        bRowScales(bScaleRows.rows.size()), aScales, bScales;
    auto blockScale = [&](bool lhs, int64_t block) {
      const LaneScaleRows &rows = lhs ? aScaleRows : bScaleRows;
      Value &scale = (lhs ? aRowScales : bRowScales)[rows.ofBlock[block]];
      if (!scale)
        scale = scaleOf(lhs, rows, lhs ? aStepScales : bStepScales,
                        rows.ofBlock[block], slice);
      return scale;
    };
    for (int64_t i = 0; i < mmasM; ++i) {
      IndexExpr rowBase = op.warpRow + i * kMmaM;
      aFrags.push_back(loadMatrixX4(aSlot, rowBase + ldmatrixARow(op.lane),
                                    ldmatrixAChunk(op.lane) +
                                        slice * (kMmaRowBytes / kVectorBytes)));
      aScales.push_back(blockScale(/*lhs=*/true, i));
    }
    for (int64_t j = 0; j < mmasN; j += 2) {
      SmallVector<Value, 4> regs = loadMatrixX4(
          bSlot, op.warpCol + j * kMmaN + ldmatrixBCol(op.lane),
          ldmatrixBChunk(op.lane) + slice * (kMmaRowBytes / kVectorBytes));
      bFrags.push_back({regs[0], regs[1]});
      bFrags.push_back({regs[2], regs[3]});
    }
    for (int64_t j = 0; j < mmasN; ++j)
      bScales.push_back(blockScale(/*lhs=*/false, j));
    for (int64_t i = 0; i < mmasM; ++i) {
      for (int64_t j = 0; j < mmasN; ++j) {
        MutableArrayRef<Value> cRegs = MutableArrayRef<Value>(acc).slice(
            (i * mmasN + j) * kMmaCRegs, kMmaCRegs);
        auto mma = NVVM::MmaBlockScaleOp::create(
            b, loc, resType, aFrags[i], bFrags[j], ValueRange(cRegs),
            aScales[i], byteId, threadIdA, bScales[j], byteId, threadIdB,
            ArrayRef<int64_t>{kMmaM, kMmaN, mmaK},
            std::array<NVVM::MMATypes, 2>{ptxType(c.lhsFormat),
                                          ptxType(c.rhsFormat)},
            scaleVec,
            c.isMX() ? NVVM::BlockScaleFormat::UE8M0
                     : NVVM::BlockScaleFormat::UE4M3,
            kind);
        for (int64_t r = 0; r < kMmaCRegs; ++r)
          cRegs[r] = LLVM::ExtractValueOp::create(b, loc, mma, r);
      }
    }
  }
  return acc;
}
