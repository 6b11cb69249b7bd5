//===- GPUEmulatorScheduler.cpp - Fibers, clusters and launches -----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// libnvfp4_gpu_emulator: the launch of an emulated kernel and the scheduler
// that runs its threads. The clusters of a grid run one after the other;
// the threads of every CTA of a cluster run concurrently as fibers
// (ucontext) under one round-robin scheduler. A thread runs until it
// finishes or blocks in a synchronizing operation (`bar.sync`, `shfl.sync`,
// `mbarrier.try_wait`, `barrier.cluster.wait`, ...). When no thread can run,
// the asynchronous operations in flight complete (GPUEmulatorAsync.cpp); if
// there were none and some threads have not finished, the launch reports a
// deadlock with what each thread waits on, and exits. Also the memory
// counters' per-launch report.
//
//===----------------------------------------------------------------------===//

#include "GPUEmulatorState.h"

#if defined(__SANITIZE_ADDRESS__)
#define NVFP4_EMULATOR_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NVFP4_EMULATOR_ASAN 1
#endif
#endif
#ifdef NVFP4_EMULATOR_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

using namespace nvfp4::emulator;
using namespace nvfp4::emulator::detail;

void nvfp4::emulator::detail::fail(const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::fprintf(stderr, "nvfp4-gpu-emulator: ");
  std::vfprintf(stderr, format, args);
  std::fprintf(stderr, "\n");
  va_end(args);
  std::fflush(stderr);
  std::exit(1);
}

namespace {

/// AddressSanitizer's fiber annotations around each stack switch, so that
/// it tracks the fiber stacks (no-ops in other builds).
void startSwitch(void **fakeStack, const void *bottom, size_t size) {
#ifdef NVFP4_EMULATOR_ASAN
  __sanitizer_start_switch_fiber(fakeStack, bottom, size);
#else
  (void)fakeStack, (void)bottom, (void)size;
#endif
}
void finishSwitch(void *fakeStack, const void **bottomOld, size_t *sizeOld) {
#ifdef NVFP4_EMULATOR_ASAN
  __sanitizer_finish_switch_fiber(fakeStack, bottomOld, sizeOld);
#else
  (void)fakeStack, (void)bottomOld, (void)sizeOld;
#endif
}

/// The thread the next fiber to start runs (makecontext passes int
/// arguments only).
thread_local Thread *gStartingThread = nullptr;

void fiberMain() {
  Thread *thread = gStartingThread;
  Cta *cta = thread->cta;
  Cluster *cluster = cta->cluster;
  finishSwitch(nullptr, &cluster->schedulerStack,
               &cluster->schedulerStackSize);
  cta->entry(thread, cta->params);
  // The async proxy completes what the thread left in flight.
  for (const std::vector<AsyncCopy> &group : thread->committedGroups)
    for (const AsyncCopy &copy : group)
      completeCopy(*thread, copy);
  for (const AsyncCopy &copy : thread->openGroup)
    completeCopy(*thread, copy);
  thread->finished = true;
  // A thread that exits no longer counts towards `bar.sync 0`; its stack is
  // not resumed again.
  startSwitch(nullptr, cluster->schedulerStack, cluster->schedulerStackSize);
  swapcontext(&thread->context, &cluster->scheduler);
}

int64_t liveThreads(const Cta &cta) {
  int64_t live = 0;
  for (const Thread &t : cta.threads)
    live += !t.finished;
  return live;
}

int64_t liveThreads(const Cluster &cluster) {
  int64_t live = 0;
  for (const Cta *cta : cluster.ctas)
    live += liveThreads(*cta);
  return live;
}

} // namespace

void nvfp4::emulator::detail::tryReleaseBarrier(Cta &cta) {
  if (cta.barrierArrived > 0 && cta.barrierArrived >= liveThreads(cta)) {
    cta.barrierArrived = 0;
    ++cta.barrierGeneration;
  }
}

void nvfp4::emulator::detail::tryReleaseClusterBarrier(Cluster &cluster) {
  if (cluster.barrierArrived > 0 &&
      cluster.barrierArrived >= liveThreads(cluster)) {
    cluster.barrierArrived = 0;
    ++cluster.barrierGeneration;
  }
}

