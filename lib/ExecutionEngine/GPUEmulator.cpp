//===- GPUEmulator.cpp - Thread-level operations of emulated kernels ------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// libnvfp4_gpu_emulator: executes the kernels nvfp4-emulate-gpu-kernels
// turned into host functions. This file holds the thread-level operations
// (special registers, bar.sync, barrier.cluster, shfl.sync, cvt, shared
// memory and shared addresses, the access checks and memory counters);
// GPUEmulatorScheduler.cpp the fibers, clusters and launches,
// GPUEmulatorMma.cpp cp.async and the warp-wide MMAs, GPUEmulatorAsync.cpp
// mbarriers, TMA and bulk copies, GPUEmulatorTcgen05.cpp tensor memory and
// the tcgen05 family, GPUEmulatorHostApi.cpp the mgpu* host API of
// gpu-to-llvm on host memory.
//
//===----------------------------------------------------------------------===//

#include "GPUEmulatorState.h"

#include "nvfp4/Numerics/Numerics.h"

#include <cinttypes>
#include <cstdio>
#include <string>

using namespace nvfp4::emulator;
using namespace nvfp4::emulator::detail;

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

extern "C" void nvfp4EmuWarpSync(void *thread, int32_t memberMask) {
  Thread *t = asThread(thread);
  const int lane = static_cast<int>(t->linear % kWarpSize);
  if (!(static_cast<uint32_t>(memberMask) & (1u << lane)))
    fail("kernel %s: thread %" PRId64 " executes bar.warp.sync with a member "
         "mask 0x%08x that excludes its own lane %d (undefined in the PTX "
         "ISA)",
         t->cta->name, t->linear, static_cast<uint32_t>(memberMask), lane);
  // The same rendezvous as shfl.sync: every member lane arrives.
  nvfp4EmuShflSync(thread, static_cast<int32_t>(ShuffleMode::Index),
                   memberMask, 0, 0, 0x1F, nullptr);
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
    inBounds = inDeviceAllocation(begin, static_cast<uint64_t>(bytes));
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
