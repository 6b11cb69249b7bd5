//===- Tcgen05Kernel.cpp - The tcgen05 kernel: producer and MMA thread ----===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Tcgen05KernelBuilder (Tcgen05KernelBuilder.h): the kernel's setup
// (barriers, tensor memory), the producer warp (TMA loads of A and B, the
// scales), the scale warp of staged 16x16-block scales, the MMA-issuing
// thread (tcgen05.cp of the scales, tcgen05.mma, tcgen05.commit) and the
// teardown. The epilogue warps are in Tcgen05Epilogue.cpp.
//
//===----------------------------------------------------------------------===//

#include "Tcgen05KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::nvfp4;
using namespace mlir::nvfp4::detail;

Value Tcgen05KernelBuilder::smemDescField(Value address) {
  return arith::AndIOp::create(b, loc,
                               arith::ShRUIOp::create(b, loc, address, i32(4)),
                               i32(tc::kSmemDescField14));
}

Value Tcgen05KernelBuilder::smemDescOfField(uint64_t constant, Value field) {
  return arith::OrIOp::create(b, loc, ext64(field),
                              i64(static_cast<int64_t>(constant)));
}

void Tcgen05KernelBuilder::forEachTile(
    function_ref<void(Value, tc::TileCoord<IdxI32>)> body) {
  forRange(i32(0), numLocalTiles, [&](Value local) {
    IdxI32 tile = tc::tileOfCta(idx(cta), idx(gridSize), idx(local));
    // A run-time M (unbatched): the row of tiles is the rest.
    body(local, c.hasRunTimeM()
                    ? tc::TileCoord<IdxI32>{tile % c.nTiles(),
                                            tile / c.nTiles(), idx(i32(0))}
                    : tc::tileCoord(tile, c.nTiles(), c.mTiles()));
  });
}

void Tcgen05KernelBuilder::emitWait(Value bar, Value parity) {
  // mbarrier.try_wait.parity suspends the thread for a system-defined time
  // per attempt; retry until the phase completed.
  auto spin = scf::WhileOp::create(b, loc, TypeRange(), ValueRange());
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&spin.getBefore());
  Value done = NVVM::MBarrierTryWaitOp::create(
      b, loc, b.getI1Type(), bar, parity, /*ticks=*/Value(),
      p.ctaPair ? NVVM::MemScopeKind::CLUSTER : NVVM::MemScopeKind::CTA);
  Value pending = arith::XOrIOp::create(
      b, loc, done, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
  scf::ConditionOp::create(b, loc, pending, ValueRange());
  b.createBlock(&spin.getAfter());
  scf::YieldOp::create(b, loc);
}

