//===- Tcgen05ProtocolModel.cpp - tcgen05 kernel protocol model -----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The cluster model of Tcgen05ProtocolModel.h: the roles of each CTA as
// threads stepping through the protocol in a seeded random order, the
// mbarriers, the asynchronous TMA loads, bulk copies, MMAs and commits.
//
//===----------------------------------------------------------------------===//

#include "Tcgen05ProtocolModel.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05Pipeline.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace nvfp4::gpu::tcgen05;
using namespace nvfp4::gpu::tcgen05::model;

namespace {

/// A set of thread keys (0 .. keys - 1) with constant-time insertion,
/// removal and access by position.
class KeySet {
public:
  explicit KeySet(int64_t keys = 0) : position(keys, -1) {}
  bool contains(int64_t key) const { return position[key] >= 0; }
  void insert(int64_t key) {
    if (contains(key))
      return;
    position[key] = items.size();
    items.push_back(key);
  }
  void erase(int64_t key) {
    if (!contains(key))
      return;
    int64_t moved = items.back();
    items[position[key]] = moved;
    position[moved] = position[key];
    items.pop_back();
    position[key] = -1;
  }
  size_t size() const { return items.size(); }
  bool empty() const { return items.empty(); }
  int64_t operator[](size_t i) const { return items[i]; }
  std::vector<int64_t>::const_iterator begin() const { return items.begin(); }
  std::vector<int64_t>::const_iterator end() const { return items.end(); }

private:
  std::vector<int64_t> items, position;
};

/// One cluster of the kernel, simulated to completion.
class ClusterModel {
public:
  ClusterModel(const Config &c, int64_t cluster, uint64_t seed)
      : c(c), plan(makeTilePlan(c.tileN, c.ctaPair)), cluster(cluster),
        numCtas(c.ctaPair ? kPairCtas : 1),
        leader(c.ctaPair ? kPairLeaderRank : 0), rng(seed),
        localTiles(tilesOfCta<int64_t>(cluster, c.clusters, c.numTiles)),
        scaleCopyBytes(plan.scaleCopyBytes(c.lhsScaleAtoms, c.rhsScaleAtoms)),
        relayScales(c.ctaPair && scaleCopyBytes != 0) {
    const int64_t fullArrivals = c.fault == Fault::FullCountsOneCta
                                     ? kFullBarrierArrivals
                                     : plan.fullBarrierArrivals;
    const int64_t accEmptyArrivals = c.fault == Fault::AccEmptyCountsOneCta
                                         ? kAccEmptyBarrierArrivals
                                         : plan.accEmptyBarrierArrivals;
    ctas.resize(numCtas);
    for (int64_t rank = 0; rank < numCtas; ++rank) {
      Cta &cta = ctas[rank];
      // Every CTA initializes the same barriers.
      cta.barriers[Full].assign(c.stages, MBarrier(fullArrivals));
      cta.barriers[Empty].assign(c.stages, MBarrier(kEmptyBarrierArrivals));
      cta.barriers[AccFull].assign(c.accStages,
                                   MBarrier(kAccFullBarrierArrivals));
      cta.barriers[AccEmpty].assign(c.accStages, MBarrier(accEmptyArrivals));
      cta.barriers[ScaleFull].assign(relayScales ? c.stages : 0,
                                     MBarrier(kScaleFullBarrierArrivals));
      cta.scaleFullInitialized = c.fault != Fault::NoScaleFullInit;
      for (int64_t array = 0; array < kBarrierArrays; ++array)
        cta.waiters[array].resize(cta.barriers[array].size());
      cta.lanes.resize(kFullBarrierArrivals);
      cta.epilogue.resize(kEpilogueThreads);
      cta.threads =
          kFullBarrierArrivals + kEpilogueThreads + (rank == leader ? 1 : 0);
      cta.lastExecutedStep.assign(c.stages, -1);
      cta.acc.resize(c.accStages);
    }
    std::uniform_real_distribution<double> logSpeed(-8, 8);
    for (auto &ctaSpeeds : speed)
      for (double &v : ctaSpeeds)
        v = std::exp(logSpeed(rng));

    const int64_t keys = numCtas * kThreadKeysPerCta;
    for (int64_t rank = 0; rank < numCtas; ++rank) {
      for (KeySet &ready : readyThreads[rank])
        ready = KeySet(keys);
      sending[rank] = KeySet(keys);
    }
    remoteOps.resize(keys);
    // Every thread starts before the setup barrier (the pair's peer has no
    // MMA thread).
    for (int64_t key = 0; key < keys; ++key) {
      ThreadRef t = threadOf(key);
      if (t.role != Role::MmaIssuer || t.cta == leader)
        schedule(key);
    }
  }

