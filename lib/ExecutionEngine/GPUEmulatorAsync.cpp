//===- GPUEmulatorAsync.cpp - mbarriers, TMA and bulk copies --------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// libnvfp4_gpu_emulator: the asynchronous side of the kernels — mbarrier
// objects (PTX ISA 9.7.13.15), TMA tile loads and bulk copies that complete
// on them (9.7.9.25.4, 9.7.9.25.5), `mapa`, `elect.sync`, the proxy fence —
// and the completion of whatever is in flight.
//
// Async operations complete as late as the hardware may complete them: a
// TMA load or bulk copy lands when a thread waits on its mbarrier and the
// phase is not complete yet, or when no thread can run; until then its
// bytes are "in flight", and a generic access to them is reported. So a
// kernel that reads a buffer before waiting on its barrier reads bytes in
// flight instead of, by luck, the right data.
//
//===----------------------------------------------------------------------===//

#include "GPUEmulatorState.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05TensorMap.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

using namespace nvfp4::emulator;
using namespace nvfp4::emulator::detail;
namespace tc = nvfp4::gpu::tcgen05;

//===----------------------------------------------------------------------===//
// mbarrier
//===----------------------------------------------------------------------===//

Mbarrier &nvfp4::emulator::detail::getMbarrier(Thread &thread,
                                               const void *address,
                                               const char *op, Cta **cta,
                                               uint32_t *offset) {
  Cta *owner = findShared(thread, address, offset);
  if (!owner || *offset % 8 != 0)
    fail("kernel %s: thread %" PRId64 " of CTA rank %d executes %s on %p, "
         "which is not an 8-byte aligned shared address of its cluster",
         thread.cta->name, thread.linear, thread.cta->rank, op, address);
  auto it = owner->mbarriers.find(*offset);
  if (it == owner->mbarriers.end())
    fail("kernel %s: thread %" PRId64 " of CTA rank %d executes %s on shared "
         "address 0x%x of CTA rank %d, where no mbarrier was initialized "
         "(mbarrier.init)",
         thread.cta->name, thread.linear, thread.cta->rank, op,
         kSharedWindowBase + *offset, owner->rank);
  *cta = owner;
  return it->second;
}

/// Completes the current phase when no arrival and no transaction is
/// pending.
static void tryCompletePhase(Mbarrier &barrier) {
  if (barrier.pending == 0 && barrier.tx == 0) {
    ++barrier.phase;
    barrier.pending = barrier.expected;
  }
}

void nvfp4::emulator::detail::arriveOn(Cta &cta, uint32_t offset,
                                       Mbarrier &barrier, const char *who) {
  if (barrier.pending == 0)
    fail("kernel %s: mbarrier over-arrival: %s arrives on the mbarrier at "
         "shared address 0x%x of CTA rank %d, whose phase %" PRIu64
         " has no pending arrival left (expected %d; tx-count %" PRId64 ")",
         cta.name, who, kSharedWindowBase + offset, cta.rank, barrier.phase,
         barrier.expected, barrier.tx);
  --barrier.pending;
  tryCompletePhase(barrier);
}

extern "C" void nvfp4EmuMbarrierInit(void *thread, void *address,
                                     int32_t count) {
  Thread *t = asThread(thread);
  uint32_t offset = 0;
  Cta *cta = findShared(*t, address, &offset);
  if (cta != t->cta || offset % 8 != 0)
    fail("kernel %s: thread %" PRId64 ": mbarrier.init on %p, which is not "
         "an 8-byte aligned address of its CTA's shared memory",
         t->cta->name, t->linear, address);
  // PTX ISA: the count is in [1, 2^20 - 1].
  if (count < 1 || count > (1 << 20) - 1)
    fail("kernel %s: thread %" PRId64 ": mbarrier.init with count %d "
         "(PTX ISA: 1 to 2^20 - 1)",
         t->cta->name, t->linear, count);
  Mbarrier &barrier = cta->mbarriers[offset];
  barrier = Mbarrier();
  barrier.expected = barrier.pending = count;
  markSharedWritten(*cta, address, 8);
}

