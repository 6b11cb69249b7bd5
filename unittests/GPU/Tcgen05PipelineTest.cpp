//===- Tcgen05PipelineTest.cpp - tcgen05 kernel protocol model ------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Simulates the warp-specialized tcgen05 kernel's roles on a model of the
// mbarriers, with the schedule formulas of Tcgen05Pipeline.h that the
// lowering emits and the barrier arrival counts it initializes:
//
//  - 32 producer lanes: wait empty[s]; lane 0 adds the TMA bytes to full[s]
//    (expect_tx) and issues the two TMA loads, which land later in any
//    order (complete_tx); every lane writes its scales and arrives on
//    full[s]; at the end every lane waits for the release of the last
//    stages;
//  - the MMA thread: per tile, wait accEmpty[a]; per K tile, wait full[s],
//    issue the copies and MMAs and a tcgen05.commit to empty[s]; after the
//    tile, a commit to accFull[a]. The copies and MMAs execute later, in
//    issue order; a commit arrives at some point after everything issued
//    before it executed (commits are not ordered among themselves);
//  - 128 epilogue threads: per tile, wait accFull[a], read the accumulator,
//    arrive on accEmpty[a].
//
// An mbarrier phase completes when its pending arrivals and its transaction
// count are both zero; try_wait.parity(p) succeeds when the current phase's
// parity differs from p. A random scheduler interleaves the threads and the
// asynchronous units, each kind at a speed drawn per run; each run checks that
// nothing deadlocks, that no stage is written (by TMA or by scale stores)
// before the MMAs of its previous fill executed, that the MMAs read complete
// stages, that no accumulator is overwritten before every epilogue thread read
// it, that every tile is computed exactly once, and that nothing is in flight
// when the CTA exits. Deliberately broken protocols check that the model
// notices.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05Pipeline.h"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace nvfp4::gpu::tcgen05;

namespace {

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
  /// The producer waits on empty[s] with the consumer's parity.
  ProducerUsesConsumerParity,
};

struct Config {
  int64_t kTiles, numTiles, grid, stages, accStages;
  Fault fault = Fault::None;
};

/// One CTA of the kernel, simulated to completion.
class CtaModel {
public:
  CtaModel(const Config &c, int64_t cta, uint64_t seed)
      : c(c), cta(cta), rng(seed),
        localTiles(tilesOfCta<int64_t>(cta, c.grid, c.numTiles)) {
    for (int64_t s = 0; s < c.stages; ++s) {
      full.emplace_back(kFullBarrierArrivals);
      empty.emplace_back(kEmptyBarrierArrivals);
    }
    for (int64_t a = 0; a < c.accStages; ++a) {
      accFull.emplace_back(kAccFullBarrierArrivals);
      accEmpty.emplace_back(kAccEmptyBarrierArrivals);
    }
    lanes.resize(kFullBarrierArrivals);
    epilogue.resize(kAccEmptyBarrierArrivals);
    lastExecutedStep.assign(c.stages, -1);
    acc.resize(c.accStages);
    std::uniform_real_distribution<double> logSpeed(-8, 8);
    for (double &v : speed)
      v = std::exp(logSpeed(rng));
  }

  /// Runs until every thread exited; returns the first violation, or "".
  std::string run() {
    for (int64_t steps = 0; error.empty(); ++steps) {
      if (allExited()) {
        // Shared memory is gone: nothing may still arrive or land there.
        if (!mmaQueue.empty() || !commits.empty() || !tmaInFlight.empty())
          fail("asynchronous operations in flight when the CTA exits");
        break;
      }
      std::vector<Action> actions = runnable();
      if (actions.empty()) {
        fail("deadlock");
        break;
      }
      if (steps > 50'000'000) {
        fail("no termination");
        break;
      }
      double total = 0;
      for (const Action &a : actions)
        total += a.weight;
      double x = std::uniform_real_distribution<double>(0, total)(rng);
      size_t chosen = 0;
      while (chosen + 1 < actions.size() && x >= actions[chosen].weight)
        x -= actions[chosen++].weight;
      actions[chosen].run();
    }
    return error;
  }

