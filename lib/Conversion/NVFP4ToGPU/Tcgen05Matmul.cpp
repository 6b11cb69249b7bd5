//===- Tcgen05Matmul.cpp - NVFP4 matmul on tcgen05 tensor cores -----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Lowers `nvfp4.matmul` for sm_100a / sm_103a / sm_110a to a launch of a
// 1-CTA kernel built on
// `tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16`:
//
//  - CTA tile 128 x N x 256 (N = 256, 128 or 64, the largest dividing the
//    output width), 128 threads, two shared-memory stages;
//  - every thread copies its share of the A / B K tile from global memory
//    into the canonical K-major 128-byte-swizzled layout, and its rows' E4M3
//    scales into 128x4 atoms;
//  - thread 0 copies the atoms to tensor memory with
//    tcgen05.cp.32x128b.warpx4, issues the 4 MMAs of the K tile with
//    compiler-built shared-memory and instruction descriptors, and commits
//    them to the stage's mbarrier; the other stage is refilled meanwhile;
//  - the epilogue reads the accumulator with tcgen05.ld.32x32b.x16 (warp w
//    owns lanes 32w..32w+31 = rows), multiplies by the product of the decode
//    scales, adds `acc` and stores f32 or bf16.
//
// docs/tcgen05.md describes the design and its ptxas figures.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05Matmul.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05Descriptors.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::nvfp4;
namespace tc = ::nvfp4::gpu::tcgen05;

bool mlir::nvfp4::isTcgen05Target(GPUTarget target) {
  return target == GPUTarget::SM100a || target == GPUTarget::SM103a ||
         target == GPUTarget::SM110a;
}

namespace {
/// Everything the tcgen05 kernel is specialized on.
struct Tcgen05Config {
  int64_t batch = 0; // 0: unbatched
  int64_t m = 0, n = 0, k = 0;
  int64_t lhsBlockRows = 1, rhsBlockRows = 1;
  Type resultElementType;
  bool hasAcc = false;
  tc::TilePlan plan;

  static Tcgen05Config get(MatmulOp op) {
    auto lhs = cast<NVFP4TensorType>(op.getLhs().getType());
    auto rhs = cast<NVFP4TensorType>(op.getRhs().getType());
    ArrayRef<int64_t> lhsShape = lhs.getShape(), rhsShape = rhs.getShape();
    Tcgen05Config c;
    if (lhsShape.size() == 3)
      c.batch = lhsShape[0];
    c.m = lhsShape[lhsShape.size() - 2];
    c.k = lhsShape.back();
    c.n = rhsShape[rhsShape.size() - 2];
    c.lhsBlockRows = lhs.getBlock().getRows();
    c.rhsBlockRows = rhs.getBlock().getRows();
    c.resultElementType = op.getResult().getType().getElementType();
    c.hasAcc = static_cast<bool>(op.getAcc());
    c.plan = tc::makeTilePlan(tc::chooseTileN(c.n));
    return c;
  }

  /// e.g. `nvfp4_tcgen05_matmul_m128n256k1024_t256_1x16_16x16_f32`.
  std::string kernelName() const {
    std::string name;
    llvm::raw_string_ostream os(name);
    os << "nvfp4_tcgen05_matmul_";
    if (batch)
      os << "b" << batch;
    os << "m" << m << "n" << n << "k" << k << "_t" << plan.tileN << "_"
       << lhsBlockRows << "x16_" << rhsBlockRows << "x16_"
       << (resultElementType.isBF16() ? "bf16" : "f32");
    if (hasAcc)
      os << "_acc";
    return name;
  }
};
} // namespace

