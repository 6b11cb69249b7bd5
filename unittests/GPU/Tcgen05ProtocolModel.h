//===- Tcgen05ProtocolModel.h - tcgen05 kernel protocol model ---*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Simulates the warp-specialized tcgen05 kernel's roles on a model of the
// mbarriers, with the schedule formulas of Tcgen05Pipeline.h that the
// lowering emits and the barrier arrival counts and transaction bytes of the
// TilePlan it initializes. A simulation covers one cluster: one CTA for the
// 1-CTA kernel, kPairCtas CTAs for the CTA pair (cta_group::2), whose
// leader (kPairLeaderRank) holds the full and accEmpty barriers that count
// both CTAs and issues every MMA.
//
// Per CTA:
//
//  - 32 producer lanes: wait for the CTA's own empty[s]; lane 0 adds the
//    CTA's TMA bytes to the leader's full[s] (expect_tx) and issues the A and
//    B loads into the CTA's stage, which land later in any order and
//    complete their bytes on the leader's full[s]; every lane writes the
//    scales of the operands in the compact layout and arrives on the
//    leader's full[s]; at the end every lane waits for the release of the
//    last stages on its own empty barriers;
//  - for operands whose scales are in the global atoms layout, lane 0 also
//    issues bulk copies into the CTA's stage, which complete on an mbarrier
//    of the CTA of their destination: the leader's (or 1-CTA) full[s], with
//    their bytes in its expect_tx; the peer's own scaleFull[s], on which
//    lane 0 does arrive.expect_tx of their bytes and which every peer lane
//    waits for before it arrives on the leader's full[s] (the relay);
//  - 128 epilogue threads: per tile, wait for the CTA's own accFull[a], read
//    the CTA's accumulator, arrive on the leader's accEmpty[a];
//
// and in the leader, the MMA thread: per tile, wait accEmpty[a]; per K tile,
// wait full[s], issue the copies and MMAs (which read the stage of every CTA
// and write the accumulator of every CTA) and a tcgen05.commit to empty[s];
// after the tile, a commit to accFull[a]. The copies and MMAs execute later,
// in issue order; a commit is multicast to the barrier at the same offset in
// each CTA of kPairMulticastMask (the 1-CTA kernel: its own), and each copy
// arrives at some point after everything issued before the commit executed
// (commits and their copies are not ordered among themselves).
//
// An mbarrier operation of a thread on its own CTA's barrier takes effect at
// once; on the peer's (through a `mapa` address) it travels and takes effect
// later, in the thread's issue order. Every thread first passes the setup
// barrier (thread 0 initializes the CTA's mbarriers before it) and ends with
// the teardown barrier, whose arrival releases the thread's remote
// operations: bar.sync for the 1-CTA kernel, the cluster barrier for the
// pair. A CTA exits when its threads passed the teardown barrier.
//
// An mbarrier phase completes when its pending arrivals and its transaction
// count are both zero; try_wait.parity(p) succeeds when the current phase's
// parity differs from p. A random scheduler interleaves the threads and the
// asynchronous units (TMA, MMA, commit, remote operations), each kind at a
// speed drawn per CTA and run, so that some runs starve one CTA or kind and
// race another. Each run checks that nothing deadlocks; that no stage is
// written (by TMA or by scale stores) before the MMAs of its previous fill
// executed; that the MMA thread passes full[s] only when every CTA's stage
// holds the step's data, and the MMAs read complete stages; that no
// accumulator is read before the tile's last MMA executed nor overwritten
// before every epilogue thread of its CTA read it; that no mbarrier is
// signalled before its CTA initialized it; that no CTA exits while anything
// may still reach its shared or tensor memory; and that every tile is stored
// exactly once by each CTA of the cluster the schedule gives it. Deliberately
// broken protocols check that the model notices.
//
//
// The model of a cluster is in Tcgen05ClusterModel.h (defined in
// Tcgen05ClusterModel.cpp and Tcgen05ClusterRoles.cpp), simulate() in
// Tcgen05ProtocolModel.cpp; Tcgen05PipelineTest.cpp runs it over the kernels'
// shapes and with each Fault.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_UNITTESTS_GPU_TCGEN05PROTOCOLMODEL_H
#define NVFP4_UNITTESTS_GPU_TCGEN05PROTOCOLMODEL_H

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Descriptors.h"

#include <cstdint>
#include <string>

namespace nvfp4::gpu::tcgen05::model {

/// The NVFP4 kernel's scale atoms of one K tile and 128 rows: 4 atoms (one
/// per MMA) of 512 bytes.
constexpr int64_t kNvfp4ScaleAtomKTileBytes = 4 * 512;

/// An mbarrier object.
struct MBarrier {
  int64_t expected = 0, pending = 0, tx = 0, phase = 0;

