//===- Tcgen05Descriptors.h - tcgen05 descriptors and layouts ---*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Encoders for the descriptors of the 5th-generation tensor core instructions
// (sm_100a, sm_103a, sm_110a) and the layout mathematics of the NVFP4 tcgen05
// matmul kernel:
//
//  - the 32-bit instruction descriptor of
//    `tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16`,
//  - the 64-bit shared-memory matrix descriptor of tcgen05.mma / tcgen05.cp,
//  - tensor-memory addresses,
//  - the canonical K-major 128-byte-swizzled shared-memory layout of the A and
//    B tiles, the 128x4 scale atom, and the tensor-memory placement of the
//    scale factors,
//  - the CTA tile, warp roles, shared-memory and tensor-memory plan of the
//    kernel.
//
// Everything is constexpr and free of MLIR so that the lowering
// (Tcgen05Matmul.cpp) and the unit tests (Tcgen05DescriptorsTest.cpp) share
// one definition; the tests check it against the bit tables of the PTX ISA
// ("Instruction descriptor", "Shared memory descriptor", "Tensor Memory
// addressing", "tcgen05.cp") and against nvfp4::swizzleScales.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05DESCRIPTORS_H
#define NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05DESCRIPTORS_H

#include <cstdint>

namespace nvfp4::gpu::tcgen05 {

//===----------------------------------------------------------------------===//
// Instruction descriptor (block-scaled kinds)
//===----------------------------------------------------------------------===//

/// The block-scaled kinds the kernel issues, one per operand format:
///  - NVFP4 (E2M1, a UE4M3 scale per 16): kind::mxf4nvf4 .block16
///    (scale_vec::4X), K = 64 per MMA;
///  - MXFP4 (E2M1, a UE8M0 scale per 32): kind::mxf4 .block32
///    (scale_vec::2X), K = 64;
///  - MXFP8 (E4M3 / E5M2, a UE8M0 scale per 32): kind::mxf8f6f4 .block32
///    (scale_vec::1X), K = 32.
/// Every kind reads 32 bytes of each operand row per MMA.
enum class BlockScaledKind { Mxf4Nvf4, Mxf4, Mxf8f6f4 };

/// Operand formats of the instruction descriptor (bits [7,10) and
/// [10,13)): E2M1 is 1 for kind::mxf4 / mxf4nvf4; kind::mxf8f6f4 has its
/// own codes (E4M3 0, E5M2 1; E2M1 would be 5).
enum class MxF4Format : uint32_t { E2M1 = 1 };
enum class MxF8F6F4Format : uint32_t { E4M3 = 0, E5M2 = 1 };

/// Scale-factor format (bit 23).
enum class ScaleFormat : uint32_t { UE4M3 = 0, UE8M0 = 1 };

/// Bits of an operand element of `kind`.
constexpr int64_t elementBitsOf(BlockScaledKind kind) {
  return kind == BlockScaledKind::Mxf8f6f4 ? 8 : 4;
}
/// Elements that share a scale along K: 16 (NVFP4) or 32 (MX).
constexpr int64_t scaleBlockKOf(BlockScaledKind kind) {
  return kind == BlockScaledKind::Mxf4Nvf4 ? 16 : 32;
}
/// The K of one MMA: its 32 bytes of each row.
constexpr int64_t mmaKOf(BlockScaledKind kind) {
  return 32 * 8 / elementBitsOf(kind);
}
/// Scales per row that one MMA reads from a 32-bit tensor-memory cell: the
/// scale vector size (4X, 2X, 1X).
constexpr int64_t scalesPerMmaOf(BlockScaledKind kind) {
  return mmaKOf(kind) / scaleBlockKOf(kind);
}
constexpr ScaleFormat scaleFormatOf(BlockScaledKind kind) {
  return kind == BlockScaledKind::Mxf4Nvf4 ? ScaleFormat::UE4M3
                                           : ScaleFormat::UE8M0;
}
/// The scale ids a kind allows: the byte of the 32-bit cell holding the
/// first of its scales, a multiple of the scale vector size (4X: 0; 2X: 0
/// or 2; 1X: 0..3).
constexpr bool isValidScaleId(BlockScaledKind kind, uint32_t scaleId) {
  return scaleId < 4 && scaleId % scalesPerMmaOf(kind) == 0;
}

/// Field positions of the block-scaled instruction descriptor.
inline constexpr unsigned kIdescSparsityBit = 2;
inline constexpr unsigned kIdescScaleBIdShift = 4;  // [4,6)
inline constexpr unsigned kIdescAFormatShift = 7;   // [7,10)
inline constexpr unsigned kIdescBFormatShift = 10;  // [10,13)
inline constexpr unsigned kIdescNegateABit = 13;
inline constexpr unsigned kIdescNegateBBit = 14;
inline constexpr unsigned kIdescTransposeABit = 15; // 0: K-major
inline constexpr unsigned kIdescTransposeBBit = 16; // 0: K-major
inline constexpr unsigned kIdescNShift = 17;        // [17,23): N >> 3
inline constexpr unsigned kIdescScaleFormatBit = 23;
inline constexpr unsigned kIdescMShift = 27;        // [27,29): M >> 7
inline constexpr unsigned kIdescScaleAIdShift = 29; // [29,31)
inline constexpr unsigned kIdescMaxShiftBit = 31;   // K: 0 = dense K

/// Whether (m, n) is a block-scaled MMA shape with cta_group::1: M = 128,
/// N = 8..256 in steps of 8 (every kind).
constexpr bool isValidMmaShapeCta1(int64_t m, int64_t n) {
  return m == 128 && n >= 8 && n <= 256 && n % 8 == 0;
}

/// Whether (m, n) is a block-scaled MMA shape with cta_group::2 (m is the
/// M of the CTA pair): M = 128 or 256, N = 16..256 in steps of 16.
constexpr bool isValidMmaShapeCta2(int64_t m, int64_t n) {
  return (m == 128 || m == 256) && n >= 16 && n <= 256 && n % 16 == 0;
}

/// Whether `format` is an operand format code of `kind`.
constexpr bool isValidOperandFormat(BlockScaledKind kind, uint32_t format) {
  if (kind == BlockScaledKind::Mxf8f6f4)
    return format == static_cast<uint32_t>(MxF8F6F4Format::E4M3) ||
           format == static_cast<uint32_t>(MxF8F6F4Format::E5M2);
  return format == static_cast<uint32_t>(MxF4Format::E2M1);
}

/// The instruction descriptor of a dense, K-major, non-negated
/// block-scaled MMA of `kind`, shape m x n x mmaKOf(kind), with operand
/// format codes `formatA` / `formatB` and the kind's scale format, issued
/// with cta_group::2 when `ctaPair` (then m is the M of the pair).
/// `scaleIdA` / `scaleIdB` select the byte of each 32-bit scale cell the
/// MMA's scales start at (isValidScaleId). Returns 0 for an invalid shape,
/// format or scale id (0 is never a valid descriptor: the M field is
/// non-zero for every valid M).
constexpr uint32_t encodeBlockScaledInstrDesc(BlockScaledKind kind, int64_t m,
                                              int64_t n, uint32_t formatA,
                                              uint32_t formatB,
                                              uint32_t scaleIdA = 0,
                                              uint32_t scaleIdB = 0,
                                              bool ctaPair = false) {
  if (!(ctaPair ? isValidMmaShapeCta2(m, n) : isValidMmaShapeCta1(m, n)) ||
      !isValidOperandFormat(kind, formatA) ||
      !isValidOperandFormat(kind, formatB) || !isValidScaleId(kind, scaleIdA) ||
      !isValidScaleId(kind, scaleIdB))
    return 0;
  uint32_t d = 0;
  d |= scaleIdB << kIdescScaleBIdShift;
  d |= formatA << kIdescAFormatShift;
  d |= formatB << kIdescBFormatShift;
  d |= static_cast<uint32_t>(n >> 3) << kIdescNShift;
  d |= static_cast<uint32_t>(scaleFormatOf(kind)) << kIdescScaleFormatBit;
  d |= static_cast<uint32_t>(m >> 7) << kIdescMShift;
  d |= scaleIdA << kIdescScaleAIdShift;
  return d;
}

/// Field extraction, for tests and diagnostics.
constexpr uint32_t idescField(uint32_t d, unsigned shift, unsigned width) {
  return (d >> shift) & ((1u << width) - 1);
}

//===----------------------------------------------------------------------===//
// Shared-memory matrix descriptor
//===----------------------------------------------------------------------===//

/// Swizzling modes of bits [61,64) (sm_100 encoding; differs from wgmma's).
enum class SmemSwizzle : uint64_t {
  None = 0,
  B128Atom32 = 1, // 128-byte swizzle with 32-byte atomicity
  B128 = 2,
  B64 = 4,
  B32 = 6,
};

inline constexpr unsigned kSmemDescStartShift = 0;   // [0,14): addr >> 4
inline constexpr unsigned kSmemDescLboShift = 16;    // [16,30): LBO >> 4
inline constexpr unsigned kSmemDescSboShift = 32;    // [32,46): SBO >> 4
inline constexpr unsigned kSmemDescVersionShift = 46; // [46,49): 0b001
inline constexpr unsigned kSmemDescBaseOffsetShift = 49; // [49,52)
inline constexpr unsigned kSmemDescLboModeBit = 52;
inline constexpr unsigned kSmemDescSwizzleShift = 61; // [61,64)
/// The fixed constant of bits [46,49) on sm_100 and later.
inline constexpr uint64_t kSmemDescVersion = 1;
/// Mask of a 14-bit "bytes >> 4" field.
inline constexpr uint64_t kSmemDescField14 = 0x3FFF;

/// Encodes a 14-bit "bytes >> 4" field (the 4 low bits are not encoded).
constexpr uint64_t smemDescBytes(uint64_t bytes) {
  return (bytes >> 4) & kSmemDescField14;
}

/// The shared-memory matrix descriptor. `startAddress` is the shared-window
/// address of the matrix (only bits [4,18) are encoded), `leadingByteOffset`
/// and `strideByteOffset` the LBO / SBO of the ISA's canonical layouts.
constexpr uint64_t encodeSmemDesc(uint64_t startAddress,
                                  uint64_t leadingByteOffset,
                                  uint64_t strideByteOffset,
                                  SmemSwizzle swizzle, uint64_t baseOffset = 0,
                                  bool leadingAbsolute = false) {
  return (smemDescBytes(startAddress) << kSmemDescStartShift) |
         (smemDescBytes(leadingByteOffset) << kSmemDescLboShift) |
         (smemDescBytes(strideByteOffset) << kSmemDescSboShift) |
         (kSmemDescVersion << kSmemDescVersionShift) |
         ((baseOffset & 0x7) << kSmemDescBaseOffsetShift) |
         (uint64_t(leadingAbsolute) << kSmemDescLboModeBit) |
         (static_cast<uint64_t>(swizzle) << kSmemDescSwizzleShift);
}

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

/// Tensor memory: 128 lanes x 512 columns of 32 bits per CTA. An address
/// holds the lane in bits [16,32) and the column in bits [0,16).
inline constexpr int64_t kTmemLanes = 128;
inline constexpr int64_t kTmemColumns = 512;
constexpr uint32_t tmemAddress(uint32_t lane, uint32_t column) {
  return (lane << 16) | (column & 0xFFFF);
}
/// The column count of a tcgen05.alloc: a power of two >= 32.
constexpr int64_t tmemAllocColumns(int64_t columns) {
  int64_t n = 32;
  while (n < columns)
    n *= 2;
  return n;
}

//===----------------------------------------------------------------------===//
// The A / B tiles: canonical K-major layout with 128-byte swizzling
//===----------------------------------------------------------------------===//

/// One K tile is 256 E2M1 codes = 128 bytes per row: exactly one 128-byte
/// swizzle row. Rows are grouped by 8 into 1024-byte swizzle atoms; within an
/// atom, the 16-byte chunk c of row r is stored at chunk c ^ (r % 8).
inline constexpr int64_t kSwizzleBytes = 128;
inline constexpr int64_t kSwizzleChunkBytes = 16;
inline constexpr int64_t kSwizzleAtomRows = 8;
inline constexpr int64_t kSwizzleAtomBytes = kSwizzleBytes * kSwizzleAtomRows;
/// The descriptor fields of that layout: SBO = the distance between 8-row
/// groups; LBO is not used by swizzled K-major layouts (encoded as 16 bytes,
/// the ISA's "assumed 1").
inline constexpr int64_t kSw128KMajorSbo = kSwizzleAtomBytes;
inline constexpr int64_t kSw128KMajorLbo = 16;

/// Byte offset within a tile (whose start is 1024-byte aligned) of the
/// 16-byte chunk `chunk` (0..7) of row `row`: where TMA with the 128-byte
/// swizzle puts it (Tcgen05TensorMap.h) and where the MMAs read it.
constexpr int64_t sw128ChunkOffset(int64_t row, int64_t chunk) {
  return (row / kSwizzleAtomRows) * kSwizzleAtomBytes +
         (row % kSwizzleAtomRows) * kSwizzleBytes +
         ((chunk % 8) ^ (row % kSwizzleAtomRows)) * kSwizzleChunkBytes;
}

/// The 128-byte swizzle as the hardware applies it to an address generated
/// from a descriptor: bits [4,7) are xor-ed with bits [7,10).
constexpr uint64_t applySw128(uint64_t address) {
  return address ^ (((address >> 7) & 0x7) << 4);
}

//===----------------------------------------------------------------------===//
// Scale factors
//===----------------------------------------------------------------------===//

/// A 128x4 scale atom: the scales of 128 rows for 4 K blocks (one
/// NVFP4 MMA of K = 64, two MXFP4 MMAs, four MXFP8 MMAs), 512 bytes. Row r, K
/// block kb sits at byte (r % 32) * 16 + (r / 32) * 4 + kb: the layout of
/// nvfp4::swizzleScales.
inline constexpr int64_t kScaleAtomRows = 128;
inline constexpr int64_t kScaleAtomBlocks = 4;
inline constexpr int64_t kScaleAtomBytes = kScaleAtomRows * kScaleAtomBlocks;
constexpr int64_t scaleAtomOffset(int64_t row, int64_t kb) {
  return (row % 32) * 16 + (row / 32) % 4 * 4 + kb;
}
/// The atoms layout of a whole [rows, cols] scale matrix (cols = K / 16 K
/// blocks, rows a multiple of 128, cols of 4) in global memory: the atoms of
/// 128 rows x 4 K blocks, row blocks outer, K-block groups inner, each atom
/// laid out by scaleAtomOffset; entry (r, c) at
/// [r / 128][c / 4][r % 32][(r / 32) % 4][c % 4], the layout of
/// nvfp4::swizzleScales. The 4 atoms of one 128-row block and one 256-wide K
/// tile are 2 KiB contiguous, in the order of the stage's shared-memory atoms
/// (TilePlan::scaleAtomOffsetOf), so that one bulk copy moves them.
/// `scaleAtomsAtomOffset` is the byte offset of the atom holding (row, kb),
/// `scaleAtomsOffset` that of the entry.
template <typename Idx>
Idx scaleAtomsAtomOffset(Idx row, Idx kb, int64_t cols) {
  return (row / kScaleAtomRows * (cols / kScaleAtomBlocks) +
          kb / kScaleAtomBlocks) *
         kScaleAtomBytes;
}
template <typename Idx> Idx scaleAtomsOffset(Idx row, Idx kb, int64_t cols) {
  return scaleAtomsAtomOffset(row, kb, cols) + row % 32 * 16 +
         row / 32 % 4 * 4 + kb % kScaleAtomBlocks;
}
/// Whether a [rows, cols] scale matrix can be stored as whole atoms.
constexpr bool hasWholeScaleAtoms(int64_t rows, int64_t cols) {
  return rows > 0 && cols > 0 && rows % kScaleAtomRows == 0 &&
         cols % kScaleAtomBlocks == 0;
}
/// Tensor-memory columns one atom occupies after
/// tcgen05.cp.cta_group::1.32x128b.warpx4 (32 lanes x 128 bits, copied to
/// all four 32-lane sub-partitions).
inline constexpr int64_t kScaleAtomTmemColumns = 4;
/// The copy source is a no-swizzle K-major matrix of 32 rows x 16 bytes:
/// four 8x16-byte core matrices 128 bytes apart (SBO), one along K.
inline constexpr int64_t kScaleCopySbo = 128;
inline constexpr int64_t kScaleCopyLbo = 16;

/// Where scale (row, kb) of an operand lives in tensor memory, relative to
/// the operand's scale base column: lane row % 32 of every sub-partition,
/// column row / 32, byte kb of the 32-bit cell.
struct ScaleTmemCoord {
  int64_t laneInSubPartition, column, byte;
};
constexpr ScaleTmemCoord scaleTmemCoord(int64_t row, int64_t kb) {
  return {row % 32, row / 32, kb};
}

//===----------------------------------------------------------------------===//
// Scale rows of the producer warp
//===----------------------------------------------------------------------===//

/// The producer warp writes the scale atoms of a stage: lane `lane` loads the
/// scale bytes of the K tile (one 32-bit word per scale atom: 16 bytes for
/// NVFP4, 8 for MXFP4, 4 for MXFP8) of the rows `128 atom + lane + 32 q`,
/// q = 0..3, and stores, for atom `i`, the words i of these four rows as one
/// 16-byte vector at byte `16 lane` of the atom:
/// by scaleAtomOffset, row `lane + 32 q`, K block kb sits at byte
/// `16 lane + 4 q + kb`.
inline constexpr int64_t kScaleRowsPerLane = kScaleAtomRows / 32;
template <typename Idx> Idx scaleRowOfLane(Idx lane, int64_t atom, int64_t q) {
  return lane + (atom * kScaleAtomRows + q * 32);
}
template <typename Idx> Idx scaleLaneStoreOffset(Idx lane) {
  return lane * (kScaleRowsPerLane * 4);
}

//===----------------------------------------------------------------------===//
// The CTA tile and the warp roles of the kernel
//===----------------------------------------------------------------------===//

/// 1-CTA tile: 128 x N outputs, K tiles of 128 bytes per row (256 4-bit or
/// 128 8-bit elements: 4 MMAs of 32 bytes). A CTA pair (cta_group::2)
/// computes a 256 x N tile: each CTA holds 128 rows of A, half of the N rows
/// of B and its 128 accumulator rows.
inline constexpr int64_t kTileM = 128;
inline constexpr int64_t kPairCtas = 2;
inline constexpr int64_t kPairTileM = kPairCtas * kTileM;
inline constexpr int64_t kTileRowBytes = kSwizzleBytes;
inline constexpr int64_t kMmaRowBytes = 32;
inline constexpr int64_t kMmasPerKTile = kTileRowBytes / kMmaRowBytes;
/// The K tile of the NVFP4 kernel (E2M1): 256.
inline constexpr int64_t kTileK = kTileRowBytes * 2;
/// Elements per K tile of `kind`.
constexpr int64_t tileKOf(BlockScaledKind kind) {
  return kTileRowBytes * 8 / elementBitsOf(kind);
}
/// The 128x4 scale atoms of one K tile and 128 rows: 4 (NVFP4, one per
/// MMA), 2 (MXFP4: one per two MMAs) or 1 (MXFP8).
constexpr int64_t scaleAtomsPerKTileOf(BlockScaledKind kind) {
  return tileKOf(kind) / scaleBlockKOf(kind) / kScaleAtomBlocks;
}
/// The scale atom (of the K tile's) and the byte of its 32-bit cells
/// (the instruction descriptor's scale id) of the first scale of MMA `mma`.
constexpr int64_t scaleAtomOfMma(BlockScaledKind kind, int64_t mma) {
  return mma * scalesPerMmaOf(kind) / kScaleAtomBlocks;
}
constexpr uint32_t scaleIdOfMma(BlockScaledKind kind, int64_t mma) {
  return static_cast<uint32_t>(mma * scalesPerMmaOf(kind) % kScaleAtomBlocks);
}

/// Warp roles: warp 0 loads the stages (TMA for A and B, its 32 lanes for
/// row-major scales), one elected thread of warp 1 issues the tcgen05
/// copies, MMAs and commits (warp 1 also owns the tensor-memory allocation),
/// warps 2..5 drain the accumulator. A kernel with staged 16x16-block scales
/// (ScaleStaging) has warp 6, which expands them into the stage's atoms.
inline constexpr int64_t kProducerWarp = 0;
inline constexpr int64_t kMmaWarp = 1;
inline constexpr int64_t kFirstEpilogueWarp = 2;
inline constexpr int64_t kEpilogueWarps = 4;
inline constexpr int64_t kEpilogueThreads = 32 * kEpilogueWarps;
inline constexpr int64_t kWarps = kFirstEpilogueWarp + kEpilogueWarps;
inline constexpr int64_t kThreads = 32 * kWarps;
inline constexpr int64_t kScaleWarp = kWarps;
static_assert(kEpilogueThreads == kTmemLanes,
              "one epilogue thread per accumulator row");

/// tcgen05.ld / tcgen05.st restrict warp `w` of a warpgroup-aligned CTA to
/// the tensor-memory lanes 32 (w % 4) .. 32 (w % 4) + 31. An epilogue
/// thread owns the accumulator row (= lane) `32 (w % 4) + lane id`.
template <typename Idx> Idx tmemLaneBaseOfWarp(Idx warp) {
  return warp % 4 * 32;
}
template <typename Idx> Idx epilogueRow(Idx warp, Idx laneId) {
  return tmemLaneBaseOfWarp(warp) + laneId;
}

/// Accumulator columns read by one tcgen05.ld.32x32b.x16.
inline constexpr int64_t kEpilogueColumns = 16;

/// The epilogue's staging buffers in shared memory: per epilogue warp, its 32
/// rows of one chunk (kEpilogueColumns values of up to 4 bytes), through
/// which the warp transposes the chunk so that its global stores (and `acc`
/// loads) cover whole rows: docs/tcgen05.md, "Epilogue stores".
inline constexpr int64_t kEpilogueStagingBytesPerWarp = 32 * kEpilogueColumns * 4;
inline constexpr int64_t kEpilogueStagingBytes =
    kEpilogueWarps * kEpilogueStagingBytesPerWarp;
/// Alignment of the staging buffers (one pass over the 32 banks).
inline constexpr int64_t kEpilogueStagingAlignment = 128;
/// Values per epilogue access: 16 bytes of f32, 8 of bf16.
inline constexpr int64_t kEpilogueGroup = 4;

/// The byte offset, within an epilogue warp's staging buffer, of value
/// group `group` (0..3: values 4 group .. 4 group + 3) of row `row` (0..31)
/// of a chunk of `eltBytes`-byte values. A thread stores its own row's
/// groups; in the transposed access `s` (0..3) lane `l` loads group `l % 4`
/// of row `8 s + l / 4`, so that 4 lanes cover one row of the output. The
/// group index is xor-ed with `(row / rowsPerPass) % 4` (rowsPerPass rows
/// of `16 eltBytes` bytes fill one pass over the 32 banks), which makes
/// both accesses free of bank conflicts (`EpilogueStagingIsConflictFree`).
template <typename Idx>
Idx epilogueStagingOffset(Idx row, Idx group, int64_t eltBytes) {
  const int64_t groupBytes = kEpilogueGroup * eltBytes;
  const int64_t rowBytes = kEpilogueColumns * eltBytes;
  const int64_t rowsPerPass = kEpilogueStagingAlignment / rowBytes;
  return row * rowBytes + (group ^ (row / rowsPerPass % 4)) * groupBytes;
}

/// Shared-memory stages: as many as fit the per-block dynamic shared memory
/// of sm_100 (227 KiB), at most kMaxStages (docs/tcgen05.md, "Stages": six
/// K tiles in flight are about one global-memory latency of MMA work for
/// the 128-wide tile; N = 256 fits only four).
inline constexpr int64_t kMaxStages = 6;
inline constexpr int64_t kMinStages = 2;
inline constexpr int64_t kMaxDynamicSharedBytes = 227 * 1024;
/// Accumulator buffers in tensor memory: two when they fit, so that the
/// epilogue of one tile overlaps the main loop of the next.
inline constexpr int64_t kMaxAccStages = 2;
/// Bytes of one mbarrier object.
inline constexpr int64_t kMbarrierBytes = 8;

/// The N of the CTA tile for an output of `n` columns: the largest of 256,
/// 128, 64 dividing n; for any other n (the last tile predicated), the
/// smallest of them covering n, 256 past 256 columns.
constexpr int64_t chooseTileN(int64_t n) {
  for (int64_t t = 256; t >= 64; t /= 2)
    if (n % t == 0)
      return t;
  return n <= 64 ? 64 : n <= 128 ? 128 : 256;
}

/// Which kernel variant `tcgen05-cta-pair` asks for: the selection rule
/// (Auto), always the 1-CTA kernel (Off) or always the CTA pair (On; M must
/// be a multiple of 256).
enum class CtaPairMode { Auto, Off, On };

/// The selection rule of CtaPairMode::Auto: a CTA pair computes the output
/// when M is a multiple of 256, N of the tile (the pair has no predicated
/// tiles), and there are at least kPairMinTiles
/// 256 x tileN tiles, i.e. the pairs alone occupy every SM of a 148-SM B200
/// (smaller outputs keep the 1-CTA kernel, whose 128-row tiles spread over
/// twice as many SMs).
inline constexpr int64_t kPairMinTiles = 74;
constexpr bool selectCtaPair(CtaPairMode mode, int64_t batches, int64_t m,
                             int64_t n, int64_t tileN) {
  if (mode == CtaPairMode::Off || tileN <= 0 || m % kPairTileM != 0 ||
      n % tileN != 0)
    return false;
  return mode == CtaPairMode::On ||
         batches * (m / kPairTileM) * (n / tileN) >= kPairMinTiles;
}

/// Which operands have staged scales: 16x16-block scales, row-major in
/// global memory (one E4M3 per 16 rows and 16 columns), which the producer
/// TMA-loads per K tile as they are (the 16 bytes of each of the tile's
/// rows / 16 scale rows) into the start of the operand's scale atoms in the
/// stage, and the scale warp (kScaleWarp) expands in place into the atoms
/// (one scale per row) before it arrives on the stage's full barrier. The
/// producer then issues only TMA, and waits for no load of its own.
struct ScaleStaging {
  bool lhs = false, rhs = false;
  constexpr bool any() const { return lhs || rhs; }
};

/// Operand rows per 16x16-block scale row, and bytes per staged scale row
/// (the 16 scales of one NVFP4 K tile).
inline constexpr int64_t kStagedScaleBlockRows = 16;
inline constexpr int64_t kStagedScaleRowBytes = 16;
/// Scale rows staged for a CTA tile of `tileRows` operand rows: those of
/// whole 128-row atoms (N = 64 stages the rows of the atom's padding too,
/// which the MMA does not read), and their bytes.
constexpr int64_t stagedScaleRowsOf(int64_t tileRows) {
  return (tileRows > kScaleAtomRows ? tileRows : kScaleAtomRows) /
         kStagedScaleBlockRows;
}
constexpr int64_t stagedScaleBytesOf(int64_t tileRows) {
  return stagedScaleRowsOf(tileRows) * kStagedScaleRowBytes;
}

/// Shared-memory and tensor-memory plan of one kernel.
struct TilePlan {
  int64_t tileN = 0;
  /// The CTA-pair variant: tile M = 256 (kPairTileM), each CTA holds
  /// bRowsPerCta = tileN / 2 rows of B, all tileN rows of the B scales, and
  /// the leader's full barrier counts the arrivals and bytes of both CTAs.
  bool ctaPair = false;
  int64_t tileM = kTileM, bRowsPerCta = 0;
  /// 128-row blocks of B scale atoms (B rows padded to 128).
  int64_t bScaleAtoms = 0;
  /// Scale atoms per K tile and 128 rows (scaleAtomsPerKTileOf).
  int64_t scaleAtomsPerKTile = kMmasPerKTile;
  /// Shared-memory stages and tensor-memory accumulator buffers.
  int64_t stages = 0, accStages = 0;
  /// Overlapping accumulators: when two whole accumulators do not fit next
  /// to the scale columns (N = 256), the second starts accColumnStride
  /// (< tileN) columns after the first, so the two share their last / first
  /// tileN - accColumnStride columns, accOverlapChunks epilogue chunks.
  /// The epilogue of a tile reads the shared chunks first
  /// (epilogueChunkOf) and then releases the accumulator, so the MMAs of
  /// the next tile run while it reads the rest. One accFull / accEmpty
  /// barrier pair serves both buffers (accBarrierStages = 1): the next
  /// tile's MMAs wait for the early release of the tile before it, which
  /// follows every read of the tile before that. Without overlap
  /// accColumnStride = tileN, accOverlapChunks = 0 and accBarrierStages =
  /// accStages.
  int64_t accColumnStride = 0, accOverlapChunks = 0, accBarrierStages = 0;
  constexpr bool overlapsAccumulators() const { return accOverlapChunks > 0; }
  /// Byte offsets within one stage (the stage base is 1024-byte aligned):
  /// the A and B tiles (written by TMA), then the scale atoms (written by
  /// the producer warp's lanes, or by its bulk copies from the global atoms
  /// layout).
  int64_t aOffset = 0, bOffset = 0, aScaleOffset = 0, bScaleOffset = 0;
  int64_t stageBytes = 0;
  /// Bytes the two TMA loads of a stage deliver to one CTA, and the full
  /// barrier's transaction count (with a CTA pair: the leader's, for both
  /// CTAs' loads). The 1-CTA kernel and the pair's leader add scaleCopyBytes
  /// for the operands whose scales come by bulk copy (the pair's peer counts
  /// its own on scaleFull).
  int64_t txBytesPerCta = 0, txBytes = 0;
  /// Arrivals per phase of the full barrier (the producer lanes of every CTA
  /// of the pair, and with staged scales their scale warps' lanes) and of the
  /// accumulator-empty barrier (their epilogue threads).
  int64_t fullBarrierArrivals = 0, accEmptyBarrierArrivals = 0;
  /// Byte offsets after the stages: the mbarriers full[stages],
  /// empty[stages], accFull[accBarrierStages], accEmpty[accBarrierStages],
  /// with a CTA pair
  /// scaleFull[stages], with staged scales scaleStaged[stages], then the
  /// 32-bit slot tcgen05.alloc writes the tensor-memory address to.
  int64_t fullBarrierOffset = 0, emptyBarrierOffset = 0;
  int64_t accFullBarrierOffset = 0, accEmptyBarrierOffset = 0;
  /// CTA pairs: the peer's own barrier per stage on which its scale-atom bulk
  /// copies complete (a bulk copy completes on an mbarrier in the CTA of its
  /// destination); its producer lanes wait for it before they arrive on the
  /// leader's full barrier. At the same offset in both CTAs, unused by the
  /// leader.
  int64_t scaleFullBarrierOffset = 0;
  /// Staged scales (ScaleStaging): the barrier per stage on which the
  /// producer's TMA loads of the staged scales complete (its elected lane's
  /// mbarrier.arrive.expect_tx, kScaleStagedBarrierArrivals), which the scale
  /// warp waits for. Each CTA of a pair loads and expands its own.
  int64_t scaleStagedBarrierOffset = 0;
  int64_t tmemSlotOffset = 0;
  /// Staged scales: which operands', and the bytes their TMA loads deliver
  /// per stage (16 per scale row), at the start of the operand's scale atoms
  /// (aScaleOffset, bScaleOffset), where the scale warp expands them.
  ScaleStaging scaleStaging;
  int64_t stagedScaleBytes = 0;
  /// Warps of the CTA: kWarps, plus the scale warp with staged scales.
  int64_t warps = kWarps;
  int64_t threads() const { return 32 * warps; }
  /// The epilogue warps' staging buffers (kEpilogueStagingBytesPerWarp each,
  /// warp by warp).
  int64_t epilogueStagingOffset = 0;
  /// Dynamic shared memory to request (plus slack to align the base).
  int64_t sharedBytes = 0;
  /// Tensor-memory columns: accumulator buffer `a` at `a * accColumnStride`,
  /// then per
  /// stage the A scales (scaleAtomsPerKTile atoms) and the B scales
  /// (bScaleAtoms atoms per A atom). Each stage has its own scale columns: the
  /// tcgen05.cp of a stage is issued only after the MMAs that read the stage's
  /// previous scales have committed (the stage went through its empty barrier).
  int64_t scaleColumn = 0, scaleColumnsPerStage = 0;
  int64_t tmemColumns = 0;

