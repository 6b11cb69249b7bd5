//===- MmaSyncMatmul.cpp - The mma.sync matmul kernels --------------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Builds the matmul kernels on `mma.sync`: the sm_120a / sm_121a
// block-scaled MMA (`nvvm.mma.block_scale`, m16n8k64, kind::mxf4nvf4,
// scale_vec::4X, UE4M3 scales; MXFP4 operands: kind::mxf4, scale_vec::2X,
// UE8M0 scales; MXFP8 operands: m16n8k32 kind::mxf8f6f4, scale_vec::1X,
// UE8M0 scales), or, for sm_90a, bf16 `nvvm.mma.sync`
// m16n8k16 with the operands dequantized in registers. The fragment,
// staging and epilogue index mathematics live in MmaLayout.h, shared with
// the unit tests that emulate the instruction lane by lane. docs/gpu.md
// describes the design.
//
//===----------------------------------------------------------------------===//

#include "MmaSyncMatmul.h"

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

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

namespace {
/// An `index` value with operators that emit `arith` operations, so that the
/// templates of MmaLayout.h generate IR.
struct IndexExpr {
  OpBuilder *b;
  Location loc;
  Value v;

  IndexExpr cst(int64_t c) const {
    return {b, loc, arith::ConstantIndexOp::create(*b, loc, c)};
  }
  friend IndexExpr operator+(IndexExpr x, IndexExpr y) {
    return {x.b, x.loc, arith::AddIOp::create(*x.b, x.loc, x.v, y.v)};
  }
  friend IndexExpr operator+(IndexExpr x, int64_t c) {
    return c == 0 ? x : x + x.cst(c);
  }
  friend IndexExpr operator*(IndexExpr x, int64_t c) {
    return {x.b, x.loc, arith::MulIOp::create(*x.b, x.loc, x.v, x.cst(c).v)};
  }
  friend IndexExpr operator/(IndexExpr x, int64_t c) {
    return c == 1 ? x
                  : IndexExpr{
                        x.b, x.loc,
                        arith::DivUIOp::create(*x.b, x.loc, x.v, x.cst(c).v)};
  }
  friend IndexExpr operator%(IndexExpr x, int64_t c) {
    return {x.b, x.loc, arith::RemUIOp::create(*x.b, x.loc, x.v, x.cst(c).v)};
  }
};

/// The kernel body under construction.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, const MatmulConfig &config,
                GPUTarget target)
      : b(b), loc(loc), c(config), target(target) {}

  /// Builds the kernel into `module` and returns it.
  gpu::GPUFuncOp build(gpu::GPUModuleOp module, StringRef name,
                       TypeRange argTypes);

private:
  IndexExpr idx(Value v) { return {&b, loc, v}; }
  IndexExpr idx(int64_t c) { return idx(Value()).cst(c); }

  /// A global-memory pointer to the first byte of the buffer `memref`
  /// (whose layout is the identity). E2M1 buffers hold two codes per byte,
  /// which memref indexing cannot express, so all operand reads go through
  /// byte addresses.
  Value globalBasePointer(Value memref);
  /// `base + byteOffset` as a global pointer.
  Value byteAddress(Value base, IndexExpr byteOffset);
  /// Loads a value of `type` from global memory.
  Value load(Type type, Value ptr, unsigned alignment) {
    return LLVM::LoadOp::create(b, loc, type, ptr, alignment);
  }
  Value i32Const(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }

  /// The shared-memory tiles of one K step and the lane's coordinates.
  struct StepOperands {
    Value smemA, smemB, smemScales;
    IndexExpr warpRow, warpCol, g, q;
    /// The pipeline slot the K step was staged in.
    IndexExpr slot;
    /// The loop-carried accumulators, mmasM x mmasN x kMmaCRegs.
    ValueRange acc;
  };
  /// Emits the MMAs of one staged K step and returns the new accumulators:
  /// mmasM x mmasN block-scaled m16n8k64 MMAs (sm_120a, sm_121a).
  SmallVector<Value> emitBlockScaledStep(const StepOperands &op);
  /// The same with the operands dequantized to bf16 in registers and
  /// mmasM x mmasN x kBf16KSteps bf16 m16n8k16 MMAs (sm_90a).
  SmallVector<Value> emitDequantizedStep(const StepOperands &op);

  /// Decodes the E4M3 byte `byte` (in the low 8 bits of an i32) to f32 times
  /// 1/2, exactly (see docs/gpu.md): sign * significand * 2^(exponent - 11),
  /// NaN for 0x7F / 0xFF.
  Value decodeHalfScale(Value byte);
  /// Dequantizes the two E2M1 codes in the low byte of `word` (the even k in
  /// the low nibble) with `halfScale` (decodeHalfScale) and returns them as
  /// two bf16 packed in an i32, the even k in the low half. Every product is
  /// exact in f32 and in bf16, so the truncation to the upper 16 bits is
  /// exact as well.
  Value dequantizePair(Value word, Value halfScale);

  OpBuilder &b;
  Location loc;
  const MatmulConfig &c;
  GPUTarget target;
};
} // namespace

