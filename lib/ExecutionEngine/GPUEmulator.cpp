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

/// The CTA the current fiber belongs to, for the fiber entry function
/// (makecontext passes int arguments only).
thread_local Cta *gStartingCta = nullptr;
thread_local Thread *gStartingThread = nullptr;

void fiberMain() {
  Cta *cta = gStartingCta;
  Thread *thread = gStartingThread;
  finishSwitch(nullptr, &cta->schedulerStack, &cta->schedulerStackSize);
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
  startSwitch(nullptr, cta->schedulerStack, cta->schedulerStackSize);
  swapcontext(&thread->context, &cta->scheduler);
}

int64_t liveThreads(const Cta &cta) {
  int64_t live = 0;
  for (const Thread &t : cta.threads)
    live += !t.finished;
  return live;
}

/// Completes the barrier phase when every live thread arrived.
void tryReleaseBarrier(Cta &cta) {
  if (cta.barrierArrived > 0 && cta.barrierArrived >= liveThreads(cta)) {
    cta.barrierArrived = 0;
    ++cta.barrierGeneration;
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
  }
  return false;
}

[[noreturn]] void reportDeadlock(Cta &cta) {
  std::fprintf(stderr,
               "nvfp4-gpu-emulator: deadlock in kernel %s, CTA (%d, %d, %d): "
               "no thread can run\n",
               cta.name, cta.ctaid[0], cta.ctaid[1], cta.ctaid[2]);
  std::fprintf(
      stderr, "  bar.sync 0: %" PRId64 " of %" PRId64 " live threads arrived\n",
      cta.barrierArrived, liveThreads(cta));
  for (size_t w = 0; w < cta.warps.size(); ++w) {
    // One line per warp: the state of each lane, runs of equal states
    // folded.
    std::string line;
    size_t begin = w * kWarpSize;
    size_t end = std::min(cta.threads.size(), begin + kWarpSize);
    for (size_t i = begin; i < end;) {
      const Thread &t = cta.threads[i];
      const char *state = t.finished ? "exited" : waitName(t.wait);
      size_t j = i + 1;
      while (j < end &&
             (cta.threads[j].finished ? "exited"
                                      : waitName(cta.threads[j].wait)) == state)
        ++j;
      line += " lanes " + std::to_string(i - begin) + ".." +
              std::to_string(j - 1 - begin) + ": " + state + ";";
      i = j;
    }
    const WarpShuffle &warp = cta.warps[w];
    const int slot = static_cast<int>(warp.generation % 2);
    std::fprintf(stderr,
                 "  warp %zu:%s shfl.sync members arrived 0x%08x of "
                 "0x%08x\n",
                 w, line.c_str(), warp.arrived[slot], warp.memberMask[slot]);
  }
  std::fflush(stderr);
  std::exit(1);
}

/// Runs every thread of `cta` to completion.
void runCta(Cta &cta, std::vector<std::unique_ptr<char[]>> &stacks) {
  const size_t n = cta.threads.size();
  for (size_t i = 0; i < n; ++i) {
    Thread &t = cta.threads[i];
    getcontext(&t.context);
    t.stack = stacks[i].get();
    t.context.uc_stack.ss_sp = t.stack;
    t.context.uc_stack.ss_size = kStackBytes;
    t.context.uc_link = &cta.scheduler;
    makecontext(&t.context, fiberMain, 0);
  }
  std::vector<bool> started(n, false);
  size_t finished = 0;
  while (finished < n) {
    bool progress = false;
    for (size_t i = 0; i < n; ++i) {
      Thread &t = cta.threads[i];
      if (!canRun(cta, t))
        continue;
      t.wait = Wait::None;
      cta.current = &t;
      if (!started[i]) {
        started[i] = true;
        gStartingCta = &cta;
        gStartingThread = &t;
      }
      void *schedulerFakeStack = nullptr;
      startSwitch(&schedulerFakeStack, t.stack, kStackBytes);
      swapcontext(&cta.scheduler, &t.context);
      finishSwitch(schedulerFakeStack, nullptr, nullptr);
      progress = true;
      if (t.finished) {
        ++finished;
        // An exit may complete a barrier phase the others wait on.
        tryReleaseBarrier(cta);
      }
    }
    if (!progress && finished < n)
      reportDeadlock(cta);
  }
}

} // namespace

