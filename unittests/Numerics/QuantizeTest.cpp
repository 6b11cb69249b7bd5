//===- QuantizeTest.cpp - NVFP4 quantization, GEMM, swizzle ---------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/Numerics.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
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

uint8_t codeAt(const QuantizedTensor &t, int64_t i) {
  const uint8_t b = t.data[i / 2];
  return (i % 2 == 0) ? (b & 0xF) : (b >> 4);
}

/// Normal data whose rows span six decades, so block scales cover the
/// E4M3 range including subnormals.
std::vector<float> spreadData(int64_t rows, int64_t cols, unsigned seed,
                              double decades = 6.0) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::uniform_real_distribution<double> mag(-decades / 2, decades / 2);
  std::vector<float> x(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float s = static_cast<float>(std::pow(10.0, mag(gen)));
    for (int64_t c = 0; c < cols; ++c)
      x[r * cols + c] = dist(gen) * s;
  }
  return x;
}

std::vector<float> normalData(int64_t n, unsigned seed, float sigma = 1.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, sigma);
  std::vector<float> x(n);
  for (float &v : x)
    v = dist(gen);
  return x;
}

void expectSameTensor(const QuantizedTensor &a, const QuantizedTensor &b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_TRUE(a.block == b.block);
  EXPECT_EQ(a.data, b.data);
  EXPECT_EQ(a.scales, b.scales);
  EXPECT_EQ(bitsOf(a.amax), bitsOf(b.amax));
}

QuantizeOptions opts2D() {
  QuantizeOptions o;
  o.block = {16, 16};
  return o;
}

//===----------------------------------------------------------------------===//
// Scales
//===----------------------------------------------------------------------===//

TEST(Scales, GlobalEncodeScale) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(globalEncodeScale(0.0f), 1.0f);
  EXPECT_EQ(globalEncodeScale(inf), 1.0f);
  // Transformer Engine's fminf clamp: a NaN amax gives FLT_MAX.
  EXPECT_EQ(globalEncodeScale(std::nanf("")), FLT_MAX);
  EXPECT_EQ(globalEncodeScale(2688.0f), 1.0f);
  EXPECT_EQ(globalEncodeScale(1.0f), 2688.0f);
  EXPECT_EQ(globalEncodeScale(3.0f), 2688.0f / 3.0f);
  // 2688 / denorm_min overflows to Inf: clamped to FLT_MAX.
  EXPECT_EQ(globalEncodeScale(std::numeric_limits<float>::denorm_min()),
            FLT_MAX);
  // 2688 / FLT_MAX is tiny but not 0: kept.
  EXPECT_EQ(globalEncodeScale(FLT_MAX), 2688.0f / FLT_MAX);
  EXPECT_GT(globalEncodeScale(FLT_MAX), 0.0f);
}

TEST(Scales, BlockScale) {
  EXPECT_EQ(blockScale(0.0f, 1.0f), 0x00);
  EXPECT_EQ(blockScale(6.0f, 1.0f), 0x38); // 1.0
  EXPECT_EQ(blockScale(std::numeric_limits<float>::infinity(), 1.0f), 0x7E);
  EXPECT_EQ(blockScale(1e30f, FLT_MAX), 0x7E); // product Inf -> FLT_MAX -> 448
  // The order of operations is blockAmax * (sEnc * fl(1/6)).
  const float sEnc = 2688.0f / 7.3f, amax = 5.1f;
  EXPECT_EQ(blockScale(amax, sEnc), encodeE4M3(amax * (sEnc * (1.0f / 6.0f))));
  // The tensor-amax block lands on 448.
  const float a = 7.3f;
  EXPECT_EQ(blockScale(a, globalEncodeScale(a)), 0x7E);
}

TEST(Scales, CheckedMul) {
  EXPECT_EQ(checkedMul(3, 5), 15);
  EXPECT_EQ(checkedMul(0, INT64_MAX), 0);
  EXPECT_FALSE(checkedMul(int64_t(1) << 32, int64_t(1) << 31));
  EXPECT_FALSE(checkedMul(-1, 4));
}

TEST(Scales, TransformerEngineFactors) {
  // TE's constexpr factors: the double quotient rounded to float.
  EXPECT_EQ(bitsOf(kInvE2M1TimesE4M3Max), bitsOf(float(1.0 / 2688.0)));
  EXPECT_EQ(bitsOf(kInvE2M1TimesE4M3MaxSquared),
            bitsOf(float(1.0 / 7225344.0)));
  // (s * amax) * factor, in that order: s = 1.5, amax = 7.3 differs from
  // s * (amax * factor) and from 1.5 / (2688 / 7.3).
  const float amax = 7.3f;
  EXPECT_EQ(bitsOf(dequantizeScale(0x3C, amax)),
            bitsOf((1.5f * amax) * float(1.0 / 2688.0)));
  EXPECT_EQ(bitsOf(matmulAlpha(3.0f, 7.3f)),
            bitsOf((3.0f * 7.3f) * float(1.0 / 7225344.0)));
}

