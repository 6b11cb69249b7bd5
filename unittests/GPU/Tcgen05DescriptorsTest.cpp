//===- Tcgen05DescriptorsTest.cpp - tcgen05 descriptor and layout tests ---===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Checks Tcgen05Descriptors.h, which the sm_100a/sm_103a/sm_110a lowering
// emits, against the bit tables of the PTX ISA and a public descriptor value,
// and models without a GPU how the kernel's shared-memory tiles and scale
// atoms are read by tcgen05.mma and tcgen05.cp:
//
//  - the K-major 128-byte-swizzled tile the kernel writes, read back through
//    the descriptor address generation of each K = 64 MMA, yields the
//    operand in K order;
//  - the scale atoms the kernel writes equal nvfp4::swizzleScales, and
//    tcgen05.cp.32x128b.warpx4 of one atom (modelled from the ISA text)
//    places row m in lane m % 32 of all four sub-partitions, column m / 32,
//    byte kb.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05Descriptors.h"
#include "nvfp4/Numerics/Numerics.h"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <set>
#include <vector>

using namespace nvfp4::gpu::tcgen05;

namespace {

//===----------------------------------------------------------------------===//
// Instruction descriptor
//===----------------------------------------------------------------------===//

TEST(Tcgen05InstrDesc, PublicReferenceValue) {
  // M = 128, N = 256, kind::mxf4nvf4, UE4M3 scales.
  EXPECT_EQ(encodeMxf4Nvf4InstrDesc(128, 256, ScaleFormat::UE4M3), 0x08400480u);
}

TEST(Tcgen05InstrDesc, Fields) {
  for (int64_t n = 8; n <= 256; n += 8) {
    uint32_t d = encodeMxf4Nvf4InstrDesc(128, n, ScaleFormat::UE4M3);
    ASSERT_NE(d, 0u) << n;
    EXPECT_EQ(idescField(d, 0, 2), 0u);                     // reserved
    EXPECT_EQ(idescField(d, 2, 1), 0u);                     // dense
    EXPECT_EQ(idescField(d, 3, 1), 0u);                     // reserved
    EXPECT_EQ(idescField(d, 4, 2), 0u);                     // B scale id
    EXPECT_EQ(idescField(d, 6, 1), 0u);                     // reserved
    EXPECT_EQ(idescField(d, 7, 3), 1u);                     // A: E2M1
    EXPECT_EQ(idescField(d, 10, 2), 1u);                    // B: E2M1
    EXPECT_EQ(idescField(d, 12, 1), 0u);                    // reserved
    EXPECT_EQ(idescField(d, 13, 2), 0u);                    // no negation
    EXPECT_EQ(idescField(d, 15, 2), 0u);                    // K-major A, B
    EXPECT_EQ(idescField(d, 17, 6), uint32_t(n >> 3));      // N >> 3
    EXPECT_EQ(idescField(d, 23, 1), 0u);                    // UE4M3
    EXPECT_EQ(idescField(d, 24, 3), 0u);                    // reserved
    EXPECT_EQ(idescField(d, 27, 2), 1u);                    // M >> 7
    EXPECT_EQ(idescField(d, 29, 2), 0u);                    // A scale id
    EXPECT_EQ(idescField(d, 31, 1), 0u);                    // K64
    // The older reading of the M field (M >> 4 in [24,29)) gives the same
    // bits for M = 128.
    EXPECT_EQ(idescField(d, 24, 5), 128u >> 4);
  }
  EXPECT_EQ(idescField(encodeMxf4Nvf4InstrDesc(128, 64, ScaleFormat::UE8M0),
                       23, 1),
            1u);
}

TEST(Tcgen05InstrDesc, RejectsInvalidShapes) {
  EXPECT_EQ(encodeMxf4Nvf4InstrDesc(64, 128, ScaleFormat::UE4M3), 0u);
  EXPECT_EQ(encodeMxf4Nvf4InstrDesc(256, 128, ScaleFormat::UE4M3), 0u);
  EXPECT_EQ(encodeMxf4Nvf4InstrDesc(128, 0, ScaleFormat::UE4M3), 0u);
  EXPECT_EQ(encodeMxf4Nvf4InstrDesc(128, 12, ScaleFormat::UE4M3), 0u);
  EXPECT_EQ(encodeMxf4Nvf4InstrDesc(128, 264, ScaleFormat::UE4M3), 0u);
}

//===----------------------------------------------------------------------===//
// Shared-memory descriptor
//===----------------------------------------------------------------------===//

uint64_t bits(uint64_t v, unsigned lo, unsigned width) {
  return (v >> lo) & ((uint64_t(1) << width) - 1);
}

TEST(Tcgen05SmemDesc, Fields) {
  uint64_t d = encodeSmemDesc(/*startAddress=*/0x1A400, /*lbo=*/16,
                              /*sbo=*/1024, SmemSwizzle::B128,
                              /*baseOffset=*/5, /*leadingAbsolute=*/true);
  EXPECT_EQ(bits(d, 0, 14), 0x1A400u >> 4);
  EXPECT_EQ(bits(d, 14, 2), 0u);
  EXPECT_EQ(bits(d, 16, 14), 1u);
  EXPECT_EQ(bits(d, 30, 2), 0u);
  EXPECT_EQ(bits(d, 32, 14), 64u);
  EXPECT_EQ(bits(d, 46, 3), 0b001u); // fixed constant on sm_100
  EXPECT_EQ(bits(d, 49, 3), 5u);
  EXPECT_EQ(bits(d, 52, 1), 1u);
  EXPECT_EQ(bits(d, 53, 8), 0u); // fixed 0
  EXPECT_EQ(bits(d, 61, 3), 2u); // 128-byte swizzle
}

TEST(Tcgen05SmemDesc, SwizzleEncodings) {
  auto swz = [](SmemSwizzle s) { return bits(encodeSmemDesc(0, 0, 0, s), 61, 3); };
  EXPECT_EQ(swz(SmemSwizzle::None), 0u);
  EXPECT_EQ(swz(SmemSwizzle::B128Atom32), 1u);
  EXPECT_EQ(swz(SmemSwizzle::B128), 2u);
  EXPECT_EQ(swz(SmemSwizzle::B64), 4u);
  EXPECT_EQ(swz(SmemSwizzle::B32), 6u);
}

TEST(Tcgen05SmemDesc, KernelConstants) {
  // What the kernel ORs the start address into: K-major SW128 operands and
  // the no-swizzle scale copy source.
  EXPECT_EQ(encodeSmemDesc(0, kSw128KMajorLbo, kSw128KMajorSbo,
                           SmemSwizzle::B128),
            0x4000404000010000ull);
  EXPECT_EQ(encodeSmemDesc(0, kScaleCopyLbo, kScaleCopySbo, SmemSwizzle::None),
            0x0000400800010000ull);
  // The 14-bit start address covers the 228 KiB shared window.
  EXPECT_EQ(bits(encodeSmemDesc(0x3FFF0, 0, 0, SmemSwizzle::None), 0, 14),
            0x3FFFu);
}

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

TEST(Tcgen05Tmem, AddressesAndAllocation) {
  EXPECT_EQ(tmemAddress(0, 0), 0u);
  EXPECT_EQ(tmemAddress(32, 5), 0x00200005u);
  EXPECT_EQ(tmemAddress(96, 511), 0x006001FFu);
  EXPECT_EQ(tmemAllocColumns(1), 32);
  EXPECT_EQ(tmemAllocColumns(96), 128);
  EXPECT_EQ(tmemAllocColumns(160), 256);
  EXPECT_EQ(tmemAllocColumns(304), 512);
}

TEST(Tcgen05Plan, TileChoiceAndBudgets) {
  EXPECT_EQ(chooseTileN(1024), 256);
  EXPECT_EQ(chooseTileN(384), 128);
  EXPECT_EQ(chooseTileN(192), 64);
  EXPECT_EQ(chooseTileN(96), 0);
  for (int64_t n : {64, 128, 256}) {
    TilePlan p = makeTilePlan(n);
    EXPECT_TRUE(isValidMmaShapeCta1(kTileM, n));
    EXPECT_EQ(p.stageBytes % kSwizzleAtomBytes, 0);
    EXPECT_EQ(p.bOffset % kSwizzleAtomBytes, 0);
    EXPECT_EQ(p.aScaleOffset % 16, 0);
    EXPECT_EQ(p.bScaleOffset % 16, 0);
    EXPECT_EQ(p.barrierOffset % 8, 0);
    EXPECT_LE(p.sharedBytes, 227 * 1024); // sm_100 per-block maximum
    EXPECT_LE(p.tmemColumns, kTmemColumns);
    // Accumulator and scale columns do not overlap and fit the allocation.
    EXPECT_GE(p.scaleColumn, p.accColumn + n);
    EXPECT_EQ(p.bScaleColumnOf(0), p.aScaleColumnOf(kMmasPerKTile));
    EXPECT_EQ(p.bScaleColumnOf(kMmasPerKTile), p.scaleColumnsPerStage);
    EXPECT_LE(p.scaleColumn + kStages * p.scaleColumnsPerStage, p.tmemColumns);
    // The B scales of one MMA cover N rows: N / 32 columns (at least one atom).
    EXPECT_GE((p.bScaleColumnOf(1) - p.bScaleColumnOf(0)) * 32, n);
  }
  EXPECT_EQ(makeTilePlan(256).tmemColumns, 512);
  EXPECT_EQ(makeTilePlan(128).tmemColumns, 256);
  EXPECT_EQ(makeTilePlan(64).tmemColumns, 128);
}

//===----------------------------------------------------------------------===//
// Operand tiles: what each MMA reads through its descriptor
//===----------------------------------------------------------------------===//

/// The address generation of a K-major SW128 operand as the ISA describes
/// the canonical layout: row r, 16-byte chunk j of the MMA's K slice at
/// start + (r / 8) * SBO + (r % 8) * 128 + j * 16, then swizzled.
uint64_t mmaOperandAddress(uint64_t start, int64_t row, int64_t chunk) {
  uint64_t linear = start + (row / 8) * kSw128KMajorSbo + (row % 8) * 128 +
                    chunk * kSwizzleChunkBytes;
  return applySw128(linear);
}

TEST(Tcgen05Layout, Sw128TileIsABijectionWithin1024ByteAtoms) {
  std::set<int64_t> seen;
  for (int64_t r = 0; r < 256; ++r)
    for (int64_t c = 0; c < 8; ++c) {
      int64_t off = sw128ChunkOffset<int64_t>(r, c);
      EXPECT_EQ(off, sw128ChunkOffsetInt(r, c));
      EXPECT_EQ(off % 16, 0);
      EXPECT_EQ(off / kSwizzleAtomBytes, r / 8); // stays in its atom
      EXPECT_TRUE(seen.insert(off).second);
    }
}

TEST(Tcgen05Layout, EachMmaReadsItsKSliceInOrder) {
  // Fill a 128 x 128-byte tile the way the kernel does: chunk c of row r
  // holds bytes (r, 16c .. 16c + 15) at sw128ChunkOffset(r, c).
  const int64_t rows = 128;
  const uint64_t base = 0x8400; // 1024-byte aligned stage base
  std::vector<uint8_t> smem(base + rows * 128);
  auto value = [](int64_t r, int64_t byte) {
    return uint8_t((r * 131 + byte * 7 + 3) & 0xFF);
  };
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < 8; ++c)
      for (int64_t b = 0; b < 16; ++b)
        smem[base + sw128ChunkOffsetInt(r, c) + b] = value(r, 16 * c + b);
  // MMA i (K = 64 codes = 32 bytes) uses start = base + 32 i.
  for (int64_t i = 0; i < kMmasPerKTile; ++i) {
    uint64_t start = base + i * (kMmaK / 2);
    uint64_t desc = encodeSmemDesc(start, kSw128KMajorLbo, kSw128KMajorSbo,
                                   SmemSwizzle::B128);
    ASSERT_EQ((desc & kSmemDescField14) << 4, start);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < 2; ++j)
        for (int64_t b = 0; b < 16; ++b)
          ASSERT_EQ(smem[mmaOperandAddress(start, r, j) + b],
                    value(r, 32 * i + 16 * j + b))
              << "mma " << i << " row " << r << " chunk " << j;
  }
}

