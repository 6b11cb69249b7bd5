//===- GPUEmulator.cpp - Run generated GPU kernels on the host -----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// libnvfp4_gpu_emulator: executes the kernels nvfp4-emulate-gpu-kernels
// turned into host functions, and provides the mgpu* host API of gpu-to-llvm
// on host memory (device memory is host memory; streams and events are
// no-ops, every launch runs to completion).
//
// Thread model: the CTAs of a grid run one after the other; the threads of a
// CTA run concurrently as fibers (ucontext) under a round-robin scheduler.
// A thread runs until it finishes or blocks in a synchronizing operation
// (`bar.sync`, `shfl.sync`); when no thread can run and some have not
// finished, the launch reports a deadlock with what each thread waits on,
// and exits.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/ExecutionEngine/GPUEmulator.h"

#include "nvfp4/Numerics/Numerics.h"

#include <ucontext.h>

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

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <memory>
#include <string>
#include <vector>

using namespace nvfp4::emulator;

namespace {

constexpr int kWarpSize = 32;
/// The largest CTA (PTX ISA: 1024 threads).
constexpr int64_t kMaxThreadsPerCta = 1024;
/// Shared memory per CTA: the 228 KiB of an sm_90 / sm_100 SM less the 1 KiB
/// the system reserves.
constexpr int64_t kSharedBytesPerCta = 227 * 1024;
/// Fiber stacks: generous for the JIT-compiled kernel bodies, which keep
/// their values in registers or small frames.
constexpr size_t kStackBytes = 256 * 1024;

[[noreturn]] void fail(const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::fprintf(stderr, "nvfp4-gpu-emulator: ");
  std::vfprintf(stderr, format, args);
  std::fprintf(stderr, "\n");
  va_end(args);
  std::fflush(stderr);
  std::exit(1);
}

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

enum class Wait { None, Barrier, Shuffle, Mma };

const char *waitName(Wait wait) {
  switch (wait) {
  case Wait::None:
    return "running";
  case Wait::Barrier:
    return "bar.sync 0";
  case Wait::Shuffle:
    return "shfl.sync";
  case Wait::Mma:
    return "mma.sync";
  }
  return "?";
}

/// One `cp.async` in flight.
struct AsyncCopy {
  void *dst;
  const void *src;
  int32_t size, srcSize;
};

/// Performs `copy` (the bytes past `srcSize` are zeros).
void performCopy(const AsyncCopy &copy) {
  const int32_t fromSource =
      copy.srcSize < 0 ? copy.size : std::min(copy.srcSize, copy.size);
  std::memcpy(copy.dst, copy.src, static_cast<size_t>(fromSource));
  std::memset(static_cast<char *>(copy.dst) + fromSource, 0,
              static_cast<size_t>(copy.size - fromSource));
}

struct Cta;

/// One thread of a CTA: its fiber, indices and what it waits on.
struct Thread {
  Cta *cta = nullptr;
  ucontext_t context;
  char *stack = nullptr;
  /// AddressSanitizer's fake stack of this fiber while it is switched out.
  void *fakeStack = nullptr;
  int64_t linear = 0; // tid.x + ntid.x * (tid.y + ntid.y * tid.z)
  int32_t tid[3] = {0, 0, 0};
  bool finished = false;
  Wait wait = Wait::None;
  /// Executions of each access site so far (memory counters only).
  std::unordered_map<int32_t, uint32_t> siteExecutions;
  /// `cp.async`: the open group and the committed ones, oldest first.
  std::vector<AsyncCopy> openGroup;
  std::vector<std::vector<AsyncCopy>> committedGroups;
  /// The barrier or shuffle generation the thread waits to see pass.
  uint64_t waitGeneration = 0;
};

/// The state of one warp's `shfl.sync`s. Shuffle `g` of a warp (its
/// generation) completes when every member lane arrived; its values live in
/// slot `g % 2`, so that lanes already at shuffle `g + 1` do not overwrite
/// what slower lanes still read from `g` (no lane can be two shuffles
/// ahead: `g + 1` completes only after every member read `g`).
struct WarpShuffle {
  uint32_t arrived[2] = {0, 0};
  uint32_t memberMask[2] = {0, 0};
  int32_t values[2][kWarpSize] = {};
  /// The shuffle lanes arrive at next; bumped when it completes.
  uint64_t generation = 0;
};

/// The state of one warp's `mma.sync`s, double-buffered by generation as
/// for shuffles.
struct WarpMma {
  uint32_t arrived[2] = {0, 0};
  int32_t a[2][kWarpSize][4] = {};
  int32_t b[2][kWarpSize][2] = {};
  float c[2][kWarpSize][4] = {};
  int32_t scaleA[2][kWarpSize] = {};
  int32_t scaleB[2][kWarpSize] = {};
  float d[2][kWarpSize][4] = {};
  uint64_t generation = 0;
};

/// One warp-wide memory request: the lanes' n-th execution of one access
/// site in one warp.
struct RequestKey {
  int64_t warp;
  int32_t site;
  uint32_t execution;
  bool operator<(const RequestKey &o) const {
    return std::tie(warp, site, execution) <
           std::tie(o.warp, o.site, o.execution);
  }
};

/// What the lanes of one request touched.
struct Request {
  bool shared = false;
  int64_t bytes = 0;
  /// Global: 32-byte sectors. Shared: 4-byte words.
  std::set<uint64_t> units;
};

/// The memory counters of one launch (docs/emulator.md).
struct MemoryCounters {
  int64_t globalRequests = 0, globalSectors = 0, globalBytes = 0;
  int64_t sharedRequests = 0, sharedWavefronts = 0, sharedBytes = 0;
  int64_t asyncCopyBytes = 0;
};

struct Cta {
  int32_t ctaid[3] = {0, 0, 0};
  int32_t nctaid[3] = {1, 1, 1};
  int32_t ntid[3] = {1, 1, 1};
  std::vector<Thread> threads;
  std::vector<WarpShuffle> warps;
  std::vector<WarpMma> mmas;
  std::vector<uint8_t> shared;
  /// 1 for each shared byte some store or copy wrote: reads of the others
  /// are reported (shared memory is undefined until written).
  std::vector<uint8_t> sharedWritten;
  ucontext_t scheduler;
  /// The scheduler's stack, for AddressSanitizer's switches back to it.
  const void *schedulerStack = nullptr;
  size_t schedulerStackSize = 0;
  Thread *current = nullptr;
  /// `bar.sync 0`: arrivals of the current phase, and its generation.
  int64_t barrierArrived = 0;
  uint64_t barrierGeneration = 0;
  KernelEntry entry = nullptr;
  void **params = nullptr;
  /// The memory counters' requests (only when reporting).
  bool countMemory = false;
  std::map<RequestKey, Request> requests;
  int64_t asyncCopyBytes = 0;
  const char *name = "";
};

/// The CTA the current fiber belongs to, for the fiber entry function
/// (makecontext passes int arguments only).
thread_local Cta *gStartingCta = nullptr;
thread_local Thread *gStartingThread = nullptr;

Thread *asThread(void *thread) { return static_cast<Thread *>(thread); }

/// Marks `bytes` at `address` written when they are shared memory.
void markSharedWritten(Cta &cta, const void *address, size_t bytes) {
  const auto *p = static_cast<const uint8_t *>(address);
  const uint8_t *base = cta.shared.data();
  if (p >= base && p + bytes <= base + cta.shared.size())
    std::memset(cta.sharedWritten.data() + (p - base), 1, bytes);
}

/// Performs the thread's `cp.async` `copy`, marking its bytes written.
void completeCopy(Thread &thread, const AsyncCopy &copy) {
  performCopy(copy);
  thread.cta->asyncCopyBytes += copy.size;
  markSharedWritten(*thread.cta, copy.dst, static_cast<size_t>(copy.size));
}

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

/// Switches from a blocked thread back to the scheduler.
void yield(Thread *thread) {
  Cta &cta = *thread->cta;
  startSwitch(&thread->fakeStack, cta.schedulerStack, cta.schedulerStackSize);
  swapcontext(&thread->context, &cta.scheduler);
  finishSwitch(thread->fakeStack, nullptr, nullptr);
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
  std::fprintf(stderr, "  bar.sync 0: %" PRId64 " of %" PRId64
                       " live threads arrived\n",
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
                                      : waitName(cta.threads[j].wait)) ==
                 state)
        ++j;
      line += " lanes " + std::to_string(i - begin) + ".." +
              std::to_string(j - 1 - begin) + ": " + state + ";";
      i = j;
    }
    const WarpShuffle &warp = cta.warps[w];
    const int slot = static_cast<int>(warp.generation % 2);
    std::fprintf(stderr, "  warp %zu:%s shfl.sync members arrived 0x%08x of "
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

extern "C" void nvfp4EmuCpAsync(void *thread, void *dst, const void *src,
                                int32_t size, int32_t srcSize) {
  Thread *t = asThread(thread);
  if (size != 4 && size != 8 && size != 16)
    fail("kernel %s: thread %" PRId64 ": cp.async of %d bytes (4, 8 or 16)",
         t->cta->name, t->linear, size);
  if (reinterpret_cast<uintptr_t>(dst) % size != 0 ||
      reinterpret_cast<uintptr_t>(src) % size != 0)
    fail("kernel %s: thread %" PRId64 ": cp.async of %d bytes with a "
         "misaligned address (PTX ISA: both aligned to the size)",
         t->cta->name, t->linear, size);
  t->openGroup.push_back({dst, src, size, srcSize});
}

extern "C" void nvfp4EmuCpAsyncCommitGroup(void *thread) {
  Thread *t = asThread(thread);
  t->committedGroups.push_back(std::move(t->openGroup));
  t->openGroup.clear();
}

extern "C" void nvfp4EmuCpAsyncWaitGroup(void *thread, int32_t n) {
  Thread *t = asThread(thread);
  const size_t keep = n < 0 ? 0 : static_cast<size_t>(n);
  while (t->committedGroups.size() > keep) {
    for (const AsyncCopy &copy : t->committedGroups.front())
      completeCopy(*t, copy);
    t->committedGroups.erase(t->committedGroups.begin());
  }
}

/// The bf16 in bits [16 h, 16 h + 16) of `packed`, as an f32 (exact).
static float bf16At(int32_t packed, int h) {
  const uint32_t bits = (static_cast<uint32_t>(packed) >> (16 * h)) & 0xFFFFu;
  float value;
  const uint32_t wide = bits << 16;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

/// Deposits the lane's fragments of a warp-wide `mma.sync`; the last lane
/// to arrive runs `compute(warp, slot)`, which fills every lane's D; then
/// copies the lane's D to `d`.
template <typename Compute>
static void warpMma(Thread *t, const int32_t *a, int aRegs, const int32_t *b,
                    int bRegs, const float *c, int32_t scaleA, int32_t scaleB,
                    float *d, Compute compute) {
  Cta &cta = *t->cta;
  const int lane = static_cast<int>(t->linear % kWarpSize);
  WarpMma &warp = cta.mmas[t->linear / kWarpSize];
  const uint64_t g = warp.generation;
  const int slot = static_cast<int>(g % 2);
  std::memcpy(warp.a[slot][lane], a, sizeof(int32_t) * aRegs);
  std::memcpy(warp.b[slot][lane], b, sizeof(int32_t) * bRegs);
  std::memcpy(warp.c[slot][lane], c, sizeof(warp.c[slot][lane]));
  warp.scaleA[slot][lane] = scaleA;
  warp.scaleB[slot][lane] = scaleB;
  warp.arrived[slot] |= 1u << lane;
  t->waitGeneration = g;
  if (warp.arrived[slot] == 0xFFFFFFFFu) {
    compute(warp, slot);
    warp.arrived[1 - slot] = 0;
    ++warp.generation;
  } else {
    t->wait = Wait::Mma;
    yield(t);
  }
  std::memcpy(d, warp.d[slot][lane], sizeof(warp.d[slot][lane]));
}

extern "C" void nvfp4EmuMmaM16N8K16Bf16(void *thread, const int32_t *a,
                                        const int32_t *b, const float *c,
                                        float *d) {
  warpMma(asThread(thread), a, 4, b, 2, c, 0, 0, d,
          [](WarpMma &warp, int slot) {
    // The matrices from the fragments (PTX ISA, mma.m16n8k16 .bf16):
    // group = lane / 4, t4 = lane % 4.
    float am[16][16], bm[16][8], cm[16][8];
    for (int l = 0; l < kWarpSize; ++l) {
      const int group = l / 4, t4 = l % 4;
      for (int r = 0; r < 4; ++r)
        for (int h = 0; h < 2; ++h) {
          const int row = group + 8 * (r % 2);
          const int col = 2 * t4 + h + 8 * (r / 2);
          am[row][col] = bf16At(warp.a[slot][l][r], h);
        }
      for (int r = 0; r < 2; ++r)
        for (int h = 0; h < 2; ++h)
          bm[2 * t4 + h + 8 * r][group] = bf16At(warp.b[slot][l][r], h);
      for (int r = 0; r < 4; ++r)
        cm[group + 8 * (r / 2)][2 * t4 + r % 2] = warp.c[slot][l][r];
    }
    for (int l = 0; l < kWarpSize; ++l) {
      const int group = l / 4, t4 = l % 4;
      for (int r = 0; r < 4; ++r) {
        const int row = group + 8 * (r / 2), col = 2 * t4 + r % 2;
        // bf16 products are exact in double, and so is their sum for the
        // exponent spreads of the kernels' operands; one rounding to f32.
        double sum = cm[row][col];
        for (int k = 0; k < 16; ++k)
          sum += double(am[row][k]) * double(bm[k][col]);
        warp.d[slot][l][r] = static_cast<float>(sum);
      }
    }
  });
}

extern "C" void nvfp4EmuMmaM16N8K64Nvf4(void *thread, const int32_t *a,
                                        const int32_t *b, const float *c,
                                        int32_t scaleA, int32_t byteIdA,
                                        int32_t threadIdA, int32_t scaleB,
                                        int32_t byteIdB, int32_t threadIdB,
                                        float *d) {
  Thread *t = asThread(thread);
  if (byteIdA != 0 || threadIdA != 0 || byteIdB != 0 || threadIdB != 0)
    fail("kernel %s: thread %" PRId64 ": block-scaled mma.sync with scale "
         "selectors {%d, %d} / {%d, %d}: only {0, 0} is modelled",
         t->cta->name, t->linear, byteIdA, threadIdA, byteIdB, threadIdB);
  warpMma(t, a, 4, b, 2, c, scaleA, scaleB, d, [](WarpMma &warp, int slot) {
    auto nibble = [](int32_t reg, int j) {
      return static_cast<uint8_t>((static_cast<uint32_t>(reg) >> (4 * j)) &
                                  0xFu);
    };
    auto scaleByte = [](int32_t reg, int s) {
      // ue4m3: the E4M3 magnitude bits; the sign bit is not part of it.
      return static_cast<uint8_t>((static_cast<uint32_t>(reg) >> (8 * s)) &
                                  0x7Fu);
    };
    float am[16][64], bm[64][8], cm[16][8], sa[16][4], sb[8][4];
    for (int l = 0; l < kWarpSize; ++l) {
      const int group = l / 4, t4 = l % 4;
      for (int r = 0; r < 4; ++r)
        for (int j = 0; j < 8; ++j)
          am[group + 8 * (r % 2)][8 * t4 + j + 32 * (r / 2)] =
              ::nvfp4::decodeE2M1(nibble(warp.a[slot][l][r], j));
      for (int r = 0; r < 2; ++r)
        for (int j = 0; j < 8; ++j)
          bm[8 * t4 + j + 32 * r][group] =
              ::nvfp4::decodeE2M1(nibble(warp.b[slot][l][r], j));
      for (int r = 0; r < 4; ++r)
        cm[group + 8 * (r / 2)][2 * t4 + r % 2] = warp.c[slot][l][r];
      // Scale selectors 0: A's scales from lanes 4g and 4g + 1 (rows g and
      // g + 8), B's from lane 4g; the other lanes' copies are not read.
      for (int s = 0; s < 4; ++s) {
        if (t4 < 2)
          sa[group + 8 * (l % 2)][s] =
              ::nvfp4::decodeE4M3(scaleByte(warp.scaleA[slot][l], s));
        if (t4 == 0)
          sb[group][s] =
              ::nvfp4::decodeE4M3(scaleByte(warp.scaleB[slot][l], s));
      }
    }
    for (int l = 0; l < kWarpSize; ++l) {
      const int group = l / 4, t4 = l % 4;
      for (int r = 0; r < 4; ++r) {
        const int row = group + 8 * (r / 2), col = 2 * t4 + r % 2;
        float acc = cm[row][col];
        for (int kb = 0; kb < 4; ++kb) {
          float partial = 0.0f; // exact: multiples of 1/4 below 576
          for (int e = 0; e < 16; ++e)
            partial += am[row][16 * kb + e] * bm[16 * kb + e][col];
          acc += partial * (sa[row][kb] * sb[col][kb]);
        }
        warp.d[slot][l][r] = acc;
      }
    }
  });
}

namespace {
/// The live allocations of mgpuMemAlloc: start -> size.
std::map<uintptr_t, uint64_t> &deviceAllocations() {
  static std::map<uintptr_t, uint64_t> allocations;
  return allocations;
}
} // namespace

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
        cta.shared.assign(
            static_cast<size_t>(staticSharedBytes + sharedBytes), 0);
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
        counters.globalSectors
            ? 100.0 * double(counters.globalBytes) /
                  double(32 * counters.globalSectors)
            : 100.0,
        counters.sharedRequests, counters.sharedWavefronts,
        counters.sharedWavefronts - counters.sharedRequests,
        counters.sharedBytes, counters.asyncCopyBytes);
}

