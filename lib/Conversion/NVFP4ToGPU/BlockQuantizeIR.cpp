//===- BlockQuantizeIR.cpp - NVFP4 quantization of one block --------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "BlockQuantizeIR.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Elementwise/QuantizeLayout.h"
#include "nvfp4/Numerics/Numerics.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <cfloat>
#include <limits>

using namespace mlir;
using namespace mlir::nvfp4;
using mlir::nvfp4::detail::BlockQuantizeEmitter;
namespace layout = ::nvfp4::gpu;

bool mlir::nvfp4::detail::hasHardwareE2M1Convert(GPUTarget target) {
  return target != GPUTarget::SM90a;
}

bool mlir::nvfp4::detail::hasHardwareStochasticE2M1Convert(GPUTarget target) {
  return target == GPUTarget::SM100a || target == GPUTarget::SM103a;
}

//===----------------------------------------------------------------------===//
// Constants and bits
//===----------------------------------------------------------------------===//

Value BlockQuantizeEmitter::i32(int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}
Value BlockQuantizeEmitter::f32(float v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}
Value BlockQuantizeEmitter::bits(Value f) {
  return arith::BitcastOp::create(b, loc, b.getI32Type(), f);
}
Value BlockQuantizeEmitter::toFloat(Value i) {
  return arith::BitcastOp::create(b, loc, b.getF32Type(), i);
}
Value BlockQuantizeEmitter::andI(Value x, int64_t m) {
  return arith::AndIOp::create(b, loc, x, i32(m));
}
Value BlockQuantizeEmitter::shrI(Value x, int64_t n) {
  return arith::ShRUIOp::create(b, loc, x, i32(n));
}
Value BlockQuantizeEmitter::shlI(Value x, int64_t n) {
  return arith::ShLIOp::create(b, loc, x, i32(n));
}
Value BlockQuantizeEmitter::addI(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value BlockQuantizeEmitter::orI(Value x, Value y) {
  return arith::OrIOp::create(b, loc, x, y);
}
Value BlockQuantizeEmitter::select(Value cond, Value t, Value f) {
  return arith::SelectOp::create(b, loc, cond, t, f);
}
Value BlockQuantizeEmitter::cmpF(arith::CmpFPredicate p, Value x, Value y) {
  return arith::CmpFOp::create(b, loc, p, x, y);
}
Value BlockQuantizeEmitter::cmpI(arith::CmpIPredicate p, Value x, Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}
Value BlockQuantizeEmitter::bit(Value cond) {
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), cond);
}

Value BlockQuantizeEmitter::globalEncodeScale(Value amax) {
  using P = arith::CmpFPredicate;
  Value s = arith::DivFOp::create(b, loc, f32(2688.0f), amax);
  Value fltMax = f32(FLT_MAX);
  // fminf: unordered-or-greater, so that a NaN amax gives FLT_MAX.
  s = select(cmpF(P::UGT, s, fltMax), fltMax, s);
  Value zero = f32(0.0f);
  Value useOne = orI(cmpF(P::OEQ, amax, zero), cmpF(P::OEQ, s, zero));
  return select(useOne, f32(1.0f), s);
}

Value BlockQuantizeEmitter::globalDecodeScale(Value amax) {
  return arith::DivFOp::create(b, loc, f32(1.0f), globalEncodeScale(amax));
}

//===----------------------------------------------------------------------===//
// Block amax
//===----------------------------------------------------------------------===//

Value BlockQuantizeEmitter::absMaxAccumulate(Value acc, Value x) {
  Value a = toFloat(andI(bits(x), 0x7FFFFFFF));
  return select(cmpF(arith::CmpFPredicate::OGT, a, acc), a, acc);
}

Value BlockQuantizeEmitter::blockAmax(ArrayRef<Value> values) {
  Value acc = f32(0.0f);
  for (Value x : values)
    acc = absMaxAccumulate(acc, x);
  return acc;
}

//===----------------------------------------------------------------------===//
// Encoders
//===----------------------------------------------------------------------===//

