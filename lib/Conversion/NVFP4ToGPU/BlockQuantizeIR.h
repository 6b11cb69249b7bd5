//===- BlockQuantizeIR.h - NVFP4 quantization of one block ------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The per-block quantization mathematics of the NVFP4 GPU kernels: the
// tensor's global encode / decode scales, the E4M3 block scale, the element
// multiplier and the E2M1 codes of 16 f32 values, packed two per byte. Every
// kernel that produces NVFP4 data (the quantize kernel, a fused quantizing
// epilogue) emits it through here, so that all of them write the bytes of
// nvfp4::quantize. Internal to the library.
//
// All f32 arithmetic is plain `arith` without fast-math flags, in the order of
// docs/numerics.md §6: LLVM's NVPTX back end neither contracts it into FMAs
// nor relaxes the IEEE division (`div.rn.f32`, `rcp.rn.f32`).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_CONVERSION_NVFP4TOGPU_BLOCKQUANTIZEIR_H
#define NVFP4_LIB_CONVERSION_NVFP4TOGPU_BLOCKQUANTIZEIR_H

#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include <array>
#include <optional>

namespace mlir::nvfp4::detail {

/// Whether `target` has `cvt.rn.satfinite.e2m1x2.f32` (PTX ISA: sm_100a,
/// sm_110a (formerly sm_101a), sm_120a and the sm_100f / sm_110f / sm_120f
/// families, hence sm_103a and sm_121a).
bool hasHardwareE2M1Convert(GPUTarget target);

/// Whether `target` has `cvt.rs.satfinite.e2m1x4.f32` (PTX ISA: "`.rs`
/// rounding mode is supported on following architectures: sm_100a,
/// sm_103a").
bool hasHardwareStochasticE2M1Convert(GPUTarget target);

/// Stochastic rounding of one block (docs/numerics.md §3, §4): the random
/// byte of element j is byte j of philox4x32(seed, counter).
struct BlockStochasticRounding {
  /// The seed, i64.
  Value seed;
  /// The block's Philox counter, i64 (offset + block index).
  Value counter;
  /// Round by `cvt.rs.satfinite.e2m1x4.f32` instead of in software. Only
  /// for targets with hasHardwareStochasticE2M1Convert; QuantizeLayout.h
  /// gives the random-bit assignment.
  bool hardware = false;
};

/// Emits the NVFP4 quantization of 16 f32 values (one 1x16 block) with the
/// reference's formulas (docs/numerics.md), round-to-nearest-even.
class BlockQuantizeEmitter {
public:
  BlockQuantizeEmitter(OpBuilder &b, Location loc, GPUTarget target)
      : b(b), loc(loc), target(target) {}

  /// The tensor's global encode scale from its amax (f32 -> f32), as the
  /// reference computes it: fminf(2688 / amax, FLT_MAX) (a NaN amax gives
  /// FLT_MAX), 1 for an amax of 0 or a scale of 0.
  Value globalEncodeScale(Value amax);
  /// The tensor's decode scale S_dec from its amax: 1 /
  /// globalEncodeScale(amax).
  Value globalDecodeScale(Value amax);

  struct Block {
    /// i64: code j in bits [4j, 4j+4).
    Value packed;
    /// i8: E4M3 code.
    Value scale;
  };

  /// Quantizes values[0..16) (f32) with the tensor's encode scale; uses the
  /// hardware cvt where the target has it.
  Block quantizeBlock(ArrayRef<Value> values, Value encodeScale);

  /// The general form: the block scale is derived from `scaleAmax` (the
  /// amax of the scale block: blockAmax(values) for 1x16, the maximum of
  /// the 16 rows' amaxes for a 16x16 tile), and with `stochastic` the codes
  /// are rounded stochastically (docs/numerics.md §6 8.). The 16x16 scale
  /// byte is that of every row of the tile.
  Block quantizeBlock(ArrayRef<Value> values, Value encodeScale,
                      Value scaleAmax,
                      const std::optional<BlockStochasticRounding> &stochastic);

  /// max(acc, |x|) (f32), a NaN x keeping acc (the `fmaxf` rule of the
  /// reference's amax).
  Value absMaxAccumulate(Value acc, Value x);
  /// The maximum magnitude of `values` (f32), NaNs ignored.
  Value blockAmax(ArrayRef<Value> values);

private:
  /// RN_E4M3 satfinite of a non-negative or NaN f32, as an i32 code.
  Value encodeE4M3(Value v);
  /// The f32 value of the E4M3 code `code` (i32, 0 .. 0x7F): exact.
  Value decodeE4M3(Value code);
  /// RN_E2M1 of `y` as an i32 code (software).
  Value encodeE2M1(Value y);
  /// encodeE2M1Stochastic(y, rbits) as an i32 code; `rbits` in the low 8
  /// bits of an i32.
  Value encodeE2M1Stochastic(Value y, Value rbits);
  /// Codes of y[0 .. 4) by cvt.rs.satfinite.e2m1x4.f32 with the random bytes
  /// of the Philox word `word`, as an i32 holding the 16-bit result (y[0] in
  /// bits 3:0).
  Value convertE2M1x4Stochastic(ArrayRef<Value> y, Value word);
  /// philox4x32(seed, counter) (both i64).
  std::array<Value, 4> philox(Value seed, Value counter);

  Value i32(int64_t v);
  Value f32(float v);
  Value bits(Value f);
  Value toFloat(Value i);
  Value andI(Value x, int64_t m);
  Value shrI(Value x, int64_t n);
  Value shlI(Value x, int64_t n);
  Value addI(Value x, Value y);
  Value orI(Value x, Value y);
  Value select(Value cond, Value t, Value f);
  Value cmpF(arith::CmpFPredicate p, Value x, Value y);
  Value cmpI(arith::CmpIPredicate p, Value x, Value y);
  /// 1 when `cond` holds, else 0, as i32.
  Value bit(Value cond);

  OpBuilder &b;
  Location loc;
  GPUTarget target;
};

} // namespace mlir::nvfp4::detail

#endif // NVFP4_LIB_CONVERSION_NVFP4TOGPU_BLOCKQUANTIZEIR_H