namespace {

bool canRun(const Cta &cta, const Thread &t) {
  if (t.finished)
    return false;
  switch (t.wait) {
  case Wait::None:
    return true;
  case Wait::Barrier:
    return cta.barrierGeneration != t.waitGeneration;
  case Wait::Shuffle:
    return cta.warps[t.linear / kWarpSize].generation != t.waitGeneration;
  case Wait::Mma:
  case Wait::LdMatrix:
    return cta.mmas[t.linear / kWarpSize].generation != t.waitGeneration;
  case Wait::Mbarrier: {
    const Mbarrier &barrier = t.waitCta->mbarriers.at(t.waitOffset);
    return (barrier.phase & 1) != t.waitParity;
  }
  case Wait::ClusterBarrier:
    return cta.cluster->barrierGeneration != t.waitGeneration;
  }
  return false;
}

/// A lane's state for the deadlock report.
std::string describeWait(const Thread &t) {
  std::string text = t.finished ? "exited" : waitName(t.wait);
  if (!t.finished && t.wait == Wait::Mbarrier) {
    char buffer[96];
    std::snprintf(buffer, sizeof(buffer),
                  " (CTA rank %d, shared 0x%x, parity %u)", t.waitCta->rank,
                  kSharedWindowBase + t.waitOffset, t.waitParity);
    text += buffer;
  }
  return text;
}

[[noreturn]] void reportDeadlock(Cluster &cluster) {
  const Cta &first = *cluster.ctas.front();
  std::fprintf(stderr,
               "nvfp4-gpu-emulator: deadlock in kernel %s, cluster of CTA "
               "(%d, %d, %d) (%zu CTAs): no thread can run\n",
               first.name, first.ctaid[0], first.ctaid[1], first.ctaid[2],
               cluster.ctas.size());
  if (cluster.ctas.size() > 1)
    std::fprintf(stderr,
                 "  barrier.cluster: %" PRId64 " of %" PRId64
                 " live threads arrived\n",
                 cluster.barrierArrived, liveThreads(cluster));
  for (const Cta *ctaPtr : cluster.ctas) {
    const Cta &cta = *ctaPtr;
    std::fprintf(stderr,
                 "  CTA (%d, %d, %d), rank %d: bar.sync 0: %" PRId64
                 " of %" PRId64 " live threads arrived\n",
                 cta.ctaid[0], cta.ctaid[1], cta.ctaid[2], cta.rank,
                 cta.barrierArrived, liveThreads(cta));
    for (const auto &[offset, barrier] : cta.mbarriers)
      std::fprintf(stderr,
                   "    mbarrier at shared 0x%x: phase %" PRIu64
                   " (parity %d), pending arrivals %d of %d, tx-count %" PRId64
                   "\n",
                   kSharedWindowBase + offset, barrier.phase,
                   static_cast<int>(barrier.phase & 1), barrier.pending,
                   barrier.expected, barrier.tx);
    for (size_t w = 0; w < cta.warps.size(); ++w) {
      // One line per warp: the state of each lane, runs of equal states
      // folded.
      std::string line;
      size_t begin = w * kWarpSize;
      size_t end = std::min(cta.threads.size(), begin + kWarpSize);
      for (size_t i = begin; i < end;) {
        const std::string state = describeWait(cta.threads[i]);
        size_t j = i + 1;
        while (j < end && describeWait(cta.threads[j]) == state)
          ++j;
        line += " lanes " + std::to_string(i - begin) + ".." +
                std::to_string(j - 1 - begin) + ": " + state + ";";
        i = j;
      }
      const WarpShuffle &warp = cta.warps[w];
      const int slot = static_cast<int>(warp.generation % 2);
      std::fprintf(stderr,
                   "    warp %zu:%s shfl.sync members arrived 0x%08x of "
                   "0x%08x\n",
                   w, line.c_str(), warp.arrived[slot], warp.memberMask[slot]);
    }
  }
  std::fflush(stderr);
  std::exit(1);
}

/// Makes `t`'s context start fiberMain on `stack` (a function of its own:
/// getcontext returns twice, which would clobber its caller's locals).
void prepareFiber(Thread &t, char *stack, Cluster &cluster) {
  getcontext(&t.context);
  t.stack = stack;
  t.context.uc_stack.ss_sp = t.stack;
  t.context.uc_stack.ss_size = kStackBytes;
  t.context.uc_link = &cluster.scheduler;
  makecontext(&t.context, fiberMain, 0);
}

/// Runs every thread of every CTA of `cluster` to completion.
void runCluster(Cluster &cluster,
                std::vector<std::unique_ptr<char[]>> &stacks) {
  std::vector<Thread *> threads;
  for (Cta *cta : cluster.ctas)
    for (Thread &t : cta->threads)
      threads.push_back(&t);
  const size_t n = threads.size();
  for (size_t i = 0; i < n; ++i)
    prepareFiber(*threads[i], stacks[i].get(), cluster);
  std::vector<bool> started(n, false);
  size_t finished = 0;
  while (finished < n) {
    bool progress = false;
    for (size_t i = 0; i < n; ++i) {
      Thread &t = *threads[i];
      if (!canRun(*t.cta, t))
        continue;
      t.wait = Wait::None;
      if (!started[i]) {
        started[i] = true;
        gStartingThread = &t;
      }
      void *schedulerFakeStack = nullptr;
      startSwitch(&schedulerFakeStack, t.stack, kStackBytes);
      swapcontext(&cluster.scheduler, &t.context);
      finishSwitch(schedulerFakeStack, nullptr, nullptr);
      progress = true;
      if (t.finished) {
        ++finished;
        // An exit may complete a barrier phase the others wait on.
        tryReleaseBarrier(*t.cta);
        tryReleaseClusterBarrier(cluster);
      }
    }
    // Nothing can run: what is in flight completes now (as late as the
    // hardware may complete it); if nothing was, every thread is blocked
    // for good.
    if (!progress && finished < n && !completeAsync(cluster, nullptr, 0))
      reportDeadlock(cluster);
  }
}

/// The checks when a cluster's threads all exited: nothing in flight,
/// tensor memory freed.
void checkClusterExit(Cluster &cluster) {
  if (!cluster.transfers.empty()) {
    const Transfer &transfer = cluster.transfers.front();
    fail("kernel %s: CTA rank %d exited with a %s into its shared memory in "
         "flight (no thread waited on its mbarrier)",
         transfer.kernel, transfer.dst->rank,
         transfer.tensor ? "TMA load" : "bulk copy");
  }
  for (Cta *cta : cluster.ctas) {
    if (!cta->tensorOps.empty())
      fail("kernel %s: CTA (%d, %d, %d) exited with tcgen05 operations in "
           "flight (the first issued at %s; no thread waited on a commit "
           "after them)",
           cta->name, cta->ctaid[0], cta->ctaid[1], cta->ctaid[2],
           cta->tensorOps.front().location);
    if (!cta->tmemAllocations.empty())
      fail("kernel %s: CTA (%d, %d, %d) exited with %u tensor-memory columns "
           "allocated at column %u (PTX ISA: tcgen05.dealloc them before "
           "the CTA exits)",
           cta->name, cta->ctaid[0], cta->ctaid[1], cta->ctaid[2],
           cta->tmemAllocations.begin()->second,
           cta->tmemAllocations.begin()->first);
  }
}

} // namespace

