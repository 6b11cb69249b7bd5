//===- Tcgen05TensorMapTest.cpp - TMA tensor-map rule tests ---------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Checks Tcgen05TensorMap.h: the rules of cuTensorMapEncodeTiled that both
// the lowering (before it emits a kernel) and libnvfp4_cuda_runtime (before
// it calls the driver) enforce, one broken rule at a time, and the tensor
// maps of the tcgen05 kernel's operands.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05TensorMap.h"

#include <gtest/gtest.h>

using namespace nvfp4::gpu::tcgen05;

namespace {

/// A valid map: the A operand of a 256 x 1024 matmul.
ByteTensorMap2D validMap() {
  return operandTensorMap(/*globalAddress=*/0x7f0000001000, /*batch=*/1,
                          /*rows=*/256, /*k=*/1024, /*tileRows=*/kTileM);
}

TEST(Tcgen05TensorMap, OperandMapFields) {
  ByteTensorMap2D map = operandTensorMap(0x7f0000001000, 3, 384, 2048, 128);
  EXPECT_EQ(map.globalAddress, 0x7f0000001000u);
  EXPECT_EQ(map.innerBytes, 1024u);     // K / 2
  EXPECT_EQ(map.outerRows, 3u * 384u);  // batch * rows
  EXPECT_EQ(map.rowStrideBytes, 1024u); // dense rows
  EXPECT_EQ(map.boxInnerBytes, 128u);   // one K tile
  EXPECT_EQ(map.boxOuterRows, 128u);    // one CTA tile
  EXPECT_EQ(map.swizzle, TensorMapSwizzle::B128);
  EXPECT_EQ(checkByteTensorMap2D(map), TensorMapIssue::None);
}

TEST(Tcgen05TensorMap, KernelMapsAreValid) {
  // Every shape the lowering accepts (M % 128, N % 64, K % 256) gives valid
  // maps for both operands.
  for (int64_t batch : {1, 2, 7})
    for (int64_t rows : {128, 192, 384, 4096})
      for (int64_t k : {256, 512, 1280, 65536})
        for (int64_t tileRows : {64, 128, 256}) {
          ByteTensorMap2D map =
              operandTensorMap(0x10000, batch, rows, k, tileRows);
          EXPECT_EQ(checkByteTensorMap2D(map), TensorMapIssue::None)
              << batch << " x " << rows << " x " << k << " tile " << tileRows;
        }
}

TEST(Tcgen05TensorMap, StagedScaleMapsAreValid) {
  // The compact 16x16-block scales ([batch * rows / 16, K / 16] bytes) of
  // every shape whose scales the kernel stages (rows % 16, K % 256): 16-byte
  // boxes of the staged rows of whole 128-row atoms, unswizzled.
  ByteTensorMap2D map = stagedScaleTensorMap(0x10000, 2, 384, 512, 128);
  EXPECT_EQ(map.innerBytes, 32u);          // K / 16
  EXPECT_EQ(map.outerRows, 2u * 384 / 16); // batch * rows / 16
  EXPECT_EQ(map.rowStrideBytes, 32u);
  EXPECT_EQ(map.boxInnerBytes, 16u); // one K tile's scales
  EXPECT_EQ(map.boxOuterRows, 8u);   // 128 rows
  EXPECT_EQ(map.swizzle, TensorMapSwizzle::None);
  EXPECT_EQ(stagedScaleTensorMap(0x10000, 1, 256, 512, 64).boxOuterRows, 8u);
  EXPECT_EQ(stagedScaleTensorMap(0x10000, 1, 256, 512, 256).boxOuterRows, 16u);
  for (int64_t batch : {1, 2, 7})
    for (int64_t rows : {16, 208, 384, 4096})
      for (int64_t k : {256, 768, 65536})
        for (int64_t tileRows : {64, 128, 256})
          EXPECT_EQ(checkByteTensorMap2D(stagedScaleTensorMap(
                        0x10000, batch, rows, k, tileRows)),
                    TensorMapIssue::None)
              << batch << " x " << rows << " x " << k << " tile " << tileRows;
  // K = 128 would give an 8-byte row stride: not staged.
  EXPECT_EQ(
      checkByteTensorMap2D(stagedScaleTensorMap(0x10000, 1, 128, 128, 128)),
      TensorMapIssue::StrideNotMultipleOf16);
}

TEST(Tcgen05TensorMap, EachRuleIsEnforced) {
  auto issueOf = [](auto mutate) {
    ByteTensorMap2D map = validMap();
    mutate(map);
    return checkByteTensorMap2D(map);
  };
  // Global address: 16-byte aligned.
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.globalAddress += 8; }),
            TensorMapIssue::AddressNotAligned);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.globalAddress += 16; }),
            TensorMapIssue::None);
  // Dimensions: 1 .. 2^32.
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.outerRows = 0; }),
            TensorMapIssue::DimensionOutOfRange);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.outerRows = 1ull << 32; }),
            TensorMapIssue::None);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.outerRows = (1ull << 32) + 1; }),
            TensorMapIssue::DimensionOutOfRange);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.innerBytes = 0; }),
            TensorMapIssue::DimensionOutOfRange);
  // Stride: a multiple of 16 below 2^40, not shorter than a row.
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.rowStrideBytes += 8; }),
            TensorMapIssue::StrideNotMultipleOf16);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.rowStrideBytes += 16; }),
            TensorMapIssue::None);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.rowStrideBytes = 1ull << 40; }),
            TensorMapIssue::StrideOutOfRange);
  EXPECT_EQ(
      issueOf([](ByteTensorMap2D &m) { m.rowStrideBytes = (1ull << 40) - 16; }),
      TensorMapIssue::None);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.rowStrideBytes -= 16; }),
            TensorMapIssue::StrideBelowRowBytes);
  // Box: 1 .. 256 per dimension, the inner extent a multiple of 16 bytes
  // and within the swizzle span.
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.boxOuterRows = 256; }),
            TensorMapIssue::None);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.boxOuterRows = 257; }),
            TensorMapIssue::BoxOutOfRange);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.boxOuterRows = 0; }),
            TensorMapIssue::BoxOutOfRange);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.boxInnerBytes = 120; }),
            TensorMapIssue::BoxInnerNotMultipleOf16);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) { m.boxInnerBytes = 144; }),
            TensorMapIssue::BoxInnerExceedsSwizzleSpan);
  EXPECT_EQ(
      issueOf([](ByteTensorMap2D &m) { m.swizzle = TensorMapSwizzle::B64; }),
      TensorMapIssue::BoxInnerExceedsSwizzleSpan);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) {
              m.swizzle = TensorMapSwizzle::B64;
              m.boxInnerBytes = 64;
            }),
            TensorMapIssue::None);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) {
              m.swizzle = TensorMapSwizzle::B32;
              m.boxInnerBytes = 48;
            }),
            TensorMapIssue::BoxInnerExceedsSwizzleSpan);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) {
              m.swizzle = TensorMapSwizzle::None;
              m.boxInnerBytes = 256;
            }),
            TensorMapIssue::None);
  EXPECT_EQ(issueOf([](ByteTensorMap2D &m) {
              m.swizzle = static_cast<TensorMapSwizzle>(4);
            }),
            TensorMapIssue::UnknownSwizzle);
}