extern "C" int64_t nvfp4EmuMbarrierArrive(void *thread, void *address) {
  Thread *t = asThread(thread);
  Cta *cta = nullptr;
  uint32_t offset = 0;
  Mbarrier &barrier =
      getMbarrier(*t, address, "mbarrier.arrive", &cta, &offset);
  const int64_t state = static_cast<int64_t>(barrier.phase);
  char who[64];
  std::snprintf(who, sizeof(who), "thread %" PRId64 " of CTA rank %d",
                t->linear, t->cta->rank);
  arriveOn(*cta, offset, barrier, who);
  return state;
}

extern "C" void nvfp4EmuMbarrierExpectTx(void *thread, void *address,
                                         int32_t bytes) {
  Thread *t = asThread(thread);
  Cta *cta = nullptr;
  uint32_t offset = 0;
  Mbarrier &barrier =
      getMbarrier(*t, address, "mbarrier.expect_tx", &cta, &offset);
  if (bytes < 0)
    fail("kernel %s: thread %" PRId64 ": mbarrier.expect_tx of %d bytes",
         t->cta->name, t->linear, bytes);
  barrier.tx += bytes;
}

extern "C" int8_t nvfp4EmuMbarrierTryWaitParity(void *thread, void *address,
                                                int32_t parity) {
  Thread *t = asThread(thread);
  Cta *cta = nullptr;
  uint32_t offset = 0;
  Mbarrier &barrier =
      getMbarrier(*t, address, "mbarrier.try_wait.parity", &cta, &offset);
  const uint32_t p = static_cast<uint32_t>(parity) & 1;
  // The phase of parity `p` completed when the current phase has the other
  // parity (a fresh barrier reports the phase before phase 0 complete).
  if ((barrier.phase & 1) != p)
    return 1;
  // What is in flight towards this barrier completes before the thread
  // waits; then it waits (try_wait may suspend until the phase completes).
  completeAsync(*t->cta->cluster, cta, offset);
  if ((barrier.phase & 1) != p)
    return 1;
  t->wait = Wait::Mbarrier;
  t->waitCta = cta;
  t->waitOffset = offset;
  t->waitParity = p;
  yield(t);
  return 1;
}

//===----------------------------------------------------------------------===//
// Async-proxy reads and completion
//===----------------------------------------------------------------------===//

void nvfp4::emulator::detail::checkAsyncRead(Cta &cta, uint32_t offset,
                                             uint32_t length,
                                             const char *what) {
  if (static_cast<size_t>(offset) + length > cta.shared.size())
    fail("kernel %s: %s reads shared bytes [0x%x, 0x%x) of CTA rank %d, "
         "beyond its %zu bytes of shared memory",
         cta.name, what, kSharedWindowBase + offset,
         kSharedWindowBase + offset + length, cta.rank, cta.shared.size());
  for (uint32_t i = offset; i < offset + length; ++i) {
    if (cta.sharedPendingWrites[i])
      fail("kernel %s: %s reads shared address 0x%x of CTA rank %d while a "
           "TMA load or bulk copy in flight writes it (no wait on its "
           "mbarrier before the read)",
           cta.name, what, kSharedWindowBase + i, cta.rank);
    if (cta.sharedUnfenced[i])
      fail("kernel %s: %s (async proxy) reads shared address 0x%x of CTA "
           "rank %d, stored by thread %d without a fence.proxy.async "
           "between the store and the read",
           cta.name, what, kSharedWindowBase + i, cta.rank,
           cta.sharedUnfenced[i] - 1);
    if (!cta.sharedWritten[i])
      fail("kernel %s: %s reads shared address 0x%x of CTA rank %d, which "
           "nothing wrote",
           cta.name, what, kSharedWindowBase + i, cta.rank);
  }
}