void nvfp4::emulator::detail::yield(Thread *thread) {
  Cluster &cluster = *thread->cta->cluster;
  startSwitch(&thread->fakeStack, cluster.schedulerStack,
              cluster.schedulerStackSize);
  swapcontext(&thread->context, &cluster.scheduler);
  finishSwitch(thread->fakeStack, nullptr, nullptr);
}

Cta *nvfp4::emulator::detail::findShared(Thread &thread, const void *address,
                                         uint32_t *offset) {
  const auto *p = static_cast<const uint8_t *>(address);
  for (Cta *cta : thread.cta->cluster->ctas) {
    const uint8_t *base = cta->shared.data();
    if (p >= base && p < base + cta->shared.size()) {
      *offset = static_cast<uint32_t>(p - base);
      return cta;
    }
  }
  return nullptr;
}

/// Whether NVFP4_GPU_EMULATOR_TRACE asks for a line per launch.
static bool traceLaunches() {
  const char *trace = std::getenv("NVFP4_GPU_EMULATOR_TRACE");
  return trace && *trace && std::strcmp(trace, "0") != 0;
}

/// Adds the requests of a finished CTA to the launch's counters.
static void accumulate(const Cta &cta, MemoryCounters &counters) {
  for (const auto &[key, request] : cta.requests) {
    if (!request.shared) {
      ++counters.globalRequests;
      counters.globalSectors += static_cast<int64_t>(request.units.size());
      counters.globalBytes += request.bytes;
      continue;
    }
    // Wavefronts: the most distinct words any one of the 32 banks serves.
    int64_t perBank[32] = {};
    for (uint64_t word : request.units)
      ++perBank[word % 32];
    ++counters.sharedRequests;
    counters.sharedWavefronts += *std::max_element(perBank, perBank + 32);
    counters.sharedMinWavefronts +=
        static_cast<int64_t>((request.units.size() + 31) / 32);
    counters.sharedBytes += request.bytes;
  }
  counters.asyncCopies += cta.asyncCopies;
  counters.asyncCopyBytes += cta.asyncCopyBytes;
  counters.tmaBytes += cta.tmaBytes;
}

