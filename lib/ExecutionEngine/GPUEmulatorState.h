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
#include <cstdlib>
#include <cstring>
#include <deque>
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

/// The PTX address of shared byte 0 of a CTA: shared addresses start after
/// the 1 KiB the system reserves, so that kernels which align their buffers
/// at run time are exercised with a base that is not itself aligned beyond
/// 1 KiB. Bits 24 and up of a shared address hold the CTA's rank in its
/// cluster (the shared::cluster window; CUTLASS's peer-bit mask clears bit
/// 24 to name the even CTA of a pair).
constexpr uint32_t kSharedWindowBase = 1024;
constexpr int kClusterRankShift = 24;

enum class Wait {
  None,
  Barrier,
  Shuffle,
  Mma,
  LdMatrix,
  Mbarrier,
  ClusterBarrier
};

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
  case Wait::LdMatrix:
    return "ldmatrix";
  case Wait::Mbarrier:
    return "mbarrier.try_wait";
  case Wait::ClusterBarrier:
    return "barrier.cluster.wait";
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
struct Cluster;

/// An mbarrier object (PTX ISA 9.7.13.15): the arrivals a phase expects, the
/// arrivals still pending and the transaction count of the current phase,
/// and the number of completed phases. Kept beside shared memory, keyed by
/// the object's offset; its 8 bytes count as written once initialized.
struct Mbarrier {
  int32_t expected = 0;
  int32_t pending = 0;
  int64_t tx = 0;
  uint64_t phase = 0;
};

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
  /// `barrier.cluster.arrive` executed and not yet waited for, and the
  /// phase it arrived in.
  bool clusterArrived = false;
  uint64_t clusterArrivalGeneration = 0;
  /// Executions of each access site so far (memory counters only).
  std::unordered_map<int32_t, uint32_t> siteExecutions;
  /// `cp.async`: the open group and the committed ones, oldest first.
  std::vector<AsyncCopy> openGroup;
  std::vector<std::vector<AsyncCopy>> committedGroups;
  /// The barrier or shuffle generation the thread waits to see pass.
  uint64_t waitGeneration = 0;
  /// `mbarrier.try_wait.parity`: the barrier (its CTA and offset) and the
  /// parity of the phase the thread waits to see complete.
  Cta *waitCta = nullptr;
  uint32_t waitOffset = 0;
  uint32_t waitParity = 0;
  /// Shared bytes the thread stored since its last `fence.proxy.async`:
  /// the async proxy (tcgen05.cp, tcgen05.mma, TMA) must not read them.
  std::vector<std::pair<uint32_t, uint32_t>> unfencedStores;
  /// `tcgen05.alloc` / `dealloc` / `relinquish_alloc_permit` executed by
  /// the thread: the warp performs each the first time one of its lanes
  /// reaches it (the instructions are warp-wide).
  uint32_t tensorAllocOps = 0;
  /// Runtime calls of the thread: the operations with no host equivalent
  /// (NVVM operations, checked accesses) it executed.
  uint64_t modelledOperations = 0;
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
  /// The lanes' scale selectors {byte-id-a, thread-id-a, byte-id-b,
  /// thread-id-b} of a block-scaled MMA.
  int32_t selectors[2][kWarpSize][4] = {};
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
  /// The fewest wavefronts the shared requests could take: one per 128
  /// bytes of distinct words (a 16-byte access by 32 lanes needs 4).
  int64_t sharedMinWavefronts = 0;
  /// `cp.async` instructions (one per thread) and the bytes they moved.
  int64_t asyncCopies = 0, asyncCopyBytes = 0;
  /// Bytes moved by TMA loads and bulk copies.
  int64_t tmaBytes = 0;
};

/// A tensor-core operation in flight (PTX ISA 9.7.16: tcgen05.mma,
/// tcgen05.cp and tcgen05.commit execute asynchronously, in issue order).
struct TensorOp {
  enum class Kind { Mma, Copy, Commit } kind = Kind::Mma;
  bool pair = false; // .cta_group::2
  const char *location = "";
  // Mma: D, scale A and B tensor-memory addresses, descriptors.
  uint32_t d = 0, scaleA = 0, scaleB = 0, idesc = 0;
  uint64_t adesc = 0, bdesc = 0;
  bool enableInputD = false;
  Tcgen05MmaKind mmaKind = Tcgen05MmaKind::Mxf4Nvf4Block16;
  // Copy: tensor-memory address and shared-memory descriptor (adesc).
  // Commit: the mbarrier offset and the CTA ranks it arrives at.
  uint32_t barrierOffset = 0;
  uint32_t rankMask = 0;
  /// Shared bytes the operation reads: (CTA rank, offset, length).
  std::vector<std::tuple<int32_t, uint32_t, uint32_t>> reads;
};

struct Cta {
  Cluster *cluster = nullptr;
  /// %cluster_ctarank.
  int32_t rank = 0;
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
  /// Per shared byte: async-proxy writes in flight (TMA, bulk copies) and
  /// tensor-core operations in flight that read it.
  std::vector<uint8_t> sharedPendingWrites, sharedPendingReads;
  /// Per shared byte: a generic-proxy store not yet followed by its
  /// thread's `fence.proxy.async` (the thread's index + 1, 0 for none).
  std::vector<uint16_t> sharedUnfenced;
  std::map<uint32_t, Mbarrier> mbarriers;
  /// Tensor memory: 128 lanes x 512 columns of 32 bits, the cells written
  /// so far, the allocated columns (first column -> count) and whether the
  /// CTA relinquished its right to allocate.
  std::vector<uint32_t> tmem;
  std::vector<uint8_t> tmemWritten;
  std::map<uint32_t, uint32_t> tmemAllocations;
  bool tmemRelinquished = false;
  /// Warp-wide tcgen05 allocation operations performed, per warp.
  std::vector<uint32_t> warpTensorAllocOps;
  /// The tensor pipe: tcgen05 operations issued and not yet executed.
  std::deque<TensorOp> tensorOps;
  /// `bar.sync 0`: arrivals of the current phase, and its generation.
  int64_t barrierArrived = 0;
  uint64_t barrierGeneration = 0;
  KernelEntry entry = nullptr;
  void **params = nullptr;
  /// The memory counters' requests (only when reporting).
  bool countMemory = false;
  std::map<RequestKey, Request> requests;
  int64_t asyncCopies = 0, asyncCopyBytes = 0;
  int64_t tmaBytes = 0;
  const char *name = "";
};

