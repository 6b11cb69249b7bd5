//===- InlineNumerics.cpp - The nvfp4 numerics in upstream ops ------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The numerics of the `kernels=inline` lowering: quantization, the RHT,
// dequantization, the amax and the block-scaled GEMM emitted as linalg,
// vector, scf, tensor and arith ops that compute exactly the f32 operations
// of the reference library (docs/numerics.md), in the same order:
//
// - E2M1/E4M3 encodings are integer arithmetic on the f32 bit pattern
//   (truncate the significand, round on the discarded bits, saturate); no
//   `arith.truncf` to a small float type is used.
// - Quantization works on one 16-element block at a time as a vector<16xf32>
//   (also for 16x16 tiles, one row of the tile at a time).
// - Stochastic rounding bits come from Philox4x32-10 written in arith.
// - The Hadamard transform is the reference's four butterfly stages.
// - The GEMM sums each 16-wide K block exactly, scales it, and accumulates
//   the blocks in f32 in increasing K.
//
//===----------------------------------------------------------------------===//

#include "InlineNumerics.h"

#include "LoweringUtils.h"

#include "nvfp4/Dialect/NVFP4/Utils/TensorScaleUtils.h"
#include "nvfp4/Numerics/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cfloat>

using namespace mlir;
using namespace mlir::nvfp4;
using namespace mlir::nvfp4::reference;

//===----------------------------------------------------------------------===//
// Element arithmetic on f32 bit patterns
//===----------------------------------------------------------------------===//

namespace {

/// Emits arith ops on an f32 scalar or an f32 vector (`floatType`) and on the
/// i32 type of the same shape.
class BitBuilder {
public:
  BitBuilder(OpBuilder &b, Location loc, Type floatType)
      : b(b), loc(loc), floatType(floatType) {
    Type i32 = b.getI32Type();
    if (auto vec = dyn_cast<VectorType>(floatType))
      intType = vec.clone(i32);
    else
      intType = i32;
  }

  OpBuilder &b;
  Location loc;
  Type floatType;
  Type intType;