Value KernelBuilder::globalBasePointer(Value memref) {
  return mlir::nvfp4::detail::createGlobalBasePointer(b, loc, memref);
}

Value KernelBuilder::byteAddress(Value base, IndexExpr byteOffset) {
  return mlir::nvfp4::detail::createByteAddress(b, loc, base, byteOffset.v);
}

SmallVector<Value> KernelBuilder::emitBlockScaledStep(const StepOperands &op) {
  using namespace layout;
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  SmallVector<SmallVector<Value, 4>> aFrags, bFrags;
  SmallVector<Value> aScales, bScales;
  const int64_t mmasM = c.tile.mmasM(), mmasN = c.tile.mmasN();
  for (int64_t i = 0; i < mmasM; ++i) {
    IndexExpr rowBase = op.warpRow + i * kMmaM;
    SmallVector<Value, 4> regs;
    for (int r = 0; r < kMmaARegs; ++r) {
      IndexExpr row = rowBase + aFragRow(op.g, r);
      regs.push_back(memref::LoadOp::create(
          b, loc, op.smemA,
          ValueRange{op.slot.v, row.v,
                     swizzleWord(row, aFragWord(op.q, r)).v}));
    }
    aFrags.push_back(regs);
    aScales.push_back(memref::LoadOp::create(
        b, loc, op.smemScales,
        ValueRange{op.slot.v, (rowBase + scaleARow(op.g, op.q)).v}));
  }
  for (int64_t j = 0; j < mmasN; ++j) {
    IndexExpr colBase = op.warpCol + j * kMmaN;
    SmallVector<Value, 4> regs;
    for (int r = 0; r < kMmaBRegs; ++r) {
      IndexExpr row = colBase + bFragCol(op.g, r);
      regs.push_back(memref::LoadOp::create(
          b, loc, op.smemB,
          ValueRange{op.slot.v, row.v,
                     swizzleWord(row, bFragWord(op.q, r)).v}));
    }
    bFrags.push_back(regs);
    bScales.push_back(memref::LoadOp::create(
        b, loc, op.smemScales,
        ValueRange{op.slot.v, (colBase + scaleBCol(op.g, op.q) + c.tile.m).v}));
  }
  auto i16Const = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, b.getI16Type(), v).getResult();
  };
  Value byteId = i16Const(0);
  Value threadIdA = i16Const(kScaleThreadIdA);
  Value threadIdB = i16Const(kScaleThreadIdB);
  auto resType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(kMmaCRegs, f32));
  // The instruction of the operands' formats. A K step is 32 bytes of a row
  // either way, and 8-bit elements have the byte layout of E2M1 pairs in
  // the fragments (PTX ISA, m16n8k32 and m16n8k64), so the staging and the
  // fragment loads are the same.
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
  SmallVector<Value> next;
  for (int64_t i = 0; i < mmasM; ++i) {
    for (int64_t j = 0; j < mmasN; ++j) {
      ValueRange cIn = op.acc.slice((i * mmasN + j) * kMmaCRegs, kMmaCRegs);
      auto mma = NVVM::MmaBlockScaleOp::create(
          b, loc, resType, aFrags[i], bFrags[j], cIn, aScales[i], byteId,
          threadIdA, bScales[j], byteId, threadIdB,
          ArrayRef<int64_t>{kMmaM, kMmaN, mmaK},
          std::array<NVVM::MMATypes, 2>{ptxType(c.lhsFormat),
                                        ptxType(c.rhsFormat)},
          scaleVec,
          c.isMX() ? NVVM::BlockScaleFormat::UE8M0
                   : NVVM::BlockScaleFormat::UE4M3,
          kind);
      for (int64_t r = 0; r < kMmaCRegs; ++r)
        next.push_back(LLVM::ExtractValueOp::create(b, loc, mma, r));
    }
  }
  return next;
}

