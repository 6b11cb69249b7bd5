//===- GPUEmulator.cpp - Run generated GPU kernels on the host -----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// libnvfp4_gpu_emulator: executes the kernels nvfp4-emulate-gpu-kernels
// turned into host functions. This file holds the scheduler, the launch and
// the thread-level operations (special registers, bar.sync, shfl.sync, cvt,
// shared memory, the access checks and memory counters);
// GPUEmulatorMma.cpp holds cp.async and the warp-wide MMAs,
// GPUEmulatorHostApi.cpp the mgpu* host API of gpu-to-llvm on host memory.
//
// Thread model: the CTAs of a grid run one after the other; the threads of a
// CTA run concurrently as fibers (ucontext) under a round-robin scheduler.
// A thread runs until it finishes or blocks in a synchronizing operation
// (`bar.sync`, `shfl.sync`); when no thread can run and some have not
// finished, the launch reports a deadlock with what each thread waits on,
// and exits.
//
//===----------------------------------------------------------------------===//

#include "GPUEmulatorState.h"

#include "nvfp4/Numerics/Numerics.h"

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

/// Completes the barrier phase when every live thread arrived.
void tryReleaseBarrier(Cta &cta) {
  if (cta.barrierArrived > 0 && cta.barrierArrived >= liveThreads(cta)) {
    cta.barrierArrived = 0;
    ++cta.barrierGeneration;
  }
}

/// Completes the `barrier.cluster` phase when every live thread of the
/// cluster arrived (exited threads count as arrived).
void tryReleaseClusterBarrier(Cluster &cluster) {
  if (cluster.barrierArrived > 0 &&
      cluster.barrierArrived >= liveThreads(cluster)) {
    cluster.barrierArrived = 0;
    ++cluster.barrierGeneration;
  }
}

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
      cluster.current = &t;
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

//===----------------------------------------------------------------------===//
// Kernel-side operations
//===----------------------------------------------------------------------===//

extern "C" int32_t nvfp4EmuSreg(void *thread, int32_t which) {
  Thread *t = asThread(thread);
  const Cta &cta = *t->cta;
  switch (static_cast<SpecialRegister>(which)) {
  case SpecialRegister::TidX:
  case SpecialRegister::TidY:
  case SpecialRegister::TidZ:
    return t->tid[which - int32_t(SpecialRegister::TidX)];
  case SpecialRegister::NtidX:
  case SpecialRegister::NtidY:
  case SpecialRegister::NtidZ:
    return cta.ntid[which - int32_t(SpecialRegister::NtidX)];
  case SpecialRegister::CtaidX:
  case SpecialRegister::CtaidY:
  case SpecialRegister::CtaidZ:
    return cta.ctaid[which - int32_t(SpecialRegister::CtaidX)];
  case SpecialRegister::NctaidX:
  case SpecialRegister::NctaidY:
  case SpecialRegister::NctaidZ:
    return cta.nctaid[which - int32_t(SpecialRegister::NctaidX)];
  case SpecialRegister::LaneId:
    return static_cast<int32_t>(t->linear % kWarpSize);
  case SpecialRegister::WarpId:
    return static_cast<int32_t>(t->linear / kWarpSize);
  case SpecialRegister::ClusterIdX:
  case SpecialRegister::ClusterIdY:
  case SpecialRegister::ClusterIdZ: {
    const int d = which - int32_t(SpecialRegister::ClusterIdX);
    return cta.ctaid[d] / cta.cluster->dims[d];
  }
  case SpecialRegister::NclusterIdX:
  case SpecialRegister::NclusterIdY:
  case SpecialRegister::NclusterIdZ: {
    const int d = which - int32_t(SpecialRegister::NclusterIdX);
    return cta.nctaid[d] / cta.cluster->dims[d];
  }
  case SpecialRegister::ClusterCtaidX:
  case SpecialRegister::ClusterCtaidY:
  case SpecialRegister::ClusterCtaidZ: {
    const int d = which - int32_t(SpecialRegister::ClusterCtaidX);
    return cta.ctaid[d] % cta.cluster->dims[d];
  }
  case SpecialRegister::ClusterNctaidX:
  case SpecialRegister::ClusterNctaidY:
  case SpecialRegister::ClusterNctaidZ:
    return cta.cluster->dims[which - int32_t(SpecialRegister::ClusterNctaidX)];
  case SpecialRegister::ClusterCtaRank:
    return cta.rank;
  case SpecialRegister::ClusterNctaRank:
    return static_cast<int32_t>(cta.cluster->ctas.size());
  }
  fail("kernel %s: unknown special register %d", cta.name, which);
}

