//===- GPUEmulatorTcgen05.cpp - Tensor memory and the tcgen05 family -------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// libnvfp4_gpu_emulator: the 5th-generation tensor core (PTX ISA 9.7.16) —
// tensor memory and its allocation, `tcgen05.cp`, the block-scaled
// `tcgen05.mma` of kind::mxf4nvf4, `tcgen05.commit` and `tcgen05.ld`.
//
// `tcgen05.cp`, `tcgen05.mma` and `tcgen05.commit` are queued in the
// issuing CTA's tensor pipe and execute in issue order as late as the
// hardware may execute them: when a thread waits on an mbarrier a queued
// commit arrives at (and the phase is not complete yet), or when no thread
// can run. The shared bytes they read are "in flight" until then: a store
// or TMA load into them is reported, and so is a `tcgen05.ld` of tensor
// memory a queued MMA writes.
//
// The descriptors are decoded from the PTX ISA's tables ("Instruction
// descriptor", "Shared memory descriptor", "Matrix descriptors" of 9.7.16)
// and CUTLASS's `UMMA::InstrDescriptorBlockScaled` / `UMMA::SmemDescriptor`,
// not from the kernel builder's encoders (Tcgen05Descriptors.h).
//
//===----------------------------------------------------------------------===//

#include "GPUEmulatorState.h"

#include "nvfp4/Numerics/Numerics.h"

#include <cinttypes>

using namespace nvfp4::emulator;
using namespace nvfp4::emulator::detail;

namespace {

constexpr uint32_t kTmemLanes = 128;
constexpr uint32_t kTmemColumns = 512;

uint32_t laneOf(uint32_t address) { return address >> 16; }
uint32_t columnOf(uint32_t address) { return address & 0xFFFF; }
uint32_t tmemAddress(const void *pointer) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(pointer));
}

/// Fails unless tensor-memory columns [column, column + count) of `cta` are
/// allocated.
void checkAllocated(const Cta &cta, uint32_t column, uint32_t count,
                    const char *what, const char *location) {
  auto it = cta.tmemAllocations.upper_bound(column);
  if (it != cta.tmemAllocations.begin()) {
    --it;
    if (column + count <= it->first + it->second)
      return;
  }
  fail("kernel %s: %s uses tensor-memory columns [%u, %u) of CTA (%d, %d, "
       "%d), which are not allocated (tcgen05.alloc), at %s",
       cta.name, what, column, column + count, cta.ctaid[0], cta.ctaid[1],
       cta.ctaid[2], location);
}

uint32_t &cell(Cta &cta, uint32_t lane, uint32_t column) {
  return cta.tmem[lane * kTmemColumns + column];
}

/// Reads the cell, which must have been written.
uint32_t readCell(Cta &cta, uint32_t lane, uint32_t column, const char *what,
                  const char *location) {
  if (!cta.tmemWritten[lane * kTmemColumns + column])
    fail("kernel %s: %s reads tensor-memory lane %u, column %u of CTA (%d, "
         "%d, %d), which nothing wrote, at %s",
         cta.name, what, lane, column, cta.ctaid[0], cta.ctaid[1],
         cta.ctaid[2], location);
  return cell(cta, lane, column);
}

void writeCell(Cta &cta, uint32_t lane, uint32_t column, uint32_t value) {
  cell(cta, lane, column) = value;
  cta.tmemWritten[lane * kTmemColumns + column] = 1;
}

/// A decoded shared-memory matrix descriptor (PTX ISA, "Shared memory
/// descriptor"; CUTLASS UMMA::SmemDescriptor): start address, leading and
/// stride byte offsets in bytes, swizzle mode (0 none, 2 128-byte).
struct SmemDescriptor {
  uint32_t start, leading, stride, swizzle;
};

SmemDescriptor decodeSmemDescriptor(const Cta &cta, uint64_t desc,
                                    const char *what, const char *location) {
  SmemDescriptor d;
  d.start = static_cast<uint32_t>(desc & 0x3FFF) << 4;
  d.leading = static_cast<uint32_t>((desc >> 16) & 0x3FFF) << 4;
  d.stride = static_cast<uint32_t>((desc >> 32) & 0x3FFF) << 4;
  const uint32_t version = (desc >> 46) & 0x3;
  const uint32_t baseOffset = (desc >> 49) & 0x7;
  d.swizzle = static_cast<uint32_t>(desc >> 61) & 0x7;
  if (version != 1 || baseOffset != 0 || (d.swizzle != 0 && d.swizzle != 2))
    fail("kernel %s: %s with shared-memory descriptor 0x%016" PRIx64
         " (version %u, base offset %u, swizzle mode %u): only version 1, "
         "base offset 0 and the modes none (0) and 128-byte (2) are "
         "modelled, at %s",
         cta.name, what, desc, version, baseOffset, d.swizzle, location);
  return d;
}