Value KernelBuilder::decodeHalfScale(Value byte) {
  Type f32 = b.getF32Type();
  auto shr = [&](Value v, int64_t n) {
    return arith::ShRUIOp::create(b, loc, v, i32Const(n)).getResult();
  };
  auto shl = [&](Value v, int64_t n) {
    return arith::ShLIOp::create(b, loc, v, i32Const(n)).getResult();
  };
  auto mask = [&](Value v, int64_t m) {
    return arith::AndIOp::create(b, loc, v, i32Const(m)).getResult();
  };
  // E4M3 (fn): s eeee mmm; value = (-1)^s * sig * 2^(max(e, 1) - 10) with
  // sig = m (e == 0) or 8 + m. The extra 1/2 gives 2^(max(e, 1) - 11): a
  // normal f32 power of two in [2^-10, 2^4], built from its bits.
  Value exponent = mask(shr(byte, 3), 0xF);
  Value mantissa = mask(byte, 0x7);
  Value isNormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                         exponent, i32Const(0));
  Value significand = arith::SelectOp::create(
      b, loc, isNormal, arith::OrIOp::create(b, loc, mantissa, i32Const(8)),
      mantissa);
  Value clamped = arith::MaxUIOp::create(b, loc, exponent, i32Const(1));
  Value pow2 = arith::BitcastOp::create(
      b, loc, f32,
      shl(arith::AddIOp::create(b, loc, clamped, i32Const(127 - 11)), 23));
  Value magnitude = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, f32, significand), pow2);
  Value bits = arith::OrIOp::create(
      b, loc, arith::BitcastOp::create(b, loc, b.getI32Type(), magnitude),
      shl(mask(byte, 0x80), 24));
  Value isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      mask(byte, 0x7F), i32Const(0x7F));
  bits = arith::SelectOp::create(b, loc, isNaN, i32Const(0x7FC00000), bits);
  return arith::BitcastOp::create(b, loc, f32, bits);
}

Value KernelBuilder::dequantizePair(Value word, Value halfScale) {
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  // Twice the E2M1 magnitudes {0, 0.5, 1, 1.5, 2, 3, 4, 6}, one per nibble.
  constexpr int64_t kTwiceE2M1 = 0xC8643210;
  auto bitsOf = [&](int64_t shift) -> Value {
    Value code = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, word, i32Const(shift)),
        i32Const(0xF));
    Value nibbleShift = arith::ShLIOp::create(
        b, loc, arith::AndIOp::create(b, loc, code, i32Const(0x7)),
        i32Const(2));
    Value twice = arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, i32Const(kTwiceE2M1), nibbleShift),
        i32Const(0xF));
    Value value = arith::MulFOp::create(
        b, loc, arith::UIToFPOp::create(b, loc, f32, twice), halfScale);
    Value sign = arith::ShLIOp::create(
        b, loc, arith::AndIOp::create(b, loc, code, i32Const(0x8)),
        i32Const(28));
    return arith::XOrIOp::create(
        b, loc, arith::BitcastOp::create(b, loc, i32, value), sign);
  };
  Value even = bitsOf(0), odd = bitsOf(4);
  // The values are exact in bf16: their bf16 encodings are the upper halves.
  Value low = arith::ShRUIOp::create(b, loc, even, i32Const(16));
  Value high = arith::AndIOp::create(b, loc, odd, i32Const(0xFFFF0000));
  return arith::OrIOp::create(b, loc, high, low);
}

