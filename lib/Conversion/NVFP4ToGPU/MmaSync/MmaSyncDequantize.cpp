//===- MmaSyncDequantize.cpp - The sm_90a dequantizing K step -------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The K step of the mma.sync matmul kernel on sm_90a, which has no FP4
// tensor cores: the staged E2M1 codes and E4M3 scales are dequantized to
// bf16 in registers, exactly, and multiplied by bf16 m16n8k16 MMAs with f32
// accumulation. docs/gpu.md ("The sm_90a fallback") derives the exactness.
//
//===----------------------------------------------------------------------===//

#include "MmaSyncKernelBuilder.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::nvfp4;
using namespace mlir::nvfp4::detail;
namespace layout = ::nvfp4::gpu;

Value MmaSyncKernelBuilder::decodeHalfScale(Value byte) {
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

Value MmaSyncKernelBuilder::dequantizePair(Value word, Value halfScale) {
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

SmallVector<Value>
MmaSyncKernelBuilder::emitDequantizedStep(const StepOperands &op) {
  using namespace layout;
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  // Every register of the lane takes its two codes from byte q of a word.
  Value byteShift =
      arith::IndexCastUIOp::create(b, loc, i32, (bf16FragByte(op.q) * 8).v);
  auto loadCodes = [&](Value slotBase, IndexExpr row, int64_t word) -> Value {
    Value w = LLVM::LoadOp::create(
        b, loc, i32,
        sharedAddress(slotBase,
                      row * kTileRowBytes + swizzleWord(row, idx(word)) * 4),
        /*alignment=*/4);
    return arith::ShRUIOp::create(b, loc, w, byteShift);
  };
  Value aSlot = sharedAddress(op.smemAPtr, op.slot * c.tile.aStageBytes());
  Value bSlot = sharedAddress(op.smemBPtr, op.slot * c.tile.bStageBytes());

  // Scale block s of the step in slot row `row` of A (`lhs`) or B: byte
  // s % 4 of word s / 4, loaded where it is first used (rows g and g + 8 of
  // each A tile, column g of each B tile: 8 rows per load, or one compact
  // row of 16x16 blocks), so that only one word of each row is live.
  const int64_t mmasM = c.tile.mmasM(), mmasN = c.tile.mmasN();
  auto scaleByte = [&](bool lhs, IndexExpr row, int64_t s) -> Value {
    Value word = loadScaleWord(op, lhs, row, s / 4);
    return s % 4 == 0
               ? word
               : arith::ShRUIOp::create(b, loc, word, i32Const(8 * (s % 4)))
                     .getResult();
  };

  auto resType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(kMmaCRegs, f32));
  SmallVector<Value> acc(op.acc.begin(), op.acc.end());
  // Sub-step s covers k 16s .. 16s + 15 of the step: scale block s.
  for (int64_t s = 0; s < kBf16KSteps; ++s) {
    // The B fragments of the sub-step first; each A fragment is dequantized
    // right before its row of MMAs, so that only one is live.
    SmallVector<SmallVector<Value, 4>> bFrags;
    for (int64_t j = 0; j < mmasN; ++j) {
      IndexExpr col = op.warpCol + j * kMmaN + bFragCol(op.g, 0);
      Value halfScale = decodeHalfScale(scaleByte(
          /*lhs=*/false,
          scaleSlotRow(/*lhs=*/false, op.warpCol, j * kMmaN, bFragCol(op.g, 0)),
          s));
      SmallVector<Value, 4> regs;
      for (int r = 0; r < kBf16MmaBRegs; ++r)
        regs.push_back(dequantizePair(
            loadCodes(bSlot, col, bf16BFragWord(s, r)), halfScale));
      bFrags.push_back(regs);
    }
    for (int64_t i = 0; i < mmasM; ++i) {
      IndexExpr rowBase = op.warpRow + i * kMmaM;
      // Rows g and g + 8: one compact row with 16x16 blocks.
      std::array<Value, 2> halfScales;
      for (int half = 0; half < 2; ++half)
        halfScales[half] =
            half == 1 && c.lhsScaleStaging.blockRows > 1
                ? halfScales[0]
                : decodeHalfScale(scaleByte(
                      /*lhs=*/true,
                      scaleSlotRow(/*lhs=*/true, op.warpRow, i * kMmaM,
                                   bf16AFragRow(op.g, half)),
                      s));
      SmallVector<Value, 4> aFrag;
      for (int r = 0; r < kBf16MmaARegs; ++r)
        aFrag.push_back(
            dequantizePair(loadCodes(aSlot, rowBase + bf16AFragRow(op.g, r),
                                     bf16AFragWord(s, r)),
                           halfScales[r & 1]));
      for (int64_t j = 0; j < mmasN; ++j) {
        MutableArrayRef<Value> cRegs = MutableArrayRef<Value>(acc).slice(
            (i * mmasN + j) * kMmaCRegs, kMmaCRegs);
        auto mma = NVVM::MmaOp::create(
            b, loc, resType, aFrag, bFrags[j], ValueRange(cRegs),
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