  constexpr int64_t accColumnOf(int64_t accStage) const {
    return accStage * accColumnStride;
  }
  /// Epilogue chunks (kEpilogueColumns wide) of a tile, and the chunk the
  /// epilogue of accumulator buffer `acc` reads `i`-th: in order, except
  /// with overlapping accumulators, where the chunks the other buffer
  /// shares come first: buffer 0 shares its chunks from accColumnStride on,
  /// buffer 1 its first accOverlapChunks.
  int64_t epilogueChunks() const { return tileN / kEpilogueColumns; }
  template <typename Idx> Idx epilogueChunkOf(Idx i, Idx acc) const {
    if (!overlapsAccumulators())
      return i;
    const int64_t strideChunks = accColumnStride / kEpilogueColumns;
    // Buffer 0 starts at chunk strideChunks, buffer 1 at chunk 0 (one lap
    // later).
    return (i + strideChunks + acc * (epilogueChunks() - strideChunks)) %
           epilogueChunks();
  }
  /// Columns (relative to scaleColumn + stage * scaleColumnsPerStage) of the
  /// A / B scales of atom `atom` of a K tile (scaleAtomOfMma).
  int64_t aScaleColumnOf(int64_t atom) const {
    return atom * kScaleAtomTmemColumns;
  }
  int64_t bScaleColumnOf(int64_t atom) const {
    return scaleAtomsPerKTile * kScaleAtomTmemColumns +
           atom * bScaleAtoms * kScaleAtomTmemColumns;
  }
  /// Bytes of the scale atoms of one K tile and 128 rows.
  int64_t scaleAtomKTileBytes() const {
    return scaleAtomsPerKTile * kScaleAtomBytes;
  }
  /// Byte offsets within a stage of scale atom `atom` of A, and of 128-row
  /// block `rowBlock` of B. The atoms of one 128-row block are contiguous,
  /// atom by atom (2 KiB for NVFP4), as in the global atoms layout
  /// (scaleAtomsAtomOffset): one bulk copy fills them.
  int64_t aScaleAtomOffsetOf(int64_t atom) const {
    return aScaleOffset + atom * kScaleAtomBytes;
  }
  int64_t bScaleAtomOffsetOf(int64_t atom, int64_t rowBlock) const {
    return bScaleOffset +
           (rowBlock * scaleAtomsPerKTile + atom) * kScaleAtomBytes;
  }
  /// Bytes of the scale atoms of one K tile that one CTA's bulk copies add
  /// to the transaction count of its barrier (full, or the pair's peer's
  /// scaleFull), when the A (`lhsAtoms`) and / or B (`rhsAtoms`) scales are
  /// in the global atoms layout: 2 KiB per 128-row block (a CTA of a pair
  /// copies its 128 A rows and all tileN B rows).
  int64_t scaleCopyBytes(bool lhsAtoms, bool rhsAtoms) const {
    return ((lhsAtoms ? 1 : 0) + (rhsAtoms ? bScaleAtoms : 0)) *
           scaleAtomKTileBytes();
  }
};

/// Bytes of one stage for a tile of width `tileN`, rounded up to 1024 (every
/// stage starts on a swizzle atom). A CTA of a pair holds half of the B rows
/// but the scale atoms of all of them.
constexpr int64_t stageBytesFor(int64_t tileN, bool ctaPair = false,
                                int64_t scaleAtomsPerKTile = kMmasPerKTile) {
  int64_t bScaleAtoms = (tileN + kScaleAtomRows - 1) / kScaleAtomRows;
  int64_t bRows = ctaPair ? tileN / kPairCtas : tileN;
  int64_t bytes = (kTileM + bRows) * kTileRowBytes +
                  scaleAtomsPerKTile * (1 + bScaleAtoms) * kScaleAtomBytes;
  return (bytes + kSwizzleAtomBytes - 1) / kSwizzleAtomBytes *
         kSwizzleAtomBytes;
}

/// The offset of the epilogue's staging buffers after `stages` stages and
/// `accStages` accumulator buffers: after the barriers (a CTA pair has one
/// more per stage, TilePlan::scaleFullBarrierOffset, and staged scales one
/// more, TilePlan::scaleStagedBarrierOffset) and the tensor-memory slot,
/// aligned to kEpilogueStagingAlignment.
constexpr int64_t epilogueStagingOffsetFor(
    int64_t tileN, int64_t stages, int64_t accStages, bool ctaPair = false,
    int64_t scaleAtomsPerKTile = kMmasPerKTile, ScaleStaging staging = {}) {
  int64_t barriersPerStage = 2 + (ctaPair ? 1 : 0) + (staging.any() ? 1 : 0);
  int64_t end = stages * stageBytesFor(tileN, ctaPair, scaleAtomsPerKTile) +
                (barriersPerStage * stages + 2 * accStages) * kMbarrierBytes +
                kMbarrierBytes;
  return (end + kEpilogueStagingAlignment - 1) / kEpilogueStagingAlignment *
         kEpilogueStagingAlignment;
}

/// Shared memory the kernel requests with `stages` stages and `accStages`
/// accumulator buffers: the stages, the barriers, the tensor-memory slot,
/// the epilogue's staging buffers, and 1024 bytes of slack to round the
/// base up to a swizzle atom.
constexpr int64_t sharedBytesFor(int64_t tileN, int64_t stages,
                                 int64_t accStages, bool ctaPair = false,
                                 int64_t scaleAtomsPerKTile = kMmasPerKTile,
                                 ScaleStaging staging = {}) {
  return epilogueStagingOffsetFor(tileN, stages, accStages, ctaPair,
                                  scaleAtomsPerKTile, staging) +
         kEpilogueStagingBytes + kSwizzleAtomBytes;
}

/// Returns the plan of the tile of width `tileN` (64, 128 or 256), for one
/// CTA or a CTA pair, with `scaleAtomsPerKTile` scale atoms per K tile and
/// 128 rows (scaleAtomsPerKTileOf the kind), and the operands' scales
/// staged as `staging` says.
constexpr TilePlan makeTilePlan(int64_t tileN, bool ctaPair = false,
                                int64_t scaleAtomsPerKTile = kMmasPerKTile,
                                ScaleStaging staging = {}) {
  TilePlan p;
  p.tileN = tileN;
  p.ctaPair = ctaPair;
  p.scaleStaging = staging;
  p.warps = kWarps + (staging.any() ? 1 : 0);
  p.scaleAtomsPerKTile = scaleAtomsPerKTile;
  p.tileM = ctaPair ? kPairTileM : kTileM;
  p.bRowsPerCta = ctaPair ? tileN / kPairCtas : tileN;
  const int64_t ctas = ctaPair ? kPairCtas : 1;
  p.bScaleAtoms = (tileN + kScaleAtomRows - 1) / kScaleAtomRows;
  p.scaleColumnsPerStage =
      scaleAtomsPerKTile * (1 + p.bScaleAtoms) * kScaleAtomTmemColumns;
  // The deepest pipeline that fits shared memory, then two accumulators if
  // they fit tensor memory next to the stages' scale columns.
  p.stages = kMaxStages;
  while (
      p.stages > kMinStages &&
      (sharedBytesFor(tileN, p.stages, kMaxAccStages, ctaPair,
                      scaleAtomsPerKTile, staging) > kMaxDynamicSharedBytes ||
       tileN + p.stages * p.scaleColumnsPerStage > kTmemColumns))
    --p.stages;
  p.accStages = kMaxAccStages;
  while (p.accStages > 1 &&
         p.accStages * tileN + p.stages * p.scaleColumnsPerStage > kTmemColumns)
    --p.accStages;
  p.accColumnStride = tileN;
  p.accBarrierStages = p.accStages;
  // One whole accumulator: a second one overlapping the first in the
  // columns the scales leave, when it starts at least one epilogue chunk
  // later.
  const int64_t overlapStride =
      (kTmemColumns - p.stages * p.scaleColumnsPerStage - tileN) /
      kEpilogueColumns * kEpilogueColumns;
  if (p.accStages == 1 && overlapStride >= kEpilogueColumns) {
    p.accStages = 2;
    p.accColumnStride = overlapStride;
    p.accOverlapChunks = (tileN - overlapStride) / kEpilogueColumns;
    p.accBarrierStages = 1;
  }

  p.aOffset = 0;
  p.bOffset = kTileM * kTileRowBytes;
  p.aScaleOffset = p.bOffset + p.bRowsPerCta * kTileRowBytes;
  p.bScaleOffset = p.aScaleOffset + scaleAtomsPerKTile * kScaleAtomBytes;
  p.stageBytes = stageBytesFor(tileN, ctaPair, scaleAtomsPerKTile);
  p.txBytesPerCta = (kTileM + p.bRowsPerCta) * kTileRowBytes;
  p.txBytes = ctas * p.txBytesPerCta;
  // The producer's lanes of each CTA, and its scale warp's lanes.
  p.fullBarrierArrivals = ctas * 32 * (staging.any() ? 2 : 1);
  p.accEmptyBarrierArrivals = ctas * kEpilogueThreads;

  p.fullBarrierOffset = p.stages * p.stageBytes;
  p.emptyBarrierOffset = p.fullBarrierOffset + p.stages * kMbarrierBytes;
  p.accFullBarrierOffset = p.emptyBarrierOffset + p.stages * kMbarrierBytes;
  p.accEmptyBarrierOffset =
      p.accFullBarrierOffset + p.accBarrierStages * kMbarrierBytes;
  p.scaleFullBarrierOffset =
      p.accEmptyBarrierOffset + p.accBarrierStages * kMbarrierBytes;
  p.scaleStagedBarrierOffset =
      p.scaleFullBarrierOffset + (ctaPair ? p.stages : 0) * kMbarrierBytes;
  p.tmemSlotOffset = p.scaleStagedBarrierOffset +
                     (staging.any() ? p.stages : 0) * kMbarrierBytes;
  p.stagedScaleBytes = (staging.lhs ? stagedScaleBytesOf(kTileM) : 0) +
                       (staging.rhs ? stagedScaleBytesOf(tileN) : 0);
  p.epilogueStagingOffset =
      epilogueStagingOffsetFor(tileN, p.stages, p.accBarrierStages, ctaPair,
                               scaleAtomsPerKTile, staging);
  p.sharedBytes = sharedBytesFor(tileN, p.stages, p.accBarrierStages, ctaPair,
                                 scaleAtomsPerKTile, staging);

  p.scaleColumn = p.accColumnOf(p.accStages - 1) + tileN;
  p.tmemColumns =
      tmemAllocColumns(p.scaleColumn + p.stages * p.scaleColumnsPerStage);
  return p;
}

} // namespace nvfp4::gpu::tcgen05

#endif // NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05DESCRIPTORS_H