extern "C" void nvfp4EmuLaunch(KernelEntry entry, const char *name,
                               int64_t gridX, int64_t gridY, int64_t gridZ,
                               int64_t blockX, int64_t blockY, int64_t blockZ,
                               int64_t clusterX, int64_t clusterY,
                               int64_t clusterZ, int64_t staticSharedBytes,
                               int32_t sharedBytes, void *stream,
                               void **params) {
  (void)stream;
  if (gridX < 1 || gridY < 1 || gridZ < 1 || gridX > INT32_MAX ||
      gridY > 65535 || gridZ > 65535)
    fail("kernel %s: invalid grid %" PRId64 "x%" PRId64 "x%" PRId64, name,
         gridX, gridY, gridZ);
  if (blockX < 1 || blockY < 1 || blockZ < 1 ||
      blockX * blockY * blockZ > kMaxThreadsPerCta)
    fail("kernel %s: invalid CTA %" PRId64 "x%" PRId64 "x%" PRId64
         " (at most %" PRId64 " threads)",
         name, blockX, blockY, blockZ, kMaxThreadsPerCta);
  // PTX ISA: at most 8 CTAs per cluster (portable size), tiling the grid.
  if (clusterX < 1 || clusterY < 1 || clusterZ < 1 ||
      clusterX * clusterY * clusterZ > 8 || gridX % clusterX != 0 ||
      gridY % clusterY != 0 || gridZ % clusterZ != 0)
    fail("kernel %s: invalid cluster %" PRId64 "x%" PRId64 "x%" PRId64
         " for the grid %" PRId64 "x%" PRId64 "x%" PRId64
         " (at most 8 CTAs, dividing the grid)",
         name, clusterX, clusterY, clusterZ, gridX, gridY, gridZ);
  if (sharedBytes < 0 || staticSharedBytes < 0 ||
      staticSharedBytes + sharedBytes > kSharedBytesPerCta)
    fail("kernel %s: %" PRId64 " bytes of static and %d of dynamic shared "
         "memory (at most %" PRId64 " in all)",
         name, staticSharedBytes, sharedBytes, kSharedBytesPerCta);
  const int64_t threads = blockX * blockY * blockZ;
  const bool countMemory = reportMemory();
  MemoryCounters counters;
  if (traceLaunches())
    std::fprintf(stderr,
                 "nvfp4-gpu-emulator: launch %s grid (%" PRId64 ", %" PRId64
                 ", %" PRId64 ") CTA (%" PRId64 ", %" PRId64 ", %" PRId64
                 ") dynamic shared %d bytes\n",
                 name, gridX, gridY, gridZ, blockX, blockY, blockZ,
                 sharedBytes);
  const bool trace = traceLaunches();
  const auto startTime = std::chrono::steady_clock::now();
  uint64_t modelledOperations = 0;
  const int64_t clusterSize = clusterX * clusterY * clusterZ;
  std::vector<std::unique_ptr<char[]>> stacks;
  stacks.reserve(threads * clusterSize);
  for (int64_t i = 0; i < threads * clusterSize; ++i)
    stacks.emplace_back(new char[kStackBytes]);
  for (int64_t cz = 0; cz < gridZ; cz += clusterZ)
    for (int64_t cy = 0; cy < gridY; cy += clusterY)
      for (int64_t cx = 0; cx < gridX; cx += clusterX) {
        Cluster cluster;
        cluster.dims[0] = static_cast<int32_t>(clusterX);
        cluster.dims[1] = static_cast<int32_t>(clusterY);
        cluster.dims[2] = static_cast<int32_t>(clusterZ);
        std::vector<std::unique_ptr<Cta>> ctas;
        for (int64_t rank = 0; rank < clusterSize; ++rank) {
          auto cta = std::make_unique<Cta>();
          cta->cluster = &cluster;
          cta->rank = static_cast<int32_t>(rank);
          cta->name = name;
          cta->entry = entry;
          cta->params = params;
          cta->ctaid[0] = static_cast<int32_t>(cx + rank % clusterX);
          cta->ctaid[1] =
              static_cast<int32_t>(cy + (rank / clusterX) % clusterY);
          cta->ctaid[2] = static_cast<int32_t>(cz + rank / (clusterX * clusterY));
          cta->nctaid[0] = static_cast<int32_t>(gridX);
          cta->nctaid[1] = static_cast<int32_t>(gridY);
          cta->nctaid[2] = static_cast<int32_t>(gridZ);
          cta->ntid[0] = static_cast<int32_t>(blockX);
          cta->ntid[1] = static_cast<int32_t>(blockY);
          cta->ntid[2] = static_cast<int32_t>(blockZ);
          // Shared memory starts zeroed here; on hardware it is undefined
          // (loads of never-written bytes are reported).
          const size_t sharedSize =
              static_cast<size_t>(staticSharedBytes + sharedBytes);
          cta->shared.assign(sharedSize, 0);
          cta->sharedWritten.assign(sharedSize, 0);
          cta->sharedPendingWrites.assign(sharedSize, 0);
          cta->sharedPendingReads.assign(sharedSize, 0);
          cta->sharedUnfenced.assign(sharedSize, 0);
          cta->countMemory = countMemory;
          cta->threads.resize(threads);
          const size_t warps = (threads + kWarpSize - 1) / kWarpSize;
          cta->warps.resize(warps);
          cta->mmas.resize(warps);
          cta->warpTensorAllocOps.assign(warps, 0);
          for (int64_t i = 0; i < threads; ++i) {
            Thread &t = cta->threads[i];
            t.cta = cta.get();
            t.linear = i;
            t.tid[0] = static_cast<int32_t>(i % blockX);
            t.tid[1] = static_cast<int32_t>((i / blockX) % blockY);
            t.tid[2] = static_cast<int32_t>(i / (blockX * blockY));
          }
          cluster.ctas.push_back(cta.get());
          ctas.push_back(std::move(cta));
        }
        runCluster(cluster, stacks);
        checkClusterExit(cluster);
        for (const Cta *cta : cluster.ctas) {
          for (const Thread &t : cta->threads)
            modelledOperations += t.modelledOperations;
          if (countMemory)
            accumulate(*cta, counters);
        }
      }
  if (trace)
    std::fprintf(stderr,
                 "nvfp4-gpu-emulator: done %s: %" PRIu64
                 " modelled operations in %.3f s\n",
                 name, modelledOperations,
                 std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - startTime)
                     .count());
  if (countMemory)
    std::fprintf(stderr,
                 "nvfp4-gpu-emulator: memory of %s: global %" PRId64
                 " requests, %" PRId64 " sectors, %" PRId64
                 " bytes, coalescing %.1f%%; shared %" PRId64
                 " requests, %" PRId64 " wavefronts, %" PRId64
                 " bank conflicts, %" PRId64 " bytes; cp.async %" PRId64
                 " bytes in %" PRId64 " copies, TMA %" PRId64 " bytes\n",
                 name, counters.globalRequests, counters.globalSectors,
                 counters.globalBytes,
                 counters.globalSectors
                     ? 100.0 * double(counters.globalBytes) /
                           double(32 * counters.globalSectors)
                     : 100.0,
                 counters.sharedRequests, counters.sharedWavefronts,
                 counters.sharedWavefronts - counters.sharedMinWavefronts,
                 counters.sharedBytes, counters.asyncCopyBytes,
                 counters.asyncCopies, counters.tmaBytes);
}
