//===- QuantizeKernel.cpp - Lower NVFP4 quantization to GPU kernels -------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Lowers `nvfp4.quantize` to launches of two kernels of the
// `gpu.module @nvfp4_kernels`:
//
//  * `nvfp4_amax_*` (only without an explicit `amax` operand): every CTA
//    reduces a grid-strided share of the (Hadamard-transformed) input to the
//    maximum magnitude and writes it to one slot of a buffer of per-CTA
//    partial maxima;
//  * `nvfp4_quantize_*`: reduces those partials (or takes the explicit amax),
//    derives S_enc and S_dec, and quantizes one 16-element block per thread:
//    block amax (over the 16x16 tile by a half-warp butterfly for 2D
//    scales), E4M3 block scale, reciprocal multiplier, E2M1 codes (RN by
//    `cvt.rn.satfinite.e2m1x2.f32` on every target but sm_90a, in software
//    there; SR from Philox4x32-10 bits in software, or on request
//    (`hardware-sr`, sm_100a/sm_103a only) by `cvt.rs.satfinite.e2m1x4.f32`),
//    written packed two codes per byte, plus the compact scale bytes and
//    S_dec.
//
// Every f32 operation is the one docs/numerics.md §6 prescribes, in the same
// order, so the kernels produce the bytes of nvfp4::quantize. The host side
// reads S_dec back and rebuilds the NVFP4 value with `nvfp4.assemble` over the
// very buffers the kernel wrote; the matmul lowering takes them from there
// without copies. docs/gpu.md describes the design; the work assignment lives
// in QuantizeLayout.h.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"

#include "nvfp4/Conversion/NVFP4ToGPU/QuantizeLayout.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "KernelIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Format.h"

#include <cfloat>
#include <limits>

using namespace mlir;
using namespace mlir::nvfp4;
namespace layout = ::nvfp4::gpu;

//===----------------------------------------------------------------------===//
// Configuration
//===----------------------------------------------------------------------===//

namespace {
/// Everything the quantize kernels are specialized on.
struct QuantizeConfig {
  SmallVector<int64_t> shape;
  int64_t rows = 0, cols = 0, numElements = 0;
  int64_t blockRows = 1;
  Type inputElementType;
  bool stochastic = false;
  uint64_t offset = 0;
  bool hadamard = false;
  std::array<bool, 16> negate{}; // signs[j] < 0
  bool explicitAmax = false;
  /// SR by cvt.rs.satfinite.e2m1x4.f32 (stochastic ops, hardware-sr).
  bool hardwareSR = false;

  static QuantizeConfig get(QuantizeOp op, bool hardwareSR = false) {
    QuantizeConfig c;
    auto input = cast<RankedTensorType>(op.getInput().getType());
    auto result = cast<NVFP4TensorType>(op.getResult().getType());
    c.shape.assign(input.getShape().begin(), input.getShape().end());
    c.cols = c.shape.empty() ? 0 : c.shape.back();
    c.numElements = input.hasStaticShape() ? input.getNumElements() : -1;
    c.rows = c.cols > 0 ? c.numElements / c.cols : 0;
    c.blockRows = result.getBlock().getRows();
    c.inputElementType = input.getElementType();
    c.stochastic = op.getRounding() == Rounding::Stochastic;
    if (c.stochastic)
      c.offset = op.getOffset().value_or(0);
    if (std::optional<ArrayRef<int8_t>> signs = op.getHadamard()) {
      c.hadamard = true;
      for (auto [j, s] : llvm::enumerate(*signs))
        if (j < 16)
          c.negate[j] = s < 0;
    }
    c.explicitAmax = static_cast<bool>(op.getAmax());
    c.hardwareSR = hardwareSR && c.stochastic;
    return c;
  }

  int64_t numBlocks() const { return layout::quantizeNumBlocks(numElements); }

  /// Bit j set when the Hadamard sign j is negative.
  unsigned signMask() const {
    unsigned m = 0;
    for (int j = 0; j < 16; ++j)
      m |= negate[j] ? 1u << j : 0u;
    return m;
  }

  std::string elementTypeName() const {
    if (inputElementType.isF32())
      return "f32";
    return inputElementType.isBF16() ? "bf16" : "f16";
  }
  std::string hadamardSuffix() const {
    if (!hadamard)
      return "";
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "_rht" << llvm::format_hex_no_prefix(signMask(), 4);
    return s;
  }