  Value i(uint32_t value) {
    auto attr = b.getI32IntegerAttr(static_cast<int32_t>(value));
    if (auto vec = dyn_cast<VectorType>(intType))
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vec, attr.getValue()));
    return arith::ConstantOp::create(b, loc, attr);
  }
  Value f(float value) {
    auto attr = b.getF32FloatAttr(value);
    if (auto vec = dyn_cast<VectorType>(floatType))
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vec, attr.getValue()));
    return arith::ConstantOp::create(b, loc, attr);
  }
  Value bits(Value x) { return arith::BitcastOp::create(b, loc, intType, x); }
  Value toFloat(Value x) {
    return arith::BitcastOp::create(b, loc, floatType, x);
  }
  Value band(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value bor(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value maxs(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value mins(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value minu(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value icmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value zext(Value x) { return arith::ExtUIOp::create(b, loc, intType, x); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fdiv(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }

  /// `v > FLT_MAX ? FLT_MAX : v` (NaN stays NaN), the reference's clamp.
  /// fminf(v, FLT_MAX): FLT_MAX when v is NaN or above it.
  Value fminFltMax(Value v) {
    Value max = f(FLT_MAX);
    Value gt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGT, v, max);
    return select(gt, max, v);
  }
  Value clampFltMax(Value v) {
    Value max = f(FLT_MAX);
    Value gt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, v, max);
    return select(gt, max, v);
  }

  /// `|x| > acc ? |x| : acc`: the NaN-ignoring running maximum of the
  /// reference (acc starts at +0 and is never NaN).
  Value absMaxAccumulate(Value acc, Value x) {
    Value a = absBitsClear(x);
    Value gt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a, acc);
    return select(gt, a, acc);
  }

  /// |x| by clearing the sign bit (exact, keeps NaN payloads).
  Value absBitsClear(Value x) { return toFloat(band(bits(x), i(0x7FFFFFFFu))); }
};

/// A small binary format: explicit mantissa bits, smallest normal exponent
/// (unbiased), largest finite magnitude code, the code a NaN encodes to and
/// the position of the sign bit.
struct MiniFormat {
  unsigned manBits;
  int minExp;
  uint32_t maxCode;
  uint32_t nanCode;
  unsigned signBit;
};

constexpr MiniFormat kE2M1{1, 0, 0x7, 0x7, 3};
constexpr MiniFormat kE4M3{3, -6, 0x7E, 0x7F, 7};

/// Encodes the f32 value(s) `x` to `fmt` (docs/numerics.md §2-3): with
/// `rbits` null, round-to-nearest-even; otherwise stochastic rounding adding
/// the 8 bits of `rbits` (i32 lanes) to the top 8 discarded bits. Returns the
/// code with its sign bit in i32 lanes.
///
/// The significand `sig` (implicit bit included) is shifted right by
/// `shift = 23 - manBits + max(minExp - E, 0)`. For every input that is
/// truncated to zero the clamped shift amounts below still give `q = 0`,
/// `rem < 2^24 < half` and `top8 = 0`, so f32 subnormals and zeros (whose
/// bogus implicit bit is also < 2^24) never round up, exactly as the
/// reference's "everything discarded" case. Infinities produce a huge code
/// that saturates.
Value encodeMini(BitBuilder &bb, Value x, const MiniFormat &fmt,
                 Value rbits = nullptr) {
  using P = arith::CmpIPredicate;
  Value u = bb.bits(x);
  Value absBits = bb.band(u, bb.i(0x7FFFFFFFu));
  Value expField = bb.shr(absBits, bb.i(23));
  Value e = bb.sub(expField, bb.i(127));
  Value sig = bb.bor(bb.band(absBits, bb.i(0x7FFFFFu)), bb.i(0x800000u));
  Value extra =
      bb.maxs(bb.sub(bb.i(static_cast<uint32_t>(fmt.minExp)), e), bb.i(0));
  Value shift = bb.add(bb.i(23 - fmt.manBits), extra);
  Value s31 = bb.mins(shift, bb.i(31));
  Value s32 = bb.mins(shift, bb.i(32));
  Value q = bb.shr(sig, s31);
  Value rem = bb.band(sig, bb.sub(bb.shl(bb.i(1), s31), bb.i(1)));
  Value expPart =
      bb.maxs(bb.sub(e, bb.i(static_cast<uint32_t>(fmt.minExp))), bb.i(0));
  Value code = bb.add(bb.shl(expPart, bb.i(fmt.manBits)), q);
  Value up;
  if (!rbits) {
    Value half = bb.shl(bb.i(1), bb.sub(s32, bb.i(1)));
    Value above = bb.icmp(P::ugt, rem, half);
    Value tie = bb.icmp(P::eq, rem, half);
    Value odd = bb.icmp(P::ne, bb.band(code, bb.i(1)), bb.i(0));
    up = arith::OrIOp::create(bb.b, bb.loc, above,
                              arith::AndIOp::create(bb.b, bb.loc, tie, odd));
  } else {
    Value top8 = bb.shr(rem, bb.sub(s32, bb.i(8)));
    up = bb.icmp(P::uge, bb.add(top8, rbits), bb.i(256));
  }
  code = bb.add(code, bb.zext(up));
  code = bb.minu(code, bb.i(fmt.maxCode));
  Value sign = bb.shl(bb.shr(u, bb.i(31)), bb.i(fmt.signBit));
  Value isNaN = bb.icmp(P::ugt, absBits, bb.i(0x7F800000u));
  return bb.select(isNaN, bb.i(fmt.nanCode), bb.bor(sign, code));
}

/// Decodes E2M1 codes (i32 lanes, low nibble) to f32: magnitudes >= 2 are
/// normal (`(mag << 22) + bits(0.5)`), 1 is 0.5, 0 is 0.
Value decodeE2M1(BitBuilder &bb, Value code) {
  using P = arith::CmpIPredicate;
  Value mag = bb.band(code, bb.i(0x7));
  Value normal = bb.add(bb.shl(mag, bb.i(22)), bb.i(0x3F000000u));
  Value sub =
      bb.select(bb.icmp(P::eq, mag, bb.i(1)), bb.i(0x3F000000u), bb.i(0));
  Value magBits = bb.select(bb.icmp(P::uge, mag, bb.i(2)), normal, sub);
  Value sign = bb.shl(bb.band(code, bb.i(0x8)), bb.i(28));
  return bb.toFloat(bb.bor(magBits, sign));
}

/// Decodes E4M3 bytes (i32 lanes, low byte) to f32 exactly; 0x7F/0xFF give
/// a quiet NaN with the code's sign, as the reference.
Value decodeE4M3(BitBuilder &bb, Value code) {
  using P = arith::CmpIPredicate;
  Value expField = bb.band(bb.shr(code, bb.i(3)), bb.i(0xF));
  Value man = bb.band(code, bb.i(0x7));
  Value normal = bb.bor(bb.shl(bb.add(expField, bb.i(120)), bb.i(23)),
                        bb.shl(man, bb.i(20)));
  // Subnormal: man * 2^-9, both factors exact.
  Value subF = bb.fmul(arith::UIToFPOp::create(bb.b, bb.loc, bb.floatType, man),
                       bb.f(0.001953125f));
  Value sub = bb.bits(subF);
  Value magBits = bb.select(bb.icmp(P::eq, expField, bb.i(0)), sub, normal);
  Value isNaN = bb.icmp(P::eq, bb.band(code, bb.i(0x7F)), bb.i(0x7F));
  magBits = bb.select(isNaN, bb.i(0x7FC00000u), magBits);
  Value sign = bb.shl(bb.band(code, bb.i(0x80)), bb.i(24));
  return bb.toFloat(bb.bor(magBits, sign));
}

/// Philox4x32-10 (Random123's philox4x32_R(10, ctr, key)) with key {seed lo,
/// seed hi} and counter {counter lo, counter hi, 0, 0}; `seed` and `counter`
/// are i64.
std::array<Value, 4> emitPhilox(OpBuilder &b, Location loc, Value seed,
                                Value counter) {
  Type i32 = b.getI32Type();
  auto c32 = [&](uint32_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, b.getI32IntegerAttr(static_cast<int32_t>(v)));
  };
  auto lo = [&](Value v) -> Value {
    return arith::TruncIOp::create(b, loc, i32, v);
  };
  auto hi = [&](Value v) -> Value {
    Value s = arith::ShRUIOp::create(
        b, loc, v, arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32)));
    return arith::TruncIOp::create(b, loc, i32, s);
  };
  Value k0 = lo(seed), k1 = hi(seed);
  std::array<Value, 4> c = {lo(counter), hi(counter), c32(0), c32(0)};
  Value m0 = c32(0xD2511F53u), m1 = c32(0xCD9E8D57u);
  Value w0 = c32(0x9E3779B9u), w1 = c32(0xBB67AE85u);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 = arith::AddIOp::create(b, loc, k0, w0);
      k1 = arith::AddIOp::create(b, loc, k1, w1);
    }
    auto p0 = arith::MulUIExtendedOp::create(b, loc, m0, c[0]);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, m1, c[2]);
    Value n0 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p1.getHigh(), c[1]), k0);
    Value n2 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p0.getHigh(), c[3]), k1);
    c = {n0, p1.getLow(), n2, p0.getLow()};
  }
  return c;
}