/// The shared address (in the CTA's window) of byte `k` of row `row` of a
/// K-major operand: the canonical layout of the descriptor's mode, then
/// the 128-byte swizzle (address bits [4, 7) xor bits [7, 10)).
uint32_t operandByteAddress(const SmemDescriptor &d, uint32_t row,
                            uint32_t k) {
  if (d.swizzle == 2) {
    // 8 rows of 128 bytes per 1024-byte atom, atoms SBO apart.
    uint32_t address = d.start + (row / 8) * d.stride + (row % 8) * 128 + k;
    return address ^ (((address >> 7) & 7) << 4);
  }
  // No swizzle: 8 x 16-byte core matrices (rows 16 bytes apart), SBO apart
  // along the rows, LBO apart along K.
  return d.start + (row / 8) * d.stride + (row % 8) * 16 +
         (k / 16) * d.leading + k % 16;
}

/// The shared offset of window address `address` in `cta`.
uint32_t sharedOffset(const Cta &cta, uint32_t address, const char *what,
                      const char *location) {
  if (address < kSharedWindowBase ||
      address - kSharedWindowBase >= cta.shared.size())
    fail("kernel %s: %s reads shared address 0x%x, outside the %zu bytes of "
         "CTA rank %d, at %s",
         cta.name, what, address, cta.shared.size(), cta.rank, location);
  return address - kSharedWindowBase;
}

/// The decoded instruction descriptor of kind::mxf4nvf4 (PTX ISA,
/// "Instruction descriptor format for .kind::mxf4nvf4"; CUTLASS
/// UMMA::InstrDescriptorBlockScaled).
struct InstrDescriptor {
  uint32_t m, n;
};

InstrDescriptor decodeInstrDescriptor(const Cta &cta, uint32_t idesc,
                                      bool pair, const char *location) {
  const uint32_t sparse = (idesc >> 2) & 1;
  const uint32_t scaleB = (idesc >> 4) & 3;
  const uint32_t formatA = (idesc >> 7) & 7;
  const uint32_t formatB = (idesc >> 10) & 7;
  const uint32_t negate = (idesc >> 13) & 3;
  const uint32_t transpose = (idesc >> 15) & 3;
  const uint32_t scaleFormat = (idesc >> 23) & 1;
  const uint32_t scaleA = (idesc >> 29) & 3;
  InstrDescriptor d;
  d.n = ((idesc >> 17) & 0x3F) << 3;
  d.m = ((idesc >> 27) & 0x3) << 7;
  // E2M1 is format 1 for both operands; K-major (no transpose), no
  // negation, dense, UE4M3 scales (.block16), scale ids 0 (4X: the four
  // scales of a 64-wide K step fill a 32-bit column).
  const bool shapeOk = pair ? (d.m == 256 && d.n >= 16 && d.n <= 256 &&
                               d.n % 16 == 0)
                            : (d.m == 128 && d.n >= 8 && d.n <= 256 &&
                               d.n % 8 == 0);
  if (sparse || formatA != 1 || formatB != 1 || negate || transpose ||
      scaleFormat != 0 || scaleA || scaleB || !shapeOk)
    fail("kernel %s: tcgen05.mma.cta_group::%d.kind::mxf4nvf4 with "
         "instruction descriptor 0x%08x (M %u, N %u, formats %u/%u, sparse "
         "%u, negate %u, transpose %u, scale format %u, scale ids %u/%u): "
         "only dense K-major E2M1 x E2M1 with UE4M3 scales, scale ids 0, "
         "M = %d and a legal N are modelled, at %s",
         cta.name, pair ? 2 : 1, idesc, d.m, d.n, formatA, formatB, sparse,
         negate, transpose, scaleFormat, scaleA, scaleB, pair ? 256 : 128,
         location);
  return d;
}