LogicalResult mlir::nvfp4::checkTcgen05MatmulSupported(MatmulOp op,
                                                       GPUTarget target) {
  if (!isTcgen05Target(target))
    return op.emitOpError() << "the tcgen05 kernel needs sm_100a, sm_103a or "
                               "sm_110a";
  Tcgen05Config c = Tcgen05Config::get(op);
  auto fail = [&]() {
    return op.emitOpError()
           << "is not supported by the tcgen05 kernel: M = " << c.m
           << ", N = " << c.n << ", K = " << c.k << "; ";
  };
  if (c.m % tc::kTileM != 0)
    return fail() << "M must be a multiple of " << tc::kTileM
                  << " (the M of tcgen05.mma.cta_group::1; operands are not "
                     "padded)";
  if (c.plan.tileN == 0)
    return fail() << "N must be a multiple of 64 (the CTA tile is 128 x N "
                     "with N in {256, 128, 64}; operands are not padded)";
  if (c.k % tc::kTileK != 0)
    return fail() << "K must be a multiple of " << tc::kTileK
                  << " (the K tile: one 128-byte swizzle row of E2M1 codes)";
  constexpr int64_t kMaxGridYZ = 65535;
  if (c.m / tc::kTileM > kMaxGridYZ || c.batch > kMaxGridYZ)
    return fail() << "M / " << tc::kTileM << " and the batch size must "
                  << "not exceed " << kMaxGridYZ << " (grid y and z limits)";
  return success();
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

namespace {
/// An i32 value with operators that emit `arith` operations, so that the
/// templates of Tcgen05Descriptors.h generate IR.
struct IdxI32 {
  OpBuilder *b;
  Location loc;
  Value v;

  IdxI32 cst(int64_t c) const {
    return {b, loc, arith::ConstantIntOp::create(*b, loc, b->getI32Type(), c)};
  }
  friend IdxI32 operator+(IdxI32 x, IdxI32 y) {
    return {x.b, x.loc, arith::AddIOp::create(*x.b, x.loc, x.v, y.v)};
  }
  friend IdxI32 operator^(IdxI32 x, IdxI32 y) {
    return {x.b, x.loc, arith::XOrIOp::create(*x.b, x.loc, x.v, y.v)};
  }
  friend IdxI32 operator+(IdxI32 x, int64_t c) {
    return c == 0 ? x : x + x.cst(c);
  }
  friend IdxI32 operator*(IdxI32 x, int64_t c) {
    return {x.b, x.loc, arith::MulIOp::create(*x.b, x.loc, x.v, x.cst(c).v)};
  }
  friend IdxI32 operator/(IdxI32 x, int64_t c) {
    return {x.b, x.loc, arith::DivUIOp::create(*x.b, x.loc, x.v, x.cst(c).v)};
  }
  friend IdxI32 operator%(IdxI32 x, int64_t c) {
    return {x.b, x.loc, arith::RemUIOp::create(*x.b, x.loc, x.v, x.cst(c).v)};
  }
};

/// Name of the dynamic shared-memory symbol of the tcgen05 kernels.
constexpr llvm::StringLiteral kSmemSymbol = "__nvfp4_tcgen05_smem";

class Tcgen05KernelBuilder {
public:
  Tcgen05KernelBuilder(OpBuilder &b, Location loc, const Tcgen05Config &c)
      : b(b), loc(loc), c(c), p(c.plan) {}

  gpu::GPUFuncOp build(gpu::GPUModuleOp module, StringRef name,
                       TypeRange argTypes);

private:
  IdxI32 idx(Value v) { return {&b, loc, v}; }

  // Integer helpers. Index arithmetic is done in i32 (shared-memory
  // addresses, tensor-memory addresses) or i64 (global byte offsets).
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  Value i64(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value addC(Value x, int64_t v) {
    return v == 0 ? x : add(x, cst(x.getType(), v));
  }
  Value mulC(Value x, int64_t v) {
    return v == 1 ? x : mul(x, cst(x.getType(), v));
  }
  Value divC(Value x, int64_t v) {
    return v == 1 ? x
                  : arith::DivUIOp::create(b, loc, x, cst(x.getType(), v))
                        .getResult();
  }
  Value remC(Value x, int64_t v) {
    return arith::RemUIOp::create(b, loc, x, cst(x.getType(), v));
  }
  Value cst(Type t, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, t, v);
  }
  Value ext64(Value v) {
    return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
  }
  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, pred, x, y);
  }

  /// Global pointer to the first byte of a memref argument.
  Value globalBase(Value memref);
  /// `base + offset` (i64 bytes) as a pointer of base's type.
  Value gep(Value base, Value offset) {
    return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{offset},
                               LLVM::GEPNoWrapFlags::inbounds);
  }
  /// A shared-memory pointer at byte `offset` (i32) of the aligned base.
  Value smemPtr(Value offset) { return gep(smemBase, offset); }
  /// The shared-window address of byte `offset` (i32) of the aligned base.
  Value smemAddr(Value offset) { return add(smemBaseAddr, offset); }
  /// A descriptor: `constant | ((address >> 4) & 0x3FFF)`.
  Value smemDesc(uint64_t constant, Value address);
  /// A tensor-memory pointer `tmemBase + column (+ lane << 16)`.
  Value tmemPtr(Value address) {
    return LLVM::IntToPtrOp::create(
        b, loc,
        LLVM::LLVMPointerType::get(
            b.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Tensor)),
        address);
  }

  /// Emits `then` under `scf.if cond`.
  void ifThen(Value cond, function_ref<void()> then) {
    auto op = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&op.getThenRegion().front());
    then();
  }

  /// Copies K tile `kt` (i32) of A, B and their scales into stage `stage`.
  void emitLoadStage(Value kt, Value stage);
  /// Thread 0: copies the scales of `stage` to tensor memory, issues the MMAs
  /// of K tile `kt` and commits them to the stage's mbarrier.
  void emitIssue(Value kt, Value stage);
  /// All threads: waits for the commit of K tile `kt` (on stage kt % 2).
  void emitWait(Value kt);
  /// Reads the accumulator and stores the result tile.
  void emitEpilogue();

  OpBuilder &b;
  Location loc;
  const Tcgen05Config &c;
  const tc::TilePlan &p;

  // Values of the kernel body.
  Value tid, warp, tileM, tileN, batch;
  Value lhsData, lhsScales, rhsData, rhsScales, accPtr, outPtr;
  Value lhsDecode, rhsDecode;
  Value smemBase, smemBaseAddr, tmemBase;
};
} // namespace