extern "C" void nvfp4EmuBarrier0(void *thread) {
  Thread *t = asThread(thread);
  Cta &cta = *t->cta;
  t->wait = Wait::Barrier;
  t->waitGeneration = cta.barrierGeneration;
  ++cta.barrierArrived;
  tryReleaseBarrier(cta);
  yield(t);
}

extern "C" void nvfp4EmuClusterArrive(void *thread) {
  Thread *t = asThread(thread);
  Cluster &cluster = *t->cta->cluster;
  if (t->clusterArrived)
    fail("kernel %s: thread %" PRId64 " of CTA rank %d executes "
         "barrier.cluster.arrive twice without barrier.cluster.wait",
         t->cta->name, t->linear, t->cta->rank);
  t->clusterArrived = true;
  t->clusterArrivalGeneration = cluster.barrierGeneration;
  ++cluster.barrierArrived;
  tryReleaseClusterBarrier(cluster);
}

extern "C" void nvfp4EmuClusterWait(void *thread) {
  Thread *t = asThread(thread);
  Cluster &cluster = *t->cta->cluster;
  if (!t->clusterArrived)
    fail("kernel %s: thread %" PRId64 " of CTA rank %d executes "
         "barrier.cluster.wait without barrier.cluster.arrive",
         t->cta->name, t->linear, t->cta->rank);
  t->clusterArrived = false;
  if (cluster.barrierGeneration != t->clusterArrivalGeneration)
    return;
  t->wait = Wait::ClusterBarrier;
  t->waitGeneration = t->clusterArrivalGeneration;
  yield(t);
}

extern "C" int32_t nvfp4EmuShflSync(void *thread, int32_t mode,
                                    int32_t memberMask, int32_t value,
                                    int32_t offset, int32_t clampMask,
                                    int8_t *valid) {
  Thread *t = asThread(thread);
  Cta &cta = *t->cta;
  const int lane = static_cast<int>(t->linear % kWarpSize);
  WarpShuffle &warp = cta.warps[t->linear / kWarpSize];
  const uint32_t members = static_cast<uint32_t>(memberMask);
  if (!(members & (1u << lane)))
    fail("kernel %s: thread %" PRId64 " executes shfl.sync with a member "
         "mask 0x%08x that excludes its own lane %d (undefined in the PTX "
         "ISA)",
         cta.name, t->linear, members, lane);
  // Arrive with the value; the last member completes the exchange.
  const uint64_t g = warp.generation;
  const int slot = static_cast<int>(g % 2);
  if (warp.arrived[slot] != 0 && warp.memberMask[slot] != members)
    fail("kernel %s: lanes of warp %" PRId64 " execute shfl.sync with "
         "different member masks (0x%08x and 0x%08x)",
         cta.name, t->linear / kWarpSize, warp.memberMask[slot], members);
  warp.memberMask[slot] = members;
  warp.values[slot][lane] = value;
  warp.arrived[slot] |= 1u << lane;
  t->waitGeneration = g;
  if ((warp.arrived[slot] & members) == members) {
    warp.arrived[1 - slot] = 0;
    ++warp.generation;
  } else {
    t->wait = Wait::Shuffle;
    yield(t);
  }
  // Source lane (PTX ISA shfl.sync): c = clamp value, segment mask in bits
  // 12..8 of the clamp operand.
  const int c = clampMask & 0x1F;
  const int segMask = (clampMask >> 8) & 0x1F;
  const int maxLane = (lane & segMask) | (c & ~segMask);
  const int minLane = lane & segMask;
  int source = lane;
  bool inRange = false;
  switch (static_cast<ShuffleMode>(mode)) {
  case ShuffleMode::Up:
    source = lane - offset;
    inRange = source >= maxLane;
    break;
  case ShuffleMode::Down:
    source = lane + offset;
    inRange = source <= maxLane;
    break;
  case ShuffleMode::Butterfly:
    source = lane ^ offset;
    inRange = source <= maxLane;
    break;
  case ShuffleMode::Index:
    source = minLane | (offset & ~segMask);
    inRange = source <= maxLane;
    break;
  }
  if (!inRange)
    source = lane;
  if (source < 0 || source >= kWarpSize || !(members & (1u << source)))
    fail("kernel %s: thread %" PRId64 " reads lane %d in shfl.sync, which is "
         "not in the member mask 0x%08x (undefined in the PTX ISA)",
         cta.name, t->linear, source, members);
  if (valid)
    *valid = inRange ? 1 : 0;
  return warp.values[slot][source];
}