/// The CTAs an operation of `issuer` works on: the issuer, and with
/// .cta_group::2 its peer (the CTA whose rank differs in bit 0).
std::vector<Cta *> pairOf(Cta &issuer, bool pair, const char *what,
                          const char *location) {
  if (!pair)
    return {&issuer};
  const Cluster &cluster = *issuer.cluster;
  const int32_t peer = issuer.rank ^ 1;
  if (peer >= static_cast<int32_t>(cluster.ctas.size()))
    fail("kernel %s: %s.cta_group::2 in CTA rank %d of a cluster of %zu "
         "CTAs, which has no peer CTA, at %s",
         issuer.name, what, issuer.rank, cluster.ctas.size(), location);
  std::vector<Cta *> ctas = {cluster.ctas[issuer.rank & ~1],
                             cluster.ctas[issuer.rank | 1]};
  return ctas;
}

/// Decodes a scale byte (ue4m3: the E4M3 magnitude).
float scaleValue(uint32_t word, uint32_t byte) {
  return ::nvfp4::decodeE4M3(static_cast<uint8_t>((word >> (8 * byte)) & 0x7F));
}

void executeMma(Cta &issuer, const TensorOp &op) {
  const char *what = "tcgen05.mma";
  const InstrDescriptor id =
      decodeInstrDescriptor(issuer, op.idesc, op.pair, op.location);
  std::vector<Cta *> ctas = pairOf(issuer, op.pair, what, op.location);
  const uint32_t rowsPerCta = 128;
  const uint32_t n = id.n;
  // B: all N rows from the issuer, or N/2 from each CTA of the pair.
  const uint32_t bRowsPerCta = n / static_cast<uint32_t>(ctas.size());
  std::vector<float> b(static_cast<size_t>(n) * 64);
  for (size_t c = 0; c < ctas.size(); ++c) {
    Cta &cta = *ctas[c];
    const SmemDescriptor bd =
        decodeSmemDescriptor(cta, op.bdesc, what, op.location);
    for (uint32_t row = 0; row < bRowsPerCta; ++row)
      for (uint32_t k = 0; k < 32; ++k) {
        const uint32_t at = sharedOffset(
            cta, operandByteAddress(bd, row, k), what, op.location);
        const uint8_t byte = cta.shared[at];
        float *out = &b[(c * bRowsPerCta + row) * 64 + 2 * k];
        // Packed E2M1: element 2k in the low nibble, 2k + 1 in the high.
        out[0] = ::nvfp4::decodeE2M1(byte & 0xF);
        out[1] = ::nvfp4::decodeE2M1(byte >> 4);
      }
  }
  const uint32_t dColumn = columnOf(op.d), aScaleColumn = columnOf(op.scaleA),
                 bScaleColumn = columnOf(op.scaleB);
  if (laneOf(op.d) || laneOf(op.scaleA) || laneOf(op.scaleB))
    fail("kernel %s: tcgen05.mma with a tensor-memory address in lane "
         "%u/%u/%u (D, scale A, scale B): M = 128 per CTA uses lanes 0..127, "
         "at %s",
         issuer.name, laneOf(op.d), laneOf(op.scaleA), laneOf(op.scaleB),
         op.location);
  for (Cta *ctaPtr : ctas) {
    Cta &cta = *ctaPtr;
    checkAllocated(cta, dColumn, n, "tcgen05.mma (D)", op.location);
    checkAllocated(cta, aScaleColumn, rowsPerCta / 32,
                   "tcgen05.mma (scale A)", op.location);
    checkAllocated(cta, bScaleColumn, (n + 31) / 32, "tcgen05.mma (scale B)",
                   op.location);
    const SmemDescriptor ad =
        decodeSmemDescriptor(cta, op.adesc, what, op.location);
    std::vector<float> a(rowsPerCta * 64);
    for (uint32_t row = 0; row < rowsPerCta; ++row)
      for (uint32_t k = 0; k < 32; ++k) {
        const uint8_t byte = cta.shared[sharedOffset(
            cta, operandByteAddress(ad, row, k), what, op.location)];
        a[row * 64 + 2 * k] = ::nvfp4::decodeE2M1(byte & 0xF);
        a[row * 64 + 2 * k + 1] = ::nvfp4::decodeE2M1(byte >> 4);
      }
    // Scales (4X: the four UE4M3 scales of a row's 64-wide K step in one
    // 32-bit cell): row r of a 128-row block in lane r % 32 of a
    // sub-partition, column base + r / 32. The data path of rows
    // [32 q, 32 q + 32) reads sub-partition q (lanes 32 q ..): A row m at
    // lane m, and B row j at lane 32 (m / 32) + j % 32, column base + j / 32.
    for (uint32_t m = 0; m < rowsPerCta; ++m) {
      const uint32_t aWord = readCell(cta, m, aScaleColumn + m / 32,
                                      "tcgen05.mma (scale A)", op.location);
      const uint32_t quadrant = 32 * (m / 32);
      for (uint32_t j = 0; j < n; ++j) {
        const uint32_t bWord =
            readCell(cta, quadrant + j % 32, bScaleColumn + j / 32,
                     "tcgen05.mma (scale B)", op.location);
        float acc = 0.0f;
        if (op.enableInputD) {
          const uint32_t bits =
              readCell(cta, m, dColumn + j, "tcgen05.mma (D)", op.location);
          std::memcpy(&acc, &bits, sizeof(acc));
        }
        // Per 16-wide block in increasing K: the exact block sum times the
        // two scales, added with one f32 rounding (the reference GEMM's
        // order; the ISA leaves the accumulation order open).
        for (uint32_t kb = 0; kb < 4; ++kb) {
          float partial = 0.0f; // exact: multiples of 1/4 below 576
          for (uint32_t e = 0; e < 16; ++e)
            partial += a[m * 64 + 16 * kb + e] * b[j * 64 + 16 * kb + e];
          acc += partial * (scaleValue(aWord, kb) * scaleValue(bWord, kb));
        }
        uint32_t bits;
        std::memcpy(&bits, &acc, sizeof(bits));
        writeCell(cta, m, dColumn + j, bits);
      }
    }
  }
}