Value Tcgen05KernelBuilder::leaderBarrier(int64_t offset, Value index) {
  auto clusterPtrType = LLVM::LLVMPointerType::get(
      b.getContext(),
      static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
  return NVVM::MapaOp::create(b, loc, clusterPtrType, barrier(offset, index),
                              i32(tc::kPairLeaderRank));
}

void Tcgen05KernelBuilder::emitArrive(int64_t offset, Value index) {
  if (!p.ctaPair) {
    NVVM::MBarrierArriveOp::create(b, loc, TypeRange(), barrier(offset, index),
                                   /*count=*/Value());
    return;
  }
  NVVM::MBarrierArriveOp::create(
      b, loc, TypeRange(), leaderBarrier(offset, index),
      /*count=*/Value(), NVVM::MemScopeKind::CLUSTER);
}

void Tcgen05KernelBuilder::emitProducer() {
  MLIRContext *ctx = b.getContext();
  auto clusterPtrType = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
  auto smemPtrType = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  const int64_t scaleCopyBytes =
      p.scaleCopyBytes(c.lhsScaleAtoms, c.rhsScaleAtoms);
  // A pair with scale atoms: the leader's copies complete on its full
  // barrier, the peer's on its own scaleFull barrier (a bulk copy completes
  // on an mbarrier in the CTA of its destination), which its lanes wait for
  // before they arrive on the leader's full barrier.
  const bool relayScales = p.ctaPair && scaleCopyBytes != 0;
  Value isPeer = relayScales ? cmp(arith::CmpIPredicate::ne, rankInPair,
                                   i32(tc::kPairLeaderRank))
                             : Value();
  Value leader = NVVM::ElectSyncOp::create(b, loc, b.getI1Type(), Value());
  // The operands' tensor maps into the TMA unit's descriptor cache before
  // the first load (CUTLASS's prefetch_tma_descriptor).
  SmallVector<Value, 4> maps = {lhsTensorMap, rhsTensorMap};
  for (Value map : {lhsStagedScaleMap, rhsStagedScaleMap})
    if (map)
      maps.push_back(map);
  ifThen(leader, [&] {
    for (Value map : maps)
      NVVM::PrefetchOp::create(b, loc, /*cacheLevel=*/nullptr,
                               /*evictPriority=*/nullptr, map,
                               /*predicate=*/Value(), /*tensormap=*/true,
                               /*uniform=*/false, /*in_param_space=*/false);
  });
  forEachTile([&](Value local, tc::TileCoord<IdxI32> coord) {
    // Rows of the 2-D [batch * rows, row bytes] views: this CTA's 128 rows
    // of A and its share of the tile's B rows. The B scales are those of
    // all the tile's rows, in each CTA of a pair too (each CTA's tensor core
    // scales its accumulator rows by every B column's scales, read from its
    // own tensor memory), so their first row has no rank offset.
    Value lhsRow = ctaFirstRow(coord);
    Value rhsScaleRow = (coord.batch * c.n + coord.n * p.tileN).v;
    Value rhsRow = rhsScaleRow;
    if (p.ctaPair)
      rhsRow = add(rhsRow, mulC(rankInPair, p.bRowsPerCta));
    forEachKTile(local, [&](Value kt, IdxI32 step, Value stage) {
      emitWait(barrier(p.emptyBarrierOffset, stage),
               tc::producerParity(step, p.stages).v);
      Value stageOff = mulC(stage, p.stageBytes);
      // The full barrier that counts this CTA's loads: its own, or the
      // leader's (a shared::cluster address; the TMA's `.cta_group::2` form
      // may signal the peer CTA's barrier).
      Value full = barrier(p.fullBarrierOffset, stage);
      Value fullOfLoads = full, fullOfScaleCopies = full;
      Value scaleFull;
      if (relayScales) {
        scaleFull = barrier(p.scaleFullBarrierOffset, stage);
        fullOfScaleCopies =
            arith::SelectOp::create(b, loc, isPeer, scaleFull, full);
      }
      if (p.ctaPair) {
        full = leaderBarrier(p.fullBarrierOffset, stage);
        fullOfLoads = LLVM::IntToPtrOp::create(
            b, loc, smemPtrType,
            LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), full).getResult());
      }
      ifThen(leader, [&] {
        // Each CTA announces its own bytes before its loads, so that the
        // transaction count of the phase never goes negative (the peer of a
        // pair those of its scale copies on its scaleFull barrier, with the
        // one arrival that barrier counts).
        Value txBytes = i32(p.txBytesPerCta + scaleCopyBytes);
        if (relayScales) {
          txBytes = arith::SelectOp::create(b, loc, isPeer,
                                            i32(p.txBytesPerCta), txBytes);
          ifThen(isPeer, [&] {
            NVVM::MBarrierArriveExpectTxOp::create(
                b, loc, TypeRange(), scaleFull, i32(scaleCopyBytes),
                NVVM::MemScopeKind::CTA, /*relaxed=*/false,
                /*predicate=*/Value());
          });
        }
        NVVM::MBarrierExpectTxOp::create(b, loc, full, txBytes,
                                         p.ctaPair ? NVVM::MemScopeKind::CLUSTER
                                                   : NVVM::MemScopeKind::CTA);
        Value kByte = mulC(kt, tc::kTileRowBytes);
        auto load = [&](Value tensorMap, int64_t offset, Value row) {
          Value dst = LLVM::AddrSpaceCastOp::create(
              b, loc, clusterPtrType, smemPtr(addC(stageOff, offset)));
          NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
              b, loc, dst, tensorMap, ValueRange{kByte, row}, fullOfLoads,
              /*im2colOffsets=*/ValueRange(), /*multicastMask=*/Value(),
              /*l2CacheHint=*/Value(),
              NVVM::TMALoadModeAttr::get(ctx, NVVM::TMALoadMode::TILE),
              b.getBoolAttr(false),
              p.ctaPair ? NVVM::CTAGroupKindAttr::get(ctx, ctaGroup())
                        : NVVM::CTAGroupKindAttr(),
              /*predicate=*/Value());
        };
        load(lhsTensorMap, p.aOffset, lhsRow);
        load(rhsTensorMap, p.bOffset, rhsRow);
        // Scales in the global atoms layout: the 2 KiB of each 128-row
        // block (its atoms of this K tile, MMA by MMA) in one bulk copy to
        // the stage's atoms of that block, completing on this CTA's full
        // barrier (the pair's peer: on its scaleFull barrier).
        auto copyScaleAtoms = [&](Value scales, Value firstRow,
                                  int64_t rowBlocks, bool isLhs) {
          for (int64_t rb = 0; rb < rowBlocks; ++rb) {
            Value src = gep(
                scales,
                tc::scaleAtomsAtomOffset(
                    idx(ext64(addC(firstRow, rb * tc::kScaleAtomRows))),
                    idx(ext64(mulC(kt, tc::kTileK / mlir::nvfp4::kBlockSize))),
                    c.k / mlir::nvfp4::kBlockSize)
                    .v);
            int64_t dstOffset =
                isLhs ? p.aScaleAtomOffsetOf(0) : p.bScaleAtomOffsetOf(0, rb);
            Value dst = LLVM::AddrSpaceCastOp::create(
                b, loc, clusterPtrType, smemPtr(addC(stageOff, dstOffset)));
            NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
                b, loc, dst, src, fullOfScaleCopies,
                i32(p.scaleAtomKTileBytes()),
                /*multicastMask=*/Value(), /*l2CacheHint=*/Value());
          }
        };
        if (c.lhsScaleAtoms)
          copyScaleAtoms(lhsScales, lhsRow, 1, /*isLhs=*/true);
        if (c.rhsScaleAtoms)
          copyScaleAtoms(rhsScales, rhsScaleRow, p.bScaleAtoms,
                         /*isLhs=*/false);
        // Staged scales: the K tile's 16 scale bytes of the tile's scale
        // rows to the start of the operand's atoms in this CTA's stage,
        // completing on its own scaleStaged barrier, which the scale warp
        // waits for.
        if (p.scaleStaging.any()) {
          Value staged = barrier(p.scaleStagedBarrierOffset, stage);
          NVVM::MBarrierArriveExpectTxOp::create(
              b, loc, TypeRange(), staged, i32(p.stagedScaleBytes),
              NVVM::MemScopeKind::CTA, /*relaxed=*/false,
              /*predicate=*/Value());
          Value kScaleByte = mulC(kt, tc::kStagedScaleRowBytes);
          auto loadStaged = [&](Value map, int64_t offset, Value firstRow) {
            Value dst = LLVM::AddrSpaceCastOp::create(
                b, loc, clusterPtrType, smemPtr(addC(stageOff, offset)));
            NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
                b, loc, dst, map,
                ValueRange{kScaleByte,
                           divC(firstRow, tc::kStagedScaleBlockRows)},
                staged, /*im2colOffsets=*/ValueRange(),
                /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
                NVVM::TMALoadModeAttr::get(ctx, NVVM::TMALoadMode::TILE),
                b.getBoolAttr(false), NVVM::CTAGroupKindAttr(),
                /*predicate=*/Value());
          };
          if (p.scaleStaging.lhs)
            loadStaged(lhsStagedScaleMap, p.aScaleOffset, lhsRow);
          if (p.scaleStaging.rhs)
            loadStaged(rhsStagedScaleMap, p.bScaleOffset, rhsScaleRow);
        }
      });
      if (storesScalesInProducer()) {
        emitScaleStores(kt, stageOff, coord);
        // Make the generic-proxy scale stores visible to tcgen05.cp.
        NVVM::FenceProxyOp::create(
            b, loc, NVVM::ProxyKind::async_shared,
            NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
      }
      // The relay: the peer's lanes arrive on the leader's full barrier only
      // once their scale copies landed (the MMA thread waits on that barrier
      // only; acquire here, release by the arrival).
      if (relayScales)
        ifThen(isPeer, [&] {
          emitWait(scaleFull, tc::consumerParity(step, p.stages).v);
        });
      // Arrive (one of the p.fullBarrierArrivals the full barrier expects;
      // with a CTA pair on the leader's barrier, release.cluster).
      NVVM::MBarrierArriveOp::create(b, loc, TypeRange(), full,
                                     /*count=*/Value(),
                                     p.ctaPair ? NVVM::MemScopeKind::CLUSTER
                                               : NVVM::MemScopeKind::CTA);
    });
  });
  // Drain: wait for the release of the last `stages` steps, as if producing
  // `stages` more.
  Value steps = mul(numLocalTiles, kTileCount);
  forRange(steps, addC(steps, p.stages), [&](Value stepValue) {
    IdxI32 step = idx(stepValue);
    emitWait(barrier(p.emptyBarrierOffset, tc::slotOf(step, p.stages).v),
             tc::producerParity(step, p.stages).v);
  });
}

