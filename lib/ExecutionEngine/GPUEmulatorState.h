//===- GPUEmulatorState.h - The GPU emulator's threads and CTAs -*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Internal to libnvfp4_gpu_emulator: the state of an emulated CTA (its
// threads as fibers, shared memory, warp-wide operations in flight, memory
// counters), shared by the scheduler (GPUEmulator.cpp), the warp-level
// matrix operations (GPUEmulatorMma.cpp) and the host API
// (GPUEmulatorHostApi.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_EXECUTIONENGINE_GPUEMULATORSTATE_H
#define NVFP4_LIB_EXECUTIONENGINE_GPUEMULATORSTATE_H

#include "nvfp4/ExecutionEngine/GPUEmulator.h"

#include <ucontext.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace nvfp4::emulator::detail {

constexpr int kWarpSize = 32;
/// The largest CTA (PTX ISA: 1024 threads).
constexpr int64_t kMaxThreadsPerCta = 1024;
/// Shared memory per CTA: the 228 KiB of an sm_90 / sm_100 SM less the 1 KiB
/// the system reserves.
constexpr int64_t kSharedBytesPerCta = 227 * 1024;
/// Fiber stacks: generous for the JIT-compiled kernel bodies, which keep
/// their values in registers or small frames.
constexpr size_t kStackBytes = 256 * 1024;

/// Prints `format` (printf-style) prefixed with the library's name and
/// exits with status 1: the emulator's way of failing a launch.
[[noreturn]] void fail(const char *format, ...);

enum class Wait { None, Barrier, Shuffle, Mma };

inline const char *waitName(Wait wait) {
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
inline void performCopy(const AsyncCopy &copy) {
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

inline Thread *asThread(void *thread) { return static_cast<Thread *>(thread); }

/// Marks `bytes` at `address` written when they are shared memory.
inline void markSharedWritten(Cta &cta, const void *address, size_t bytes) {
  const auto *p = static_cast<const uint8_t *>(address);
  const uint8_t *base = cta.shared.data();
  if (p >= base && p + bytes <= base + cta.shared.size())
    std::memset(cta.sharedWritten.data() + (p - base), 1, bytes);
}

/// Performs the thread's `cp.async` `copy`, marking its bytes written.
inline void completeCopy(Thread &thread, const AsyncCopy &copy) {
  performCopy(copy);
  thread.cta->asyncCopyBytes += copy.size;
  markSharedWritten(*thread.cta, copy.dst, static_cast<size_t>(copy.size));
}

/// Switches from a blocked thread back to the scheduler.
void yield(Thread *thread);

/// The live allocations of mgpuMemAlloc: start -> size.
std::map<uintptr_t, uint64_t> &deviceAllocations();

} // namespace nvfp4::emulator::detail

#endif // NVFP4_LIB_EXECUTIONENGINE_GPUEMULATORSTATE_H