/// The 16 stochastic-rounding bytes of one Philox output as vector<16xi32>:
/// lane l gets byte l % 4 of word l / 4 (little-endian byte numbering).
Value emitRoundingBits(OpBuilder &b, Location loc,
                       const std::array<Value, 4> &words) {
  SmallVector<Value> lanes;
  for (int l = 0; l < 16; ++l)
    lanes.push_back(words[l / 4]);
  auto vecType = VectorType::get({16}, b.getI32Type());
  Value vec = vector::FromElementsOp::create(b, loc, vecType, lanes);
  SmallVector<int32_t> shifts;
  for (int l = 0; l < 16; ++l)
    shifts.push_back(8 * (l % 4));
  Value shiftVec = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(vecType, ArrayRef<int32_t>(shifts)));
  BitBuilder bb(b, loc, VectorType::get({16}, b.getF32Type()));
  return bb.band(bb.shr(vec, shiftVec), bb.i(0xFF));
}

/// The random Hadamard transform of one 16-element group (docs/numerics.md
/// §5): sign flip, butterflies h = 1, 2, 4, 8 where pair (i, i + h) becomes
/// (a + b, a - b), then * 0.25.
Value emitHadamard16(OpBuilder &b, Location loc, Value v,
                     ArrayRef<int8_t> signs) {
  auto vecType = cast<VectorType>(v.getType());
  Value negated = arith::NegFOp::create(b, loc, v);
  SmallVector<int64_t> pick;
  for (int j = 0; j < 16; ++j)
    pick.push_back(signs[j] < 0 ? 16 + j : j);
  v = vector::ShuffleOp::create(b, loc, v, negated, pick);
  for (int h = 1; h < 16; h <<= 1) {
    SmallVector<int64_t> partner, merge;
    for (int i = 0; i < 16; ++i) {
      partner.push_back(i ^ h);
      merge.push_back((i & h) ? 16 + i : i);
    }
    // p[i] = v[i ^ h]; lanes without bit h take v[i] + v[i + h], lanes with
    // it take v[i - h] - v[i] (the (a - b) of their pair).
    Value p = vector::ShuffleOp::create(b, loc, v, v, partner);
    Value sum = arith::AddFOp::create(b, loc, v, p);
    Value diff = arith::SubFOp::create(b, loc, p, v);
    v = vector::ShuffleOp::create(b, loc, sum, diff, merge);
  }
  BitBuilder bb(b, loc, vecType);
  return bb.fmul(v, bb.f(0.25f));
}

