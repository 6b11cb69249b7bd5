//===- MmaSyncBlockScaled.cpp - The block-scaled mma.sync K step ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The K step of the mma.sync matmul kernel on sm_120a / sm_121a: the A and
// B fragments by ldmatrix, the lanes' packed scale registers (tile rows or
// compact 16x16 rows of the staged scale slots, held for a scale group;
// byte-id and thread-id select each MMA's scales), and the block-scaled MMAs
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
  const int64_t perRegister = lhs ? kScaleBlocksPerRegA : kScaleBlocksPerRegB;
  // Warp tiles are multiples of 16 rows and of 32 columns, so a register's
  // first block starts a compact row.
  assert((lhs ? c.tile.warpTileM() : c.tile.warpTileN()) % staging.blockRows ==
             0 &&
         "warp tiles cover whole scale blocks");
  LaneScaleRows result;
  for (int64_t first = 0; first < blocks; first += perRegister) {
    const int64_t count = std::min(perRegister, blocks - first);
    // The block of the register's whose scales the lane holds.
    IndexExpr laneBlock = lhs ? scaleABlock(q, count) : scaleBBlock(q, count);
    IndexExpr laneOffset = laneBlock * blockSize;
    if (staging.blockRows == 1)
      result.rows.push_back(warpBase + first * blockSize + laneOffset +
                            (lhs ? scaleARow(g, q) : scaleBCol(g, q)));
    else
      result.rows.push_back(warpBase / staging.blockRows +
                            first * blockSize / staging.blockRows +
                            laneOffset / staging.blockRows);
    for (int64_t i = first; i < first + count; ++i) {
      result.ofBlock.push_back(lhs ? scaleRegisterA(i) : scaleRegisterB(i));
      assert(result.ofBlock.back() ==
                 static_cast<int64_t>(result.rows.size()) - 1 &&
             "one register per kScaleBlocksPerReg* blocks, in order");
      result.threadIdOfBlock.push_back(lhs ? scaleThreadIdA(i)
                                           : scaleThreadIdB(i));
    }
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

SmallVector<Value, 4>
MmaSyncKernelBuilder::loadScaleGroup(bool lhs, Value slotBase, IndexExpr row) {
  const layout::ScaleStaging &staging =
      lhs ? c.lhsScaleStaging : c.rhsScaleStaging;
  Type i32 = b.getI32Type();
  const int64_t words = llvm::divideCeil(staging.copyBytes(), 4);
  Value address = sharedAddress(slotBase, row * staging.rowBytes());
  if (words == 1)
    return {LLVM::LoadOp::create(b, loc, i32, address, /*alignment=*/4)};
  Value group = LLVM::LoadOp::create(b, loc, VectorType::get({words}, i32),
                                     address, /*alignment=*/4 * words);
  SmallVector<Value, 4> result;
  for (int64_t w = 0; w < words; ++w)
    result.push_back(LLVM::ExtractElementOp::create(
        b, loc, group, LLVM::ConstantOp::create(b, loc, i32, w)));
  return result;
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
  // The selector values (byte-id and thread-id are 0 to 3).
  SmallVector<Value, 4> selectors;
  for (int64_t v = 0; v < 4; ++v)
    selectors.push_back(
        LLVM::ConstantOp::create(b, loc, b.getI16Type(), v).getResult());
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
  // The scales: the held words of each packed register (op.lhsScaleGroup,
  // op.rhsScaleGroup); a slice's scales start at byte
  // scaleByteInRow(phase) + slice * sliceScaleBytes of the group, which
  // selects the word, and its byte in the word is the MMA's byte-id.
  LaneScaleRows aScaleRows =
      laneScaleRows(/*lhs=*/true, op.warpRow, op.g, op.q);
  LaneScaleRows bScaleRows =
      laneScaleRows(/*lhs=*/false, op.warpCol, op.g, op.q);
  const int64_t sliceScaleBytes =
      kMmaRowBytes * 8 / c.elementBits() / c.blockCols();
  const int64_t aStepByte = scaleByteInRow(op.phase, c.lhsScaleStaging);
  const int64_t bStepByte = scaleByteInRow(op.phase, c.rhsScaleStaging);
  SmallVector<Value> acc(op.acc.begin(), op.acc.end());
  for (int64_t slice = 0; slice < kMmaKSlices; ++slice) {
    SmallVector<SmallVector<Value, 4>> aFrags, bFrags;
    // The scale register of MMA block `block` of A (`lhs`) or B for the
    // slice, and its selectors.
    auto blockScale = [&](bool lhs, int64_t block) {
      const LaneScaleRows &rows = lhs ? aScaleRows : bScaleRows;
      ArrayRef<SmallVector<Value, 4>> group =
          lhs ? op.lhsScaleGroup : op.rhsScaleGroup;
      const int64_t stepByte = lhs ? aStepByte : bStepByte;
      return std::make_tuple(
          group[rows.ofBlock[block]]
               [sliceScaleWord(stepByte, slice, sliceScaleBytes)],
          selectors[sliceScaleByteId(stepByte, slice, sliceScaleBytes)],
          selectors[rows.threadIdOfBlock[block]]);
    };
    for (int64_t i = 0; i < mmasM; ++i) {
      IndexExpr rowBase = op.warpRow + i * kMmaM;
      aFrags.push_back(loadMatrixX4(aSlot, rowBase + ldmatrixARow(op.lane),
                                    ldmatrixAChunk(op.lane) +
                                        slice * (kMmaRowBytes / kVectorBytes)));
    }
    for (int64_t j = 0; j < mmasN; j += 2) {
      SmallVector<Value, 4> regs = loadMatrixX4(
          bSlot, op.warpCol + j * kMmaN + ldmatrixBCol(op.lane),
          ldmatrixBChunk(op.lane) + slice * (kMmaRowBytes / kVectorBytes));
      bFrags.push_back({regs[0], regs[1]});
      bFrags.push_back({regs[2], regs[3]});
    }
    for (int64_t i = 0; i < mmasM; ++i) {
      for (int64_t j = 0; j < mmasN; ++j) {
        MutableArrayRef<Value> cRegs = MutableArrayRef<Value>(acc).slice(
            (i * mmasN + j) * kMmaCRegs, kMmaCRegs);
        auto [scaleA, byteIdA, threadIdA] = blockScale(/*lhs=*/true, i);
        auto [scaleB, byteIdB, threadIdB] = blockScale(/*lhs=*/false, j);
        auto mma = NVVM::MmaBlockScaleOp::create(
            b, loc, resType, aFrags[i], bFrags[j], ValueRange(cRegs), scaleA,
            byteIdA, threadIdA, scaleB, byteIdB, threadIdB,
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