  /// The tiles the epilogue stored, in order.
  const std::vector<int64_t> &storedTiles() const { return stored; }

private:
  //===--------------------------------------------------------------------===//
  // Threads
  //===--------------------------------------------------------------------===//

  struct Lane {
    enum {
      WaitEmpty,
      Issue,
      WriteScales,
      Arrive,
      Drain,
      Exited
    } pc = WaitEmpty;
    int64_t local = 0, kt = 0, drain = 0;
  };
  struct MmaThread {
    enum { WaitAccEmpty, WaitFull, Issue, Exited } pc = WaitAccEmpty;
    int64_t local = 0, kt = 0;
  } mma;
  struct EpilogueThread {
    enum { WaitAccFull, Read, Arrive, Exited } pc = WaitAccFull;
    int64_t local = 0;
  };

  int64_t step(int64_t local, int64_t kt) const {
    return kStep<int64_t>(local, kt, c.kTiles);
  }
  int64_t stageOf(int64_t s) const { return slotOf<int64_t>(s, c.stages); }
  int64_t tileOf(int64_t local) const {
    return tileOfCta<int64_t>(cta, c.grid, local);
  }

  void fail(const std::string &what) {
    if (error.empty())
      error = what;
  }

  /// Checks that step `it` may write stage `stage`: the MMAs of the previous
  /// fill (step it - stages) executed, and no issued MMA still reads it.
  void checkStageWritable(int64_t it, int64_t stage, const char *who) {
    int64_t previous = it - c.stages;
    if (lastExecutedStep[stage] != (previous < 0 ? -1 : previous) ||
        pendingReads.count(stage)) {
      std::ostringstream os;
      os << who << " writes stage " << stage << " for step " << it
         << " before the MMAs of step " << previous << " executed";
      fail(os.str());
    }
  }

  void laneAction(int64_t id) {
    Lane &l = lanes[id];
    int64_t it = step(l.local, l.kt), s = stageOf(it);
    switch (l.pc) {
    case Lane::WaitEmpty:
      l.pc = id == 0 ? Lane::Issue : Lane::WriteScales;
      return;
    case Lane::Issue:
      full[s].expectTx(kTxBytes);
      tmaInFlight.push_back({it, kTxBytes / 2});
      tmaInFlight.push_back({it, kTxBytes / 2});
      l.pc = Lane::WriteScales;
      return;
    case Lane::WriteScales:
      checkStageWritable(it, s, "a scale store");
      ++scaleWrites[it];
      l.pc = Lane::Arrive;
      return;
    case Lane::Arrive:
      if (!full[s].arrive())
        fail("unexpected arrival on full");
      if (++l.kt == c.kTiles) {
        l.kt = 0;
        ++l.local;
      }
      l.pc = l.local < localTiles ? Lane::WaitEmpty : Lane::Drain;
      if (l.pc == Lane::Drain && c.fault == Fault::NoProducerDrain)
        l.pc = Lane::Exited;
      return;
    case Lane::Drain:
      if (++l.drain == c.stages)
        l.pc = Lane::Exited;
      return;
    case Lane::Exited:
      return;
    }
  }

  /// Whether lane `id` is blocked on a barrier.
  bool laneBlocked(const Lane &l) const {
    if (l.pc == Lane::WaitEmpty) {
      if (c.fault == Fault::ProducerSkipsEmptyWait)
        return false;
      int64_t it = step(l.local, l.kt);
      int64_t parity = c.fault == Fault::ProducerUsesConsumerParity
                           ? consumerParity<int64_t>(it, c.stages)
                           : producerParity<int64_t>(it, c.stages);
      return !empty[stageOf(it)].tryWaitParity(parity);
    }
    if (l.pc == Lane::Drain) {
      int64_t it = localTiles * c.kTiles + l.drain;
      return !empty[stageOf(it)].tryWaitParity(
          producerParity<int64_t>(it, c.stages));
    }
    return false;
  }