VectorType f32x16(OpBuilder &b) {
  return VectorType::get({16}, b.getF32Type());
}

/// Reads 16 consecutive elements of row `r` of a 2D tensor from column `c`.
Value readRow16(OpBuilder &b, Location loc, Value t, Value r, Value c) {
  auto elementType = cast<RankedTensorType>(t.getType()).getElementType();
  Value pad = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  return vector::TransferReadOp::create(
      b, loc, VectorType::get({16}, elementType), t, ValueRange{r, c}, pad,
      ArrayRef<bool>{true});
}

/// Writes a 16-element vector into row `r` of a 2D tensor from column `c`.
Value writeRow16(OpBuilder &b, Location loc, Value v, Value t, Value r,
                 Value c) {
  return vector::TransferWriteOp::create(b, loc, v, t, ValueRange{r, c},
                                         ArrayRef<bool>{true})
      .getResult();
}

/// Folds the 16 lanes of a running block maximum into one f32 (the lanes
/// are non-negative and never NaN, so any order gives the same value).
Value horizontalMax(OpBuilder &b, Location loc, Value vec) {
  BitBuilder bb(b, loc, b.getF32Type());
  Value acc = bb.f(0.0f);
  for (int64_t l = 0; l < 16; ++l) {
    Value lane = vector::ExtractOp::create(b, loc, vec, l);
    Value gt =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, lane, acc);
    acc = arith::SelectOp::create(b, loc, gt, lane, acc);
  }
  return acc;
}

/// Emits `for iv in [0, ub) step 1` with `inits` as iteration arguments;
/// `body` returns the values to yield.
scf::ForOp emitLoop(
    OpBuilder &b, Location loc, int64_t ub, ValueRange inits,
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value, ValueRange)>
        body) {
  return scf::ForOp::create(
      b, loc, indexConst(b, loc, 0), indexConst(b, loc, ub),
      indexConst(b, loc, 1), inits,
      [&](OpBuilder &nb, Location nloc, Value iv, ValueRange args) {
        scf::YieldOp::create(nb, nloc, body(nb, nloc, iv, args));
      });
}

} // namespace

namespace mlir::nvfp4::reference {

//===----------------------------------------------------------------------===//
// Hadamard, quantize and dequantize on 2D tensors
//===----------------------------------------------------------------------===//

/// Applies the RHT to every 16-element group of each row of the f32 2D
/// tensor `x`.
Value emitHadamard2D(OpBuilder &b, Location loc, Value x,
                     ArrayRef<int8_t> signs) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value c16 = indexConst(b, loc, 16);
  auto outer = emitLoop(
      b, loc, rows, init,
      [&](OpBuilder &b, Location loc, Value r, ValueRange args) {
        auto inner = emitLoop(
            b, loc, cols / 16, args,
            [&](OpBuilder &b, Location loc, Value g, ValueRange args) {
              Value c = arith::MulIOp::create(b, loc, g, c16);
              Value v = readRow16(b, loc, x, r, c);
              Value y = emitHadamard16(b, loc, v, signs);
              return SmallVector<Value>{writeRow16(b, loc, y, args[0], r, c)};
            });
        return SmallVector<Value>(inner.getResults());
      });
  return outer.getResult(0);
}

