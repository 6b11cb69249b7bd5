//===- QuantizeKernelsTest.cpp - Fast quantization kernels ----------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The kernels of lib/Numerics/QuantizeKernels.cpp must give exactly the bytes
// of the per-element definitions. These tests compare, bit for bit:
//  * the branch-free element encoders with encodeE2M1, encodeE2M1Stochastic
//    and encodeE4M3 (dense sweeps around every rounding boundary plus a
//    strided sweep of all f32 bit patterns; nvfp4-exhaustive-oracle covers
//    the full 2^32 for the public encoders);
//  * the scalar and SSE2 Hadamard kernels with applyHadamard;
//  * quantize / quantizeParallel on both kernel paths with a straightforward
//    per-element reference (below), over random and adversarial inputs.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/MX.h"
#include "nvfp4/Numerics/Numerics.h"

#include "QuantizeKernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace nvfp4;
using detail::KernelPath;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}

float fromBits(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof(x));
  return x;
}

/// Every f32 within `radius` ulps of +-v (both signs, clamped to the f32
/// bit range of v's sign).
void addNeighbours(std::vector<float> &out, float v, int radius = 4) {
  const uint32_t u = bitsOf(std::fabs(v));
  for (int d = -radius; d <= radius; ++d) {
    const int64_t w = static_cast<int64_t>(u) + d;
    if (w < 0 || w > 0x7FFFFFFF)
      continue;
    out.push_back(fromBits(static_cast<uint32_t>(w)));
    out.push_back(fromBits(static_cast<uint32_t>(w) | 0x80000000u));
  }
}

/// Values on and next to every E2M1 decision point (RNE ties, SR
/// truncation points, the thresholds of the top-8-bits selection) and every
/// special value.
std::vector<float> e2m1Boundaries() {
  std::vector<float> v;
  for (float t :
       {0.0f, 0.25f,      0.5f,        0.75f,  1.0f,   1.25f,   1.5f,    1.75f,
        2.0f, 2.5f,       3.0f,        3.5f,   4.0f,   5.0f,    6.0f,    7.0f,
        8.0f, 1.0f / 512, 1.0f / 1024, 0.375f, 0.125f, FLT_MIN, FLT_MAX, kInf})
    addNeighbours(v, t, 8);
  for (float t = 0.5f / 256; t < 8.0f; t += 0.5f / 256) // SR carry points
    addNeighbours(v, t, 1);
  v.push_back(std::numeric_limits<float>::quiet_NaN());
  v.push_back(-std::numeric_limits<float>::quiet_NaN());
  v.push_back(fromBits(0x7F800001u)); // signalling-NaN pattern
  v.push_back(fromBits(0xFFFFFFFFu));
  v.push_back(fromBits(0x00000001u)); // smallest subnormal
  v.push_back(fromBits(0x807FFFFFu)); // largest negative subnormal
  return v;
}

//===----------------------------------------------------------------------===//
// Element encoders
//===----------------------------------------------------------------------===//

TEST(QuantizeKernels, E2M1BranchlessMatchesEncoder) {
  for (float x : e2m1Boundaries())
    ASSERT_EQ(detail::encodeE2M1Branchless(x), encodeE2M1(x))
        << std::hex << bitsOf(x);
  // A strided sweep of all bit patterns (the stride is odd, so every low
  // bit pattern and every exponent is visited).
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 4093) {
    const float x = fromBits(static_cast<uint32_t>(u));
    ASSERT_EQ(detail::encodeE2M1Branchless(x), encodeE2M1(x)) << std::hex << u;
  }
}

TEST(QuantizeKernels, E2M1StochasticBranchlessMatchesEncoder) {
  for (float x : e2m1Boundaries())
    for (int r = 0; r < 256; ++r)
      ASSERT_EQ(detail::encodeE2M1StochasticBranchless(x, uint8_t(r)),
                encodeE2M1Stochastic(x, uint8_t(r)))
          << std::hex << bitsOf(x) << " rbits " << r;
  std::mt19937 gen(7);
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 4093) {
    const float x = fromBits(static_cast<uint32_t>(u));
    const uint8_t r = static_cast<uint8_t>(gen());
    ASSERT_EQ(detail::encodeE2M1StochasticBranchless(x, r),
              encodeE2M1Stochastic(x, r))
        << std::hex << u << " rbits " << int(r);
  }
  // Dense: every f32 in [2^-10, 8) with a stride of 61 ulps, all rbits
  // boundaries that matter (the carry happens iff top8 + rbits >= 256).
  for (uint32_t u = bitsOf(1.0f / 1024); u < bitsOf(8.0f); u += 61) {
    const float x = fromBits(u);
    for (int r : {0, 1, 127, 128, 129, 254, 255})
      ASSERT_EQ(detail::encodeE2M1StochasticBranchless(x, uint8_t(r)),
                encodeE2M1Stochastic(x, uint8_t(r)))
          << std::hex << u << " rbits " << r;
  }
}