//===----------------------------------------------------------------------===//
// Scales: the atoms the kernel writes, and tcgen05.cp 32x128b.warpx4
//===----------------------------------------------------------------------===//

TEST(Tcgen05Layout, ScaleAtomsEqualSwizzleScales) {
  // A [rows, K/16] compact scale matrix; the kernel writes, for K tile kt
  // and MMA i, the atom of rows [128 a, 128 a + 128) and K blocks
  // 16 kt + 4 i + kb at atom index (kt * 4 + i) for each 128-row block a.
  const int64_t rows = 256, k = 512, cols = k / 16;
  std::mt19937 rng(7);
  std::vector<uint8_t> scales(rows * cols);
  for (auto &s : scales)
    s = uint8_t(rng());
  std::vector<uint8_t> reference =
      nvfp4::swizzleScales(scales.data(), rows, cols);
  ASSERT_EQ(int64_t(reference.size()), rows * cols);
  std::vector<uint8_t> kernel(rows * cols, 0);
  for (int64_t a = 0; a < rows / 128; ++a)
    for (int64_t kt = 0; kt < k / kTileK; ++kt)
      for (int64_t i = 0; i < kMmasPerKTile; ++i)
        for (int64_t r = 0; r < 128; ++r)
          for (int64_t kb = 0; kb < 4; ++kb) {
            int64_t chunk = kt * kMmasPerKTile + i; // K/64 index
            int64_t atom = a * (cols / 4) + chunk;  // (rows/128, cols/4)
            kernel[atom * kScaleAtomBytes + scaleAtomOffset<int64_t>(r, kb)] =
                scales[(128 * a + r) * cols + 4 * chunk + kb];
          }
  EXPECT_EQ(kernel, reference);
}

