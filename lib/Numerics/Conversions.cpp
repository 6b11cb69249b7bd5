//===- Conversions.cpp - E2M1/E4M3/E5M2, Philox and the RHT ---------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Element conversions work on the bits of the f32 input: the magnitude is
// split into an exponent and a 24-bit significand (implicit bit included),
// the significand is shifted right to the target precision, and the
// discarded bits decide the rounding. docs/numerics.md states the exact
// rules; this file is their executable form.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/MX.h"
#include "nvfp4/Numerics/Numerics.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace nvfp4 {
namespace {

uint32_t floatBits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}

/// A small binary floating-point format without Inf/NaN codes in its
/// positive range up to `maxCode`: `manBits` explicit mantissa bits, smallest
/// normal exponent `minExp` (unbiased), largest finite magnitude code
/// `maxCode`.
struct MiniFormat {
  int manBits;
  int minExp;
  uint32_t maxCode;
};

constexpr MiniFormat kE2M1Format{1, 0, 0x7};
constexpr MiniFormat kE4M3Format{3, -6, 0x7E};
/// OCP E5M2 (MXFP8): its largest finite magnitude 57344 is code 0x7B; the
/// codes above are Inf and NaN, which satfinite conversion never produces.
constexpr MiniFormat kE5M2Format{2, -14, 0x7B};

/// The rounding of the magnitude `absBits` (an f32 bit pattern without sign,
/// finite, non-NaN) to `fmt`: returns the truncated magnitude code and, in
/// `rem`/`shift`, the discarded significand bits and their count. The code
/// of the truncated value is `(max(E - minExp, 0) << manBits) + q` where q
/// is the significand (implicit bit included) shifted right by `shift`; a
/// carry out of q moves into the exponent field, so `code + 1` is always the
/// next representable magnitude.
struct Truncated {
  uint32_t code; // magnitude code of the value rounded toward zero
  uint64_t rem;  // discarded bits
  int shift;     // number of discarded bits (rem < 2^shift)
};

Truncated truncateMagnitude(uint32_t absBits, const MiniFormat &fmt) {
  const uint32_t expField = absBits >> 23;
  if (expField == 0) {
    // Zero or an f32 subnormal (< 2^-126): far below half the smallest
    // subnormal of either target format. Report "all discarded, tiny".
    return {0, absBits, 64};
  }
  const int e = static_cast<int>(expField) - 127;
  const uint64_t sig = (1u << 23) | (absBits & 0x7FFFFFu);
  int shift = 23 - fmt.manBits;
  if (e < fmt.minExp)
    shift += fmt.minExp - e;
  if (shift >= 40) // sig < 2^24: everything is discarded and below 2^-16 ulp
    return {0, sig, 64};
  const uint64_t q = sig >> shift;
  const uint64_t rem = sig & ((uint64_t(1) << shift) - 1);
  const int expPart = e > fmt.minExp ? e - fmt.minExp : 0;
  // expPart <= 127 + 6: the code fits easily in 32 bits before saturation.
  const uint32_t code =
      (static_cast<uint32_t>(expPart) << fmt.manBits) + static_cast<uint32_t>(q);
  return {code, rem, shift};
}

/// Round-to-nearest-even of a finite magnitude, then saturation.
uint32_t roundNearestEven(uint32_t absBits, const MiniFormat &fmt) {
  Truncated t = truncateMagnitude(absBits, fmt);
  uint32_t code = t.code;
  if (t.shift < 64) {
    const uint64_t half = uint64_t(1) << (t.shift - 1);
    if (t.rem > half || (t.rem == half && (code & 1u)))
      ++code;
  }
  return code > fmt.maxCode ? fmt.maxCode : code;
}

/// Stochastic rounding of a finite magnitude from 8 random bits: rbits is
/// added to the top 8 discarded bits; a carry out of them rounds up.
uint32_t roundStochastic(uint32_t absBits, const MiniFormat &fmt,
                         uint8_t rbits) {
  Truncated t = truncateMagnitude(absBits, fmt);
  uint32_t code = t.code;
  if (t.shift < 64) {
    // shift >= 22 for E2M1 from f32, so the top 8 discarded bits exist.
    const uint64_t top8 = t.rem >> (t.shift - 8);
    if (top8 + rbits >= 256)
      ++code;
  }
  return code > fmt.maxCode ? fmt.maxCode : code;
}

constexpr float kE2M1Values[8] = {0.0f, 0.5f, 1.0f, 1.5f,
                                  2.0f, 3.0f, 4.0f, 6.0f};

} // namespace

//===----------------------------------------------------------------------===//
// Element conversions
//===----------------------------------------------------------------------===//

uint8_t encodeE2M1(float x) {
  const uint32_t u = floatBits(x);
  const uint32_t absBits = u & 0x7FFFFFFFu;
  if (absBits > 0x7F800000u) // NaN: positive max norm, as cuda_fp4.h
    return 0x7;
  const uint8_t sign = static_cast<uint8_t>((u >> 28) & 0x8u);
  if (absBits == 0x7F800000u) // +-Inf saturates
    return sign | 0x7;
  return sign | static_cast<uint8_t>(roundNearestEven(absBits, kE2M1Format));
}

