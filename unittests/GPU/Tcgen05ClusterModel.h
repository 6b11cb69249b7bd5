//===- Tcgen05ClusterModel.h - tcgen05 protocol model: cluster --*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The model of one cluster behind simulate() of Tcgen05ProtocolModel.h: its
// CTAs with their mbarriers and threads, the asynchronous units and a seeded
// random scheduler. Tcgen05ClusterModel.cpp defines the setup, the barriers,
// the threads and the scheduler; Tcgen05ClusterRoles.cpp the roles and the
// asynchronous units.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_UNITTESTS_GPU_TCGEN05CLUSTERMODEL_H
#define NVFP4_UNITTESTS_GPU_TCGEN05CLUSTERMODEL_H

#include "Tcgen05ProtocolModel.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Pipeline.h"

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace nvfp4::gpu::tcgen05::model::detail {

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
  ClusterModel(const Config &c, int64_t cluster, uint64_t seed);

  /// Runs until every CTA exited; returns the first violation, or "".
  std::string run();

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
    ScaleStaged,
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
                      const char *who);

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

  /// A producer lane (ids below kFullBarrierArrivals), or with staged
  /// scales a lane of the scale warp (the next 32 ids), which waits on
  /// scaleStaged[s] (WaitStaged), expands the staged scales (Expand) and
  /// arrives on full[s].
  struct Lane {
    Part part = Part::Setup;
    enum {
      WaitEmpty,
      Issue,
      WriteScales,
      WaitScaleCopies,
      Arrive,
      Drain,
      WaitStaged,
      Expand
    } pc = WaitEmpty;
    int64_t local = 0, kt = 0, drain = 0;
  };
  static bool isScaleWarpLane(int64_t id) { return id >= kFullBarrierArrivals; }
  struct MmaThread {
    Part part = Part::Setup;
    enum { WaitAccEmpty, WaitFull, Issue } pc = WaitAccEmpty;
    int64_t local = 0, kt = 0;
  };
  struct EpilogueThread {
    Part part = Part::Setup;
    /// Overlapping accumulators: ReadShared (the columns the next tile's
    /// accumulator shares), Arrive, Read (the rest); otherwise Read,
    /// Arrive.
    enum { WaitAccFull, ReadShared, Read, Arrive } pc = WaitAccFull;
    int64_t local = 0;
  };
  /// The elected producer lane, which issues the TMA loads (thread 0 of the
  /// CTA, which also initializes the mbarriers).
  static constexpr int64_t kElectedLane = 0;

  /// The accumulator buffer of a CTA: the tile it holds, the K tiles
  /// accumulated, the epilogue threads that read it (all of it, and the
  /// columns an overlapping buffer shares).
  struct Accumulator {
    int64_t local = -1, kTilesDone = 0, reads = 0, sharedReads = 0;
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
    /// Per step: TMA loads landed in, scale stores (the producer's and the
    /// scale warp's lanes), scale bulk copies and staged-scale loads to this
    /// CTA's stage.
    std::map<int64_t, int64_t> tmaLanded, scaleWrites, scaleCopies,
        stagedLanded;
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
  int64_t accBarrierOf(int64_t local) const {
    return slotOf<int64_t>(local, c.accBarrierStages());
  }
  int64_t tileOf(int64_t local) const {
    return tileOfCta<int64_t>(cluster, c.clusters, local);
  }

  /// Threads are numbered per CTA: the producer lanes and the scale warp's
  /// (whether the kernel has it or not), the MMA thread, the epilogue
  /// threads.
  static constexpr int64_t kMmaThreadKey = 2 * kFullBarrierArrivals;
  static constexpr int64_t kThreadKeysPerCta =
      kMmaThreadKey + 1 + kEpilogueThreads;
  static int64_t keyOf(const ThreadRef &t);
  static ThreadRef threadOf(int64_t key);

  void fail(const std::string &what) {
    if (error.empty())
      error = what;
  }

  /// Thread `t` applies `op` to `ref`: at once on its own CTA's barrier;
  /// on the peer's, after its earlier remote operations.
  void barrierOp(const ThreadRef &t, const BarrierRef &ref, BarrierOp op,
                 int64_t bytes, const char *who);

  /// Checks that step `it` may write stage `stage` of CTA `rank`: the MMAs
  /// of the previous fill (step it - stages) executed, and no issued MMA
  /// still reads it.
  void checkStageWritable(int64_t rank, int64_t it, int64_t stage,
                          const char *who);

  /// The scale bulk copies of one CTA per K tile: one per 128-row block.
  int64_t scaleCopiesPerStep() const {
    return (c.lhsScaleAtoms ? 1 : 0) + (c.rhsScaleAtoms ? plan.bScaleAtoms : 0);
  }

  /// Whether stage `stage` of every CTA holds exactly the data of step `it`.
  bool stagesHoldStep(int64_t it) const;

  /// Whether the setup (or teardown) barrier lets a thread of CTA `rank`
  /// through: the cluster barrier waits for the threads of every CTA,
  /// bar.sync for those of the CTA.
  bool barrierPassed(int64_t rank, bool setup) const;

  Part &partOf(const ThreadRef &t);

  /// Makes thread `key` ready, or parks it on what it waits for: an
  /// mbarrier phase, the setup or teardown barrier, or the delivery of its
  /// remote operations (barrier.cluster.arrive.release performs them
  /// first). A parked thread is examined again when that changes.
  void schedule(int64_t key);

  /// Examines the threads parked on `waiters` again.
  void wake(std::vector<int64_t> &waiters);

  /// Wakes the threads parked on the setup (or teardown) barrier of the
  /// CTAs it now lets through.
  void wakeBarrierWaiters(bool setup);

  void threadAction(const ThreadRef &t);

  /// The mbarrier thread `t` waits on in its role, if it cannot proceed.
  std::optional<BarrierRef> roleWait(const ThreadRef &t) const;

  /// `barrier` if try_wait.parity(`parity`) fails on it.
  std::optional<BarrierRef> waitUnlessComplete(const BarrierRef &barrier,
                                               int64_t parity) const;

  void roleAction(const ThreadRef &t);

  void laneAction(const ThreadRef &t);

  /// Whether the producer's lanes store scales (an operand neither in atoms
  /// nor staged).
  bool producerStoresScales() const {
    return (!c.lhsScaleAtoms && !c.scaleStaging.lhs) ||
           (!c.rhsScaleAtoms && !c.scaleStaging.rhs);
  }
  /// A lane of CTA `rank` waits on its CTA's empty barrier.
  std::optional<BarrierRef> laneWait(int64_t rank, const Lane &l) const;

  /// The MMA thread's tcgen05.commit to barrier `index` of `array`: one
  /// arrival on that barrier of each CTA of the multicast mask (the 1-CTA
  /// kernel: its own), once the MMAs issued so far executed.
  void commit(BarrierArray array, int64_t index);

  void mmaAction();

  /// The MMA thread waits on the leader's accEmpty and full barriers.
  std::optional<BarrierRef> mmaWait() const;

  void epilogueAction(const ThreadRef &t);
  /// The epilogue thread `e` is done with its tile: on to the next one, or
  /// to the teardown.
  void finishTile(EpilogueThread &e);

  /// An epilogue thread of CTA `rank` waits on its CTA's accFull barrier.
  std::optional<BarrierRef> epilogueWait(int64_t rank,
                                         const EpilogueThread &e) const;

  //===--------------------------------------------------------------------===//
  // Asynchronous units
  //===--------------------------------------------------------------------===//

  /// A TMA load (or, `scaleCopy`, a bulk copy of scale atoms; `staged`,
  /// the TMA load of staged scales) into the stage of CTA `cta`,
  /// completing its bytes on `barrier`.
  struct TmaLoad {
    int64_t cta, step, bytes;
    BarrierRef barrier;
    bool scaleCopy, staged = false;
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

  void landTma(size_t index);

  void executeMma();

  void fireCommit(size_t index);

  void deliverRemoteOp(int64_t sender);

  /// CTA `rank` exits: nothing may still land in its shared memory, arrive
  /// on its barriers or access its tensor memory.
  void exitCta(int64_t rank);

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
  static Actor actorOf(Role role);

  /// A pending operation of an asynchronous unit and how likely the
  /// scheduler picks it.
  struct AsyncAction {
    double weight;
    Actor unit;
    int64_t index;
  };

  KeySet &readyOf(int64_t key);
  /// Thread `key` enters or leaves the ready threads of its CTA and role.
  void setReady(int64_t key, bool ready);

  /// Picks one of the ready threads and the asynchronous units' pending
  /// operations, each with the speed of its kind and CTA as weight, and
  /// performs it; returns false when nothing can proceed.
  bool takeStep();

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

} // namespace nvfp4::gpu::tcgen05::model::detail

#endif // NVFP4_UNITTESTS_GPU_TCGEN05CLUSTERMODEL_H
