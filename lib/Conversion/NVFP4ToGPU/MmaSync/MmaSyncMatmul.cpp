//===- MmaSyncMatmul.cpp - The mma.sync matmul kernels --------------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Builds the matmul kernels on `mma.sync`: the cp.async staging pipeline,
// the K loop and the epilogue around the K step, block-scaled on sm_120a /
// sm_121a (MmaSyncBlockScaled.cpp) or, for sm_90a, bf16 m16n8k16 on
// operands dequantized in registers (MmaSyncDequantize.cpp). The fragment,
// staging and epilogue index mathematics live in MmaLayout.h, shared with
// the unit tests that emulate the instruction lane by lane. docs/gpu.md
// describes the design.
//
//===----------------------------------------------------------------------===//

#include "MmaSyncKernelBuilder.h"

#include "BlockQuantizeIR.h"
#include "KernelIR.h"

#include "nvfp4/Dialect/NVFP4/Utils/TensorScaleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::nvfp4;
using namespace mlir::nvfp4::detail;
namespace layout = ::nvfp4::gpu;

Value MmaSyncKernelBuilder::globalBasePointer(Value memref) {
  return mlir::nvfp4::detail::createGlobalBasePointer(b, loc, memref);
}

Value MmaSyncKernelBuilder::byteAddress(Value base, IndexExpr byteOffset) {
  return mlir::nvfp4::detail::createByteAddress(b, loc, base, byteOffset.v);
}

