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
//  - the canonical K-major 128-byte-swizzled tile (sw128ChunkOffset), read
//    back through the descriptor address generation of each K = 64 MMA,
//    yields the operand in K order;
//  - a TMA box loaded with CU_TENSOR_MAP_SWIZZLE_128B (modelled from the
//    CUDA programming guide) is that same tile;
//  - the scale atoms the producer warp writes, and the global atoms layout
//    its bulk copies read (scaleAtomsOffset), equal nvfp4::swizzleScales,
//    and tcgen05.cp.32x128b.warpx4 of one atom (modelled from the ISA text)
//    places row m in lane m % 32 of all four sub-partitions, column m / 32,
//    byte kb;
//  - the plan fits shared and tensor memory, and the epilogue warps own the
//    accumulator rows as tcgen05.ld allows.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Descriptors.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05TensorMap.h"
#include "nvfp4/Numerics/Numerics.h"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <set>
#include <tuple>
#include <vector>

using namespace nvfp4::gpu::tcgen05;

namespace {

/// The NVFP4 kernel's scale atoms of one K tile and 128 rows: 4 atoms (one
/// per MMA) of 512 bytes.
constexpr int64_t kNvfp4ScaleAtomKTileBytes = 4 * 512;

/// The kind::mxf4nvf4 .block16 descriptor (E2M1 x E2M1, scale ids 0).
constexpr uint32_t encodeMxf4Nvf4InstrDesc(int64_t m, int64_t n,
                                           bool ctaPair = false) {
  return encodeBlockScaledInstrDesc(BlockScaledKind::Mxf4Nvf4, m, n, 1, 1, 0, 0,
                                    ctaPair);
}

//===----------------------------------------------------------------------===//
// Instruction descriptor
//===----------------------------------------------------------------------===//

TEST(Tcgen05InstrDesc, PublicReferenceValue) {
  // M = 128, N = 256, kind::mxf4nvf4, UE4M3 scales.
  EXPECT_EQ(encodeMxf4Nvf4InstrDesc(128, 256), 0x08400480u);
}

TEST(Tcgen05InstrDesc, Fields) {
  for (int64_t n = 8; n <= 256; n += 8) {
    uint32_t d = encodeMxf4Nvf4InstrDesc(128, n);
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
}

TEST(Tcgen05InstrDesc, KindProperties) {
  // K per MMA, scales per MMA (scale_vec), block size, scale format.
  EXPECT_EQ(mmaKOf(BlockScaledKind::Mxf4Nvf4), 64);
  EXPECT_EQ(mmaKOf(BlockScaledKind::Mxf4), 64);
  EXPECT_EQ(mmaKOf(BlockScaledKind::Mxf8f6f4), 32);
  EXPECT_EQ(scalesPerMmaOf(BlockScaledKind::Mxf4Nvf4), 4);
  EXPECT_EQ(scalesPerMmaOf(BlockScaledKind::Mxf4), 2);
  EXPECT_EQ(scalesPerMmaOf(BlockScaledKind::Mxf8f6f4), 1);
  EXPECT_EQ(scaleFormatOf(BlockScaledKind::Mxf4Nvf4), ScaleFormat::UE4M3);
  EXPECT_EQ(scaleFormatOf(BlockScaledKind::Mxf4), ScaleFormat::UE8M0);
  EXPECT_EQ(scaleFormatOf(BlockScaledKind::Mxf8f6f4), ScaleFormat::UE8M0);
}

TEST(Tcgen05InstrDesc, Mxf4) {
  // kind::mxf4 (scale_vec::2X): E2M1 x E2M1, UE8M0, scale ids 0 or 2.
  const uint32_t e2m1 = 1;
  // Hand-computed: B id 2 (bit 5), formats 1 | 1 << 3, N 128 >> 3 = 16 at
  // 17, bit 23, M 1 at 27, A id 2 at 29.
  EXPECT_EQ(encodeBlockScaledInstrDesc(BlockScaledKind::Mxf4, 128, 128, e2m1,
                                       e2m1, 2, 2),
            0x48A004A0u);
  EXPECT_EQ(encodeBlockScaledInstrDesc(BlockScaledKind::Mxf4, 128, 128, e2m1,
                                       e2m1, 1, 0),
            0u);
  EXPECT_EQ(encodeBlockScaledInstrDesc(BlockScaledKind::Mxf4, 128, 128, e2m1,
                                       e2m1, 0, 3),
            0u);
  EXPECT_EQ(
      encodeBlockScaledInstrDesc(BlockScaledKind::Mxf4, 128, 128, 0, e2m1), 0u);
}

TEST(Tcgen05InstrDesc, Mxf8f6f4) {
  // kind::mxf8f6f4 (scale_vec::1X): E4M3 (0) / E5M2 (1), any scale id.
  const uint32_t e4m3 = 0, e5m2 = 1;
  // Hand-computed: N 256 >> 3 = 32 at 17, bit 23, M 256 >> 7 = 2 at 27
  // (the CTA pair), B E5M2 at 10, A id 3 at 29, B id 1 at 4.
  EXPECT_EQ(encodeBlockScaledInstrDesc(BlockScaledKind::Mxf8f6f4, 256, 256,
                                       e4m3, e5m2, 3, 1, /*ctaPair=*/true),
            0x70C00410u);
  for (uint32_t id = 0; id < 4; ++id) {
    uint32_t d = encodeBlockScaledInstrDesc(BlockScaledKind::Mxf8f6f4, 128, 64,
                                            e5m2, e4m3, id, 3 - id);
    EXPECT_EQ(idescField(d, 29, 2), id);
    EXPECT_EQ(idescField(d, 4, 2), 3 - id);
    EXPECT_EQ(idescField(d, 7, 3), e5m2);
    EXPECT_EQ(idescField(d, 10, 3), e4m3);
    EXPECT_EQ(idescField(d, 23, 1), 1u); // UE8M0
  }
  // E2M1 (5) in 8-bit containers is not a format the kernels use.
  EXPECT_EQ(
      encodeBlockScaledInstrDesc(BlockScaledKind::Mxf8f6f4, 128, 64, 5, e4m3),
      0u);
  EXPECT_EQ(encodeBlockScaledInstrDesc(BlockScaledKind::Mxf8f6f4, 128, 64, e4m3,
                                       e4m3, 4, 0),
            0u);
}

TEST(Tcgen05InstrDesc, RejectsInvalidShapes) {
  EXPECT_EQ(encodeMxf4Nvf4InstrDesc(64, 128), 0u);
  EXPECT_EQ(encodeMxf4Nvf4InstrDesc(256, 128), 0u);
  EXPECT_EQ(encodeMxf4Nvf4InstrDesc(128, 0), 0u);
  EXPECT_EQ(encodeMxf4Nvf4InstrDesc(128, 12), 0u);
  EXPECT_EQ(encodeMxf4Nvf4InstrDesc(128, 264), 0u);
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

TEST(Tcgen05SmemDesc, StageDescriptorPlusOffset) {
  // The kernel encodes a stage's descriptor once and adds offset >> 4 for
  // each operand slice and scale atom: the same as encoding the address of
  // the slice, for every stage of every plan (shared addresses < 2^18).
  for (int64_t n : {64, 128, 256}) {
    TilePlan p = makeTilePlan(n);
    for (uint64_t base : {0x0ull, 0x400ull, 0x1000ull})
      for (int64_t stage = 0; stage < p.stages; ++stage) {
        uint64_t stageAddr = base + stage * p.stageBytes;
        std::vector<int64_t> offsets;
        for (int64_t i = 0; i < kMmasPerKTile; ++i) {
          offsets.push_back(p.aOffset + i * kMmaRowBytes);
          offsets.push_back(p.bOffset + i * kMmaRowBytes);
          for (int64_t a = 0; a <= p.bScaleAtoms; ++a)
            offsets.push_back(p.aScaleOffset + (i * (1 + p.bScaleAtoms) + a) *
                                                   kScaleAtomBytes);
        }
        for (auto [lbo, sbo, swizzle] :
             {std::tuple(kSw128KMajorLbo, kSw128KMajorSbo, SmemSwizzle::B128),
              std::tuple(kScaleCopyLbo, kScaleCopySbo, SmemSwizzle::None)})
          for (int64_t offset : offsets) {
            ASSERT_LT(stageAddr + offset, 1ull << 18);
            EXPECT_EQ(encodeSmemDesc(stageAddr, lbo, sbo, swizzle) +
                          smemDescBytes(offset),
                      encodeSmemDesc(stageAddr + offset, lbo, sbo, swizzle))
                << "N " << n << " stage " << stage << " offset " << offset;
          }
      }
  }
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
  // Not a multiple of 64: the smallest tile covering N, 256 past 256.
  EXPECT_EQ(chooseTileN(1), 64);
  EXPECT_EQ(chooseTileN(96), 128);
  EXPECT_EQ(chooseTileN(129), 256);
  EXPECT_EQ(chooseTileN(30522), 256);
  for (BlockScaledKind kind : {BlockScaledKind::Mxf4Nvf4, BlockScaledKind::Mxf4,
                               BlockScaledKind::Mxf8f6f4})
    for (int64_t n : {64, 128, 256}) {
      const int64_t atoms = scaleAtomsPerKTileOf(kind);
      TilePlan p = makeTilePlan(n, /*ctaPair=*/false, atoms);
      EXPECT_TRUE(isValidMmaShapeCta1(kTileM, n));
      EXPECT_GE(p.stages, kMinStages);
      EXPECT_LE(p.stages, kMaxStages);
      EXPECT_GE(p.accStages, 1);
      EXPECT_LE(p.accStages, kMaxAccStages);
      // Stages, operand tiles and TMA boxes start on 1024-byte swizzle atoms.
      EXPECT_EQ(p.stageBytes % kSwizzleAtomBytes, 0);
      EXPECT_EQ(p.aOffset % kSwizzleAtomBytes, 0);
      EXPECT_EQ(p.bOffset % kSwizzleAtomBytes, 0);
      EXPECT_EQ(p.aScaleOffset % 16, 0);
      EXPECT_EQ(p.bScaleOffset % 16, 0);
      EXPECT_EQ(p.txBytes, (kTileM + n) * kTileRowBytes);
      EXPECT_EQ(p.aScaleOffset, p.bOffset + n * kTileRowBytes);
      EXPECT_LE(p.bScaleOffset + atoms * p.bScaleAtoms * kScaleAtomBytes,
                p.stageBytes);
      // Barriers: 8-byte aligned, after the stages, in order, then the slot.
      EXPECT_EQ(p.fullBarrierOffset, p.stages * p.stageBytes);
      EXPECT_EQ(p.fullBarrierOffset % kMbarrierBytes, 0);
      EXPECT_EQ(p.emptyBarrierOffset, p.fullBarrierOffset + 8 * p.stages);
      EXPECT_EQ(p.accFullBarrierOffset, p.emptyBarrierOffset + 8 * p.stages);
      EXPECT_EQ(p.accEmptyBarrierOffset,
                p.accFullBarrierOffset + 8 * p.accBarrierStages);
      EXPECT_EQ(p.tmemSlotOffset,
                p.accEmptyBarrierOffset + 8 * p.accBarrierStages);
      // Then the epilogue's staging buffers, 128-byte aligned; the request
      // covers them and the base alignment, and fits sm_100.
      EXPECT_GE(p.epilogueStagingOffset, p.tmemSlotOffset + 4);
      EXPECT_EQ(p.epilogueStagingOffset % kEpilogueStagingAlignment, 0);
      EXPECT_LT(p.epilogueStagingOffset,
                p.tmemSlotOffset + 4 + kEpilogueStagingAlignment);
      EXPECT_EQ(p.sharedBytes, p.epilogueStagingOffset + kEpilogueStagingBytes +
                                   kSwizzleAtomBytes);
      EXPECT_LE(p.sharedBytes, kMaxDynamicSharedBytes);
      // Tensor memory: the accumulators, then one scale slot per stage, all
      // inside the allocation.
      EXPECT_LE(p.tmemColumns, kTmemColumns);
      EXPECT_EQ(p.accColumnOf(p.accStages - 1) + n, p.scaleColumn);
      EXPECT_EQ(p.bScaleColumnOf(0), p.aScaleColumnOf(atoms));
      EXPECT_EQ(p.bScaleColumnOf(atoms), p.scaleColumnsPerStage);
      EXPECT_LE(p.scaleColumn + p.stages * p.scaleColumnsPerStage,
                p.tmemColumns);
      // The B scales of one MMA cover N rows: N / 32 columns (at least one
      // atom).
      EXPECT_GE((p.bScaleColumnOf(1) - p.bScaleColumnOf(0)) * 32, n);
      // Maximality: one more stage (or accumulator) would not fit.
      if (p.stages < kMaxStages) {
        EXPECT_TRUE(sharedBytesFor(n, p.stages + 1, kMaxAccStages, false,
                                   atoms) > kMaxDynamicSharedBytes ||
                    n + (p.stages + 1) * p.scaleColumnsPerStage > kTmemColumns);
      }
      // Two accumulators: whole ones when they fit, else overlapping ones
      // (the second starting at least one epilogue chunk later), with one
      // barrier pair.
      EXPECT_EQ(p.accStages, kMaxAccStages);
      const bool whole =
          2 * n + p.stages * p.scaleColumnsPerStage <= kTmemColumns;
      EXPECT_EQ(p.overlapsAccumulators(), !whole);
      EXPECT_EQ(p.accBarrierStages, whole ? 2 : 1);
      EXPECT_EQ(p.accColumnStride, whole ? n : n - p.accOverlapChunks * 16);
      EXPECT_GE(p.accColumnStride, kEpilogueColumns);
      EXPECT_EQ(p.accColumnStride % kEpilogueColumns, 0);
      // Every chunk once per tile, the shared ones first: buffer 0 shares
      // its columns from accColumnStride on with buffer 1's first ones.
      for (int64_t acc : {0, 1}) {
        std::vector<int> seen(p.epilogueChunks(), 0);
        for (int64_t i = 0; i < p.epilogueChunks(); ++i) {
          const int64_t chunk = p.epilogueChunkOf<int64_t>(i, acc);
          ++seen[chunk];
          const int64_t column = p.accColumnOf(acc) + chunk * kEpilogueColumns;
          const int64_t other = p.accColumnOf(1 - acc);
          const bool sharedChunk = column >= other && column < other + n;
          EXPECT_EQ(sharedChunk, i < p.accOverlapChunks)
              << n << " acc " << acc << " i " << i;
        }
        for (int v : seen)
          EXPECT_EQ(v, 1);
      }
    }
  // The choices docs/tcgen05.md records.
  EXPECT_EQ(makeTilePlan(256).stages, 4);
  EXPECT_EQ(makeTilePlan(256).accStages, 2);
  EXPECT_EQ(makeTilePlan(256).accColumnStride, 64);
  EXPECT_EQ(makeTilePlan(256).accOverlapChunks, 12);
  EXPECT_EQ(makeTilePlan(256, /*ctaPair=*/true).accColumnStride, 16);
  EXPECT_FALSE(makeTilePlan(128).overlapsAccumulators());
  EXPECT_EQ(makeTilePlan(128).stages, 6);
  EXPECT_EQ(makeTilePlan(128).accStages, 2);
  EXPECT_EQ(makeTilePlan(64).stages, 6);
  EXPECT_EQ(makeTilePlan(64).accStages, 2);
  EXPECT_EQ(makeTilePlan(256).tmemColumns, 512);
  EXPECT_EQ(makeTilePlan(128).tmemColumns, 512);
  EXPECT_EQ(makeTilePlan(64).tmemColumns, 512);
}

TEST(Tcgen05Plan, EachMmaReadsTheScalesOfItsKBlocks) {
  // A K tile is 128 bytes of each row for every kind: 4 MMAs of 32 bytes.
  // MMA i covers K [i mmaK, (i + 1) mmaK), the scale blocks from
  // i mmaK / blockK on, and block b of the K tile sits in atom b / 4,
  // byte b % 4 of the 32-bit cell (the 128x4 atom's K-block order).
  for (BlockScaledKind kind : {BlockScaledKind::Mxf4Nvf4, BlockScaledKind::Mxf4,
                               BlockScaledKind::Mxf8f6f4}) {
    const int64_t mmaK = mmaKOf(kind), blockK = scaleBlockKOf(kind);
    EXPECT_EQ(mmaK * elementBitsOf(kind) / 8, kMmaRowBytes);
    EXPECT_EQ(tileKOf(kind), kMmasPerKTile * mmaK);
    EXPECT_EQ(scaleAtomsPerKTileOf(kind) * kScaleAtomBlocks,
              tileKOf(kind) / blockK);
    for (int64_t i = 0; i < kMmasPerKTile; ++i) {
      const int64_t firstBlock = i * mmaK / blockK;
      EXPECT_EQ(scaleAtomOfMma(kind, i), firstBlock / kScaleAtomBlocks);
      EXPECT_EQ(scaleIdOfMma(kind, i), uint32_t(firstBlock % kScaleAtomBlocks));
      // The MMA's scales stay in one cell, at an id the kind allows.
      EXPECT_LE(scaleIdOfMma(kind, i) + scalesPerMmaOf(kind), kScaleAtomBlocks);
      EXPECT_TRUE(isValidScaleId(kind, scaleIdOfMma(kind, i)));
    }
  }
  // The MX plans record in docs/tcgen05.md ("MX operands").
  EXPECT_EQ(makeTilePlan(256, false, 2).stages, 4);
  EXPECT_EQ(makeTilePlan(256, false, 2).accStages, 2);
  EXPECT_EQ(makeTilePlan(256, false, 2).accColumnStride, 160);
  EXPECT_EQ(makeTilePlan(128, false, 1).stages, 6);
  EXPECT_EQ(makeTilePlan(128, false, 1).accStages, 2);
  EXPECT_EQ(makeTilePlan(256, true, 1).stages, 6);
}

TEST(Tcgen05Plan, CtaPairScaleFullBarriers) {
  for (int64_t n : {64, 128, 256}) {
    TilePlan one = makeTilePlan(n), pair = makeTilePlan(n, /*ctaPair=*/true);
    // The 1-CTA kernel has none: its slot follows accEmpty.
    EXPECT_EQ(one.scaleFullBarrierOffset, one.tmemSlotOffset);
    // The pair's scaleFull[stages] follow accEmpty, 8-byte aligned, then the
    // slot; the request covers them and still fits sm_100.
    EXPECT_EQ(pair.scaleFullBarrierOffset,
              pair.accEmptyBarrierOffset + 8 * pair.accBarrierStages);
    EXPECT_EQ(pair.scaleFullBarrierOffset % kMbarrierBytes, 0);
    EXPECT_EQ(pair.tmemSlotOffset,
              pair.scaleFullBarrierOffset + 8 * pair.stages);
    EXPECT_EQ(pair.epilogueStagingOffset % kEpilogueStagingAlignment, 0);
    EXPECT_GE(pair.epilogueStagingOffset, pair.tmemSlotOffset + 4);
    EXPECT_EQ(pair.sharedBytes, pair.epilogueStagingOffset +
                                    kEpilogueStagingBytes + kSwizzleAtomBytes);
    EXPECT_LE(pair.sharedBytes, kMaxDynamicSharedBytes);
    if (pair.stages < kMaxStages) {
      EXPECT_GT(sharedBytesFor(n, pair.stages + 1, kMaxAccStages, true),
                kMaxDynamicSharedBytes);
    }
    // Each CTA's copies per K tile: 2 KiB for its 128 A rows, 2 KiB per
    // 128 B rows of the whole tile (padded to an atom).
    EXPECT_EQ(pair.scaleCopyBytes(true, false), 2048);
    EXPECT_EQ(pair.scaleCopyBytes(false, true), (n + 127) / 128 * 2048);
  }
  // The figures docs/tcgen05.md records.
  TilePlan p = makeTilePlan(256, /*ctaPair=*/true);
  EXPECT_EQ(p.stages, 5);
  EXPECT_EQ(p.stageBytes, 38912);
  EXPECT_EQ(p.scaleFullBarrierOffset, 5 * 38912 + 8 * (2 * 5 + 2 * 1));
  EXPECT_EQ(p.sharedBytes, 204032);
  EXPECT_EQ(makeTilePlan(128, true).stages, 6);
  EXPECT_EQ(makeTilePlan(64, true).stages, 6);
}

TEST(Tcgen05Plan, StagedScalesKeepTheStages) {
  // Staged 16x16-block scales land in the operand's own scale atoms of the
  // stage, so they cost no stage: only a scaleStaged barrier per stage (after
  // accEmpty, or the pair's scaleFull) and the scale warp.
  for (int64_t n : {64, 128, 256})
    for (bool pair : {false, true})
      for (ScaleStaging staging :
           {ScaleStaging{true, false}, ScaleStaging{false, true},
            ScaleStaging{true, true}}) {
        TilePlan base = makeTilePlan(n, pair);
        TilePlan p = makeTilePlan(n, pair, kMmasPerKTile, staging);
        const int64_t ctas = pair ? kPairCtas : 1;
        EXPECT_EQ(p.stages, base.stages) << n << " pair " << pair;
        EXPECT_EQ(p.accStages, base.accStages);
        EXPECT_EQ(p.stageBytes, base.stageBytes);
        EXPECT_EQ(p.warps, kWarps + 1);
        EXPECT_EQ(p.threads(), 224);
        EXPECT_EQ(kScaleWarp, kFirstEpilogueWarp + kEpilogueWarps);
        // The producer's and the scale warp's lanes of each CTA.
        EXPECT_EQ(p.fullBarrierArrivals, ctas * 64);
        EXPECT_EQ(p.scaleStagedBarrierOffset,
                  p.scaleFullBarrierOffset + (pair ? 8 * p.stages : 0));
        EXPECT_EQ(p.tmemSlotOffset, p.scaleStagedBarrierOffset + 8 * p.stages);
        EXPECT_GE(p.epilogueStagingOffset, p.tmemSlotOffset + 4);
        EXPECT_EQ(p.epilogueStagingOffset % kEpilogueStagingAlignment, 0);
        EXPECT_LE(p.sharedBytes, kMaxDynamicSharedBytes);
        // 16 bytes per staged scale row, inside the operand's atoms (the
        // TMA destinations 128-byte aligned).
        EXPECT_EQ(p.stagedScaleBytes,
                  (staging.lhs ? 128 : 0) +
                      (staging.rhs ? 16 * std::max<int64_t>(n, 128) / 16 : 0));
        EXPECT_LE(stagedScaleBytesOf(kTileM), p.scaleAtomKTileBytes());
        EXPECT_LE(stagedScaleBytesOf(n),
                  p.bScaleAtoms * p.scaleAtomKTileBytes());
        EXPECT_EQ(p.aScaleOffset % 128, 0);
        EXPECT_EQ(p.bScaleOffset % 128, 0);
      }
  EXPECT_EQ(makeTilePlan(128).warps, kWarps);
  EXPECT_EQ(makeTilePlan(128).threads(), kThreads);
}

TEST(Tcgen05Plan, EpilogueWarpsCoverTheAccumulatorLanes) {
  // tcgen05.ld restricts warp w to the lanes 32 (w % 4) .. + 31: the four
  // epilogue warps together own every accumulator row exactly once.
  std::set<int64_t> rows;
  for (int64_t w = kFirstEpilogueWarp; w < kWarps; ++w) {
    EXPECT_EQ(tmemLaneBaseOfWarp<int64_t>(w), 32 * (w % 4));
    for (int64_t lane = 0; lane < 32; ++lane) {
      int64_t row = epilogueRow<int64_t>(w, lane);
      EXPECT_EQ(row / 32, w % 4) << "warp " << w << " lane " << lane;
      EXPECT_TRUE(rows.insert(row).second);
    }
  }
  EXPECT_EQ(int64_t(rows.size()), kTileM);
  EXPECT_EQ(*rows.rbegin(), kTileM - 1);
  EXPECT_EQ(kThreads, 32 * kWarps);
  EXPECT_EQ(kWarps, 6);
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

// The epilogue's staging buffer (epilogueStagingOffset): for f32 and bf16
// chunks, every (row, group) has its own bytes inside the warp's buffer,
// and the threads' row-wise accesses and the transposed accesses (lane l of
// access s: group l % 4 of row 8 s + l / 4) are free of bank conflicts (the
// hardware serves a 16-byte access in 4 passes of 8 lanes, an 8-byte one in
// 2 passes of 16: the lanes of a pass must use distinct banks). The
// coalescing of the resulting global accesses is measured by the GPU
// emulator (test/GPU/emulator-memory-report.mlir).
TEST(Tcgen05Layout, EpilogueStagingIsConflictFree) {
  for (int64_t eltBytes : {2, 4}) {
    SCOPED_TRACE(eltBytes);
    const int64_t groupBytes = kEpilogueGroup * eltBytes;
    const int64_t rowBytes = kEpilogueColumns * eltBytes;
    std::vector<int> owner(kEpilogueStagingBytesPerWarp, 0);
    for (int64_t row = 0; row < 32; ++row)
      for (int64_t g = 0; g < kEpilogueColumns / kEpilogueGroup; ++g) {
        int64_t at = epilogueStagingOffset<int64_t>(row, g, eltBytes);
        ASSERT_EQ(at % groupBytes, 0);
        ASSERT_LE(at + groupBytes, 32 * rowBytes);
        ASSERT_LE(32 * rowBytes, kEpilogueStagingBytesPerWarp);
        for (int64_t i = 0; i < groupBytes; ++i)
          EXPECT_EQ(owner[at + i]++, 0) << "row " << row << " group " << g;
      }
    const int64_t lanesPerPass = 128 / groupBytes;
    auto expectConflictFree = [&](auto rowOf, auto groupOf, const char *what) {
      for (int64_t pass = 0; pass < 32 / lanesPerPass; ++pass) {
        std::set<int64_t> banks;
        for (int64_t l = pass * lanesPerPass; l < (pass + 1) * lanesPerPass;
             ++l) {
          int64_t at =
              epilogueStagingOffset<int64_t>(rowOf(l), groupOf(l), eltBytes);
          for (int64_t w = 0; w < groupBytes / 4; ++w)
            EXPECT_TRUE(banks.insert((at / 4 + w) % 32).second)
                << what << ", pass " << pass << ", lane " << l;
        }
      }
    };
    for (int64_t g = 0; g < kEpilogueColumns / kEpilogueGroup; ++g)
      expectConflictFree([](int64_t l) { return l; },
                         [g](int64_t) { return g; }, "row-wise");
    for (int64_t s = 0; s < 4; ++s)
      expectConflictFree([s](int64_t l) { return 8 * s + l / 4; },
                         [](int64_t l) { return l % 4; }, "transposed");
  }
}

TEST(Tcgen05Layout, Sw128TileIsABijectionWithin1024ByteAtoms) {
  std::set<int64_t> seen;
  for (int64_t r = 0; r < 256; ++r)
    for (int64_t c = 0; c < 8; ++c) {
      int64_t off = sw128ChunkOffset(r, c);
      EXPECT_EQ(off % 16, 0);
      EXPECT_EQ(off / kSwizzleAtomBytes, r / 8); // stays in its atom
      EXPECT_TRUE(seen.insert(off).second);
    }
}

/// Byte `byte` (0..127) of row `row` of one K tile of an operand.
uint8_t tileByte(int64_t row, int64_t byte) {
  return uint8_t((row * 131 + byte * 7 + 3) & 0xFF);
}

/// Replays, for each K = 64 MMA i of a K tile whose operand starts at
/// shared-memory address `base`, the descriptor address generation (start
/// address base + 32 i) and checks that it reads, for every row, the 32
/// bytes (64 codes) 32 i .. 32 i + 31 of that row in order.
void expectMmasReadTheKTile(const std::vector<uint8_t> &smem, uint64_t base,
                            int64_t rows) {
  for (int64_t i = 0; i < kMmasPerKTile; ++i) {
    uint64_t start = base + i * kMmaRowBytes;
    uint64_t desc = encodeSmemDesc(start, kSw128KMajorLbo, kSw128KMajorSbo,
                                   SmemSwizzle::B128);
    ASSERT_EQ((desc & kSmemDescField14) << 4, start);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < 2; ++j)
        for (int64_t b = 0; b < 16; ++b)
          ASSERT_EQ(smem.at(mmaOperandAddress(start, r, j) + b),
                    tileByte(r, 32 * i + 16 * j + b))
              << "mma " << i << " row " << r << " chunk " << j;
  }
}

TEST(Tcgen05Layout, EachMmaReadsItsKSliceInOrder) {
  // The canonical layout: chunk c of row r holds bytes (r, 16c .. 16c + 15)
  // at sw128ChunkOffset(r, c) of a 1024-byte aligned tile.
  const int64_t rows = 128;
  const uint64_t base = 0x8400;
  std::vector<uint8_t> smem(base + rows * 128);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < 8; ++c)
      for (int64_t b = 0; b < 16; ++b)
        smem[base + sw128ChunkOffset(r, c) + b] = tileByte(r, 16 * c + b);
  expectMmasReadTheKTile(smem, base, rows);
}

//===----------------------------------------------------------------------===//
// TMA with CU_TENSOR_MAP_SWIZZLE_128B writes what the MMAs read
//===----------------------------------------------------------------------===//

/// Where TMA puts byte `offset` of a box in shared memory, as the CUDA
/// programming guide defines it: the box is written densely (row r of an
/// inner extent of 128 bytes at offset 128 r); with
/// CU_TENSOR_MAP_SWIZZLE_128B, within each 1024-byte span the 16-byte chunk
/// index (address bits [4,7)) is xor-ed with address bits [7,10). (The
/// pattern is a function of the shared-memory address; the kernel's boxes
/// start on 1024-byte boundaries, so it is also one of the offset.)
uint64_t tmaBoxAddress(uint64_t boxAddress, uint64_t offset,
                       TensorMapSwizzle swizzle) {
  uint64_t address = boxAddress + offset;
  if (swizzle == TensorMapSwizzle::None)
    return address;
  EXPECT_EQ(swizzle, TensorMapSwizzle::B128) << "not modelled";
  uint64_t chunk = (address >> 4) & 0x7;
  uint64_t row = (address >> 7) & 0x7;
  return (address & ~uint64_t(0x70)) | ((chunk ^ row) << 4);
}

/// Loads the box of the K tile at byte `kByte`, rows `row0` ..
/// `row0 + boxOuterRows - 1`, of the byte tensor `global` described by `map`
/// into `smem` at `boxAddress`, the way TMA does.
void tmaLoadBox(std::vector<uint8_t> &smem, uint64_t boxAddress,
                const std::vector<uint8_t> &global, const ByteTensorMap2D &map,
                int64_t kByte, int64_t row0) {
  ASSERT_EQ(checkByteTensorMap2D(map), TensorMapIssue::None);
  for (uint64_t r = 0; r < map.boxOuterRows; ++r)
    for (uint64_t x = 0; x < map.boxInnerBytes; ++x)
      smem.at(tmaBoxAddress(boxAddress, r * map.boxInnerBytes + x,
                            map.swizzle)) =
          global.at((row0 + r) * map.rowStrideBytes + kByte + x);
}

TEST(Tcgen05Layout, TmaSwizzle128BLandsInTheMmaLayout) {
  // B of a batched 2 x 512 x 1024 operand (K / 2 = 512 bytes per row), tile
  // rows 256 .. 511 of batch 1 (tile N = 256), K tile 2, in a stage.
  const int64_t batch = 2, rows = 512, k = 1024, tileRows = 256;
  const int64_t rowBytes = k / 2, kt = 2, row0 = 1 * rows + 256;
  ByteTensorMap2D map = operandTensorMap(/*globalAddress=*/0x10000, batch,
                                         rows, k, tileRows);
  std::vector<uint8_t> global(batch * rows * rowBytes);
  for (int64_t r = 0; r < batch * rows; ++r)
    for (int64_t x = 0; x < rowBytes; ++x)
      global[r * rowBytes + x] =
          (x / kTileRowBytes == kt && r >= row0 && r < row0 + tileRows)
              ? tileByte(r - row0, x % kTileRowBytes)
              : uint8_t(0xEE);
  const TilePlan plan = makeTilePlan(tileRows);
  const uint64_t base = 3 * plan.stageBytes + plan.bOffset;
  ASSERT_EQ(base % kSwizzleAtomBytes, 0u);
  std::vector<uint8_t> smem(base + tileRows * 128, 0);
  tmaLoadBox(smem, base, global, map, kt * kTileRowBytes, row0);
  // The canonical layout byte for byte, and what each MMA reads.
  for (int64_t r = 0; r < tileRows; ++r)
    for (int64_t c = 0; c < 8; ++c)
      for (int64_t b = 0; b < 16; ++b)
        ASSERT_EQ(smem[base + sw128ChunkOffset(r, c) + b],
                  tileByte(r, 16 * c + b));
  expectMmasReadTheKTile(smem, base, tileRows);
}

TEST(Tcgen05Layout, UnswizzledTmaBoxIsNotTheMmaLayout) {
  // The replay tells layouts apart: the same box without the swizzle does
  // not give the MMAs their K slices.
  const int64_t rows = 128, k = 256;
  ByteTensorMap2D map = operandTensorMap(0x10000, 1, rows, k, rows);
  map.swizzle = TensorMapSwizzle::None;
  std::vector<uint8_t> global(rows * (k / 2));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t x = 0; x < k / 2; ++x)
      global[r * (k / 2) + x] = tileByte(r, x);
  const uint64_t base = 0x8400;
  std::vector<uint8_t> smem(base + rows * 128, 0);
  tmaLoadBox(smem, base, global, map, 0, 0);
  int64_t mismatches = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < 8; ++c)
      mismatches += smem[mmaOperandAddress(base, r, c)] != tileByte(r, 16 * c);
  // Only row 0 of each 8-row group (xor with 0) reads the right chunks.
  EXPECT_EQ(mismatches, rows * 8 * 7 / 8);
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
            kernel[atom * kScaleAtomBytes + scaleAtomOffset(r, kb)] =
                scales[(128 * a + r) * cols + 4 * chunk + kb];
          }
  EXPECT_EQ(kernel, reference);
}