TEST(Scales, DecodeTensorScale) {
  // A decode scale multiplies the block scale once (Model Optimizer's
  // e4m3 * weight_scale_2); an amax goes through fl(1 / (6 * 448)).
  const float ws2 = 0.0021973f;
  EXPECT_EQ(bitsOf(dequantizeScale(0x3C, ws2, TensorScale::Decode)),
            bitsOf(1.5f * ws2));
  EXPECT_EQ(bitsOf(dequantizeScale(0x3C, 7.3f, TensorScale::Amax)),
            bitsOf(dequantizeScale(0x3C, 7.3f)));
  EXPECT_EQ(bitsOf(tensorDecodeScale(7.3f, TensorScale::Amax)),
            bitsOf(7.3f * float(1.0 / 2688.0)));
  EXPECT_EQ(bitsOf(tensorDecodeScale(ws2, TensorScale::Decode)), bitsOf(ws2));
  EXPECT_EQ(
      bitsOf(matmulAlpha(3.0f, TensorScale::Amax, 7.3f, TensorScale::Amax)),
      bitsOf(matmulAlpha(3.0f, 7.3f)));
  EXPECT_EQ(
      bitsOf(matmulAlpha(ws2, TensorScale::Decode, 0.5f, TensorScale::Decode)),
      bitsOf(ws2 * 0.5f));
  EXPECT_EQ(
      bitsOf(matmulAlpha(ws2, TensorScale::Decode, 7.3f, TensorScale::Amax)),
      bitsOf(ws2 * (7.3f * float(1.0 / 2688.0))));

  // dequantize: every code and scale of a decode-scaled tensor.
  QuantizedTensor t;
  t.rows = 16;
  t.cols = 16;
  t.amax = ws2;
  t.tensorScale = TensorScale::Decode;
  for (int i = 0; i < 128; ++i)
    t.data.push_back(static_cast<uint8_t>(i * 37 + 5));
  for (int r = 0; r < 16; ++r)
    t.scales.push_back(static_cast<uint8_t>(r * 7 + 1));
  std::vector<float> out(256);
  dequantize(t, out.data());
  for (int i = 0; i < 256; ++i) {
    const uint8_t byte = t.data[i / 2];
    const uint8_t code = (i % 2 == 0) ? (byte & 0xF) : (byte >> 4);
    EXPECT_EQ(bitsOf(out[i]),
              bitsOf(decodeE2M1(code) * (decodeE4M3(t.scales[i / 16]) * ws2)))
        << i;
  }
}

TEST(Scales, CheckTensor) {
  QuantizedTensor t;
  t.rows = 4096;
  t.cols = 4096;
  t.data.assign(4096 * 4096 / 2, 0);
  t.scales.assign(1, 0); // 1x1 scales for 4096x4096 codes
  auto e = checkTensor(t);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("do not match the shape 4096x4096"), std::string::npos)
      << *e;
  t.scales.assign(4096 * 256, 0);
  EXPECT_FALSE(checkTensor(t));
  t.rows = int64_t(1) << 62; // rows * cols wraps around
  EXPECT_TRUE(checkTensor(t));
  // dequantize and matmul leave their outputs untouched on a bad tensor.
  std::vector<float> out(4, 7.0f);
  t.rows = 4096;
  t.scales.assign(1, 0);
  dequantize(t, out.data());
  EXPECT_EQ(out[0], 7.0f);
}

TEST(Scales, CheckQuantizable) {
  EXPECT_FALSE(checkQuantizable(4, 32, {1, 16}));
  EXPECT_FALSE(checkQuantizable(32, 32, {16, 16}));
  EXPECT_FALSE(checkQuantizable(0, 0, {1, 16}));
  auto e = checkQuantizable(4, 40, {1, 16});
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "cols (40) must be a multiple of 16");
  e = checkQuantizable(24, 32, {16, 16});
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "rows (24) must be a multiple of 16 for 16x16 blocks");
  e = checkQuantizable(16, 32, {1, 32});
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "unsupported block shape 1x32: expected 1x16 or 16x16");
  e = checkQuantizable(-1, 32, {1, 16});
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "shape must be non-negative (got rows=-1, cols=32)");
  e = checkQuantizable(int64_t(1) << 62, 64, {1, 16});
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "shape 4611686018427387904x64 has more elements than int64_t "
                "can count");

  std::vector<float> x(24 * 32, 1.0f);
  QuantizedTensor q;
  auto err = quantize(x.data(), 24, 32, opts2D(), q);
  ASSERT_TRUE(err);
  EXPECT_EQ(*err, "rows (24) must be a multiple of 16 for 16x16 blocks");
  QuantizeOptions bad;
  bad.amax = -1.0f;
  err = quantize(x.data(), 24, 32, bad, q);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("explicit amax"), std::string::npos);
  bad.amax = std::nanf("");
  EXPECT_TRUE(quantize(x.data(), 24, 32, bad, q));
}