  void mmaAction() {
    int64_t a = slotOf<int64_t>(mma.local, c.accStages);
    switch (mma.pc) {
    case MmaThread::WaitAccEmpty:
      mma.pc = MmaThread::WaitFull;
      return;
    case MmaThread::WaitFull: {
      // The stage holds all of this step's data.
      int64_t it = step(mma.local, mma.kt);
      if (tmaLanded[it] != 2 || scaleWrites[it] != kFullBarrierArrivals)
        fail("the MMA thread passed full[s] before the stage was complete");
      mma.pc = MmaThread::Issue;
      return;
    }
    case MmaThread::Issue: {
      int64_t it = step(mma.local, mma.kt), s = stageOf(it);
      mmaQueue.push_back({it, a, mma.local, mma.kt});
      ++pendingReads[s];
      ++issuedMmas;
      commits.push_back({&empty[s], issuedMmas});
      if (++mma.kt == c.kTiles) {
        commits.push_back({&accFull[a], issuedMmas});
        mma.kt = 0;
        ++mma.local;
        mma.pc = mma.local < localTiles ? MmaThread::WaitAccEmpty
                                        : MmaThread::Exited;
      } else {
        mma.pc = MmaThread::WaitFull;
      }
      return;
    }
    case MmaThread::Exited:
      return;
    }
  }

  bool mmaBlocked() const {
    int64_t a = slotOf<int64_t>(mma.local, c.accStages);
    if (mma.pc == MmaThread::WaitAccEmpty)
      return c.fault != Fault::MmaSkipsAccEmptyWait &&
             !accEmpty[a].tryWaitParity(
                 producerParity<int64_t>(mma.local, c.accStages));
    if (mma.pc == MmaThread::WaitFull) {
      int64_t it = step(mma.local, mma.kt);
      return !full[stageOf(it)].tryWaitParity(
          consumerParity<int64_t>(it, c.stages));
    }
    return false;
  }

  void epilogueAction(int64_t id) {
    EpilogueThread &e = epilogue[id];
    int64_t a = slotOf<int64_t>(e.local, c.accStages);
    switch (e.pc) {
    case EpilogueThread::WaitAccFull:
      e.pc = EpilogueThread::Read;
      return;
    case EpilogueThread::Read: {
      Accumulator &buffer = acc[a];
      if (buffer.local != e.local || buffer.kTilesDone != c.kTiles)
        fail("the epilogue read an incomplete accumulator");
      ++buffer.reads;
      if (id == 0)
        stored.push_back(tileOf(e.local));
      e.pc = EpilogueThread::Arrive;
      return;
    }
    case EpilogueThread::Arrive:
      if (!accEmpty[a].arrive())
        fail("unexpected arrival on accEmpty");
      ++e.local;
      e.pc = e.local < localTiles ? EpilogueThread::WaitAccFull
                                  : EpilogueThread::Exited;
      return;
    case EpilogueThread::Exited:
      return;
    }
  }

  bool epilogueBlocked(const EpilogueThread &e) const {
    if (e.pc != EpilogueThread::WaitAccFull)
      return false;
    int64_t a = slotOf<int64_t>(e.local, c.accStages);
    return !accFull[a].tryWaitParity(
        consumerParity<int64_t>(e.local, c.accStages));
  }

  //===--------------------------------------------------------------------===//
  // Asynchronous units
  //===--------------------------------------------------------------------===//

  struct TmaLoad {
    int64_t step, bytes;
  };
  /// The scale copies and MMAs of one K tile.
  struct MmaOp {
    int64_t step, accStage, local, kt;
  };
  /// A tcgen05.commit: arrives on `barrier` once the first `mmas` MMA ops
  /// executed.
  struct Commit {
    MBarrier *barrier;
    int64_t mmas;
  };
  struct Accumulator {
    int64_t local = -1, kTilesDone = 0, reads = 0;
  };

  void landTma(size_t index) {
    TmaLoad load = tmaInFlight[index];
    tmaInFlight.erase(tmaInFlight.begin() + index);
    int64_t s = stageOf(load.step);
    checkStageWritable(load.step, s, "a TMA load");
    ++tmaLanded[load.step];
    full[s].completeTx(load.bytes);
  }