void Tcgen05KernelBuilder::emitScaleAtomStores(
    Value stageOff, function_ref<Value(Value)> loadRow, int64_t tileRows,
    int64_t atoms, bool isLhs, bool inPlace) {
  // One 32-bit word of scales per atom of the K tile (4 scales each).
  const int64_t words = p.scaleAtomsPerKTile;
  // An atom's 16 bytes of a lane: one word of each of its four rows.
  auto atomRowsType = VectorType::get({tc::kScaleRowsPerLane}, b.getI32Type());
  Value laneOff = tc::scaleLaneStoreOffset(idx(laneId)).v;
  // Each lane's four rows of each 128-row block, all loaded before the
  // first store.
  SmallVector<SmallVector<Value, tc::kScaleRowsPerLane>> blocks(atoms);
  for (int64_t atom = 0; atom < atoms; ++atom) {
    for (int64_t q = 0; q < tc::kScaleRowsPerLane; ++q) {
      // Rows past the tile (N = 64: half of the atom) are padding the
      // MMA does not read; they are written as zeros.
      bool inTile = tc::scaleRowOfLane<int64_t>(0, atom, q) < tileRows;
      blocks[atom].push_back(
          inTile ? loadRow(tc::scaleRowOfLane(idx(laneId), atom, q).v)
                 : Value());
    }
  }
  if (inPlace)
    emitWarpSync();
  for (int64_t atom = 0; atom < atoms; ++atom) {
    ArrayRef<Value> rows = blocks[atom];
    // Word i of the four rows (null: zero padding) into atom i.
    const int64_t firstAtomOffset =
        isLhs ? p.aScaleAtomOffsetOf(0) : p.bScaleAtomOffsetOf(0, atom);
    for (int64_t i = 0; i < words; ++i) {
      Value vec = LLVM::PoisonOp::create(b, loc, atomRowsType);
      for (auto [q, row] : llvm::enumerate(rows)) {
        Value word = row ? LLVM::ExtractElementOp::create(b, loc, row, i32(i))
                               .getResult()
                         : i32(0);
        vec = LLVM::InsertElementOp::create(b, loc, vec, word,
                                            i32(static_cast<int64_t>(q)));
      }
      Value dst = add(addC(stageOff, firstAtomOffset + i * tc::kScaleAtomBytes),
                      laneOff);
      LLVM::StoreOp::create(b, loc, vec, smemPtr(dst), 16);
    }
  }
}