Value BlockQuantizeEmitter::encodeE4M3(Value v) {
  // docs/numerics.md §6: for v >= 2^-6 round the f32 bits at bit 20 to
  // nearest even and rebias; below, fl(fl(v * 512) + 2^23) rounds the
  // subnormal code (both f32 steps exact but the rounding). Saturate to
  // 0x7E (448); NaN gives 0x7F.
  Value u = bits(v);
  Value normal = arith::SubIOp::create(
      b, loc, shrI(addI(addI(u, i32(0x7FFFF)), andI(shrI(u, 20), 1)), 20),
      i32(120 << 3));
  Value scaled = arith::MulFOp::create(b, loc, v, f32(512.0f));
  Value rounded = arith::AddFOp::create(b, loc, scaled, f32(8388608.0f));
  Value subnormal =
      arith::SubIOp::create(b, loc, bits(rounded), i32(0x4B000000));
  Value code = select(cmpI(arith::CmpIPredicate::uge, u, i32(0x3C800000)),
                      normal, subnormal);
  code = arith::MinUIOp::create(b, loc, code, i32(0x7E));
  return select(cmpF(arith::CmpFPredicate::UNO, v, v), i32(0x7F), code);
}

Value BlockQuantizeEmitter::decodeE4M3(Value code) {
  // (-1)^0 * sig * 2^(max(e, 1) - 10), sig = m (e == 0) or 8 + m: an exact
  // product of a small integer and a power of two built from its bits.
  Value exponent = andI(shrI(code, 3), 0xF);
  Value mantissa = andI(code, 0x7);
  Value significand = select(cmpI(arith::CmpIPredicate::ne, exponent, i32(0)),
                             orI(mantissa, i32(8)), mantissa);
  Value clamped = arith::MaxUIOp::create(b, loc, exponent, i32(1));
  Value pow2 = toFloat(shlI(addI(clamped, i32(127 - 10)), 23));
  Value value = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, b.getF32Type(), significand),
      pow2);
  return select(cmpI(arith::CmpIPredicate::eq, code, i32(0x7F)),
                f32(std::numeric_limits<float>::quiet_NaN()), value);
}

Value BlockQuantizeEmitter::encodeE2M1(Value y) {
  // The number of rounding thresholds below |y| (ties to even: strict at
  // .25, 1.25, 2.5, 5; inclusive at .75, 1.75, 3.5), the sign bit or-ed in;
  // NaN gives 7.
  using P = arith::CmpFPredicate;
  Value u = bits(y);
  Value a = toFloat(andI(u, 0x7FFFFFFF));
  const std::pair<P, float> thresholds[] = {
      {P::OGT, 0.25f}, {P::OGE, 0.75f}, {P::OGT, 1.25f}, {P::OGE, 1.75f},
      {P::OGT, 2.5f},  {P::OGE, 3.5f},  {P::OGT, 5.0f}};
  Value code = i32(0);
  for (auto [pred, t] : thresholds)
    code = addI(code, bit(cmpF(pred, a, f32(t))));
  code = orI(code, andI(shrI(u, 28), 0x8));
  return select(cmpF(P::UNO, y, y), i32(0x7), code);
}

Value BlockQuantizeEmitter::encodeE2M1Stochastic(Value y, Value rbits) {
  // docs/numerics.md §3/§6: t = the number of grid points (0.5, 1, 1.5, 2,
  // 3, 4, 6) at or below |y|; top8 = the 8 most significant discarded bits
  // (floor(|y| * 512) below 0.5, mantissa bits 22..15 on [0.5, 1), 21..14
  // from 1 on); code = min(t + carry(top8 + rbits), 7), sign or-ed in; NaN
  // gives 7.
  using P = arith::CmpFPredicate;
  Value u = bits(y);
  Value absBits = andI(u, 0x7FFFFFFF);
  Value a = toFloat(absBits);
  Value t = i32(0);
  for (float point : {0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f})
    t = addI(t, bit(cmpF(P::OGE, a, f32(point))));
  Value small = arith::FPToUIOp::create(
      b, loc, b.getI32Type(), arith::MulFOp::create(b, loc, a, f32(512.0f)));
  Value top8 =
      select(cmpF(P::OLT, a, f32(0.5f)), small,
             select(cmpF(P::OLT, a, f32(1.0f)), andI(shrI(absBits, 15), 0xFF),
                    andI(shrI(absBits, 14), 0xFF)));
  Value carry = shrI(addI(top8, andI(rbits, 0xFF)), 8);
  Value code = arith::MinUIOp::create(b, loc, addI(t, carry), i32(7));
  code = orI(code, andI(shrI(u, 28), 0x8));
  return select(cmpF(P::UNO, y, y), i32(0x7), code);
}