/// Lands `transfer` in shared memory and completes its transaction bytes.
static void completeTransfer(const Transfer &transfer) {
  Cta &dst = *transfer.dst;
  std::memcpy(dst.shared.data() + transfer.dstOffset, transfer.bytes.data(),
              transfer.bytes.size());
  for (size_t i = 0; i < transfer.bytes.size(); ++i) {
    --dst.sharedPendingWrites[transfer.dstOffset + i];
    dst.sharedWritten[transfer.dstOffset + i] = 1;
  }
  dst.tmaBytes += static_cast<int64_t>(transfer.bytes.size());
  Mbarrier &barrier = transfer.barrierCta->mbarriers.at(transfer.barrierOffset);
  if (barrier.phase != transfer.phase)
    fail("kernel %s: a %s of %zu bytes issued in phase %" PRIu64
         " of the mbarrier at shared address 0x%x of CTA rank %d completes "
         "in phase %" PRIu64
         ": the phase completed without its bytes (expect-tx count too "
         "small)",
         transfer.kernel, transfer.tensor ? "TMA load" : "bulk copy",
         transfer.bytes.size(), transfer.phase,
         kSharedWindowBase + transfer.barrierOffset, transfer.barrierCta->rank,
         barrier.phase);
  barrier.tx -= static_cast<int64_t>(transfer.bytes.size());
  tryCompletePhase(barrier);
}

/// Whether tensor-core operation `op` of `issuer` arrives on the mbarrier of
/// `cta` at `offset`.
static bool signals(const Cta &issuer, const TensorOp &op, const Cta *cta,
                    uint32_t offset) {
  if (op.kind != TensorOp::Kind::Commit || op.barrierOffset != offset)
    return false;
  const Cluster &cluster = *issuer.cluster;
  for (size_t rank = 0; rank < cluster.ctas.size(); ++rank)
    if ((op.rankMask >> rank) & 1 && cluster.ctas[rank] == cta)
      return true;
  return false;
}

bool nvfp4::emulator::detail::completeAsync(Cluster &cluster, Cta *cta,
                                            uint32_t offset) {
  bool any = false;
  for (auto it = cluster.transfers.begin(); it != cluster.transfers.end();) {
    if (cta && (it->barrierCta != cta || it->barrierOffset != offset)) {
      ++it;
      continue;
    }
    Transfer transfer = std::move(*it);
    it = cluster.transfers.erase(it);
    completeTransfer(transfer);
    any = true;
  }
  for (Cta *issuer : cluster.ctas) {
    // The tensor pipe executes in order: everything up to the last commit
    // that signals the barrier (everything, when no barrier is named).
    size_t count = 0;
    for (size_t i = 0; i < issuer->tensorOps.size(); ++i)
      if (!cta || signals(*issuer, issuer->tensorOps[i], cta, offset))
        count = i + 1;
    for (size_t i = 0; i < count; ++i) {
      TensorOp op = std::move(issuer->tensorOps.front());
      issuer->tensorOps.pop_front();
      executeTensorOp(*issuer, op);
      any = true;
    }
  }
  return any;
}

//===----------------------------------------------------------------------===//
// TMA and bulk copies
//===----------------------------------------------------------------------===//

namespace {
/// What nvfp4CudaTensorMapEncode2D writes under the emulator in place of a
/// CUtensorMap: the map's parameters, recognized by `magic`.
struct alignas(64) EmulatedTensorMap {
  static constexpr uint64_t kMagic = 0x4e56465034544d41ull; // "NVFP4TMA"
  uint64_t magic = kMagic;
  tc::ByteTensorMap2D map;
};
static_assert(sizeof(EmulatedTensorMap) <= tc::kTensorMapObjectBytes,
              "an emulated tensor map fits in a CUtensorMap");
} // namespace

