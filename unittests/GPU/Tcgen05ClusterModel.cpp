//===- Tcgen05ClusterModel.cpp - tcgen05 protocol model: cluster ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The cluster model of Tcgen05ClusterModel.h: its setup and run, the
// mbarrier operations and their delivery order, the threads' way through the
// setup and teardown barriers, and the scheduler that picks the next thread
// or asynchronous operation.
//
//===----------------------------------------------------------------------===//

#include "Tcgen05ClusterModel.h"

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace nvfp4::gpu::tcgen05::model::detail;

ClusterModel::ClusterModel(const Config &c, int64_t cluster, uint64_t seed)
    : c(c),
      plan(makeTilePlan(c.tileN, c.ctaPair, kMmasPerKTile, c.scaleStaging)),
      cluster(cluster), numCtas(c.ctaPair ? kPairCtas : 1),
      leader(c.ctaPair ? kPairLeaderRank : 0), rng(seed),
      localTiles(tilesOfCta<int64_t>(cluster, c.clusters, c.numTiles)),
      scaleCopyBytes(plan.scaleCopyBytes(c.lhsScaleAtoms, c.rhsScaleAtoms)),
      relayScales(c.ctaPair && scaleCopyBytes != 0) {
  const int64_t fullArrivals = c.fault == Fault::FullCountsOneCta
                                   ? plan.fullBarrierArrivals / numCtas
                               : c.fault == Fault::FullCountsProducerLanesOnly
                                   ? numCtas * kFullBarrierArrivals
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
    cta.barriers[AccFull].assign(c.accBarrierStages(),
                                 MBarrier(kAccFullBarrierArrivals));
    cta.barriers[AccEmpty].assign(c.accBarrierStages(),
                                  MBarrier(accEmptyArrivals));
    cta.barriers[ScaleFull].assign(relayScales ? c.stages : 0,
                                   MBarrier(kScaleFullBarrierArrivals));
    cta.scaleFullInitialized = c.fault != Fault::NoScaleFullInit;
    cta.barriers[ScaleStaged].assign(c.scaleStaging.any() ? c.stages : 0,
                                     MBarrier(kScaleStagedBarrierArrivals));
    for (int64_t array = 0; array < kBarrierArrays; ++array)
      cta.waiters[array].resize(cta.barriers[array].size());
    cta.lanes.resize(kFullBarrierArrivals * (c.scaleStaging.any() ? 2 : 1));
    for (int64_t id = kFullBarrierArrivals; id < int64_t(cta.lanes.size());
         ++id)
      cta.lanes[id].pc = Lane::WaitStaged;
    cta.epilogue.resize(kEpilogueThreads);
    cta.threads =
        int64_t(cta.lanes.size()) + kEpilogueThreads + (rank == leader ? 1 : 0);
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
    if (t.role == Role::ProducerLane &&
        t.id >= int64_t(ctas[t.cta].lanes.size()))
      continue;
    if (t.role != Role::MmaIssuer || t.cta == leader)
      schedule(key);
  }
}

std::string ClusterModel::run() {
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

//===----------------------------------------------------------------------===//
// Barriers and remote operations
//===----------------------------------------------------------------------===//

void ClusterModel::applyBarrierOp(const BarrierRef &ref, BarrierOp op,
                                  int64_t bytes, const char *who) {
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

//===----------------------------------------------------------------------===//
// Threads
//===----------------------------------------------------------------------===//

int64_t ClusterModel::keyOf(const ThreadRef &t) {
  int64_t first = t.role == Role::ProducerLane ? 0
                  : t.role == Role::MmaIssuer  ? kMmaThreadKey
                                               : kMmaThreadKey + 1;
  return t.cta * kThreadKeysPerCta + first + t.id;
}

ClusterModel::ThreadRef ClusterModel::threadOf(int64_t key) {
  int64_t cta = key / kThreadKeysPerCta, k = key % kThreadKeysPerCta;
  if (k < kMmaThreadKey)
    return {cta, Role::ProducerLane, k};
  if (k == kMmaThreadKey)
    return {cta, Role::MmaIssuer, 0};
  return {cta, Role::EpilogueThread, k - kMmaThreadKey - 1};
}

void ClusterModel::barrierOp(const ThreadRef &t, const BarrierRef &ref,
                             BarrierOp op, int64_t bytes, const char *who) {
  if (ref.cta == t.cta) {
    applyBarrierOp(ref, op, bytes, who);
  } else {
    remoteOps[keyOf(t)].push_back({ref, op, bytes});
    sending[t.cta].insert(keyOf(t));
  }
}

bool ClusterModel::barrierPassed(int64_t rank, bool setup) const {
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

ClusterModel::Part &ClusterModel::partOf(const ThreadRef &t) {
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

void ClusterModel::schedule(int64_t key) {
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

void ClusterModel::wake(std::vector<int64_t> &waiters) {
  std::vector<int64_t> woken;
  woken.swap(waiters);
  for (int64_t key : woken)
    schedule(key);
}

void ClusterModel::wakeBarrierWaiters(bool setup) {
  for (int64_t rank = 0; rank < numCtas; ++rank)
    if (barrierPassed(rank, setup))
      wake(setup ? ctas[rank].setupWaiters : ctas[rank].teardownWaiters);
}

void ClusterModel::threadAction(const ThreadRef &t) {
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

//===----------------------------------------------------------------------===//
// Scheduler
//===----------------------------------------------------------------------===//

ClusterModel::Actor ClusterModel::actorOf(Role role) {
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

KeySet &ClusterModel::readyOf(int64_t key) {
  ThreadRef t = threadOf(key);
  return readyThreads[t.cta][static_cast<int64_t>(t.role)];
}

void ClusterModel::setReady(int64_t key, bool ready) {
  if (ready)
    readyOf(key).insert(key);
  else
    readyOf(key).erase(key);
}

bool ClusterModel::takeStep() {
  asyncActions.clear();
  for (size_t i = 0; i < tmaInFlight.size(); ++i)
    asyncActions.push_back(
        {speed[tmaInFlight[i].cta][TmaUnit], TmaUnit, int64_t(i)});
  if (!mmaQueue.empty())
    asyncActions.push_back({speed[leader][MmaUnit], MmaUnit, 0});
  for (size_t i = 0; i < commits.size(); ++i)
    if (commits[i].mmas <= executedMmas)
      asyncActions.push_back(
          {speed[commits[i].barrier.cta][CommitUnit], CommitUnit, int64_t(i)});
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