void executeCopy(Cta &issuer, const TensorOp &op) {
  const char *what = "tcgen05.cp.32x128b.warpx4";
  for (Cta *ctaPtr : pairOf(issuer, op.pair, "tcgen05.cp", op.location)) {
    Cta &cta = *ctaPtr;
    const uint32_t column = columnOf(op.d);
    checkAllocated(cta, column, 4, what, op.location);
    const SmemDescriptor sd =
        decodeSmemDescriptor(cta, op.adesc, what, op.location);
    // 32 rows of 16 bytes (each CTA of a pair from its own shared memory),
    // row i to lane i, 4 columns; warpx4 repeats them in the four
    // sub-partitions.
    for (uint32_t row = 0; row < 32; ++row) {
      uint32_t words[4];
      const uint32_t at = sharedOffset(
          cta, operandByteAddress(sd, row, 0), what, op.location);
      std::memcpy(words, cta.shared.data() + at, sizeof(words));
      for (uint32_t q = 0; q < 4; ++q)
        for (uint32_t w = 0; w < 4; ++w)
          writeCell(cta, 32 * q + row, column + w, words[w]);
    }
  }
}

/// Collects the shared bytes `op` reads, marks them in flight and checks
/// that the async proxy may read them now (fenced, written, landed).
void recordReads(Cta &issuer, TensorOp &op, const char *what) {
  std::vector<Cta *> ctas = pairOf(issuer, op.pair, what, op.location);
  auto addRow = [&](Cta &cta, int32_t index, const SmemDescriptor &d,
                    uint32_t row, uint32_t bytes) {
    // A row's bytes are contiguous in 16-byte chunks.
    for (uint32_t k = 0; k < bytes; k += 16) {
      const uint32_t at =
          sharedOffset(cta, operandByteAddress(d, row, k), what, op.location);
      op.reads.emplace_back(index, at, 16);
    }
  };
  for (size_t c = 0; c < ctas.size(); ++c) {
    Cta &cta = *ctas[c];
    const int32_t index = cta.rank;
    if (op.kind == TensorOp::Kind::Copy) {
      const SmemDescriptor sd =
          decodeSmemDescriptor(cta, op.adesc, what, op.location);
      for (uint32_t row = 0; row < 32; ++row)
        addRow(cta, index, sd, row, 16);
      continue;
    }
    const InstrDescriptor id =
        decodeInstrDescriptor(issuer, op.idesc, op.pair, op.location);
    const SmemDescriptor ad =
        decodeSmemDescriptor(cta, op.adesc, what, op.location);
    const SmemDescriptor bd =
        decodeSmemDescriptor(cta, op.bdesc, what, op.location);
    for (uint32_t row = 0; row < 128; ++row)
      addRow(cta, index, ad, row, 32);
    for (uint32_t row = 0; row < id.n / ctas.size(); ++row)
      addRow(cta, index, bd, row, 32);
  }
  const Cluster &cluster = *issuer.cluster;
  for (const auto &[rank, offset, length] : op.reads) {
    Cta &cta = *cluster.ctas[rank];
    checkAsyncRead(cta, offset, length, what);
    for (uint32_t i = offset; i < offset + length; ++i)
      ++cta.sharedPendingReads[i];
  }
}