TEST(QuantizeKernels, E4M3NonNegativeMatchesEncoder) {
  std::vector<float> v;
  // Every E4M3 value and every midpoint between neighbours, +-ulps.
  for (int c = 0; c < 0x7E; ++c) {
    const float lo = decodeE4M3(uint8_t(c)), hi = decodeE4M3(uint8_t(c + 1));
    addNeighbours(v, lo, 16);
    addNeighbours(v, lo + (hi - lo) / 2, 16);
  }
  for (float t : {448.0f, 464.0f, 480.0f, 512.0f, 1e6f, FLT_MAX, kInf,
                  0.015625f, 1.0f / 512, 1.0f / 1024, FLT_MIN, 0.0f})
    addNeighbours(v, t, 16);
  for (float x : v) {
    if (bitsOf(x) > 0x7F800000u) // NaN or negative (-0 included)
      continue;
    ASSERT_EQ(detail::encodeE4M3NonNegative(x), encodeE4M3(x))
        << std::hex << bitsOf(x);
  }
  for (uint32_t u = 0; u <= 0x7F800000u; u += 1021) {
    const float x = fromBits(u);
    ASSERT_EQ(detail::encodeE4M3NonNegative(x), encodeE4M3(x)) << std::hex << u;
  }
}

TEST(QuantizeKernels, E5M2NonNegativeMatchesEncoder) {
  std::vector<float> v;
  // Every E5M2 value and every midpoint between neighbours, +-ulps.
  for (int c = 0; c < 0x7B; ++c) {
    const float lo = mx::decodeE5M2(uint8_t(c));
    const float hi = mx::decodeE5M2(uint8_t(c + 1));
    addNeighbours(v, lo, 16);
    addNeighbours(v, lo + (hi - lo) / 2, 16);
  }
  for (float t : {57344.0f, 61440.0f, 65536.0f, 1e6f, FLT_MAX, kInf,
                  6.103515625e-05f, 1.0f / 65536, 1.0f / 131072, FLT_MIN, 0.0f})
    addNeighbours(v, t, 16);
  for (float x : v) {
    if (bitsOf(x) > 0x7F800000u) // NaN or negative (-0 included)
      continue;
    ASSERT_EQ(detail::encodeE5M2NonNegative(x), mx::encodeE5M2(x))
        << std::hex << bitsOf(x);
  }
  for (uint32_t u = 0; u <= 0x7F800000u; u += 1021) {
    const float x = fromBits(u);
    ASSERT_EQ(detail::encodeE5M2NonNegative(x), mx::encodeE5M2(x))
        << std::hex << u;
  }
}

TEST(QuantizeKernels, E4M3DecodeTable) {
  const float *t = detail::e4m3DecodeTable();
  for (int c = 0; c < 256; ++c) {
    const float d = decodeE4M3(uint8_t(c));
    if (std::isnan(d))
      EXPECT_TRUE(std::isnan(t[c])) << c;
    else
      EXPECT_EQ(bitsOf(t[c]), bitsOf(d)) << c;
  }
}