  void executeMma() {
    MmaOp op = mmaQueue.front();
    mmaQueue.pop_front();
    int64_t s = stageOf(op.step);
    if (tmaLanded[op.step] != 2 ||
        scaleWrites[op.step] != kFullBarrierArrivals ||
        tmaLanded[op.step + c.stages] != 0 ||
        scaleWrites[op.step + c.stages] != 0)
      fail("an MMA read a stage that does not hold its step");
    Accumulator &buffer = acc[op.accStage];
    if (op.kt == 0) {
      // Overwrites the accumulator: every epilogue thread must have read the
      // previous tile in it.
      if (buffer.local >= 0 && buffer.reads != kAccEmptyBarrierArrivals)
        fail("an MMA overwrote an accumulator the epilogue had not read");
      buffer = {op.local, 0, 0};
    } else if (buffer.local != op.local || buffer.kTilesDone != op.kt) {
      fail("an MMA accumulated into the wrong tile");
    }
    ++buffer.kTilesDone;
    lastExecutedStep[s] = op.step;
    if (--pendingReads[s] == 0)
      pendingReads.erase(s);
    ++executedMmas;
  }

  void fireCommit(size_t index) {
    Commit commit = commits[index];
    commits.erase(commits.begin() + index);
    if (!commit.barrier->arrive())
      fail("unexpected arrival of a tcgen05.commit");
  }

  //===--------------------------------------------------------------------===//
  // Scheduler
  //===--------------------------------------------------------------------===//

  /// A step one thread or asynchronous unit can take, and how likely the
  /// scheduler picks it.
  struct Action {
    double weight;
    std::function<void()> run;
  };
  /// Kinds of actors; each run draws a speed per kind over a wide range, so
  /// that some runs starve one kind and race another.
  enum Actor {
    ProducerLane,
    MmaIssue,
    EpilogueLane,
    TmaUnit,
    MmaUnit,
    CommitUnit,
    kActors
  };

  std::vector<Action> runnable() {
    std::vector<Action> actions;
    for (int64_t id = 0; id < int64_t(lanes.size()); ++id)
      if (lanes[id].pc != Lane::Exited && !laneBlocked(lanes[id]))
        actions.push_back(
            {speed[ProducerLane], [this, id] { laneAction(id); }});
    if (mma.pc != MmaThread::Exited && !mmaBlocked())
      actions.push_back({speed[MmaIssue], [this] { mmaAction(); }});
    for (int64_t id = 0; id < int64_t(epilogue.size()); ++id)
      if (epilogue[id].pc != EpilogueThread::Exited &&
          !epilogueBlocked(epilogue[id]))
        actions.push_back(
            {speed[EpilogueLane], [this, id] { epilogueAction(id); }});
    for (size_t i = 0; i < tmaInFlight.size(); ++i)
      actions.push_back({speed[TmaUnit], [this, i] { landTma(i); }});
    if (!mmaQueue.empty())
      actions.push_back({speed[MmaUnit], [this] { executeMma(); }});
    for (size_t i = 0; i < commits.size(); ++i)
      if (commits[i].mmas <= executedMmas)
        actions.push_back({speed[CommitUnit], [this, i] { fireCommit(i); }});
    return actions;
  }

  bool allExited() const {
    for (const Lane &l : lanes)
      if (l.pc != Lane::Exited)
        return false;
    for (const EpilogueThread &e : epilogue)
      if (e.pc != EpilogueThread::Exited)
        return false;
    return mma.pc == MmaThread::Exited;
  }

  /// The bytes of the two TMA loads of a stage (any even count serves).
  static constexpr int64_t kTxBytes = 2 * 1024;