/// Queues `transfer` into shared memory of `dst` at `dstOffset`, completing
/// on the mbarrier at `barrierAddress`.
static void issueTransfer(Thread &t, Transfer transfer,
                          const void *barrierAddress, bool pair, const char *op,
                          const char *location) {
  Cta &dst = *transfer.dst;
  const uint32_t length = static_cast<uint32_t>(transfer.bytes.size());
  if (static_cast<size_t>(transfer.dstOffset) + length > dst.shared.size())
    fail("kernel %s: thread %" PRId64 ": %s of %u bytes to shared address "
         "0x%x of CTA rank %d runs past its %zu bytes of shared memory, at %s",
         t.cta->name, t.linear, op, length,
         kSharedWindowBase + transfer.dstOffset, dst.rank, dst.shared.size(),
         location);
  for (uint32_t i = transfer.dstOffset; i < transfer.dstOffset + length; ++i)
    if (dst.sharedPendingReads[i])
      fail("kernel %s: thread %" PRId64 ": %s into shared address 0x%x of "
           "CTA rank %d, which a tcgen05 operation in flight reads (the "
           "buffer is refilled before the commit that tracks its readers "
           "arrived), at %s",
           t.cta->name, t.linear, op, kSharedWindowBase + i, dst.rank,
           location);
  Cta *barrierCta = nullptr;
  Mbarrier &barrier =
      getMbarrier(t, barrierAddress, op, &barrierCta, &transfer.barrierOffset);
  // The mbarrier is in the destination's CTA; with .cta_group::2 it may be
  // in the peer CTA of the pair.
  if (barrierCta != &dst && !(pair && barrierCta->rank == (dst.rank ^ 1)))
    fail("kernel %s: thread %" PRId64 ": %s into CTA rank %d completes on an "
         "mbarrier of CTA rank %d (PTX ISA: the destination's CTA%s), at %s",
         t.cta->name, t.linear, op, dst.rank, barrierCta->rank,
         pair ? " or its peer" : "", location);
  transfer.barrierCta = barrierCta;
  transfer.phase = barrier.phase;
  transfer.kernel = t.cta->name;
  for (uint32_t i = transfer.dstOffset; i < transfer.dstOffset + length; ++i)
    ++dst.sharedPendingWrites[i];
  t.cta->cluster->transfers.push_back(std::move(transfer));
}

/// The tensor map at `tensorMap`, which `instruction` of thread `t` reads;
/// fails unless nvfp4CudaTensorMapEncode2D wrote it.
static const EmulatedTensorMap &checkedTensorMap(const Thread &t,
                                                 const void *tensorMap,
                                                 const char *instruction,
                                                 const char *location) {
  const auto *emulated = static_cast<const EmulatedTensorMap *>(tensorMap);
  if (!emulated || reinterpret_cast<uintptr_t>(tensorMap) % 64 != 0 ||
      emulated->magic != EmulatedTensorMap::kMagic)
    fail("kernel %s: thread %" PRId64 ": %s with %p, which is not a tensor "
         "map of nvfp4CudaTensorMapEncode2D, at %s",
         t.cta->name, t.linear, instruction, tensorMap, location);
  return *emulated;
}

/// prefetch.tensormap: no cache is modelled; the address must be a tensor
/// map, as for the loads that will use it.
extern "C" void nvfp4EmuPrefetchTensorMap(void *thread, const void *tensorMap,
                                          const char *location) {
  (void)checkedTensorMap(*asThread(thread), tensorMap, "prefetch.tensormap",
                         location);
}