  /// The input shape, e.g. `2x64x64` (kernel arguments are typed by it).
  std::string shapeName() const {
    std::string s;
    for (auto [i, d] : llvm::enumerate(shape))
      s += (i ? "x" : "") + std::to_string(d);
    return s;
  }
  /// e.g. `nvfp4_amax_256x256_bf16_rhtd7e8`.
  std::string amaxKernelName() const {
    return "nvfp4_amax_" + shapeName() + "_" + elementTypeName() +
           hadamardSuffix();
  }
  /// e.g. `nvfp4_quantize_256x512_16x16_f32_rn`,
  /// `nvfp4_quantize_64x1024_1x16_bf16_rs_o8_rhtd7e8_amax`.
  std::string quantizeKernelName() const {
    std::string s = "nvfp4_quantize_" + shapeName() + "_" +
                    std::to_string(blockRows) + "x16_" + elementTypeName() +
                    (stochastic ? "_rs" : "_rn");
    if (stochastic)
      s += "_o" + std::to_string(offset);
    if (hardwareSR)
      s += "_hw";
    s += hadamardSuffix();
    if (explicitAmax)
      s += "_amax";
    return s;
  }
};
} // namespace

/// Whether `target` has `cvt.rn.satfinite.e2m1x2.f32` (PTX ISA: sm_100a,
/// sm_110a (formerly sm_101a), sm_120a and the sm_100f / sm_110f / sm_120f
/// families, hence sm_103a and sm_121a).
static bool hasHardwareE2M1Convert(GPUTarget target) {
  return target != GPUTarget::SM90a;
}

/// Whether `target` has `cvt.rs.satfinite.e2m1x4.f32` (PTX ISA: "`.rs`
/// rounding mode is supported on following architectures: sm_100a,
/// sm_103a").
static bool hasHardwareStochasticE2M1Convert(GPUTarget target) {
  return target == GPUTarget::SM100a || target == GPUTarget::SM103a;
}

static StringRef targetName(GPUTarget target) {
  switch (target) {
  case GPUTarget::SM120a:
    return "sm_120a";
  case GPUTarget::SM121a:
    return "sm_121a";
  case GPUTarget::SM90a:
    return "sm_90a";
  case GPUTarget::SM100a:
    return "sm_100a";
  case GPUTarget::SM103a:
    return "sm_103a";
  case GPUTarget::SM110a:
    return "sm_110a";
  }
  llvm_unreachable("unknown GPU target");
}

LogicalResult mlir::nvfp4::checkQuantizeSupported(QuantizeOp op,
                                                  GPUTarget target,
                                                  bool hardwareSR) {
  QuantizeConfig c = QuantizeConfig::get(op, hardwareSR);
  if (c.hardwareSR && !hasHardwareStochasticE2M1Convert(target))
    return op.emitOpError()
           << "with rounding rs cannot use hardware-sr on " << targetName(target)
           << ": cvt.rs.satfinite.e2m1x4.f32 exists on sm_100a and sm_103a "
              "only (drop hardware-sr to round in software)";
  if (c.numElements <= 0)
    return op.emitOpError()
           << "is not supported by the GPU kernel: the input must have a "
              "static, non-empty shape";
  if (!c.inputElementType.isF32() && !c.inputElementType.isBF16() &&
      !c.inputElementType.isF16())
    return op.emitOpError() << "is not supported by the GPU kernel: input "
                               "elements must be f32, bf16 or f16";
  if (c.cols % layout::kQuantizeBlock != 0)
    return op.emitOpError() << "is not supported by the GPU kernel: the last "
                               "dimension must be a multiple of 16";
  constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
  if (layout::quantizeNumCtas(c.numElements) > kMaxGridX)
    return op.emitOpError() << "is not supported by the GPU kernel: "
                            << c.numElements << " elements need more than "
                            << kMaxGridX << " CTAs";
  return success();
}

//===----------------------------------------------------------------------===//
// Device code
//===----------------------------------------------------------------------===//

namespace {
/// An `index` value with operators that emit `arith` operations, so that the
/// templates of QuantizeLayout.h generate IR.
struct Idx {
  OpBuilder *b;
  Location loc;
  Value v;

