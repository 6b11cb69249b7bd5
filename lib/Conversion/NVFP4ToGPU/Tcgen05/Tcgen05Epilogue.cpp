//===- Tcgen05Epilogue.cpp - The tcgen05 kernel's epilogue warps ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Tcgen05KernelBuilder (Tcgen05KernelBuilder.h): the epilogue warps, which
// read the accumulator from tensor memory (tcgen05.ld), scale it by the
// NVFP4 operands' alpha, add `acc`, and store f32 / bf16 or quantize it to
// NVFP4 (the NVFP4 epilogue), merging the result's amax when asked.
//
//===----------------------------------------------------------------------===//

#include "Tcgen05KernelBuilder.h"

#include "nvfp4/Dialect/NVFP4/Utils/TensorScaleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::nvfp4;
using namespace mlir::nvfp4::detail;

/// Staging of one chunk (docs/tcgen05.md, "Epilogue stores"): an epilogue
/// thread holds kEpilogueColumns consecutive values of its own row; stored
/// so, a warp's 16-byte access touches 32 rows (a sector each). Through the
/// warp's staging buffer (tc::epilogueStagingOffset) lane l of access s
/// handles group l % 4 of row 8 s + l / 4 instead: 8 whole rows per
/// access, every sector complete.
Value Tcgen05KernelBuilder::stagingGroupPtr(Value row, Value group) {
  const int64_t eltBytes = c.resultElementType.isBF16() ? 2 : 4;
  Value warpBuffer =
      (idx(i32(p.epilogueStagingOffset)) +
       idx(warp) % tc::kEpilogueWarps * tc::kEpilogueStagingBytesPerWarp)
          .v;
  return smemPtr(add(
      warpBuffer, tc::epilogueStagingOffset(idx(row), idx(group), eltBytes).v));
}

void Tcgen05KernelBuilder::emitWarpSync() {
  NVVM::SyncWarpOp::create(b, loc, i32(-1));
}

Value Tcgen05KernelBuilder::transposedElement(Value row, Value rowInBatch,
                                              Value col) {
  // Batch b starts at row b * M of the kernel's output, element b * M * N
  // of the buffer; within it, (rowInBatch, col) is element col * M +
  // rowInBatch.
  Value batchBase = mulC(ext64(sub(row, rowInBatch)), c.n);
  return add(add(batchBase, mul(ext64(col), ext64(mRows))),
             ext64(rowInBatch));
}

SmallVector<Value>
Tcgen05KernelBuilder::emitLoadTransposedAccChunk(Value row, Value rowInBatch,
                                                 Value col) {
  Type f32 = b.getF32Type(), resultType = c.resultElementType;
  const int64_t eltBytes = resultType.isBF16() ? 2 : 4;
  SmallVector<Value> values;
  for (int64_t e = 0; e < tc::kEpilogueColumns; ++e) {
    Value colE = addC(col, e);
    Value elem = transposedElement(row, rowInBatch, colE);
    // Positions past M x N read element 0 (their results are not stored).
    if (c.ragged())
      elem = arith::SelectOp::create(b, loc, insideOutput(rowInBatch, colE),
                                     elem, ext64(i32(0)));
    Value v = LLVM::LoadOp::create(b, loc, resultType,
                                   gep(accPtr, mulC(elem, eltBytes)), eltBytes);
    if (resultType != f32)
      v = arith::ExtFOp::create(b, loc, f32, v);
    values.push_back(v);
  }
  return values;
}

void Tcgen05KernelBuilder::emitStoreTransposedChunk(ArrayRef<Value> values,
                                                    Value row, Value rowInBatch,
                                                    Value col) {
  Type resultType = c.resultElementType;
  const int64_t eltBytes = resultType.isBF16() ? 2 : 4;
  for (auto [e, value] : llvm::enumerate(values)) {
    Value colE = addC(col, static_cast<int64_t>(e));
    Value v = value;
    if (resultType != b.getF32Type())
      v = arith::TruncFOp::create(b, loc, resultType, v);
    auto store = [&] {
      Value elem = transposedElement(row, rowInBatch, colE);
      LLVM::StoreOp::create(b, loc, v, gep(outPtr, mulC(elem, eltBytes)),
                            eltBytes);
    };
    if (c.ragged())
      ifThen(insideOutput(rowInBatch, colE), store);
    else
      store();
  }
}

