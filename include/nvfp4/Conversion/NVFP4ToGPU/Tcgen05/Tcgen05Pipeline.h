//===- Tcgen05Pipeline.h - tcgen05 kernel schedule and barriers -*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The schedule of the warp-specialized tcgen05 matmul kernel: which output
// tiles a CTA computes (persistent static scheduling), which shared-memory
// stage and tensor-memory accumulator buffer each step uses, and the phase
// parity each role waits for on the mbarriers between them.
//
// The producer warp, the MMA thread and the epilogue warps evaluate these
// formulas independently (no counters are exchanged), so they must agree on
// every step; the lowering (Tcgen05Matmul.cpp) instantiates the templates
// with values that emit IR, and the unit test (Tcgen05PipelineTest.cpp)
// instantiates them with integers and simulates the three roles on a model
// of the mbarriers.
//
// Barrier protocol (docs/tcgen05.md, "Pipeline"):
//
//   full[s]      producer -> MMA: expect_tx(A + B bytes), the two TMA loads,
//                and one arrival per producer lane after its scale stores;
//   empty[s]     MMA -> producer: tcgen05.commit after the stage's MMAs;
//   accFull[a]   MMA -> epilogue: tcgen05.commit after a tile's last MMAs;
//   accEmpty[a]  epilogue -> MMA: one arrival per epilogue thread after its
//                last tcgen05.ld of the buffer.
//
// Step `it` of a role uses slot `it % slots`; a consumer waits for the
// completion of fill number `it / slots` of that slot (parity
// `(it / slots) % 2`), a producer for the release of the slot's previous
// use (parity `(it / slots + 1) % 2`, which a fresh mbarrier reports
// complete: its "preceding phase" has parity 1).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05PIPELINE_H
#define NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05PIPELINE_H

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Descriptors.h"

#include <cstdint>

namespace nvfp4::gpu::tcgen05 {

/// Arrivals per phase of each mbarrier (besides the transaction bytes of the
/// full barriers).
inline constexpr int64_t kFullBarrierArrivals = 32;   // the producer's lanes
inline constexpr int64_t kEmptyBarrierArrivals = 1;   // tcgen05.commit
inline constexpr int64_t kAccFullBarrierArrivals = 1; // tcgen05.commit
inline constexpr int64_t kAccEmptyBarrierArrivals = kEpilogueThreads;
/// The pair's peer's scaleFull barriers: its elected producer lane's
/// mbarrier.arrive.expect_tx, plus the bytes of its scale-atom bulk copies.
inline constexpr int64_t kScaleFullBarrierArrivals = 1;
/// The scaleStaged barriers: the producer's elected lane's
/// mbarrier.arrive.expect_tx, plus the bytes of its staged-scale TMA loads.
inline constexpr int64_t kScaleStagedBarrierArrivals = 1;

//===----------------------------------------------------------------------===//
// Persistent tile schedule
//===----------------------------------------------------------------------===//

/// Output tile `tile` of a [batch] x M x N result with `nTiles` tiles along
/// N and `mTiles` along M: N varies fastest, so that the CTAs of one wave
/// share A rows.
template <typename Idx> struct TileCoord { Idx n, m, batch; };
template <typename Idx>
TileCoord<Idx> tileCoord(Idx tile, int64_t nTiles, int64_t mTiles) {
  Idx rest = tile / nTiles;
  return {tile % nTiles, rest % mTiles, rest / mTiles};
}

/// CTA `cta` of a grid of `grid` CTAs computes the tiles cta, cta + grid,
/// cta + 2 grid, ... below `numTiles`: this many of them.
template <typename Idx> Idx tilesOfCta(Idx cta, Idx grid, int64_t numTiles) {
  return (grid + (numTiles - 1) - cta) / grid;
}
/// The tile of local index `local` (0, 1, ...) of CTA `cta`.
template <typename Idx> Idx tileOfCta(Idx cta, Idx grid, Idx local) {
  return cta + local * grid;
}

//===----------------------------------------------------------------------===//
// CTA pairs (cta_group::2)
//===----------------------------------------------------------------------===//

/// A CTA pair is a cluster of kPairCtas CTAs; the CTA of rank 0
/// (%cluster_ctarank, the even CTA of the pair) is the leader: its elected
/// MMA thread issues every tcgen05.cp / tcgen05.mma / tcgen05.commit of the
/// pair. The tiles are scheduled per cluster (tilesOfCta / tileOfCta with
/// the cluster index and the cluster count), so both CTAs of a pair walk the
/// same tiles.
inline constexpr int64_t kPairLeaderRank = 0;
/// tcgen05.commit.multicast::cluster signals the mbarrier at the same
/// offset in the CTAs of this mask: both CTAs of the pair.
inline constexpr uint16_t kPairMulticastMask = 0b11;

//===----------------------------------------------------------------------===//
// Slots and phases
//===----------------------------------------------------------------------===//

/// The K-tile step of the producer and the MMA thread: K tile `kTile` of the
/// CTA's local tile `local`. Consecutive across tiles, so that the stages
/// rotate through tile boundaries. `kTiles` is a constant, or for a
/// run-time K an `Idx` itself.
template <typename Idx, typename Count>
Idx kStep(Idx local, Idx kTile, Count kTiles) {
  return local * kTiles + kTile;
}

/// The slot (shared-memory stage or accumulator buffer) of step `step`.
template <typename Idx> Idx slotOf(Idx step, int64_t slots) {
  return step % slots;
}

/// The parity a consumer waits for at step `step`: the completion of the
/// slot's fill number `step / slots` (phase `step / slots`).
template <typename Idx> Idx consumerParity(Idx step, int64_t slots) {
  return step / slots % 2;
}

/// The parity a producer waits for before refilling the slot at step
/// `step`: the release of the fill at step `step - slots`, i.e. phase
/// `step / slots - 1`; for the first `slots` steps, the phase before phase
/// 0, which try_wait.parity reports complete on a fresh mbarrier.
template <typename Idx> Idx producerParity(Idx step, int64_t slots) {
  return (step / slots + 1) % 2;
}

/// The pipeline counters are 32-bit: every CTA's K-tile steps, plus the
/// `stages` steps of the producer's final drain, must stay below 2^31.
/// (`numTiles * kTiles` bounds the steps of the CTA with the most tiles.)
constexpr bool pipelineStepsFit32Bits(int64_t numTiles, int64_t kTiles,
                                      int64_t stages) {
  constexpr int64_t kLimit = (int64_t(1) << 31) - 1;
  return numTiles > 0 && kTiles > 0 && numTiles <= kLimit / kTiles &&
         numTiles * kTiles <= kLimit - stages;
}

} // namespace nvfp4::gpu::tcgen05

#endif // NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05PIPELINE_H
