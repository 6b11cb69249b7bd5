//===- MXOracleTest.cpp - MX conversions vs the CUDA toolkit --------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// encodeE5M2 / decodeE5M2 / encodeE8M0RoundDown / decodeE8M0 against
// cuda_fp8.h's host conversions (`__NV_E5M2` with `__NV_SATFINITE`,
// `__nv_cvt_float_to_e8m0` rounding toward zero, `__nv_cvt_e8m0_to_bf16raw`):
// every code, every bf16 bit pattern, 4M random f32 and the special values;
// and sharedScale, the OCP MX shared exponent, as the toolkit's E8M0 of the
// block amax minus the element type's emax.
//
//===----------------------------------------------------------------------===//

#include "OracleShared.h"

#include "nvfp4/Numerics/MX.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace {

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

bool sameValue(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) ||
         std::memcmp(&a, &b, sizeof(a)) == 0;
}

/// Compares the E5M2 and E8M0 encodings of `x` with the toolkit's and
/// counts the mismatches (reporting the first few).
void check(float x, int &mismatches) {
  const uint8_t a = nvfp4::mx::encodeE5M2(x), b = oracle::e5m2(x);
  const uint8_t c = nvfp4::mx::encodeE8M0RoundDown(x),
                d = oracle::e8m0RoundDown(x);
  if ((a != b || c != d) && mismatches++ < 10)
    ADD_FAILURE() << "x = " << x << ": E5M2 ours 0x" << std::hex << int(a)
                  << " toolkit 0x" << int(b) << ", E8M0 ours 0x" << int(c)
                  << " toolkit 0x" << int(d);
}

TEST(MXOracle, DecodeAllCodes) {
  for (int code = 0; code < 256; ++code) {
    const auto byte = static_cast<uint8_t>(code);
    EXPECT_TRUE(
        sameValue(nvfp4::mx::decodeE5M2(byte), oracle::decodeE5M2(byte)))
        << "E5M2 0x" << std::hex << code;
    EXPECT_TRUE(
        sameValue(nvfp4::mx::decodeE8M0(byte), oracle::decodeE8M0(byte)))
        << "E8M0 0x" << std::hex << code;
  }
}

TEST(MXOracle, AllBF16Patterns) {
  int mismatches = 0;
  for (uint32_t hi = 0; hi < 0x10000; ++hi)
    check(fromBits(hi << 16), mismatches);
  EXPECT_EQ(mismatches, 0);
}

TEST(MXOracle, RandomF32) {
  std::mt19937 rng(20261202);
  int mismatches = 0;
  for (int i = 0; i < 4 * 1024 * 1024; ++i)
    check(fromBits(static_cast<uint32_t>(rng())), mismatches);
  EXPECT_EQ(mismatches, 0);
}

TEST(MXOracle, RoundingBoundaries) {
  // Every E5M2 value and the midpoints between neighbours, with their f32
  // neighbours, both signs.
  int mismatches = 0;
  for (int code = 0; code < 0x7B; ++code) {
    const float lo = nvfp4::mx::decodeE5M2(static_cast<uint8_t>(code));
    const float hi = nvfp4::mx::decodeE5M2(static_cast<uint8_t>(code + 1));
    for (float v : {lo, (lo + hi) / 2, hi})
      for (float s : {1.0f, -1.0f}) {
        const float x = s * v;
        check(x, mismatches);
        check(std::nextafter(x, std::numeric_limits<float>::infinity()),
              mismatches);
        check(std::nextafter(x, -std::numeric_limits<float>::infinity()),
              mismatches);
      }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(MXOracle, SpecialValues) {
  int mismatches = 0;
  for (float x : {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN(),
                  -std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::min(),
                  std::numeric_limits<float>::max(), 57344.0f, 61440.0f,
                  65536.0f, std::ldexp(1.0f, -127), std::ldexp(1.0f, 127)})
    check(x, mismatches);
  EXPECT_EQ(mismatches, 0);
}

TEST(MXOracle, SharedScaleIsTheToolkitsE8M0OfTheAmaxMinusEmax) {
  // For every finite positive amax whose shared exponent is in range, the
  // scale is the toolkit's E8M0 (rounded toward zero) of amax / 2^emax.
  std::mt19937 rng(7);
  using nvfp4::mx::ElementType;
  for (ElementType type :
       {ElementType::E2M1, ElementType::E4M3, ElementType::E5M2}) {
    const int emax = nvfp4::mx::elementMaxExponent(type);
    for (int i = 0; i < 100000; ++i) {
      const float amax = std::fabs(fromBits(static_cast<uint32_t>(rng())));
      if (!std::isfinite(amax) || amax < std::numeric_limits<float>::min())
        continue;
      int exponent = 0;
      (void)std::frexp(amax, &exponent);
      const int shared = exponent - 1 - emax;
      if (shared < -126 || shared > 127) // no f32 subnormal below
        continue;
      const uint8_t want =
          oracle::e8m0RoundDown(std::ldexp(amax, -emax)); // exact scaling
      ASSERT_EQ(nvfp4::mx::sharedScale(amax, type), want)
          << "amax " << amax << " type " << static_cast<int>(type);
    }
  }
}

} // namespace
