//===- OracleTest.cpp - Conversions vs the CUDA toolkit -------------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// encodeE2M1 / encodeE4M3 / decode* against cuda_fp4.h and cuda_fp8.h host
// conversions: all bf16 bit patterns, 4M random f32, every rounding
// boundary (with its neighbours), f32 subnormals, zeros, infinities, NaNs.
// The exhaustive 2^32 sweep is the separate nvfp4-exhaustive-oracle tool.
//
//===----------------------------------------------------------------------===//

#include "OracleShared.h"

#include "nvfp4/Numerics/Numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

struct Mismatches {
  uint64_t checked = 0, e2m1 = 0, e4m3 = 0;
};

void check(float x, Mismatches &m) {
  ++m.checked;
  const uint8_t a = nvfp4::encodeE2M1(x), b = oracle::e2m1(x);
  if (a != b) {
    if (m.e2m1++ < 10)
      ADD_FAILURE() << "E2M1 mismatch for bits 0x" << std::hex << bitsOf(x)
                    << ": ours 0x" << int(a) << ", toolkit 0x" << int(b);
  }
  const uint8_t c = nvfp4::encodeE4M3(x), d = oracle::e4m3(x);
  if (c != d) {
    if (m.e4m3++ < 10)
      ADD_FAILURE() << "E4M3 mismatch for bits 0x" << std::hex << bitsOf(x)
                    << ": ours 0x" << int(c) << ", toolkit 0x" << int(d);
  }
}

void checkWithNeighbours(float x, Mismatches &m) {
  const float inf = std::numeric_limits<float>::infinity();
  for (float s : {1.0f, -1.0f}) {
    const float v = s * x;
    check(v, m);
    check(std::nextafter(v, inf), m);
    check(std::nextafter(v, -inf), m);
  }
}

void report(const char *what, const Mismatches &m) {
  std::printf("%s: %llu inputs, %llu E2M1 and %llu E4M3 mismatches\n", what,
              static_cast<unsigned long long>(m.checked),
              static_cast<unsigned long long>(m.e2m1),
              static_cast<unsigned long long>(m.e4m3));
  EXPECT_EQ(m.e2m1, 0u);
  EXPECT_EQ(m.e4m3, 0u);
}

TEST(Oracle, AllBF16Patterns) {
  Mismatches m;
  for (uint32_t b = 0; b < 65536; ++b)
    check(fromBits(b << 16), m);
  EXPECT_EQ(m.checked, 65536u);
  report("bf16 patterns", m);
}

TEST(Oracle, RandomF32) {
  std::mt19937_64 gen(0x5eed);
  Mismatches m;
  // 1M uniformly random bit patterns (every exponent, NaNs included).
  for (int i = 0; i < 1000000; ++i)
    check(fromBits(static_cast<uint32_t>(gen())), m);
  // 1M in the E2M1-relevant range, 1M in the E4M3 range, 1M log-uniform
  // from 2^-12 to 2^10 (E4M3 subnormals and the underflow edge).
  std::uniform_real_distribution<float> small(-8.0f, 8.0f);
  std::uniform_real_distribution<float> large(-520.0f, 520.0f);
  std::uniform_real_distribution<float> expo(-12.0f, 10.0f);
  for (int i = 0; i < 1000000; ++i)
    check(small(gen), m);
  for (int i = 0; i < 1000000; ++i)
    check(large(gen), m);
  for (int i = 0; i < 1000000; ++i)
    check((gen() & 1 ? -1.0f : 1.0f) * std::exp2(expo(gen)), m);
  EXPECT_EQ(m.checked, 4000000u);
  report("random f32", m);
}

TEST(Oracle, RoundingBoundaries) {
  Mismatches m;
  // E2M1: every midpoint between neighbours, plus the saturation edge 7
  // (the midpoint between 6 and the absent 8) and the representables.
  const float grid[] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f, 8.0f};
  for (int i = 0; i + 1 < 9; ++i) {
    checkWithNeighbours(grid[i], m);
    checkWithNeighbours(0.5f * (grid[i] + grid[i + 1]), m);
  }
  // E4M3: every code and every midpoint (464 is the 448/480 midpoint).
  for (int c = 0; c <= 0x7E; ++c) {
    const float a = nvfp4::decodeE4M3(static_cast<uint8_t>(c));
    checkWithNeighbours(a, m);
    const float b = c < 0x7E ? nvfp4::decodeE4M3(static_cast<uint8_t>(c + 1))
                             : 480.0f;
    checkWithNeighbours(0.5f * (a + b), m);
  }
  report("rounding boundaries", m);
}

TEST(Oracle, SpecialValues) {
  Mismatches m;
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::max(),
                  -std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::min(),
                  -std::numeric_limits<float>::min()})
    check(x, m);
  // NaNs: quiet, signalling, both signs, several payloads.
  for (uint32_t payload : {0x400000u, 0x000001u, 0x7FFFFFu, 0x123456u})
    for (uint32_t sign : {0u, 0x80000000u})
      check(fromBits(sign | 0x7F800000u | payload), m);
  // f32 subnormals: a sweep of the whole range.
  for (uint32_t b = 1; b < 0x800000u; b += 997) {
    check(fromBits(b), m);
    check(fromBits(b | 0x80000000u), m);
  }
  report("special values and subnormals", m);
}

TEST(Oracle, DecodeAllCodes) {
  for (int c = 0; c < 16; ++c) {
    const float ours = nvfp4::decodeE2M1(static_cast<uint8_t>(c));
    const float ref = oracle::decodeE2M1(static_cast<uint8_t>(c));
    EXPECT_EQ(bitsOf(ours), bitsOf(ref)) << "E2M1 code " << c;
  }
  for (int c = 0; c < 256; ++c) {
    const float ours = nvfp4::decodeE4M3(static_cast<uint8_t>(c));
    const float ref = oracle::decodeE4M3(static_cast<uint8_t>(c));
    if (std::isnan(ref)) {
      EXPECT_TRUE(std::isnan(ours)) << "E4M3 code " << c;
      continue;
    }
    EXPECT_EQ(bitsOf(ours), bitsOf(ref)) << "E4M3 code " << c;
  }
}

TEST(Oracle, EncodeInvertsDecode) {
  for (int c = 0; c < 16; ++c)
    EXPECT_EQ(oracle::e2m1(nvfp4::decodeE2M1(static_cast<uint8_t>(c))), c);
  for (int c = 0; c < 256; ++c) {
    if ((c & 0x7F) == 0x7F)
      continue;
    EXPECT_EQ(oracle::e4m3(nvfp4::decodeE4M3(static_cast<uint8_t>(c))), c);
  }
}

} // namespace
