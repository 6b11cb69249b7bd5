//===- MXTest.cpp - OCP MX quantization, dequantization and GEMM ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The rules of docs/numerics.md §13 on hand-computed cases: the shared
// exponent (floor(log2(amax)) - emax, its clamps and NaN), the saturation
// it implies (an amax of 7 in MXFP4 stores 6), packing, NaN blocks, and the
// GEMM's per-block exact sums against a double-precision GEMM of the
// dequantized operands. The conversions are checked against the CUDA
// toolkit in MXOracleTest.cpp; python/tests/test_mx.py checks quantization
// against ml_dtypes and a transcription of the specification.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/MX.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using nvfp4::mx::ElementType;

TEST(MX, SharedScale) {
  // floor(log2(amax)) - emax, as E8M0 (bias 127).
  EXPECT_EQ(nvfp4::mx::sharedScale(6.0f, ElementType::E2M1), 127);
  EXPECT_EQ(nvfp4::mx::sharedScale(7.99f, ElementType::E2M1), 127);
  EXPECT_EQ(nvfp4::mx::sharedScale(8.0f, ElementType::E2M1), 128);
  EXPECT_EQ(nvfp4::mx::sharedScale(448.0f, ElementType::E4M3), 127);
  EXPECT_EQ(nvfp4::mx::sharedScale(1.0f, ElementType::E4M3), 127 - 8);
  EXPECT_EQ(nvfp4::mx::sharedScale(1.0f, ElementType::E5M2), 127 - 15);
  // A zero block counts as 2^-126: -126 - 2 clamps to -127 (code 0).
  EXPECT_EQ(nvfp4::mx::sharedScale(0.0f, ElementType::E2M1), 0);
  // Subnormal amax: floor(log2(2^-140)) - 2 = -142, clamped.
  EXPECT_EQ(nvfp4::mx::sharedScale(std::ldexp(1.0f, -140), ElementType::E2M1),
            0);
  // Overflow of the scale range and non-finite amax: NaN.
  EXPECT_EQ(nvfp4::mx::sharedScale(std::ldexp(1.0f, 127), ElementType::E2M1),
            127 + 125);
  EXPECT_EQ(nvfp4::mx::sharedScale(std::numeric_limits<float>::infinity(),
                                   ElementType::E4M3),
            nvfp4::mx::kE8M0NaN);
  EXPECT_EQ(nvfp4::mx::sharedScale(std::numeric_limits<float>::quiet_NaN(),
                                   ElementType::E2M1),
            nvfp4::mx::kE8M0NaN);
}

TEST(MX, QuantizeMXFP4Block) {
  // One block: amax 7 gives scale 2^0, so 7 saturates to 6; 2.6 rounds to
  // 3 (E2M1's neighbours 2 and 3), 0.25 to 0 (tie, even), -1.25 to -1.
  std::vector<float> x(32, 0.0f);
  x[0] = 7.0f;
  x[1] = 2.6f;
  x[2] = 0.25f;
  x[3] = -1.25f;
  nvfp4::mx::Tensor t;
  ASSERT_FALSE(nvfp4::mx::quantize(x.data(), 1, 32, ElementType::E2M1, t));
  ASSERT_EQ(t.scales.size(), 1u);
  EXPECT_EQ(t.scales[0], 127);
  ASSERT_EQ(t.data.size(), 16u);
  EXPECT_EQ(t.data[0], 0x7 | (0x5 << 4)); // 6 | 3 << 4
  EXPECT_EQ(t.data[1], 0x0 | (0xA << 4)); // 0 | -1 << 4
  std::vector<float> y(32);
  nvfp4::mx::dequantize(t, y.data());
  EXPECT_EQ(y[0], 6.0f);
  EXPECT_EQ(y[1], 3.0f);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(y[3], -1.0f);
}

TEST(MX, QuantizeMXFP8Blocks) {
  // Block 0: amax 500 -> scale 2^0, 500 saturates to 448 in E4M3. Block 1:
  // amax 0.1 -> floor(log2 0.1) = -4, scale 2^-12: 0.1 * 2^12 = 409.6 ->
  // 416 (E4M3 spacing 32 above 256), dequantized 416 * 2^-12.
  std::vector<float> x(64, 0.0f);
  x[0] = 500.0f;
  x[32] = 0.1f;
  nvfp4::mx::Tensor t;
  ASSERT_FALSE(nvfp4::mx::quantize(x.data(), 1, 64, ElementType::E4M3, t));
  EXPECT_EQ(t.scales[0], 127);
  EXPECT_EQ(t.scales[1], 127 - 12);
  std::vector<float> y(64);
  nvfp4::mx::dequantize(t, y.data());
  EXPECT_EQ(y[0], 448.0f);
  EXPECT_EQ(y[32], std::ldexp(416.0f, -12));
  // E5M2: amax 0.1 -> scale 2^(-4 - 15); 0.1 * 2^19 = 52428.8 -> 49152
  // (E5M2 spacing 8192 above 32768).
  ASSERT_FALSE(nvfp4::mx::quantize(x.data(), 1, 64, ElementType::E5M2, t));
  EXPECT_EQ(t.scales[1], 127 - 19);
  nvfp4::mx::dequantize(t, y.data());
  EXPECT_EQ(y[32], std::ldexp(49152.0f, -19));
}