  Idx cst(int64_t c) const {
    return {b, loc, arith::ConstantIndexOp::create(*b, loc, c)};
  }
  friend Idx operator+(Idx x, int64_t c) {
    if (c == 0)
      return x;
    return {x.b, x.loc, arith::AddIOp::create(*x.b, x.loc, x.v, x.cst(c).v)};
  }
  friend Idx operator+(Idx x, Idx y) {
    return {x.b, x.loc, arith::AddIOp::create(*x.b, x.loc, x.v, y.v)};
  }
  friend Idx operator*(Idx x, int64_t c) {
    return {x.b, x.loc, arith::MulIOp::create(*x.b, x.loc, x.v, x.cst(c).v)};
  }
  friend Idx operator/(Idx x, int64_t c) {
    if (c == 1)
      return x;
    return {x.b, x.loc, arith::DivUIOp::create(*x.b, x.loc, x.v, x.cst(c).v)};
  }
  friend Idx operator%(Idx x, int64_t c) {
    return {x.b, x.loc, arith::RemUIOp::create(*x.b, x.loc, x.v, x.cst(c).v)};
  }
};

/// Emits the scalar device code of the quantize kernels. All f32 arithmetic
/// is plain `arith` without fast-math flags: LLVM's NVPTX back end neither
/// contracts it into FMAs nor relaxes the IEEE division (`div.rn.f32`).
class QuantizeEmitter {
public:
  QuantizeEmitter(OpBuilder &b, Location loc, const QuantizeConfig &config,
                  GPUTarget target)
      : b(b), loc(loc), c(config), target(target) {}