SmallVector<Value> Tcgen05KernelBuilder::emitLoadAccChunk(Value row,
                                                          Value rowInBatch,
                                                          Value col) {
  if (c.transposedResult)
    return emitLoadTransposedAccChunk(row, rowInBatch, col);
  Type f32 = b.getF32Type(), resultType = c.resultElementType;
  const int64_t eltBytes = resultType.isBF16() ? 2 : 4;
  auto f32Vec = VectorType::get({tc::kEpilogueGroup}, f32);
  auto accVec = VectorType::get({tc::kEpilogueGroup}, resultType);
  // Whole rows from global memory into the staging buffer (lane l: group
  // l % 4 of row 8 s + l / 4 of the warp's 32 rows), then each thread's
  // own row back from it.
  Value warpFirstRow = sub(row, laneId);
  Value warpFirstRowInBatch = sub(rowInBatch, laneId);
  Value group = remC(laneId, tc::kEpilogueGroup);
  for (int64_t s = 0; s < 32 / 8; ++s) {
    Value r = addC(divC(laneId, tc::kEpilogueGroup), 8 * s);
    Value groupCol = add(col, mulC(group, tc::kEpilogueGroup));
    Value elem = add(mulC(ext64(add(warpFirstRow, r)), c.n), ext64(groupCol));
    Value vec;
    if (!c.ragged()) {
      vec = LLVM::LoadOp::create(b, loc, accVec,
                                 gep(accPtr, mulC(elem, eltBytes)),
                                 tc::kEpilogueGroup * eltBytes);
    } else {
      // Positions past M x N read element 0 (their results are not
      // stored); rows of N % 4 != 0 elements are not 16-byte aligned, so
      // their groups load element by element.
      Value groupRow = add(warpFirstRowInBatch, r);
      Value zero64 = ext64(i32(0));
      auto clamped = [&](int64_t e) -> Value {
        Value inside = insideOutput(groupRow, addC(groupCol, e));
        Value at = e == 0 ? elem : add(elem, ext64(i32(e)));
        return arith::SelectOp::create(b, loc, inside, at, zero64);
      };
      if (c.n % tc::kEpilogueGroup == 0) {
        vec = LLVM::LoadOp::create(b, loc, accVec,
                                   gep(accPtr, mulC(clamped(0), eltBytes)),
                                   tc::kEpilogueGroup * eltBytes);
      } else {
        vec = LLVM::PoisonOp::create(b, loc, accVec);
        for (int64_t e = 0; e < tc::kEpilogueGroup; ++e) {
          Value v = LLVM::LoadOp::create(b, loc, resultType,
                                         gep(accPtr, mulC(clamped(e), eltBytes)),
                                         eltBytes);
          vec = LLVM::InsertElementOp::create(b, loc, vec, v, i32(e));
        }
      }
    }
    LLVM::StoreOp::create(b, loc, vec, stagingGroupPtr(r, group),
                          tc::kEpilogueGroup * eltBytes);
  }
  emitWarpSync();
  SmallVector<Value> values;
  for (int64_t g = 0; g < tc::kEpilogueColumns / tc::kEpilogueGroup; ++g) {
    Value vec =
        LLVM::LoadOp::create(b, loc, accVec, stagingGroupPtr(laneId, i32(g)),
                             tc::kEpilogueGroup * eltBytes);
    if (resultType != f32)
      vec = arith::ExtFOp::create(b, loc, f32Vec, vec);
    for (int64_t e = 0; e < tc::kEpilogueGroup; ++e)
      values.push_back(LLVM::ExtractElementOp::create(b, loc, vec, i32(e)));
  }
  // The buffer is free again once every lane read its row.
  emitWarpSync();
  return values;
}

