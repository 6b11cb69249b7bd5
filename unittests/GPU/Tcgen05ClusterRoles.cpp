//===- Tcgen05ClusterRoles.cpp - tcgen05 protocol model: roles ------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The roles of Tcgen05ClusterModel.h: the actions and mbarrier waits of the
// producer lanes, the MMA thread and the epilogue threads, and the
// asynchronous TMA loads, bulk copies, MMAs, commits and remote operations,
// with the checks on the stages and accumulators they write and read.
//
//===----------------------------------------------------------------------===//

#include "Tcgen05ClusterModel.h"

#include <sstream>

using namespace nvfp4::gpu::tcgen05::model::detail;

//===----------------------------------------------------------------------===//
// Stages
//===----------------------------------------------------------------------===//

void ClusterModel::checkStageWritable(int64_t rank, int64_t it, int64_t stage,
                                      const char *who) {
  int64_t previous = it - c.stages;
  if (ctas[rank].lastExecutedStep[stage] != (previous < 0 ? -1 : previous) ||
      pendingReads.count(stage)) {
    std::ostringstream os;
    os << who << " of cta " << rank << " writes stage " << stage << " for step "
       << it << " before the MMAs of step " << previous << " executed";
    fail(os.str());
  }
}

bool ClusterModel::stagesHoldStep(int64_t it) const {
  auto count = [](const std::map<int64_t, int64_t> &m, int64_t key) {
    auto found = m.find(key);
    return found == m.end() ? int64_t(0) : found->second;
  };
  // The scale stores of the producer's lanes and of the scale warp's.
  const int64_t writes = (producerStoresScales() ? kFullBarrierArrivals : 0) +
                         (c.scaleStaging.any() ? kFullBarrierArrivals : 0);
  const int64_t staged = c.scaleStaging.any() ? 1 : 0;
  for (const Cta &cta : ctas) {
    if (count(cta.tmaLanded, it) != 2 || count(cta.scaleWrites, it) != writes ||
        count(cta.scaleCopies, it) != scaleCopiesPerStep() ||
        count(cta.stagedLanded, it) != staged ||
        count(cta.tmaLanded, it + c.stages) != 0 ||
        count(cta.scaleWrites, it + c.stages) != 0 ||
        count(cta.scaleCopies, it + c.stages) != 0 ||
        count(cta.stagedLanded, it + c.stages) != 0)
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Roles
//===----------------------------------------------------------------------===//

std::optional<ClusterModel::BarrierRef>
ClusterModel::roleWait(const ThreadRef &t) const {
  switch (t.role) {
  case Role::ProducerLane:
    return laneWait(t.cta, ctas[t.cta].lanes[t.id]);
  case Role::MmaIssuer:
    return mmaWait();
  case Role::EpilogueThread:
    return epilogueWait(t.cta, ctas[t.cta].epilogue[t.id]);
  }
  return std::nullopt;
}

std::optional<ClusterModel::BarrierRef>
ClusterModel::waitUnlessComplete(const BarrierRef &barrier,
                                 int64_t parity) const {
  if (ctas[barrier.cta].barriers[barrier.array][barrier.index].tryWaitParity(
          parity))
    return std::nullopt;
  return barrier;
}

void ClusterModel::roleAction(const ThreadRef &t) {
  switch (t.role) {
  case Role::ProducerLane:
    return laneAction(t);
  case Role::MmaIssuer:
    return mmaAction();
  case Role::EpilogueThread:
    return epilogueAction(t);
  }
}

void ClusterModel::laneAction(const ThreadRef &t) {
  Lane &l = ctas[t.cta].lanes[t.id];
  int64_t it = step(l.local, l.kt), s = stageOf(it);
  // The full barrier that counts the cluster's loads and lanes.
  BarrierRef full{leader, Full, s};
  BarrierRef staged{t.cta, ScaleStaged, s};
  switch (l.pc) {
  case Lane::WaitEmpty:
    l.pc = t.id == kElectedLane ? Lane::Issue : Lane::WriteScales;
    return;
  case Lane::Issue: {
    // This CTA's bytes first (with its scale copies', unless the peer of a
    // pair counts them on its scaleFull[s]), then its A and B loads (boxes
    // of 128 and bRowsPerCta rows of one K tile) and scale copies.
    const bool relay = relayScales && t.cta != leader;
    BarrierRef copyBarrier = full;
    if (relay && c.fault != Fault::PeerScaleCopiesOnLeaderFull) {
      copyBarrier = {t.cta, ScaleFull, s};
      barrierOp(t, copyBarrier, BarrierOp::ExpectTx, scaleCopyBytes,
                "an arrive.expect_tx");
      barrierOp(t, copyBarrier, BarrierOp::Arrive, 0, "an arrive.expect_tx");
    }
    barrierOp(t, full, BarrierOp::ExpectTx,
              (c.fault == Fault::ExpectTxOfBothCtas ? plan.txBytes
                                                    : plan.txBytesPerCta) +
                  (relay ? 0 : scaleCopyBytes),
              "an expect_tx");
    BarrierRef loadBarrier = full;
    if (c.fault == Fault::PeerLoadsSignalOwnBarrier)
      loadBarrier.cta = t.cta;
    tmaInFlight.push_back(
        {t.cta, it, kTileM * kTileRowBytes, loadBarrier, false});
    tmaInFlight.push_back(
        {t.cta, it, plan.bRowsPerCta * kTileRowBytes, loadBarrier, false});
    for (int64_t i = 0; i < scaleCopiesPerStep(); ++i)
      tmaInFlight.push_back(
          {t.cta, it, plan.scaleAtomKTileBytes(), copyBarrier, true});
    // Staged scales: this CTA's own barrier, a CTA-local TMA load.
    if (c.scaleStaging.any()) {
      barrierOp(t, staged, BarrierOp::ExpectTx, plan.stagedScaleBytes,
                "an arrive.expect_tx");
      barrierOp(t, staged, BarrierOp::Arrive, 0, "an arrive.expect_tx");
      tmaInFlight.push_back(
          {t.cta, it, plan.stagedScaleBytes, staged, false, true});
    }
    l.pc = Lane::WriteScales;
    return;
  }
  case Lane::WaitStaged:
    l.pc = Lane::Expand;
    return;
  case Lane::Expand:
    // The staged bytes of this step must have landed (they are read and
    // overwritten in place).
    if (ctas[t.cta].stagedLanded[it] != 1)
      fail("the scale warp of cta " + std::to_string(t.cta) +
           " expanded the staged scales of step " + std::to_string(it) +
           " before they landed");
    checkStageWritable(t.cta, it, s, "a scale expansion");
    ++ctas[t.cta].scaleWrites[it];
    l.pc = Lane::Arrive;
    return;
  case Lane::WriteScales:
    if (producerStoresScales()) {
      checkStageWritable(t.cta, it, s, "a scale store");
      ++ctas[t.cta].scaleWrites[it];
    }
    l.pc = Lane::WaitScaleCopies;
    return;
  case Lane::WaitScaleCopies:
    l.pc = Lane::Arrive;
    return;
  case Lane::Arrive:
    barrierOp(t, full, BarrierOp::Arrive, 0, "a producer lane on full");
    if (++l.kt == c.kTiles) {
      l.kt = 0;
      ++l.local;
    }
    if (isScaleWarpLane(t.id)) {
      // The scale warp has nothing in flight to drain.
      if (l.local < localTiles)
        l.pc = Lane::WaitStaged;
      else
        l.part = Part::Teardown;
      return;
    }
    if (l.local < localTiles)
      l.pc = Lane::WaitEmpty;
    else if (c.fault == Fault::NoProducerDrain)
      l.part = Part::Teardown;
    else
      l.pc = Lane::Drain;
    return;
  case Lane::Drain:
    if (++l.drain == c.stages)
      l.part = Part::Teardown;
    return;
  }
}

std::optional<ClusterModel::BarrierRef>
ClusterModel::laneWait(int64_t rank, const Lane &l) const {
  if (l.pc == Lane::WaitEmpty) {
    if (c.fault == Fault::ProducerSkipsEmptyWait)
      return std::nullopt;
    int64_t it = step(l.local, l.kt);
    int64_t parity = c.fault == Fault::ProducerUsesConsumerParity
                         ? consumerParity<int64_t>(it, c.stages)
                         : producerParity<int64_t>(it, c.stages);
    return waitUnlessComplete({rank, Empty, stageOf(it)}, parity);
  }
  if (l.pc == Lane::WaitStaged) {
    if (c.fault == Fault::ScaleWarpSkipsStagedWait)
      return std::nullopt;
    int64_t it = step(l.local, l.kt);
    return waitUnlessComplete({rank, ScaleStaged, stageOf(it)},
                              consumerParity<int64_t>(it, c.stages));
  }
  if (l.pc == Lane::WaitScaleCopies) {
    // The relay: the peer's lanes wait for their own scale copies.
    if (!relayScales || rank == leader ||
        c.fault == Fault::PeerArrivesBeforeScaleCopies)
      return std::nullopt;
    int64_t it = step(l.local, l.kt);
    return waitUnlessComplete({rank, ScaleFull, stageOf(it)},
                              consumerParity<int64_t>(it, c.stages));
  }
  if (l.pc == Lane::Drain) {
    int64_t it = localTiles * c.kTiles + l.drain;
    return waitUnlessComplete({rank, Empty, stageOf(it)},
                              producerParity<int64_t>(it, c.stages));
  }
  return std::nullopt;
}

void ClusterModel::commit(BarrierArray array, int64_t index) {
  uint16_t mask = uint16_t(1) << leader;
  if (c.ctaPair && c.fault != Fault::CommitNotMulticast)
    mask = kPairMulticastMask;
  for (int64_t rank = 0; rank < 16; ++rank) {
    if (!(mask >> rank & 1))
      continue;
    if (rank >= numCtas) {
      fail("a commit is multicast to a CTA outside the cluster");
      return;
    }
    commits.push_back({{rank, array, index}, issuedMmas});
  }
}

void ClusterModel::mmaAction() {
  int64_t a = accOf(mma.local);
  switch (mma.pc) {
  case MmaThread::WaitAccEmpty:
    mma.pc = MmaThread::WaitFull;
    return;
  case MmaThread::WaitFull:
    if (!stagesHoldStep(step(mma.local, mma.kt)))
      fail("the MMA thread passed full[s] before the stages were complete");
    mma.pc = MmaThread::Issue;
    return;
  case MmaThread::Issue: {
    int64_t it = step(mma.local, mma.kt), s = stageOf(it);
    mmaQueue.push_back({it, a, mma.local, mma.kt});
    ++pendingReads[s];
    ++issuedMmas;
    commit(Empty, s);
    if (++mma.kt == c.kTiles) {
      commit(AccFull, accBarrierOf(mma.local));
      mma.kt = 0;
      ++mma.local;
      if (mma.local == localTiles)
        mma.part = Part::Teardown;
      else
        mma.pc = MmaThread::WaitAccEmpty;
    } else {
      mma.pc = MmaThread::WaitFull;
    }
    return;
  }
  }
}

std::optional<ClusterModel::BarrierRef> ClusterModel::mmaWait() const {
  if (mma.pc == MmaThread::WaitAccEmpty) {
    if (c.fault == Fault::MmaSkipsAccEmptyWait)
      return std::nullopt;
    return waitUnlessComplete(
        {leader, AccEmpty, accBarrierOf(mma.local)},
        producerParity<int64_t>(mma.local, c.accBarrierStages()));
  }
  if (mma.pc == MmaThread::WaitFull) {
    int64_t it = step(mma.local, mma.kt);
    return waitUnlessComplete({leader, Full, stageOf(it)},
                              consumerParity<int64_t>(it, c.stages));
  }
  return std::nullopt;
}

void ClusterModel::finishTile(EpilogueThread &e) {
  if (++e.local == localTiles)
    e.part = Part::Teardown;
  else
    e.pc = EpilogueThread::WaitAccFull;
}

void ClusterModel::epilogueAction(const ThreadRef &t) {
  Cta &cta = ctas[t.cta];
  EpilogueThread &e = cta.epilogue[t.id];
  int64_t a = accOf(e.local);
  switch (e.pc) {
  case EpilogueThread::WaitAccFull:
    e.pc = !c.overlappingAccs ? EpilogueThread::Read
           : c.fault == Fault::EpilogueReleasesBeforeSharedReads
               ? EpilogueThread::Arrive
               : EpilogueThread::ReadShared;
    return;
  case EpilogueThread::ReadShared:
  case EpilogueThread::Read: {
    Accumulator &buffer = cta.acc[a];
    if (buffer.local != e.local || buffer.kTilesDone != c.kTiles)
      fail("the epilogue of cta " + std::to_string(t.cta) +
           " read an incomplete accumulator");
    if (e.pc == EpilogueThread::ReadShared) {
      ++buffer.sharedReads;
      e.pc = c.fault == Fault::EpilogueReleasesBeforeSharedReads
                 ? EpilogueThread::Read
                 : EpilogueThread::Arrive;
      return;
    }
    ++buffer.reads;
    if (t.id == 0)
      cta.stored.push_back(tileOf(e.local));
    if (c.overlappingAccs)
      finishTile(e);
    else
      e.pc = EpilogueThread::Arrive;
    return;
  }
  case EpilogueThread::Arrive: {
    BarrierRef accEmpty{leader, AccEmpty, accBarrierOf(e.local)};
    if (c.fault == Fault::PeerEpilogueArrivesLocally)
      accEmpty.cta = t.cta;
    barrierOp(t, accEmpty, BarrierOp::Arrive, 0,
              "an epilogue thread on accEmpty");
    // Overlapping accumulators release after the shared columns and read
    // the rest afterwards (the faulty variant reads all of it after).
    if (c.overlappingAccs) {
      e.pc = c.fault == Fault::EpilogueReleasesBeforeSharedReads
                 ? EpilogueThread::ReadShared
                 : EpilogueThread::Read;
      return;
    }
    finishTile(e);
    return;
  }
  }
}

std::optional<ClusterModel::BarrierRef>
ClusterModel::epilogueWait(int64_t rank, const EpilogueThread &e) const {
  if (e.pc != EpilogueThread::WaitAccFull)
    return std::nullopt;
  return waitUnlessComplete(
      {rank, AccFull, accBarrierOf(e.local)},
      consumerParity<int64_t>(e.local, c.accBarrierStages()));
}

//===----------------------------------------------------------------------===//
// Asynchronous units
//===----------------------------------------------------------------------===//

void ClusterModel::landTma(size_t index) {
  TmaLoad load = tmaInFlight[index];
  tmaInFlight.erase(tmaInFlight.begin() + index);
  checkStageWritable(load.cta, load.step, stageOf(load.step),
                     load.scaleCopy ? "a scale copy" : "a TMA load");
  if (load.staged) {
    ++ctas[load.cta].stagedLanded[load.step];
  } else if (load.scaleCopy) {
    // cp.async.bulk (not the .cta_group::2 tensor form) completes on an
    // mbarrier in the CTA of its destination.
    if (load.barrier.cta != load.cta)
      fail("a scale copy completes on an mbarrier outside its destination "
           "CTA");
    ++ctas[load.cta].scaleCopies[load.step];
  } else {
    ++ctas[load.cta].tmaLanded[load.step];
  }
  applyBarrierOp(load.barrier, BarrierOp::CompleteTx, load.bytes,
                 "a TMA load's complete_tx");
}

void ClusterModel::executeMma() {
  MmaOp op = mmaQueue.front();
  mmaQueue.pop_front();
  int64_t s = stageOf(op.step);
  if (!stagesHoldStep(op.step))
    fail("an MMA read a stage that does not hold its step");
  for (int64_t rank = 0; rank < numCtas; ++rank) {
    Cta &cta = ctas[rank];
    if (cta.exited)
      fail("an MMA accesses cta " + std::to_string(rank) + " after it exited");
    Accumulator &buffer = cta.acc[op.accStage];
    if (op.kt == 0) {
      // Overwrites the accumulator: every epilogue thread of the CTA must
      // have read the previous tile in it, and, with overlapping
      // accumulators, the columns the other buffer's tile shares with it.
      if (buffer.local >= 0 && buffer.reads != kEpilogueThreads)
        fail("an MMA overwrote an accumulator of cta " + std::to_string(rank) +
             " the epilogue had not read");
      const Accumulator &other = cta.acc[(op.accStage + 1) % c.accStages];
      if (c.overlappingAccs && other.local >= 0 &&
          other.sharedReads != kEpilogueThreads)
        fail("an MMA overwrote the shared columns of an accumulator of cta " +
             std::to_string(rank) + " the epilogue had not read");
      buffer = {op.local, 0, 0, 0};
    } else if (buffer.local != op.local || buffer.kTilesDone != op.kt) {
      fail("an MMA accumulated into the wrong tile");
    }
    ++buffer.kTilesDone;
    cta.lastExecutedStep[s] = op.step;
  }
  if (--pendingReads[s] == 0)
    pendingReads.erase(s);
  ++executedMmas;
}

void ClusterModel::fireCommit(size_t index) {
  Commit commit = commits[index];
  commits.erase(commits.begin() + index);
  applyBarrierOp(commit.barrier, BarrierOp::Arrive, 0, "a tcgen05.commit");
}

void ClusterModel::deliverRemoteOp(int64_t sender) {
  std::deque<RemoteOp> &ops = remoteOps[sender];
  RemoteOp op = ops.front();
  ops.pop_front();
  applyBarrierOp(op.barrier, op.op, op.bytes, "a remote mbarrier operation");
  if (ops.empty()) {
    sending[threadOf(sender).cta].erase(sender);
    wake(drainWaiters[sender]);
  }
}

void ClusterModel::exitCta(int64_t rank) {
  bool inFlight = !mmaQueue.empty();
  for (const TmaLoad &load : tmaInFlight)
    inFlight |= load.cta == rank || load.barrier.cta == rank;
  for (const Commit &commit : commits)
    inFlight |= commit.barrier.cta == rank;
  for (const KeySet &senders : sending)
    for (int64_t sender : senders)
      for (const RemoteOp &op : remoteOps[sender])
        inFlight |= op.barrier.cta == rank;
  if (inFlight)
    fail("asynchronous operations on cta " + std::to_string(rank) +
         " in flight when it exits");
  ctas[rank].exited = true;
  ++exitedCtas;
}
