//===- QuantizeKernels.h - Fast quantization kernels (internal) -*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Numerics (and its unit tests): the quantization kernels
// behind nvfp4::quantize, quantizeParallel and dequantize. They evaluate the
// f32 operations of docs/numerics.md in the documented order and give
// byte-identical results to the per-element definitions (encodeE2M1,
// blockScale, stochasticRoundingBits, applyHadamard, ...); they are only
// faster:
//
//  * element codes come from branch-free comparison sums, 16 elements at a
//    time, each output byte written once;
//  * block scales use a branch-free E4M3 encoder (the NaN case takes the
//    generic encodeE4M3) and a 256-entry decode table; the MX quantizer
//    (MX.cpp) uses the element encoders and a branch-free E5M2 one;
//  * the vector path (SSE2) handles four blocks' scales and multipliers
//    together;
//  * stochastic rounding evaluates one Philox4x32-10 per 16 elements;
//  * the random Hadamard transform runs block by block, in registers,
//    instead of on a transformed copy of the tensor.
//
// Two implementations exist: a portable scalar one and an SSE2 one (built
// when __SSE2__ is defined). Both are always selectable here so tests can
// compare them; the public entry points use defaultKernelPath().
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_NUMERICS_QUANTIZEKERNELS_H
#define NVFP4_LIB_NUMERICS_QUANTIZEKERNELS_H

#include "nvfp4/Numerics/Numerics.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace nvfp4 {
namespace detail {

enum class KernelPath {
  /// Portable C++ (branch-free per element, no intrinsics).
  Scalar,
  /// SSE2 intrinsics; falls back to Scalar when built without SSE2.
  Vector,
};

/// Whether the Vector path is compiled in (x86 with SSE2).
bool vectorKernelsAvailable();

/// Vector when available, Scalar otherwise.
KernelPath defaultKernelPath();

/// nvfp4::quantize / quantizeParallel on the given kernel path. Same
/// contract and same output bytes on every path.
std::optional<std::string> quantizeWithKernels(const float *x, int64_t rows,
                                               int64_t cols,
                                               const QuantizeOptions &opts,
                                               QuantizedTensor &out,
                                               int numThreads, KernelPath path);

/// nvfp4::dequantize.
void dequantizeWithKernels(const QuantizedTensor &t, float *out);

/// The decodeE4M3 value of every byte (0x7F and 0xFF are NaN).
const float *e4m3DecodeTable();

/// The Hadamard transform of one 16-element group (applyHadamard's
/// operation order) from `in` to `out` (may alias), on the given path.
void hadamard16(const float *in, float *out,
                const std::array<int8_t, 16> &signs, KernelPath path);

//===----------------------------------------------------------------------===//
// Branch-free scalar encoders
//===----------------------------------------------------------------------===//

inline uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}

/// encodeE2M1(x), for every f32 x: with a = |x|, the RNE magnitude code with
/// saturation is the number of decision thresholds below a, ties going to
/// the even code (0.25 -> 0, 0.75 -> 2, 1.25 -> 2, 1.75 -> 4, 2.5 -> 4,
/// 3.5 -> 6, 5 -> 6). NaN encodes as +6 (0x7).
inline uint8_t encodeE2M1Branchless(float x) {
  const uint32_t u = bitsOf(x);
  const float a = std::fabs(x);
  uint32_t c = uint32_t(a > 0.25f) + uint32_t(a >= 0.75f) +
               uint32_t(a > 1.25f) + uint32_t(a >= 1.75f) + uint32_t(a > 2.5f) +
               uint32_t(a >= 3.5f) + uint32_t(a > 5.0f);
  c |= (u >> 28) & 0x8u;
  return static_cast<uint8_t>(a != a ? 0x7u : c);
}

/// encodeE2M1Stochastic(x, rbits), for every f32 x and rbits: the code of
/// |x| truncated toward zero (thresholds 0.5, 1, 1.5, 2, 3, 4, 6), plus one
/// when the top 8 discarded bits plus rbits carry out of 8 bits, saturated
/// to 6. The top 8 discarded bits are floor(|x| * 512) below 0.5 (f32
/// subnormals and values below 2^-9 give 0: never rounded up), mantissa bits
/// 22..15 on [0.5, 1) and mantissa bits 21..14 from 1 on.
inline uint8_t encodeE2M1StochasticBranchless(float x, uint8_t rbits) {
  const uint32_t u = bitsOf(x);
  const uint32_t absBits = u & 0x7FFFFFFFu;
  const float a = std::fabs(x);
  const uint32_t truncated = uint32_t(a >= 0.5f) + uint32_t(a >= 1.0f) +
                             uint32_t(a >= 1.5f) + uint32_t(a >= 2.0f) +
                             uint32_t(a >= 3.0f) + uint32_t(a >= 4.0f) +
                             uint32_t(a >= 6.0f);
  const uint32_t top8 =
      a < 0.5f ? static_cast<uint32_t>(a * 512.0f)
               : (a < 1.0f ? (absBits >> 15) & 0xFFu : (absBits >> 14) & 0xFFu);
  uint32_t c = truncated + ((top8 + rbits) >> 8);
  c = c > 7u ? 7u : c;
  c |= (u >> 28) & 0x8u;
  return static_cast<uint8_t>(a != a ? 0x7u : c);
}

/// encodeE4M3(v) for v in [+0, +Inf] (bit patterns 0 to 0x7F800000). Normal
/// range (v >= 2^-6): round the f32 mantissa to 3 bits (RNE) and rebias the
/// exponent; below: v * 2^9 rounded to an integer by adding 2^23 (both steps
/// exact but the intended rounding). Saturates at 0x7E (448).
inline uint8_t encodeE4M3NonNegative(float v) {
  const uint32_t u = bitsOf(v);
  const uint32_t rounded = u + 0x7FFFFu + ((u >> 20) & 1u);
  const int32_t normal = static_cast<int32_t>(rounded >> 20) - (120 << 3);
  const float s = v * 512.0f + 8388608.0f;
  const int32_t sub = static_cast<int32_t>(bitsOf(s) - 0x4B000000u);
  int32_t c = v < 0.015625f ? sub : normal;
  c = c > 0x7E ? 0x7E : c;
  return static_cast<uint8_t>(c);
}

/// mx::encodeE5M2(v) for v in [+0, +Inf] (bit patterns 0 to 0x7F800000),
/// as encodeE4M3NonNegative: the f32 mantissa rounded to 2 bits (RNE) and
/// the exponent rebiased (127 to 15) from 2^-14 on; below, v * 2^16 rounded
/// to an integer by adding 2^23. Saturates at 0x7B (57344).
inline uint8_t encodeE5M2NonNegative(float v) {
  const uint32_t u = bitsOf(v);
  const uint32_t rounded = u + 0xFFFFFu + ((u >> 21) & 1u);
  const int32_t normal = static_cast<int32_t>(rounded >> 21) - (112 << 2);
  const float s = v * 65536.0f + 8388608.0f;
  const int32_t sub = static_cast<int32_t>(bitsOf(s) - 0x4B000000u);
  int32_t c = v < 6.103515625e-05f ? sub : normal; // 2^-14
  c = c > 0x7B ? 0x7B : c;
  return static_cast<uint8_t>(c);
}

} // namespace detail
} // namespace nvfp4

#endif // NVFP4_LIB_NUMERICS_QUANTIZEKERNELS_H