TEST(Tcgen05Layout, ProducerLaneStoresFillTheScaleAtoms) {
  // Lane l stores, for MMA i, words i of the rows l + 32 q (q = 0..3) of an
  // atom as one 16-byte vector at byte 16 l: exactly the bytes
  // scaleAtomOffset gives those rows, and all 32 lanes cover the atom.
  for (int64_t atom = 0; atom < 2; ++atom) {
    std::set<int64_t> bytes;
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t q = 0; q < kScaleRowsPerLane; ++q) {
        int64_t row = scaleRowOfLane<int64_t>(lane, atom, q);
        EXPECT_EQ(row / kScaleAtomRows, atom);
        for (int64_t kb = 0; kb < kScaleAtomBlocks; ++kb) {
          int64_t byte = scaleLaneStoreOffset<int64_t>(lane) + 4 * q + kb;
          EXPECT_EQ(scaleAtomOffset(row % kScaleAtomRows, kb), byte)
              << "lane " << lane << " q " << q << " kb " << kb;
          EXPECT_TRUE(bytes.insert(byte).second);
        }
      }
    EXPECT_EQ(int64_t(bytes.size()), kScaleAtomBytes);
  }
}

TEST(Tcgen05Layout, GlobalScaleAtomsAreSwizzleScales) {
  // scaleAtomsOffset places entry (r, c) of a [rows, cols] compact scale
  // matrix where nvfp4::swizzleScales (the reference library) puts it, for
  // several shapes (one and several row blocks and K-block groups).
  std::mt19937 rng(11);
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{
           {128, 4}, {128, 16}, {256, 32}, {384, 8}, {512, 64}}) {
    ASSERT_TRUE(hasWholeScaleAtoms(rows, cols));
    std::vector<uint8_t> scales(rows * cols);
    for (auto &s : scales)
      s = uint8_t(rng());
    std::vector<uint8_t> reference =
        nvfp4::swizzleScales(scales.data(), rows, cols);
    ASSERT_EQ(int64_t(reference.size()), rows * cols);
    std::vector<uint8_t> atoms(rows * cols, 0);
    std::set<int64_t> offsets;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        int64_t offset = scaleAtomsOffset<int64_t>(r, c, cols);
        ASSERT_LT(offset, rows * cols);
        EXPECT_TRUE(offsets.insert(offset).second);
        atoms[offset] = scales[r * cols + c];
        // The atom of the entry, and the entry within it.
        EXPECT_EQ(offset, scaleAtomsAtomOffset<int64_t>(r, c, cols) +
                              scaleAtomOffset(r % kScaleAtomRows,
                                              c % kScaleAtomBlocks));
      }
    EXPECT_EQ(atoms, reference) << rows << " x " << cols;
  }
  EXPECT_FALSE(hasWholeScaleAtoms(64, 16));
  EXPECT_FALSE(hasWholeScaleAtoms(128, 2));
}