Value Tcgen05KernelBuilder::globalBase(Value memref) {
  Value addr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value addr64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), addr);
  Value ptr = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), addr64);
  return LLVM::AddrSpaceCastOp::create(
      b, loc,
      LLVM::LLVMPointerType::get(
          b.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Global)),
      ptr);
}

Value Tcgen05KernelBuilder::smemDesc(uint64_t constant, Value address) {
  Value field = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, address, i32(4)),
      i32(tc::kSmemDescField14));
  return arith::OrIOp::create(b, loc, ext64(field),
                              i64(static_cast<int64_t>(constant)));
}

void Tcgen05KernelBuilder::emitLoadStage(Value kt, Value stage) {
  Type i32T = b.getI32Type();
  auto vecType = VectorType::get({4}, i32T);
  Value stageOff = mulC(stage, p.stageBytes);
  Value kByte = ext64(mulC(kt, tc::kTileRowBytes));
  const int64_t rowBytes = c.k / 2, scaleRowBytes = c.k / 16;
  Value batch64 = ext64(batch);

  // A and B: 16-byte chunks; chunk id = tid + 128 j, row id / 8, chunk id % 8,
  // so eight consecutive threads read one 128-byte row segment.
  auto copyTile = [&](Value base, int64_t rows, int64_t totalRows,
                      Value tileRow0, int64_t smemOffset) {
    Value rowBase64 =
        add(mulC(batch64, totalRows * rowBytes),
            mulC(ext64(tileRow0), rowBytes));
    for (int64_t j = 0; j < rows * 8 / tc::kThreads; ++j) {
      Value id = addC(tid, j * tc::kThreads);
      Value row = divC(id, 8), chunk = remC(id, 8);
      Value src = add(add(rowBase64, mulC(ext64(row), rowBytes)),
                      add(kByte, mulC(ext64(chunk), tc::kSwizzleChunkBytes)));
      Value v = LLVM::LoadOp::create(b, loc, vecType, gep(base, src), 16);
      Value dst = add(add(stageOff, i32(smemOffset)),
                      tc::sw128ChunkOffset(idx(row), idx(chunk)).v);
      LLVM::StoreOp::create(b, loc, v, smemPtr(dst), 16);
    }
  };
  copyTile(lhsData, tc::kTileM, c.m, mulC(tileM, tc::kTileM), p.aOffset);
  copyTile(rhsData, p.tileN, c.n, mulC(tileN, p.tileN), p.bOffset);

  // Scales: the 16 bytes of one row for this K tile (4 MMAs x 4 K blocks),
  // written as one 32-bit word into each MMA's 128x4 atom.
  Value kScaleByte = ext64(mulC(kt, tc::kTileK / 16));
  // `srcRow` is the tile row read, `dstRow` the atom row written (they
  // differ only for the zero padding of a 64-row B tile).
  auto copyScales = [&](Value base, int64_t totalRows, int64_t blockRows,
                        Value tileRow0, Value srcRow, Value dstRow,
                        int64_t atom, int64_t atomsPerMma, int64_t smemOffset,
                        Value valid) {
    int64_t scaleRows = totalRows / blockRows;
    Value scaleRow = divC(add(tileRow0, srcRow), blockRows);
    Value src = add(add(mulC(batch64, scaleRows * scaleRowBytes),
                        mulC(ext64(scaleRow), scaleRowBytes)),
                    kScaleByte);
    Value v = LLVM::LoadOp::create(b, loc, vecType, gep(base, src), 16);
    Value atomOff =
        tc::scaleAtomOffset(idx(remC(dstRow, tc::kScaleAtomRows)), 0).v;
    for (int64_t i = 0; i < tc::kMmasPerKTile; ++i) {
      Value word = LLVM::ExtractElementOp::create(b, loc, v, i32(i));
      if (valid)
        word = arith::SelectOp::create(b, loc, valid, word, i32(0));
      Value dst = add(add(stageOff, i32(smemOffset + (i * atomsPerMma + atom) *
                                                         tc::kScaleAtomBytes)),
                      atomOff);
      LLVM::StoreOp::create(b, loc, word, smemPtr(dst), 4);
    }
  };
  copyScales(lhsScales, c.m, c.lhsBlockRows, mulC(tileM, tc::kTileM), tid, tid,
             0, 1, p.aScaleOffset, Value());
  for (int64_t a = 0; a < p.bScaleAtoms; ++a) {
    Value row = addC(tid, a * tc::kThreads), srcRow = row;
    Value valid;
    if ((a + 1) * tc::kScaleAtomRows > p.tileN) {
      // N = 64: rows 64..127 of the atom are zero padding; their threads
      // read a valid row and store zero.
      valid = cmp(arith::CmpIPredicate::ult, row, i32(p.tileN));
      srcRow = remC(row, p.tileN);
    }
    copyScales(rhsScales, c.n, c.rhsBlockRows, mulC(tileN, p.tileN), srcRow,
               row, a, p.bScaleAtoms, p.bScaleOffset, valid);
  }
}