/// tcgen05.cp.cta_group::1.32x128b.warpx4, modelled from the ISA: the source
/// is 32 rows of 128 bits, row i read through the no-swizzle descriptor at
/// start + (i / 8) * SBO + (i % 8) * 16; row i goes to lane i of the
/// destination, its four 32-bit words to columns col .. col + 3, and warpx4
/// repeats the copy into the lanes of all four 32-lane sub-partitions.
using Tmem = std::vector<std::array<uint8_t, 4>>; // [lane * 512 + column]
void tcgen05Cp32x128bWarpx4(Tmem &tmem, const std::vector<uint8_t> &smem,
                            uint64_t desc, int64_t column) {
  uint64_t start = (desc & kSmemDescField14) << 4;
  uint64_t sbo = bits(desc, kSmemDescSboShift, 14) << 4;
  ASSERT_EQ(bits(desc, kSmemDescSwizzleShift, 3), 0u);
  for (int64_t i = 0; i < 32; ++i) {
    uint64_t rowAddr = start + (i / 8) * sbo + (i % 8) * 16;
    for (int64_t w = 0; w < 4; ++w)
      for (int64_t sub = 0; sub < 4; ++sub)
        for (int64_t byte = 0; byte < 4; ++byte)
          tmem[(sub * 32 + i) * kTmemColumns + column + w][byte] =
              smem[rowAddr + 4 * w + byte];
  }
}