/// The tensor amax of the f32 2D tensor `x` [rows, cols]: a per-lane
/// running maximum of |x| over all 16-element blocks, then over the lanes
/// (NaN ignored, 0 when nothing else; order-independent). `nvfp4.quantize`
/// without an amax operand and `nvfp4.amax` both compute it here.
Value emitAmax2D(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  Value c16 = indexConst(b, loc, 16);
  BitBuilder vb(b, loc, f32x16(b));
  auto outer = emitLoop(
      b, loc, rows, vb.f(0.0f),
      [&](OpBuilder &b, Location loc, Value r, ValueRange args) {
        auto inner = emitLoop(
            b, loc, cols / 16, args,
            [&](OpBuilder &b, Location loc, Value g, ValueRange args) {
              Value c = arith::MulIOp::create(b, loc, g, c16);
              BitBuilder vb(b, loc, f32x16(b));
              Value v = readRow16(b, loc, x, r, c);
              return SmallVector<Value>{vb.absMaxAccumulate(args[0], v)};
            });
        return SmallVector<Value>(inner.getResults());
      });
  return horizontalMax(b, loc, outer.getResult(0));
}

/// Quantizes the f32 2D tensor `x` [rows, cols] (docs/numerics.md §6) to
/// 2D components: codes [rows, cols] i8, scales [rows / R, cols / 16] i8,
/// and the f32 tensor amax the scales derive from.
Components emitQuantize(OpBuilder &b, Location loc, Value x,
                        const QuantizeParams &p) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t R = p.blockRows;
  Value c16 = indexConst(b, loc, 16);
  Value cR = indexConst(b, loc, R);

  // 1. The RHT, on a copy.
  if (p.hadamard)
    x = emitHadamard2D(b, loc, x, *p.hadamard);

  // 2. Tensor amax (of the transformed tensor), unless given.
  BitBuilder sb(b, loc, b.getF32Type());
  Value amax = p.amax ? p.amax : emitAmax2D(b, loc, x);

  // 3. S_enc = fminf(2688 / amax, FLT_MAX), 1 when amax == 0 or S_enc ==
  //    0; S_dec = 1 / S_enc; t = S_enc * fl(1/6).
  Value sEnc = sb.fminFltMax(sb.fdiv(sb.f(2688.0f), amax));
  Value zeroF = sb.f(0.0f);
  Value amaxZero =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, amax, zeroF);
  Value sEncZero =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, sEnc, zeroF);
  Value useOne = arith::OrIOp::create(b, loc, amaxZero, sEncZero);
  sEnc = sb.select(useOne, sb.f(1.0f), sEnc);
  Value sDec = sb.fdiv(sb.f(1.0f), sEnc);
  Value sEncOver6 = sb.fmul(sEnc, sb.f(1.0f / 6.0f));

  Value seed = p.seed;
  if (p.rounding == Rounding::Stochastic && !seed)
    seed = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));

  // 4. Blocks (tiles of R rows x 16 columns).
  Type i8 = b.getI8Type();
  Value data =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{rows, cols}, i8);
  Value scales = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{rows / R, cols / 16}, i8);
  auto tileLoop = emitLoop(
      b, loc, rows / R, ValueRange{data, scales},
      [&](OpBuilder &b, Location loc, Value tr, ValueRange args) {
        auto blockLoop = emitLoop(
            b, loc, cols / 16, args,
            [&](OpBuilder &b, Location loc, Value cb, ValueRange args) {
              Value c = arith::MulIOp::create(b, loc, cb, c16);
              Value r0 = arith::MulIOp::create(b, loc, tr, cR);
              // Block amax.
              BitBuilder vb(b, loc, f32x16(b));
              auto amaxLoop = emitLoop(
                  b, loc, R, vb.f(0.0f),
                  [&](OpBuilder &b, Location loc, Value rr, ValueRange acc) {
                    BitBuilder vb(b, loc, f32x16(b));
                    Value r = arith::AddIOp::create(b, loc, r0, rr);
                    Value v = readRow16(b, loc, x, r, c);
                    return SmallVector<Value>{vb.absMaxAccumulate(acc[0], v)};
                  });
              Value bamax = horizontalMax(b, loc, amaxLoop.getResult(0));
              // s_b = RN_E4M3(min(bamax * t, FLT_MAX)).
              BitBuilder sb(b, loc, b.getF32Type());
              Value sbCode = encodeMini(
                  sb, sb.clampFltMax(sb.fmul(bamax, sEncOver6)), kE4M3);
              // m = min(1 / (decode(s_b) * S_dec), FLT_MAX).
              Value m = sb.clampFltMax(
                  sb.fdiv(sb.f(1.0f), sb.fmul(decodeE4M3(sb, sbCode), sDec)));
              Value scaleByte = arith::TruncIOp::create(b, loc, i8, sbCode);
              Value newScales = tensor::InsertOp::create(
                  b, loc, scaleByte, args[1], ValueRange{tr, cb});
              // Codes of the R rows of the tile.
              auto rowLoop = emitLoop(
                  b, loc, R, args[0],
                  [&](OpBuilder &b, Location loc, Value rr, ValueRange acc) {
                    BitBuilder vb(b, loc, f32x16(b));
                    Value r = arith::AddIOp::create(b, loc, r0, rr);
                    Value v = readRow16(b, loc, x, r, c);
                    Value mVec =
                        vector::BroadcastOp::create(b, loc, f32x16(b), m);
                    Value scaled = vb.fmul(v, mVec);
                    Value rbits;
                    if (p.rounding == Rounding::Stochastic) {
                      // Philox counter offset + (r * cols + c) / 16.
                      Value group = arith::AddIOp::create(
                          b, loc,
                          arith::MulIOp::create(b, loc, r,
                                                indexConst(b, loc, cols / 16)),
                          cb);
                      Value counter = arith::AddIOp::create(
                          b, loc,
                          arith::IndexCastUIOp::create(b, loc, b.getI64Type(),
                                                       group),
                          arith::ConstantOp::create(
                              b, loc, b.getI64IntegerAttr(p.offset)));
                      rbits = emitRoundingBits(
                          b, loc, emitPhilox(b, loc, seed, counter));
                    }
                    Value codes = encodeMini(vb, scaled, kE2M1, rbits);
                    Value bytes = arith::TruncIOp::create(
                        b, loc, VectorType::get({16}, i8), codes);
                    return SmallVector<Value>{
                        writeRow16(b, loc, bytes, acc[0], r, c)};
                  });
              return SmallVector<Value>{rowLoop.getResult(0), newScales};
            });
        return SmallVector<Value>(blockLoop.getResults());
      });
  return {tileLoop.getResult(0), tileLoop.getResult(1), amax};
}