void Tcgen05KernelBuilder::emitScaleStores(Value kt, Value stageOff,
                                           const tc::TileCoord<IdxI32> &coord) {
  const int64_t words = p.scaleAtomsPerKTile;
  auto rowType = VectorType::get({words}, b.getI32Type());
  Value kScaleByte = ext64(mulC(kt, words * 4));
  Value batch64 = ext64(coord.batch.v);
  // The scale bytes of K tile kt (16, 8 or 4: one word per atom) of tile
  // row `row`.
  // `rows` (i32) of the operand, `rowsPerBatch` of them per batch.
  auto loadRow = [&](Value base, Value rows, int64_t rowsPerBatch,
                     int64_t blockRows, Value tileRow0, Value row) -> Value {
    Value operandRow = add(tileRow0, row);
    // Rows of the last tile past M or N read the operand's last row: they
    // only reach outputs the epilogue does not store.
    if (c.ragged())
      operandRow = arith::MinUIOp::create(b, loc, operandRow, addC(rows, -1));
    Value scaleRow = divC(operandRow, blockRows);
    // A run-time M or K is unbatched: batch64 is 0.
    Value rowStart = mul(ext64(scaleRow), ext64(scaleRowBytes));
    if (c.batch)
      rowStart =
          add(mulC(batch64, rowsPerBatch / blockRows * (c.k / c.blockCols())),
              rowStart);
    if (!c.hasRunTimeK() && c.k % c.tileK() == 0)
      return LLVM::LoadOp::create(
          b, loc, rowType, gep(base, add(rowStart, kScaleByte)), 4 * words);
    // K not a multiple of the K tile (or a run-time K): scale rows are not
    // aligned to the tile's scale bytes, so they load one by one; those past
    // the row's end are zero (with the zero-filled codes, the padded K adds
    // exact zeros: zero codes times any scale, E8M0's 2^-127 included).
    Type i8 = b.getI8Type(), i32T = b.getI32Type();
    Value vec = LLVM::PoisonOp::create(b, loc, rowType);
    for (int64_t word = 0; word < words; ++word) {
      Value packed = i32(0);
      for (int64_t byte = 0; byte < 4; ++byte) {
        Value col = addC(kScaleByte, 4 * word + byte);
        Value inRow = cmp(arith::CmpIPredicate::ult, col, ext64(scaleRowBytes));
        Value zero64 = ext64(i32(0));
        Value at = arith::SelectOp::create(b, loc, inRow, col, zero64);
        Value loaded =
            LLVM::LoadOp::create(b, loc, i8, gep(base, add(rowStart, at)), 1);
        Value extended = arith::ExtUIOp::create(b, loc, i32T, loaded);
        Value masked = arith::SelectOp::create(b, loc, inRow, extended, i32(0));
        if (byte > 0)
          masked = arith::ShLIOp::create(b, loc, masked, i32(8 * byte));
        packed = arith::OrIOp::create(b, loc, packed, masked);
      }
      vec = LLVM::InsertElementOp::create(b, loc, vec, packed, i32(word));
    }
    return vec;
  };
  // A: this CTA's 128 rows. B: all tileN rows, also in each CTA of a pair
  // (each CTA's tensor core scales its 128 accumulator rows by the scales
  // of every B column, which it reads from its own tensor memory).
  Value aRow0 = (coord.m * p.tileM).v;
  if (p.ctaPair)
    aRow0 = add(aRow0, mulC(rankInPair, tc::kTileM));
  // Operands whose scales are in the global atoms layout came by bulk copy,
  // staged ones are the scale warp's.
  if (!c.lhsScaleAtoms && !p.scaleStaging.lhs)
    emitScaleAtomStores(
        stageOff,
        [&](Value row) {
          return loadRow(lhsScales, mRows, c.m, c.lhsBlockRows, aRow0, row);
        },
        tc::kTileM, 1, /*isLhs=*/true);
  if (!c.rhsScaleAtoms && !p.scaleStaging.rhs)
    emitScaleAtomStores(
        stageOff,
        [&](Value row) {
          return loadRow(rhsScales, i32(c.n), c.n, c.rhsBlockRows,
                         (coord.n * p.tileN).v, row);
        },
        p.tileN, p.bScaleAtoms, /*isLhs=*/false);
}