/// Thread `t` issues `op` into its CTA's tensor pipe.
void issue(Thread &t, TensorOp op, const char *what) {
  if (op.kind != TensorOp::Kind::Commit) {
    // The even CTA of a pair issues the pair's copies and MMAs.
    if (op.pair && t.cta->rank % 2 != 0)
      fail("kernel %s: %s.cta_group::2 issued by CTA rank %d (the even CTA "
           "of the pair issues), at %s",
           t.cta->name, what, t.cta->rank, op.location);
    recordReads(*t.cta, op, what);
  }
  t.cta->tensorOps.push_back(std::move(op));
}

/// Whether the warp of `t` performs the warp-wide allocation operation
/// `t` executes now (the first of its lanes to reach it does).
bool performsWarpOp(Thread &t) {
  uint32_t &performed = t.cta->warpTensorAllocOps[t.linear / kWarpSize];
  if (++t.tensorAllocOps <= performed)
    return false;
  ++performed;
  return true;
}

/// Fails unless `t` is in a CTA with a peer when `pair` is set.
void checkGroup(Thread &t, int32_t pair, const char *what,
                const char *location) {
  if (pair)
    pairOf(*t.cta, true, what, location);
}

} // namespace

void nvfp4::emulator::detail::executeTensorOp(Cta &issuer,
                                              const TensorOp &op) {
  const Cluster &cluster = *issuer.cluster;
  for (const auto &[rank, offset, length] : op.reads) {
    Cta &cta = *cluster.ctas[rank];
    checkAsyncRead(cta, offset, length,
                   op.kind == TensorOp::Kind::Mma ? "tcgen05.mma"
                                                  : "tcgen05.cp");
    for (uint32_t i = offset; i < offset + length; ++i)
      --cta.sharedPendingReads[i];
  }
  switch (op.kind) {
  case TensorOp::Kind::Mma:
    executeMma(issuer, op);
    return;
  case TensorOp::Kind::Copy:
    executeCopy(issuer, op);
    return;
  case TensorOp::Kind::Commit:
    for (size_t rank = 0; rank < cluster.ctas.size(); ++rank) {
      if (!((op.rankMask >> rank) & 1))
        continue;
      Cta &target = *cluster.ctas[rank];
      auto it = target.mbarriers.find(op.barrierOffset);
      if (it == target.mbarriers.end())
        fail("kernel %s: tcgen05.commit arrives at shared address 0x%x of "
             "CTA rank %zu, where no mbarrier was initialized, at %s",
             issuer.name, kSharedWindowBase + op.barrierOffset, rank,
             op.location);
      arriveOn(target, op.barrierOffset, it->second, "tcgen05.commit");
    }
    return;
  }
}

//===----------------------------------------------------------------------===//
// Allocation
//===----------------------------------------------------------------------===//

