//===- GPUEmulatorTcgen05.cpp - Tensor memory and the tcgen05 family
//-------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// libnvfp4_gpu_emulator: the 5th-generation tensor core (PTX ISA 9.7.16) —
// tensor memory and its allocation, `tcgen05.cp`, the block-scaled
// `tcgen05.mma` of kind::mxf4nvf4 (.block16), kind::mxf4 and
// kind::mxf8f6f4 (.block32), `tcgen05.commit` and `tcgen05.ld`.
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

/// The decoded instruction descriptor of a block-scaled kind (PTX ISA,
/// "Instruction descriptor format for .kind::mxf8f6f4, .kind::mxf4 and
/// .kind::mxf4nvf4"; CUTLASS UMMA::InstrDescriptorBlockScaled).
struct InstrDescriptor {
  uint32_t m, n;
  /// The operands' element types (nvfp4::mx::ElementType codes: E2M1 0,
  /// E4M3 1, E5M2 2).
  int typeA, typeB;
  /// The byte of each 32-bit scale cell the MMA's first scale is in.
  uint32_t scaleIdA, scaleIdB;
};

const char *kindName(Tcgen05MmaKind kind) {
  switch (kind) {
  case Tcgen05MmaKind::Mxf4Nvf4Block16:
    return "kind::mxf4nvf4.block16";
  case Tcgen05MmaKind::Mxf4Block32:
    return "kind::mxf4.block32";
  case Tcgen05MmaKind::Mxf8f6f4Block32:
    return "kind::mxf8f6f4.block32";
  }
  return "kind::?";
}