void Tcgen05KernelBuilder::emitIssue(Value kt, Value stage) {
  MLIRContext *ctx = b.getContext();
  Value isIssuer = cmp(arith::CmpIPredicate::eq, tid, i32(0));
  ifThen(isIssuer, [&] {
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value stageOff = mulC(stage, p.stageBytes);
    Value scaleCol =
        add(addC(tmemBase, p.scaleColumn), mulC(stage, p.scaleColumnsPerStage));
    const uint64_t cpConst = tc::encodeSmemDesc(
        0, tc::kScaleCopyLbo, tc::kScaleCopySbo, tc::SmemSwizzle::None);
    const uint64_t opConst =
        tc::encodeSmemDesc(0, tc::kSw128KMajorLbo, tc::kSw128KMajorSbo,
                           tc::SmemSwizzle::B128);
    auto copyAtom = [&](int64_t smemOffset, int64_t column) {
      Value desc = smemDesc(cpConst, smemAddr(addC(stageOff, smemOffset)));
      NVVM::Tcgen05CpOp::create(
          b, loc, NVVM::Tcgen05CpShape::SHAPE_32x128b,
          NVVM::CTAGroupKind::CTA_1, NVVM::Tcgen05CpMulticast::WARPX4,
          /*srcFormat=*/nullptr, tmemPtr(addC(scaleCol, column)), desc);
    };
    for (int64_t i = 0; i < tc::kMmasPerKTile; ++i) {
      copyAtom(p.aScaleOffset + i * tc::kScaleAtomBytes, p.aScaleColumnOf(i));
      for (int64_t a = 0; a < p.bScaleAtoms; ++a)
        copyAtom(p.bScaleOffset + (i * p.bScaleAtoms + a) * tc::kScaleAtomBytes,
                 p.bScaleColumnOf(i) + a * tc::kScaleAtomTmemColumns);
    }
    const uint32_t idesc = tc::encodeMxf4Nvf4InstrDesc(
        tc::kTileM, p.tileN, tc::ScaleFormat::UE4M3);
    Value idescV = i32(static_cast<int32_t>(idesc));
    Value notFirst = cmp(arith::CmpIPredicate::ne, kt, i32(0));
    Value always = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    for (int64_t i = 0; i < tc::kMmasPerKTile; ++i) {
      // MMA i reads the 32-byte K slice i of each 128-byte swizzled row.
      int64_t kOff = i * (tc::kMmaK / 2);
      Value aDesc =
          smemDesc(opConst, smemAddr(addC(stageOff, p.aOffset + kOff)));
      Value bDesc =
          smemDesc(opConst, smemAddr(addC(stageOff, p.bOffset + kOff)));
      NVVM::Tcgen05MMABlockScaleOp::create(
          b, loc, NVVM::MMABlockScaleKind::MXF4NVF4, NVVM::CTAGroupKind::CTA_1,
          NVVM::Tcgen05MMABlockScale::BLOCK16,
          NVVM::Tcgen05MMACollectorOp::DISCARD,
          tmemPtr(addC(tmemBase, p.accColumn)), aDesc, bDesc, idescV,
          i == 0 ? notFirst : always,
          tmemPtr(addC(scaleCol, p.aScaleColumnOf(i))),
          tmemPtr(addC(scaleCol, p.bScaleColumnOf(i))));
    }
    Value bar = smemPtr(add(i32(p.barrierOffset), mulC(stage, 8)));
    NVVM::Tcgen05CommitOp::create(b, loc, bar, /*multicastMask=*/Value(),
                                  NVVM::CTAGroupKind::CTA_1);
    (void)ctx;
  });
}

