//===- ThreadTeamTest.cpp - Tests of the library's thread team ------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/ThreadTeam.h"

#include "gtest/gtest.h"

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

using namespace nvfp4;

namespace {

/// Runs one call whose bodies wait for each other (a barrier: it completes
/// only if every body runs on its own thread at the same time) and returns
/// the threads that ran them, in index order.
std::vector<std::thread::id> runWithBarrier(int numThreads) {
  std::vector<std::thread::id> ids(numThreads);
  std::atomic<int> arrived{0};
  runOnThreads(numThreads, [&](int i) {
    ids[i] = std::this_thread::get_id();
    ++arrived;
    while (arrived.load() < numThreads)
      std::this_thread::yield();
  });
  return ids;
}

TEST(ThreadTeam, RunsEveryIndexOnceOnItsOwnThreadConcurrently) {
  for (int numThreads : {2, 3, 5, 2}) {
    SCOPED_TRACE(numThreads);
    const std::vector<std::thread::id> ids = runWithBarrier(numThreads);
    EXPECT_EQ(ids[0], std::this_thread::get_id());
    EXPECT_EQ(std::set<std::thread::id>(ids.begin(), ids.end()).size(),
              static_cast<size_t>(numThreads));
  }
}

TEST(ThreadTeam, KeepsItsWorkersBetweenCalls) {
  const std::vector<std::thread::id> first = runWithBarrier(3);
  const std::vector<std::thread::id> second = runWithBarrier(3);
  EXPECT_EQ(first, second);
}

TEST(ThreadTeam, OneThreadRunsOnTheCaller) {
  const std::thread::id caller = std::this_thread::get_id();
  for (int numThreads : {1, 0, -2}) {
    int calls = 0;
    runOnThreads(numThreads, [&](int i) {
      EXPECT_EQ(i, 0);
      EXPECT_EQ(std::this_thread::get_id(), caller);
      ++calls;
    });
    EXPECT_EQ(calls, 1);
  }
}

TEST(ThreadTeam, NestedCallsRunOnThreadsOfTheirOwn) {
  std::mutex mutex;
  std::multiset<int> seen;
  std::atomic<int> arrived{0};
  runOnThreads(2, [&](int outer) {
    // The inner call's bodies also wait for each other.
    std::vector<std::thread::id> inner = runWithBarrier(2);
    EXPECT_NE(inner[0], inner[1]);
    std::lock_guard<std::mutex> lock(mutex);
    seen.insert(outer);
    ++arrived;
  });
  EXPECT_EQ(seen, (std::multiset<int>{0, 1}));
}

TEST(ThreadTeam, ConcurrentCallersAllComplete) {
  std::atomic<int64_t> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int call = 0; call < 200; ++call) {
        const std::vector<std::thread::id> ids = runWithBarrier(2);
        EXPECT_NE(ids[0], ids[1]);
        total += 1;
      }
    });
  for (std::thread &caller : callers)
    caller.join();
  EXPECT_EQ(total.load(), 800);
}

TEST(ThreadTeam, WorksInAForkedChild) {
  runWithBarrier(2); // The parent's team exists before the fork.
  const pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    // The child inherits no workers: a barrier over two threads completes
    // only if the child's call starts threads of its own.
    const std::vector<std::thread::id> ids = runWithBarrier(2);
    _exit(ids[0] != ids[1] ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

} // namespace