TEST(Tcgen05TensorMap, SwizzleSpansAndDescriptions) {
  EXPECT_EQ(swizzleSpanBytes(TensorMapSwizzle::None), 0);
  EXPECT_EQ(swizzleSpanBytes(TensorMapSwizzle::B32), 32);
  EXPECT_EQ(swizzleSpanBytes(TensorMapSwizzle::B64), 64);
  EXPECT_EQ(swizzleSpanBytes(TensorMapSwizzle::B128), 128);
  // The CUtensorMapSwizzle values the runtime passes through.
  EXPECT_EQ(static_cast<int32_t>(TensorMapSwizzle::B128), 3);
  for (int issue = int(TensorMapIssue::None);
       issue <= int(TensorMapIssue::BoxInnerExceedsSwizzleSpan); ++issue)
    EXPECT_STRNE(describeTensorMapIssue(static_cast<TensorMapIssue>(issue)),
                 "unknown issue");
  EXPECT_STREQ(describeTensorMapIssue(TensorMapIssue::AddressNotAligned),
               "global address not 16-byte aligned");
}

TEST(Tcgen05TensorMap, CoordinateLimit) {
  EXPECT_TRUE(tensorMapRowsFitCoordinates(1, (int64_t(1) << 31) - 1));
  EXPECT_FALSE(tensorMapRowsFitCoordinates(2, int64_t(1) << 30));
  EXPECT_TRUE(tensorMapRowsFitCoordinates(4096, 4096));
}

// The runtimes' parameters as a map, and the bytes it spans (none when the
// span or its end would overflow 64 bits).
TEST(Tcgen05TensorMap, ParametersAndSpan) {
  ByteTensorMap2D map = byteTensorMap2D(0x1000, 256, 384, 512, 128, 64, 3);
  EXPECT_EQ(map.globalAddress, 0x1000u);
  EXPECT_EQ(map.innerBytes, 256u);
  EXPECT_EQ(map.outerRows, 384u);
  EXPECT_EQ(map.rowStrideBytes, 512u);
  EXPECT_EQ(map.boxInnerBytes, 128u);
  EXPECT_EQ(map.boxOuterRows, 64u);
  EXPECT_EQ(map.swizzle, TensorMapSwizzle::B128);
  EXPECT_EQ(tensorMapSpanBytes(map), std::optional<uint64_t>(383 * 512 + 256));
  map.outerRows = 1;
  EXPECT_EQ(tensorMapSpanBytes(map), std::optional<uint64_t>(256));
  map.outerRows = 0;
  EXPECT_EQ(tensorMapSpanBytes(map), std::nullopt);
  map.outerRows = uint64_t(1) << 40;
  map.rowStrideBytes = uint64_t(1) << 30;
  EXPECT_EQ(tensorMapSpanBytes(map), std::nullopt); // rows * stride
  map.outerRows = 2;
  map.rowStrideBytes = 16;
  map.globalAddress = UINT64_MAX - 16;
  EXPECT_EQ(tensorMapSpanBytes(map), std::nullopt); // the end
}

} // namespace