extern "C" void nvfp4EmuTmaLoad2D(void *thread, void *dst,
                                  const void *tensorMap, void *barrier,
                                  int32_t x, int32_t y, int32_t pair,
                                  const char *location) {
  Thread *t = asThread(thread);
  const tc::ByteTensorMap2D &map =
      checkedTensorMap(*t, tensorMap, "cp.async.bulk.tensor", location).map;
  Transfer transfer;
  transfer.tensor = true;
  transfer.dst = findShared(*t, dst, &transfer.dstOffset);
  if (!transfer.dst)
    fail("kernel %s: thread %" PRId64 ": cp.async.bulk.tensor to %p, which is "
         "not shared memory of its cluster, at %s",
         t->cta->name, t->linear, dst, location);
  const uint32_t window = kSharedWindowBase + transfer.dstOffset;
  const bool swizzle128 = map.swizzle == tc::TensorMapSwizzle::B128;
  if (window % (swizzle128 ? 1024 : 128) != 0)
    fail("kernel %s: thread %" PRId64 ": cp.async.bulk.tensor to shared "
         "address 0x%x, not %d-byte aligned, at %s",
         t->cta->name, t->linear, window, swizzle128 ? 1024 : 128, location);
  if (map.swizzle != tc::TensorMapSwizzle::None && !swizzle128)
    fail("kernel %s: cp.async.bulk.tensor: only the 128-byte swizzle and "
         "none are modelled",
         t->cta->name);
  const uint64_t boxInner = map.boxInnerBytes, boxOuter = map.boxOuterRows;
  transfer.bytes.assign(boxInner * boxOuter, 0);
  const auto *global = reinterpret_cast<const uint8_t *>(
      static_cast<uintptr_t>(map.globalAddress));
  for (uint64_t row = 0; row < boxOuter; ++row)
    for (uint64_t col = 0; col < boxInner; ++col) {
      const int64_t gx = int64_t(x) + int64_t(col),
                    gy = int64_t(y) + int64_t(row);
      // Out-of-bounds elements are zeros (OOB fill NONE).
      uint8_t value = 0;
      if (gx >= 0 && gy >= 0 && uint64_t(gx) < map.innerBytes &&
          uint64_t(gy) < map.outerRows)
        value = global[uint64_t(gy) * map.rowStrideBytes + uint64_t(gx)];
      // The box is written densely, row after row; the 128-byte swizzle
      // exchanges 16-byte chunks by the shared address: bits [4, 7) xor
      // bits [7, 10) (CUDA programming guide, "TMA Swizzle").
      uint32_t at = window + static_cast<uint32_t>(row * boxInner + col);
      if (swizzle128)
        at ^= ((at >> 7) & 7) << 4;
      transfer.bytes[at - window] = value;
    }
  issueTransfer(*t, std::move(transfer), barrier, pair != 0,
                "cp.async.bulk.tensor", location);
}

extern "C" void nvfp4EmuBulkCopy(void *thread, void *dst, const void *src,
                                 int32_t size, void *barrier,
                                 const char *location) {
  Thread *t = asThread(thread);
  const uintptr_t source = reinterpret_cast<uintptr_t>(src);
  if (size <= 0 || size % 16 != 0 || source % 16 != 0 ||
      reinterpret_cast<uintptr_t>(dst) % 16 != 0)
    fail("kernel %s: thread %" PRId64 ": cp.async.bulk of %d bytes from %p to "
         "%p (PTX ISA: a multiple of 16 bytes, 16-byte aligned), at %s",
         t->cta->name, t->linear, size, src, dst, location);
  if (!inDeviceAllocation(source, static_cast<uint64_t>(size)))
    fail("kernel %s: thread %" PRId64 ": out-of-bounds cp.async.bulk of %d "
         "bytes from global %p, at %s",
         t->cta->name, t->linear, size, src, location);
  Transfer transfer;
  transfer.dst = findShared(*t, dst, &transfer.dstOffset);
  if (!transfer.dst)
    fail("kernel %s: thread %" PRId64 ": cp.async.bulk to %p, which is not "
         "shared memory of its cluster, at %s",
         t->cta->name, t->linear, dst, location);
  const auto *bytes = static_cast<const uint8_t *>(src);
  transfer.bytes.assign(bytes, bytes + size);
  issueTransfer(*t, std::move(transfer), barrier, /*pair=*/false,
                "cp.async.bulk", location);
}

//===----------------------------------------------------------------------===//
// Clusters, elect, fences
//===----------------------------------------------------------------------===//

extern "C" void *nvfp4EmuMapa(void *thread, void *address, int32_t rank) {
  Thread *t = asThread(thread);
  const Cluster &cluster = *t->cta->cluster;
  const auto *p = static_cast<uint8_t *>(address);
  const uint8_t *base = t->cta->shared.data();
  if (p < base || p > base + t->cta->shared.size())
    fail("kernel %s: thread %" PRId64 ": mapa of %p, which is not in its "
         "CTA's shared memory",
         t->cta->name, t->linear, address);
  if (rank < 0 || rank >= static_cast<int32_t>(cluster.ctas.size()))
    fail("kernel %s: thread %" PRId64 ": mapa to CTA rank %d of a cluster of "
         "%zu",
         t->cta->name, t->linear, rank, cluster.ctas.size());
  return cluster.ctas[rank]->shared.data() + (p - base);
}