namespace {
/// An i32 value with the bitwise operators cvtRsE2M1x4Rbits needs.
struct Word {
  OpBuilder *b;
  Location loc;
  Value v;

  Value cst(int64_t c) const {
    return arith::ConstantIntOp::create(*b, loc, b->getI32Type(),
                                        static_cast<int32_t>(c));
  }
  friend Word operator&(Word x, int64_t c) {
    return {x.b, x.loc, arith::AndIOp::create(*x.b, x.loc, x.v, x.cst(c))};
  }
  friend Word operator|(Word x, Word y) {
    return {x.b, x.loc, arith::OrIOp::create(*x.b, x.loc, x.v, y.v)};
  }
  friend Word operator<<(Word x, int64_t c) {
    return {x.b, x.loc, arith::ShLIOp::create(*x.b, x.loc, x.v, x.cst(c))};
  }
  friend Word operator>>(Word x, int64_t c) {
    return {x.b, x.loc, arith::ShRUIOp::create(*x.b, x.loc, x.v, x.cst(c))};
  }
};
} // namespace

Value BlockQuantizeEmitter::convertE2M1x4Stochastic(ArrayRef<Value> y,
                                                    Value word) {
  Value rbits = layout::cvtRsE2M1x4Rbits(Word{&b, loc, word}).v;
  // {a, b, e, f} = {y3, y2, y1, y0}: d[15:12] = y3 ... d[3:0] = y0.
  auto vecType = VectorType::get({4}, b.getF32Type());
  Value src = LLVM::PoisonOp::create(b, loc, vecType);
  for (int64_t i = 0; i < 4; ++i) {
    Value pos = LLVM::ConstantOp::create(b, loc, b.getI32Type(), i);
    src = LLVM::InsertElementOp::create(b, loc, src, y[3 - i], pos);
  }
  Value cvt = NVVM::ConvertF32x4ToF4x4Op::create(b, loc, b.getI16Type(), src,
                                                 rbits, /*relu=*/false,
                                                 b.getType<Float4E2M1FNType>());
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), cvt);
}

std::array<Value, 4> BlockQuantizeEmitter::philox(Value seed, Value counter) {
  Type i32Type = b.getI32Type();
  auto lo = [&](Value v) -> Value {
    return arith::TruncIOp::create(b, loc, i32Type, v);
  };
  auto hi = [&](Value v) -> Value {
    return arith::TruncIOp::create(
        b, loc, i32Type,
        arith::ShRUIOp::create(
            b, loc, v,
            arith::ConstantIntOp::create(b, loc, b.getI64Type(), 32)));
  };
  auto xorI = [&](Value x, Value y) -> Value {
    return arith::XOrIOp::create(b, loc, x, y);
  };
  std::array<Value, 4> ctr = {lo(counter), hi(counter), i32(0), i32(0)};
  Value k0 = lo(seed), k1 = hi(seed);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 = addI(k0, i32(0x9E3779B9));
      k1 = addI(k1, i32(0xBB67AE85));
    }
    auto p0 = arith::MulUIExtendedOp::create(b, loc, i32(0xD2511F53), ctr[0]);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, i32(0xCD9E8D57), ctr[2]);
    ctr = {xorI(xorI(p1.getHigh(), ctr[1]), k0), p1.getLow(),
           xorI(xorI(p0.getHigh(), ctr[3]), k1), p0.getLow()};
  }
  return ctr;
}

//===----------------------------------------------------------------------===//
// One block
//===----------------------------------------------------------------------===//