  gpu::GPUFuncOp buildAmaxKernel(gpu::GPUModuleOp module, TypeRange argTypes);
  gpu::GPUFuncOp buildQuantizeKernel(gpu::GPUModuleOp module,
                                     TypeRange argTypes);

private:
  //===--- Constants and bits ---------------------------------------------===//
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  Value f32(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Idx idx(Value v) { return {&b, loc, v}; }
  Idx idx(int64_t v) { return Idx{&b, loc, Value()}.cst(v); }
  Value bits(Value f) {
    return arith::BitcastOp::create(b, loc, b.getI32Type(), f);
  }
  Value toFloat(Value i) {
    return arith::BitcastOp::create(b, loc, b.getF32Type(), i);
  }
  Value andI(Value x, int64_t m) {
    return arith::AndIOp::create(b, loc, x, i32(m));
  }
  Value shrI(Value x, int64_t n) {
    return arith::ShRUIOp::create(b, loc, x, i32(n));
  }
  Value shlI(Value x, int64_t n) {
    return arith::ShLIOp::create(b, loc, x, i32(n));
  }
  Value addI(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value select(Value cond, Value t, Value f) {
    return arith::SelectOp::create(b, loc, cond, t, f);
  }
  Value cmpF(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value cmpI(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  /// 1 when `cond` holds, else 0, as i32.
  Value bit(Value cond) {
    return arith::ExtUIOp::create(b, loc, b.getI32Type(), cond);
  }

  //===--- Pieces of the quantization ---------------------------------------===//
  /// A global pointer to the first byte of `memref`.
  Value globalBasePointer(Value memref);
  Value byteAddress(Value base, Idx byteOffset);
  /// The 16 elements of block `block` of the input, extended to f32 (exact).
  SmallVector<Value> loadBlock(Value inputPtr, Idx block);
  /// applyHadamard on one group, in place: sign flip, butterflies h = 1, 2,
  /// 4, 8, times 0.25f.
  void hadamard(SmallVector<Value> &v);
  /// max(acc, |x|), a NaN x keeping acc (the `fmaxf` rule of the reference).
  Value absMaxAccumulate(Value acc, Value x);
  /// The maximum of `v` over the lanes of the xor-butterfly `offsets`.
  Value butterflyMax(Value v, ArrayRef<int32_t> offsets);
  /// The maximum of `v` (non-NaN) over the CTA; every thread receives it.
  Value ctaMax(Value v, Value smem, Idx lane, Idx warp);
  /// The maximum magnitude of the (transformed) block.
  Value blockAmax(ArrayRef<Value> v);
  /// S_enc from the tensor amax (globalEncodeScale).
  Value globalEncodeScale(Value amax);
  /// RN_E4M3 satfinite of a non-negative or NaN f32, as an i32 code.
  Value encodeE4M3(Value v);
  /// The f32 value of the E4M3 code `code` (0 .. 0x7F): exact.
  Value decodeE4M3(Value code);
  /// RN_E2M1 of `y` as an i32 code (software).
  Value encodeE2M1(Value y);
  /// encodeE2M1Stochastic(y, rbits) as an i32 code; `rbits` in the low 8
  /// bits of an i32.
  Value encodeE2M1Stochastic(Value y, Value rbits);
  /// Codes of y[4w .. 4w+3] by cvt.rs.satfinite.e2m1x4.f32 with the random
  /// bytes of Philox word `word`, as an i32 holding the 16-bit result
  /// (element 4w in bits 3:0).
  Value convertE2M1x4Stochastic(ArrayRef<Value> y, Value word);
  /// philox4x32(seed, counter) (both i64).
  std::array<Value, 4> philox(Value seed, Value counter);

  OpBuilder &b;
  Location loc;
  const QuantizeConfig &c;
  GPUTarget target;
};
} // namespace

Value QuantizeEmitter::globalBasePointer(Value memref) {
  return mlir::nvfp4::detail::createGlobalBasePointer(b, loc, memref);
}

Value QuantizeEmitter::byteAddress(Value base, Idx byteOffset) {
  return mlir::nvfp4::detail::createByteAddress(b, loc, base, byteOffset.v);
}

SmallVector<Value> QuantizeEmitter::loadBlock(Value inputPtr, Idx block) {
  Type elem = c.inputElementType;
  const int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;
  const int64_t perVector = 16 / elemBytes; // 16-byte vectors
  auto vecType = VectorType::get({perVector}, elem);
  Idx first = layout::quantizeInputElement(block) * elemBytes;
  SmallVector<Value> v;
  for (int64_t part = 0; part < layout::kQuantizeBlock / perVector; ++part) {
    Value vec = LLVM::LoadOp::create(
        b, loc, vecType, byteAddress(inputPtr, first + part * 16), 16);
    for (int64_t e = 0; e < perVector; ++e) {
      Value pos = LLVM::ConstantOp::create(b, loc, b.getI32Type(), e);
      Value x = LLVM::ExtractElementOp::create(b, loc, vec, pos);
      if (!elem.isF32())
        x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
      v.push_back(x);
    }
  }
  return v;
}

void QuantizeEmitter::hadamard(SmallVector<Value> &v) {
  mlir::nvfp4::detail::createHadamard16(b, loc, v, c.signMask());
}

Value QuantizeEmitter::absMaxAccumulate(Value acc, Value x) {
  Value a = toFloat(andI(bits(x), 0x7FFFFFFF));
  return select(cmpF(arith::CmpFPredicate::OGT, a, acc), a, acc);
}

Value QuantizeEmitter::butterflyMax(Value v, ArrayRef<int32_t> offsets) {
  for (int32_t offset : offsets) {
    Value other = gpu::ShuffleOp::create(b, loc, v, offset, 32,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    v = select(cmpF(arith::CmpFPredicate::OGT, other, v), other, v);
  }
  return v;
}

Value QuantizeEmitter::ctaMax(Value v, Value smem, Idx lane, Idx warp) {
  v = butterflyMax(v, {16, 8, 4, 2, 1});
  Value isLeader = cmpI(arith::CmpIPredicate::eq, lane.v, idx(0).v);
  auto ifOp = scf::IfOp::create(b, loc, isLeader, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    memref::StoreOp::create(b, loc, v, smem, ValueRange{warp.v});
  }
  gpu::BarrierOp::create(b, loc);
  Value r = memref::LoadOp::create(b, loc, smem, ValueRange{idx(0).v});
  for (int64_t w = 1; w < layout::kQuantizeWarps; ++w) {
    Value x = memref::LoadOp::create(b, loc, smem, ValueRange{idx(w).v});
    r = select(cmpF(arith::CmpFPredicate::OGT, x, r), x, r);
  }
  return r;
}

Value QuantizeEmitter::blockAmax(ArrayRef<Value> v) {
  Value acc = f32(0.0f);
  for (Value x : v)
    acc = absMaxAccumulate(acc, x);
  return acc;
}

Value QuantizeEmitter::globalEncodeScale(Value amax) {
  Value s = arith::DivFOp::create(b, loc, f32(2688.0f), amax);
  Value fltMax = f32(FLT_MAX);
  s = select(cmpF(arith::CmpFPredicate::OGT, s, fltMax), fltMax, s);
  Value zero = f32(0.0f);
  Value useOne =
      arith::OrIOp::create(b, loc, cmpF(arith::CmpFPredicate::OEQ, amax, zero),
                           cmpF(arith::CmpFPredicate::OEQ, s, zero));
  return select(useOne, f32(1.0f), s);
}

Value QuantizeEmitter::encodeE4M3(Value v) {
  // docs/numerics.md §6: for v >= 2^-6 round the f32 bits at bit 20 to
  // nearest even and rebias; below, fl(fl(v * 512) + 2^23) rounds the
  // subnormal code (both f32 steps exact but the rounding). Saturate to
  // 0x7E (448); NaN gives 0x7F.
  Value u = bits(v);
  Value normal = arith::SubIOp::create(
      b, loc,
      shrI(addI(addI(u, i32(0x7FFFF)), andI(shrI(u, 20), 1)), 20),
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

Value QuantizeEmitter::decodeE4M3(Value code) {
  // (-1)^0 * sig * 2^(max(e, 1) - 10), sig = m (e == 0) or 8 + m: an exact
  // product of a small integer and a power of two built from its bits.
  Value exponent = andI(shrI(code, 3), 0xF);
  Value mantissa = andI(code, 0x7);
  Value significand =
      select(cmpI(arith::CmpIPredicate::ne, exponent, i32(0)),
             orI(mantissa, i32(8)), mantissa);
  Value clamped = arith::MaxUIOp::create(b, loc, exponent, i32(1));
  Value pow2 = toFloat(shlI(addI(clamped, i32(127 - 10)), 23));
  Value value = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, b.getF32Type(), significand),
      pow2);
  return select(cmpI(arith::CmpIPredicate::eq, code, i32(0x7F)),
                f32(std::numeric_limits<float>::quiet_NaN()), value);
}

Value QuantizeEmitter::encodeE2M1(Value y) {
  // The number of rounding thresholds below |y| (ties to even: strict at
  // .25, 1.25, 2.5, 5; inclusive at .75, 1.75, 3.5), the sign bit or-ed in;
  // NaN gives 7.
  Value u = bits(y);
  Value a = toFloat(andI(u, 0x7FFFFFFF));
  using P = arith::CmpFPredicate;
  const std::pair<P, float> thresholds[] = {
      {P::OGT, 0.25f}, {P::OGE, 0.75f}, {P::OGT, 1.25f}, {P::OGE, 1.75f},
      {P::OGT, 2.5f},  {P::OGE, 3.5f},  {P::OGT, 5.0f}};
  Value code = i32(0);
  for (auto [pred, t] : thresholds)
    code = addI(code, bit(cmpF(pred, a, f32(t))));
  code = orI(code, andI(shrI(u, 28), 0x8));
  return select(cmpF(P::UNO, y, y), i32(0x7), code);
}

Value QuantizeEmitter::encodeE2M1Stochastic(Value y, Value rbits) {
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
  Value top8 = select(
      cmpF(P::OLT, a, f32(0.5f)), small,
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

Value QuantizeEmitter::convertE2M1x4Stochastic(ArrayRef<Value> y,
                                               Value word) {
  Value rbits = layout::cvtRsE2M1x4Rbits(Word{&b, loc, word}).v;
  // {a, b, e, f} = {y3, y2, y1, y0}: d[15:12] = y3 ... d[3:0] = y0.
  auto vecType = VectorType::get({4}, b.getF32Type());
  Value src = LLVM::PoisonOp::create(b, loc, vecType);
  for (int64_t i = 0; i < 4; ++i) {
    Value pos = LLVM::ConstantOp::create(b, loc, b.getI32Type(), i);
    src = LLVM::InsertElementOp::create(b, loc, src, y[3 - i], pos);
  }
  Value cvt = NVVM::ConvertF32x4ToF4x4Op::create(
      b, loc, b.getI16Type(), src, rbits, /*relu=*/false,
      b.getType<Float4E2M1FNType>());
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), cvt);
}

std::array<Value, 4> QuantizeEmitter::philox(Value seed, Value counter) {
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

/// Creates a kernel with `argTypes` and one workgroup buffer of kQuantizeWarps
/// f32 for the CTA reduction; the builder is left at its entry.
static gpu::GPUFuncOp createKernel(OpBuilder &b, Location loc,
                                   gpu::GPUModuleOp module, StringRef name,
                                   TypeRange argTypes) {
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::AddressSpace::Workgroup);
  auto smemType = MemRefType::get({layout::kQuantizeWarps}, b.getF32Type(),
                                  MemRefLayoutAttrInterface(), workgroup);
  b.setInsertionPointToEnd(module.getBody());
  auto kernel = gpu::GPUFuncOp::create(b, loc, name,
                                       b.getFunctionType(argTypes, {}),
                                       TypeRange{smemType}, TypeRange{});
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernel.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
      {static_cast<int32_t>(layout::kQuantizeThreads), 1, 1}));
  b.setInsertionPointToStart(&kernel.front());
  return kernel;
}

gpu::GPUFuncOp QuantizeEmitter::buildAmaxKernel(gpu::GPUModuleOp module,
                                                TypeRange argTypes) {
  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(b, loc, module, c.amaxKernelName(), argTypes);
  Block &entry = kernel.front();
  Value input = entry.getArgument(0), partials = entry.getArgument(1);
  Value smem = kernel.getWorkgroupAttributions()[0];

  Idx tid = idx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Idx cta = idx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Idx gid = layout::quantizeGlobalThread(cta, tid);
  Value inputPtr = globalBasePointer(input);
  const int64_t stride =
      layout::amaxNumCtas(c.numElements) * layout::kQuantizeThreads;

  // Grid-strided walk over the blocks; the order does not matter for a max.
  auto loop = scf::ForOp::create(b, loc, gid.v, idx(c.numBlocks()).v,
                                 idx(stride).v, ValueRange{f32(0.0f)});
  {
    OpBuilder::InsertionGuard loopGuard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> v = loadBlock(inputPtr, idx(loop.getInductionVar()));
    if (c.hadamard)
      hadamard(v);
    Value acc = loop.getRegionIterArgs()[0];
    for (Value x : v)
      acc = absMaxAccumulate(acc, x);
    scf::YieldOp::create(b, loc, acc);
  }
  Value ctaAmax = ctaMax(loop.getResult(0), smem, tid % 32, tid / 32);
  Value isFirst = cmpI(arith::CmpIPredicate::eq, tid.v, idx(0).v);
  auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  memref::StoreOp::create(b, loc, ctaAmax, partials, ValueRange{cta.v});
  b.setInsertionPointAfter(ifOp);
  gpu::ReturnOp::create(b, loc);
  return kernel;
}

gpu::GPUFuncOp QuantizeEmitter::buildQuantizeKernel(gpu::GPUModuleOp module,
                                                    TypeRange argTypes) {
  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(b, loc, module, c.quantizeKernelName(), argTypes);
  Block &entry = kernel.front();
  // Arguments: input, amax (f32) or partials (memref), data, scales, decode
  // scale (memref<1xf32>), [seed].
  Value input = entry.getArgument(0), amaxSource = entry.getArgument(1);
  Value data = entry.getArgument(2), scales = entry.getArgument(3);
  Value decode = entry.getArgument(4);
  Value seed = c.stochastic ? entry.getArgument(5) : Value();
  Value smem = kernel.getWorkgroupAttributions()[0];
  Type i32Type = b.getI32Type();

  Idx tid = idx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Idx cta = idx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Idx gid = layout::quantizeGlobalThread(cta, tid);

  // Tensor amax: explicit, or the maximum of the amax kernel's partials.
  Value amax = amaxSource;
  if (!c.explicitAmax) {
    const int64_t numPartials = layout::amaxNumCtas(c.numElements);
    auto loop =
        scf::ForOp::create(b, loc, tid.v, idx(numPartials).v,
                           idx(layout::kQuantizeThreads).v,
                           ValueRange{f32(0.0f)});
    {
      OpBuilder::InsertionGuard loopGuard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value x = memref::LoadOp::create(b, loc, amaxSource,
                                       ValueRange{loop.getInductionVar()});
      Value acc = loop.getRegionIterArgs()[0];
      scf::YieldOp::create(
          b, loc, select(cmpF(arith::CmpFPredicate::OGT, x, acc), x, acc));
    }
    amax = ctaMax(loop.getResult(0), smem, tid % 32, tid / 32);
  }

  // S_enc, S_dec = 1 / S_enc, S_enc * fl(1/6) (docs/numerics.md §6 4.-6.).
  Value sEnc = globalEncodeScale(amax);
  Value sDec = arith::DivFOp::create(b, loc, f32(1.0f), sEnc);
  Value sEncOver6 = arith::MulFOp::create(b, loc, sEnc, f32(1.0f / 6.0f));
  {
    Value isFirst = cmpI(arith::CmpIPredicate::eq, gid.v, idx(0).v);
    auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
    OpBuilder::InsertionGuard ifGuard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    memref::StoreOp::create(b, loc, sDec, decode, ValueRange{idx(0).v});
  }

  // The thread's block; threads past the end compute on zeros (so that the
  // 16x16 butterfly runs on full warps) and store nothing.
  Idx block = layout::quantizeBlockOfThread(gid, c.cols, c.blockRows);
  Value valid =
      cmpI(arith::CmpIPredicate::ult, gid.v, idx(c.numBlocks()).v);
  Value inputPtr = globalBasePointer(input);
  SmallVector<Type> blockTypes(layout::kQuantizeBlock, b.getF32Type());
  auto loadIf = scf::IfOp::create(b, loc, blockTypes, valid,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard ifGuard(b);
    b.setInsertionPointToStart(loadIf.thenBlock());
    scf::YieldOp::create(b, loc, loadBlock(inputPtr, block));
    b.setInsertionPointToStart(loadIf.elseBlock());
    scf::YieldOp::create(
        b, loc, SmallVector<Value>(layout::kQuantizeBlock, f32(0.0f)));
  }
  SmallVector<Value> v(loadIf.getResults().begin(), loadIf.getResults().end());
  if (c.hadamard)
    hadamard(v);

  // Block scale and multiplier.
  Value bamax = blockAmax(v);
  if (c.blockRows == 16)
    bamax = butterflyMax(bamax, {1, 2, 4, 8});
  Value fltMax = f32(FLT_MAX);
  Value scaled = arith::MulFOp::create(b, loc, bamax, sEncOver6);
  scaled = select(cmpF(arith::CmpFPredicate::OGT, scaled, fltMax), fltMax,
                  scaled);
  Value scaleCode = encodeE4M3(scaled);
  Value m = arith::DivFOp::create(
      b, loc, f32(1.0f),
      arith::MulFOp::create(b, loc, decodeE4M3(scaleCode), sDec));
  m = select(cmpF(arith::CmpFPredicate::OGT, m, fltMax), fltMax, m);

  // Codes, packed two per byte (even element in the low nibble).
  SmallVector<Value> y;
  for (Value x : v)
    y.push_back(arith::MulFOp::create(b, loc, x, m));
  std::array<Value, 4> rbits;
  if (c.stochastic) {
    Value counter = arith::IndexCastUIOp::create(
        b, loc, b.getI64Type(),
        layout::quantizePhiloxCounter(block, static_cast<int64_t>(c.offset))
            .v);
    rbits = philox(seed, counter);
  }
  Type i64Type = b.getI64Type();
  Value packed = arith::ConstantIntOp::create(b, loc, i64Type, 0);
  for (int64_t k = 0; k < 8; ++k) {
    Value byte;
    if (c.hardwareSR) {
      // One conversion per Philox word yields bytes k and k+1 (k even).
      if (k % 2 == 1)
        continue;
      byte = convertE2M1x4Stochastic(ArrayRef<Value>(y).slice(2 * k, 4),
                                     rbits[k / 2]);
    } else if (c.stochastic) {
      auto rbit = [&](int64_t j) {
        return shrI(rbits[j / 4], 8 * (j % 4));
      };
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

  auto storeIf = scf::IfOp::create(b, loc, valid, /*withElse=*/false);
  b.setInsertionPointToStart(storeIf.thenBlock());
  LLVM::StoreOp::create(
      b, loc, packed,
      byteAddress(globalBasePointer(data), layout::quantizeDataByte(block)),
      8);
  auto storeScale = [&]() {
    Value byte = arith::TruncIOp::create(b, loc, b.getI8Type(), scaleCode);
    LLVM::StoreOp::create(
        b, loc, byte,
        byteAddress(globalBasePointer(scales),
                    layout::quantizeScaleIndex(gid, c.blockRows)),
        1);
  };
  if (c.blockRows == 1) {
    storeScale();
  } else {
    Value first = cmpI(arith::CmpIPredicate::eq,
                       layout::quantizeRowInTile(gid).v, idx(0).v);
    auto firstIf = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    OpBuilder::InsertionGuard ifGuard(b);
    b.setInsertionPointToStart(firstIf.thenBlock());
    storeScale();
  }
  b.setInsertionPointAfter(storeIf);
  gpu::ReturnOp::create(b, loc);
  return kernel;
}

//===----------------------------------------------------------------------===//
// Pattern
//===----------------------------------------------------------------------===//

namespace {
/// Lowers `nvfp4.quantize` to the amax and quantize kernels and rebuilds the
/// NVFP4 value from their outputs with `nvfp4.assemble`.
struct QuantizeOpLowering : public OpRewritePattern<QuantizeOp> {
  QuantizeOpLowering(MLIRContext *ctx, GPUTarget target, bool hardwareSR)
      : OpRewritePattern(ctx), target(target), hardwareSR(hardwareSR) {}

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a builtin.module");
    {
      ScopedDiagnosticHandler silence(op.getContext(),
                                      [](Diagnostic &) { return success(); });
      if (failed(checkQuantizeSupported(op, target, hardwareSR)))
        return rewriter.notifyMatchFailure(op, "unsupported quantize");
    }
    QuantizeConfig config = QuantizeConfig::get(op, hardwareSR);
    Location loc = op.getLoc();
    auto resultType = cast<NVFP4TensorType>(op.getResult().getType());
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    auto alignment = rewriter.getI64IntegerAttr(16);
    gpu::GPUModuleOp kernelModule =
        getOrCreateNVFP4KernelModule(rewriter, module);
    QuantizeEmitter emitter(rewriter, loc, config, target);
    gpu::KernelDim3 block{cst(layout::kQuantizeThreads), cst(1), cst(1)};

    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    Value input = bufferization::ToBufferOp::create(
        rewriter, loc,
        MemRefType::get(inputType.getShape(), inputType.getElementType()),
        op.getInput(), /*read_only=*/true);

    // Tensor amax: the explicit operand, or the amax kernel's partials.
    Value amaxSource = op.getAmax();
    Value partials;
    if (!amaxSource) {
      const int64_t numCtas = layout::amaxNumCtas(config.numElements);
      partials = memref::AllocOp::create(
          rewriter, loc, MemRefType::get({numCtas}, rewriter.getF32Type()),
          alignment);
      SmallVector<Value> args = {input, partials};
      auto kernel =
          kernelModule.lookupSymbol<gpu::GPUFuncOp>(config.amaxKernelName());
      if (!kernel)
        kernel = emitter.buildAmaxKernel(kernelModule,
                                         ValueRange(args).getTypes());
      gpu::LaunchFuncOp::create(rewriter, loc, kernel,
                                gpu::KernelDim3{cst(numCtas), cst(1), cst(1)},
                                block, /*dynamicSharedMemorySize=*/Value(),
                                args);
      amaxSource = partials;
    }

    // Outputs: packed data, compact scales, S_dec.
    RankedTensorType dataType = resultType.getDataType();
    RankedTensorType scalesType = resultType.getScalesType();
    Value data = memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get(dataType.getShape(), dataType.getElementType()),
        alignment);
    Value scales = memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get(scalesType.getShape(), scalesType.getElementType()),
        alignment);
    Value decode = memref::AllocOp::create(
        rewriter, loc, MemRefType::get({1}, rewriter.getF32Type()));
    SmallVector<Value> args = {input, amaxSource, data, scales, decode};
    if (config.stochastic) {
      Value seed = op.getSeed();
      if (!seed)
        seed = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getI64IntegerAttr(0));
      args.push_back(seed);
    }
    auto kernel =
        kernelModule.lookupSymbol<gpu::GPUFuncOp>(config.quantizeKernelName());
    if (!kernel)
      kernel = emitter.buildQuantizeKernel(kernelModule,
                                           ValueRange(args).getTypes());
    gpu::LaunchFuncOp::create(
        rewriter, loc, kernel,
        gpu::KernelDim3{cst(layout::quantizeNumCtas(config.numElements)),
                        cst(1), cst(1)},
        block, /*dynamicSharedMemorySize=*/Value(), args);

    // Host side: S_dec back as a scalar, the buffers as the NVFP4 value.
    Value decodeScale =
        memref::LoadOp::create(rewriter, loc, decode, ValueRange{cst(0)});
    memref::DeallocOp::create(rewriter, loc, decode);
    if (partials)
      memref::DeallocOp::create(rewriter, loc, partials);
    Value dataTensor = bufferization::ToTensorOp::create(
        rewriter, loc, dataType, data, /*restrict=*/true, /*writable=*/true);
    Value scalesTensor = bufferization::ToTensorOp::create(
        rewriter, loc, scalesType, scales, /*restrict=*/true,
        /*writable=*/true);
    rewriter.replaceOpWithNewOp<AssembleOp>(op, resultType, dataTensor,
                                            scalesTensor, decodeScale);
    return success();
  }

  GPUTarget target;
  bool hardwareSR;
};
} // namespace

void mlir::nvfp4::populateNVFP4QuantizeToGPUConversionPatterns(
    RewritePatternSet &patterns, GPUTarget target, bool hardwareSR) {
  patterns.add<QuantizeOpLowering>(patterns.getContext(), target,
                                   hardwareSR); // nvfp4.quantize
}