extern "C" void nvfp4EmuTcgen05Alloc(void *thread, void *dst, int32_t columns,
                                     int32_t pair, const char *location) {
  Thread *t = asThread(thread);
  checkGroup(*t, pair, "tcgen05.alloc", location);
  if (!performsWarpOp(*t))
    return;
  Cta &cta = *t->cta;
  if (cta.tmem.empty()) {
    cta.tmem.assign(kTmemLanes * kTmemColumns, 0);
    cta.tmemWritten.assign(kTmemLanes * kTmemColumns, 0);
  }
  if (columns < 32 || columns > 512 || (columns & (columns - 1)) != 0)
    fail("kernel %s: tcgen05.alloc of %d columns (PTX ISA: a power of 2 "
         "from 32 to 512), at %s",
         cta.name, columns, location);
  if (cta.tmemRelinquished)
    fail("kernel %s: tcgen05.alloc after tcgen05.relinquish_alloc_permit in "
         "CTA (%d, %d, %d), at %s",
         cta.name, cta.ctaid[0], cta.ctaid[1], cta.ctaid[2], location);
  // First fit, aligned to the size.
  uint32_t column = 0;
  for (; column + columns <= kTmemColumns; column += columns) {
    auto next = cta.tmemAllocations.lower_bound(column);
    bool freeRange = next == cta.tmemAllocations.end() ||
                     next->first >= column + static_cast<uint32_t>(columns);
    if (next != cta.tmemAllocations.begin()) {
      auto previous = std::prev(next);
      freeRange = freeRange && previous->first + previous->second <= column;
    }
    if (freeRange)
      break;
  }
  if (column + columns > kTmemColumns)
    fail("kernel %s: tcgen05.alloc of %d columns in CTA (%d, %d, %d) would "
         "wait forever: not enough free tensor memory, at %s",
         cta.name, columns, cta.ctaid[0], cta.ctaid[1], cta.ctaid[2],
         location);
  cta.tmemAllocations[column] = static_cast<uint32_t>(columns);
  uint32_t offset = 0;
  if (findShared(*t, dst, &offset) != &cta)
    fail("kernel %s: tcgen05.alloc writes its address to %p, which is not "
         "in the CTA's shared memory, at %s",
         cta.name, dst, location);
  const uint32_t address = column; // lane 0
  std::memcpy(dst, &address, sizeof(address));
  markSharedWritten(cta, dst, sizeof(address));
}

extern "C" void nvfp4EmuTcgen05Dealloc(void *thread, void *taddr,
                                       int32_t columns, int32_t pair,
                                       const char *location) {
  Thread *t = asThread(thread);
  checkGroup(*t, pair, "tcgen05.dealloc", location);
  if (!performsWarpOp(*t))
    return;
  Cta &cta = *t->cta;
  const uint32_t address = tmemAddress(taddr);
  auto it = cta.tmemAllocations.find(columnOf(address));
  if (laneOf(address) != 0 || it == cta.tmemAllocations.end() ||
      it->second != static_cast<uint32_t>(columns))
    fail("kernel %s: tcgen05.dealloc of %d columns at tensor-memory address "
         "0x%08x, which is not an allocation of CTA (%d, %d, %d), at %s",
         cta.name, columns, address, cta.ctaid[0], cta.ctaid[1],
         cta.ctaid[2], location);
  for (const Cta *issuer : cta.cluster->ctas)
    if (!issuer->tensorOps.empty())
      fail("kernel %s: tcgen05.dealloc in CTA (%d, %d, %d) while tcgen05 "
           "operations are in flight (issued at %s), at %s",
           cta.name, cta.ctaid[0], cta.ctaid[1], cta.ctaid[2],
           issuer->tensorOps.front().location, location);
  cta.tmemAllocations.erase(it);
}

extern "C" void nvfp4EmuTcgen05Relinquish(void *thread, int32_t pair,
                                          const char *location) {
  Thread *t = asThread(thread);
  checkGroup(*t, pair, "tcgen05.relinquish_alloc_permit", location);
  if (performsWarpOp(*t))
    t->cta->tmemRelinquished = true;
}

//===----------------------------------------------------------------------===//
// Copies, MMAs, commits, loads
//===----------------------------------------------------------------------===//

extern "C" void nvfp4EmuTcgen05Copy(void *thread, void *taddr, int64_t sdesc,
                                    int32_t pair, const char *location) {
  Thread *t = asThread(thread);
  const uint32_t address = tmemAddress(taddr);
  if (laneOf(address) != 0)
    fail("kernel %s: tcgen05.cp.32x128b.warpx4 to lane %u (warpx4 fills "
         "lanes 0..127 from lane 0), at %s",
         t->cta->name, laneOf(address), location);
  TensorOp op;
  op.kind = TensorOp::Kind::Copy;
  op.pair = pair != 0;
  op.location = location;
  op.d = address;
  op.adesc = static_cast<uint64_t>(sdesc);
  issue(*t, std::move(op), "tcgen05.cp");
}