  /// Runs until every CTA exited; returns the first violation, or "".
  std::string run() {
    for (int64_t steps = 0; error.empty() && exitedCtas < numCtas; ++steps) {
      if (steps > 50'000'000) {
        fail("no termination");
        break;
      }
      if (!takeStep()) {
        fail("deadlock");
        break;
      }
    }
    return error;
  }

  /// The tiles the epilogue of CTA `rank` stored, in order.
  const std::vector<int64_t> &storedTiles(int64_t rank) const {
    return ctas[rank].stored;
  }

private:
  //===--------------------------------------------------------------------===//
  // Barriers and remote operations
  //===--------------------------------------------------------------------===//

  /// The mbarrier arrays of a CTA's shared memory.
  enum BarrierArray {
    Full,
    Empty,
    AccFull,
    AccEmpty,
    ScaleFull,
    kBarrierArrays
  };
  /// Mbarrier `index` of array `array` of CTA `cta`.
  struct BarrierRef {
    int64_t cta;
    BarrierArray array;
    int64_t index;
  };
  enum class BarrierOp { Arrive, ExpectTx, CompleteTx };
  /// An mbarrier operation on the peer CTA's barrier, travelling.
  struct RemoteOp {
    BarrierRef barrier;
    BarrierOp op;
    int64_t bytes;
  };

  /// Applies `op` to `ref` now.
  void applyBarrierOp(const BarrierRef &ref, BarrierOp op, int64_t bytes,
                      const char *who) {
    Cta &target = ctas[ref.cta];
    if (!target.initialized || target.exited) {
      std::ostringstream os;
      os << who << " reaches cta " << ref.cta << " "
         << (target.exited ? "after it exited"
                           : "before it initialized its mbarriers");
      fail(os.str());
      return;
    }
    if (ref.array == ScaleFull && !target.scaleFullInitialized) {
      fail(std::string(who) + " reaches an uninitialized scaleFull barrier");
      return;
    }
    MBarrier &barrier = target.barriers[ref.array][ref.index];
    const int64_t phase = barrier.phase;
    switch (op) {
    case BarrierOp::Arrive:
      if (!barrier.arrive())
        fail(std::string("unexpected arrival of ") + who);
      break;
    case BarrierOp::ExpectTx:
      barrier.expectTx(bytes);
      break;
    case BarrierOp::CompleteTx:
      barrier.completeTx(bytes);
      break;
    }
    // A completed phase flips the parity every waiter waits on.
    if (barrier.phase != phase)
      wake(target.waiters[ref.array][ref.index]);
  }

  //===--------------------------------------------------------------------===//
  // Threads
  //===--------------------------------------------------------------------===//

  /// Where a thread is in the kernel: before the setup barrier, waiting in
  /// it, in its role, before the teardown barrier, waiting in it, exited.
  enum class Part { Setup, WaitSetup, Role, Teardown, WaitTeardown, Exited };
  enum class Role { ProducerLane, MmaIssuer, EpilogueThread };
  struct ThreadRef {
    int64_t cta;
    Role role;
    int64_t id;
  };

  struct Lane {
    Part part = Part::Setup;
    enum {
      WaitEmpty,
      Issue,
      WriteScales,
      WaitScaleCopies,
      Arrive,
      Drain
    } pc = WaitEmpty;
    int64_t local = 0, kt = 0, drain = 0;
  };
  struct MmaThread {
    Part part = Part::Setup;
    enum { WaitAccEmpty, WaitFull, Issue } pc = WaitAccEmpty;
    int64_t local = 0, kt = 0;
  };
  struct EpilogueThread {
    Part part = Part::Setup;
    enum { WaitAccFull, Read, Arrive } pc = WaitAccFull;
    int64_t local = 0;
  };
  /// The elected producer lane, which issues the TMA loads (thread 0 of the
  /// CTA, which also initializes the mbarriers).
  static constexpr int64_t kElectedLane = 0;