TEST(Tcgen05Layout, ScaleAtomBulkCopiesFillTheStageAtoms) {
  // With scales in the global atoms layout, the producer copies, per K tile
  // and 128-row block, the kNvfp4ScaleAtomKTileBytes at
  // scaleAtomsAtomOffset(first row of the block, first K block of the tile) to
  // the stage's atoms of the block (aScaleAtomOffsetOf(0) /
  // bScaleAtomOffsetOf(0, block)). Replays the copies and checks that each atom
  // the MMA thread's tcgen05.cp reads holds the scales of its rows and MMA, and
  // the bulk-copy rules (16-byte aligned source and destination, a multiple of
  // 16 bytes).
  const int64_t k = 768, cols = k / 16;
  for (int64_t n : {128, 256}) {
    TilePlan p = makeTilePlan(n);
    const int64_t rows = 2 * n;
    std::vector<int32_t> global(rows * cols);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        global[scaleAtomsOffset<int64_t>(r, c, cols)] = int32_t(r * cols + c);
    for (auto [isLhs, blocks] : std::vector<std::pair<bool, int64_t>>{
             {true, 1}, {false, p.bScaleAtoms}})
      for (int64_t tileRow0 : {int64_t(0), n})
        for (int64_t kt = 0; kt < k / kTileK; ++kt) {
          std::vector<int32_t> stage(p.stageBytes, -1);
          for (int64_t rb = 0; rb < blocks; ++rb) {
            int64_t src = scaleAtomsAtomOffset<int64_t>(
                tileRow0 + rb * kScaleAtomRows, kt * kTileK / 16, cols);
            int64_t dst =
                isLhs ? p.aScaleAtomOffsetOf(0) : p.bScaleAtomOffsetOf(0, rb);
            EXPECT_EQ(src % 16, 0);
            EXPECT_EQ(dst % 16, 0);
            EXPECT_EQ(kNvfp4ScaleAtomKTileBytes % 16, 0);
            for (int64_t byte = 0; byte < kNvfp4ScaleAtomKTileBytes; ++byte)
              stage[dst + byte] = global[src + byte];
          }
          for (int64_t i = 0; i < kMmasPerKTile; ++i)
            for (int64_t rb = 0; rb < blocks; ++rb)
              for (int64_t r = 0; r < kScaleAtomRows; ++r)
                for (int64_t kb = 0; kb < kScaleAtomBlocks; ++kb) {
                  int64_t atom = isLhs ? p.aScaleAtomOffsetOf(i)
                                       : p.bScaleAtomOffsetOf(i, rb);
                  int64_t row = tileRow0 + rb * kScaleAtomRows + r;
                  int64_t c = kt * kTileK / 16 + i * kScaleAtomBlocks + kb;
                  ASSERT_EQ(stage[atom + scaleAtomOffset(r, kb)],
                            int32_t(row * cols + c))
                      << "N " << n << " lhs " << isLhs << " kt " << kt
                      << " MMA " << i << " block " << rb;
                }
        }
    // The full barrier's transaction bytes: the TMA loads plus the copies.
    EXPECT_EQ(p.scaleCopyBytes(false, false), 0);
    EXPECT_EQ(p.scaleCopyBytes(true, false), kNvfp4ScaleAtomKTileBytes);
    EXPECT_EQ(p.scaleCopyBytes(true, true),
              (1 + p.bScaleAtoms) * kNvfp4ScaleAtomKTileBytes);
    // mbarrier transaction counts are limited to 2^20 - 1.
    EXPECT_LT(p.txBytes + p.scaleCopyBytes(true, true), 1 << 20);
  }
}