void Tcgen05KernelBuilder::emitStoreNVFP4Block(ArrayRef<Value> values,
                                               Value row, Value rowInBatch,
                                               Value col) {
  const EpilogueQuantization &q = *c.nvfp4Output;
  // Blocks past N of K-padded storage are zeros (their accumulator columns
  // hold the accumulator operand's element 0): zero codes, zero scale.
  Value insideN =
      q.paddedCols ? cmp(arith::CmpIPredicate::ult, col, i32(c.n)) : Value();
  SmallVector<Value> rounded;
  for (Value v : values) {
    v = roundToResultType(v);
    if (insideN)
      v = arith::SelectOp::create(
          b, loc, insideN, v,
          arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0)));
    rounded.push_back(v);
  }
  if (q.hadamardNegateMask)
    mlir::nvfp4::detail::createHadamard16(b, loc, rounded,
                                          *q.hadamardNegateMask);
  BlockQuantizeEmitter quantizer(b, loc, c.target);
  Value scaleAmax = quantizer.blockAmax(rounded);
  if (q.blockRows == 16)
    scaleAmax = mlir::nvfp4::detail::createButterflyMax(b, loc, scaleAmax,
                                                        {1, 2, 4, 8});
  // The block's index in the row-major blocks of 16 elements of the result
  // (flattened over the batch): (row * N + col) / 16, the Philox counter's;
  // and in those of the storage (row * storage columns + col) / 16.
  constexpr int64_t kBlock = mlir::nvfp4::kBlockSize;
  Value block64 = add(mulC(ext64(row), c.n / kBlock), ext64(divC(col, kBlock)));
  const int64_t storageCols = q.paddedCols ? q.paddedCols : c.n;
  Value storageBlock64 = q.paddedCols
                             ? add(mulC(ext64(row), storageCols / kBlock),
                                   ext64(divC(col, kBlock)))
                             : block64;
  std::optional<mlir::nvfp4::detail::BlockStochasticRounding> stochastic;
  if (q.stochastic)
    stochastic = mlir::nvfp4::detail::BlockStochasticRounding{
        outSeed, addC(block64, static_cast<int64_t>(q.offset)), q.hardwareSR};
  BlockQuantizeEmitter::Block block =
      quantizer.quantizeBlock(rounded, outEncodeScale, scaleAmax, stochastic);
  // Only blocks inside M x N (of padded storage: M x storage columns) are
  // stored; every lane computed its block (the 16x16 scale's half-warp
  // maximum needs them all).
  if (c.ragged()) {
    Value inside =
        q.paddedCols
            ? arith::AndIOp::create(
                  b, loc, cmp(arith::CmpIPredicate::ult, rowInBatch, mRows),
                  cmp(arith::CmpIPredicate::ult, col, i32(storageCols)))
                  .getResult()
            : insideOutput(rowInBatch, col);
    ifThen(inside,
           [&] { emitStoreNVFP4Components(block, row, col, storageBlock64); });
    return;
  }
  emitStoreNVFP4Components(block, row, col, storageBlock64);
}

void Tcgen05KernelBuilder::emitStoreNVFP4Components(
    const BlockQuantizeEmitter::Block &block, Value row, Value col,
    Value block64) {
  const EpilogueQuantization &q = *c.nvfp4Output;
  constexpr int64_t kBlock = mlir::nvfp4::kBlockSize;
  const int64_t storageCols = q.paddedCols ? q.paddedCols : c.n;
  // Data: two codes per byte, so the block is the 8 bytes at byte 8 * block
  // (8-byte aligned). Scales: one byte per 1x16 block, row-major [rows,
  // N / 16], or per 16x16 tile, row-major [rows / 16, N / 16] (N: the
  // storage columns).
  LLVM::StoreOp::create(b, loc, block.packed,
                        gep(outPtr, mulC(block64, kBlock / 2)), 8);
  if (q.scaleAtoms) {
    // The atoms layout has one scale per row, also for 16x16 blocks: every
    // row of the tile stores the tile's scale at its own position.
    Value scaleByte =
        tc::scaleAtomsOffset(idx(ext64(row)), idx(ext64(divC(col, kBlock))),
                             storageCols / kBlock)
            .v;
    LLVM::StoreOp::create(b, loc, block.scale, gep(outScalesPtr, scaleByte), 1);
    return;
  }
  if (q.blockRows == 1) {
    LLVM::StoreOp::create(b, loc, block.scale, gep(outScalesPtr, block64), 1);
    return;
  }
  Value tileRow = divC(row, q.blockRows);
  Value firstRowOfTile =
      cmp(arith::CmpIPredicate::eq, mulC(tileRow, q.blockRows), row);
  ifThen(firstRowOfTile, [&] {
    Value scaleByte = add(mulC(ext64(tileRow), storageCols / kBlock),
                          ext64(divC(col, kBlock)));
    LLVM::StoreOp::create(b, loc, block.scale, gep(outScalesPtr, scaleByte), 1);
  });
}