uint8_t encodeE2M1Stochastic(float x, uint8_t rbits) {
  const uint32_t u = floatBits(x);
  const uint32_t absBits = u & 0x7FFFFFFFu;
  if (absBits > 0x7F800000u)
    return 0x7;
  const uint8_t sign = static_cast<uint8_t>((u >> 28) & 0x8u);
  if (absBits == 0x7F800000u)
    return sign | 0x7;
  return sign |
         static_cast<uint8_t>(roundStochastic(absBits, kE2M1Format, rbits));
}

float decodeE2M1(uint8_t code) {
  const float v = kE2M1Values[code & 0x7];
  return (code & 0x8) ? -v : v;
}

uint8_t encodeE4M3(float x) {
  const uint32_t u = floatBits(x);
  const uint32_t absBits = u & 0x7FFFFFFFu;
  if (absBits > 0x7F800000u) // NaN, canonicalized to positive
    return 0x7F;
  const uint8_t sign = static_cast<uint8_t>((u >> 24) & 0x80u);
  if (absBits == 0x7F800000u)
    return sign | 0x7E;
  return sign | static_cast<uint8_t>(roundNearestEven(absBits, kE4M3Format));
}

uint8_t mx::encodeE5M2(float x) {
  const uint32_t u = floatBits(x);
  const uint32_t absBits = u & 0x7FFFFFFFu;
  if (absBits > 0x7F800000u) // NaN, canonicalized to positive
    return 0x7F;
  const uint8_t sign = static_cast<uint8_t>((u >> 24) & 0x80u);
  if (absBits == 0x7F800000u) // satfinite
    return sign | 0x7B;
  return sign | static_cast<uint8_t>(roundNearestEven(absBits, kE5M2Format));
}

float decodeE4M3(uint8_t code) {
  const bool negative = (code & 0x80) != 0;
  const int expField = (code >> 3) & 0xF;
  const int man = code & 0x7;
  float v;
  if (expField == 0xF && man == 0x7)
    v = std::numeric_limits<float>::quiet_NaN();
  else if (expField == 0)
    v = std::ldexp(static_cast<float>(man), -9);
  else
    v = std::ldexp(static_cast<float>(8 + man), expField - 10);
  return negative ? -v : v;
}

//===----------------------------------------------------------------------===//
// Philox4x32-10
//===----------------------------------------------------------------------===//

std::array<uint32_t, 4> philox4x32_10(const std::array<uint32_t, 4> &counter,
                                      const std::array<uint32_t, 2> &key) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  std::array<uint32_t, 4> c = counter;
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    const uint64_t p0 = uint64_t(kM0) * c[0];
    const uint64_t p1 = uint64_t(kM1) * c[2];
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32);
    const uint32_t lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32);
    const uint32_t lo1 = static_cast<uint32_t>(p1);
    c = {hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0};
  }
  return c;
}

std::array<uint32_t, 4> philox4x32(uint64_t seed, uint64_t offset) {
  return philox4x32_10({static_cast<uint32_t>(offset),
                        static_cast<uint32_t>(offset >> 32), 0u, 0u},
                       {static_cast<uint32_t>(seed),
                        static_cast<uint32_t>(seed >> 32)});
}

uint8_t stochasticRoundingBits(uint64_t seed, uint64_t offset,
                               uint64_t linearIndex) {
  const std::array<uint32_t, 4> w = philox4x32(seed, offset + linearIndex / 16);
  const unsigned byte = static_cast<unsigned>(linearIndex % 16);
  return static_cast<uint8_t>(w[byte / 4] >> (8 * (byte % 4)));
}

//===----------------------------------------------------------------------===//
// Random Hadamard transform
//===----------------------------------------------------------------------===//

void applyHadamard(float *x, int64_t rows, int64_t cols,
                   const std::array<int8_t, 16> &signs) {
  if (rows <= 0 || cols <= 0 || cols % 16 != 0)
    return;
  const int64_t n = rows * cols;
  for (int64_t base = 0; base < n; base += 16) {
    float v[16];
    // 1. Sign multiply (exact): negative entries of `signs` flip the sign.
    for (int j = 0; j < 16; ++j)
      v[j] = signs[j] < 0 ? -x[base + j] : x[base + j];
    // 2. Four radix-2 butterfly stages, h = 1, 2, 4, 8, each pair (i, i+h)
    //    with (i & h) == 0 becoming (a + b, a - b), rounded in f32.
    for (int h = 1; h < 16; h <<= 1) {
      for (int i = 0; i < 16; ++i) {
        if (i & h)
          continue;
        const float a = v[i], b = v[i + h];
        v[i] = a + b;
        v[i + h] = a - b;
      }
    }
    // 3. Normalization by 1/4 (exact unless the result is subnormal).
    for (int j = 0; j < 16; ++j)
      x[base + j] = v[j] * 0.25f;
  }
}

} // namespace nvfp4