SmallVector<Value> KernelBuilder::emitDequantizedStep(const StepOperands &op) {
  using namespace layout;
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  // Every register of the lane takes its two codes from byte q of a word.
  Value byteShift =
      arith::IndexCastUIOp::create(b, loc, i32, (bf16FragByte(op.q) * 8).v);
  auto loadCodes = [&](Value smem, IndexExpr row, int64_t word) -> Value {
    Value w = memref::LoadOp::create(
        b, loc, smem,
        ValueRange{op.slot.v, row.v, swizzleWord(row, idx(word)).v});
    return arith::ShRUIOp::create(b, loc, w, byteShift);
  };
  auto scaleByte = [&](Value word, int64_t s) -> Value {
    return s == 0 ? word
                  : arith::ShRUIOp::create(b, loc, word, i32Const(8 * s))
                        .getResult();
  };

  // Scale words: rows g and g + 8 of each A tile, column g of each B tile.
  SmallVector<std::array<Value, 2>> aScaleWords;
  SmallVector<Value> bScaleWords;
  const int64_t mmasM = c.tile.mmasM(), mmasN = c.tile.mmasN();
  for (int64_t i = 0; i < mmasM; ++i) {
    IndexExpr rowBase = op.warpRow + i * kMmaM;
    std::array<Value, 2> words;
    for (int half = 0; half < 2; ++half)
      words[half] = memref::LoadOp::create(
          b, loc, op.smemScales,
          ValueRange{op.slot.v, (rowBase + bf16AFragRow(op.g, half)).v});
    aScaleWords.push_back(words);
  }
  for (int64_t j = 0; j < mmasN; ++j)
    bScaleWords.push_back(memref::LoadOp::create(
        b, loc, op.smemScales,
        ValueRange{op.slot.v,
                   (op.warpCol + j * kMmaN + bFragCol(op.g, 0) + c.tile.m).v}));

  auto resType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(kMmaCRegs, f32));
  SmallVector<Value> acc(op.acc.begin(), op.acc.end());
  // Sub-step s covers k 16s .. 16s + 15 of the step: scale block s.
  for (int64_t s = 0; s < kBf16KSteps; ++s) {
    SmallVector<SmallVector<Value, 4>> aFrags, bFrags;
    for (int64_t i = 0; i < mmasM; ++i) {
      IndexExpr rowBase = op.warpRow + i * kMmaM;
      std::array<Value, 2> halfScales;
      for (int half = 0; half < 2; ++half)
        halfScales[half] = decodeHalfScale(scaleByte(aScaleWords[i][half], s));
      SmallVector<Value, 4> regs;
      for (int r = 0; r < kBf16MmaARegs; ++r)
        regs.push_back(
            dequantizePair(loadCodes(op.smemA, rowBase + bf16AFragRow(op.g, r),
                                     bf16AFragWord(s, r)),
                           halfScales[r & 1]));
      aFrags.push_back(regs);
    }
    for (int64_t j = 0; j < mmasN; ++j) {
      IndexExpr col = op.warpCol + j * kMmaN + bFragCol(op.g, 0);
      Value halfScale = decodeHalfScale(scaleByte(bScaleWords[j], s));
      SmallVector<Value, 4> regs;
      for (int r = 0; r < kBf16MmaBRegs; ++r)
        regs.push_back(dequantizePair(
            loadCodes(op.smemB, col, bf16BFragWord(s, r)), halfScale));
      bFrags.push_back(regs);
    }
    for (int64_t i = 0; i < mmasM; ++i) {
      for (int64_t j = 0; j < mmasN; ++j) {
        MutableArrayRef<Value> cRegs = MutableArrayRef<Value>(acc).slice(
            (i * mmasN + j) * kMmaCRegs, kMmaCRegs);
        auto mma = NVVM::MmaOp::create(
            b, loc, resType, aFrags[i], bFrags[j], ValueRange(cRegs),
            ArrayRef<int64_t>{kMmaM, kMmaN, kBf16MmaK},
            /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
            std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                          NVVM::MMATypes::bf16},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (int64_t r = 0; r < kMmaCRegs; ++r)
          cRegs[r] = LLVM::ExtractValueOp::create(b, loc, mma, r);
      }
    }
  }
  return acc;
}

