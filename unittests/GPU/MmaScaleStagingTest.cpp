//===- MmaScaleStagingTest.cpp - mma.sync scale staging tests -------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Checks the scale staging of the mma.sync kernels (MmaLayout.h,
// ScaleStaging): which operands' scales come in 16-byte groups of K steps,
// the shared memory the groups take, and the schedule of their slots
// against the cp.async pipeline. MmaLayoutTest.cpp runs the kernel with
// them.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/MmaSync/MmaLayout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace nvfp4::gpu;

namespace {

/// Grouped scale staging: the widest copy of whole steps (16, 8 or 4 bytes)
/// that divides the rows (NVFP4: 16 bytes when K is a multiple of 256;
/// MXFP4: 16 for 512, 8 for 256; MXFP8: 16 for 512, 8 for 256, 4 for 128),
/// one copy per step otherwise.
TEST(MmaScaleStaging, ScaleStagingGroupsWhereRowsAllow) {
  EXPECT_EQ(groupedScaleStaging(8, 4096 / 16), (ScaleStaging{2, 8}));
  EXPECT_EQ(groupedScaleStaging(8, 384 / 16), (ScaleStaging{1, 8}));
  EXPECT_EQ(groupedScaleStaging(4, 512 / 32), (ScaleStaging{4, 4}));
  // MXFP8: eight steps of 2 bytes; rows aligned to 8 or 4 bytes take
  // groups of 8 or 4 bytes (also MXFP4's 8-byte rows); a 2-byte row none.
  EXPECT_EQ(groupedScaleStaging(2, 4096 / 32), (ScaleStaging{8, 2}));
  EXPECT_EQ(groupedScaleStaging(2, 256 / 32), (ScaleStaging{4, 2}));
  EXPECT_EQ(groupedScaleStaging(2, 384 / 32), (ScaleStaging{2, 2}));
  EXPECT_EQ(groupedScaleStaging(4, 256 / 32), (ScaleStaging{2, 4}));
  EXPECT_EQ(groupedScaleStaging(2, 64 / 32), (ScaleStaging{1, 2}));
  EXPECT_EQ(groupedScaleStaging(8, 128 / 16), (ScaleStaging{1, 8}));
  const ScaleStaging nvfp4Groups{2, 8}, mxfp4Groups{4, 4};
  EXPECT_EQ(nvfp4Groups.rowBytes(), 16);
  EXPECT_EQ(nvfp4Groups.slots(kTile128x128), 3);
  EXPECT_EQ(nvfp4Groups.slots(kTile128x256), 2);
  EXPECT_EQ(mxfp4Groups.slots(kTile128x128), 2);
  EXPECT_EQ(ScaleStaging{}.slots(kTile128x128), 4);
  // Every tile still fits with both operands grouped.
  for (const TileShape &t : kTileShapes) {
    EXPECT_LE(pipelineSharedBytes(t, nvfp4Groups, nvfp4Groups),
              kMaxSharedBytes);
    EXPECT_LE(pipelineSharedBytes(t, mxfp4Groups, mxfp4Groups),
              kMaxSharedBytes);
    // MXFP4 groups of four steps take no more than four stages' slots.
    if (t.stages == 4) {
      EXPECT_EQ(pipelineSharedBytes(t, mxfp4Groups, mxfp4Groups),
                pipelineSharedBytes(t));
    }
  }
  EXPECT_EQ(pipelineSharedBytes(kTile128x256, ScaleStaging{}, nvfp4Groups),
            3 * 384 * 64 + 3 * 128 * 8 + 2 * 256 * 16);
  // 16x16-block operands stage one compact row per 16 tile rows.
  const ScaleStaging compactGroups = groupedScaleStaging(8, 4096 / 16, 16);
  EXPECT_EQ(compactGroups, (ScaleStaging{2, 8, 16}));
  EXPECT_EQ(compactGroups.stagedRows(256), 16);
  EXPECT_EQ(stagedRow<int64_t>(47, compactGroups), 2);
  EXPECT_EQ(stagedRow<int64_t>(47, nvfp4Groups), 47);
  EXPECT_EQ(pipelineSharedBytes(kTile128x256, nvfp4Groups, compactGroups),
            3 * 384 * 64 + 2 * 128 * 16 + 2 * 16 * 16);
  // Slots stay 16-byte aligned with a single compact row of 8 bytes.
  EXPECT_EQ(ScaleStaging({1, 8, 16}).sharedBytes(kTile16x128, 16), 32);
  EXPECT_EQ(
      ScaleStaging({1, 8, 16}).sharedBytes(TileShape{16, 128, 1, 4, 3}, 16),
      32);
}

/// The scale slot layout: operands staged alike share each slot (A's rows,
/// then B's); every row of every slot of both operands has its own bytes,
/// inside the scale region pipelineSharedBytes allots, and the shared job
/// list (A's rows, then B's) writes slot rows in order.
TEST(MmaScaleStaging, ScaleSlotsCoverTheRegionOnce) {
  const ScaleStaging perStep{}, groups{2, 8}, compactGroups{2, 8, 16},
      compactPerStep{1, 8, 16}, mxGroups{4, 4};
  const ScaleSlotLayout shared =
      ScaleSlotLayout::of(kTile128x256, groups, compactGroups);
  EXPECT_TRUE(shared.sharesSlots);
  EXPECT_EQ(shared.lhsRows, 128);
  EXPECT_EQ(shared.rhsRows, 16);
  EXPECT_EQ(shared.rhsBase, 128 * 16);
  EXPECT_EQ(shared.lhsSlotStride, (128 + 16) * 16);
  EXPECT_EQ(shared.rowByte<int64_t>(false, 1, 3), 144 * 16 + 128 * 16 + 48);
  const ScaleSlotLayout separate =
      ScaleSlotLayout::of(kTile64x64, perStep, compactGroups);
  EXPECT_FALSE(separate.sharesSlots);
  EXPECT_EQ(separate.rhsBase, 4 * 64 * 8);
  EXPECT_EQ(separate.rhsSlotStride, 4 * 16);
  for (const TileShape &t : kTileShapes)
    for (ScaleStaging lhs : {perStep, groups, compactGroups, compactPerStep})
      for (ScaleStaging rhs :
           {perStep, groups, compactGroups, compactPerStep, mxGroups}) {
        if ((lhs.stepBytes == 4) != (rhs.stepBytes == 4))
          continue;
        const ScaleSlotLayout l = ScaleSlotLayout::of(t, lhs, rhs);
        const int64_t region =
            lhs.sharedBytes(t, t.m) + rhs.sharedBytes(t, t.n);
        std::vector<int> bytes(region, 0);
        for (bool isLhs : {true, false}) {
          const ScaleStaging &s = isLhs ? lhs : rhs;
          for (int64_t slot = 0; slot < s.slots(t); ++slot)
            for (int64_t row = 0; row < (isLhs ? l.lhsRows : l.rhsRows); ++row)
              for (int64_t i = 0; i < s.rowBytes(); ++i) {
                const int64_t byte = l.rowByte(isLhs, slot, row) + i;
                ASSERT_LT(byte, region) << t.m << "x" << t.n;
                ++bytes[byte];
              }
        }
        for (int v : bytes)
          EXPECT_LE(v, 1) << t.m << "x" << t.n;
        if (l.sharesSlots)
          for (int64_t job = 0; job < l.lhsRows + l.rhsRows; ++job) {
            const bool isLhs = job < l.lhsRows;
            EXPECT_EQ(
                l.rowByte<int64_t>(isLhs, 1, isLhs ? job : job - l.lhsRows),
                l.lhsSlotStride + job * l.lhsRowBytes);
          }
      }
}

/// The schedule of grouped scale slots: a group is copied with its first
/// step, no later than that step's data, and it overwrites only a slot
/// whose group's steps every warp has finished (before the barrier of the
/// iteration that issues it); each step reads its own group's slot.
TEST(MmaScaleStaging, ScaleGroupSchedule) {
  for (const TileShape &t : kTileShapes)
    for (int64_t groupSteps : {1, 2, 4}) {
      const ScaleStaging staging{groupSteps,
                                 16 / std::max<int64_t>(groupSteps, 2)};
      for (int64_t numSteps = groupSteps; numSteps <= 12;
           numSteps += groupSteps) {
        std::vector<int64_t> slotGroup(staging.slots(t), -1);
        auto issue = [&](int64_t step, int64_t firstUnfinished) {
          if (!issuesScales(step, staging))
            return;
          int64_t &group = slotGroup[scaleSlot(step, t, staging)];
          if (group >= 0) {
            EXPECT_LT((group + 1) * groupSteps - 1, firstUnfinished)
                << t.m << "x" << t.n << " G " << groupSteps << " step " << step;
          }
          group = step / groupSteps;
        };
        for (int64_t s = 0; s < t.stages - 1 && s < numSteps; ++s)
          issue(s, 0);
        for (int64_t kt = 0; kt < numSteps; ++kt) {
          if (int64_t next = prefetchStep(kt, t); next < numSteps)
            issue(next, kt);
          EXPECT_EQ(slotGroup[scaleSlot(kt, t, staging)], kt / groupSteps);
          EXPECT_LE(scaleByteInRow(kt, staging) + staging.stepBytes,
                    staging.rowBytes());
        }
      }
    }
}

} // namespace