void Tcgen05KernelBuilder::emitScaleWarp() {
  auto rowType = VectorType::get({p.scaleAtomsPerKTile}, b.getI32Type());
  forEachTile([&](Value local, tc::TileCoord<IdxI32>) {
    forEachKTile(local, [&](Value, IdxI32 step, Value stage) {
      // The producer armed the barrier after the stage's release, so the
      // stage's atoms are free once the staged scales landed.
      emitWait(barrier(p.scaleStagedBarrierOffset, stage),
               tc::consumerParity(step, p.stages).v);
      Value stageOff = mulC(stage, p.stageBytes);
      // Tile row `row` takes the 16 bytes of its scale row, row / 16, which
      // the expansion overwrites: every lane loads its rows before any lane
      // stores (inPlace).
      auto expand = [&](int64_t offset, int64_t tileRows, int64_t atoms,
                        bool isLhs) {
        emitScaleAtomStores(
            stageOff,
            [&](Value row) -> Value {
              Value at = add(addC(stageOff, offset),
                             mulC(divC(row, tc::kStagedScaleBlockRows),
                                  tc::kStagedScaleRowBytes));
              return LLVM::LoadOp::create(b, loc, rowType, smemPtr(at),
                                          tc::kStagedScaleRowBytes);
            },
            tileRows, atoms, isLhs, /*inPlace=*/true);
      };
      if (p.scaleStaging.lhs)
        expand(p.aScaleOffset, tc::kTileM, 1, /*isLhs=*/true);
      if (p.scaleStaging.rhs)
        expand(p.bScaleOffset, p.tileN, p.bScaleAtoms, /*isLhs=*/false);
      // Make the generic-proxy stores visible to tcgen05.cp, then arrive
      // (with a CTA pair on the leader's full barrier).
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(),
                                     NVVM::SharedSpace::shared_cta));
      emitArrive(p.fullBarrierOffset, stage);
    });
  });
}

void Tcgen05KernelBuilder::emitMmaIssuer() {
  // The descriptor start-address field of stage 0, and its step per stage
  // (stages are 1024-byte aligned: no carry out of the 14-bit field, every
  // shared-memory address is below 2^18).
  Value baseDescField = smemDescField(smemBaseAddr);
  const int64_t stageDescStep = tc::smemDescBytes(p.stageBytes);
  forEachTile([&](Value local, tc::TileCoord<IdxI32>) {
    // Wait until the epilogue drained this accumulator's previous tile
    // (overlapping accumulators: the columns it shares with the tile before,
    // TilePlan::accOverlapChunks).
    Value accBarrier = tc::slotOf(idx(local), p.accBarrierStages).v;
    emitWait(barrier(p.accEmptyBarrierOffset, accBarrier),
             tc::producerParity(idx(local), p.accBarrierStages).v);
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value acc = tc::slotOf(idx(local), p.accStages).v;
    Value accColumn = add(tmemBase, mulC(acc, p.accColumnStride));
    auto issueKTile = [&](const StageCursor &at, Value accumulate) {
      emitWait(barrier(p.fullBarrierOffset, at.stage), at.parity);
      NVVM::Tcgen05FenceOp::create(b, loc,
                                   NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
      emitIssueKTile(at, accColumn, accumulate);
      // Release the stage once these MMAs (and every earlier one) complete.
      emitCommit(p.emptyBarrierOffset, at.stage);
    };
    // K tile 0 overwrites the accumulator; the loop over the others
    // accumulates, and carries the stage, its parity and its descriptor
    // field from step to step (an increment and a wrap instead of a
    // division by the stage count and a descriptor computed from the
    // address).
    IdxI32 firstStep = tc::kStep(idx(local), idx(i32(0)), idx(kTileCount));
    StageCursor first;
    first.stage = tc::slotOf(firstStep, p.stages).v;
    first.parity = tc::consumerParity(firstStep, p.stages).v;
    first.descField = add(baseDescField, mulC(first.stage, stageDescStep));
    issueKTile(first, boolean(false));
    StageCursor second = emitNextStage(first, baseDescField);
    auto loop = scf::ForOp::create(
        b, loc, i32(1), kTileCount, i32(1),
        ValueRange{second.stage, second.parity, second.descField});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      StageCursor at{loop.getRegionIterArg(0), loop.getRegionIterArg(1),
                     loop.getRegionIterArg(2)};
      issueKTile(at, boolean(true));
      StageCursor after = emitNextStage(at, baseDescField);
      scf::YieldOp::create(
          b, loc, ValueRange{after.stage, after.parity, after.descField});
    }
    // The accumulator is complete once the tile's last MMAs complete.
    emitCommit(p.accFullBarrierOffset, accBarrier);
  });
}

void Tcgen05KernelBuilder::emitCommit(int64_t offset, Value index) {
  // With a CTA pair the commit arrives on the barrier at this offset in
  // both CTAs (.multicast::cluster), whose producers and epilogues wait on
  // their own barriers.
  Value mask;
  if (p.ctaPair)
    mask = arith::ConstantIntOp::create(b, loc, b.getI16Type(),
                                        tc::kPairMulticastMask);
  NVVM::Tcgen05CommitOp::create(b, loc, barrier(offset, index), mask,
                                ctaGroup());
}

Tcgen05KernelBuilder::StageCursor
Tcgen05KernelBuilder::emitNextStage(const StageCursor &at,
                                    Value baseDescField) {
  Value next = addC(at.stage, 1);
  Value wrap = cmp(arith::CmpIPredicate::eq, next, i32(p.stages));
  StageCursor after;
  after.stage = arith::SelectOp::create(b, loc, wrap, i32(0), next);
  after.parity = arith::XOrIOp::create(
      b, loc, at.parity, arith::ExtUIOp::create(b, loc, b.getI32Type(), wrap));
  after.descField = arith::SelectOp::create(
      b, loc, wrap, baseDescField,
      addC(at.descField, tc::smemDescBytes(p.stageBytes)));
  return after;
}

