//===- ConversionsTest.cpp - E2M1/E4M3, SR, Philox, RHT -------------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/Numerics.h"

#include <gtest/gtest.h>

#include <bitset>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace nvfp4;

namespace {

uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}

const float kE2M1Grid[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

//===----------------------------------------------------------------------===//
// E2M1 / E4M3 round to nearest
//===----------------------------------------------------------------------===//

TEST(E2M1, DecodeTable) {
  for (int c = 0; c < 8; ++c) {
    EXPECT_EQ(decodeE2M1(c), kE2M1Grid[c]);
    EXPECT_EQ(decodeE2M1(c | 8), -kE2M1Grid[c]);
  }
  EXPECT_TRUE(std::signbit(decodeE2M1(0x8)));
  EXPECT_EQ(decodeE2M1(0xF3), 1.5f) << "only the low nibble is read";
}

TEST(E2M1, RoundTripOfRepresentables) {
  for (int c = 0; c < 16; ++c)
    EXPECT_EQ(encodeE2M1(decodeE2M1(c)), c);
}

TEST(E2M1, BoundariesOfDesign) {
  // [0,.25]->0, (.25,.75)->.5, [.75,1.25]->1, (1.25,1.75)->1.5,
  // [1.75,2.5]->2, (2.5,3.5)->3, [3.5,5]->4, >5->6.
  struct Case {
    float lo, hi;
    bool loIn, hiIn;
    float value;
  } cases[] = {{0.0f, 0.25f, true, true, 0.0f},  {0.25f, 0.75f, false, false, 0.5f},
               {0.75f, 1.25f, true, true, 1.0f}, {1.25f, 1.75f, false, false, 1.5f},
               {1.75f, 2.5f, true, true, 2.0f},  {2.5f, 3.5f, false, false, 3.0f},
               {3.5f, 5.0f, true, true, 4.0f},   {5.0f, 1e30f, false, true, 6.0f}};
  for (const Case &c : cases) {
    float lo = c.loIn ? c.lo : std::nextafter(c.lo, 100.0f);
    float hi = c.hiIn ? c.hi : std::nextafter(c.hi, 0.0f);
    for (float x : {lo, hi, 0.5f * (c.lo + c.hi)}) {
      if (x > 1e29f)
        x = 1e30f;
      EXPECT_EQ(decodeE2M1(encodeE2M1(x)), c.value) << "x=" << x;
      EXPECT_EQ(decodeE2M1(encodeE2M1(-x)), -c.value) << "x=" << -x;
    }
  }
}

TEST(E2M1, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(encodeE2M1(0.0f), 0x0);
  EXPECT_EQ(encodeE2M1(-0.0f), 0x8);
  EXPECT_EQ(encodeE2M1(inf), 0x7);
  EXPECT_EQ(encodeE2M1(-inf), 0xF);
  EXPECT_EQ(encodeE2M1(std::numeric_limits<float>::quiet_NaN()), 0x7);
  EXPECT_EQ(encodeE2M1(-std::numeric_limits<float>::quiet_NaN()), 0x7);
  EXPECT_EQ(encodeE2M1(std::numeric_limits<float>::denorm_min()), 0x0);
  EXPECT_EQ(encodeE2M1(-std::numeric_limits<float>::denorm_min()), 0x8);
  EXPECT_EQ(encodeE2M1(std::numeric_limits<float>::max()), 0x7);
  EXPECT_EQ(encodeE2M1(-std::numeric_limits<float>::max()), 0xF);
}

TEST(E4M3, DecodeTable) {
  EXPECT_EQ(decodeE4M3(0x00), 0.0f);
  EXPECT_TRUE(std::signbit(decodeE4M3(0x80)));
  EXPECT_EQ(decodeE4M3(0x01), std::ldexp(1.0f, -9)); // smallest subnormal
  EXPECT_EQ(decodeE4M3(0x07), 7.0f * std::ldexp(1.0f, -9));
  EXPECT_EQ(decodeE4M3(0x08), std::ldexp(1.0f, -6)); // smallest normal
  EXPECT_EQ(decodeE4M3(0x38), 1.0f);
  EXPECT_EQ(decodeE4M3(0x7E), 448.0f);
  EXPECT_EQ(decodeE4M3(0xFE), -448.0f);
  EXPECT_TRUE(std::isnan(decodeE4M3(0x7F)));
  EXPECT_TRUE(std::isnan(decodeE4M3(0xFF)));
  // Monotonic over the positive codes.
  for (int c = 1; c <= 0x7E; ++c)
    EXPECT_LT(decodeE4M3(c - 1), decodeE4M3(c));
}

TEST(E4M3, RoundTripOfRepresentables) {
  for (int c = 0; c < 256; ++c) {
    if ((c & 0x7F) == 0x7F)
      continue;
    EXPECT_EQ(encodeE4M3(decodeE4M3(c)), c) << c;
  }
}

TEST(E4M3, TiesAndSaturation) {
  const float inf = std::numeric_limits<float>::infinity();
  // Ties to even between every pair of neighbours.
  for (int c = 0; c < 0x7E; ++c) {
    const float a = decodeE4M3(c), b = decodeE4M3(c + 1);
    const float mid = 0.5f * (a + b); // exact
    const int even = (c % 2 == 0) ? c : c + 1;
    EXPECT_EQ(encodeE4M3(mid), even) << "mid " << mid;
    EXPECT_EQ(encodeE4M3(std::nextafter(mid, 0.0f)), c);
    EXPECT_EQ(encodeE4M3(std::nextafter(mid, inf)), c + 1);
  }
  EXPECT_EQ(encodeE4M3(464.0f), 0x7E); // tie 448 / 480 -> even (448)
  EXPECT_EQ(encodeE4M3(std::nextafter(464.0f, inf)), 0x7E); // satfinite
  EXPECT_EQ(encodeE4M3(1e30f), 0x7E);
  EXPECT_EQ(encodeE4M3(inf), 0x7E);
  EXPECT_EQ(encodeE4M3(-inf), 0xFE);
  EXPECT_EQ(encodeE4M3(std::ldexp(1.0f, -10)), 0x00); // tie 0 / 2^-9
  EXPECT_EQ(encodeE4M3(std::nextafter(std::ldexp(1.0f, -10), 1.0f)), 0x01);
  EXPECT_EQ(encodeE4M3(-0.0f), 0x80);
  EXPECT_EQ(encodeE4M3(std::numeric_limits<float>::quiet_NaN()), 0x7F);
  EXPECT_EQ(encodeE4M3(-std::numeric_limits<float>::quiet_NaN()), 0x7F);
}

//===----------------------------------------------------------------------===//
// Stochastic rounding
//===----------------------------------------------------------------------===//

/// Neighbours of |x| on the E2M1 grid (saturating above 6).
void neighbours(float ax, float &lo, float &hi) {
  lo = 0.0f;
  hi = 6.0f;
  for (float g : kE2M1Grid) {
    if (g <= ax)
      lo = g;
    if (g >= ax) {
      hi = g;
      break;
    }
  }
  if (ax >= 6.0f)
    lo = hi = 6.0f;
}

/// floor(frac * 256) where frac = (ax - lo) / (hi - lo): the number of
/// rbits values (out of 256) that round |x| up.
int expectedRoundUps(float ax) {
  float lo, hi;
  neighbours(ax, lo, hi);
  if (hi == lo)
    return 0;
  const double frac = (double(ax) - lo) / (double(hi) - lo);
  return static_cast<int>(std::floor(frac * 256.0));
}

TEST(StochasticRounding, OnlyNeighboursAndExactCounts) {
  std::mt19937 gen(1234);
  std::uniform_real_distribution<float> dist(-7.0f, 7.0f);
  for (int trial = 0; trial < 4000; ++trial) {
    float x = dist(gen);
    if (trial % 4 == 0)
      x *= 0.1f; // dense coverage of the subnormal (0.5-ulp) range
    const float ax = std::fabs(x);
    float lo, hi;
    neighbours(ax, lo, hi);
    int ups = 0;
    for (int r = 0; r < 256; ++r) {
      const uint8_t code = encodeE2M1Stochastic(x, static_cast<uint8_t>(r));
      const float v = decodeE2M1(code);
      ASSERT_TRUE(std::fabs(v) == lo || std::fabs(v) == hi)
          << "x=" << x << " r=" << r << " v=" << v;
      ASSERT_EQ(std::signbit(v), std::signbit(x));
      if (std::fabs(v) == hi && hi != lo)
        ++ups;
      // Monotone in rbits: once it rounds up, larger rbits round up too.
      if (r > 0 && hi != lo && std::fabs(v) == lo) {
        ASSERT_NE(std::fabs(decodeE2M1(encodeE2M1Stochastic(
                      x, static_cast<uint8_t>(r - 1)))),
                  hi);
      }
    }
    // Exactly floor(frac * 256) of the 256 rbits values round up.
    EXPECT_EQ(ups, expectedRoundUps(ax)) << "x=" << x;
  }
}

TEST(StochasticRounding, BitLevelDefinition) {
  // 1.0 + 0.25 = 1.25: discarded fraction of the 0.5 ulp is exactly 1/2, the
  // top 8 discarded bits are 0x80: rbits >= 0x80 round up to 1.5.
  EXPECT_EQ(encodeE2M1Stochastic(1.25f, 0x7F), 0x2);
  EXPECT_EQ(encodeE2M1Stochastic(1.25f, 0x80), 0x3);
  // Subnormal range: 0.3 = 0.6 ulp above 0; floor(0.6 * 256) = 153.
  EXPECT_EQ(encodeE2M1Stochastic(0.3f, 255 - 153), 0x0);
  EXPECT_EQ(encodeE2M1Stochastic(0.3f, 256 - 153), 0x1);
  // A value below 2^-9 (1/256 of the 0.5 ulp) never rounds up.
  for (int r = 0; r < 256; ++r)
    EXPECT_EQ(encodeE2M1Stochastic(0.0019f, static_cast<uint8_t>(r)), 0x0);
  // 4.0 -> 6.0 has ulp 2: 5.0 is half way.
  EXPECT_EQ(encodeE2M1Stochastic(5.0f, 0x7F), 0x6);
  EXPECT_EQ(encodeE2M1Stochastic(5.0f, 0x80), 0x7);
}

TEST(StochasticRounding, ExactValuesStayExact) {
  for (int c = 0; c < 16; ++c)
    for (int r = 0; r < 256; ++r)
      EXPECT_EQ(encodeE2M1Stochastic(decodeE2M1(c), static_cast<uint8_t>(r)),
                c);
}

TEST(StochasticRounding, Saturation) {
  const float inf = std::numeric_limits<float>::infinity();
  for (int r = 0; r < 256; ++r) {
    const uint8_t rb = static_cast<uint8_t>(r);
    for (float x : {6.0f, 6.5f, 7.9f, 8.0f, 100.0f, 1e30f, inf}) {
      EXPECT_EQ(encodeE2M1Stochastic(x, rb), 0x7);
      EXPECT_EQ(encodeE2M1Stochastic(-x, rb), 0xF);
    }
    EXPECT_EQ(encodeE2M1Stochastic(std::numeric_limits<float>::quiet_NaN(), rb),
              0x7);
    EXPECT_EQ(encodeE2M1Stochastic(-0.0f, rb), 0x8);
    const uint8_t c = encodeE2M1Stochastic(5.99f, rb);
    EXPECT_TRUE(c == 0x6 || c == 0x7);
  }
}

TEST(StochasticRounding, Unbiased) {
  // For each value: the sample mean over N Philox-driven draws must lie
  // within 5 standard errors of the exact expectation lo + ulp * k / 256
  // (k = floor(frac * 256)), and that expectation is within ulp / 256 of x
  // (the only bias: the fraction is truncated to 8 bits).
  const int n = 1 << 20;
  const float values[] = {0.01f, 0.1f, 0.3f, 0.6f, 0.8f,  1.1f, 1.3f,
                          1.7f,  2.2f, 2.9f, 3.3f, 4.5f, 5.5f, 5.9f};
  uint64_t offset = 0;
  for (float x : values) {
    float lo, hi;
    neighbours(x, lo, hi);
    const double ulp = double(hi) - lo;
    const double p = expectedRoundUps(x) / 256.0;
    const double expected = lo + ulp * p;
    EXPECT_LE(double(x) - expected, ulp / 256.0 + 1e-12);
    EXPECT_GE(double(x) - expected, 0.0);
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
      sum += decodeE2M1(encodeE2M1Stochastic(
          x, stochasticRoundingBits(42, offset, static_cast<uint64_t>(i))));
    offset += n / 16;
    const double mean = sum / n;
    const double sigma = ulp * std::sqrt(p * (1.0 - p));
    EXPECT_LE(std::fabs(mean - expected), 5.0 * sigma / std::sqrt(double(n)) +
                                              1e-12)
        << "x=" << x << " mean=" << mean << " expected=" << expected;
    EXPECT_LE(std::fabs(mean - x),
              5.0 * sigma / std::sqrt(double(n)) + ulp / 256.0)
        << "x=" << x;
  }
}

TEST(StochasticRounding, SignSymmetric) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(0.0f, 7.0f);
  for (int i = 0; i < 10000; ++i) {
    const float x = dist(gen);
    const uint8_t r = static_cast<uint8_t>(gen());
    EXPECT_EQ(encodeE2M1Stochastic(-x, r), encodeE2M1Stochastic(x, r) | 0x8);
  }
}