void Tcgen05KernelBuilder::emitStoreChunk(ArrayRef<Value> values, Value row,
                                          Value rowInBatch, Value col) {
  if (c.nvfp4Output)
    return emitStoreNVFP4Block(values, row, rowInBatch, col);
  if (c.transposedResult)
    return emitStoreTransposedChunk(values, row, rowInBatch, col);
  Type f32 = b.getF32Type(), resultType = c.resultElementType;
  const int64_t eltBytes = resultType.isBF16() ? 2 : 4;
  auto f32Vec = VectorType::get({tc::kEpilogueGroup}, f32);
  auto outVec = VectorType::get({tc::kEpilogueGroup}, resultType);
  // The thread's row into the staging buffer, then whole rows out of it
  // (stagingGroupPtr).
  for (int64_t g = 0; g < tc::kEpilogueColumns / tc::kEpilogueGroup; ++g) {
    Value out = LLVM::PoisonOp::create(b, loc, f32Vec);
    for (int64_t e = 0; e < tc::kEpilogueGroup; ++e)
      out = LLVM::InsertElementOp::create(
          b, loc, out, values[g * tc::kEpilogueGroup + e], i32(e));
    if (resultType != f32)
      out = arith::TruncFOp::create(b, loc, outVec, out);
    LLVM::StoreOp::create(b, loc, out, stagingGroupPtr(laneId, i32(g)),
                          tc::kEpilogueGroup * eltBytes);
  }
  emitWarpSync();
  Value warpFirstRow = sub(row, laneId);
  Value warpFirstRowInBatch = sub(rowInBatch, laneId);
  Value group = remC(laneId, tc::kEpilogueGroup);
  for (int64_t s = 0; s < 32 / 8; ++s) {
    Value r = addC(divC(laneId, tc::kEpilogueGroup), 8 * s);
    Value vec = LLVM::LoadOp::create(b, loc, outVec, stagingGroupPtr(r, group),
                                     tc::kEpilogueGroup * eltBytes);
    Value groupCol = add(col, mulC(group, tc::kEpilogueGroup));
    Value elem = add(mulC(ext64(add(warpFirstRow, r)), c.n), ext64(groupCol));
    if (!c.ragged()) {
      LLVM::StoreOp::create(b, loc, vec, gep(outPtr, mulC(elem, eltBytes)),
                            tc::kEpilogueGroup * eltBytes);
      continue;
    }
    // Only positions inside M x N are stored; rows of N % 4 != 0 elements
    // are not 16-byte aligned, so their groups store element by element.
    Value groupRow = add(warpFirstRowInBatch, r);
    if (c.n % tc::kEpilogueGroup == 0) {
      ifThen(insideOutput(groupRow, groupCol), [&] {
        LLVM::StoreOp::create(b, loc, vec, gep(outPtr, mulC(elem, eltBytes)),
                              tc::kEpilogueGroup * eltBytes);
      });
      continue;
    }
    for (int64_t e = 0; e < tc::kEpilogueGroup; ++e)
      ifThen(insideOutput(groupRow, addC(groupCol, e)), [&] {
        Value v = LLVM::ExtractElementOp::create(b, loc, vec, i32(e));
        LLVM::StoreOp::create(
            b, loc, v, gep(outPtr, mulC(add(elem, ext64(i32(e))), eltBytes)),
            eltBytes);
      });
  }
  // The buffer is free again once every lane read its rows.
  emitWarpSync();
}