InstrDescriptor decodeInstrDescriptor(const Cta &cta, uint32_t idesc,
                                      Tcgen05MmaKind kind, bool pair,
                                      const char *location) {
  const uint32_t sparse = (idesc >> 2) & 1;
  const uint32_t scaleB = (idesc >> 4) & 3;
  const uint32_t formatA = (idesc >> 7) & 7;
  const uint32_t formatB = (idesc >> 10) & 7;
  const uint32_t negate = (idesc >> 13) & 3;
  const uint32_t transpose = (idesc >> 15) & 3;
  const uint32_t scaleFormat = (idesc >> 23) & 1;
  const uint32_t scaleA = (idesc >> 29) & 3;
  const uint32_t maxShift = idesc >> 31;
  InstrDescriptor d{};
  d.n = ((idesc >> 17) & 0x3F) << 3;
  d.m = ((idesc >> 27) & 0x3) << 7;
  d.scaleIdA = scaleA;
  d.scaleIdB = scaleB;
  // Per kind: the operand format codes, the scale format and the scale
  // vector (4X: ids 0; 2X: 0 or 2; 1X: 0..3). kind::mxf4 / mxf4nvf4 code
  // E2M1 as 1, kind::mxf8f6f4 E4M3 as 0 and E5M2 as 1.
  bool formatsOk = false, scalesOk = false;
  auto f8Type = [](uint32_t code) { return code == 0 ? 1 : 2; };
  switch (kind) {
  case Tcgen05MmaKind::Mxf4Nvf4Block16:
    formatsOk = formatA == 1 && formatB == 1;
    scalesOk = scaleFormat == 0 && scaleA == 0 && scaleB == 0;
    d.typeA = d.typeB = 0;
    break;
  case Tcgen05MmaKind::Mxf4Block32:
    formatsOk = formatA == 1 && formatB == 1;
    scalesOk = scaleFormat == 1 && scaleA % 2 == 0 && scaleB % 2 == 0;
    d.typeA = d.typeB = 0;
    break;
  case Tcgen05MmaKind::Mxf8f6f4Block32:
    formatsOk = formatA <= 1 && formatB <= 1;
    scalesOk = scaleFormat == 1;
    d.typeA = f8Type(formatA);
    d.typeB = f8Type(formatB);
    break;
  }
  // K-major (no transpose), no negation, dense, K of the kind.
  const bool shapeOk = pair ? (d.m == 256 && d.n >= 16 && d.n <= 256 &&
                               d.n % 16 == 0)
                            : (d.m == 128 && d.n >= 8 && d.n <= 256 &&
                               d.n % 8 == 0);
  if (sparse || !formatsOk || negate || transpose || !scalesOk || maxShift ||
      !shapeOk)
    fail("kernel %s: tcgen05.mma.cta_group::%d.%s with instruction "
         "descriptor 0x%08x (M %u, N %u, formats %u/%u, sparse %u, negate "
         "%u, transpose %u, scale format %u, scale ids %u/%u): only dense "
         "K-major operands of the kind's formats (E2M1 for mxf4nvf4 and "
         "mxf4, E4M3 / E5M2 for mxf8f6f4) with its scale format (UE4M3 "
         "for block16, UE8M0 for block32) and scale ids (4X: 0, 2X: 0 or 2, "
         "1X: 0..3), M = %d and a legal N are modelled, at %s",
         cta.name, pair ? 2 : 1, kindName(kind), idesc, d.m, d.n, formatA,
         formatB, sparse, negate, transpose, scaleFormat, scaleA, scaleB,
         pair ? 256 : 128, location);
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

/// Reads the codes of `rows` rows of a K-major operand at descriptor `desc`
/// of `cta`: 32 bytes per row (64 packed E2M1 codes, element 2k in the low
/// nibble of byte k, or 32 8-bit codes), one code per byte into
/// codes[row * k + e].
void readOperandCodes(const Cta &cta, uint64_t desc, uint32_t rows,
                      bool fourBit, const char *what, const char *location,
                      uint8_t *codes) {
  const SmemDescriptor d = decodeSmemDescriptor(cta, desc, what, location);
  const uint32_t k = fourBit ? 64 : 32;
  for (uint32_t row = 0; row < rows; ++row)
    for (uint32_t byte = 0; byte < 32; ++byte) {
      const uint8_t value = cta.shared[sharedOffset(
          cta, operandByteAddress(d, row, byte), what, location)];
      if (fourBit) {
        codes[row * k + 2 * byte] = value & 0xF;
        codes[row * k + 2 * byte + 1] = value >> 4;
      } else {
        codes[row * k + byte] = value;
      }
    }
}

void executeMma(Cta &issuer, const TensorOp &op) {
  const char *what = "tcgen05.mma";
  const InstrDescriptor id =
      decodeInstrDescriptor(issuer, op.idesc, op.mmaKind, op.pair, op.location);
  std::vector<Cta *> ctas = pairOf(issuer, op.pair, what, op.location);
  const bool nvfp4 = op.mmaKind == Tcgen05MmaKind::Mxf4Nvf4Block16;
  const bool fourBit = op.mmaKind != Tcgen05MmaKind::Mxf8f6f4Block32;
  // K of the MMA, and scale blocks of it per row (4X, 2X, 1X).
  const uint32_t k = fourBit ? 64 : 32;
  const uint32_t blocks = nvfp4 ? 4 : k / 32;
  const uint32_t rowsPerCta = 128;
  const uint32_t n = id.n;
  // B: all N rows from the issuer, or N/2 from each CTA of the pair.
  const uint32_t bRowsPerCta = n / static_cast<uint32_t>(ctas.size());
  std::vector<uint8_t> b(static_cast<size_t>(n) * k);
  for (size_t c = 0; c < ctas.size(); ++c)
    readOperandCodes(*ctas[c], op.bdesc, bRowsPerCta, fourBit, what,
                     op.location, b.data() + c * bRowsPerCta * k);
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
    std::vector<uint8_t> a(rowsPerCta * k);
    readOperandCodes(cta, op.adesc, rowsPerCta, fourBit, what, op.location,
                     a.data());
    // Scales: row r of a 128-row block in lane r % 32 of a sub-partition,
    // column base + r / 32, the MMA's `blocks` scales in the bytes from the
    // scale id on of the 32-bit cell. The data path of rows
    // [32 q, 32 q + 32) reads sub-partition q (lanes 32 q ..): A row m at
    // lane m, and B row j at lane 32 q + j % 32, column base + j / 32.
    auto scaleByte = [&](uint32_t word, uint32_t byte) {
      return static_cast<uint8_t>(word >> (8 * byte));
    };
    std::vector<float> acc(static_cast<size_t>(rowsPerCta) * n, 0.0f);
    if (op.enableInputD)
      for (uint32_t m = 0; m < rowsPerCta; ++m)
        for (uint32_t j = 0; j < n; ++j) {
          const uint32_t bits =
              readCell(cta, m, dColumn + j, "tcgen05.mma (D)", op.location);
          std::memcpy(&acc[m * n + j], &bits, sizeof(float));
        }
    for (uint32_t q = 0; q < rowsPerCta / 32; ++q) {
      // The scale cells of this sub-partition: A rows 32 q .. 32 q + 31,
      // and every B row.
      std::vector<uint32_t> aWords(32), bWords(n);
      for (uint32_t r = 0; r < 32; ++r)
        aWords[r] = readCell(cta, 32 * q + r, aScaleColumn + q,
                             "tcgen05.mma (scale A)", op.location);
      for (uint32_t j = 0; j < n; ++j)
        bWords[j] = readCell(cta, 32 * q + j % 32, bScaleColumn + j / 32,
                             "tcgen05.mma (scale B)", op.location);
      if (nvfp4) {
        // Per 16-wide block in increasing K: the exact block sum times the
        // two scales, added with one f32 rounding (the reference GEMM's
        // order; the ISA leaves the accumulation order open).
        for (uint32_t r = 0; r < 32; ++r) {
          const uint32_t m = 32 * q + r;
          for (uint32_t j = 0; j < n; ++j) {
            float sum = acc[m * n + j];
            for (uint32_t kb = 0; kb < blocks; ++kb) {
              float partial = 0.0f; // exact: multiples of 1/4 below 576
              for (uint32_t e = 0; e < 16; ++e)
                partial += ::nvfp4::decodeE2M1(a[m * k + 16 * kb + e]) *
                           ::nvfp4::decodeE2M1(b[j * k + 16 * kb + e]);
              sum += partial *
                     (scaleValue(aWords[r], kb) * scaleValue(bWords[j], kb));
            }
            acc[m * n + j] = sum;
          }
        }
        continue;
      }
      // MX: per 32-wide block in increasing K, its contribution as
      // nvfp4::mx::matmul computes it, added in f32 (the MX reference
      // GEMM's order), with the UE8M0 scales of bytes id, id + 1, ...
      std::vector<float> block(32 * static_cast<size_t>(n));
      std::vector<uint8_t> aScales(32), bScales(n);
      for (uint32_t blk = 0; blk < blocks; ++blk) {
        for (uint32_t r = 0; r < 32; ++r)
          aScales[r] = scaleByte(aWords[r], id.scaleIdA + blk);
        for (uint32_t j = 0; j < n; ++j)
          bScales[j] = scaleByte(bWords[j], id.scaleIdB + blk);
        mxBlockProducts("tcgen05.mma (MX)", a.data() + 32 * q * k + 32 * blk, k,
                        aScales.data(), 32, id.typeA, b.data() + 32 * blk, k,
                        bScales.data(), n, id.typeB, block.data());
        for (uint32_t r = 0; r < 32; ++r)
          for (uint32_t j = 0; j < n; ++j)
            acc[(32 * q + r) * n + j] += block[r * n + j];
      }
    }
    for (uint32_t m = 0; m < rowsPerCta; ++m)
      for (uint32_t j = 0; j < n; ++j) {
        uint32_t bits;
        std::memcpy(&bits, &acc[m * n + j], sizeof(bits));
        writeCell(cta, m, dColumn + j, bits);
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
    const InstrDescriptor id = decodeInstrDescriptor(
        issuer, op.idesc, op.mmaKind, op.pair, op.location);
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

extern "C" void nvfp4EmuTcgen05MmaBlockScaled(void *thread, int32_t kind,
                                              void *d, int64_t adesc,
                                              int64_t bdesc, int32_t idesc,
                                              int8_t enableInputD, void *scaleA,
                                              void *scaleB, int32_t pair,
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
  if (kind < 0 || kind > static_cast<int32_t>(Tcgen05MmaKind::Mxf8f6f4Block32))
    fail("kernel %s: tcgen05.mma of unknown kind code %d, at %s", t->cta->name,
         kind, location);
  op.mmaKind = static_cast<Tcgen05MmaKind>(kind);
  decodeInstrDescriptor(*t->cta, op.idesc, op.mmaKind, op.pair, location);
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