TEST(Tcgen05Layout, ScaleWarpExpandsStagedScalesIntoTheAtoms) {
  // Staged 16x16-block scales: per K tile the producer's TMA box puts the 16
  // scale bytes of each staged row (tile row 16 j .. 16 j + 15 -> row j;
  // rows past the tensor zero-filled) at the start of the operand's atoms;
  // then lane l of the scale warp loads, for each 128-row block a and
  // q = 0..3, the staged row of tile row scaleRowOfLane(l, a, q) (rows past
  // the tile are zeros), all before any store, and stores word i of its four
  // rows at the atom of MMA i, byte scaleLaneStoreOffset(l). Replays both and
  // checks that every atom the MMA thread's tcgen05.cp reads holds the scale
  // of its row's 16x16 tile.
  const int64_t k = 768;
  for (int64_t n : {64, 128, 256})
    for (bool isLhs : {true, false}) {
      TilePlan p =
          makeTilePlan(n, false, kMmasPerKTile, ScaleStaging{isLhs, !isLhs});
      const int64_t tileRows = isLhs ? kTileM : n;
      const int64_t blocks = isLhs ? 1 : p.bScaleAtoms;
      const int64_t rows = 3 * 128 + 48; // the last tile ragged
      const int64_t scaleRows = rows / 16;
      auto compact = [&](int64_t r, int64_t c) {
        return int32_t(1000 * r + c + 1);
      };
      const int64_t base = isLhs ? p.aScaleOffset : p.bScaleOffset;
      for (int64_t tileRow0 = 0; tileRow0 < rows; tileRow0 += tileRows)
        for (int64_t kt = 0; kt < k / kTileK; ++kt) {
          std::vector<int32_t> stage(p.stageBytes, -1);
          // The TMA box: stagedScaleRowsOf(tileRows) rows x 16 bytes.
          ASSERT_EQ(stagedScaleBytesOf(tileRows) % 16, 0);
          for (int64_t j = 0; j < stagedScaleRowsOf(tileRows); ++j)
            for (int64_t c = 0; c < kStagedScaleRowBytes; ++c) {
              int64_t r = tileRow0 / 16 + j;
              stage[base + j * kStagedScaleRowBytes + c] =
                  r < scaleRows ? compact(r, kt * 16 + c) : 0;
            }
          // The lanes' loads (all first), then their stores.
          std::vector<std::array<int32_t, 16>> loaded(32 * blocks * 4);
          for (int64_t lane = 0; lane < 32; ++lane)
            for (int64_t a = 0; a < blocks; ++a)
              for (int64_t q = 0; q < kScaleRowsPerLane; ++q) {
                int64_t row = scaleRowOfLane<int64_t>(lane, a, q);
                auto &bytes = loaded[(lane * blocks + a) * 4 + q];
                for (int64_t c = 0; c < 16; ++c)
                  bytes[c] =
                      row < tileRows ? stage[base + row / 16 * 16 + c] : 0;
              }
          for (int64_t lane = 0; lane < 32; ++lane)
            for (int64_t a = 0; a < blocks; ++a)
              for (int64_t i = 0; i < kMmasPerKTile; ++i)
                for (int64_t q = 0; q < kScaleRowsPerLane; ++q)
                  for (int64_t kb = 0; kb < 4; ++kb) {
                    int64_t atom = isLhs ? p.aScaleAtomOffsetOf(i)
                                         : p.bScaleAtomOffsetOf(i, a);
                    stage[atom + scaleLaneStoreOffset<int64_t>(lane) + 4 * q +
                          kb] = loaded[(lane * blocks + a) * 4 + q][4 * i + kb];
                  }
          for (int64_t i = 0; i < kMmasPerKTile; ++i)
            for (int64_t a = 0; a < blocks; ++a)
              for (int64_t r = 0; r < kScaleAtomRows; ++r)
                for (int64_t kb = 0; kb < kScaleAtomBlocks; ++kb) {
                  int64_t atom = isLhs ? p.aScaleAtomOffsetOf(i)
                                       : p.bScaleAtomOffsetOf(i, a);
                  int64_t tileRow = a * kScaleAtomRows + r;
                  int64_t scaleRow = (tileRow0 + tileRow) / 16;
                  int32_t want = tileRow >= tileRows ? 0
                                 : scaleRow >= scaleRows
                                     ? 0
                                     : compact(scaleRow, kt * 16 + 4 * i + kb);
                  ASSERT_EQ(stage[atom + scaleAtomOffset(r, kb)], want)
                      << "N " << n << " lhs " << isLhs << " tile row "
                      << tileRow0 << " kt " << kt << " MMA " << i << " row "
                      << tileRow;
                }
        }
    }
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
      smem[atomAddr + scaleAtomOffset(r, kb)] = scale[r][kb];
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