//===----------------------------------------------------------------------===//
// Quantize / dequantize
//===----------------------------------------------------------------------===//

TEST(Quantize, GoldenBlock) {
  // x = 0, 0.5, ..., 7.5: amax 7.5, S_enc = 2688/7.5, s_b = 448, m ~= 0.8,
  // x*m = 0, .4, .8, ..., 6.0, none on a tie.
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i)
    x[i] = 0.5f * i;
  QuantizedTensor q;
  ASSERT_FALSE(quantize(x.data(), 1, 16, {}, q));
  const uint8_t expected[16] = {0, 1, 2, 2, 3, 4, 4, 5,
                                5, 6, 6, 6, 6, 7, 7, 7};
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(codeAt(q, i), expected[i]) << i;
  EXPECT_EQ(q.scales[0], 0x7E);
  EXPECT_EQ(q.amax, 7.5f);
  EXPECT_EQ(bitsOf(globalDecodeScale(q.amax)), bitsOf(1.0f / (2688.0f / 7.5f)));
  EXPECT_EQ(q.data[0], 0x10); // element 0 in the low nibble
  EXPECT_EQ(q.data[1], 0x22);
}

TEST(Quantize, DocumentedOperationOrder) {
  // Recompute every byte from the documented formulas.
  const int64_t rows = 8, cols = 64;
  auto x = spreadData(rows, cols, 21);
  QuantizedTensor q;
  ASSERT_FALSE(quantize(x.data(), rows, cols, {}, q));
  float amax = 0.0f;
  for (float v : x)
    amax = std::max(amax, std::fabs(v));
  const float sEnc = globalEncodeScale(amax);
  const float sDec = 1.0f / sEnc;
  EXPECT_EQ(bitsOf(q.amax), bitsOf(amax));
  EXPECT_EQ(bitsOf(globalDecodeScale(q.amax)), bitsOf(sDec));
  for (int64_t b = 0; b < rows * cols / 16; ++b) {
    float bAmax = 0.0f;
    for (int j = 0; j < 16; ++j)
      bAmax = std::max(bAmax, std::fabs(x[b * 16 + j]));
    const uint8_t sb = encodeE4M3(std::min(bAmax * (sEnc * (1.0f / 6.0f)),
                                           FLT_MAX));
    ASSERT_EQ(q.scales[b], sb);
    const float m = std::min(1.0f / (decodeE4M3(sb) * sDec), FLT_MAX);
    for (int j = 0; j < 16; ++j)
      ASSERT_EQ(codeAt(q, b * 16 + j), encodeE2M1(x[b * 16 + j] * m));
  }
}

/// Half the largest gap next to each E2M1 magnitude: the worst rounding
/// error of a value that was rounded to it (6 covers saturation of values up
/// to 6.375 = 6 * (1 + 2^-4), the largest x*m when the block scale is normal).
float halfGap(uint8_t code) {
  static const float g[8] = {0.25f, 0.25f, 0.25f, 0.25f,
                             0.5f,  0.5f,  1.0f,  1.0f};
  return g[code & 7];
}