void Tcgen05KernelBuilder::emitIssueKTile(const StageCursor &at,
                                          Value accColumn, Value accumulate) {
  Value stage = at.stage;
  Value scaleCol =
      add(addC(tmemBase, p.scaleColumn), mulC(stage, p.scaleColumnsPerStage));
  const uint64_t cpConst = tc::encodeSmemDesc(
      0, tc::kScaleCopyLbo, tc::kScaleCopySbo, tc::SmemSwizzle::None);
  const uint64_t opConst = tc::encodeSmemDesc(
      0, tc::kSw128KMajorLbo, tc::kSw128KMajorSbo, tc::SmemSwizzle::B128);
  // The descriptors of the stage base; an operand or atom at byte `offset`
  // of the stage adds offset >> 4 to the start-address field (no carry out
  // of the field: every shared-memory address is below 2^18).
  Value cpStageDesc = smemDescOfField(cpConst, at.descField);
  Value opStageDesc = smemDescOfField(opConst, at.descField);
  auto descAt = [&](Value stageDesc, int64_t offset) {
    return addC(stageDesc, tc::smemDescBytes(offset));
  };
  auto copyAtom = [&](int64_t smemOffset, int64_t column) {
    Value desc = descAt(cpStageDesc, smemOffset);
    NVVM::Tcgen05CpOp::create(b, loc, NVVM::Tcgen05CpShape::SHAPE_32x128b,
                              ctaGroup(), NVVM::Tcgen05CpMulticast::WARPX4,
                              /*srcFormat=*/nullptr,
                              tmemPtr(addC(scaleCol, column)), desc);
  };
  for (int64_t i = 0; i < p.scaleAtomsPerKTile; ++i) {
    copyAtom(p.aScaleAtomOffsetOf(i), p.aScaleColumnOf(i));
    for (int64_t a = 0; a < p.bScaleAtoms; ++a)
      copyAtom(p.bScaleAtomOffsetOf(i, a),
               p.bScaleColumnOf(i) + a * tc::kScaleAtomTmemColumns);
  }
  const tc::BlockScaledKind kind = c.kind();
  const NVVM::MMABlockScaleKind nvvmKind =
      kind == tc::BlockScaledKind::Mxf4Nvf4 ? NVVM::MMABlockScaleKind::MXF4NVF4
      : kind == tc::BlockScaledKind::Mxf4   ? NVVM::MMABlockScaleKind::MXF4
                                            : NVVM::MMABlockScaleKind::MXF8F6F4;
  const NVVM::Tcgen05MMABlockScale blockScale =
      c.isMX() ? NVVM::Tcgen05MMABlockScale::BLOCK32
               : NVVM::Tcgen05MMABlockScale::BLOCK16;
  Value always = boolean(true);
  // One constant per distinct instruction descriptor (the MX kinds' differ
  // in their scale ids).
  llvm::SmallDenseMap<uint32_t, Value> idescValues;
  for (int64_t i = 0; i < tc::kMmasPerKTile; ++i) {
    // MMA i reads the 32-byte K slice i of each 128-byte swizzled row, and
    // its scales from the bytes scaleIdOfMma of the cells of its atom.
    int64_t kOff = i * tc::kMmaRowBytes;
    Value aDesc = descAt(opStageDesc, p.aOffset + kOff);
    Value bDesc = descAt(opStageDesc, p.bOffset + kOff);
    const uint32_t scaleId = tc::scaleIdOfMma(kind, i);
    const int64_t atom = tc::scaleAtomOfMma(kind, i);
    // With a CTA pair: M = 256, A from both CTAs' shared memory (128 rows
    // each at this address), B from both (tileN / 2 rows each), the scales
    // and the accumulator from / to both CTAs' tensor memory.
    const uint32_t idesc = tc::encodeBlockScaledInstrDesc(
        kind, p.tileM, p.tileN, Tcgen05Config::operandFormatCode(c.lhsFormat),
        Tcgen05Config::operandFormatCode(c.rhsFormat), scaleId, scaleId,
        p.ctaPair);
    assert(idesc != 0 && "invalid tcgen05 instruction descriptor");
    Value &idescValue = idescValues[idesc];
    if (!idescValue)
      idescValue = i32(static_cast<int32_t>(idesc));
    NVVM::Tcgen05MMABlockScaleOp::create(
        b, loc, nvvmKind, ctaGroup(), blockScale,
        NVVM::Tcgen05MMACollectorOp::DISCARD, tmemPtr(accColumn), aDesc, bDesc,
        idescValue, i == 0 ? accumulate : always,
        tmemPtr(addC(scaleCol, p.aScaleColumnOf(atom))),
        tmemPtr(addC(scaleCol, p.bScaleColumnOf(atom))));
  }
}