void Tcgen05KernelBuilder::emitWait(Value kt) {
  Value stage = remC(kt, tc::kStages);
  Value parity = remC(divC(kt, tc::kStages), 2);
  Value bar = smemPtr(add(i32(p.barrierOffset), mulC(stage, 8)));
  // Spin on mbarrier.try_wait.parity (which suspends the thread for a
  // system-defined time per attempt).
  auto spin = scf::WhileOp::create(b, loc, TypeRange(), ValueRange());
  {
    OpBuilder::InsertionGuard guard(b);
    Block *before = b.createBlock(&spin.getBefore());
    (void)before;
    Value done = NVVM::MBarrierTryWaitOp::create(b, loc, b.getI1Type(), bar,
                                                 parity, /*ticks=*/Value());
    Value pending = arith::XOrIOp::create(
        b, loc, done, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
    scf::ConditionOp::create(b, loc, pending, ValueRange());
    b.createBlock(&spin.getAfter());
    scf::YieldOp::create(b, loc);
  }
}

void Tcgen05KernelBuilder::emitEpilogue() {
  Type f32 = b.getF32Type(), i32T = b.getI32Type();
  Type resultType = c.resultElementType;
  const int64_t eltBytes = resultType.isBF16() ? 2 : 4;
  Value alpha = arith::MulFOp::create(b, loc, lhsDecode, rhsDecode);
  // Warp w reads lanes 32w..32w+31: thread tid owns output row tid.
  Value laneField =
      arith::ShLIOp::create(b, loc, mulC(warp, 32), i32(16));
  Value rowTmem = add(add(tmemBase, laneField), i32(p.accColumn));
  Value row = add(mulC(tileM, tc::kTileM), tid);
  Value rowElems = add(mulC(ext64(batch), c.m * c.n), mulC(ext64(row), c.n));
  Value col0 = mulC(tileN, p.tileN);

  auto loop = scf::ForOp::create(b, loc, i32(0),
                                 i32(p.tileN / tc::kEpilogueColumns), i32(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value chunk = loop.getInductionVar();
  Value colOff = mulC(chunk, tc::kEpilogueColumns);
  auto ldType = VectorType::get({tc::kEpilogueColumns}, i32T);
  Value raw = NVVM::Tcgen05LdOp::create(
      b, loc, ldType, /*pack=*/false, NVVM::Tcgen05LdStShape::SHAPE_32X32B,
      tmemPtr(add(rowTmem, colOff)), /*offset=*/Value());
  NVVM::Tcgen05WaitOp::create(b, loc, NVVM::Tcgen05WaitKind::LOAD);
  Value elem0 = add(rowElems, ext64(add(col0, colOff)));
  constexpr int64_t kVec = 4;
  auto f32Vec = VectorType::get({kVec}, f32);
  auto outVec = VectorType::get({kVec}, resultType);
  for (int64_t v = 0; v < tc::kEpilogueColumns / kVec; ++v) {
    Value byteOff = mulC(addC(elem0, v * kVec), eltBytes);
    Value accVec;
    if (accPtr) {
      accVec = LLVM::LoadOp::create(b, loc, outVec, gep(accPtr, byteOff),
                                    kVec * eltBytes);
      if (resultType != f32)
        accVec = arith::ExtFOp::create(b, loc, f32Vec, accVec);
    }
    Value out = LLVM::PoisonOp::create(b, loc, f32Vec);
    for (int64_t e = 0; e < kVec; ++e) {
      Value bits =
          LLVM::ExtractElementOp::create(b, loc, raw, i32(v * kVec + e));
      Value x = arith::MulFOp::create(
          b, loc, arith::BitcastOp::create(b, loc, f32, bits), alpha);
      if (accVec)
        x = arith::AddFOp::create(
            b, loc, x, LLVM::ExtractElementOp::create(b, loc, accVec, i32(e)));
      out = LLVM::InsertElementOp::create(b, loc, out, x, i32(e));
    }
    if (resultType != f32)
      out = arith::TruncFOp::create(b, loc, outVec, out);
    LLVM::StoreOp::create(b, loc, out, gep(outPtr, byteOff), kVec * eltBytes);
  }
}

gpu::GPUFuncOp Tcgen05KernelBuilder::build(gpu::GPUModuleOp module,
                                           StringRef name,
                                           TypeRange argTypes) {
  MLIRContext *ctx = b.getContext();
  Type i32T = b.getI32Type();
  auto smemPtrType = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  if (!module.lookupSymbol(kSmemSymbol)) {
    // Dynamic shared memory: `.extern .shared .align 1024 .b8 sym[]`.
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External,
                           kSmemSymbol, /*value=*/Attribute(),
                           /*alignment=*/tc::kSwizzleAtomBytes,
                           static_cast<unsigned>(
                               NVVM::NVVMMemorySpace::Shared));
  }
  b.setInsertionPointToEnd(module.getBody());
  auto kernel = gpu::GPUFuncOp::create(b, loc, name,
                                       b.getFunctionType(argTypes, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(tc::kThreads), 1, 1}));
  Block &entry = kernel.front();
  b.setInsertionPointToStart(&entry);

  // Arguments: lhs data, lhs scales, lhs decode scale, rhs data, rhs scales,
  // rhs decode scale, [acc], result.
  lhsData = globalBase(entry.getArgument(0));
  lhsScales = globalBase(entry.getArgument(1));
  lhsDecode = entry.getArgument(2);
  rhsData = globalBase(entry.getArgument(3));
  rhsScales = globalBase(entry.getArgument(4));
  rhsDecode = entry.getArgument(5);
  accPtr = c.hasAcc ? globalBase(entry.getArgument(6)) : Value();
  outPtr = globalBase(entry.getArgument(argTypes.size() - 1));

  auto toI32 = [&](Value index) {
    return arith::IndexCastUIOp::create(b, loc, i32T, index).getResult();
  };
  tid = toI32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  tileN = toI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  tileM = toI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  batch = c.batch ? toI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::z))
                  : i32(0);
  warp = divC(tid, 32);

  // The dynamic shared memory, its base rounded up to 1024 bytes (the
  // 128-byte swizzle atoms and descriptor base offset 0 need it).
  Value raw = LLVM::AddressOfOp::create(b, loc, smemPtrType, kSmemSymbol);
  Value rawAddr = LLVM::PtrToIntOp::create(b, loc, i32T, raw);
  smemBaseAddr = arith::AndIOp::create(
      b, loc, addC(rawAddr, tc::kSwizzleAtomBytes - 1),
      i32(~(tc::kSwizzleAtomBytes - 1)));
  smemBase = gep(raw, arith::SubIOp::create(b, loc, smemBaseAddr, rawAddr));

  // Setup: mbarriers (thread 0) and the tensor-memory allocation (warp 0).
  Value slot = smemPtr(i32(p.tmemSlotOffset));
  ifThen(cmp(arith::CmpIPredicate::eq, tid, i32(0)), [&] {
    for (int64_t s = 0; s < tc::kStages; ++s)
      NVVM::MBarrierInitOp::create(b, loc, smemPtr(i32(p.barrierOffset + 8 * s)),
                                   i32(1), /*predicate=*/Value());
    NVVM::FenceMbarrierInitOp::create(b, loc);
  });
  Value nCols = i32(p.tmemColumns);
  Value isWarp0 = cmp(arith::CmpIPredicate::eq, warp, i32(0));
  ifThen(isWarp0, [&] {
    NVVM::Tcgen05AllocOp::create(b, loc, slot, nCols);
    NVVM::Tcgen05RelinquishAllocPermitOp::create(b, loc);
  });
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  gpu::BarrierOp::create(b, loc);
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  tmemBase = LLVM::LoadOp::create(b, loc, i32T, slot, 4);

  // Main loop: stage kt % 2 holds K tile kt.
  const int64_t kTiles = c.k / tc::kTileK;
  emitLoadStage(i32(0), i32(0));
  auto loop = scf::ForOp::create(b, loc, i32(0), i32(kTiles), i32(1));
  {
    OpBuilder::InsertionGuard loopGuard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value stage = remC(kt, tc::kStages);
    // Make the generic-proxy shared-memory writes visible to tcgen05.
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    gpu::BarrierOp::create(b, loc);
    emitIssue(kt, stage);
    // Refill the other stage with K tile kt + 1 once the MMAs of kt - 1,
    // which read it, have completed.
    Value next = addC(kt, 1);
    ifThen(cmp(arith::CmpIPredicate::ult, next, i32(kTiles)), [&] {
      ifThen(cmp(arith::CmpIPredicate::ne, kt, i32(0)),
             [&] { emitWait(addC(kt, -1)); });
      emitLoadStage(next, remC(next, tc::kStages));
    });
  }
  // The last commit covers every MMA.
  emitWait(i32(kTiles - 1));
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  emitEpilogue();

  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  gpu::BarrierOp::create(b, loc);
  ifThen(isWarp0, [&] {
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    NVVM::Tcgen05DeallocOp::create(b, loc, tmemPtr(tmemBase), nCols);
  });
  gpu::ReturnOp::create(b, loc);
  return kernel;
}