//===----------------------------------------------------------------------===//
// Philox4x32-10
//===----------------------------------------------------------------------===//

TEST(Philox, Random123KnownAnswers) {
  using A4 = std::array<uint32_t, 4>;
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (A4{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                          {0xffffffffu, 0xffffffffu}),
            (A4{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                          {0xa4093822u, 0x299f31d0u}),
            (A4{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
  EXPECT_EQ(philox4x32(0, 0),
            (A4{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
}

TEST(Philox, SeedAndOffsetMapping) {
  const uint64_t seed = 0x0123456789abcdefull, offset = 0xfedcba9876543210ull;
  EXPECT_EQ(philox4x32(seed, offset),
            philox4x32_10({0x76543210u, 0xfedcba98u, 0u, 0u},
                          {0x89abcdefu, 0x01234567u}));
}

TEST(Philox, StochasticRoundingBitsLayout) {
  const uint64_t seed = 99, offset = 1000;
  for (uint64_t i = 0; i < 64; ++i) {
    const auto w = philox4x32(seed, offset + i / 16);
    const unsigned b = i % 16;
    EXPECT_EQ(stochasticRoundingBits(seed, offset, i),
              static_cast<uint8_t>((w[b / 4] >> (8 * (b % 4))) & 0xFF));
  }
  // Byte 0 is the least significant byte of word 0.
  const auto w = philox4x32(seed, offset);
  EXPECT_EQ(stochasticRoundingBits(seed, offset, 0), w[0] & 0xFF);
  EXPECT_EQ(stochasticRoundingBits(seed, offset, 5), (w[1] >> 8) & 0xFF);
  // Advancing the offset by one is advancing the element index by 16.
  for (uint64_t i = 0; i < 256; ++i)
    EXPECT_EQ(stochasticRoundingBits(seed, offset + 1, i),
              stochasticRoundingBits(seed, offset, i + 16));
}

TEST(Philox, BitsLookUniform) {
  // A coarse sanity check of the byte stream: every value appears with
  // frequency within 6 sigma of 1/256 over 2^20 bytes.
  const int n = 1 << 20;
  std::vector<int> hist(256, 0);
  for (int i = 0; i < n; ++i)
    ++hist[stochasticRoundingBits(5, 0, static_cast<uint64_t>(i))];
  const double mean = n / 256.0, sigma = std::sqrt(mean * (1 - 1 / 256.0));
  for (int v = 0; v < 256; ++v)
    EXPECT_LE(std::fabs(hist[v] - mean), 6 * sigma) << v;
}

//===----------------------------------------------------------------------===//
// Random Hadamard transform
//===----------------------------------------------------------------------===//

/// The matrix of applyHadamard: column j is the transform of e_j.
std::vector<float> hadamardMatrix(const std::array<int8_t, 16> &signs) {
  std::vector<float> e(256, 0.0f);
  for (int j = 0; j < 16; ++j)
    e[j * 16 + j] = 1.0f;
  applyHadamard(e.data(), 16, 16, signs);
  std::vector<float> h(256);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j)
      h[i * 16 + j] = e[j * 16 + i]; // row j of e is H e_j
  return h;
}

TEST(Hadamard, MatrixIsQuarterSylvesterTimesSigns) {
  const auto h = hadamardMatrix(kDefaultHadamardSigns);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      const int parity = static_cast<int>(std::bitset<8>(i & j).count() % 2);
      const float expected =
          0.25f * (parity ? -1.0f : 1.0f) * kDefaultHadamardSigns[j];
      EXPECT_EQ(h[i * 16 + j], expected) << i << "," << j;
    }
}

TEST(Hadamard, Orthonormal) {
  const auto h = hadamardMatrix(kDefaultHadamardSigns);
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < 16; ++k) {
      double s = 0.0;
      for (int j = 0; j < 16; ++j)
        s += double(h[i * 16 + j]) * h[k * 16 + j];
      EXPECT_NEAR(s, i == k ? 1.0 : 0.0, 1e-6);
    }
}

TEST(Hadamard, DocumentedButterflyOrderBitExact) {
  // An independent transcription of docs/numerics.md: sign flip, stages
  // h = 1, 2, 4, 8 of (a + b, a - b), then * 0.25f.
  std::mt19937 gen(3);
  std::normal_distribution<float> dist(0.0f, 3.0f);
  std::vector<float> x(64 * 32);
  for (float &v : x)
    v = dist(gen);
  std::vector<float> y = x;
  applyHadamard(y.data(), 64, 32);
  for (size_t base = 0; base < x.size(); base += 16) {
    float v[16];
    for (int j = 0; j < 16; ++j)
      v[j] = x[base + j] * float(kDefaultHadamardSigns[j]);
    for (int h : {1, 2, 4, 8})
      for (int blockStart = 0; blockStart < 16; blockStart += 2 * h)
        for (int i = blockStart; i < blockStart + h; ++i) {
          const float a = v[i], b = v[i + h];
          v[i] = a + b;
          v[i + h] = a - b;
        }
    for (int j = 0; j < 16; ++j)
      ASSERT_EQ(bitsOf(y[base + j]), bitsOf(v[j] * 0.25f));
  }
}

TEST(Hadamard, PreservesDotProducts) {
  std::mt19937 gen(11);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  const int rows = 8, cols = 256;
  std::vector<float> a(rows * cols), b(rows * cols);
  for (float &v : a)
    v = dist(gen);
  for (float &v : b)
    v = dist(gen) * 100.0f;
  std::vector<float> ha = a, hb = b;
  applyHadamard(ha.data(), rows, cols);
  applyHadamard(hb.data(), rows, cols);
  for (int r = 0; r < rows; ++r) {
    double d0 = 0, d1 = 0, na = 0, nb = 0;
    for (int k = 0; k < cols; ++k) {
      d0 += double(a[r * cols + k]) * b[r * cols + k];
      d1 += double(ha[r * cols + k]) * hb[r * cols + k];
      na += double(a[r * cols + k]) * a[r * cols + k];
      nb += double(b[r * cols + k]) * b[r * cols + k];
    }
    EXPECT_NEAR(d0, d1, 1e-6 * std::sqrt(na * nb));
    // Norms preserved too.
    double nha = 0;
    for (int k = 0; k < cols; ++k)
      nha += double(ha[r * cols + k]) * ha[r * cols + k];
    EXPECT_NEAR(nha, na, 1e-6 * na);
  }
}

TEST(Hadamard, TransposeInvertsAndTwiceIsNotIdentity) {
  // H = H16 D / 4 is orthogonal but not symmetric (for signs != all +1), so
  // the inverse is H^T = D H16 / 4: the transform with all-plus signs
  // followed by the sign flip. Applying H twice is not the identity.
  std::mt19937 gen(5);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> x(4 * 64);
  for (float &v : x)
    v = dist(gen);
  std::array<int8_t, 16> plus;
  plus.fill(1);

  std::vector<float> y = x;
  applyHadamard(y.data(), 4, 64);
  applyHadamard(y.data(), 4, 64, plus);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(y[i] * kDefaultHadamardSigns[i % 16], x[i], 1e-6);

  std::vector<float> twice = x;
  applyHadamard(twice.data(), 4, 64);
  applyHadamard(twice.data(), 4, 64);
  double maxDiff = 0;
  for (size_t i = 0; i < x.size(); ++i)
    maxDiff = std::max(maxDiff, double(std::fabs(twice[i] - x[i])));
  EXPECT_GT(maxDiff, 0.1) << "H*H must not be the identity for TE's signs";

  // With all-plus signs H = H16 / 4 is symmetric and an involution.
  std::vector<float> z = x;
  applyHadamard(z.data(), 4, 64, plus);
  applyHadamard(z.data(), 4, 64, plus);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(z[i], x[i], 1e-6);
}

TEST(Hadamard, BadShapeIsANoOp) {
  std::vector<float> x(24, 1.0f);
  applyHadamard(x.data(), 1, 24);
  for (float v : x)
    EXPECT_EQ(v, 1.0f);
}

} // namespace