TEST(Quantize, ErrorBound) {
  // |x - dq(q(x))| <= halfGap(c) * s_b * S_dec (plus f32 rounding) for
  // blocks with a normal scale; blocks with a subnormal scale may also
  // saturate: error <= max(halfGap(c) * s_b * S_dec, |x| - 6 s_b S_dec);
  // zero-scale blocks decode to 0 and hold |x| < 2^-10 * 6 * S_dec.
  for (bool twoD : {false, true}) {
    const int64_t rows = 64, cols = 256;
    auto x = spreadData(rows, cols, twoD ? 2 : 1, 10.0);
    QuantizeOptions o;
    if (twoD)
      o.block = {16, 16};
    QuantizedTensor q;
    ASSERT_FALSE(quantize(x.data(), rows, cols, o, q));
    std::vector<float> dq(rows * cols);
    dequantize(q, dq.data());
    const double sDec = globalDecodeScale(q.amax);
    int normal = 0, subnormal = 0, zero = 0;
    for (int64_t i = 0; i < rows * cols; ++i) {
      const uint8_t sb = q.scales[i / 16];
      const double s = decodeE4M3(sb);
      const double err = std::fabs(double(x[i]) - dq[i]);
      const double fl = 4.0 * std::ldexp(1.0, -24) * std::fabs(x[i]) + 1e-38;
      const uint8_t c = codeAt(q, i);
      if (sb == 0) {
        ++zero;
        EXPECT_EQ(dq[i], 0.0f);
        EXPECT_LE(std::fabs(x[i]), 6.0 * std::ldexp(1.0, -10) * sDec * 1.001);
      } else if (sb < 0x08) {
        ++subnormal;
        const double bound = std::max(halfGap(c) * s * sDec,
                                      std::fabs(x[i]) - 6.0 * s * sDec);
        EXPECT_LE(err, bound * (1 + 1e-6) + fl) << i;
      } else {
        ++normal;
        EXPECT_LE(err, halfGap(c) * s * sDec * (1 + 1e-6) + fl) << i;
      }
    }
    EXPECT_GT(normal, 1000);
    if (!twoD) {
      EXPECT_GT(subnormal, 0) << "data must exercise subnormal scales";
      EXPECT_GT(zero, 0) << "data must exercise zero scales";
    }
  }
}

TEST(Quantize, ZeroBlocksAndAllZeroTensor) {
  std::vector<float> x(4 * 64, 0.0f);
  QuantizedTensor q;
  ASSERT_FALSE(quantize(x.data(), 4, 64, {}, q));
  EXPECT_EQ(q.amax, 0.0f);
  EXPECT_EQ(globalDecodeScale(q.amax), 1.0f);
  for (uint8_t s : q.scales)
    EXPECT_EQ(s, 0);
  for (uint8_t d : q.data)
    EXPECT_EQ(d, 0);
  std::vector<float> dq(x.size(), 1.0f);
  dequantize(q, dq.data());
  for (float v : dq)
    EXPECT_EQ(bitsOf(v), 0u);

  // -0.0 keeps its sign bit (code 0x8) and decodes to -0.
  x[3] = -0.0f;
  ASSERT_FALSE(quantize(x.data(), 4, 64, {}, q));
  EXPECT_EQ(codeAt(q, 3), 0x8);

  // One zero block in an otherwise non-zero tensor.
  auto y = normalData(4 * 64, 9);
  for (int j = 16; j < 32; ++j)
    y[j] = 0.0f;
  ASSERT_FALSE(quantize(y.data(), 4, 64, {}, q));
  EXPECT_EQ(q.scales[1], 0);
  for (int j = 16; j < 32; ++j)
    EXPECT_EQ(codeAt(q, j), 0);
  dequantize(q, dq.data());
  for (int j = 16; j < 32; ++j)
    EXPECT_EQ(dq[j], 0.0f);
  EXPECT_NE(q.scales[0], 0);
}

TEST(Quantize, InfAndNaN) {
  auto x = normalData(2 * 32, 4);
  x[5] = std::numeric_limits<float>::infinity();
  x[40] = std::nanf("");
  QuantizedTensor q;
  ASSERT_FALSE(quantize(x.data(), 2, 32, {}, q));
  // amax = Inf -> S_enc = 1. The Inf block saturates its scale to 448; the
  // NaN is ignored by the amax reductions and encodes as +6.
  EXPECT_EQ(q.amax, std::numeric_limits<float>::infinity());
  EXPECT_EQ(globalDecodeScale(q.amax), 1.0f);
  EXPECT_EQ(q.scales[0], 0x7E);
  EXPECT_EQ(codeAt(q, 5), 0x7);
  EXPECT_EQ(codeAt(q, 40), 0x7);
  float a = 0;
  for (int j = 32; j < 48; ++j)
    if (j != 40)
      a = std::max(a, std::fabs(x[j]));
  EXPECT_EQ(q.scales[2], blockScale(a, 1.0f));
}

TEST(Quantize, ExplicitAmax) {
  const int64_t rows = 16, cols = 64;
  auto x = normalData(rows * cols, 17);
  float amax = 0.0f;
  for (float v : x)
    amax = std::max(amax, std::fabs(v));
  QuantizedTensor q0, q1, q2;
  ASSERT_FALSE(quantize(x.data(), rows, cols, {}, q0));
  QuantizeOptions o;
  o.amax = amax;
  ASSERT_FALSE(quantize(x.data(), rows, cols, o, q1));
  expectSameTensor(q0, q1);
  o.amax = 4.0f * amax;
  ASSERT_FALSE(quantize(x.data(), rows, cols, o, q2));
  EXPECT_EQ(bitsOf(q2.amax), bitsOf(4.0f * amax));
  EXPECT_NE(q2.scales, q0.scales);
  // An amax below the data saturates scales at 448 but stays defined.
  o.amax = amax / 100.0f;
  ASSERT_FALSE(quantize(x.data(), rows, cols, o, q2));
  int saturated = 0;
  for (uint8_t s : q2.scales)
    saturated += (s == 0x7E);
  EXPECT_GT(saturated, 0);
  o.amax = std::numeric_limits<float>::infinity();
  ASSERT_FALSE(quantize(x.data(), rows, cols, o, q2));
  EXPECT_EQ(q2.amax, std::numeric_limits<float>::infinity());
}