//===----------------------------------------------------------------------===//
// Pattern
//===----------------------------------------------------------------------===//

namespace {
/// Lowers `nvfp4.matmul` to a launch of the tcgen05 kernel.
struct Tcgen05MatmulLowering : public OpRewritePattern<MatmulOp> {
  Tcgen05MatmulLowering(MLIRContext *ctx, GPUTarget target)
      : OpRewritePattern(ctx), target(target) {}

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a builtin.module");
    {
      // Diagnostics are the pass's business; here only decline.
      ScopedDiagnosticHandler silence(op.getContext(),
                                      [](Diagnostic &) { return success(); });
      if (failed(checkTcgen05MatmulSupported(op, target)))
        return rewriter.notifyMatchFailure(op, "unsupported shape or target");
    }
    Tcgen05Config config = Tcgen05Config::get(op);
    Location loc = op.getLoc();

    // Host side: the components as buffers.
    SmallVector<Value> args;
    for (Value operand : {op.getLhs(), op.getRhs()}) {
      auto parts = DisassembleOp::create(rewriter, loc, operand);
      for (Value tensor : {parts.getData(), parts.getScales()}) {
        auto tensorType = cast<RankedTensorType>(tensor.getType());
        auto memrefType =
            MemRefType::get(tensorType.getShape(), tensorType.getElementType());
        args.push_back(bufferization::ToBufferOp::create(
            rewriter, loc, memrefType, tensor, /*read_only=*/true));
      }
      args.push_back(parts.getDecodeScale());
    }
    RankedTensorType resultType = op.getResult().getType();
    auto resultMemRef =
        MemRefType::get(resultType.getShape(), resultType.getElementType());
    if (Value acc = op.getAcc())
      args.push_back(bufferization::ToBufferOp::create(
          rewriter, loc, resultMemRef, acc, /*read_only=*/true));
    Value out = memref::AllocOp::create(rewriter, loc, resultMemRef);
    args.push_back(out);