void nvfp4::emulator::detail::yield(Thread *thread) {
  Cta &cta = *thread->cta;
  startSwitch(&thread->fakeStack, cta.schedulerStack, cta.schedulerStackSize);
  swapcontext(&thread->context, &cta.scheduler);
  finishSwitch(thread->fakeStack, nullptr, nullptr);
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
    // Stores mark their bytes; loads need every byte written before.
    const size_t offset = begin - sharedBase;
    if (isStore) {
      markSharedWritten(*t->cta, address, static_cast<size_t>(bytes));
      return;
    }
    for (int64_t i = 0; i < bytes; ++i)
      if (!cta.sharedWritten[offset + i])
        fail("load of never-written shared memory: byte %zu of the %" PRId64
             "-byte load at shared offset %zu in kernel %s, CTA (%d, %d, "
             "%d), thread (%d, %d, %d), at %s",
             static_cast<size_t>(i), bytes, offset, cta.name, cta.ctaid[0],
             cta.ctaid[1], cta.ctaid[2], t->tid[0], t->tid[1], t->tid[2],
             location);
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

extern "C" void *nvfp4EmuShared(void *thread, int64_t offset) {
  Thread *t = asThread(thread);
  Cta &cta = *t->cta;
  if (offset < 0 || offset > static_cast<int64_t>(cta.shared.size()))
    fail("kernel %s: thread %" PRId64 " addresses shared byte %" PRId64
         ", outside the CTA's %zu bytes",
         cta.name, t->linear, offset, cta.shared.size());
  return cta.shared.data() + offset;
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
    counters.sharedBytes += request.bytes;
  }
  counters.asyncCopyBytes += cta.asyncCopyBytes;
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
  if (clusterX != 1 || clusterY != 1 || clusterZ != 1)
    fail("kernel %s: clusters (%" PRId64 "x%" PRId64 "x%" PRId64
         ") are not emulated yet",
         name, clusterX, clusterY, clusterZ);
  if (sharedBytes < 0 || staticSharedBytes < 0 ||
      staticSharedBytes + sharedBytes > kSharedBytesPerCta)
    fail("kernel %s: %" PRId64 " bytes of static and %d of dynamic shared "
         "memory (at most %" PRId64 " in all)",
         name, staticSharedBytes, sharedBytes, kSharedBytesPerCta);
  const int64_t threads = blockX * blockY * blockZ;
  const char *report = std::getenv("NVFP4_GPU_EMULATOR_REPORT");
  const bool countMemory = report && *report && std::strcmp(report, "0") != 0;
  MemoryCounters counters;
  if (const char *trace = std::getenv("NVFP4_GPU_EMULATOR_TRACE");
      trace && *trace && std::strcmp(trace, "0") != 0)
    std::fprintf(stderr,
                 "nvfp4-gpu-emulator: launch %s grid (%" PRId64 ", %" PRId64
                 ", %" PRId64 ") CTA (%" PRId64 ", %" PRId64 ", %" PRId64
                 ") dynamic shared %d bytes\n",
                 name, gridX, gridY, gridZ, blockX, blockY, blockZ,
                 sharedBytes);
  std::vector<std::unique_ptr<char[]>> stacks;
  stacks.reserve(threads);
  for (int64_t i = 0; i < threads; ++i)
    stacks.emplace_back(new char[kStackBytes]);
  for (int64_t z = 0; z < gridZ; ++z)
    for (int64_t y = 0; y < gridY; ++y)
      for (int64_t x = 0; x < gridX; ++x) {
        Cta cta;
        cta.name = name;
        cta.entry = entry;
        cta.params = params;
        cta.ctaid[0] = static_cast<int32_t>(x);
        cta.ctaid[1] = static_cast<int32_t>(y);
        cta.ctaid[2] = static_cast<int32_t>(z);
        cta.nctaid[0] = static_cast<int32_t>(gridX);
        cta.nctaid[1] = static_cast<int32_t>(gridY);
        cta.nctaid[2] = static_cast<int32_t>(gridZ);
        cta.ntid[0] = static_cast<int32_t>(blockX);
        cta.ntid[1] = static_cast<int32_t>(blockY);
        cta.ntid[2] = static_cast<int32_t>(blockZ);
        // Shared memory starts zeroed here; on hardware it is undefined
        // (reads of never-written shared memory are not yet reported).
        cta.shared.assign(static_cast<size_t>(staticSharedBytes + sharedBytes),
                          0);
        cta.sharedWritten.assign(cta.shared.size(), 0);
        cta.countMemory = countMemory;
        cta.threads.resize(threads);
        cta.warps.resize((threads + kWarpSize - 1) / kWarpSize);
        cta.mmas.resize((threads + kWarpSize - 1) / kWarpSize);
        for (int64_t i = 0; i < threads; ++i) {
          Thread &t = cta.threads[i];
          t.cta = &cta;
          t.linear = i;
          t.tid[0] = static_cast<int32_t>(i % blockX);
          t.tid[1] = static_cast<int32_t>((i / blockX) % blockY);
          t.tid[2] = static_cast<int32_t>(i / (blockX * blockY));
        }
        runCta(cta, stacks);
        if (countMemory)
          accumulate(cta, counters);
      }
  if (countMemory)
    std::fprintf(
        stderr,
        "nvfp4-gpu-emulator: memory of %s: global %" PRId64
        " requests, %" PRId64 " sectors, %" PRId64
        " bytes, coalescing %.1f%%; shared %" PRId64 " requests, %" PRId64
        " wavefronts, %" PRId64 " bank conflicts, %" PRId64
        " bytes; cp.async %" PRId64 " bytes, TMA 0 bytes\n",
        name, counters.globalRequests, counters.globalSectors,
        counters.globalBytes,
        counters.globalSectors ? 100.0 * double(counters.globalBytes) /
                                     double(32 * counters.globalSectors)
                               : 100.0,
        counters.sharedRequests, counters.sharedWavefronts,
        counters.sharedWavefronts - counters.sharedRequests,
        counters.sharedBytes, counters.asyncCopyBytes);
}