  /// The accumulator buffer of a CTA: the tile it holds, the K tiles
  /// accumulated, the epilogue threads that read it.
  struct Accumulator {
    int64_t local = -1, kTilesDone = 0, reads = 0;
  };

  /// One CTA: its shared-memory barriers and stages, its tensor-memory
  /// accumulators, its threads.
  struct Cta {
    std::vector<MBarrier> barriers[kBarrierArrays];
    /// Per mbarrier, the threads parked on it; the threads parked on the
    /// setup and teardown barriers.
    std::vector<std::vector<int64_t>> waiters[kBarrierArrays];
    std::vector<int64_t> setupWaiters, teardownWaiters;
    bool initialized = false, exited = false, scaleFullInitialized = true;
    std::vector<Lane> lanes;
    std::vector<EpilogueThread> epilogue;
    /// Modelled threads, and how many arrived at the setup / teardown
    /// barrier and exited.
    int64_t threads = 0, setupArrivals = 0, teardownArrivals = 0,
            exitedThreads = 0;
    /// Per step: TMA loads landed in, scale stores and scale bulk copies
    /// to this CTA's stage.
    std::map<int64_t, int64_t> tmaLanded, scaleWrites, scaleCopies;
    /// Per stage: the step of the last MMA that read it.
    std::vector<int64_t> lastExecutedStep;
    std::vector<Accumulator> acc;
    std::vector<int64_t> stored;
  };

  int64_t step(int64_t local, int64_t kt) const {
    return kStep<int64_t>(local, kt, c.kTiles);
  }
  int64_t stageOf(int64_t s) const { return slotOf<int64_t>(s, c.stages); }
  int64_t accOf(int64_t local) const {
    return slotOf<int64_t>(local, c.accStages);
  }
  int64_t tileOf(int64_t local) const {
    return tileOfCta<int64_t>(cluster, c.clusters, local);
  }

  /// Threads are numbered per CTA: the producer lanes, the MMA thread, the
  /// epilogue threads.
  static constexpr int64_t kMmaThreadKey = kFullBarrierArrivals;
  static constexpr int64_t kThreadKeysPerCta =
      kFullBarrierArrivals + 1 + kEpilogueThreads;
  static int64_t keyOf(const ThreadRef &t) {
    int64_t first = t.role == Role::ProducerLane ? 0
                    : t.role == Role::MmaIssuer  ? kMmaThreadKey
                                                 : kMmaThreadKey + 1;
    return t.cta * kThreadKeysPerCta + first + t.id;
  }
  static ThreadRef threadOf(int64_t key) {
    int64_t cta = key / kThreadKeysPerCta, k = key % kThreadKeysPerCta;
    if (k < kMmaThreadKey)
      return {cta, Role::ProducerLane, k};
    if (k == kMmaThreadKey)
      return {cta, Role::MmaIssuer, 0};
    return {cta, Role::EpilogueThread, k - kMmaThreadKey - 1};
  }

  void fail(const std::string &what) {
    if (error.empty())
      error = what;
  }

  /// Thread `t` applies `op` to `ref`: at once on its own CTA's barrier;
  /// on the peer's, after its earlier remote operations.
  void barrierOp(const ThreadRef &t, const BarrierRef &ref, BarrierOp op,
                 int64_t bytes, const char *who) {
    if (ref.cta == t.cta) {
      applyBarrierOp(ref, op, bytes, who);
    } else {
      remoteOps[keyOf(t)].push_back({ref, op, bytes});
      sending[t.cta].insert(keyOf(t));
    }
  }

