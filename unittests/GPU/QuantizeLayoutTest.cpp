//===- QuantizeLayoutTest.cpp - Quantize kernel work assignment tests -----===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Checks the index mathematics of QuantizeLayout.h, which the NVFP4ToGPU
// lowering emits for the nvfp4.quantize kernels: every block is quantized by
// exactly one thread, a 16x16 tile by one aligned half warp, scales land in
// the compact layout, and the stochastic-rounding counters are those of
// nvfp4::stochasticRoundingBits (also through the rbits operand of the
// hardware-sr conversion). Then runs the data flow of the two kernels
// (per-CTA partial maxima, their reduction, per-thread blocks, the half-warp
// butterfly of 16x16 tiles, byte packing) on the CPU, thread by thread, with
// the reference's scalar formulas, and compares the buffers with
// nvfp4::quantize.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/Elementwise/QuantizeLayout.h"
#include "nvfp4/Numerics/Numerics.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <random>
#include <vector>

using namespace nvfp4;
using namespace nvfp4::gpu;

namespace {

struct Shape {
  int64_t rows, cols, blockRows;
};

const Shape kShapes[] = {{1, 16, 1},   {3, 48, 1},   {64, 256, 1},
                         {5, 4096, 1}, {16, 16, 16}, {48, 80, 16},
                         {64, 512, 16}, {160, 32, 16}};

TEST(QuantizeLayout, EveryBlockOnceAndTilesOnHalfWarps) {
  for (const Shape &s : kShapes) {
    SCOPED_TRACE(testing::Message() << s.rows << "x" << s.cols << " blocks "
                                    << s.blockRows << "x16");
    const int64_t numel = s.rows * s.cols;
    const int64_t numBlocks = quantizeNumBlocks(numel);
    const int64_t blocksPerRow = s.cols / 16;
    const int64_t threads = quantizeNumCtas(numel) * kQuantizeThreads;
    ASSERT_GE(threads, numBlocks);
    ASSERT_LT(threads - numBlocks, kQuantizeThreads);
    std::vector<int> seen(numBlocks, 0);
    for (int64_t cta = 0; cta < quantizeNumCtas(numel); ++cta) {
      for (int64_t tid = 0; tid < kQuantizeThreads; ++tid) {
        const int64_t gid = quantizeGlobalThread(cta, tid);
        if (gid >= numBlocks)
          continue;
        const int64_t block = quantizeBlockOfThread(gid, s.cols, s.blockRows);
        ASSERT_GE(block, 0);
        ASSERT_LT(block, numBlocks);
        ++seen[block];
        const int64_t row = block / blocksPerRow, colBlock = block % blocksPerRow;
        EXPECT_EQ(quantizeInputElement(block), row * s.cols + colBlock * 16);
        EXPECT_EQ(quantizeDataByte(block), (row * s.cols + colBlock * 16) / 2);
        // Compact scale index: [rows / blockRows, cols / 16].
        EXPECT_EQ(quantizeScaleIndex(gid, s.blockRows),
                  (row / s.blockRows) * blocksPerRow + colBlock);
        if (s.blockRows == 16) {
          // The tile's 16 rows are the 16 threads of one aligned half warp.
          EXPECT_EQ(quantizeRowInTile(gid), row % 16);
          const int64_t first = gid - quantizeRowInTile(gid);
          EXPECT_EQ(first % 16, 0);
          EXPECT_EQ(first / 32, (first + 15) / 32);
          EXPECT_LT(first + 15, numBlocks) << "a tile split by the guard";
          EXPECT_EQ(quantizeBlockOfThread(first, s.cols, 16),
                    (row - row % 16) * blocksPerRow + colBlock);
        }
      }
    }
    for (int64_t b = 0; b < numBlocks; ++b)
      ASSERT_EQ(seen[b], 1) << "block " << b;
  }
}

TEST(QuantizeLayout, PhiloxCountersMatchTheReference) {
  const uint64_t seed = 0x0123456789ABCDEFull, offset = 77;
  for (int64_t block : {int64_t(0), int64_t(1), int64_t(15), int64_t(1000)}) {
    const std::array<uint32_t, 4> w =
        philox4x32(seed, quantizePhiloxCounter(block, offset));
    for (int j = 0; j < 16; ++j) {
      // The kernel takes element j's bits from byte j % 4 of word j / 4.
      const uint8_t kernelBits = static_cast<uint8_t>(w[j / 4] >> (8 * (j % 4)));
      EXPECT_EQ(kernelBits, stochasticRoundingBits(
                                seed, offset, quantizeInputElement(block) + j));
    }
  }
}

// hardware-sr: one cvt.rs.satfinite.e2m1x4.f32 per Philox word w, operands
// {a, b, e, f} = elements {4w+3, 4w+2, 4w+1, 4w}. With the ISA's random-byte
// assignment (cvtRsE2M1x4RandomByteShift) applied to the permuted rbits,
// every element must receive the byte the software path gives it.
TEST(QuantizeLayout, HardwareSRRbitsGiveEachElementItsReferenceByte) {
  EXPECT_EQ(cvtRsE2M1x4RandomByteShift(0), 24); // a: rbits[31:24]
  EXPECT_EQ(cvtRsE2M1x4RandomByteShift(1), 8);  // b: rbits[15:8]
  EXPECT_EQ(cvtRsE2M1x4RandomByteShift(2), 16); // e: rbits[23:16]
  EXPECT_EQ(cvtRsE2M1x4RandomByteShift(3), 0);  // f: rbits[7:0]
  EXPECT_EQ(cvtRsE2M1x4Rbits(uint32_t(0x44332211)), 0x44223311u);
  const uint64_t seed = 0xDEADBEEF01234567ull, offset = 5;
  std::mt19937 gen(7);
  std::vector<uint32_t> words = {0u, 0xFFFFFFFFu, 0x00FF00FFu, 0xFF00FF00u,
                                 0x80402010u};
  for (int i = 0; i < 1000; ++i)
    words.push_back(static_cast<uint32_t>(gen()));
  auto check = [](uint32_t w) {
    const uint32_t rbits = cvtRsE2M1x4Rbits(w);
    for (int i = 0; i < 4; ++i) {
      const int operand = 3 - i; // element 4w + i is operand f, e, b, a
      const uint8_t hw = static_cast<uint8_t>(
          rbits >> cvtRsE2M1x4RandomByteShift(operand));
      ASSERT_EQ(hw, static_cast<uint8_t>(w >> (8 * i)))
          << "word " << w << " element " << i;
    }
  };
  for (uint32_t w : words)
    check(w);
  for (int64_t block : {int64_t(0), int64_t(3), int64_t(999)}) {
    const std::array<uint32_t, 4> w =
        philox4x32(seed, quantizePhiloxCounter(block, offset));
    for (int j = 0; j < 16; ++j) {
      const uint32_t rbits = cvtRsE2M1x4Rbits(w[j / 4]);
      const uint8_t hw = static_cast<uint8_t>(
          rbits >> cvtRsE2M1x4RandomByteShift(3 - j % 4));
      EXPECT_EQ(hw, stochasticRoundingBits(seed, offset,
                                           quantizeInputElement(block) + j));
    }
  }
}

/// The amax kernel followed by the quantize kernel, thread by thread, with
/// the reference's scalar formulas and QuantizeLayout.h's assignment.
QuantizedTensor emulateKernels(const std::vector<float> &x, const Shape &s,
                               const QuantizeOptions &opts,
                               std::vector<uint8_t> &compactScales) {
  const int64_t numel = s.rows * s.cols;
  const int64_t numBlocks = quantizeNumBlocks(numel);
  auto fmaxRule = [](float acc, float v) {
    float a = std::fabs(v);
    return a > acc ? a : acc;
  };
  auto blockValues = [&](int64_t block, float v[16]) {
    for (int j = 0; j < 16; ++j)
      v[j] = x[quantizeInputElement(block) + j];
    if (opts.hadamard)
      applyHadamard(v, 1, 16, opts.signs);
  };
  // Amax kernel: grid-strided partial maxima, one per CTA.
  float amax;
  if (opts.amax) {
    amax = *opts.amax;
  } else {
    const int64_t ctas = amaxNumCtas(numel);
    std::vector<float> partials(ctas, 0.0f);
    for (int64_t cta = 0; cta < ctas; ++cta)
      for (int64_t tid = 0; tid < kQuantizeThreads; ++tid)
        for (int64_t b = quantizeGlobalThread(cta, tid); b < numBlocks;
             b += ctas * kQuantizeThreads) {
          float v[16];
          blockValues(b, v);
          for (float e : v)
            partials[cta] = fmaxRule(partials[cta], e);
        }
    amax = 0.0f;
    for (float p : partials)
      amax = p > amax ? p : amax;
  }
  const float sEnc = globalEncodeScale(amax);
  QuantizedTensor out;
  out.rows = s.rows;
  out.cols = s.cols;
  out.block = {static_cast<int>(s.blockRows), 16};
  out.amax = amax;
  const float sDec = 1.0f / sEnc;
  out.data.assign(numel / 2, 0xAA);
  compactScales.assign(numel / 16 / s.blockRows, 0xAA);
  const int64_t threads = quantizeNumCtas(numel) * kQuantizeThreads;
  // Per-thread block amax, then the 16x16 butterfly over lane offsets 1, 2,
  // 4, 8 of each aligned group of 16 threads.
  std::vector<float> bamax(threads, 0.0f);
  for (int64_t gid = 0; gid < threads; ++gid) {
    if (gid >= numBlocks)
      continue;
    float v[16];
    blockValues(quantizeBlockOfThread(gid, s.cols, s.blockRows), v);
    for (float e : v)
      bamax[gid] = fmaxRule(bamax[gid], e);
  }
  if (s.blockRows == 16)
    for (int offset : {1, 2, 4, 8}) {
      std::vector<float> next = bamax;
      for (int64_t gid = 0; gid < threads; ++gid) {
        float other = bamax[gid ^ offset];
        next[gid] = other > bamax[gid] ? other : bamax[gid];
      }
      bamax = next;
    }
  for (int64_t gid = 0; gid < numBlocks; ++gid) {
    const int64_t block = quantizeBlockOfThread(gid, s.cols, s.blockRows);
    const uint8_t sb = blockScale(bamax[gid], sEnc);
    float m = 1.0f / (decodeE4M3(sb) * sDec);
    if (m > FLT_MAX)
      m = FLT_MAX;
    float v[16];
    blockValues(block, v);
    const std::array<uint32_t, 4> w =
        philox4x32(opts.seed, quantizePhiloxCounter(block, opts.offset));
    uint8_t codes[16];
    for (int j = 0; j < 16; ++j) {
      const float y = v[j] * m;
      codes[j] = opts.rounding == Rounding::Stochastic
                     ? encodeE2M1Stochastic(
                           y, static_cast<uint8_t>(w[j / 4] >> (8 * (j % 4))))
                     : encodeE2M1(y);
    }
    for (int k = 0; k < 8; ++k)
      out.data[quantizeDataByte(block) + k] =
          static_cast<uint8_t>(codes[2 * k] | (codes[2 * k + 1] << 4));
    if (s.blockRows == 1 || quantizeRowInTile(gid) == 0)
      compactScales[quantizeScaleIndex(gid, s.blockRows)] = sb;
  }
  return out;
}

TEST(QuantizeLayout, KernelDataFlowMatchesQuantize) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (const Shape &s : kShapes) {
    for (int variant = 0; variant < 4; ++variant) {
      SCOPED_TRACE(testing::Message()
                   << s.rows << "x" << s.cols << " blocks " << s.blockRows
                   << "x16, variant " << variant);
      std::vector<float> x(s.rows * s.cols);
      for (size_t i = 0; i < x.size(); ++i)
        x[i] = normal(rng) * std::ldexp(1.0f, static_cast<int>(i % 23) - 11);
      QuantizeOptions opts;
      opts.block = {static_cast<int>(s.blockRows), 16};
      opts.hadamard = variant & 1;
      if (variant & 2) {
        opts.rounding = Rounding::Stochastic;
        opts.seed = 0xFEEDull + variant;
        opts.offset = 5;
      }
      if (variant == 3)
        opts.amax = 3.0f;
      QuantizedTensor ref;
      ASSERT_FALSE(quantize(x.data(), s.rows, s.cols, opts, ref));
      std::vector<uint8_t> compact;
      QuantizedTensor got = emulateKernels(x, s, opts, compact);
      EXPECT_EQ(got.amax, ref.amax);
      EXPECT_EQ(got.data, ref.data);
      // The reference replicates a 16x16 tile's scale to its 16 rows.
      const int64_t blocksPerRow = s.cols / 16;
      for (int64_t r = 0; r < s.rows; ++r)
        for (int64_t cb = 0; cb < blocksPerRow; ++cb)
          ASSERT_EQ(compact[(r / s.blockRows) * blocksPerRow + cb],
                    ref.scales[r * blocksPerRow + cb])
              << "row " << r << " block " << cb;
    }
  }
}

} // namespace