    // Device side: the kernel, shared by identical matmuls.
    auto kernelModule =
        module.lookupSymbol<gpu::GPUModuleOp>(kNVFP4KernelModuleName);
    if (!kernelModule) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToEnd(module.getBody());
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      rewriter.getUnitAttr());
      kernelModule =
          gpu::GPUModuleOp::create(rewriter, module.getLoc(),
                                   kNVFP4KernelModuleName);
    }
    std::string name = config.kernelName();
    auto kernel = kernelModule.lookupSymbol<gpu::GPUFuncOp>(name);
    if (!kernel)
      kernel = Tcgen05KernelBuilder(rewriter, loc, config)
                   .build(kernelModule, name, ValueRange(args).getTypes());

    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    gpu::KernelDim3 grid{cst(config.n / config.plan.tileN),
                         cst(config.m / tc::kTileM),
                         cst(std::max<int64_t>(config.batch, 1))};
    gpu::KernelDim3 block{cst(tc::kThreads), cst(1), cst(1)};
    Value smemBytes = arith::ConstantIntOp::create(
        rewriter, loc, rewriter.getI32Type(), config.plan.sharedBytes);
    gpu::LaunchFuncOp::create(rewriter, loc, kernel, grid, block, smemBytes,
                              args);
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
        op, resultType, out, /*restrict=*/true, /*writable=*/true);
    return success();
  }

  GPUTarget target;
};
} // namespace