TEST(Tcgen05Layout, ScaleCopyPlacesRowsAsTheMmaReadsThem) {
  std::vector<uint8_t> smem(4096);
  const uint64_t atomAddr = 0x400;
  uint8_t scale[128][4];
  for (int64_t r = 0; r < 128; ++r)
    for (int64_t kb = 0; kb < 4; ++kb) {
      scale[r][kb] = uint8_t(r * 4 + kb + 1);
      smem[atomAddr + scaleAtomOffset<int64_t>(r, kb)] = scale[r][kb];
    }
  Tmem tmem(kTmemLanes * kTmemColumns, std::array<uint8_t, 4>{0, 0, 0, 0});
  const int64_t base = 272;
  tcgen05Cp32x128bWarpx4(
      tmem, smem,
      encodeSmemDesc(atomAddr, kScaleCopyLbo, kScaleCopySbo, SmemSwizzle::None),
      base);
  for (int64_t m = 0; m < 128; ++m)
    for (int64_t kb = 0; kb < 4; ++kb) {
      ScaleTmemCoord c = scaleTmemCoord(m, kb);
      EXPECT_EQ(c.laneInSubPartition, m % 32);
      EXPECT_EQ(c.column, m / 32);
      for (int64_t sub = 0; sub < 4; ++sub)
        EXPECT_EQ(tmem[(sub * 32 + c.laneInSubPartition) * kTmemColumns + base +
                       c.column][c.byte],
                  scale[m][kb])
            << "row " << m << " kb " << kb << " sub-partition " << sub;
    }
}

} // namespace