/// Dequantizes components of any rank: `e2m1(q) * ((e4m3(s) * amax) *
/// fl(1 / 2688))` in f32 (Transformer Engine's order), then rounded to
/// `elementType`.
Value emitDequantize(OpBuilder &b, Location loc, Value data, Value scales,
                     Value tensorScale, NVFP4TensorType type,
                     Type elementType) {
  int64_t blockRows = type.getBlock().getRows();
  auto dataType = cast<RankedTensorType>(data.getType());
  int64_t rank = dataType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> scaleExprs;
  for (int64_t d = 0; d < rank; ++d) {
    AffineExpr e = getAffineDimExpr(d, ctx);
    if (d == rank - 1)
      e = e.floorDiv(16);
    else if (d == rank - 2 && blockRows > 1)
      e = e.floorDiv(blockRows);
    scaleExprs.push_back(e);
  }
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap scaleMap = AffineMap::get(rank, 0, scaleExprs, ctx);
  Value init =
      tensor::EmptyOp::create(b, loc, dataType.getShape(), elementType);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{data, scales},
      ValueRange{init}, ArrayRef<AffineMap>{id, scaleMap, id}, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        BitBuilder bb(nb, nloc, nb.getF32Type());
        Value q = decodeE2M1(
            bb, arith::ExtUIOp::create(nb, nloc, bb.intType, args[0]));
        Value s = decodeE4M3(
            bb, arith::ExtUIOp::create(nb, nloc, bb.intType, args[1]));
        Value v = bb.fmul(q, createDequantizeFactor(nb, nloc, s, tensorScale,
                                                    type.getTensorScale()));
        linalg::YieldOp::create(nb, nloc, castScalar(nb, nloc, v, elementType));
      });
  return generic.getResult(0);
}