TEST(MX, NaNBlock) {
  std::vector<float> x(64, 1.0f);
  x[40] = std::numeric_limits<float>::quiet_NaN();
  nvfp4::mx::Tensor t;
  ASSERT_FALSE(nvfp4::mx::quantize(x.data(), 1, 64, ElementType::E2M1, t));
  EXPECT_EQ(t.scales[1], nvfp4::mx::kE8M0NaN);
  std::vector<float> y(64);
  nvfp4::mx::dequantize(t, y.data());
  EXPECT_EQ(y[0], 1.0f);
  for (int i = 32; i < 64; ++i)
    EXPECT_TRUE(std::isnan(y[i])) << i;
}

TEST(MX, RejectsBadShapes) {
  nvfp4::mx::Tensor t;
  std::vector<float> x(48, 0.0f);
  auto error = nvfp4::mx::quantize(x.data(), 1, 48, ElementType::E2M1, t);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("multiple of 32"), std::string::npos);
  EXPECT_TRUE(nvfp4::mx::quantize(x.data(), -1, 32, ElementType::E2M1, t));
}

/// Fills a [rows, cols] array with magnitudes spread over 2^-20 .. 2^10.
std::vector<float> fill(int64_t rows, int64_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-20, 10), sign(0, 1);
  std::vector<float> x(static_cast<size_t>(rows * cols));
  for (float &v : x)
    v = (sign(rng) ? -1.0f : 1.0f) * std::ldexp(mantissa(rng), exponent(rng));
  return x;
}

TEST(MX, MatmulIsTheBlockwiseExactSumAccumulatedInF32) {
  const int64_t m = 5, n = 7, k = 96;
  for (ElementType ta :
       {ElementType::E2M1, ElementType::E4M3, ElementType::E5M2}) {
    for (ElementType tb :
         {ElementType::E2M1, ElementType::E4M3, ElementType::E5M2}) {
      std::vector<float> x = fill(m, k, 1), w = fill(n, k, 2);
      nvfp4::mx::Tensor a, b;
      ASSERT_FALSE(nvfp4::mx::quantize(x.data(), m, k, ta, a));
      ASSERT_FALSE(nvfp4::mx::quantize(w.data(), n, k, tb, b));
      std::vector<float> da(m * k), db(n * k), c(m * n);
      nvfp4::mx::dequantize(a, da.data());
      nvfp4::mx::dequantize(b, db.data());
      ASSERT_FALSE(nvfp4::mx::matmul(a, b, c.data()));
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          // Each block's sum in double is exact here (the dequantized
          // products of one block span less than 53 bits for these
          // magnitudes); rounded to f32 and accumulated in f32.
          float acc = 0.0f;
          for (int64_t blk = 0; blk < k / 32; ++blk) {
            double partial = 0.0;
            for (int64_t kk = blk * 32; kk < (blk + 1) * 32; ++kk)
              partial += static_cast<double>(da[i * k + kk]) * db[j * k + kk];
            acc = acc + static_cast<float>(partial);
          }
          EXPECT_EQ(c[i * n + j], acc) << "types " << int(ta) << " x "
                                       << int(tb) << " at " << i << ", " << j;
        }
    }
  }
  nvfp4::mx::Tensor a, b;
  std::vector<float> x = fill(2, 64, 3), w = fill(2, 32, 4), c(4);
  ASSERT_FALSE(nvfp4::mx::quantize(x.data(), 2, 64, ElementType::E2M1, a));
  ASSERT_FALSE(nvfp4::mx::quantize(w.data(), 2, 32, ElementType::E2M1, b));
  EXPECT_TRUE(nvfp4::mx::matmul(a, b, c.data())); // K differ
}

TEST(MX, ThreadsDoNotChangeTheResult) {
  // 4 x 8192 elements: 1024 blocks a thread for up to 1 thread per 1024.
  std::vector<float> x = fill(4, 8192, 17);
  x[40] = std::numeric_limits<float>::quiet_NaN(); // a NaN block
  for (ElementType type :
       {ElementType::E2M1, ElementType::E4M3, ElementType::E5M2}) {
    nvfp4::mx::Tensor one;
    ASSERT_FALSE(nvfp4::mx::quantize(x.data(), 4, 8192, type, one));
    for (int threads : {0, 2, 3, 7}) {
      nvfp4::mx::Tensor t;
      ASSERT_FALSE(nvfp4::mx::quantize(x.data(), 4, 8192, type, t, threads));
      EXPECT_EQ(t.data, one.data) << int(type) << " on " << threads;
      EXPECT_EQ(t.scales, one.scales) << int(type) << " on " << threads;
    }
  }
}

} // namespace