TEST(Quantize, HadamardFlagIsManualTransformThenQuantize) {
  for (BlockShape b : {BlockShape{1, 16}, BlockShape{16, 16}})
    for (Rounding rnd : {Rounding::NearestEven, Rounding::Stochastic}) {
      const int64_t rows = 32, cols = 64;
      auto x = spreadData(rows, cols, 31, 3.0);
      QuantizeOptions o;
      o.block = b;
      o.rounding = rnd;
      o.seed = 77;
      o.offset = 5;
      o.hadamard = true;
      QuantizedTensor q1, q2;
      ASSERT_FALSE(quantize(x.data(), rows, cols, o, q1));
      auto y = x;
      applyHadamard(y.data(), rows, cols);
      o.hadamard = false;
      ASSERT_FALSE(quantize(y.data(), rows, cols, o, q2));
      expectSameTensor(q1, q2);
      // And the flag really transforms.
      QuantizedTensor q3;
      ASSERT_FALSE(quantize(x.data(), rows, cols, o, q3));
      EXPECT_NE(q1.data, q3.data);
      // Custom signs are honoured.
      o.hadamard = true;
      o.signs.fill(1);
      ASSERT_FALSE(quantize(x.data(), rows, cols, o, q3));
      EXPECT_NE(q1.data, q3.data);
    }
}

TEST(Quantize, StochasticUsesLinearIndexBits) {
  const int64_t rows = 4, cols = 32;
  auto x = normalData(rows * cols, 8);
  QuantizeOptions o;
  o.rounding = Rounding::Stochastic;
  o.seed = 0xabcdef;
  o.offset = 12345;
  QuantizedTensor q, again, other;
  ASSERT_FALSE(quantize(x.data(), rows, cols, o, q));
  ASSERT_FALSE(quantize(x.data(), rows, cols, o, again));
  expectSameTensor(q, again);
  const float sDec = globalDecodeScale(q.amax);
  for (int64_t i = 0; i < rows * cols; ++i) {
    const float m = std::min(1.0f / (decodeE4M3(q.scales[i / 16]) * sDec),
                             FLT_MAX);
    ASSERT_EQ(codeAt(q, i),
              encodeE2M1Stochastic(x[i] * m,
                                   stochasticRoundingBits(o.seed, o.offset, i)));
  }
  o.seed += 1;
  ASSERT_FALSE(quantize(x.data(), rows, cols, o, other));
  EXPECT_NE(other.data, q.data);
  EXPECT_EQ(other.scales, q.scales) << "scales never depend on rounding";
}

TEST(Quantize, ParallelIsBitIdentical) {
  for (BlockShape b : {BlockShape{1, 16}, BlockShape{16, 16}})
    for (Rounding rnd : {Rounding::NearestEven, Rounding::Stochastic})
      for (bool had : {false, true}) {
        const int64_t rows = 112, cols = 96;
        auto x = spreadData(rows, cols, 41, 8.0);
        QuantizeOptions o;
        o.block = b;
        o.rounding = rnd;
        o.hadamard = had;
        o.seed = 3;
        QuantizedTensor ref;
        ASSERT_FALSE(quantize(x.data(), rows, cols, o, ref));
        for (int threads : {1, 2, 3, 5, 8, 200, 0}) {
          QuantizedTensor par;
          ASSERT_FALSE(quantizeParallel(x.data(), rows, cols, o, par, threads));
          expectSameTensor(ref, par);
        }
      }
}

TEST(Quantize, TwoDimensionalScalesAreReplicated) {
  const int64_t rows = 32, cols = 48;
  auto x = spreadData(rows, cols, 13, 4.0);
  QuantizedTensor q;
  ASSERT_FALSE(quantize(x.data(), rows, cols, opts2D(), q));
  float amax = 0;
  for (float v : x)
    amax = std::max(amax, std::fabs(v));
  const float sEnc = globalEncodeScale(amax);
  for (int64_t tr = 0; tr < rows / 16; ++tr)
    for (int64_t tc = 0; tc < cols / 16; ++tc) {
      float tileAmax = 0;
      for (int64_t r = tr * 16; r < tr * 16 + 16; ++r)
        for (int64_t c = tc * 16; c < tc * 16 + 16; ++c)
          tileAmax = std::max(tileAmax, std::fabs(x[r * cols + c]));
      for (int64_t r = tr * 16; r < tr * 16 + 16; ++r)
        EXPECT_EQ(q.scales[r * (cols / 16) + tc], blockScale(tileAmax, sEnc));
    }
}

