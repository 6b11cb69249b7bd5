//===- Tcgen05PipelineTest.cpp - tcgen05 kernel protocol tests ------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Runs the protocol model of Tcgen05ProtocolModel.h over the shapes, stage
// counts and scale layouts of the tcgen05 kernels (the protocol must hold)
// and with each Fault (the model must notice), and checks the schedule
// formulas and barrier counts of Tcgen05Pipeline.h.
//
//===----------------------------------------------------------------------===//

#include "Tcgen05ProtocolModel.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Pipeline.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

using namespace nvfp4::gpu::tcgen05;
using namespace nvfp4::gpu::tcgen05::model;

namespace {
/// Simulates the shapes of the sweep for one kernel variant, with the A / B
/// scales in the atoms layout or not; returns the number of runs.
int64_t checkManyShapes(bool ctaPair, bool lhsScaleAtoms = false,
                        bool rhsScaleAtoms = false, ScaleStaging staging = {},
                        bool overlappingAccs = false) {
  int64_t runs = 0;
  for (int64_t stages = 2; stages <= 6; ++stages)
    for (int64_t accStages = overlappingAccs ? 2 : 1; accStages <= 2;
         ++accStages)
      for (int64_t kTiles : {1, 2, 3, 5, 8})
        for (auto [numTiles, clusters] : {std::pair<int64_t, int64_t>{1, 1},
                                          {3, 1},
                                          {5, 2},
                                          {7, 3},
                                          {4, 4},
                                          {9, 2}})
          for (uint64_t seed = 0; seed < 3; ++seed) {
            Config c{kTiles, numTiles, clusters, stages, accStages, ctaPair};
            c.lhsScaleAtoms = lhsScaleAtoms;
            c.rhsScaleAtoms = rhsScaleAtoms;
            c.scaleStaging = staging;
            c.overlappingAccs = overlappingAccs;
            EXPECT_EQ(simulate(c, seed), "")
                << (ctaPair ? "pair" : "1-CTA") << " atoms " << lhsScaleAtoms
                << rhsScaleAtoms << " staged " << staging.lhs << staging.rhs
                << " stages " << stages << " acc " << accStages << " kTiles "
                << kTiles << " tiles " << numTiles << " clusters " << clusters
                << " seed " << seed;
            ++runs;
          }
  return runs;
}

TEST(Tcgen05Pipeline, ProtocolHoldsForManyShapes) {
  EXPECT_EQ(checkManyShapes(/*ctaPair=*/false), 5 * 2 * 5 * 6 * 3);
}

TEST(Tcgen05Pipeline, CtaPairProtocolHoldsForManyShapes) {
  EXPECT_EQ(checkManyShapes(/*ctaPair=*/true), 5 * 2 * 5 * 6 * 3);
}

TEST(Tcgen05Pipeline, OverlappingAccumulatorsProtocolHoldsForManyShapes) {
  // Two accumulators sharing columns behind one barrier pair (N = 256): the
  // next tile's first MMA comes only after every epilogue thread read the
  // shared columns of the tile before, and all of the tile two before.
  for (bool ctaPair : {false, true})
    EXPECT_EQ(checkManyShapes(ctaPair, false, false, {},
                              /*overlappingAccs=*/true),
              5 * 5 * 6 * 3);
}

TEST(Tcgen05Pipeline, ScaleAtomsProtocolHoldsForManyShapes) {
  // Both operands, A only, B only in the atoms layout (tile N = 128: one B
  // row block); the pair relays the peer's copies through scaleFull.
  for (bool ctaPair : {false, true})
    for (auto [lhs, rhs] : {std::pair(true, true), std::pair(true, false),
                            std::pair(false, true)})
      EXPECT_EQ(checkManyShapes(ctaPair, lhs, rhs), 5 * 2 * 5 * 6 * 3);
}

TEST(Tcgen05Pipeline, StagedScalesProtocolHoldsForManyShapes) {
  // B staged with A in atoms or stored by the producer's lanes, and both
  // staged: the scale warp's lanes count on full[s] next to the producer's.
  for (bool ctaPair : {false, true}) {
    EXPECT_EQ(checkManyShapes(ctaPair, /*lhsScaleAtoms=*/true, false,
                              ScaleStaging{false, true}),
              5 * 2 * 5 * 6 * 3);
    EXPECT_EQ(checkManyShapes(ctaPair, false, false, ScaleStaging{false, true}),
              5 * 2 * 5 * 6 * 3);
    EXPECT_EQ(checkManyShapes(ctaPair, false, false, ScaleStaging{true, true}),
              5 * 2 * 5 * 6 * 3);
  }
}

TEST(Tcgen05Pipeline, KernelPlansAreCovered) {
  // The stage and accumulator counts, barrier counts and TMA bytes the
  // kernels use, over longer runs.
  for (bool ctaPair : {false, true})
    for (int64_t n : {64, 128, 256})
      for (int atoms = 0; atoms < 4; ++atoms) {
        // B atoms only for whole 128-row blocks (canReadTcgen05ScaleAtoms).
        bool lhs = atoms & 1, rhs = atoms & 2;
        if (rhs && n % kScaleAtomRows != 0)
          continue;
        TilePlan p = makeTilePlan(n, ctaPair);
        for (uint64_t seed = 0; seed < 4; ++seed) {
          Config c{/*kTiles=*/4,
                   /*numTiles=*/11,
                   /*clusters=*/3,  p.stages, p.accStages,
                   ctaPair,         n};
          c.lhsScaleAtoms = lhs;
          c.rhsScaleAtoms = rhs;
          c.overlappingAccs = p.overlapsAccumulators();
          EXPECT_EQ(simulate(c, seed), "")
              << (ctaPair ? "pair" : "1-CTA") << " N = " << n << " atoms "
              << lhs << rhs << " seed " << seed;
        }
      }
}

/// Whether one of the first `seeds` seeds of `c` makes the model report
/// `what`.
bool someRunReports(Config c, const std::string &what, uint64_t seeds = 20) {
  for (uint64_t seed = 0; seed < seeds; ++seed)
    if (simulate(c, seed).find(what) != std::string::npos)
      return true;
  return false;
}

TEST(Tcgen05Pipeline, BrokenProtocolsAreDetected) {
  for (bool ctaPair : {false, true}) {
    Config c{/*kTiles=*/3,    /*numTiles=*/4,
             /*clusters=*/1,  /*stages=*/2,
             /*accStages=*/2, ctaPair};
    c.fault = Fault::ProducerSkipsEmptyWait;
    EXPECT_TRUE(someRunReports(c, "before the MMAs of step")) << ctaPair;
    c.fault = Fault::ProducerUsesConsumerParity;
    EXPECT_TRUE(someRunReports(c, "deadlock")) << ctaPair;
    c.fault = Fault::NoProducerDrain;
    EXPECT_TRUE(someRunReports(c, "in flight when it exits")) << ctaPair;
    c.fault = Fault::MmaSkipsAccEmptyWait;
    EXPECT_TRUE(someRunReports(c, "overwrote an accumulator")) << ctaPair;
    // Overlapping accumulators released before the shared columns are read.
    Config overlap = c;
    overlap.overlappingAccs = true;
    overlap.fault = Fault::None;
    EXPECT_FALSE(someRunReports(overlap, "overwrote")) << ctaPair;
    overlap.fault = Fault::EpilogueReleasesBeforeSharedReads;
    EXPECT_TRUE(someRunReports(overlap, "overwrote the shared columns"))
        << ctaPair;
    overlap.fault = Fault::MmaSkipsAccEmptyWait;
    EXPECT_TRUE(someRunReports(overlap, "overwrote")) << ctaPair;
  }
}

TEST(Tcgen05Pipeline, BrokenCtaPairProtocolsAreDetected) {
  Config c{/*kTiles=*/3,    /*numTiles=*/4,
           /*clusters=*/1,  /*stages=*/2,
           /*accStages=*/2, /*ctaPair=*/true};
  // The peer's producer waits for a release that never arrives.
  c.fault = Fault::CommitNotMulticast;
  EXPECT_TRUE(someRunReports(c, "deadlock"));
  // 32 arrivals complete a phase of full[s]: the MMAs start before the
  // other CTA's scales (or loads) are in.
  c.fault = Fault::FullCountsOneCta;
  EXPECT_TRUE(someRunReports(c, "passed full[s] before the stages"));
  // 128 arrivals complete a phase of accEmpty[a]: the MMAs overwrite an
  // accumulator one CTA's epilogue has not read.
  c.fault = Fault::AccEmptyCountsOneCta;
  EXPECT_TRUE(someRunReports(c, "overwrote an accumulator"));
  // The transaction count of full[s] never returns to zero.
  c.fault = Fault::ExpectTxOfBothCtas;
  EXPECT_TRUE(someRunReports(c, "deadlock"));
  c.fault = Fault::PeerLoadsSignalOwnBarrier;
  EXPECT_TRUE(someRunReports(c, "deadlock"));
  // The leader's accEmpty[a] gets half of its arrivals.
  c.fault = Fault::PeerEpilogueArrivesLocally;
  EXPECT_TRUE(someRunReports(c, "deadlock"));
  // The peer arrives on the leader's barriers before they exist (when the
  // leader's thread 0 is slow); the leader exits while the peer's epilogue
  // still arrives on its accEmpty.
  c.fault = Fault::NoSetupClusterBarrier;
  EXPECT_TRUE(
      someRunReports(c, "before it initialized its mbarriers", /*seeds=*/100));
  c.fault = Fault::NoTeardownClusterBarrier;
  EXPECT_TRUE(someRunReports(c, "reaches cta 0 after it exited") ||
              someRunReports(c, "on cta 0 in flight when it exits"));
}

TEST(Tcgen05Pipeline, BrokenScaleAtomRelaysAreDetected) {
  for (auto [lhs, rhs] : {std::pair(true, true), std::pair(true, false),
                          std::pair(false, true)}) {
    Config c{/*kTiles=*/3,    /*numTiles=*/4,
             /*clusters=*/1,  /*stages=*/2,
             /*accStages=*/2, /*ctaPair=*/true};
    c.lhsScaleAtoms = lhs;
    c.rhsScaleAtoms = rhs;
    // The MMAs start before the peer's atoms landed.
    c.fault = Fault::PeerArrivesBeforeScaleCopies;
    EXPECT_TRUE(someRunReports(c, "passed full[s] before the stages"))
        << lhs << rhs;
    c.fault = Fault::PeerScaleCopiesOnLeaderFull;
    EXPECT_TRUE(someRunReports(c, "outside its destination CTA")) << lhs << rhs;
    c.fault = Fault::NoScaleFullInit;
    EXPECT_TRUE(someRunReports(c, "uninitialized scaleFull")) << lhs << rhs;
  }
}

TEST(Tcgen05Pipeline, BrokenScaleStagingIsDetected) {
  for (bool ctaPair : {false, true}) {
    Config c{/*kTiles=*/3,    /*numTiles=*/4,
             /*clusters=*/1,  /*stages=*/2,
             /*accStages=*/2, ctaPair};
    c.lhsScaleAtoms = true;
    c.scaleStaging = ScaleStaging{false, true};
    // The expansion reads (and overwrites) bytes that have not landed.
    c.fault = Fault::ScaleWarpSkipsStagedWait;
    EXPECT_TRUE(someRunReports(c, "before they landed")) << ctaPair;
    // The MMAs start before the scale warp expanded the stage.
    c.fault = Fault::FullCountsProducerLanesOnly;
    EXPECT_TRUE(someRunReports(c, "passed full[s] before the stages"))
        << ctaPair;
  }
}

TEST(Tcgen05Pipeline, ScheduleFormulas) {
  // Tiles: N fastest, then M, then the batch; every tile has one owner.
  TileCoord<int64_t> t = tileCoord<int64_t>(2 * 3 * 4 + 1 * 3 + 2, 3, 4);
  EXPECT_EQ(t.n, 2);
  EXPECT_EQ(t.m, 1);
  EXPECT_EQ(t.batch, 2);
  for (int64_t numTiles : {1, 5, 148, 1000})
    for (int64_t grid : {1, 7, 148}) {
      if (grid > numTiles)
        continue;
      int64_t total = 0;
      for (int64_t cta = 0; cta < grid; ++cta) {
        int64_t count = tilesOfCta<int64_t>(cta, grid, numTiles);
        EXPECT_LT(tileOfCta<int64_t>(cta, grid, count - 1), numTiles);
        EXPECT_GE(tileOfCta<int64_t>(cta, grid, count), numTiles);
        total += count;
      }
      EXPECT_EQ(total, numTiles);
    }
  // Slots and parities: the consumer waits for the completion of phase
  // step / slots; the producer for the one before, which for the first
  // round is the phase before phase 0 (parity 1, complete on a fresh
  // barrier).
  EXPECT_EQ(consumerParity<int64_t>(0, 4), 0);
  EXPECT_EQ(consumerParity<int64_t>(4, 4), 1);
  EXPECT_EQ(producerParity<int64_t>(0, 4), 1);
  EXPECT_EQ(producerParity<int64_t>(5, 4), 0);
  EXPECT_TRUE(MBarrier(1).tryWaitParity(producerParity<int64_t>(3, 4)));
  EXPECT_FALSE(MBarrier(1).tryWaitParity(consumerParity<int64_t>(3, 4)));
  EXPECT_EQ(kStep<int64_t>(2, 3, 5), 13);
  EXPECT_EQ(slotOf<int64_t>(13, 6), 1);
  // The 32-bit counter limit.
  EXPECT_TRUE(pipelineStepsFit32Bits(1 << 20, 1 << 10, 6));
  EXPECT_FALSE(pipelineStepsFit32Bits(1 << 21, 1 << 10, 6));
  EXPECT_FALSE(pipelineStepsFit32Bits((int64_t(1) << 31) - 1, 1, 6));
}

TEST(Tcgen05Pipeline, CtaPairBarrierCounts) {
  // The multicast reaches exactly the CTAs of the pair, the leader among
  // them; the leader's barriers count both CTAs' lanes, bytes and epilogue
  // threads.
  EXPECT_EQ(kPairMulticastMask, (1u << kPairCtas) - 1);
  EXPECT_TRUE(kPairMulticastMask >> kPairLeaderRank & 1);
  for (int64_t n : {64, 128, 256}) {
    TilePlan one = makeTilePlan(n), pair = makeTilePlan(n, true);
    EXPECT_EQ(one.fullBarrierArrivals, kFullBarrierArrivals);
    EXPECT_EQ(one.accEmptyBarrierArrivals, kAccEmptyBarrierArrivals);
    EXPECT_EQ(pair.fullBarrierArrivals, kPairCtas * kFullBarrierArrivals);
    EXPECT_EQ(pair.accEmptyBarrierArrivals,
              kPairCtas * kAccEmptyBarrierArrivals);
    // expect_tx announces what the A and B boxes of a CTA deliver.
    EXPECT_EQ(pair.txBytesPerCta, (kTileM + n / kPairCtas) * kTileRowBytes);
    EXPECT_EQ(pair.txBytes, kPairCtas * pair.txBytesPerCta);
    EXPECT_EQ(one.txBytes, one.txBytesPerCta);
    // Each CTA of a pair copies the atoms of its 128 A rows and of all tileN
    // B rows: as many as the 1-CTA kernel.
    EXPECT_EQ(pair.scaleCopyBytes(true, true), one.scaleCopyBytes(true, true));
    EXPECT_EQ(pair.scaleCopyBytes(true, false), kNvfp4ScaleAtomKTileBytes);
  }
}

} // namespace