Value MmaSyncKernelBuilder::sharedAddress(Value base, IndexExpr byteOffset) {
  auto sharedPtrType = LLVM::LLVMPointerType::get(
      b.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  Value offset =
      arith::IndexCastUIOp::create(b, loc, b.getI64Type(), byteOffset.v);
  return LLVM::GEPOp::create(b, loc, sharedPtrType, b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{offset},
                             LLVM::GEPNoWrapFlags::inbounds);
}

gpu::GPUFuncOp MmaSyncKernelBuilder::build(gpu::GPUModuleOp module,
                                           StringRef name, TypeRange argTypes) {
  using namespace layout;
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  const layout::TileShape &tile = c.tile;
  assert(tile.mmasN() % 2 == 0 && "B fragments load two MMA columns at once");

  OpBuilder::InsertionGuard guard(b);
  declareDynamicSharedMemory(b, loc, module, kMmaSyncSmemSymbol, kVectorBytes);
  gpu::GPUFuncOp kernel =
      createKernelFunc(b, loc, module, name, argTypes, tile.threads());
  // On sm_120a / sm_121a shared memory bounds the CTAs an SM holds (1 or
  // 2): `.minnctapersm` tells ptxas so. Otherwise it caps the registers of
  // the 4-warp tiles at 96, for an occupancy they cannot have, and spills.
  if (hasBlockScaledMma(target))
    kernel->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    b.getI32IntegerAttr(static_cast<int32_t>(
                        residentCtasByShared(c.sharedBytes()))));
  Block &entry = kernel.front();

  // tile.stages pipeline slots of the A and B tiles, then the scale slots
  // of A and of B, in dynamic shared memory (c.sharedBytes(), more than the
  // 48 KiB of static shared memory), each slot a multiple of 16 bytes
  // (cp.async and ldmatrix need 16-byte alignment).
  const ScaleStaging &lhsStaging = c.lhsScaleStaging;
  const ScaleStaging &rhsStaging = c.rhsScaleStaging;
  auto sharedPtrType = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  Value smemAPtr =
      LLVM::AddressOfOp::create(b, loc, sharedPtrType, kMmaSyncSmemSymbol);
  Value smemBPtr =
      sharedAddress(smemAPtr, idx(tile.stages * tile.aStageBytes()));
  // The scale region: A's and B's scale slots (ScaleSlotLayout), from
  // slot 0 of each operand on.
  const ScaleSlotLayout scaleSlots =
      ScaleSlotLayout::of(tile, lhsStaging, rhsStaging);
  Value smemScaleRegion = sharedAddress(
      smemAPtr, idx(tile.stages * (tile.aStageBytes() + tile.bStageBytes())));
  Value smemLhsScalePtr =
      sharedAddress(smemScaleRegion, idx(scaleSlots.lhsBase));
  Value smemRhsScalePtr =
      sharedAddress(smemScaleRegion, idx(scaleSlots.rhsBase));
  const int64_t lhsSlotRows = scaleSlots.lhsRows;
  const int64_t rhsSlotRows = scaleSlots.rhsRows;

  // Arguments: lhs data, lhs scales, lhs amax, rhs data, rhs scales, rhs
  // amax, [acc], result; MX operands have no amax.
  const unsigned perOperand = c.isMX() ? 2 : 3;
  Value lhsData = entry.getArgument(0), lhsScales = entry.getArgument(1);
  Value rhsData = entry.getArgument(perOperand);
  Value rhsScales = entry.getArgument(perOperand + 1);
  Value lhsAmax = c.isMX() ? Value() : entry.getArgument(2);
  Value rhsAmax = c.isMX() ? Value() : entry.getArgument(5);
  Value acc = c.hasAcc ? entry.getArgument(2 * perOperand) : Value();
  Value result = entry.getArgument(argTypes.size() - 1);

  IndexExpr tid = idx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  IndexExpr tileN = idx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  IndexExpr tileM = idx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  // Unbatched kernels run one z block; their batch offsets fold to 0.
  IndexExpr batch =
      c.batch ? idx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::z)) : idx(0);
  IndexExpr lane = tid % kWarpSize, warp = tid / kWarpSize;
  IndexExpr g = laneGroup(lane), q = laneInGroup(lane);

  // Byte strides. Scales are compact: one row per `blockRows` data rows,
  // one byte per 16 (NVFP4) or 32 (MX) codes. A K step is kTileRowBytes
  // (64) bytes of a row: 128 E2M1 codes or 64 8-bit ones.
  // K: the kernel's constant, or, in the kernel of run-time K, the columns
  // of A's data buffer (the host checked B's against it).
  IndexExpr kSize =
      c.hasRunTimeK()
          ? idx(memref::DimOp::create(b, loc, lhsData, c.batch ? 2 : 1)
                    .getResult())
          : idx(c.k);
  IndexExpr rowBytes = kSize * c.elementBits() / 8;
  IndexExpr scaleRowBytes = kSize / c.blockCols();
  const int64_t stepK = c.stepK();
  // M: the kernel's constant, or, in the kernel of run-time M, the rows
  // of A's data buffer (its descriptor's size), which bound the grid's last
  // CTA tile like a static residue.
  IndexExpr mRows =
      c.hasRunTimeM()
          ? idx(memref::DimOp::create(b, loc, lhsData, c.batch ? 1 : 0)
                    .getResult())
          : idx(c.m);
  // An empty run-time M: the kernel does nothing (A has no byte to read,
  // not even for the clamped source of a predicated-off copy). M is the
  // same for every thread, so the barriers inside stay uniform.
  scf::IfOp nonEmpty;
  if (c.hasRunTimeM()) {
    nonEmpty = scf::IfOp::create(b, loc,
                                 arith::CmpIOp::create(b, loc,
                                                       arith::CmpIPredicate::ne,
                                                       mRows.v, idx(0).v),
                                 /*withElseRegion=*/false);
    b.setInsertionPoint(nonEmpty.thenBlock()->getTerminator());
  }
  const int64_t rhsScaleRows = c.n / c.rhsBlockRows;
  IndexExpr lhsScaleBase =
      c.batch ? batch * (mRows / c.lhsBlockRows) * scaleRowBytes : idx(0);
  IndexExpr rhsScaleBase = batch * (scaleRowBytes * rhsScaleRows);
  Value lhsDataPtr = globalBasePointer(lhsData);
  Value rhsDataPtr = globalBasePointer(rhsData);
  Value lhsScalePtr = globalBasePointer(lhsScales);
  Value rhsScalePtr = globalBasePointer(rhsScales);

  // One cp.async of `bytes` (16: .cg, bypassing L1; 8 and 4: .ca). With
  // `valid` (rows past M or N), an invalid copy reads nothing (src-size 0)
  // and zero-fills its destination: zero codes and zero scales contribute
  // exact zeros to the MMA.
  auto copyAsync = [&](Value dst, Value src, int64_t bytes,
                       Value valid = Value()) {
    Value srcSize;
    if (valid) {
      Value full = i32Const(bytes), none = i32Const(0);
      srcSize = arith::SelectOp::create(b, loc, valid, full, none);
    }
    NVVM::CpAsyncOp::create(b, loc, dst, src, b.getI32IntegerAttr(bytes),
                            NVVM::LoadCacheModifierKindAttr::get(
                                ctx, bytes == 16
                                         ? NVVM::LoadCacheModifierKind::CG
                                         : NVVM::LoadCacheModifierKind::CA),
                            srcSize);
  };
  // Rows of A (B) past M (N) in the last CTA tile of a shape that is not a
  // multiple of the tile: their copies are predicated off and their
  // results not stored. `rowIn(row, limit)` is the check; `clampRow` keeps
  // the (unread) source address inside the operand.
  const bool mResidue = c.hasRunTimeM() || c.m % tile.m != 0;
  const bool nResidue = c.n % tile.n != 0;
  auto rowIn = [&](IndexExpr row, IndexExpr limit) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row.v,
                                 limit.v);
  };
  // The source row of an invalid copy: the operand's last row.
  auto clampRow = [&](IndexExpr row, Value valid, IndexExpr limit) {
    return idx(arith::SelectOp::create(b, loc, valid, row.v, (limit + (-1)).v));
  };
  // Runs `body(job)` for the copy jobs `stageJob(jobThread, i)` < count of
  // this thread (jobThread: its index, or rotatedThread for B's scale
  // rows); the last one is guarded when count is not a multiple of the
  // thread count.
  auto forEachJob = [&](int64_t count, llvm::function_ref<void(IndexExpr)> body,
                        IndexExpr jobThread) {
    for (int64_t i = 0, e = stageCopiesPerThread(count, tile); i < e; ++i) {
      IndexExpr job = stageJob(jobThread, i, tile);
      if ((i + 1) * tile.threads() <= count) {
        body(job);
        continue;
      }
      Value inRange = rowIn(job, idx(count));
      auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard ifGuard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      body(job);
    }
  };
  // K need only be a multiple of 16: the last K step of a K that is not a
  // multiple of kTileK is padded with zero codes and zero scales, which add
  // exact zeros. Rows of K / 2 bytes are 16-byte aligned when K % 32 == 0;
  // otherwise they are copied in 8-byte halves. The scales of a row and K
  // step are one copy (8 bytes NVFP4, 4 MXFP4) when K is a multiple of the
  // step (or a group of steps, ScaleStaging); otherwise, and for MXFP8's 2
  // bytes a step in rows of K / 32 bytes not a multiple of 4, they are
  // loaded byte by byte, packed into words and stored to shared memory.
  // A run-time K is any multiple of 16 (NVFP4) or 32 (MX): its last step
  // may be partial, and NVFP4 rows (K / 2 bytes) are copied in 8-byte
  // halves.
  const bool kResidue = c.hasRunTimeK() || c.k % stepK != 0;
  const int64_t copyBytes = c.hasRunTimeK()
                                ? (c.isMX() ? kVectorBytes : kVectorBytes / 2)
                                : stageCopyBytes(c.k * c.elementBits() / 8);
  const int64_t copiesPerRow = kTileRowBytes / copyBytes;
  auto both = [&](Value x, Value y) -> Value {
    if (!x || !y)
      return x ? x : y;
    return arith::AndIOp::create(b, loc, x, y);
  };
  // The K loop runs `unroll` steps per iteration, a multiple of every
  // operand's scale group (numSteps is a multiple of it: grouped staging
  // needs whole 16-byte rows of scales), so a step's place in its group,
  // its `phase` kt % unroll, is known when the kernel is built: which steps
  // copy scales and where a step's scales sit in the slot row are
  // constants, with no branch in the loop.
  const int64_t unroll = std::max(lhsStaging.groupSteps, rhsStaging.groupSteps);
  // Copies the scale rows of A (`lhs`) or B for K step `kt` (of phase
  // `phase`) into its scale slot: one copy per slot row (a tile row, or a
  // compact row of 16x16 blocks) and step (8 bytes NVFP4, 4 MXFP4) or, with
  // grouped staging, one 16-, 8- or 4-byte copy per row for the group kt
  // starts (none for the group's other steps). Without whole copies of 4
  // bytes or more (K not a multiple of the step, MXFP8's 2 bytes a step
  // ungrouped) the bytes are loaded one by one, packed into words and
  // stored; bytes past the row's end (or of rows past M or N) are zero,
  // loaded from the row's start.
  const int64_t stepScaleBytes = stepK / c.blockCols();
  auto copyScaleRows = [&](bool lhs, IndexExpr kt, IndexExpr slot,
                           int64_t phase) {
    const ScaleStaging &staging = lhs ? lhsStaging : rhsStaging;
    if (!issuesScales(phase, staging))
      return;
    // M and N are multiples of the 16 rows of a 16x16 block, so a slot
    // row is past the operand's scale rows exactly when its tile rows are
    // past M or N.
    const int64_t rows = lhs ? lhsSlotRows : rhsSlotRows;
    IndexExpr limit =
        lhs ? mRows / staging.blockRows : idx(staging.stagedRows(c.n));
    const bool residue = lhs ? mResidue : nResidue;
    IndexExpr tileRow0 = (lhs ? tileM : tileN) * rows;
    IndexExpr scaleBase = lhs ? lhsScaleBase : rhsScaleBase;
    Value scalePtr = lhs ? lhsScalePtr : rhsScalePtr;
    Value smemScalePtr = lhs ? smemLhsScalePtr : smemRhsScalePtr;
    IndexExpr kScaleByte = kt * stepScaleBytes;
    forEachJob(
        rows,
        [&](IndexExpr r) {
          IndexExpr row = tileRow0 + r;
          Value rowValid;
          if (residue) {
            rowValid = rowIn(row, limit);
            row = clampRow(row, rowValid, limit);
          }
          IndexExpr rowByte = scaleBase + row * scaleRowBytes;
          IndexExpr dstByte = slot * (lhs ? scaleSlots.lhsSlotStride
                                          : scaleSlots.rhsSlotStride) +
                              r * staging.rowBytes();
          if (!kResidue && staging.copyBytes() >= 4) {
            copyAsync(sharedAddress(smemScalePtr, dstByte),
                      byteAddress(scalePtr, rowByte + kScaleByte),
                      staging.copyBytes(), rowValid);
            return;
          }
          Type i32 = b.getI32Type();
          for (int64_t w = 0; w * 4 < stepScaleBytes; ++w) {
            Value word = i32Const(0);
            for (int64_t i = 4 * w;
                 i < std::min<int64_t>(stepScaleBytes, 4 * w + 4); ++i) {
              IndexExpr col = kScaleByte + i;
              Value colValid = rowIn(col, scaleRowBytes);
              col = idx(
                  arith::SelectOp::create(b, loc, colValid, col.v, idx(0).v));
              Value byte = arith::ExtUIOp::create(
                  b, loc, i32,
                  load(b.getI8Type(), byteAddress(scalePtr, rowByte + col), 1));
              Value inside = both(colValid, rowValid);
              byte = arith::SelectOp::create(b, loc, inside, byte, i32Const(0));
              if (i % 4 > 0)
                byte =
                    arith::ShLIOp::create(b, loc, byte, i32Const(8 * (i % 4)));
              word = arith::OrIOp::create(b, loc, word, byte);
            }
            LLVM::StoreOp::create(b, loc, word,
                                  sharedAddress(smemScalePtr, dstByte + 4 * w),
                                  /*alignment=*/4);
          }
        },
        lhs ? tid : rotatedThread(tid, lhsSlotRows, tile));
  };
  // With whole steps of scales in shared slots (ScaleSlotLayout), A's and
  // B's rows of a slot are one job list: A's rows, then B's, one cp.async
  // each to consecutive slot rows, its source selected by operand. So the
  // step needs one guard (the last job of a thread) where two lists would
  // each need one: with more threads than A's rows, a second guarded branch
  // made ptxas spill in the 128x256 tile.
  const bool copiesScalesJointly =
      scaleSlots.sharesSlots && !kResidue && lhsStaging.copyBytes() >= 4;
  auto copyJointScaleRows = [&](IndexExpr kt, IndexExpr slot) {
    const int64_t slotRowBytes = scaleSlots.lhsRowBytes;
    Value slotBase =
        sharedAddress(smemLhsScalePtr, slot * scaleSlots.lhsSlotStride);
    IndexExpr kScaleByte = kt * stepScaleBytes;
    auto pick = [&](Value isLhs, auto lhsValue, auto rhsValue) {
      return arith::SelectOp::create(b, loc, isLhs, lhsValue, rhsValue)
          .getResult();
    };
    forEachJob(
        lhsSlotRows + rhsSlotRows,
        [&](IndexExpr job) {
          Value isLhs = rowIn(job, idx(lhsSlotRows));
          IndexExpr r = idx(pick(isLhs, job.v, (job + (-lhsSlotRows)).v));
          IndexExpr row = idx(pick(isLhs, (tileM * lhsSlotRows).v,
                                   (tileN * rhsSlotRows).v)) +
                          r;
          Value rowValid;
          if (mResidue || nResidue) {
            IndexExpr limit = idx(pick(isLhs, (mRows / lhsStaging.blockRows).v,
                                       idx(rhsStaging.stagedRows(c.n)).v));
            rowValid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             row.v, limit.v);
            row = idx(arith::SelectOp::create(b, loc, rowValid, row.v,
                                              (limit + (-1)).v));
          }
          IndexExpr scaleBase =
              idx(pick(isLhs, lhsScaleBase.v, rhsScaleBase.v));
          Value scalePtr = pick(isLhs, lhsScalePtr, rhsScalePtr);
          copyAsync(sharedAddress(slotBase, job * slotRowBytes),
                    byteAddress(scalePtr,
                                scaleBase + row * scaleRowBytes + kScaleByte),
                    lhsStaging.copyBytes(), rowValid);
        },
        tid);
  };
  // A K step's pipeline slot (stageSlot) and A's and B's scale slots
  // (scaleSlot).
  struct StepSlots {
    IndexExpr stage, lhsScale, rhsScale;
  };
  // Issues the copies of K step `kt` (of phase `phase`) into its pipeline
  // and scale slots.
  auto issueStep = [&](IndexExpr kt, const StepSlots &slots, int64_t phase) {
    IndexExpr slot = slots.stage;
    IndexExpr kByte = kt * kTileRowBytes;
    // The rows [tileRow, tileRow + rows) of an operand of `limit` rows.
    auto copyRows = [&](int64_t rows, Value srcBase, IndexExpr tileRow,
                        IndexExpr limit, bool residue, Value dstBase) {
      forEachJob(
          rows * copiesPerRow,
          [&](IndexExpr v) {
            IndexExpr row = stageRow(v, copiesPerRow);
            IndexExpr srcRow = tileRow + row;
            IndexExpr byteInRow =
                kByte + stageVector(v, copiesPerRow) * copyBytes;
            Value rowValid, kValid;
            if (residue) {
              rowValid = rowIn(srcRow, limit);
              srcRow = clampRow(srcRow, rowValid, limit);
            }
            if (kResidue) {
              // Past the row's end: read nothing, from the row's start.
              kValid = rowIn(byteInRow, rowBytes);
              byteInRow = idx(arith::SelectOp::create(b, loc, kValid,
                                                      byteInRow.v, idx(0).v));
            }
            Value src = byteAddress(
                srcBase, (batch * limit + srcRow) * rowBytes + byteInRow);
            Value dst = sharedAddress(
                dstBase, slot * (rows * kTileRowBytes) + row * kTileRowBytes +
                             swizzleWord(row, stageWord(v, copiesPerRow)) * 4);
            copyAsync(dst, src, copyBytes, both(rowValid, kValid));
          },
          tid);
    };
    copyRows(tile.m, lhsDataPtr, tileM * tile.m, mRows, mResidue, smemAPtr);
    copyRows(tile.n, rhsDataPtr, tileN * tile.n, idx(c.n), nResidue, smemBPtr);
    if (copiesScalesJointly) {
      if (issuesScales(phase, lhsStaging))
        copyJointScaleRows(kt, slots.lhsScale);
      return;
    }
    copyScaleRows(/*lhs=*/true, kt, slots.lhsScale, phase);
    copyScaleRows(/*lhs=*/false, kt, slots.rhsScale, phase);
  };

  IndexExpr warpRow = warpRowBase(warp, tile);
  IndexExpr warpCol = warpColBase(warp, tile);

  // Prologue: steps 0 .. stages - 2, one commit group each.
  // The K steps: a constant, or ceil(K / stepK) at run time (a run-time K
  // runs ungrouped scales, unroll 1).
  const std::optional<int64_t> staticSteps =
      c.hasRunTimeK() ? std::nullopt
                      : std::optional<int64_t>((c.k + stepK - 1) / stepK);
  IndexExpr numSteps =
      staticSteps ? idx(*staticSteps) : (kSize + (stepK - 1)) / stepK;
  for (int64_t s = 0; s < tile.stages - 1; ++s) {
    auto issuePrologueStep = [&] {
      issueStep(idx(s),
                {idx(stageSlot(s, tile)), idx(scaleSlot(s, tile, lhsStaging)),
                 idx(scaleSlot(s, tile, rhsStaging))},
                s % unroll);
    };
    if (!staticSteps) {
      auto ifOp = scf::IfOp::create(b, loc, rowIn(idx(s), numSteps),
                                    /*withElseRegion=*/false);
      OpBuilder::InsertionGuard ifGuard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      issuePrologueStep();
    } else if (s < *staticSteps) {
      issuePrologueStep();
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }

  // The K loop; the accumulators are loop-carried.
  const int64_t numAcc = tile.accumulators();
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<Value> init(numAcc, zero);
  assert((staticSteps ? *staticSteps % unroll == 0 : unroll == 1) &&
         "scale groups need whole 16-byte rows");
  // The lane's scale words of A's and B's current groups (the block-scaled
  // step's packed registers, laneScaleRows).
  SmallVector<SmallVector<Value, 4>> lhsScaleGroup, rhsScaleGroup;
  // One K step of phase `phase`: wait, prefetch, MMAs; returns the new
  // accumulators.
  auto emitStep = [&](IndexExpr kt, const StepSlots &slots,
                      const StepSlots &nextSlots, int64_t phase,
                      ValueRange stepAcc) -> SmallVector<Value> {
    // Step kt has landed (this thread's copies, then everyone's), and every
    // warp is done with the slot of step kt - 1.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, waitPendingGroups(tile));
    gpu::BarrierOp::create(b, loc);
    // Prefetch step kt + stages - 1 into that slot.
    IndexExpr next = prefetchStep(kt, tile);
    Value hasNext = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          next.v, numSteps.v);
    {
      auto ifOp = scf::IfOp::create(b, loc, hasNext, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard ifGuard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      issueStep(next, nextSlots, prefetchStep(phase, tile) % unroll);
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);

    // The byte of the step's scale slot of A (`lhs`) or B in its scale
    // region, and the address of the step's scales in the slot's row 0.
    auto scaleSlotByte = [&](bool lhs) {
      return (lhs ? slots.lhsScale : slots.rhsScale) *
             (lhs ? scaleSlots.lhsSlotStride : scaleSlots.rhsSlotStride);
    };
    auto stepScales = [&](bool lhs) {
      return sharedAddress(
          lhs ? smemLhsScalePtr : smemRhsScalePtr,
          scaleSlotByte(lhs) +
              scaleByteInRow(phase, lhs ? lhsStaging : rhsStaging));
    };
    // The block-scaled step's scales: the group's first step loads the
    // words of the group of each of the lane's packed scale registers (one
    // slot row each, 16 bytes for a group of 16), held for the group's
    // other steps. A register's rows are 32 consecutive tile rows, one per
    // lane, or the compact rows of its blocks (broadcasts).
    if (hasBlockScaledMma(target)) {
      auto loadGroups = [&](bool lhs) {
        const ScaleStaging &staging = lhs ? lhsStaging : rhsStaging;
        SmallVector<SmallVector<Value, 4>> &group =
            lhs ? lhsScaleGroup : rhsScaleGroup;
        if (!issuesScales(phase, staging))
          return;
        Value slotBase = sharedAddress(lhs ? smemLhsScalePtr : smemRhsScalePtr,
                                       scaleSlotByte(lhs));
        group.clear();
        for (IndexExpr row :
             laneScaleRows(lhs, lhs ? warpRow : warpCol, g, q).rows)
          group.push_back(loadScaleGroup(lhs, slotBase, row));
      };
      loadGroups(/*lhs=*/true);
      loadGroups(/*lhs=*/false);
    }
    StepOperands step{smemAPtr,
                      smemBPtr,
                      stepScales(/*lhs=*/true),
                      stepScales(/*lhs=*/false),
                      warpRow,
                      warpCol,
                      lane,
                      g,
                      q,
                      slots.stage,
                      phase,
                      lhsScaleGroup,
                      rhsScaleGroup,
                      stepAcc};
    return hasBlockScaledMma(target) ? emitBlockScaledStep(step)
                                     : emitDequantizedStep(step);
  };
  // A K step's slots repeat with the step: stage slot kt mod stages, scale
  // slot (kt / groupSteps) mod slots. A remainder by a power of two is a
  // mask; one by 3 (3 stages; 4 stages' 3 scale slots) cost ~10 SASS
  // instructions an iteration, so those sequences are loop-carried: the
  // slot of the iteration's first step, which step first + d advances by
  // d / groupSteps slots (first is a multiple of every groupSteps) with one
  // wrap. Each distinct sequence (groupSteps, count) is carried once.
  using SlotSequence = std::pair<int64_t, int64_t>; // (groupSteps, count)
  SmallVector<SlotSequence> carriedSequences;
  auto carriedIndex = [&](int64_t groupSteps, int64_t count) {
    return llvm::find(carriedSequences, SlotSequence(groupSteps, count)) -
           carriedSequences.begin();
  };
  for (auto [groupSteps, count] :
       {SlotSequence(1, tile.stages),
        SlotSequence(lhsStaging.groupSteps, lhsStaging.slots(tile)),
        SlotSequence(rhsStaging.groupSteps, rhsStaging.slots(tile))})
    if (!llvm::isPowerOf2_64(count) &&
        carriedIndex(groupSteps, count) ==
            static_cast<int64_t>(carriedSequences.size()))
      carriedSequences.push_back({groupSteps, count});
  SmallVector<Value> loopInit(init);
  for (size_t i = 0; i < carriedSequences.size(); ++i)
    loopInit.push_back(idx(0).v); // The slots of step 0.
  auto loop =
      scf::ForOp::create(b, loc, idx(0).v, numSteps.v, idx(unroll).v, loopInit);
  {
    OpBuilder::InsertionGuard loopGuard(b);
    b.setInsertionPointToStart(loop.getBody());
    IndexExpr first = idx(loop.getInductionVar());
    ValueRange carried = loop.getRegionIterArgs();
    // Carried slot `slot` advanced by `by` slots modulo `count`.
    auto advance = [&](Value slot, int64_t by, int64_t count) {
      by %= count;
      if (by == 0)
        return idx(slot);
      IndexExpr next = idx(slot) + by;
      Value wraps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                          next.v, idx(count).v);
      return idx(
          arith::SelectOp::create(b, loc, wraps, (next + (-count)).v, next.v));
    };
    // The slot of step first + d in sequence (groupSteps, count): `direct`
    // of the step, or the carried slot advanced.
    auto slotAt = [&](int64_t d, int64_t groupSteps, int64_t count,
                      auto direct) -> IndexExpr {
      const int64_t i = carriedIndex(groupSteps, count);
      if (i == static_cast<int64_t>(carriedSequences.size()))
        return direct(first + d);
      return advance(carried[numAcc + i], d / groupSteps, count);
    };
    auto slotsAt = [&](int64_t d) -> StepSlots {
      return {
          slotAt(d, 1, tile.stages,
                 [&](IndexExpr kt) { return stageSlot(kt, tile); }),
          slotAt(d, lhsStaging.groupSteps, lhsStaging.slots(tile),
                 [&](IndexExpr kt) { return scaleSlot(kt, tile, lhsStaging); }),
          slotAt(
              d, rhsStaging.groupSteps, rhsStaging.slots(tile),
              [&](IndexExpr kt) { return scaleSlot(kt, tile, rhsStaging); })};
    };
    SmallVector<Value> accs(carried.take_front(numAcc));
    for (int64_t phase = 0; phase < unroll; ++phase) {
      // In this order: the IR's order does not depend on the compiler's
      // order of evaluating arguments.
      IndexExpr kt = first + phase;
      StepSlots slots = slotsAt(phase);
      StepSlots nextSlots = slotsAt(prefetchStep(phase, tile));
      accs = emitStep(kt, slots, nextSlots, phase, accs);
    }
    // The next iteration's first slots.
    for (auto [i, sequence] : llvm::enumerate(carriedSequences))
      accs.push_back(
          advance(carried[numAcc + i], unroll / sequence.first, sequence.second)
              .v);
    scf::YieldOp::create(b, loc, accs);
  }
  // Only empty groups can be pending here; drain them anyway.
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);

  // Epilogue: scale by the GEMM's alpha (NVFP4; MX has none), add acc,
  // store.
  Value alpha = c.isMX() ? Value()
                         : createMatmulAlpha(b, loc, lhsAmax, c.lhsTensorScale,
                                             rhsAmax, c.rhsTensorScale);
  Type resultType = c.resultElementType;
  // Registers r and r + 1 hold columns 2q and 2q + 1 of one row. With N
  // even, that pair is one 2-element store (8 bytes for f32: a quad of
  // lanes writes 32 contiguous bytes, a whole sector) and one acc load,
  // aligned to the pair (the buffers are 16-byte aligned, 2q and N even),
  // and col < N implies col + 1 < N. With N odd, element by element.
  const int64_t perStore = c.n % 2 == 0 ? 2 : 1;
  Value resultBase = perStore == 2 ? globalBasePointer(result) : Value();
  Value accBase = perStore == 2 && acc ? globalBasePointer(acc) : Value();
  for (int64_t i = 0; i < tile.mmasM(); ++i) {
    for (int64_t j = 0; j < tile.mmasN(); ++j) {
      for (int r = 0; r < kMmaCRegs; r += perStore) {
        IndexExpr row = tileM * tile.m + warpRow + i * kMmaM + cFragRow(g, r);
        IndexExpr col = tileN * tile.n + warpCol + j * kMmaN + cFragCol(q, r);
        // Results past M or N are not stored.
        std::optional<OpBuilder::InsertionGuard> storeGuard;
        if (mResidue || nResidue) {
          Value inBounds;
          if (mResidue)
            inBounds = rowIn(row, mRows);
          if (nResidue) {
            Value colIn = rowIn(col, idx(c.n));
            inBounds = inBounds ? arith::AndIOp::create(b, loc, inBounds, colIn)
                                : colIn;
          }
          auto ifOp =
              scf::IfOp::create(b, loc, inBounds, /*withElseRegion=*/false);
          storeGuard.emplace(b);
          b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        }
        SmallVector<Value, 3> indices;
        if (c.batch)
          indices.push_back(batch.v);
        indices.append({row.v, col.v});
        // Element (row, col) of the [batch][M][N] buffers.
        IndexExpr element = (c.batch ? batch * mRows + row : row) * c.n + col;
        SmallVector<Value, 2> values;
        for (int64_t e = 0; e < perStore; ++e) {
          Value v = loop.getResult((i * tile.mmasN() + j) * kMmaCRegs + r + e);
          values.push_back(alpha ? arith::MulFOp::create(b, loc, v, alpha) : v);
        }
        if (acc) {
          SmallVector<Value, 2> prevs;
          if (perStore == 1) {
            prevs.push_back(memref::LoadOp::create(b, loc, acc, indices));
          } else {
            Type accType = cast<MemRefType>(acc.getType()).getElementType();
            int64_t accBytes = accType.getIntOrFloatBitWidth() / 8;
            Value pair = LLVM::LoadOp::create(
                b, loc, VectorType::get({2}, accType),
                byteAddress(accBase, element * accBytes), 2 * accBytes);
            for (int64_t e = 0; e < 2; ++e)
              prevs.push_back(
                  LLVM::ExtractElementOp::create(b, loc, pair, i32Const(e)));
          }
          for (int64_t e = 0; e < perStore; ++e) {
            Value prev = prevs[e];
            if (prev.getType() != f32)
              prev = arith::ExtFOp::create(b, loc, f32, prev);
            values[e] = arith::AddFOp::create(b, loc, values[e], prev);
          }
        }
        if (resultType != f32)
          for (Value &v : values)
            v = arith::TruncFOp::create(b, loc, resultType, v);
        if (perStore == 1) {
          memref::StoreOp::create(b, loc, values[0], result, indices);
          continue;
        }
        int64_t resultBytes = resultType.getIntOrFloatBitWidth() / 8;
        auto pairType = VectorType::get({2}, resultType);
        Value pair = LLVM::PoisonOp::create(b, loc, pairType);
        for (int64_t e = 0; e < 2; ++e)
          pair = LLVM::InsertElementOp::create(b, loc, pair, values[e],
                                               i32Const(e));
        LLVM::StoreOp::create(b, loc, pair,
                              byteAddress(resultBase, element * resultBytes),
                              2 * resultBytes);
      }
    }
  }
  if (nonEmpty)
    b.setInsertionPointAfter(nonEmpty);
  gpu::ReturnOp::create(b, loc);
  return kernel;
}

gpu::GPUFuncOp mlir::nvfp4::detail::buildMmaSyncMatmulKernel(
    OpBuilder &b, Location loc, const MatmulConfig &config, GPUTarget target,
    gpu::GPUModuleOp module, StringRef name, TypeRange argTypes) {
  return MmaSyncKernelBuilder(b, loc, config, target)
      .build(module, name, argTypes);
}