gpu::GPUFuncOp Tcgen05KernelBuilder::build(gpu::GPUModuleOp module,
                                           StringRef name, TypeRange argTypes) {
  MLIRContext *ctx = b.getContext();
  Type i32T = b.getI32Type();
  auto smemPtrType = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));

  OpBuilder::InsertionGuard guard(b);
  // 1024-byte aligned: the 128-byte swizzle's atoms.
  declareDynamicSharedMemory(b, loc, module, kSmemSymbol,
                             tc::kSwizzleAtomBytes);
  gpu::GPUFuncOp kernel =
      createKernelFunc(b, loc, module, name, argTypes, p.threads());
  // One CTA per SM (it allocates all 512 tensor-memory columns and most of
  // the shared memory): `.minnctapersm 1` tells ptxas so, which otherwise
  // caps the registers for an occupancy the kernel cannot have and spills.
  kernel->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(1));
  // A CTA pair is a cluster of two CTAs along x (`.reqnctapercluster 2, 1,
  // 1`; the host launches it with `clusters in (2, 1, 1)`).
  if (p.ctaPair)
    kernel->setAttr(
        NVVM::NVVMDialect::getClusterDimAttrName(),
        b.getDenseI32ArrayAttr({static_cast<int32_t>(tc::kPairCtas), 1, 1}));
  Block &entry = kernel.front();
  b.setInsertionPointToStart(&entry);

  // The A and B data arguments are read through their tensor maps.
  auto operand = [&](unsigned index, OperandArg arg) {
    return entry.getArgument(operandArg(c, index, arg));
  };
  // The maps arrive by value; TMA takes their address. The address of a
  // stack copy here: nvfp4-grid-constant-kernel-params replaces it by the
  // address of the parameter itself (a byval grid-constant parameter, in
  // the parameter space, where TMA may read it).
  auto addressOfMap = [&](Value map) -> Value {
    Value slot = LLVM::AllocaOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), map.getType(),
        LLVM::ConstantOp::create(b, loc, b.getI32Type(), 1),
        static_cast<unsigned>(tc::kTensorMapObjectAlignment));
    LLVM::StoreOp::create(b, loc, map, slot, tc::kTensorMapObjectAlignment);
    return slot;
  };
  lhsTensorMap = addressOfMap(operand(0, kArgTensorMap));
  lhsScales = globalBase(operand(0, kArgScales));
  rhsTensorMap = addressOfMap(operand(1, kArgTensorMap));
  rhsScales = globalBase(operand(1, kArgScales));
  if (p.scaleStaging.lhs)
    lhsStagedScaleMap = addressOfMap(operand(0, kArgScaleTensorMap));
  if (p.scaleStaging.rhs)
    rhsStagedScaleMap = addressOfMap(operand(1, kArgScaleTensorMap));
  if (!c.isMX()) {
    lhsAmax = operand(0, kArgAmax);
    rhsAmax = operand(1, kArgAmax);
  }
  unsigned arg = firstArgAfterOperands(c);
  if (c.hasAcc)
    accPtr = globalBase(entry.getArgument(arg++));
  if (c.nvfp4Output) {
    outAmax = entry.getArgument(arg++);
    if (c.nvfp4Output->stochastic)
      outSeed = entry.getArgument(arg++);
    outPtr = globalBase(entry.getArgument(arg++));
    outScalesPtr = globalBase(entry.getArgument(arg++));
  } else {
    outPtr = globalBase(entry.getArgument(arg++));
  }
  if (c.computesAmax)
    resultAmaxPtr = globalBase(entry.getArgument(arg++));

  auto toI32 = [&](Value index) {
    return arith::IndexCastUIOp::create(b, loc, i32T, index).getResult();
  };
  tid = toI32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  if (p.ctaPair) {
    // The tile schedule is per cluster.
    cta = NVVM::ClusterIdXOp::create(b, loc, i32T);
    gridSize = NVVM::ClusterDimXOp::create(b, loc, i32T);
    rankInPair = NVVM::ClusterId::create(b, loc, i32T);
    isLeader =
        cmp(arith::CmpIPredicate::eq, rankInPair, i32(tc::kPairLeaderRank));
  } else {
    cta = toI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    gridSize = toI32(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  }
  warp = divC(tid, 32);
  laneId = arith::RemUIOp::create(b, loc, tid, i32(32));
  // M: a run-time M is the rows of A's data buffer; its tiles (unbatched),
  // ceil(M / 128) rows of nTiles, are shared out like the static ones.
  if (c.hasRunTimeM()) {
    mRows = toI32(memref::DimOp::create(b, loc, operand(0, kArgData), 0));
    IdxI32 numTiles = (idx(mRows) + (p.tileM - 1)) / p.tileM * c.nTiles();
    numLocalTiles =
        ((idx(gridSize) + numTiles + (-1) - idx(cta)) / idx(gridSize)).v;
  } else {
    mRows = i32(c.m);
    numLocalTiles = tc::tilesOfCta(idx(cta), idx(gridSize), c.numTiles()).v;
  }
  // K: a run-time K is the columns of A's data buffer (unbatched), at least
  // one K tile's worth (the host checks that it is positive).
  if (c.hasRunTimeK()) {
    Value k = toI32(memref::DimOp::create(b, loc, operand(0, kArgData), 1));
    kTileCount = divC(addC(k, c.tileK() - 1), c.tileK());
    scaleRowBytes = divC(k, c.blockCols());
  } else {
    kTileCount = i32(c.kTiles());
    scaleRowBytes = i32(c.k / c.blockCols());
  }

  // The dynamic shared memory, its base rounded up to 1024 bytes (the
  // 128-byte swizzle atoms, TMA's swizzle and descriptor base offset 0 need
  // it).
  Value raw = LLVM::AddressOfOp::create(b, loc, smemPtrType, kSmemSymbol);
  Value rawAddr = LLVM::PtrToIntOp::create(b, loc, i32T, raw);
  smemBaseAddr =
      arith::AndIOp::create(b, loc, addC(rawAddr, tc::kSwizzleAtomBytes - 1),
                            i32(~(tc::kSwizzleAtomBytes - 1)));
  smemBase = gep(raw, arith::SubIOp::create(b, loc, smemBaseAddr, rawAddr));

  // Setup: the mbarriers (thread 0) and the tensor-memory allocation (warp
  // 1, which also frees it). With a CTA pair both CTAs initialize their
  // barriers (the leader's full and accEmpty barriers count both CTAs'
  // arrivals) and their warps 1 allocate together (tcgen05.alloc.cta_group::2
  // is issued by one warp of each CTA of the pair); the cluster barrier then
  // makes the barriers initialized before the peer signals them.
  Value slot = smemPtr(i32(p.tmemSlotOffset));
  ifThen(cmp(arith::CmpIPredicate::eq, tid, i32(0)), [&] {
    auto init = [&](int64_t offset, int64_t count, int64_t arrivals) {
      for (int64_t i = 0; i < count; ++i)
        NVVM::MBarrierInitOp::create(
            b, loc, smemPtr(i32(offset + i * tc::kMbarrierBytes)),
            i32(arrivals), /*predicate=*/Value());
    };
    init(p.fullBarrierOffset, p.stages, p.fullBarrierArrivals);
    init(p.emptyBarrierOffset, p.stages, tc::kEmptyBarrierArrivals);
    init(p.accFullBarrierOffset, p.accBarrierStages,
         tc::kAccFullBarrierArrivals);
    init(p.accEmptyBarrierOffset, p.accBarrierStages,
         p.accEmptyBarrierArrivals);
    // Both CTAs alike; only the peer's are used.
    if (p.ctaPair && (c.lhsScaleAtoms || c.rhsScaleAtoms))
      init(p.scaleFullBarrierOffset, p.stages, tc::kScaleFullBarrierArrivals);
    if (p.scaleStaging.any())
      init(p.scaleStagedBarrierOffset, p.stages,
           tc::kScaleStagedBarrierArrivals);
    NVVM::FenceMbarrierInitOp::create(b, loc);
  });
  Value nCols = i32(p.tmemColumns);
  Value isMmaWarp = cmp(arith::CmpIPredicate::eq, warp, i32(tc::kMmaWarp));
  ifThen(isMmaWarp, [&] {
    NVVM::Tcgen05AllocOp::create(b, loc, slot, nCols, ctaGroup());
    NVVM::Tcgen05RelinquishAllocPermitOp::create(b, loc, ctaGroup());
  });
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  emitCtaOrClusterBarrier();
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  tmemBase = LLVM::LoadOp::create(b, loc, i32T, slot, 4);

  // The roles.
  ifThen(cmp(arith::CmpIPredicate::eq, warp, i32(tc::kProducerWarp)),
         [&] { emitProducer(); });
  // With a CTA pair only the leader's MMA thread issues tcgen05 work.
  ifThen(p.ctaPair
             ? arith::AndIOp::create(b, loc, isMmaWarp, isLeader).getResult()
             : isMmaWarp,
         [&] {
           Value elected =
               NVVM::ElectSyncOp::create(b, loc, b.getI1Type(), Value());
           ifThen(elected, [&] { emitMmaIssuer(); });
         });
  // The epilogue warps are the last but for the scale warp.
  Value isEpilogueWarp =
      cmp(arith::CmpIPredicate::uge, warp, i32(tc::kFirstEpilogueWarp));
  if (p.scaleStaging.any()) {
    Value isScaleWarp =
        cmp(arith::CmpIPredicate::eq, warp, i32(tc::kScaleWarp));
    isEpilogueWarp = arith::AndIOp::create(
        b, loc, isEpilogueWarp,
        arith::XOrIOp::create(b, loc, isScaleWarp, boolean(true)));
    ifThen(isScaleWarp, [&] { emitScaleWarp(); });
  }
  ifThen(isEpilogueWarp, [&] { emitEpilogue(); });

  // Teardown: every tcgen05.ld has completed (tcgen05.wait::ld) before the
  // barrier; warp 1 frees the tensor memory. With a CTA pair the cluster
  // barrier keeps each CTA alive until its peer is done with it: the
  // leader's MMAs read the peer's shared memory and write its tensor
  // memory, the peer's producer and epilogue arrive on the leader's
  // barriers (the ISA's pattern before tcgen05.dealloc.cta_group::2).
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  emitCtaOrClusterBarrier();
  ifThen(isMmaWarp, [&] {
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    NVVM::Tcgen05DeallocOp::create(b, loc, tmemPtr(tmemBase), nCols,
                                   ctaGroup());
  });
  gpu::ReturnOp::create(b, loc);
  return kernel;
}