  /// Checks that step `it` may write stage `stage` of CTA `rank`: the MMAs
  /// of the previous fill (step it - stages) executed, and no issued MMA
  /// still reads it.
  void checkStageWritable(int64_t rank, int64_t it, int64_t stage,
                          const char *who) {
    int64_t previous = it - c.stages;
    if (ctas[rank].lastExecutedStep[stage] != (previous < 0 ? -1 : previous) ||
        pendingReads.count(stage)) {
      std::ostringstream os;
      os << who << " of cta " << rank << " writes stage " << stage
         << " for step " << it << " before the MMAs of step " << previous
         << " executed";
      fail(os.str());
    }
  }

  /// The scale bulk copies of one CTA per K tile: one per 128-row block.
  int64_t scaleCopiesPerStep() const {
    return (c.lhsScaleAtoms ? 1 : 0) + (c.rhsScaleAtoms ? plan.bScaleAtoms : 0);
  }

  /// Whether stage `stage` of every CTA holds exactly the data of step `it`.
  bool stagesHoldStep(int64_t it) const {
    auto count = [](const std::map<int64_t, int64_t> &m, int64_t key) {
      auto found = m.find(key);
      return found == m.end() ? int64_t(0) : found->second;
    };
    const int64_t writes =
        c.lhsScaleAtoms && c.rhsScaleAtoms ? int64_t(0) : kFullBarrierArrivals;
    for (const Cta &cta : ctas) {
      if (count(cta.tmaLanded, it) != 2 ||
          count(cta.scaleWrites, it) != writes ||
          count(cta.scaleCopies, it) != scaleCopiesPerStep() ||
          count(cta.tmaLanded, it + c.stages) != 0 ||
          count(cta.scaleWrites, it + c.stages) != 0 ||
          count(cta.scaleCopies, it + c.stages) != 0)
        return false;
    }
    return true;
  }

  /// Whether the setup (or teardown) barrier lets a thread of CTA `rank`
  /// through: the cluster barrier waits for the threads of every CTA,
  /// bar.sync for those of the CTA.
  bool barrierPassed(int64_t rank, bool setup) const {
    bool clusterWide =
        c.ctaPair && c.fault != (setup ? Fault::NoSetupClusterBarrier
                                       : Fault::NoTeardownClusterBarrier);
    auto arrived = [&](const Cta &cta) {
      return (setup ? cta.setupArrivals : cta.teardownArrivals) == cta.threads;
    };
    if (!clusterWide)
      return arrived(ctas[rank]);
    for (const Cta &cta : ctas)
      if (!arrived(cta))
        return false;
    return true;
  }

  Part &partOf(const ThreadRef &t) {
    switch (t.role) {
    case Role::ProducerLane:
      return ctas[t.cta].lanes[t.id].part;
    case Role::MmaIssuer:
      return mma.part;
    case Role::EpilogueThread:
      return ctas[t.cta].epilogue[t.id].part;
    }
    return mma.part;
  }

  /// Makes thread `key` ready, or parks it on what it waits for: an
  /// mbarrier phase, the setup or teardown barrier, or the delivery of its
  /// remote operations (barrier.cluster.arrive.release performs them
  /// first). A parked thread is examined again when that changes.
  void schedule(int64_t key) {
    ThreadRef t = threadOf(key);
    Cta &cta = ctas[t.cta];
    std::vector<int64_t> *waiters = nullptr;
    switch (partOf(t)) {
    case Part::Setup:
      break;
    case Part::WaitSetup:
      if (!barrierPassed(t.cta, /*setup=*/true))
        waiters = &cta.setupWaiters;
      break;
    case Part::Role:
      if (std::optional<BarrierRef> on = roleWait(t))
        waiters = &ctas[on->cta].waiters[on->array][on->index];
      break;
    case Part::Teardown:
      if (!remoteOps[key].empty())
        waiters = &drainWaiters[key];
      break;
    case Part::WaitTeardown:
      if (!barrierPassed(t.cta, /*setup=*/false))
        waiters = &cta.teardownWaiters;
      break;
    case Part::Exited:
      setReady(key, false);
      return;
    }
    setReady(key, !waiters);
    if (waiters)
      waiters->push_back(key);
  }

  /// Examines the threads parked on `waiters` again.
  void wake(std::vector<int64_t> &waiters) {
    std::vector<int64_t> woken;
    woken.swap(waiters);
    for (int64_t key : woken)
      schedule(key);
  }

