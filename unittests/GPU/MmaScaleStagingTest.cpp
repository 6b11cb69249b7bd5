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

#include "nvfp4/Conversion/NVFP4ToGPU/MmaLayout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace nvfp4::gpu;

namespace {

/// Grouped scale staging: 16-byte groups where the rows allow it (NVFP4: K
/// a multiple of 256; MXFP4: 512), one copy per step otherwise.
TEST(MmaScaleStaging, ScaleStagingGroupsWhereRowsAllow) {
  EXPECT_EQ(groupedScaleStaging(8, 4096 / 16), (ScaleStaging{2, 8}));
  EXPECT_EQ(groupedScaleStaging(8, 384 / 16), (ScaleStaging{1, 8}));
  EXPECT_EQ(groupedScaleStaging(4, 512 / 32), (ScaleStaging{4, 4}));
  EXPECT_EQ(groupedScaleStaging(4, 256 / 32), (ScaleStaging{1, 4}));
  EXPECT_EQ(groupedScaleStaging(2, 4096 / 32), (ScaleStaging{1, 2}));
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