/// The block-scaled GEMM of docs/numerics.md §8 on [B, M, K] x [B, N, K].
Value emitBlockScaledMatmul(OpBuilder &b, Location loc, ValueRange a,
                            ValueRange bOp, NVFP4TensorType aType,
                            NVFP4TensorType bType, Value accIn) {
  int64_t ra = aType.getBlock().getRows(), rb = bType.getBlock().getRows();
  // Codes (E2M1) or scales (E4M3) decoded to f32, [B, rows, cols].
  auto decode = [&](Value t, bool scales) {
    return mapElements(b, loc, addBatchDim(b, loc, t), b.getF32Type(),
                       [scales](OpBuilder &nb, Location nloc, Value x) {
                         BitBuilder bb(nb, nloc, nb.getF32Type());
                         Value bits =
                             arith::ExtUIOp::create(nb, nloc, bb.intType, x);
                         return scales ? decodeE4M3(bb, bits)
                                       : decodeE2M1(bb, bits);
                       });
  };
  Value qa = decode(a[0], false), qb = decode(bOp[0], false);
  Value sa = decode(a[1], true), sbT = decode(bOp[1], true);
  auto qaType = cast<RankedTensorType>(qa.getType());
  auto qbType = cast<RankedTensorType>(qb.getType());
  int64_t batch = qaType.getDimSize(0), m = qaType.getDimSize(1),
          k = qaType.getDimSize(2), n = qbType.getDimSize(1);
  Value alpha = createMatmulAlpha(b, loc, a[2], aType.getTensorScale(), bOp[2],
                                  bType.getTensorScale());
  Value init = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{batch, m, n},
                                       b.getF32Type());
  Value c16 = indexConst(b, loc, 16);
  Value cRa = indexConst(b, loc, ra), cRb = indexConst(b, loc, rb);
  auto batchLoop = emitLoop(
      b, loc, batch, init,
      [&](OpBuilder &b, Location loc, Value bi, ValueRange args) {
        auto rowLoop = emitLoop(
            b, loc, m, args,
            [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
              Value ia = arith::DivUIOp::create(b, loc, i, cRa);
              auto colLoop = emitLoop(
                  b, loc, n, args,
                  [&](OpBuilder &b, Location loc, Value j, ValueRange args) {
                    Value jb = arith::DivUIOp::create(b, loc, j, cRb);
                    BitBuilder sb(b, loc, b.getF32Type());
                    auto kLoop = emitLoop(
                        b, loc, k / 16, sb.f(0.0f),
                        [&](OpBuilder &b, Location loc, Value kb,
                            ValueRange acc) {
                          BitBuilder sb(b, loc, b.getF32Type());
                          Value kk = arith::MulIOp::create(b, loc, kb, c16);
                          Value pad = sb.f(0.0f);
                          auto vt = f32x16(b);
                          Value va = vector::TransferReadOp::create(
                              b, loc, vt, qa, ValueRange{bi, i, kk}, pad,
                              ArrayRef<bool>{true});
                          Value vb = vector::TransferReadOp::create(
                              b, loc, vt, qb, ValueRange{bi, j, kk}, pad,
                              ArrayRef<bool>{true});
                          // Exact: multiples of 1/4 below 576 in size.
                          Value partial = vector::ReductionOp::create(
                              b, loc, vector::CombiningKind::ADD,
                              sb.fmul(va, vb), sb.f(0.0f));
                          Value sA = tensor::ExtractOp::create(
                              b, loc, sa, ValueRange{bi, ia, kb});
                          Value sB = tensor::ExtractOp::create(
                              b, loc, sbT, ValueRange{bi, jb, kb});
                          Value prod = sb.fmul(partial, sb.fmul(sA, sB));
                          return SmallVector<Value>{
                              arith::AddFOp::create(b, loc, acc[0], prod)};
                        });
                    Value c = sb.fmul(kLoop.getResult(0), alpha);
                    if (accIn)
                      c = arith::AddFOp::create(
                          b, loc, c,
                          tensor::ExtractOp::create(b, loc, accIn,
                                                    ValueRange{bi, i, j}));
                    return SmallVector<Value>{tensor::InsertOp::create(
                        b, loc, c, args[0], ValueRange{bi, i, j})};
                  });
              return SmallVector<Value>(colLoop.getResults());
            });
        return SmallVector<Value>(rowLoop.getResults());
      });
  return batchLoop.getResult(0);
}

} // namespace mlir::nvfp4::reference