TEST(Quantize, TwoDimensionalTranspose) {
  for (Rounding rnd : {Rounding::NearestEven, Rounding::Stochastic}) {
    const int64_t rows = 64, cols = 48;
    auto w = spreadData(rows, cols, 23, 5.0);
    std::vector<float> wt(cols * rows);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        wt[j * rows + i] = w[i * cols + j];
    QuantizeOptions o = opts2D();
    QuantizedTensor q, qt;
    ASSERT_FALSE(quantize(w.data(), rows, cols, o, q));
    ASSERT_FALSE(quantize(wt.data(), cols, rows, o, qt));
    if (rnd == Rounding::NearestEven) {
      // quantize(W^T) == transpose2D(quantize(W)), bit for bit.
      expectSameTensor(qt, transpose2D(q));
    }
    // Transposing the codes element-wise; dequantized values commute too.
    std::vector<float> dq(rows * cols), dqt(rows * cols);
    dequantize(q, dq.data());
    dequantize(qt, dqt.data());
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        ASSERT_EQ(codeAt(q, i * cols + j), codeAt(qt, j * rows + i));
        ASSERT_EQ(bitsOf(dq[i * cols + j]), bitsOf(dqt[j * rows + i]));
      }
    expectSameTensor(transpose2D(transpose2D(q)), q);
    if (rnd == Rounding::Stochastic) {
      // With SR the bits follow the linear index, so W^T draws different
      // bits: only the RN property is exact. Check the SR tensor still
      // transposes consistently with its own codes.
      o.rounding = Rounding::Stochastic;
      QuantizedTensor s;
      ASSERT_FALSE(quantize(w.data(), rows, cols, o, s));
      QuantizedTensor st = transpose2D(s);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          ASSERT_EQ(codeAt(s, i * cols + j), codeAt(st, j * rows + i));
    }
  }
}

//===----------------------------------------------------------------------===//
// Requantization
//===----------------------------------------------------------------------===//

bool allScalesNormal(const QuantizedTensor &q) {
  for (uint8_t s : q.scales)
    if ((s & 0x78) == 0) // exponent field 0: zero or subnormal
      return false;
  return true;
}

TEST(Requantize, NormalScalesReproduceBytes) {
  int checked = 0, sameGlobal = 0;
  for (unsigned seed = 0; seed < 40; ++seed)
    for (BlockShape b : {BlockShape{1, 16}, BlockShape{16, 16}}) {
      const int64_t rows = 32, cols = 128;
      auto x = spreadData(rows, cols, 1000 + seed, 2.0);
      QuantizeOptions o;
      o.block = b;
      QuantizedTensor q, rq;
      ASSERT_FALSE(quantize(x.data(), rows, cols, o, q));
      ASSERT_TRUE(allScalesNormal(q)) << "seed " << seed;
      std::vector<float> dq(rows * cols);
      dequantize(q, dq.data());
      ASSERT_FALSE(quantize(dq.data(), rows, cols, o, rq));
      EXPECT_EQ(q.data, rq.data) << "seed " << seed;
      EXPECT_EQ(q.scales, rq.scales) << "seed " << seed;
      // The recomputed amax, 6 * ((448 * amax) * fl(1/2688)) from the
      // dequantized block of the original amax, may differ from it in the
      // last ulps.
      const int64_t ulps = std::llabs(int64_t(bitsOf(rq.amax)) -
                                      int64_t(bitsOf(q.amax)));
      EXPECT_LE(ulps, 2) << "seed " << seed;
      sameGlobal += bitsOf(rq.amax) == bitsOf(q.amax);
      ++checked;
    }
  EXPECT_EQ(checked, 80);
  RecordProperty("same_global_decode_scale", sameGlobal);
  std::printf("requantization: %d/%d tensors also kept the exact global "
              "decode scale\n",
              sameGlobal, checked);
}