  /// Wakes the threads parked on the setup (or teardown) barrier of the
  /// CTAs it now lets through.
  void wakeBarrierWaiters(bool setup) {
    for (int64_t rank = 0; rank < numCtas; ++rank)
      if (barrierPassed(rank, setup))
        wake(setup ? ctas[rank].setupWaiters : ctas[rank].teardownWaiters);
  }

  void threadAction(const ThreadRef &t) {
    Part &part = partOf(t);
    Cta &cta = ctas[t.cta];
    switch (part) {
    case Part::Setup:
      // Thread 0 initializes the CTA's mbarriers before the barrier.
      if (t.role == Role::ProducerLane && t.id == kElectedLane)
        cta.initialized = true;
      ++cta.setupArrivals;
      part = Part::WaitSetup;
      wakeBarrierWaiters(/*setup=*/true);
      return;
    case Part::WaitSetup:
      part = Part::Role;
      return;
    case Part::Role:
      return roleAction(t);
    case Part::Teardown:
      ++cta.teardownArrivals;
      part = Part::WaitTeardown;
      wakeBarrierWaiters(/*setup=*/false);
      return;
    case Part::WaitTeardown:
      part = Part::Exited;
      if (++cta.exitedThreads == cta.threads)
        exitCta(t.cta);
      return;
    case Part::Exited:
      return;
    }
  }