gpu::GPUFuncOp KernelBuilder::build(gpu::GPUModuleOp module, StringRef name,
                                    TypeRange argTypes) {
  using namespace layout;
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type();
  Type f32 = b.getF32Type();
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto smemType = [&](ArrayRef<int64_t> shape) {
    return MemRefType::get(shape, i32, MemRefLayoutAttrInterface(), workgroup);
  };
  const layout::TileShape &tile = c.tile;
  // kStages pipeline slots of the A, B and scale tiles.
  MemRefType smemAType = smemType({kStages, tile.m, kWordsPerMmaRow});
  MemRefType smemBType = smemType({kStages, tile.n, kWordsPerMmaRow});
  MemRefType smemScaleType = smemType({kStages, tile.scaleWords()});

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  auto kernel = gpu::GPUFuncOp::create(
      b, loc, name, b.getFunctionType(argTypes, {}),
      TypeRange{smemAType, smemBType, smemScaleType}, TypeRange{});
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(tile.threads()), 1, 1}));
  // cp.async of 16 bytes needs 16-byte aligned shared-memory destinations.
  for (unsigned i = 0; i < 3; ++i)
    kernel.setWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                                       b.getI64IntegerAttr(kVectorBytes));
  Block &entry = kernel.front();
  b.setInsertionPointToStart(&entry);

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
  Value smemA = kernel.getWorkgroupAttributions()[0];
  Value smemB = kernel.getWorkgroupAttributions()[1];
  Value smemScales = kernel.getWorkgroupAttributions()[2];

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
  // (32) bytes of a row: 64 E2M1 codes or 32 8-bit ones.
  const int64_t rowBytes = c.k * c.elementBits() / 8;
  const int64_t scaleRowBytes = c.k / c.blockCols();
  const int64_t stepK = kTileRowBytes * 8 / c.elementBits();
  const int64_t lhsScaleRows = c.m / c.lhsBlockRows;
  const int64_t rhsScaleRows = c.n / c.rhsBlockRows;
  IndexExpr lhsScaleBase = batch * (lhsScaleRows * scaleRowBytes);
  IndexExpr rhsScaleBase = batch * (rhsScaleRows * scaleRowBytes);
  Value lhsDataPtr = globalBasePointer(lhsData);
  Value rhsDataPtr = globalBasePointer(rhsData);
  Value lhsScalePtr = globalBasePointer(lhsScales);
  Value rhsScalePtr = globalBasePointer(rhsScales);

  // Shared-memory base addresses of the staging buffers, for cp.async.
  auto sharedPtrType = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  auto sharedBase = [&](Value memref) -> Value {
    Value addr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    Value addr64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), addr);
    return LLVM::IntToPtrOp::create(b, loc, sharedPtrType, addr64);
  };
  Value smemAPtr = sharedBase(smemA), smemBPtr = sharedBase(smemB);
  Value smemScalePtr = sharedBase(smemScales);
  auto sharedAddress = [&](Value base, IndexExpr byteOffset) -> Value {
    Value offset =
        arith::IndexCastUIOp::create(b, loc, b.getI64Type(), byteOffset.v);
    return LLVM::GEPOp::create(b, loc, sharedPtrType, b.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{offset},
                               LLVM::GEPNoWrapFlags::inbounds);
  };
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
  const bool mResidue = c.m % tile.m != 0, nResidue = c.n % tile.n != 0;
  auto rowIn = [&](IndexExpr row, int64_t limit) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row.v,
                                 idx(limit).v);
  };
  auto clampRow = [&](IndexExpr row, Value valid, int64_t limit) {
    return idx(arith::SelectOp::create(b, loc, valid, row.v,
                                       idx(limit - 1).v));
  };
  // Runs `body(job)` for the copy jobs `stageJob(tid, i)` < count of this
  // thread; the last one is guarded when count is not a multiple of the
  // thread count.
  auto forEachJob = [&](int64_t count,
                        llvm::function_ref<void(IndexExpr)> body) {
    for (int64_t i = 0, e = stageCopiesPerThread(count, tile); i < e; ++i) {
      IndexExpr job = stageJob(tid, i, tile);
      if ((i + 1) * tile.threads() <= count) {
        body(job);
        continue;
      }
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            job.v, idx(count).v);
      auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard ifGuard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      body(job);
    }
  };
  const int64_t smemRowBytes = kWordsPerMmaRow * 4;
  // K need only be a multiple of 16: the last K step of a K that is not a
  // multiple of kTileK is padded with zero codes and zero scales, which add
  // exact zeros. Rows of K / 2 bytes are 16-byte aligned when K % 32 == 0;
  // otherwise they are copied in 8-byte halves. Scale rows of K / 16 bytes
  // are copied a 4-byte word at a time when K % 64 == 0; otherwise byte by
  // byte (loads, packed into a word, stored to shared memory).
  const bool kResidue = c.k % stepK != 0;
  const int64_t copyBytes = stageCopyBytes(rowBytes);
  const int64_t copiesPerRow = kTileRowBytes / copyBytes;
  auto i1Const = [&](bool v) {
    return arith::ConstantIntOp::create(b, loc, b.getI1Type(), v);
  };
  auto both = [&](Value x, Value y) -> Value {
    if (!x || !y)
      return x ? x : y;
    return arith::AndIOp::create(b, loc, x, y);
  };
  // Issues the copies of K step `kt` into pipeline slot `slot`.
  auto issueStep = [&](IndexExpr kt, IndexExpr slot) {
    IndexExpr kByte = kt * kTileRowBytes;
    // The rows [tileRow, tileRow + rows) of an operand of `limit` rows.
    auto copyRows = [&](int64_t rows, Value srcBase, IndexExpr tileRow,
                        int64_t limit, bool residue, Value dstBase) {
      forEachJob(rows * copiesPerRow, [&](IndexExpr v) {
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
          byteInRow = idx(arith::SelectOp::create(b, loc, kValid, byteInRow.v,
                                                  idx(0).v));
        }
        Value src = byteAddress(srcBase,
                                (batch * limit + srcRow) * rowBytes + byteInRow);
        Value dst = sharedAddress(
            dstBase, slot * (rows * smemRowBytes) + row * smemRowBytes +
                         swizzleWord(row, stageWord(v, copiesPerRow)) * 4);
        copyAsync(dst, src, copyBytes, both(rowValid, kValid));
      });
    };
    copyRows(tile.m, lhsDataPtr, tileM * tile.m, c.m, mResidue, smemAPtr);
    copyRows(tile.n, rhsDataPtr, tileN * tile.n, c.n, nResidue, smemBPtr);
    // Scale words: A rows, then B rows. A K step has 4 E4M3 scales a row
    // (one 4-byte copy), or 2 (MXFP4) or 1 (MXFP8) E8M0 scales in the
    // word's low bytes.
    const int64_t stepScaleBytes = stepK / c.blockCols();
    IndexExpr kScaleByte = kt * stepScaleBytes;
    forEachJob(tile.scaleWords(), [&](IndexExpr sj) {
      Value isLhs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          sj.v, idx(tile.m).v);
      IndexExpr bRow{&b, loc,
                     arith::SubIOp::create(b, loc, sj.v, idx(tile.m).v)};
      IndexExpr aRow = tileM * tile.m + sj;
      IndexExpr nRow = tileN * tile.n + bRow;
      Value aValid, bValid;
      if (mResidue) {
        aValid = rowIn(aRow, c.m);
        aRow = clampRow(aRow, aValid, c.m);
      }
      if (nResidue) {
        bValid = rowIn(nRow, c.n);
        nRow = clampRow(nRow, bValid, c.n);
      }
      Value rowValid;
      if (mResidue || nResidue)
        rowValid = arith::SelectOp::create(b, loc, isLhs,
                                           aValid ? aValid : i1Const(true),
                                           bValid ? bValid : i1Const(true));
      IndexExpr lhsRowByte =
          lhsScaleBase + (aRow / c.lhsBlockRows) * scaleRowBytes;
      IndexExpr rhsRowByte =
          rhsScaleBase + (nRow / c.rhsBlockRows) * scaleRowBytes;
      Value dst =
          sharedAddress(smemScalePtr, (slot * tile.scaleWords() + sj) * 4);
      if (!kResidue && stepScaleBytes == 4) {
        Value lhsAddr = byteAddress(lhsScalePtr, lhsRowByte + kScaleByte);
        Value rhsAddr = byteAddress(rhsScalePtr, rhsRowByte + kScaleByte);
        Value src = LLVM::SelectOp::create(b, loc, isLhs, lhsAddr, rhsAddr);
        copyAsync(dst, src, 4, rowValid);
        return;
      }
      // Byte by byte: scale bytes past the row's end (or of rows past M or
      // N) are zero, loaded from the row's start.
      Type i32 = b.getI32Type();
      Value word = i32Const(0);
      for (int64_t i = 0; i < stepScaleBytes; ++i) {
        IndexExpr col = kScaleByte + i;
        Value colValid = rowIn(col, scaleRowBytes);
        col = idx(arith::SelectOp::create(b, loc, colValid, col.v, idx(0).v));
        Value lhsAddr = byteAddress(lhsScalePtr, lhsRowByte + col);
        Value rhsAddr = byteAddress(rhsScalePtr, rhsRowByte + col);
        Value src = LLVM::SelectOp::create(b, loc, isLhs, lhsAddr, rhsAddr);
        Value byte = arith::ExtUIOp::create(b, loc, i32,
                                            load(b.getI8Type(), src, 1));
        Value inside = both(colValid, rowValid);
        byte = arith::SelectOp::create(b, loc, inside, byte, i32Const(0));
        if (i > 0)
          byte = arith::ShLIOp::create(b, loc, byte, i32Const(8 * i));
        word = arith::OrIOp::create(b, loc, word, byte);
      }
      LLVM::StoreOp::create(b, loc, word, dst, /*alignment=*/4);
    });
  };

  IndexExpr warpRow = warpRowBase(warp, tile);
  IndexExpr warpCol = warpColBase(warp, tile);

  // Prologue: steps 0 .. kStages - 2, one commit group each.
  const int64_t numSteps = llvm::divideCeil(c.k, stepK);
  for (int64_t s = 0; s < kStages - 1; ++s) {
    if (s < numSteps)
      issueStep(idx(s), idx(stageSlot(s)));
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }

  // The K loop; the accumulators are loop-carried.
  const int64_t numAcc = tile.accumulators();
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<Value> init(numAcc, zero);
  auto loop =
      scf::ForOp::create(b, loc, idx(0).v, idx(numSteps).v, idx(1).v, init);
  {
    OpBuilder::InsertionGuard loopGuard(b);
    b.setInsertionPointToStart(loop.getBody());
    IndexExpr kt = idx(loop.getInductionVar());
    // Step kt has landed (this thread's copies, then everyone's), and every
    // warp is done with the slot of step kt - 1.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, kWaitPendingGroups);
    gpu::BarrierOp::create(b, loc);
    // Prefetch step kt + kStages - 1 into that slot.
    IndexExpr next = prefetchStep(kt);
    Value hasNext = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          next.v, idx(numSteps).v);
    {
      auto ifOp = scf::IfOp::create(b, loc, hasNext, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard ifGuard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      issueStep(next, stageSlot(next));
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);

    StepOperands step{smemA,   smemB,         smemScales,
                      warpRow, warpCol,       g,
                      q,       stageSlot(kt), loop.getRegionIterArgs()};
    SmallVector<Value> nextAcc = hasBlockScaledMma(target)
                                     ? emitBlockScaledStep(step)
                                     : emitDequantizedStep(step);
    scf::YieldOp::create(b, loc, nextAcc);
  }
  // Only empty groups can be pending here; drain them anyway.
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);

  // Epilogue: scale by the GEMM's alpha (NVFP4; MX has none), add acc,
  // store.
  Value alpha = c.isMX() ? Value()
                         : createMatmulAlpha(b, loc, lhsAmax, c.lhsTensorScale,
                                             rhsAmax, c.rhsTensorScale);
  Type resultType = c.resultElementType;
  for (int64_t i = 0; i < tile.mmasM(); ++i) {
    for (int64_t j = 0; j < tile.mmasN(); ++j) {
      for (int r = 0; r < kMmaCRegs; ++r) {
        IndexExpr row = tileM * tile.m + warpRow + i * kMmaM + cFragRow(g, r);
        IndexExpr col = tileN * tile.n + warpCol + j * kMmaN + cFragCol(q, r);
        // Results past M or N are not stored.
        std::optional<OpBuilder::InsertionGuard> storeGuard;
        if (mResidue || nResidue) {
          Value inBounds;
          if (mResidue)
            inBounds = rowIn(row, c.m);
          if (nResidue) {
            Value colIn = rowIn(col, c.n);
            inBounds = inBounds
                           ? arith::AndIOp::create(b, loc, inBounds, colIn)
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
        Value v = loop.getResult((i * tile.mmasN() + j) * kMmaCRegs + r);
        if (alpha)
          v = arith::MulFOp::create(b, loc, v, alpha);
        if (acc) {
          Value prev = memref::LoadOp::create(b, loc, acc, indices);
          if (prev.getType() != f32)
            prev = arith::ExtFOp::create(b, loc, f32, prev);
          v = arith::AddFOp::create(b, loc, v, prev);
        }
        if (resultType != f32)
          v = arith::TruncFOp::create(b, loc, resultType, v);
        memref::StoreOp::create(b, loc, v, result, indices);
      }
    }
  }
  gpu::ReturnOp::create(b, loc);
  return kernel;
}

gpu::GPUFuncOp mlir::nvfp4::detail::buildMmaSyncMatmulKernel(
    OpBuilder &b, Location loc, const MatmulConfig &config, GPUTarget target,
    gpu::GPUModuleOp module, StringRef name, TypeRange argTypes) {
  return KernelBuilder(b, loc, config, target).build(module, name, argTypes);
}