TEST(Requantize, SubnormalScalesCanFail) {
  // Block 0 sets amax = 2688, so S_enc = S_dec = 1. Block 1 has amax
  // A = 9.5 * 2^-9: s_b = RN(A / 6 = 1.58 * 2^-9) = 2 * 2^-9 (subnormal, a
  // 26% rounding error), and A * m = 4.75 encodes as 4. After dequantizing,
  // the block amax is 8 * 2^-9 and RN(8/6 * 2^-9) = 2^-9: the scale changes
  // and with it the codes. With a normal scale the relative scale error is
  // at most 2^-4 and the block maximum always encodes as 6, so this cannot
  // happen.
  std::vector<float> x(32, 0.0f);
  x[0] = 2688.0f;
  for (int j = 0; j < 16; ++j)
    x[16 + j] = std::ldexp(9.5f, -9) * float(j + 1) / 16.0f;
  QuantizedTensor q, rq;
  ASSERT_FALSE(quantize(x.data(), 1, 32, {}, q));
  ASSERT_EQ(globalDecodeScale(q.amax), 1.0f);
  ASSERT_EQ(q.scales[1], 0x02) << "block 1 must have a subnormal scale";
  ASSERT_EQ(codeAt(q, 31), 0x6) << "the block maximum encodes as 4";
  std::vector<float> dq(32);
  dequantize(q, dq.data());
  ASSERT_FALSE(quantize(dq.data(), 1, 32, {}, rq));
  EXPECT_EQ(rq.scales[1], 0x01);
  EXPECT_NE(q.data, rq.data);
  EXPECT_EQ(rq.scales[0], q.scales[0]);
}

//===----------------------------------------------------------------------===//
// GEMM
//===----------------------------------------------------------------------===//

TEST(Matmul, MatchesDequantizedReference) {
  // matmul computes sum_b T_b in f32 (T_b = partial_b * sA * sB is exact)
  // then one multiplication by fl(Sa * Sb). The reference dequantizes (one
  // rounding per element after the exact c * s) and sums in double. So
  //   |C - R| <= (nb + 4) u sum_k |dqA_k dqB_k| (1 + O(u)) + u |R|,
  // u = 2^-24, nb = K / 16 (nb - 1 additions, 2 roundings of the global
  // scale, 2 roundings of the dequantized operands).
  const int64_t m = 24, n = 20, k = 256;
  for (unsigned seed : {1u, 2u, 3u})
    for (BlockShape b : {BlockShape{1, 16}, BlockShape{16, 16}}) {
      const int64_t mm = b.rows == 16 ? 32 : m, nn = b.rows == 16 ? 16 : n;
      auto a = spreadData(mm, k, seed, 4.0);
      auto bb = normalData(nn * k, seed + 10, 0.01f);
      QuantizeOptions o;
      o.block = b;
      QuantizedTensor qa, qb;
      ASSERT_FALSE(quantize(a.data(), mm, k, o, qa));
      ASSERT_FALSE(quantize(bb.data(), nn, k, {}, qb));
      std::vector<float> c(mm * nn), r(mm * nn), da(mm * k), db(nn * k);
      matmul(qa, qb, c.data());
      dequantize(qa, da.data());
      dequantize(qb, db.data());
      matmulF32(da.data(), db.data(), r.data(), mm, nn, k);
      const double u = std::ldexp(1.0, -24);
      const double nb = k / 16.0;
      double worst = 0;
      for (int64_t i = 0; i < mm; ++i)
        for (int64_t j = 0; j < nn; ++j) {
          double absSum = 0;
          for (int64_t kk = 0; kk < k; ++kk)
            absSum += std::fabs(double(da[i * k + kk]) * db[j * k + kk]);
          const double bound =
              (nb + 4) * u * absSum * (1 + 1e-6) + u * std::fabs(r[i * nn + j]);
          const double diff = std::fabs(double(c[i * nn + j]) - r[i * nn + j]);
          EXPECT_LE(diff, bound) << i << "," << j;
          if (bound > 0)
            worst = std::max(worst, diff / bound);
        }
      EXPECT_LE(worst, 1.0);
    }
}

TEST(Matmul, DocumentedAccumulationOrder) {
  const int64_t m = 3, n = 5, k = 64;
  auto a = normalData(m * k, 51), b = normalData(n * k, 52, 3.0f);
  QuantizedTensor qa, qb;
  ASSERT_FALSE(quantize(a.data(), m, k, {}, qa));
  ASSERT_FALSE(quantize(b.data(), n, k, {}, qb));
  std::vector<float> c(m * n);
  matmul(qa, qb, c.data());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t blk = 0; blk < k / 16; ++blk) {
        float partial = 0.0f;
        for (int e = 0; e < 16; ++e)
          partial += decodeE2M1(codeAt(qa, i * k + blk * 16 + e)) *
                     decodeE2M1(codeAt(qb, j * k + blk * 16 + e));
        acc += partial * (decodeE4M3(qa.scales[i * (k / 16) + blk]) *
                          decodeE4M3(qb.scales[j * (k / 16) + blk]));
      }
      EXPECT_EQ(bitsOf(c[i * n + j]),
                bitsOf(acc * ((qa.amax * qb.amax) *
                              float(1.0 / (6.0 * 6.0 * 448.0 * 448.0)))));
    }
}