void mlir::nvfp4::populateNVFP4ToTcgen05Patterns(RewritePatternSet &patterns,
                                                 GPUTarget target) {
  patterns.add<Tcgen05MatmulLowering>(patterns.getContext(), target);
}

//===----------------------------------------------------------------------===//
// Target attachment
//===----------------------------------------------------------------------===//

namespace {
struct AttachTcgen05NVVMTargetPass
    : public PassWrapper<AttachTcgen05NVVMTargetPass,
                         OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AttachTcgen05NVVMTargetPass)

  AttachTcgen05NVVMTargetPass(StringRef chip, StringRef features,
                              unsigned optLevel)
      : chip(chip.str()), features(features.str()), optLevel(optLevel) {}

  StringRef getArgument() const final {
    return "nvfp4-attach-tcgen05-nvvm-target";
  }
  StringRef getDescription() const final {
    return "Attach an NVVM target without the op-level SM check";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<NVVM::NVVMDialect>();
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto target = NVVM::NVVMTargetAttr::get(
        ctx, optLevel, "nvptx64-nvidia-cuda", chip, features,
        /*targetFlags=*/nullptr, /*linkFiles=*/nullptr,
        /*verifyTarget=*/false);
    getOperation().walk([&](gpu::GPUModuleOp module) {
      if (!module.getTargetsAttr() || module.getTargetsAttr().empty())
        module.setTargetsAttr(ArrayAttr::get(ctx, {target}));
    });
  }

  std::string chip, features;
  unsigned optLevel;
};
} // namespace

std::unique_ptr<Pass>
mlir::nvfp4::createAttachTcgen05NVVMTargetPass(StringRef chip,
                                               StringRef features,
                                               unsigned optLevel) {
  return std::make_unique<AttachTcgen05NVVMTargetPass>(chip, features,
                                                       optLevel);
}