extern "C" void nvfp4EmuTcgen05MmaBlockScaled(void *thread, void *d,
                                              int64_t adesc, int64_t bdesc,
                                              int32_t idesc, int8_t enableInputD,
                                              void *scaleA, void *scaleB,
                                              int32_t pair,
                                              const char *location) {
  Thread *t = asThread(thread);
  TensorOp op;
  op.kind = TensorOp::Kind::Mma;
  op.pair = pair != 0;
  op.location = location;
  op.d = tmemAddress(d);
  op.scaleA = tmemAddress(scaleA);
  op.scaleB = tmemAddress(scaleB);
  op.idesc = static_cast<uint32_t>(idesc);
  op.adesc = static_cast<uint64_t>(adesc);
  op.bdesc = static_cast<uint64_t>(bdesc);
  op.enableInputD = (enableInputD & 1) != 0;
  decodeInstrDescriptor(*t->cta, op.idesc, op.pair, location);
  issue(*t, std::move(op), "tcgen05.mma");
}

extern "C" void nvfp4EmuTcgen05Commit(void *thread, void *barrier,
                                      int32_t rankMask, int32_t pair,
                                      const char *location) {
  Thread *t = asThread(thread);
  uint32_t offset = 0;
  if (findShared(*t, barrier, &offset) != t->cta)
    fail("kernel %s: tcgen05.commit on %p, which is not in the issuing "
         "CTA's shared memory, at %s",
         t->cta->name, barrier, location);
  TensorOp op;
  op.kind = TensorOp::Kind::Commit;
  op.pair = pair != 0;
  op.location = location;
  op.barrierOffset = offset;
  // Without .multicast the commit arrives in the issuing CTA only.
  op.rankMask = rankMask < 0 ? (1u << t->cta->rank)
                             : static_cast<uint32_t>(rankMask) & 0xFFFF;
  if (op.rankMask >> t->cta->cluster->ctas.size())
    fail("kernel %s: tcgen05.commit multicast to CTA mask 0x%x in a cluster "
         "of %zu CTAs, at %s",
         t->cta->name, op.rankMask, t->cta->cluster->ctas.size(), location);
  issue(*t, std::move(op), "tcgen05.commit");
}

extern "C" void nvfp4EmuTcgen05Load32x32b(void *thread, void *taddr,
                                          int32_t count, int32_t *values,
                                          const char *location) {
  Thread *t = asThread(thread);
  Cta &cta = *t->cta;
  const uint32_t address = tmemAddress(taddr);
  const uint32_t warp = static_cast<uint32_t>(t->linear / kWarpSize);
  const uint32_t lane = laneOf(address) +
                        static_cast<uint32_t>(t->linear % kWarpSize);
  const uint32_t column = columnOf(address);
  // PTX ISA: warp w of a warpgroup accesses lanes [32 (w % 4), + 32).
  if (laneOf(address) != 32 * (warp % 4))
    fail("kernel %s: warp %u executes tcgen05.ld.32x32b at lane %u: a warp "
         "accesses the lanes [%u, %u) of its sub-partition only, at %s",
         cta.name, warp, laneOf(address), 32 * (warp % 4),
         32 * (warp % 4) + 32, location);
  checkAllocated(cta, column, static_cast<uint32_t>(count), "tcgen05.ld",
                 location);
  // A queued MMA or copy that writes these columns has not executed: the
  // load would read the old accumulator.
  for (const Cta *issuer : cta.cluster->ctas)
    for (const TensorOp &op : issuer->tensorOps) {
      if (op.kind == TensorOp::Kind::Commit)
        continue;
      bool writesHere = issuer == &cta;
      if (op.pair)
        writesHere = writesHere || (issuer->rank ^ 1) == cta.rank;
      const uint32_t first = columnOf(op.d);
      const uint32_t width =
          op.kind == TensorOp::Kind::Copy ? 4 : ((op.idesc >> 17) & 0x3F) << 3;
      if (writesHere && first < column + count && column < first + width)
        fail("kernel %s: tcgen05.ld of tensor-memory columns [%u, %u) by "
             "thread %" PRId64 " of CTA (%d, %d, %d) while the %s issued at "
             "%s, which writes them, is in flight (no wait on the mbarrier "
             "of a commit after it), at %s",
             cta.name, column, column + count, t->linear, cta.ctaid[0],
             cta.ctaid[1], cta.ctaid[2],
             op.kind == TensorOp::Kind::Mma ? "tcgen05.mma" : "tcgen05.cp",
             op.location, location);
    }
  for (int32_t i = 0; i < count; ++i)
    values[i] = static_cast<int32_t>(
        readCell(cta, lane, column + i, "tcgen05.ld", location));
}