extern "C" int8_t nvfp4EmuCvtF32x2ToE2M1x2(float hi, float lo, int8_t relu) {
  if (relu) {
    // .relu clamps negative results (and NaN) to +0 before the conversion.
    hi = (hi > 0.0f) ? hi : 0.0f;
    lo = (lo > 0.0f) ? lo : 0.0f;
  }
  const uint8_t h = ::nvfp4::encodeE2M1(hi), l = ::nvfp4::encodeE2M1(lo);
  return static_cast<int8_t>(static_cast<uint8_t>((h << 4) | (l & 0xF)));
}

extern "C" int16_t nvfp4EmuCvtRsF32x4ToE2M1x4(float a, float b, float e,
                                              float f, int32_t rbits,
                                              int8_t relu) {
  // PTX ISA (cvt): "lower 8-bits from both 16-bits half of rbits are used
  // for operands e, f and upper 8-bits ... for operands a, b", read in
  // operand order (a: bits 31..24, b: 15..8, e: 23..16, f: 7..0), each byte
  // added to the top 8 discarded bits (nvfp4::encodeE2M1Stochastic). The
  // byte order within a pair is the ISA's figure; docs/gpu.md says what is
  // unverified on hardware.
  const uint32_t bits = static_cast<uint32_t>(rbits);
  const float values[4] = {a, b, e, f};
  const int shifts[4] = {24, 8, 16, 0};
  uint32_t d = 0;
  for (int i = 0; i < 4; ++i) {
    float x = values[i];
    if (relu)
      x = x > 0.0f ? x : 0.0f;
    const uint8_t code = ::nvfp4::encodeE2M1Stochastic(
        x, static_cast<uint8_t>((bits >> shifts[i]) & 0xFF));
    d |= static_cast<uint32_t>(code & 0xF) << (12 - 4 * i);
  }
  return static_cast<int16_t>(d);
}

extern "C" void nvfp4EmuCheckAccess(void *thread, const void *address,
                                    int64_t bytes, int32_t isStore,
                                    int32_t space, int32_t site,
                                    const char *location) {
  Thread *t = asThread(thread);
  const Cta &cta = *t->cta;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(address);
  const uintptr_t end = begin + static_cast<uintptr_t>(bytes);
  bool inBounds = false;
  const uintptr_t sharedBase = reinterpret_cast<uintptr_t>(cta.shared.data());
  const bool inShared =
      begin >= sharedBase && end <= sharedBase + cta.shared.size();
  if (space == 3 || (space == 0 && inShared)) {
    inBounds = inShared;
    space = 3;
  } else {
    space = 1;
    const auto &allocations = deviceAllocations();
    auto it = allocations.upper_bound(begin);
    if (it != allocations.begin()) {
      --it;
      inBounds = end <= it->first + it->second;
    }
  }
  if (inBounds && cta.countMemory) {
    Cta &counted = *t->cta;
    const uint32_t execution = t->siteExecutions[site]++;
    Request &request =
        counted.requests[{t->linear / kWarpSize, site, execution}];
    request.shared = space == 3;
    request.bytes += bytes;
    const uint64_t unit = request.shared ? 4 : 32;
    const uint64_t first = request.shared ? begin - sharedBase : begin;
    for (uint64_t u = first / unit; u <= (first + bytes - 1) / unit; ++u)
      request.units.insert(u);
  }
  if (inBounds && space == 3) {
    // Stores mark their bytes (and wait for a proxy fence before the async
    // proxy may read them); loads need every byte written before. Neither
    // may touch bytes an async operation in flight writes, nor a store
    // bytes a tensor-core operation in flight reads.
    const size_t offset = begin - sharedBase;
    Cta &mutableCta = *t->cta;
    for (int64_t i = 0; i < bytes; ++i) {
      const char *problem = nullptr;
      if (cta.sharedPendingWrites[offset + i])
        problem = "a TMA load or bulk copy in flight writes (no wait on its "
                  "mbarrier before the access)";
      else if (isStore && cta.sharedPendingReads[offset + i])
        problem = "a tcgen05 operation in flight reads (overwritten before "
                  "the commit that tracks the operation arrived)";
      else if (!isStore && !cta.sharedWritten[offset + i])
        problem = "nothing wrote before";
      if (problem)
        fail("%s of shared memory that %s: byte %zu of the %" PRId64
             "-byte access at shared address 0x%zx in kernel %s, CTA (%d, "
             "%d, %d), thread (%d, %d, %d), at %s",
             isStore ? "store" : "load", problem, static_cast<size_t>(i),
             bytes, offset + kSharedWindowBase, cta.name, cta.ctaid[0],
             cta.ctaid[1], cta.ctaid[2], t->tid[0], t->tid[1], t->tid[2],
             location);
    }
    if (isStore) {
      markSharedWritten(mutableCta, address, static_cast<size_t>(bytes));
      std::fill_n(mutableCta.sharedUnfenced.begin() + offset, bytes,
                  static_cast<uint16_t>(t->linear + 1));
      auto &stores = t->unfencedStores;
      if (!stores.empty() &&
          stores.back().first + stores.back().second == offset)
        stores.back().second += static_cast<uint32_t>(bytes);
      else
        stores.emplace_back(static_cast<uint32_t>(offset),
                            static_cast<uint32_t>(bytes));
      // Bounded: forgetting the oldest stores can only hide a missing
      // fence, never report one that is there.
      if (stores.size() > 4096) {
        for (size_t i = 0; i < 2048; ++i)
          std::fill_n(mutableCta.sharedUnfenced.begin() + stores[i].first,
                      stores[i].second, 0);
        stores.erase(stores.begin(), stores.begin() + 2048);
      }
    }
    return;
  }
  if (inBounds)
    return;
  fail("out-of-bounds %s of %" PRId64 " bytes of %s memory at %p in kernel "
       "%s, CTA (%d, %d, %d), thread (%d, %d, %d), at %s",
       isStore ? "store" : "load", bytes, space == 3 ? "shared" : "global",
       address, cta.name, cta.ctaid[0], cta.ctaid[1], cta.ctaid[2], t->tid[0],
       t->tid[1], t->tid[2], location);
}