  /// The mbarrier thread `t` waits on in its role, if it cannot proceed.
  std::optional<BarrierRef> roleWait(const ThreadRef &t) const {
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

  /// `barrier` if try_wait.parity(`parity`) fails on it.
  std::optional<BarrierRef> waitUnlessComplete(const BarrierRef &barrier,
                                               int64_t parity) const {
    if (ctas[barrier.cta].barriers[barrier.array][barrier.index].tryWaitParity(
            parity))
      return std::nullopt;
    return barrier;
  }

  void roleAction(const ThreadRef &t) {
    switch (t.role) {
    case Role::ProducerLane:
      return laneAction(t);
    case Role::MmaIssuer:
      return mmaAction();
    case Role::EpilogueThread:
      return epilogueAction(t);
    }
  }

  void laneAction(const ThreadRef &t) {
    Lane &l = ctas[t.cta].lanes[t.id];
    int64_t it = step(l.local, l.kt), s = stageOf(it);
    // The full barrier that counts the cluster's loads and lanes.
    BarrierRef full{leader, Full, s};
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
      l.pc = Lane::WriteScales;
      return;
    }
    case Lane::WriteScales:
      if (!c.lhsScaleAtoms || !c.rhsScaleAtoms) {
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

  /// A lane of CTA `rank` waits on its CTA's empty barrier.
  std::optional<BarrierRef> laneWait(int64_t rank, const Lane &l) const {
    if (l.pc == Lane::WaitEmpty) {
      if (c.fault == Fault::ProducerSkipsEmptyWait)
        return std::nullopt;
      int64_t it = step(l.local, l.kt);
      int64_t parity = c.fault == Fault::ProducerUsesConsumerParity
                           ? consumerParity<int64_t>(it, c.stages)
                           : producerParity<int64_t>(it, c.stages);
      return waitUnlessComplete({rank, Empty, stageOf(it)}, parity);
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

  /// The MMA thread's tcgen05.commit to barrier `index` of `array`: one
  /// arrival on that barrier of each CTA of the multicast mask (the 1-CTA
  /// kernel: its own), once the MMAs issued so far executed.
  void commit(BarrierArray array, int64_t index) {
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

  void mmaAction() {
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
        commit(AccFull, a);
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

  /// The MMA thread waits on the leader's accEmpty and full barriers.
  std::optional<BarrierRef> mmaWait() const {
    if (mma.pc == MmaThread::WaitAccEmpty) {
      if (c.fault == Fault::MmaSkipsAccEmptyWait)
        return std::nullopt;
      return waitUnlessComplete(
          {leader, AccEmpty, accOf(mma.local)},
          producerParity<int64_t>(mma.local, c.accStages));
    }
    if (mma.pc == MmaThread::WaitFull) {
      int64_t it = step(mma.local, mma.kt);
      return waitUnlessComplete({leader, Full, stageOf(it)},
                                consumerParity<int64_t>(it, c.stages));
    }
    return std::nullopt;
  }

  void epilogueAction(const ThreadRef &t) {
    Cta &cta = ctas[t.cta];
    EpilogueThread &e = cta.epilogue[t.id];
    int64_t a = accOf(e.local);
    switch (e.pc) {
    case EpilogueThread::WaitAccFull:
      e.pc = EpilogueThread::Read;
      return;
    case EpilogueThread::Read: {
      Accumulator &buffer = cta.acc[a];
      if (buffer.local != e.local || buffer.kTilesDone != c.kTiles)
        fail("the epilogue of cta " + std::to_string(t.cta) +
             " read an incomplete accumulator");
      ++buffer.reads;
      if (t.id == 0)
        cta.stored.push_back(tileOf(e.local));
      e.pc = EpilogueThread::Arrive;
      return;
    }
    case EpilogueThread::Arrive: {
      BarrierRef accEmpty{leader, AccEmpty, a};
      if (c.fault == Fault::PeerEpilogueArrivesLocally)
        accEmpty.cta = t.cta;
      barrierOp(t, accEmpty, BarrierOp::Arrive, 0,
                "an epilogue thread on accEmpty");
      if (++e.local == localTiles)
        e.part = Part::Teardown;
      else
        e.pc = EpilogueThread::WaitAccFull;
      return;
    }
    }
  }

  /// An epilogue thread of CTA `rank` waits on its CTA's accFull barrier.
  std::optional<BarrierRef> epilogueWait(int64_t rank,
                                         const EpilogueThread &e) const {
    if (e.pc != EpilogueThread::WaitAccFull)
      return std::nullopt;
    return waitUnlessComplete({rank, AccFull, accOf(e.local)},
                              consumerParity<int64_t>(e.local, c.accStages));
  }

  //===--------------------------------------------------------------------===//
  // Asynchronous units
  //===--------------------------------------------------------------------===//

  /// A TMA load (or, `scaleCopy`, a bulk copy of scale atoms) into the
  /// stage of CTA `cta`, completing its bytes on `barrier`.
  struct TmaLoad {
    int64_t cta, step, bytes;
    BarrierRef barrier;
    bool scaleCopy;
  };
  /// The scale copies and MMAs of one K tile.
  struct MmaOp {
    int64_t step, accStage, local, kt;
  };
  /// One arrival of a tcgen05.commit: on `barrier`, once the first `mmas`
  /// MMA ops executed.
  struct Commit {
    BarrierRef barrier;
    int64_t mmas;
  };

  void landTma(size_t index) {
    TmaLoad load = tmaInFlight[index];
    tmaInFlight.erase(tmaInFlight.begin() + index);
    checkStageWritable(load.cta, load.step, stageOf(load.step),
                       load.scaleCopy ? "a scale copy" : "a TMA load");
    if (load.scaleCopy) {
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

  void executeMma() {
    MmaOp op = mmaQueue.front();
    mmaQueue.pop_front();
    int64_t s = stageOf(op.step);
    if (!stagesHoldStep(op.step))
      fail("an MMA read a stage that does not hold its step");
    for (int64_t rank = 0; rank < numCtas; ++rank) {
      Cta &cta = ctas[rank];
      if (cta.exited)
        fail("an MMA accesses cta " + std::to_string(rank) +
             " after it exited");
      Accumulator &buffer = cta.acc[op.accStage];
      if (op.kt == 0) {
        // Overwrites the accumulator: every epilogue thread of the CTA must
        // have read the previous tile in it.
        if (buffer.local >= 0 && buffer.reads != kEpilogueThreads)
          fail("an MMA overwrote an accumulator of cta " +
               std::to_string(rank) + " the epilogue had not read");
        buffer = {op.local, 0, 0};
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

  void fireCommit(size_t index) {
    Commit commit = commits[index];
    commits.erase(commits.begin() + index);
    applyBarrierOp(commit.barrier, BarrierOp::Arrive, 0, "a tcgen05.commit");
  }

  void deliverRemoteOp(int64_t sender) {
    std::deque<RemoteOp> &ops = remoteOps[sender];
    RemoteOp op = ops.front();
    ops.pop_front();
    applyBarrierOp(op.barrier, op.op, op.bytes, "a remote mbarrier operation");
    if (ops.empty()) {
      sending[threadOf(sender).cta].erase(sender);
      wake(drainWaiters[sender]);
    }
  }

  /// CTA `rank` exits: nothing may still land in its shared memory, arrive
  /// on its barriers or access its tensor memory.
  void exitCta(int64_t rank) {
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

  //===--------------------------------------------------------------------===//
  // Scheduler
  //===--------------------------------------------------------------------===//

  /// Kinds of actors; each run draws a speed per CTA and kind over a wide
  /// range, so that some runs starve one kind or CTA and race another.
  enum Actor {
    ProducerLaneActor,
    MmaIssueActor,
    EpilogueActor,
    TmaUnit,
    MmaUnit,
    CommitUnit,
    RemoteUnit,
    kActors
  };
  static Actor actorOf(Role role) {
    switch (role) {
    case Role::ProducerLane:
      return ProducerLaneActor;
    case Role::MmaIssuer:
      return MmaIssueActor;
    case Role::EpilogueThread:
      return EpilogueActor;
    }
    return kActors;
  }

  /// A pending operation of an asynchronous unit and how likely the
  /// scheduler picks it.
  struct AsyncAction {
    double weight;
    Actor unit;
    int64_t index;
  };

  KeySet &readyOf(int64_t key) {
    ThreadRef t = threadOf(key);
    return readyThreads[t.cta][static_cast<int64_t>(t.role)];
  }
  /// Thread `key` enters or leaves the ready threads of its CTA and role.
  void setReady(int64_t key, bool ready) {
    if (ready)
      readyOf(key).insert(key);
    else
      readyOf(key).erase(key);
  }

  /// Picks one of the ready threads and the asynchronous units' pending
  /// operations, each with the speed of its kind and CTA as weight, and
  /// performs it; returns false when nothing can proceed.
  bool takeStep() {
    asyncActions.clear();
    for (size_t i = 0; i < tmaInFlight.size(); ++i)
      asyncActions.push_back(
          {speed[tmaInFlight[i].cta][TmaUnit], TmaUnit, int64_t(i)});
    if (!mmaQueue.empty())
      asyncActions.push_back({speed[leader][MmaUnit], MmaUnit, 0});
    for (size_t i = 0; i < commits.size(); ++i)
      if (commits[i].mmas <= executedMmas)
        asyncActions.push_back({speed[commits[i].barrier.cta][CommitUnit],
                                CommitUnit, int64_t(i)});
    // The remote operations of one CTA's threads: one group, each thread's
    // first operation equally likely.
    for (int64_t rank = 0; rank < numCtas; ++rank)
      if (!sending[rank].empty())
        asyncActions.push_back(
            {speed[rank][RemoteUnit] * sending[rank].size(), RemoteUnit, rank});

    double threadWeight = 0, asyncWeight = 0;
    for (int64_t rank = 0; rank < numCtas; ++rank)
      for (Role role :
           {Role::ProducerLane, Role::MmaIssuer, Role::EpilogueThread})
        threadWeight += speed[rank][actorOf(role)] *
                        readyThreads[rank][static_cast<int64_t>(role)].size();
    for (const AsyncAction &a : asyncActions)
      asyncWeight += a.weight;
    if (threadWeight == 0 && asyncActions.empty())
      return false;

    double x = std::uniform_real_distribution<double>(0, threadWeight +
                                                             asyncWeight)(rng);
    if (x < threadWeight || asyncActions.empty()) {
      // The bucket x falls in (the last non-empty one if rounding leaves x
      // past the end), then a thread of it.
      int64_t key = -1;
      bool found = false;
      for (int64_t rank = 0; rank < numCtas && !found; ++rank)
        for (Role role :
             {Role::ProducerLane, Role::MmaIssuer, Role::EpilogueThread}) {
          const KeySet &bucket = readyThreads[rank][static_cast<int64_t>(role)];
          if (bucket.empty())
            continue;
          double each = speed[rank][actorOf(role)];
          key = bucket[std::min<size_t>(x / each, bucket.size() - 1)];
          found = x < each * bucket.size();
          if (found)
            break;
          x -= each * bucket.size();
        }
      // The thread polls its barrier again: a phase that completed since it
      // became ready may have flipped the parity back.
      schedule(key);
      if (readyOf(key).contains(key)) {
        threadAction(threadOf(key));
        schedule(key);
      }
      return true;
    }
    x -= threadWeight;
    size_t chosen = 0;
    while (chosen + 1 < asyncActions.size() && x >= asyncActions[chosen].weight)
      x -= asyncActions[chosen++].weight;
    const AsyncAction &a = asyncActions[chosen];
    switch (a.unit) {
    case TmaUnit:
      landTma(a.index);
      break;
    case MmaUnit:
      executeMma();
      break;
    case CommitUnit:
      fireCommit(a.index);
      break;
    case RemoteUnit: {
      const KeySet &senders = sending[a.index];
      deliverRemoteOp(senders[std::uniform_int_distribution<size_t>(
          0, senders.size() - 1)(rng)]);
      break;
    }
    default:
      break;
    }
    return true;
  }

  const Config &c;
  const TilePlan plan;
  const int64_t cluster, numCtas, leader;
  std::mt19937_64 rng;
  double speed[kPairCtas][kActors];
  const int64_t localTiles;
  /// The bytes of one CTA's scale copies per K tile; whether the pair's peer
  /// relays them through its scaleFull barriers.
  const int64_t scaleCopyBytes;
  const bool relayScales;
  std::vector<Cta> ctas;
  /// The leader's MMA-issuing thread.
  MmaThread mma;
  int64_t exitedCtas = 0;
  std::vector<TmaLoad> tmaInFlight;
  std::deque<MmaOp> mmaQueue;
  std::vector<Commit> commits;
  /// Per thread, its remote operations in issue order; per CTA, the threads
  /// that have some in flight.
  std::vector<std::deque<RemoteOp>> remoteOps;
  KeySet sending[kPairCtas];
  int64_t issuedMmas = 0, executedMmas = 0;
  /// Per stage: issued MMAs that have not executed (they read the stage of
  /// every CTA).
  std::map<int64_t, int64_t> pendingReads;
  /// The threads that can proceed, per CTA and role.
  KeySet readyThreads[kPairCtas][3];
  /// Per thread in Part::Teardown, waiting for its remote operations.
  std::map<int64_t, std::vector<int64_t>> drainWaiters;
  std::vector<AsyncAction> asyncActions;
  std::string error;
};

} // namespace

/// Runs every cluster of `c`; returns the first violation, or "" after
/// checking that each CTA of the cluster the schedule gives a tile stored
/// its rows of the tile exactly once.
std::string nvfp4::gpu::tcgen05::model::simulate(const Config &c,
                                                 uint64_t seed) {
  const int64_t ctasPerCluster = c.ctaPair ? kPairCtas : 1;
  std::vector<int> storedCount(c.numTiles * ctasPerCluster, 0);
  for (int64_t cluster = 0; cluster < c.clusters; ++cluster) {
    ClusterModel model(c, cluster, seed * 1000003 + cluster);
    if (std::string error = model.run(); !error.empty())
      return "cluster " + std::to_string(cluster) + ": " + error;
    for (int64_t rank = 0; rank < ctasPerCluster; ++rank)
      for (int64_t tile : model.storedTiles(rank)) {
        if (tile < 0 || tile >= c.numTiles || tile % c.clusters != cluster)
          return "tile " + std::to_string(tile) + " stored by cluster " +
                 std::to_string(cluster);
        ++storedCount[tile * ctasPerCluster + rank];
      }
  }
  for (int64_t tile = 0; tile < c.numTiles; ++tile)
    for (int64_t rank = 0; rank < ctasPerCluster; ++rank)
      if (int count = storedCount[tile * ctasPerCluster + rank]; count != 1)
        return "cta " + std::to_string(rank) + "'s rows of tile " +
               std::to_string(tile) + " stored " + std::to_string(count) +
               " times";
  return "";
}