/// A TMA load or bulk copy in flight: the bytes it writes (read from global
/// memory when issued), where, and the mbarrier it completes on.
struct Transfer {
  Cta *dst = nullptr;
  uint32_t dstOffset = 0;
  std::vector<uint8_t> bytes;
  Cta *barrierCta = nullptr;
  uint32_t barrierOffset = 0;
  /// The barrier's phase when the transfer was issued.
  uint64_t phase = 0;
  bool tensor = false; // TMA (else a bulk copy)
  const char *kernel = "";
};

/// The CTAs of one cluster, which run concurrently: every thread of every
/// CTA is a fiber of one scheduler.
struct Cluster {
  std::vector<Cta *> ctas; // by %cluster_ctarank
  int32_t dims[3] = {1, 1, 1};
  ucontext_t scheduler;
  /// The scheduler's stack, for AddressSanitizer's switches back to it.
  const void *schedulerStack = nullptr;
  size_t schedulerStackSize = 0;
  /// `barrier.cluster`: arrivals of the current phase, and its generation.
  int64_t barrierArrived = 0;
  uint64_t barrierGeneration = 0;
  std::deque<Transfer> transfers;
};

/// The thread context of a kernel-side runtime call, counting the call as
/// one modelled operation.
inline Thread *asThread(void *thread) {
  Thread *t = static_cast<Thread *>(thread);
  ++t->modelledOperations;
  return t;
}

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
  ++thread.cta->asyncCopies;
  thread.cta->asyncCopyBytes += copy.size;
  markSharedWritten(*thread.cta, copy.dst, static_cast<size_t>(copy.size));
}

/// Switches from a blocked thread back to the scheduler.
void yield(Thread *thread);

/// Completes the `bar.sync 0` phase of `cta` when every live thread
/// arrived.
void tryReleaseBarrier(Cta &cta);

/// Completes the `barrier.cluster` phase when every live thread of the
/// cluster arrived (exited threads count as arrived).
void tryReleaseClusterBarrier(Cluster &cluster);

/// The CTA of `thread`'s cluster whose shared memory holds `address`, and
/// the byte's offset in it; null when no CTA's does.
Cta *findShared(Thread &thread, const void *address, uint32_t *offset);

/// The mbarrier at `address` (shared memory of a CTA of the thread's
/// cluster); fails unless one was initialized there.
Mbarrier &getMbarrier(Thread &thread, const void *address, const char *op,
                      Cta **cta, uint32_t *offset);

/// One arrival on `barrier` (of `cta`, at `offset`); fails on over-arrival.
void arriveOn(Cta &cta, uint32_t offset, Mbarrier &barrier, const char *who);

/// Completes, in issue order, the transfers and tensor-core operations in
/// flight that signal the mbarrier of `cta` at `offset` (all of them when
/// `cta` is null). Returns whether anything completed.
bool completeAsync(Cluster &cluster, Cta *cta, uint32_t offset);

/// Executes the tensor-core operation `op` issued by `issuer`.
void executeTensorOp(Cta &issuer, const TensorOp &op);

/// Fails when the shared bytes [offset, offset + length) of `cta` are read
/// by the async proxy while a generic store to them is not fenced, a write
/// is in flight, or they were never written.
void checkAsyncRead(Cta &cta, uint32_t offset, uint32_t length,
                    const char *what);

/// The contributions of one 32-wide K block of MX operands to C, as
/// nvfp4::mx::matmul computes a block (the exact sum of the products
/// rounded to f32, scaled by 2^(eA + eB)): out[r * bRows + c] for A's
/// `aRows` rows (codes aCodes[r * aStride + e], e < 32, one code per byte,
/// E8M0 scale aScales[r], element type `aType`) and B's `bRows` rows
/// likewise. Fails with `what` on a library error. The MX models of
/// mma.sync and tcgen05.mma both use it.
void mxBlockProducts(const char *what, const uint8_t *aCodes, int64_t aStride,
                     const uint8_t *aScales, int64_t aRows, int aType,
                     const uint8_t *bCodes, int64_t bStride,
                     const uint8_t *bScales, int64_t bRows, int bType,
                     float *out);

/// The live allocations of mgpuMemAlloc: start -> size.
std::map<uintptr_t, uint64_t> &deviceAllocations();

/// Whether the `bytes` bytes at `begin` lie in one live allocation of
/// mgpuMemAlloc.
bool inDeviceAllocation(uintptr_t begin, uint64_t bytes);

/// Whether NVFP4_GPU_EMULATOR_REPORT asks for the memory counters of each
/// launch and a line per host/device copy.
inline bool reportMemory() {
  const char *report = std::getenv("NVFP4_GPU_EMULATOR_REPORT");
  return report && *report && std::strcmp(report, "0") != 0;
}

} // namespace nvfp4::emulator::detail

#endif // NVFP4_LIB_EXECUTIONENGINE_GPUEMULATORSTATE_H