TEST(Matmul, OperandChecks) {
  auto a = normalData(2 * 32, 1);
  QuantizedTensor qa, qb;
  ASSERT_FALSE(quantize(a.data(), 2, 32, {}, qa));
  ASSERT_FALSE(quantize(a.data(), 4, 16, {}, qb));
  auto err = checkMatmulOperands(qa, qb);
  ASSERT_TRUE(err);
  EXPECT_EQ(*err, "contraction sizes differ: A has K=32, B has K=16");
  std::vector<float> c(8, 42.0f);
  matmul(qa, qb, c.data());
  for (float v : c)
    EXPECT_EQ(v, 42.0f) << "an invalid matmul leaves C untouched";
  qb = qa;
  qb.scales.pop_back();
  EXPECT_TRUE(checkMatmulOperands(qa, qb));
  EXPECT_FALSE(checkMatmulOperands(qa, qa));
}

TEST(Matmul, F32ReferenceIsDouble) {
  // 1 + 2^-30 - 1 would vanish in f32 accumulation.
  const float a[3] = {1.0f, std::ldexp(1.0f, -15), -1.0f};
  const float b[3] = {1.0f, std::ldexp(1.0f, -15), 1.0f};
  float c = 0;
  matmulF32(a, b, &c, 1, 1, 3);
  EXPECT_EQ(c, std::ldexp(1.0f, -30));
}

//===----------------------------------------------------------------------===//
// Scale swizzle
//===----------------------------------------------------------------------===//

TEST(Swizzle, SizeAndIndexFormula) {
  EXPECT_EQ(swizzledScalesSize(1, 1), 128 * 4);
  EXPECT_EQ(swizzledScalesSize(128, 4), 512);
  EXPECT_EQ(swizzledScalesSize(129, 5), 256 * 8);
  EXPECT_EQ(swizzledScalesSize(0, 4), 0);
  // Negative or overflowing sizes have no value (they used to wrap to 0).
  EXPECT_FALSE(swizzledScalesSize(-1, -1));
  EXPECT_FALSE(swizzledScalesSize(int64_t(1) << 62, int64_t(1) << 62));
  EXPECT_FALSE(swizzledScalesSize(int64_t(1) << 32, int64_t(1) << 32));
  EXPECT_FALSE(swizzledScalesSize(INT64_MAX, 4));
  EXPECT_EQ(swizzledScalesSize(int64_t(1) << 40, 4), int64_t(1) << 42);
  const int64_t rows = 300, cols = 17;
  std::vector<uint8_t> s(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i)
    s[i] = static_cast<uint8_t>(1 + i % 251); // never 0
  auto z = swizzleScales(s.data(), rows, cols);
  ASSERT_EQ(static_cast<int64_t>(z.size()), *swizzledScalesSize(rows, cols));
  const int64_t pc = 20; // cols padded to 4
  int64_t nonzero = 0;
  for (uint8_t v : z)
    nonzero += v != 0;
  EXPECT_EQ(nonzero, rows * cols) << "padding must be zero";
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      // (rows/128, cols/4, 32, 4, 4): [r/128][c/4][r%32][(r/32)%4][c%4].
      const int64_t idx = (((r / 128) * (pc / 4) + c / 4) * 32 + r % 32) * 16 +
                          ((r / 32) % 4) * 4 + c % 4;
      ASSERT_EQ(z[idx], s[r * cols + c]) << r << "," << c;
    }
  // Hand-picked entries of the first atom.
  std::vector<uint8_t> t(128 * 4);
  for (int i = 0; i < 128 * 4; ++i)
    t[i] = static_cast<uint8_t>(i);
  auto zt = swizzleScales(t.data(), 128, 4);
  EXPECT_EQ(zt[0], t[0]);             // (0,0)
  EXPECT_EQ(zt[1], t[1]);             // (0,1)
  EXPECT_EQ(zt[4], t[32 * 4]);        // (32,0)
  EXPECT_EQ(zt[16], t[1 * 4]);        // (1,0)
  EXPECT_EQ(zt[511], t[127 * 4 + 3]); // (127,3)
}

TEST(Swizzle, RoundTrip) {
  std::mt19937 gen(9);
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {128, 4}, {130, 5}, {300, 17}, {256, 64}, {7, 3}}) {
    std::vector<uint8_t> s(rows * cols);
    for (uint8_t &v : s)
      v = static_cast<uint8_t>(gen());
    auto z = swizzleScales(s.data(), rows, cols);
    EXPECT_EQ(unswizzleScales(z.data(), rows, cols), s);
  }
}

} // namespace