//===----------------------------------------------------------------------===//
// Host API of gpu-to-llvm on host memory
//===----------------------------------------------------------------------===//

extern "C" void *mgpuStreamCreate() {
  static int stream;
  return &stream;
}
extern "C" void mgpuStreamDestroy(void *) {}
extern "C" void mgpuStreamSynchronize(void *) {}
extern "C" void mgpuStreamWaitEvent(void *, void *) {}
extern "C" void *mgpuEventCreate() {
  static int event;
  return &event;
}
extern "C" void mgpuEventDestroy(void *) {}
extern "C" void mgpuEventSynchronize(void *) {}
extern "C" void mgpuEventRecord(void *, void *) {}

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, void *, bool) {
  // 256-byte aligned, as cuMemAlloc's allocations are; recorded for the
  // out-of-bounds checker.
  void *ptr = nullptr;
  if (posix_memalign(&ptr, 256, sizeBytes ? sizeBytes : 1) != 0)
    fail("mgpuMemAlloc: cannot allocate %" PRIu64 " bytes", sizeBytes);
  deviceAllocations()[reinterpret_cast<uintptr_t>(ptr)] = sizeBytes;
  return ptr;
}
extern "C" void mgpuMemFree(void *ptr, void *) {
  deviceAllocations().erase(reinterpret_cast<uintptr_t>(ptr));
  std::free(ptr);
}
extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *) {
  if (sizeBytes)
    std::memmove(dst, src, sizeBytes);
}
extern "C" void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             void *) {
  auto *words = static_cast<unsigned int *>(dst);
  for (size_t i = 0; i < count; ++i)
    words[i] = value;
}
extern "C" void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             void *) {
  auto *halves = static_cast<unsigned short *>(dst);
  for (size_t i = 0; i < count; ++i)
    halves[i] = value;
}
extern "C" void mgpuMemHostRegister(void *, uint64_t) {}
extern "C" void mgpuMemHostUnregister(void *) {}
extern "C" void mgpuMemHostRegisterMemRef(int64_t, void *, int64_t) {}
extern "C" void mgpuMemHostUnregisterMemRef(int64_t, void *, int64_t) {}
extern "C" void mgpuSetDefaultDevice(int32_t) {}
