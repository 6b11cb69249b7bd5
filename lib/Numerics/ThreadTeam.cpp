//===- ThreadTeam.cpp - Worker threads the library's kernels share -------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// One team per process, created on first use and never destroyed (its
// workers sleep until the process exits; destroying it from a static
// destructor would race with calls from other static destructors). A child
// of fork() has no workers, so a team belongs to the process that made it.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/ThreadTeam.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <unistd.h>

namespace nvfp4 {
namespace {

/// How long a worker, and a caller waiting for workers, spin before they
/// sleep.
constexpr std::chrono::microseconds kSpinTime{200};

/// Spins until `ready()` or kSpinTime has passed; returns ready().
template <typename Ready> bool spinUntil(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  while (!ready()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::yield();
  }
  return true;
}

class ThreadTeam {
public:
  /// Runs a call on the team if it is free; returns false (and runs
  /// nothing) if it is busy.
  bool tryRun(int numThreads, const std::function<void(int)> &body) {
    std::unique_lock<std::mutex> call(callMutex, std::try_to_lock);
    if (!call.owns_lock() || insideBody)
      return false;
    // Workers sleep until the process exits: detached, counted only.
    for (; numWorkers < numThreads - 1; ++numWorkers)
      std::thread([this, index = numWorkers + 1] { work(index); }).detach();
    {
      std::lock_guard<std::mutex> lock(mutex);
      job = &body;
      jobThreads = numThreads;
      pending.store(numThreads - 1);
      generation.fetch_add(1);
    }
    wake.notify_all();
    insideBody = true;
    body(0);
    insideBody = false;
    if (!spinUntil([&] { return pending.load() == 0; })) {
      std::unique_lock<std::mutex> lock(mutex);
      done.wait(lock, [&] { return pending.load() == 0; });
    }
    return true;
  }

  const pid_t owner = getpid();

private:
  void work(int index) {
    insideBody = true;
    uint64_t seen = 0;
    for (;;) {
      if (!spinUntil([&] { return generation.load() != seen; })) {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] { return generation.load() != seen; });
      }
      const std::function<void(int)> *body;
      int threads;
      {
        std::lock_guard<std::mutex> lock(mutex);
        seen = generation.load();
        body = job;
        threads = jobThreads;
      }
      if (index >= threads)
        continue;
      (*body)(index);
      if (pending.fetch_sub(1) == 1) {
        std::lock_guard<std::mutex> lock(mutex);
        done.notify_one();
      }
    }
  }

  /// Held by the caller for a whole call.
  std::mutex callMutex;
  /// Guards the job and the sleeping threads' conditions.
  std::mutex mutex;
  std::condition_variable wake, done;
  int numWorkers = 0;
  const std::function<void(int)> *job = nullptr;
  int jobThreads = 0;
  std::atomic<uint64_t> generation{0};
  std::atomic<int> pending{0};
  /// Whether this thread is running a body (a worker, or a caller inside
  /// its call): a nested call must not wait for the team.
  static thread_local bool insideBody;
};

thread_local bool ThreadTeam::insideBody = false;

ThreadTeam &team() {
  static std::atomic<ThreadTeam *> current{nullptr};
  static std::mutex creation;
  ThreadTeam *t = current.load();
  if (!t || t->owner != getpid()) {
    std::lock_guard<std::mutex> lock(creation);
    t = current.load();
    if (!t || t->owner != getpid()) {
      // A team inherited through fork() has no threads: leave it.
      t = new ThreadTeam();
      current.store(t);
    }
  }
  return *t;
}

} // namespace

void runOnThreads(int numThreads, const std::function<void(int)> &body) {
  if (numThreads <= 1) {
    body(0);
    return;
  }
  if (team().tryRun(numThreads, body))
    return;
  std::vector<std::thread> threads;
  for (int i = 1; i < numThreads; ++i)
    threads.emplace_back(body, i);
  body(0);
  for (std::thread &thread : threads)
    thread.join();
}

} // namespace nvfp4