void Tcgen05KernelBuilder::emitEpilogue() {
  Type f32 = b.getF32Type(), i32T = b.getI32Type();
  // The operands' alpha (NVFP4; MX has no tensor scale).
  Value alpha = c.isMX() ? Value()
                         : createMatmulAlpha(b, loc, lhsAmax, c.lhsTensorScale,
                                             rhsAmax, c.rhsTensorScale);
  // This thread's accumulator row and the lane field of its tcgen05.ld
  // addresses.
  Value rowInTile = tc::epilogueRow(idx(warp), idx(laneId)).v;
  Value laneField = arith::ShLIOp::create(
      b, loc, tc::tmemLaneBaseOfWarp(idx(warp)).v, i32(16));
  if (c.nvfp4Output)
    outEncodeScale =
        BlockQuantizeEmitter(b, loc, c.target).globalEncodeScale(outAmax);
  forEachTile([&](Value local, tc::TileCoord<IdxI32> coord) {
    Value accBarrier = tc::slotOf(idx(local), p.accBarrierStages).v;
    emitWait(barrier(p.accFullBarrierOffset, accBarrier),
             tc::consumerParity(idx(local), p.accBarrierStages).v);
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value acc = tc::slotOf(idx(local), p.accStages).v;
    Value rowTmem = add(add(tmemBase, laneField), mulC(acc, p.accColumnStride));
    Value row = add(ctaFirstRow(coord), rowInTile);
    Value rowInBatch = sub(row, (coord.batch * idx(mRows)).v);
    Value col0 = (coord.n * p.tileN).v;
    // Reads, scales and stores chunks [first, last) of the tile, in the
    // order epilogueChunkOf gives; with computesAmax the loop carries the
    // maximum magnitude of the thread's values of the tile.
    auto emitChunks = [&](int64_t first, int64_t last,
                          ValueRange amaxInit) -> ValueRange {
      auto chunks =
          scf::ForOp::create(b, loc, i32(first), i32(last), i32(1), amaxInit);
      OpBuilder::InsertionGuard chunkGuard(b);
      b.setInsertionPointToStart(chunks.getBody());
      Value chunk =
          p.epilogueChunkOf(idx(chunks.getInductionVar()), idx(acc)).v;
      Value colOff = mulC(chunk, tc::kEpilogueColumns);
      auto ldType = VectorType::get({tc::kEpilogueColumns}, i32T);
      Value raw = NVVM::Tcgen05LdOp::create(
          b, loc, ldType, /*pack=*/false, NVVM::Tcgen05LdStShape::SHAPE_32X32B,
          tmemPtr(add(rowTmem, colOff)), /*offset=*/Value());
      NVVM::Tcgen05WaitOp::create(b, loc, NVVM::Tcgen05WaitKind::LOAD);
      Value col = add(col0, colOff);
      SmallVector<Value> values;
      for (int64_t e = 0; e < tc::kEpilogueColumns; ++e) {
        Value bits = LLVM::ExtractElementOp::create(b, loc, raw, i32(e));
        Value value = arith::BitcastOp::create(b, loc, f32, bits);
        if (alpha)
          value = arith::MulFOp::create(b, loc, value, alpha);
        values.push_back(value);
      }
      if (accPtr) {
        SmallVector<Value> accValues = emitLoadAccChunk(row, rowInBatch, col);
        for (auto [value, accValue] : llvm::zip_equal(values, accValues))
          value = arith::AddFOp::create(b, loc, value, accValue);
      }
      emitStoreChunk(values, row, rowInBatch, col);
      if (c.computesAmax) {
        BlockQuantizeEmitter quantizer(b, loc, c.target);
        Value amax = chunks.getRegionIterArgs()[0];
        for (auto [e, v] : llvm::enumerate(values)) {
          Value rounded = roundToResultType(v);
          // Positions past M x N hold no result.
          if (c.ragged()) {
            Value inside =
                insideOutput(rowInBatch, addC(col, static_cast<int64_t>(e)));
            Value zero =
                arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
            rounded = arith::SelectOp::create(b, loc, inside, rounded, zero);
          }
          amax = quantizer.absMaxAccumulate(amax, rounded);
        }
        scf::YieldOp::create(b, loc, amax);
      }
      return chunks.getResults();
    };
    // This thread's reads of the accumulator (overlapping accumulators: of
    // the chunks the next tile's accumulator shares) are done: let the MMA
    // thread reuse it.
    auto release = [&] {
      NVVM::Tcgen05FenceOp::create(b, loc,
                                   NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
      emitArrive(p.accEmptyBarrierOffset, accBarrier);
    };
    SmallVector<Value> amax;
    if (c.computesAmax)
      amax.push_back(arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0)));
    const int64_t shared =
        p.overlapsAccumulators() ? p.accOverlapChunks : p.epilogueChunks();
    amax = llvm::to_vector(emitChunks(0, shared, amax));
    release();
    if (shared < p.epilogueChunks())
      amax = llvm::to_vector(emitChunks(shared, p.epilogueChunks(), amax));
    if (c.computesAmax)
      emitResultAmaxReduction(amax[0]);
  });
}

Value Tcgen05KernelBuilder::roundToResultType(Value v) {
  if (c.resultElementType == b.getF32Type())
    return v;
  Value narrow = arith::TruncFOp::create(b, loc, c.resultElementType, v);
  return arith::ExtFOp::create(b, loc, b.getF32Type(), narrow);
}

void Tcgen05KernelBuilder::emitResultAmaxReduction(Value threadAmax) {
  Value warpAmax = mlir::nvfp4::detail::createButterflyMax(b, loc, threadAmax,
                                                           {16, 8, 4, 2, 1});
  ifThen(cmp(arith::CmpIPredicate::eq, laneId, i32(0)), [&] {
    // Magnitudes (NaNs ignored) are non-negative floats, which order as
    // their bit patterns do: an unsigned integer maximum is the float one.
    Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), warpAmax);
    LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::umax, resultAmaxPtr,
                              bits, LLVM::AtomicOrdering::monotonic);
  });
}