  explicit MBarrier(int64_t count) : expected(count), pending(count) {}
  /// Returns false on an arrival the current phase does not expect.
  bool arrive() {
    if (pending == 0)
      return false;
    --pending;
    completeIfDone();
    return true;
  }
  void expectTx(int64_t bytes) { tx += bytes; }
  void completeTx(int64_t bytes) {
    tx -= bytes;
    completeIfDone();
  }
  bool tryWaitParity(int64_t parity) const { return phase % 2 != parity; }

private:
  void completeIfDone() {
    if (pending == 0 && tx == 0) {
      ++phase;
      pending = expected;
    }
  }
};

/// A way of breaking the protocol, to check that the model notices.
enum class Fault {
  None,
  /// The producer does not wait for empty[s].
  ProducerSkipsEmptyWait,
  /// The producer does not drain the last stages before exiting.
  NoProducerDrain,
  /// The MMA thread does not wait for accEmpty[a].
  MmaSkipsAccEmptyWait,
  /// Overlapping accumulators: the epilogue releases the accumulator
  /// before it read the columns the next tile's accumulator shares.
  EpilogueReleasesBeforeSharedReads,
  /// The producer waits on empty[s] with the consumer's parity.
  ProducerUsesConsumerParity,
  // CTA pairs.
  /// The commits signal the leader's barriers only (no multicast).
  CommitNotMulticast,
  /// The full barriers count one CTA's producer lanes.
  FullCountsOneCta,
  /// The accEmpty barriers count one CTA's epilogue threads.
  AccEmptyCountsOneCta,
  /// Each CTA's producer expects the TMA bytes of both CTAs.
  ExpectTxOfBothCtas,
  /// The peer's TMA loads complete on its own full barrier (the 1-CTA form
  /// of the load).
  PeerLoadsSignalOwnBarrier,
  /// The peer's epilogue threads arrive on their own accEmpty barrier.
  PeerEpilogueArrivesLocally,
  /// bar.sync instead of the cluster barrier after the initialization.
  NoSetupClusterBarrier,
  /// bar.sync instead of the cluster barrier before the exit.
  NoTeardownClusterBarrier,
  // CTA pairs with scale atoms.
  /// The peer's lanes arrive on the leader's full barrier without waiting
  /// for their scaleFull barrier.
  PeerArrivesBeforeScaleCopies,
  /// The peer's scale copies complete on the leader's full barrier, without
  /// expect_tx of their bytes.
  PeerScaleCopiesOnLeaderFull,
  /// The scaleFull barriers are not initialized.
  NoScaleFullInit,
  // Staged scales.
  /// The scale warp expands without waiting for its scaleStaged barrier.
  ScaleWarpSkipsStagedWait,
  /// The full barriers count the producer's lanes only, not the scale
  /// warp's.
  FullCountsProducerLanesOnly,
};

struct Config {
  int64_t kTiles, numTiles;
  /// The grid in clusters (the 1-CTA kernel: in CTAs).
  int64_t clusters;
  int64_t stages, accStages;
  /// The CTA-pair kernel instead of the 1-CTA kernel.
  bool ctaPair = false;
  /// The tile width whose TilePlan gives the barrier counts and TMA bytes.
  int64_t tileN = 128;
  Fault fault = Fault::None;
  /// The A / B scales are in the global atoms layout (bulk copies).
  bool lhsScaleAtoms = false, rhsScaleAtoms = false;
  /// The A / B scales are staged (16x16 blocks): a TMA load per CTA and
  /// step on its scaleStaged barrier, expanded by the scale warp's lanes,
  /// which arrive on the full barrier.
  ScaleStaging scaleStaging;
  /// Overlapping accumulators (TilePlan::overlapsAccumulators): two buffers
  /// (accStages = 2) sharing columns, one accFull / accEmpty pair; the
  /// epilogue reads the shared columns, arrives on accEmpty, then reads
  /// the rest.
  bool overlappingAccs = false;
  /// The accFull / accEmpty barriers (TilePlan::accBarrierStages).
  int64_t accBarrierStages() const { return overlappingAccs ? 1 : accStages; }
};

/// Runs every cluster of `c`; returns the first violation, or "" after
/// checking that each CTA of the cluster the schedule gives a tile stored
/// its rows of the tile exactly once.
std::string simulate(const Config &c, uint64_t seed);

} // namespace nvfp4::gpu::tcgen05::model

#endif // NVFP4_UNITTESTS_GPU_TCGEN05PROTOCOLMODEL_H