  const Config &c;
  const int64_t cta;
  std::mt19937_64 rng;
  double speed[kActors];
  const int64_t localTiles;
  std::vector<MBarrier> full, empty, accFull, accEmpty;
  std::vector<Lane> lanes;
  std::vector<EpilogueThread> epilogue;
  std::vector<TmaLoad> tmaInFlight;
  std::deque<MmaOp> mmaQueue;
  std::vector<Commit> commits;
  int64_t issuedMmas = 0, executedMmas = 0;
  std::map<int64_t, int64_t> tmaLanded, scaleWrites, pendingReads;
  std::vector<int64_t> lastExecutedStep;
  std::vector<Accumulator> acc;
  std::vector<int64_t> stored;
  std::string error;
};

/// Runs every CTA of `c`; returns the first violation, or "" after checking
/// that every tile was stored exactly once by the CTA the schedule gives it.
std::string simulate(const Config &c, uint64_t seed) {
  std::vector<int> storedCount(c.numTiles, 0);
  for (int64_t cta = 0; cta < c.grid; ++cta) {
    CtaModel model(c, cta, seed * 1000003 + cta);
    if (std::string error = model.run(); !error.empty())
      return "cta " + std::to_string(cta) + ": " + error;
    for (int64_t tile : model.storedTiles()) {
      if (tile < 0 || tile >= c.numTiles || tile % c.grid != cta)
        return "tile " + std::to_string(tile) + " stored by cta " +
               std::to_string(cta);
      ++storedCount[tile];
    }
  }
  for (int64_t tile = 0; tile < c.numTiles; ++tile)
    if (storedCount[tile] != 1)
      return "tile " + std::to_string(tile) + " stored " +
             std::to_string(storedCount[tile]) + " times";
  return "";
}

TEST(Tcgen05Pipeline, ProtocolHoldsForManyShapes) {
  int64_t runs = 0;
  for (int64_t stages = 2; stages <= 6; ++stages)
    for (int64_t accStages = 1; accStages <= 2; ++accStages)
      for (int64_t kTiles : {1, 2, 3, 5, 8})
        for (auto [numTiles, grid] : {std::pair<int64_t, int64_t>{1, 1},
                                      {3, 1},
                                      {5, 2},
                                      {7, 3},
                                      {4, 4},
                                      {9, 2}})
          for (uint64_t seed = 0; seed < 3; ++seed) {
            Config c{kTiles, numTiles, grid, stages, accStages};
            EXPECT_EQ(simulate(c, seed), "")
                << "stages " << stages << " acc " << accStages << " kTiles "
                << kTiles << " tiles " << numTiles << " grid " << grid
                << " seed " << seed;
            ++runs;
          }
  EXPECT_EQ(runs, 5 * 2 * 5 * 6 * 3);
}

TEST(Tcgen05Pipeline, KernelPlansAreCovered) {
  // The stage and accumulator counts the kernels use, over longer runs.
  for (int64_t n : {64, 128, 256}) {
    TilePlan p = makeTilePlan(n);
    for (uint64_t seed = 0; seed < 4; ++seed) {
      Config c{/*kTiles=*/4, /*numTiles=*/11, /*grid=*/3, p.stages,
               p.accStages};
      EXPECT_EQ(simulate(c, seed), "") << "N = " << n << " seed " << seed;
    }
  }
}

/// Whether some seed of `c` makes the model report `what`.
bool someRunReports(Config c, const std::string &what) {
  for (uint64_t seed = 0; seed < 20; ++seed)
    if (simulate(c, seed).find(what) != std::string::npos)
      return true;
  return false;
}

TEST(Tcgen05Pipeline, BrokenProtocolsAreDetected) {
  Config c{/*kTiles=*/3, /*numTiles=*/4, /*grid=*/1, /*stages=*/2,
           /*accStages=*/2};
  c.fault = Fault::ProducerSkipsEmptyWait;
  EXPECT_TRUE(someRunReports(c, "before the MMAs of step"));
  c.fault = Fault::ProducerUsesConsumerParity;
  EXPECT_TRUE(someRunReports(c, "deadlock"));
  c.fault = Fault::NoProducerDrain;
  EXPECT_TRUE(someRunReports(c, "in flight when the CTA exits"));
  c.fault = Fault::MmaSkipsAccEmptyWait;
  EXPECT_TRUE(someRunReports(c, "overwrote an accumulator"));
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

} // namespace