extern "C" int8_t nvfp4EmuElectSync(void *thread, int32_t memberMask) {
  Thread *t = asThread(thread);
  // Warp-wide like shfl.sync: every member arrives; the leader is the
  // lowest member lane (the ISA: chosen deterministically).
  nvfp4EmuShflSync(thread, static_cast<int32_t>(ShuffleMode::Index), memberMask,
                   0, 0, 0x1F, nullptr);
  const int lane = static_cast<int>(t->linear % kWarpSize);
  return lane == __builtin_ctz(static_cast<uint32_t>(memberMask)) ? 1 : 0;
}

extern "C" void nvfp4EmuFenceProxyAsync(void *thread) {
  Thread *t = asThread(thread);
  Cta &cta = *t->cta;
  const uint16_t id = static_cast<uint16_t>(t->linear + 1);
  for (const auto &[offset, length] : t->unfencedStores)
    for (uint32_t i = offset; i < offset + length; ++i)
      if (cta.sharedUnfenced[i] == id)
        cta.sharedUnfenced[i] = 0;
  t->unfencedStores.clear();
}

//===----------------------------------------------------------------------===//
// Host side of the tcgen05 kernels
//===----------------------------------------------------------------------===//

extern "C" void
nvfp4CudaTensorMapEncode2D(void *tensorMap, void *globalAddress,
                           uint64_t innerBytes, uint64_t outerRows,
                           uint64_t rowStrideBytes, uint32_t boxInnerBytes,
                           uint32_t boxOuterRows, int32_t swizzle) {
  if (!tensorMap ||
      reinterpret_cast<uintptr_t>(tensorMap) % tc::kTensorMapObjectAlignment !=
          0)
    fail("nvfp4CudaTensorMapEncode2D: the map at %p is not 64-byte aligned",
         tensorMap);
  const tc::ByteTensorMap2D map = tc::byteTensorMap2D(
      reinterpret_cast<uintptr_t>(globalAddress), innerBytes, outerRows,
      rowStrideBytes, boxInnerBytes, boxOuterRows, swizzle);
  // cuTensorMapEncodeTiled's rules, and the tensor within one allocation.
  if (tc::TensorMapIssue issue = tc::checkByteTensorMap2D(map);
      issue != tc::TensorMapIssue::None)
    fail("nvfp4CudaTensorMapEncode2D: %s", tc::describeTensorMapIssue(issue));
  const std::optional<uint64_t> span = tc::tensorMapSpanBytes(map);
  if (!span || !inDeviceAllocation(map.globalAddress, *span))
    fail("nvfp4CudaTensorMapEncode2D: the %" PRIu64 " x %" PRIu64
         " byte tensor at %p is not within one device allocation",
         outerRows, innerBytes, globalAddress);
  std::memset(tensorMap, 0, tc::kTensorMapObjectBytes);
  new (tensorMap) EmulatedTensorMap{EmulatedTensorMap::kMagic, map};
}

extern "C" void nvfp4CudaCheckShape(int32_t holds, const char *message) {
  if (!holds)
    fail("%s", message ? message : "a run-time shape check failed");
}

extern "C" int32_t nvfp4CudaMultiprocessorCount() {
  // A B200's 148 SMs unless a test asks for fewer (persistent kernels then
  // wrap around more tiles per CTA).
  const char *sms = std::getenv("NVFP4_GPU_EMULATOR_SMS");
  if (!sms || !*sms)
    return 148;
  char *end = nullptr;
  const long count = std::strtol(sms, &end, 10);
  if (*end != '\0' || count < 1 || count > 100000)
    fail("NVFP4_GPU_EMULATOR_SMS=%s: expected an SM count from 1 to 100000",
         sms);
  return static_cast<int32_t>(count);
}