TEST(QuantizeKernels, HadamardKernelsMatchApplyHadamard) {
  std::mt19937 gen(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::array<int8_t, 16> custom;
  for (int j = 0; j < 16; ++j)
    custom[j] = (j % 3 == 0) ? -1 : 1;
  for (int trial = 0; trial < 2000; ++trial) {
    float x[16];
    for (float &v : x) {
      switch (gen() % 8) {
      case 0:
        v = fromBits(gen()); // any pattern, NaN and Inf included
        break;
      case 1:
        v = normal(gen) * 1e38f; // overflow in the sums
        break;
      case 2:
        v = normal(gen) * 1e-39f; // subnormal results
        break;
      default:
        v = normal(gen);
      }
    }
    for (const auto &signs : {kDefaultHadamardSigns, custom}) {
      float ref[16];
      std::copy(x, x + 16, ref);
      applyHadamard(ref, 1, 16, signs);
      for (KernelPath path : {KernelPath::Scalar, KernelPath::Vector}) {
        float y[16];
        detail::hadamard16(x, y, signs, path);
        for (int j = 0; j < 16; ++j) {
          if (std::isnan(ref[j]))
            ASSERT_TRUE(std::isnan(y[j])) << trial << " " << j;
          else
            ASSERT_EQ(bitsOf(y[j]), bitsOf(ref[j])) << trial << " " << j;
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Whole-tensor quantization against a per-element reference
//===----------------------------------------------------------------------===//

/// The straightforward definition of docs/numerics.md: RHT on a copy, tensor
/// amax, then per block its scale and multiplier and per element
/// encodeE2M1 / encodeE2M1Stochastic(stochasticRoundingBits), one nibble at
/// a time.
QuantizedTensor referenceQuantize(const float *x, int64_t rows, int64_t cols,
                                  const QuantizeOptions &opts) {
  QuantizedTensor out;
  out.rows = rows;
  out.cols = cols;
  out.block = opts.block;
  out.data.assign(rows * cols / 2, 0);
  out.scales.assign(rows * cols / 16, 0);
  std::vector<float> y(x, x + rows * cols);
  if (opts.hadamard)
    applyHadamard(y.data(), rows, cols, opts.signs);
  auto absMax = [](float acc, float v) {
    const float a = std::fabs(v);
    return a > acc ? a : acc;
  };
  float amax = 0.0f;
  if (opts.amax)
    amax = *opts.amax;
  else
    for (float v : y)
      amax = absMax(amax, v);
  const float sEnc = globalEncodeScale(amax);
  const float sDec = 1.0f / sEnc;
  out.amax = amax;
  const int64_t bpr = cols / 16;
  const int tileRows = opts.block.rows;
  for (int64_t rb = 0; rb < rows; rb += tileRows)
    for (int64_t cb = 0; cb < bpr; ++cb) {
      float blockAmax = 0.0f;
      for (int64_t r = rb; r < rb + tileRows; ++r)
        for (int j = 0; j < 16; ++j)
          blockAmax = absMax(blockAmax, y[r * cols + cb * 16 + j]);
      const uint8_t sb = blockScale(blockAmax, sEnc);
      float m = 1.0f / (decodeE4M3(sb) * sDec);
      if (m > FLT_MAX)
        m = FLT_MAX;
      for (int64_t r = rb; r < rb + tileRows; ++r) {
        out.scales[r * bpr + cb] = sb;
        for (int j = 0; j < 16; ++j) {
          const int64_t idx = r * cols + cb * 16 + j;
          const float scaled = y[idx] * m;
          const uint8_t code =
              opts.rounding == Rounding::Stochastic
                  ? encodeE2M1Stochastic(
                        scaled, stochasticRoundingBits(opts.seed, opts.offset,
                                                       uint64_t(idx)))
                  : encodeE2M1(scaled);
          uint8_t &byte = out.data[idx / 2];
          byte = idx % 2 == 0 ? uint8_t((byte & 0xF0) | code)
                              : uint8_t((byte & 0x0F) | (code << 4));
        }
      }
    }
  return out;
}

std::string describe(const QuantizeOptions &o, int64_t rows, int64_t cols) {
  std::string s = std::to_string(rows) + "x" + std::to_string(cols) +
                  " block " + std::to_string(o.block.rows) + "x16";
  s += o.rounding == Rounding::Stochastic ? " SR" : " RN";
  if (o.hadamard)
    s += " RHT";
  if (o.amax)
    s += " amax=" + std::to_string(*o.amax);
  return s;
}

/// Quantizes with every path (and with threads) and compares each with the
/// reference, byte for byte; the dequantized values must match the
/// per-element formula bit for bit.
void checkAllPaths(const std::vector<float> &x, int64_t rows, int64_t cols,
                   const QuantizeOptions &o) {
  SCOPED_TRACE(describe(o, rows, cols));
  const QuantizedTensor ref = referenceQuantize(x.data(), rows, cols, o);
  auto expectSame = [&](const QuantizedTensor &q, const char *what) {
    SCOPED_TRACE(what);
    ASSERT_EQ(q.rows, rows);
    ASSERT_EQ(q.cols, cols);
    ASSERT_TRUE(q.block == o.block);
    ASSERT_EQ(q.scales, ref.scales);
    ASSERT_EQ(q.data, ref.data);
    ASSERT_EQ(bitsOf(q.amax), bitsOf(ref.amax));
  };
  for (KernelPath path : {KernelPath::Scalar, KernelPath::Vector})
    for (int threads : {1, 3}) {
      // Start from stale contents: every byte must be rewritten.
      QuantizedTensor q;
      q.data.assign(rows * cols / 2, 0xA5);
      q.scales.assign(rows * cols / 16, 0x5A);
      ASSERT_FALSE(detail::quantizeWithKernels(x.data(), rows, cols, o, q,
                                               threads, path));
      expectSame(q, path == KernelPath::Scalar ? "scalar path" : "vector path");
    }
  QuantizedTensor q;
  ASSERT_FALSE(quantize(x.data(), rows, cols, o, q));
  expectSame(q, "quantize");
  ASSERT_FALSE(quantizeParallel(x.data(), rows, cols, o, q, 2));
  expectSame(q, "quantizeParallel");

  std::vector<float> dq(rows * cols);
  dequantize(q, dq.data());
  for (int64_t i = 0; i < rows * cols; ++i) {
    const uint8_t byte = ref.data[i / 2];
    const uint8_t code = i % 2 == 0 ? (byte & 0xF) : (byte >> 4);
    // Transformer Engine's dequantize_fp4_kernel, written out.
    const float want =
        decodeE2M1(code) * ((decodeE4M3(ref.scales[i / 16]) * ref.amax) *
                            float(1.0 / (6.0 * 448.0)));
    if (std::isnan(want))
      ASSERT_TRUE(std::isnan(dq[i])) << i;
    else
      ASSERT_EQ(bitsOf(dq[i]), bitsOf(want)) << i;
  }
}

/// Runs checkAllPaths over block shapes, rounding modes, the RHT and a set
/// of amax choices.
void checkAllOptions(const std::vector<float> &x, int64_t rows, int64_t cols,
                     uint64_t seed = 0x0123456789ABCDEFull) {
  std::array<int8_t, 16> custom;
  for (int j = 0; j < 16; ++j)
    custom[j] = (j * 5 % 7 < 3) ? -1 : 1;
  const std::optional<float> amaxes[] = {std::nullopt, 1.0f,   2688.0f, kInf,
                                         0.0f,         1e-40f, FLT_MAX};
  for (int b = 0; b < 2; ++b) {
    if (b == 1 && rows % 16 != 0)
      continue;
    for (Rounding rnd : {Rounding::NearestEven, Rounding::Stochastic})
      for (int had = 0; had < 3; ++had)
        for (const auto &amax : amaxes) {
          QuantizeOptions o;
          o.block = b ? BlockShape{16, 16} : BlockShape{1, 16};
          o.rounding = rnd;
          o.hadamard = had != 0;
          if (had == 2)
            o.signs = custom;
          o.amax = amax;
          o.seed = seed;
          // Exercise the 64-bit wrap of the Philox counter.
          o.offset = amax ? ~uint64_t(0) - 5 : 12345;
          checkAllPaths(x, rows, cols, o);
          if (::testing::Test::HasFatalFailure())
            return;
        }
  }
}

TEST(QuantizeKernels, RandomInputs) {
  std::mt19937 gen(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<double> decades(-20.0, 20.0);
  // cols 16, 48 and 80 leave partial groups of four blocks.
  const int64_t shapes[][2] = {{16, 64}, {32, 48}, {1, 16},
                               {3, 80},  {16, 16}, {48, 112}};
  for (const auto &shape : shapes) {
    const int64_t rows = shape[0], cols = shape[1];
    std::vector<float> x(rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
      const float s = static_cast<float>(std::pow(10.0, decades(gen)));
      for (int64_t c = 0; c < cols; ++c)
        x[r * cols + c] = normal(gen) * s;
    }
    checkAllOptions(x, rows, cols);
    if (HasFatalFailure())
      return;
  }
}

TEST(QuantizeKernels, RandomBitPatterns) {
  // NaN, Inf, subnormals and huge values everywhere.
  std::mt19937 gen(12);
  const int64_t rows = 32, cols = 80;
  std::vector<float> x(rows * cols);
  for (float &v : x)
    v = fromBits(gen());
  checkAllOptions(x, rows, cols);
}

TEST(QuantizeKernels, TiesAtEveryE2M1Boundary) {
  // A block with amax 6 * 2^k gets the scale 2^k (E4M3 rounds 6 * 2^k *
  // fl(1/6) to 2^k) and, with S_enc = 1 (amax 2688), the multiplier 2^-k:
  // x * m lands exactly on each tie and on its neighbours.
  std::vector<float> points;
  for (float t : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f,
                  2.5f, 3.0f, 3.5f, 4.0f, 5.0f})
    addNeighbours(points, t, 2);
  const int64_t perBlock = 15; // one slot per block keeps the amax
  for (int k : {-9, -6, -3, 0, 3, 8}) {
    const float scale = std::ldexp(1.0f, k);
    const int64_t blocks =
        (static_cast<int64_t>(points.size()) + perBlock - 1) / perBlock;
    const int64_t cols = 64;
    const int64_t rows = ((blocks + 3) / 4 + 15) / 16 * 16;
    std::vector<float> x(rows * cols, 0.0f);
    size_t p = 0;
    for (int64_t b = 0; b < rows * cols / 16; ++b) {
      x[b * 16] = (b % 2 ? -6.0f : 6.0f) * scale;
      for (int j = 1; j < 16; ++j)
        x[b * 16 + j] = points[p++ % points.size()] * scale;
    }
    QuantizeOptions o;
    o.amax = 2688.0f;
    checkAllPaths(x, rows, cols, o);
    // Sanity: the construction really produced the scale 2^k.
    QuantizedTensor q;
    ASSERT_FALSE(quantize(x.data(), rows, cols, o, q));
    EXPECT_EQ(decodeE4M3(q.scales[0]), scale);
    o.rounding = Rounding::Stochastic;
    checkAllPaths(x, rows, cols, o);
    // Computed amax and general scales too.
    checkAllOptions(x, rows, cols, 0xFFFFFFFF00000001ull);
    if (HasFatalFailure())
      return;
  }
}

TEST(QuantizeKernels, SpecialValuesAndZeroBlocks) {
  const int64_t rows = 32, cols = 112;
  std::mt19937 gen(13);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) {
    const int64_t block = i / 16;
    switch (block % 9) {
    case 0: // zero block, with -0
      x[i] = (i % 2) ? -0.0f : 0.0f;
      break;
    case 1: // one Inf
      x[i] = (i % 16 == 3) ? -kInf : normal(gen);
      break;
    case 2: // NaNs only
      x[i] = (i % 3) ? nan : -nan;
      break;
    case 3: // NaN among values
      x[i] = (i % 16 == 7) ? nan : normal(gen);
      break;
    case 4: // f32 subnormals
      x[i] = fromBits((gen() & 0x807FFFFFu) | 1u);
      break;
    case 5: // subnormal block scale
      x[i] = normal(gen) * 1e-3f;
      break;
    case 6: // huge
      x[i] = normal(gen) * 1e38f;
      break;
    case 7: // tiny next to zero
      x[i] = (i % 2) ? 0.0f : normal(gen) * 1e-30f;
      break;
    default:
      x[i] = normal(gen);
    }
  }
  checkAllOptions(x, rows, cols);
  // All-zero, all-NaN and all -0 tensors.
  for (float fill : {0.0f, -0.0f, nan, kInf}) {
    std::vector<float> z(16 * 48, fill);
    checkAllOptions(z, 16, 48);
    if (HasFatalFailure())
      return;
  }
}

TEST(QuantizeKernels, SmallAndLargeTensorAmax) {
  // amax so small that S_enc clamps to FLT_MAX, and so large that S_enc is
  // tiny; block scales then saturate or underflow.
  std::mt19937 gen(14);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float s : {1e-44f, 1e-38f, 1e-20f, 1e20f, 1e37f, 3e38f}) {
    std::vector<float> x(16 * 64);
    for (float &v : x)
      v = normal(gen) * s;
    checkAllOptions(x, 16, 64);
    if (HasFatalFailure())
      return;
  }
}

TEST(QuantizeKernels, EmptyAndInvalidShapes) {
  for (KernelPath path : {KernelPath::Scalar, KernelPath::Vector}) {
    QuantizedTensor q;
    q.data.assign(7, 1);
    q.scales.assign(3, 1);
    ASSERT_FALSE(detail::quantizeWithKernels(nullptr, 0, 32, {}, q, 1, path));
    EXPECT_TRUE(q.data.empty());
    EXPECT_TRUE(q.scales.empty());
    ASSERT_FALSE(detail::quantizeWithKernels(nullptr, 4, 0, {}, q, 2, path));
    EXPECT_TRUE(q.data.empty());
    float x[24] = {};
    EXPECT_TRUE(detail::quantizeWithKernels(x, 1, 24, {}, q, 1, path));
    QuantizeOptions o;
    o.amax = -1.0f;
    EXPECT_TRUE(detail::quantizeWithKernels(x, 1, 16, o, q, 1, path));
  }
}

TEST(QuantizeKernels, DefaultPath) {
  EXPECT_EQ(detail::defaultKernelPath() == KernelPath::Vector,
            detail::vectorKernelsAvailable());
}

} // namespace