extern "C" int64_t nvfp4EmuSharedToInt(void *thread, const void *pointer) {
  Thread *t = asThread(thread);
  uint32_t offset = 0;
  Cta *cta = findShared(*t, pointer, &offset);
  // One past the end of the thread's own CTA's shared memory.
  if (!cta && pointer == t->cta->shared.data() + t->cta->shared.size()) {
    cta = t->cta;
    offset = static_cast<uint32_t>(t->cta->shared.size());
  }
  if (!cta)
    fail("kernel %s: thread %" PRId64 " converts %p to a shared address, "
         "but it is in no shared memory of its cluster",
         t->cta->name, t->linear, pointer);
  return (static_cast<int64_t>(cta->rank) << kClusterRankShift) |
         (kSharedWindowBase + offset);
}

extern "C" void *nvfp4EmuIntToShared(void *thread, int64_t address) {
  Thread *t = asThread(thread);
  const Cluster &cluster = *t->cta->cluster;
  const int64_t rank = address >> kClusterRankShift;
  const int64_t offset =
      (address & ((int64_t(1) << kClusterRankShift) - 1)) - kSharedWindowBase;
  if (rank < 0 || rank >= static_cast<int64_t>(cluster.ctas.size()) ||
      offset < 0 ||
      offset > static_cast<int64_t>(cluster.ctas[rank]->shared.size()))
    fail("kernel %s: thread %" PRId64 " converts 0x%" PRIx64 " to a shared "
         "pointer, which is outside the shared memory of its cluster's %zu "
         "CTA(s)",
         t->cta->name, t->linear, static_cast<uint64_t>(address),
         cluster.ctas.size());
  return cluster.ctas[rank]->shared.data() + offset;
}

extern "C" void *nvfp4EmuShared(void *thread, int64_t offset) {
  Thread *t = asThread(thread);
  Cta &cta = *t->cta;
  if (offset < 0 || offset > static_cast<int64_t>(cta.shared.size()))
    fail("kernel %s: thread %" PRId64 " addresses shared byte %" PRId64
         ", outside the CTA's %zu bytes",
         cta.name, t->linear, offset, cta.shared.size());
  return cta.shared.data() + offset;
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
  const char *report = std::getenv("NVFP4_GPU_EMULATOR_REPORT");
  const bool countMemory = report && *report && std::strcmp(report, "0") != 0;
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
    std::fprintf(
        stderr,
        "nvfp4-gpu-emulator: memory of %s: global %" PRId64
        " requests, %" PRId64 " sectors, %" PRId64
        " bytes, coalescing %.1f%%; shared %" PRId64 " requests, %" PRId64
        " wavefronts, %" PRId64 " bank conflicts, %" PRId64
        " bytes; cp.async %" PRId64 " bytes, TMA %" PRId64 " bytes\n",
        name, counters.globalRequests, counters.globalSectors,
        counters.globalBytes,
        counters.globalSectors ? 100.0 * double(counters.globalBytes) /
                                     double(32 * counters.globalSectors)
                               : 100.0,
        counters.sharedRequests, counters.sharedWavefronts,
        counters.sharedWavefronts - counters.sharedMinWavefronts,
        counters.sharedBytes, counters.asyncCopyBytes, counters.tmaBytes);
}