BlockQuantizeEmitter::Block
BlockQuantizeEmitter::quantizeBlock(ArrayRef<Value> values, Value encodeScale) {
  return quantizeBlock(values, encodeScale, blockAmax(values),
                       /*stochastic=*/std::nullopt);
}

BlockQuantizeEmitter::Block BlockQuantizeEmitter::quantizeBlock(
    ArrayRef<Value> values, Value encodeScale, Value scaleAmax,
    const std::optional<BlockStochasticRounding> &stochastic) {
  using P = arith::CmpFPredicate;
  // S_dec = 1 / S_enc and t = S_enc * fl(1/6) (docs/numerics.md §6 5.-6.).
  Value decodeScale = arith::DivFOp::create(b, loc, f32(1.0f), encodeScale);
  Value encodeOver6 =
      arith::MulFOp::create(b, loc, encodeScale, f32(1.0f / 6.0f));

  // The block scale s_b = RN_E4M3(min(bamax * t, FLT_MAX)) and the element
  // multiplier m = min(1 / (decodeE4M3(s_b) * S_dec), FLT_MAX) (§6 6.-7.).
  Value fltMax = f32(FLT_MAX);
  Value scaled = arith::MulFOp::create(b, loc, scaleAmax, encodeOver6);
  scaled = select(cmpF(P::OGT, scaled, fltMax), fltMax, scaled);
  Value scaleCode = encodeE4M3(scaled);
  Value m = arith::DivFOp::create(
      b, loc, f32(1.0f),
      arith::MulFOp::create(b, loc, decodeE4M3(scaleCode), decodeScale));
  m = select(cmpF(P::OGT, m, fltMax), fltMax, m);

  // The codes of fl(x * m) (§6 8.), packed two per byte, the even element
  // in the low nibble.
  SmallVector<Value> y;
  for (Value x : values)
    y.push_back(arith::MulFOp::create(b, loc, x, m));
  std::array<Value, 4> rbits;
  if (stochastic)
    rbits = philox(stochastic->seed, stochastic->counter);
  Type i32Type = b.getI32Type(), i64Type = b.getI64Type();
  Value packed = arith::ConstantIntOp::create(b, loc, i64Type, 0);
  for (int64_t k = 0; k < 8; ++k) {
    Value byte;
    if (stochastic && stochastic->hardware) {
      // One conversion per Philox word yields bytes k and k+1 (k even).
      if (k % 2 == 1)
        continue;
      byte = convertE2M1x4Stochastic(ArrayRef<Value>(y).slice(2 * k, 4),
                                     rbits[k / 2]);
    } else if (stochastic) {
      auto rbit = [&](int64_t j) { return shrI(rbits[j / 4], 8 * (j % 4)); };
      Value lowCode = encodeE2M1Stochastic(y[2 * k], rbit(2 * k));
      Value highCode = encodeE2M1Stochastic(y[2 * k + 1], rbit(2 * k + 1));
      byte = orI(lowCode, shlI(highCode, 4));
    } else if (hasHardwareE2M1Convert(target)) {
      // cvt.rn.satfinite.e2m1x2.f32 puts `a` in the high nibble.
      Value cvt = NVVM::ConvertF32x2ToF4x2Op::create(
          b, loc, b.getI8Type(), y[2 * k + 1], y[2 * k], /*relu=*/false,
          b.getType<Float4E2M1FNType>());
      byte = arith::ExtUIOp::create(b, loc, i32Type, cvt);
    } else {
      byte = orI(encodeE2M1(y[2 * k]), shlI(encodeE2M1(y[2 * k + 1]), 4));
    }
    Value wide = arith::ExtUIOp::create(b, loc, i64Type, byte);
    if (k > 0)
      wide = arith::ShLIOp::create(
          b, loc, wide, arith::ConstantIntOp::create(b, loc, i64Type, 8 * k));
    packed = arith::OrIOp::create(b, loc, packed, wide);
  }
  Value scale = arith::TruncIOp::create(b, loc, b.getI8Type(), scaleCode);
  return {packed, scale};
}
