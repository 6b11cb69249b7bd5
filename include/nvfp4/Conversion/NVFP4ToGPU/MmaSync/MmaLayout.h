//===- MmaLayout.h - m16n8k64 block-scale fragment layout -------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The index mathematics of the sm_120a NVFP4 matmul kernel: which element of
// the CTA tile each lane of a warp loads into each register of
// `mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X`,
// how the CTA tile is staged through shared memory, and where each
// accumulator register is stored.
//
// Every function is a template over the index type so that one definition
// serves two clients: the NVFP4ToGPU lowering instantiates it with a wrapper
// that emits `arith` operations, and the unit tests instantiate it with
// `int64_t` and run a lane-accurate CPU emulation of the instruction. The
// index type needs `+`, `*`, `/` and `%` with an `int64_t` right-hand side and
// `+` between two indices. This header has no MLIR dependency.
//
// Units: the E2M1 data of a row is addressed in 32-bit words of 8 codes
// (word w holds k = 8w .. 8w+7, the lowest k in the lowest nibble: the packed
// layout of the project, two codes per byte, even element in the low nibble,
// read little-endian). Scales are addressed in 32-bit words of four E4M3
// bytes, byte i holding K block i.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_MMALAYOUT_H
#define NVFP4_CONVERSION_NVFP4TOGPU_MMALAYOUT_H

#include <cstdint>

namespace nvfp4::gpu {

//===----------------------------------------------------------------------===//
// The instruction
//===----------------------------------------------------------------------===//

/// m16n8k64 shape of one block-scaled MMA.
inline constexpr int64_t kMmaM = 16;
inline constexpr int64_t kMmaN = 8;
inline constexpr int64_t kMmaK = 64;
/// Registers per lane: A 4 x b32, B 2 x b32, C/D 4 x f32.
inline constexpr int kMmaARegs = 4;
inline constexpr int kMmaBRegs = 2;
inline constexpr int kMmaCRegs = 4;
/// E2M1 codes in one 32-bit register.
inline constexpr int64_t kCodesPerWord = 8;
/// 32-bit words of one row of a 64-wide K slice.
inline constexpr int64_t kWordsPerMmaRow = kMmaK / kCodesPerWord;
/// Group id g = lane / 4 and thread-in-group q = lane % 4 of the PTX ISA
/// fragment tables.
template <typename Idx> Idx laneGroup(Idx lane) { return lane / 4; }
template <typename Idx> Idx laneInGroup(Idx lane) { return lane % 4; }

/// Row (within the 16-row A tile) of A register `reg` of lane (g, q):
/// a0/a2 hold row g, a1/a3 row g + 8.
template <typename Idx> Idx aFragRow(Idx g, int reg) {
  return g + int64_t((reg & 1) * 8);
}
/// Word (within the 8-word row of the 64-wide K slice) of A register `reg`:
/// a0/a1 hold k 8q..8q+7, a2/a3 the same plus 32.
template <typename Idx> Idx aFragWord(Idx q, int reg) {
  return q + int64_t((reg >> 1) * 4);
}
/// Column (within the 8-column B tile) of B register `reg`: column g.
template <typename Idx> Idx bFragCol(Idx g, int /*reg*/) { return g; }
/// Word of B register `reg`: b0 k 8q..8q+7, b1 the same plus 32.
template <typename Idx> Idx bFragWord(Idx q, int reg) {
  return q + int64_t(reg * 4);
}
/// Row and column of accumulator register `reg`: c0, c1 row g, columns 2q
/// and 2q+1; c2, c3 row g + 8.
template <typename Idx> Idx cFragRow(Idx g, int reg) {
  return g + int64_t((reg >> 1) * 8);
}
template <typename Idx> Idx cFragCol(Idx q, int reg) {
  return q * 2 + int64_t(reg & 1);
}
/// Packed scale registers. The selectors of a block-scaled MMA pick which
/// lanes of each quad supply its scales (thread-id) and which bytes of their
/// registers (byte-id), so one scale register of a lane serves several MMA
/// blocks and K slices. Register p of A serves the warp's 16-row blocks
/// 2p, 2p + 1 (thread-id-a = block % 2): lanes q = 0, 1 of quad g hold rows
/// g, g + 8 of block 2p, lanes q = 2, 3 those of block 2p + 1. Register p of
/// B serves its 8-column blocks 4p .. 4p + 3 (thread-id-b = block % 4): lane
/// q holds column g of block 4p + q. A register's bytes are consecutive
/// scales of a row (ScaleStaging); byte-id picks an MMA's first.
inline constexpr int64_t kScaleBlocksPerRegA = 2;
inline constexpr int64_t kScaleBlocksPerRegB = 4;
/// The block, among the `count` (<= kScaleBlocksPerReg*) a register
/// serves, and the row (column) within it, whose scales lane (g, q) holds.
/// With fewer blocks than the register could serve, lanes repeat them.
template <typename Idx> Idx scaleABlock(Idx q, int64_t count) {
  return count == kScaleBlocksPerRegA ? q / 2 : (q / 2) % count;
}
template <typename Idx> Idx scaleARow(Idx g, Idx q) { return g + (q % 2) * 8; }
template <typename Idx> Idx scaleBBlock(Idx q, int64_t count) {
  return count == kScaleBlocksPerRegB ? q : q % count;
}
template <typename Idx> Idx scaleBCol(Idx g, Idx /*q*/) { return g; }
/// The selectors of the MMA of warp block `block` of A or B, and the scale
/// register that serves it.
inline int64_t scaleThreadIdA(int64_t block) {
  return block % kScaleBlocksPerRegA;
}
inline int64_t scaleThreadIdB(int64_t block) {
  return block % kScaleBlocksPerRegB;
}
inline int64_t scaleRegisterA(int64_t block) {
  return block / kScaleBlocksPerRegA;
}
inline int64_t scaleRegisterB(int64_t block) {
  return block / kScaleBlocksPerRegB;
}
/// K slice `slice` of a step whose scales start at byte `stepByte` of a
/// held scale row (ScaleStaging: the group's words), with `sliceScaleBytes`
/// scale bytes a slice (4 NVFP4, 2 MXFP4, 1 MXFP8): the word of its first
/// scale and the byte-id that selects it (0 for 4X, 0 or 2 for 2X).
inline int64_t sliceScaleWord(int64_t stepByte, int64_t slice,
                              int64_t sliceScaleBytes) {
  return (stepByte + slice * sliceScaleBytes) / 4;
}
inline int64_t sliceScaleByteId(int64_t stepByte, int64_t slice,
                                int64_t sliceScaleBytes) {
  return (stepByte + slice * sliceScaleBytes) % 4;
}

//===----------------------------------------------------------------------===//
// The CTA tile
//===----------------------------------------------------------------------===//

/// A K step of the CTA tile is 128 E2M1 codes (64 bytes) of every row: two
/// m16n8k64 MMAs along K (or two m16n8k32 on 8-bit elements: every K slice
/// of one MMA is 32 bytes of a row either way).
inline constexpr int64_t kTileK = 2 * kMmaK;
inline constexpr int64_t kWarpSize = 32;
/// Bytes of one tile row of one K step, and of one MMA's K slice of a row.
inline constexpr int64_t kTileRowBytes = kTileK / 2;
inline constexpr int64_t kMmaRowBytes = kMmaK / 2;
/// MMAs along K per K step.
inline constexpr int64_t kMmaKSlices = kTileRowBytes / kMmaRowBytes;
/// 32-bit words of one tile row of a K step.
inline constexpr int64_t kWordsPerTileRow = kTileRowBytes / 4;
/// Operand rows are copied in 16-byte vectors (one `cp.async.cg` each).
inline constexpr int64_t kVectorBytes = 16;
inline constexpr int64_t kVectorsPerRow = kTileRowBytes / kVectorBytes;
inline constexpr int64_t kWordsPerVector = kVectorBytes / 4;
/// Scale bytes of a row per K step: 8 E4M3 (NVFP4, one per 16 codes), 4
/// E8M0 (MXFP4, one per 32 codes) or 2 (MXFP8, 64 codes a step), stored in
/// two words per row (MX scales in the low bytes of the first).
inline constexpr int64_t kScaleWordsPerRow = 2;
inline constexpr int64_t kScaleRowBytes = 4 * kScaleWordsPerRow;
/// The most dynamic shared memory a CTA may use on sm_120a / sm_121a (99
/// KiB; sm_90a allows more).
inline constexpr int64_t kMaxSharedBytes = 99 * 1024;
/// The shared memory of an sm_120a / sm_121a SM, and what each resident CTA
/// takes of it beyond its own (reserved by the system).
inline constexpr int64_t kSharedBytesPerSm = 100 * 1024;
inline constexpr int64_t kReservedSharedBytesPerCta = 1024;
/// The CTAs of `sharedBytes` dynamic shared memory that fit on an sm_120a /
/// sm_121a SM (at least 1).
inline constexpr int64_t residentCtasByShared(int64_t sharedBytes) {
  const int64_t ctas =
      kSharedBytesPerSm / (sharedBytes + kReservedSharedBytesPerCta);
  return ctas > 1 ? ctas : 1;
}

/// A CTA tile: `m` x `n` outputs per 128-wide K step, computed by
/// `warpsM` x `warpsN` warps, each owning a (m / warpsM) x (n / warpsN) warp
/// tile of (warpTileM / 16) x (warpTileN / 8) MMAs per K step.
struct TileShape {
  int64_t m = 64, n = 64;
  int64_t warpsM = 2, warpsN = 2;
  /// Pipeline stages (slots of one K step in shared memory, see "Staging").
  int64_t stages = 4;

  constexpr int64_t warps() const { return warpsM * warpsN; }
  constexpr int64_t threads() const { return warps() * kWarpSize; }
  constexpr int64_t warpTileM() const { return m / warpsM; }
  constexpr int64_t warpTileN() const { return n / warpsN; }
  constexpr int64_t mmasM() const { return warpTileM() / kMmaM; }
  constexpr int64_t mmasN() const { return warpTileN() / kMmaN; }
  /// f32 accumulators per lane.
  constexpr int64_t accumulators() const {
    return mmasM() * mmasN() * kMmaCRegs;
  }
  /// 16-byte vectors of the A and B tiles of one K step.
  constexpr int64_t aVectors() const { return m * kVectorsPerRow; }
  constexpr int64_t bVectors() const { return n * kVectorsPerRow; }
  /// Shared-memory bytes of the A and B tiles of one pipeline stage (each a
  /// multiple of 16 bytes); the scale slots follow all of them
  /// (ScaleStaging).
  constexpr int64_t aStageBytes() const { return m * kTileRowBytes; }
  constexpr int64_t bStageBytes() const { return n * kTileRowBytes; }
  constexpr bool operator==(const TileShape &o) const {
    return m == o.m && n == o.n && warpsM == o.warpsM && warpsN == o.warpsN &&
           stages == o.stages;
  }
};

/// The tiles the kernel supports. 64 x 64: 4 warps of 32 x 32 outputs;
/// 128 x 64 and 64 x 128: 8 warps of 32 x 32; 128 x 128: 8 warps (2 x 4) of
/// 64 x 32 outputs; 128 x 256: 8 warps (2 x 4) of 64 x 64 outputs, 3
/// stages (4 would take 108 KiB, over kMaxSharedBytes). For few rows
/// (decode-time GEMMs, M <= 32): 16 x 128, 4 warps (1 x 4) of 16 x 32
/// outputs, and 32 x 128, 4 warps of 32 x 32.
inline constexpr TileShape kTile64x64{64, 64, 2, 2};
inline constexpr TileShape kTile128x64{128, 64, 4, 2};
inline constexpr TileShape kTile64x128{64, 128, 2, 4};
inline constexpr TileShape kTile128x128{128, 128, 2, 4};
inline constexpr TileShape kTile128x256{128, 256, 2, 4, 3};
inline constexpr TileShape kTile16x128{16, 128, 1, 4};
inline constexpr TileShape kTile32x128{32, 128, 1, 4};
inline constexpr TileShape kTileShapes[] = {
    kTile64x64,   kTile128x64, kTile64x128, kTile128x128,
    kTile128x256, kTile16x128, kTile32x128};

/// The tile of an `m` x `n` tile size, if it is one of kTileShapes.
inline const TileShape *findTileShape(int64_t m, int64_t n) {
  for (const TileShape &t : kTileShapes)
    if (t.m == m && t.n == n)
      return &t;
  return nullptr;
}

/// Default tile selection for an M x N result (per batch element): M of at
/// most 16 or 32 (a decode-time GEMM: a few tokens by a weight) gets the
/// 16 x 128 or 32 x 128 tile, whose MMAs are all or half on real rows
/// where a 64-row tile's would be at most a quarter. Otherwise each
/// dimension gets a 128-wide tile when it is a multiple of 128 and at least
/// kLargeTileMinDim, else a 64-wide one: 64 x 64 for small problems,
/// 128 x 64 / 64 x 128 when one dimension is small, 128 x 128 for large
/// ones; with `allowWideTile`, a 128-row tile gets 256 columns when N is a
/// multiple of 256 and at least kWideTileMinN (twice the MMAs per loaded A
/// row; the grid keeps at least two CTAs per row of tiles). The kernel that
/// dequantizes in registers (sm_90a) does not take the 128 x 256 tile: its
/// 64 x 64 warp tiles exceed 255 registers there.
inline constexpr int64_t kLargeTileMinDim = 256;
inline constexpr int64_t kWideTileMinN = 512;
inline TileShape selectTileShape(int64_t m, int64_t n,
                                 bool allowWideTile = true) {
  if (m <= kTile16x128.m)
    return kTile16x128;
  if (m <= kTile32x128.m)
    return kTile32x128;
  int64_t tm = (m % 128 == 0 && m >= kLargeTileMinDim) ? 128 : 64;
  int64_t tn = (n % 128 == 0 && n >= kLargeTileMinDim) ? 128 : 64;
  if (allowWideTile && tm == 128 && n % 256 == 0 && n >= kWideTileMinN)
    tn = 256;
  return *findTileShape(tm, tn);
}
/// The tile of the kernel of a run-time M (one kernel for every M): 64
/// rows, the tile selectTileShape gives a large M that is not a multiple of
/// 128 (the last tile's rows past M are predicated off, and waste at most
/// 63 rows), with its columns for N.
inline TileShape selectRunTimeMTileShape(int64_t n) {
  return selectTileShape(/*m=*/kLargeTileMinDim + 64, n);
}

/// Warp coordinates within the CTA: warp w covers rows
/// (w / warpsN) * warpTileM and columns (w % warpsN) * warpTileN.
template <typename Idx> Idx warpRowBase(Idx warp, const TileShape &t) {
  return (warp / t.warpsN) * t.warpTileM();
}
template <typename Idx> Idx warpColBase(Idx warp, const TileShape &t) {
  return (warp % t.warpsN) * t.warpTileN();
}

//===----------------------------------------------------------------------===//
// Staging: a multi-stage cp.async pipeline
//===----------------------------------------------------------------------===//

/// Shared memory (dynamic, pipelineSharedBytes()) holds TileShape::stages
/// copies (slots) of one K step: the A tile as [m][kWordsPerTileRow] words,
/// the B tile as [n][kWordsPerTileRow] words; then the scale slots of A
/// ([m] rows) and of B ([n] rows), see ScaleStaging.
///
/// The copies of K step kt go to slot `stageSlot(kt)`. Before the K loop the
/// kernel issues steps 0 .. stages - 2, one `cp.async` commit group per step
/// (empty when the step does not exist). Iteration kt then
///   1. waits until at most waitPendingGroups() groups are pending (so the
///      group of step kt has landed for this thread) and synchronizes the
///      CTA (so every thread's copies of step kt are visible, and every
///      warp has finished reading the slot of step kt - 1),
///   2. issues the copies of step `prefetchStep(kt)` = kt + stages - 1, if
///      it exists, into the slot of step kt - 1, and commits a group,
///   3. runs the MMAs of step kt from slot stageSlot(kt).
/// The MMAs, and so the accumulation order, are those of a synchronous
/// kernel.
inline constexpr int64_t waitPendingGroups(const TileShape &t) {
  return t.stages - 2;
}
template <typename Idx> Idx stageSlot(Idx kt, const TileShape &t) {
  return kt % t.stages;
}
template <typename Idx> Idx prefetchStep(Idx kt, const TileShape &t) {
  return kt + (t.stages - 1);
}

/// How the scales of one operand are staged. A row's scales of one K step
/// are `stepBytes` bytes: 8 E4M3 (NVFP4), 4 or 2 E8M0 (MXFP4, MXFP8). By
/// default (`groupSteps` = 1) every K step copies them into its own slot, a
/// row of kScaleRowBytes. When a row's scales are 16-byte aligned in global
/// memory, one 16-byte `cp.async` copies the scales of `groupSteps` = 16 /
/// stepBytes consecutive K steps instead (a group), issued with the group's
/// first step, so half (NVFP4), a quarter (MXFP4) or an eighth (MXFP8) of
/// the scale copies remain; rows aligned to 8 or 4 bytes only take groups
/// of 8 or 4 bytes (groupedScaleStaging). A group lives in one scale slot
/// (a row of the group's bytes, step kt's scales at byte
/// scaleByteInRow(kt)) from the
/// issue of its first step until its last step is computed: at the issue of
/// step u (iteration u - stages + 1, after the barrier that retires step
/// u - stages) the live steps are u - stages + 1 .. u + groupSteps - 1,
/// which span at most slots() groups, so the slot a group overwrites
/// (scaleSlot) belongs to a group whose steps are all done. Without
/// grouping slots() = stages and every slot is a stage's.
///
/// A slot holds one scale row per `blockRows` tile rows: the tile's rows
/// (1x16 blocks), or, for an operand of 16x16 blocks, its compact scale
/// rows (one per 16 tile rows, stagedRow), so each is copied once instead
/// of once per tile row, and every lane that reads a 16-row block reads
/// the same row (a broadcast, with no bank conflict at any row stride).
struct ScaleStaging {
  int64_t groupSteps = 1;
  int64_t stepBytes = kScaleRowBytes;
  int64_t blockRows = 1;

  constexpr bool grouped() const { return groupSteps > 1; }
  /// Scale rows in a slot of an operand of `tileRows` tile rows.
  constexpr int64_t stagedRows(int64_t tileRows) const {
    return tileRows / blockRows;
  }
  /// Bytes of a scale slot's row and of one copy. A row holds whole 32-bit
  /// words (an MXFP8 step's 2 bytes are stored as one word) and no more
  /// than a copy: the 32 lanes of a packed scale register read 32
  /// consecutive rows, so wider rows would put two lanes on a bank (MX
  /// rows of 4 bytes in 8 had a 2-way conflict on every scale load).
  constexpr int64_t rowBytes() const {
    return copyBytes() < 4 ? 4 : copyBytes();
  }
  constexpr int64_t copyBytes() const { return groupSteps * stepBytes; }
  /// Scale slots: 1 + ceil((stages - 1) / groupSteps).
  constexpr int64_t slots(const TileShape &t) const {
    return 1 + (t.stages - 1 + groupSteps - 1) / groupSteps;
  }
  /// Shared-memory bytes of the slots of an operand of `rows` tile rows,
  /// rounded up to 16 bytes (cp.async and ldmatrix alignment of what
  /// follows).
  constexpr int64_t sharedBytes(const TileShape &t, int64_t rows) const {
    const int64_t bytes = slots(t) * stagedRows(rows) * rowBytes();
    return (bytes + kVectorBytes - 1) / kVectorBytes * kVectorBytes;
  }
  constexpr bool operator==(const ScaleStaging &o) const {
    return groupSteps == o.groupSteps && stepBytes == o.stepBytes &&
           blockRows == o.blockRows;
  }
};
/// 16 bytes: the widest `cp.async`.
inline constexpr int64_t kScaleGroupBytes = 16;
/// The staging of an operand whose rows hold `scaleRowBytes` scale bytes,
/// `stepBytes` per K step: groups of the widest `cp.async` (16, 8 or 4
/// bytes) that holds whole steps and divides every row (so each row's
/// copies stay aligned), else one copy per step (a step's 8 bytes NVFP4, 4
/// MXFP4; MXFP8's 2 bytes, or rows of K not a multiple of the step, are
/// loaded byte by byte).
inline constexpr ScaleStaging groupedScaleStaging(int64_t stepBytes,
                                                  int64_t scaleRowBytes,
                                                  int64_t blockRows = 1) {
  for (int64_t groupBytes = kScaleGroupBytes; groupBytes >= 4; groupBytes /= 2)
    if (groupBytes > stepBytes && groupBytes % stepBytes == 0 &&
        scaleRowBytes % groupBytes == 0)
      return {groupBytes / stepBytes, stepBytes, blockRows};
  return {1, stepBytes, blockRows};
}
/// The scale row of a slot that holds tile row `row`'s scales.
template <typename Idx> Idx stagedRow(Idx row, const ScaleStaging &s) {
  return row / s.blockRows;
}
/// The scale slot of K step `kt`, and the byte of its scales in the slot's
/// row.
template <typename Idx>
Idx scaleSlot(Idx kt, const TileShape &t, const ScaleStaging &s) {
  return (kt / s.groupSteps) % s.slots(t);
}
template <typename Idx> Idx scaleByteInRow(Idx kt, const ScaleStaging &s) {
  return (kt % s.groupSteps) * s.stepBytes;
}
/// Whether issuing K step `kt` copies scales: the first step of a group.
inline bool issuesScales(int64_t kt, const ScaleStaging &s) {
  return kt % s.groupSteps == 0;
}

/// Where A's and B's scale slots lie in the kernel's scale region (after
/// the A and B stages). Operands staged alike (the same groups and rows,
/// sharesSlots) share each slot: slot s holds A's rows, then B's, so one
/// copy job list covers both with one destination stride; otherwise A's
/// slots come first, then B's.
struct ScaleSlotLayout {
  /// Rows of A's and B's slots (ScaleStaging::stagedRows) and their bytes.
  int64_t lhsRows = 0, rhsRows = 0, lhsRowBytes = 0, rhsRowBytes = 0;
  bool sharesSlots = false;
  /// Byte offsets in the scale region of slot 0 of A and of B, and the
  /// bytes from one slot of an operand to its next.
  int64_t lhsBase = 0, rhsBase = 0, lhsSlotStride = 0, rhsSlotStride = 0;

  static constexpr ScaleSlotLayout
  of(const TileShape &t, const ScaleStaging &lhs, const ScaleStaging &rhs) {
    ScaleSlotLayout l;
    l.lhsRows = lhs.stagedRows(t.m);
    l.rhsRows = rhs.stagedRows(t.n);
    l.lhsRowBytes = lhs.rowBytes();
    l.rhsRowBytes = rhs.rowBytes();
    l.sharesSlots =
        lhs.groupSteps == rhs.groupSteps && l.lhsRowBytes == l.rhsRowBytes;
    if (l.sharesSlots) {
      l.rhsBase = l.lhsRows * l.lhsRowBytes;
      l.lhsSlotStride = l.rhsSlotStride =
          (l.lhsRows + l.rhsRows) * l.lhsRowBytes;
    } else {
      l.rhsBase = lhs.sharedBytes(t, t.m);
      l.lhsSlotStride = l.lhsRows * l.lhsRowBytes;
      l.rhsSlotStride = l.rhsRows * l.rhsRowBytes;
    }
    return l;
  }
  /// The byte in the scale region of slot `slot`'s row `row` of A (`lhs`)
  /// or B.
  template <typename Idx> Idx rowByte(bool lhs, Idx slot, Idx row) const {
    return slot * (lhs ? lhsSlotStride : rhsSlotStride) +
           row * (lhs ? lhsRowBytes : rhsRowBytes) + (lhs ? lhsBase : rhsBase);
  }
};

/// The dynamic shared memory of the kernel of tile `t`: the A slots, the B
/// slots, the A scale slots, the B scale slots.
inline constexpr int64_t pipelineSharedBytes(const TileShape &t,
                                             const ScaleStaging &lhs = {},
                                             const ScaleStaging &rhs = {}) {
  return t.stages * (t.aStageBytes() + t.bStageBytes()) +
         lhs.sharedBytes(t, t.m) + rhs.sharedBytes(t, t.n);
}

/// Copy jobs of one K step: the 16-byte vectors (or 8-byte halves) of A,
/// then those of B, then the scale rows of A, then those of B (when the
/// step copies scales, issuesScales).
/// Thread `tid` takes job `tid + i * threads()` of each kind for i = 0, 1,
/// ... while the job exists (`stageJob`).
template <typename Idx> Idx stageJob(Idx tid, int64_t i, const TileShape &t) {
  return tid + i * t.threads();
}
/// The thread index B's scale copies take jobs by: the threads after A's
/// scale rows take B's first ones (thread `tid` takes B's job
/// stageJob(rotatedThread(tid, m)), so that on tiles of more threads than
/// A rows the two operands' copies go to different threads.
template <typename Idx>
Idx rotatedThread(Idx tid, int64_t firstThread, const TileShape &t) {
  return (tid + (t.threads() - firstThread % t.threads())) % t.threads();
}
/// Copies of a kind per thread (the last one is guarded when `count` is not a
/// multiple of the thread count).
inline int64_t stageCopiesPerThread(int64_t count, const TileShape &t) {
  return (count + t.threads() - 1) / t.threads();
}
/// Bank-conflict-free shared layout: the 16-byte chunk c (0..3) of tile row
/// `row` is stored at chunk c XOR ((row / 2) % 4) of that row
/// (`swizzleChunk`; `swizzleWord` for word w of the row). A row is 64
/// bytes, so rows r and r + 2 start on the same bank; the XOR spreads the
/// same chunk of 8 consecutive rows over the 8 distinct 16-byte slots of a
/// 128-byte line. So one 8x8 matrix of `ldmatrix` (8 rows of one chunk),
/// the sm_90a fragment words (one word of 8 consecutive rows) and the
/// cp.async writes (8 lanes: two whole rows) touch every bank once, and
/// each 16-byte vector stays contiguous and 16-byte aligned.
template <typename Idx> Idx swizzleChunk(Idx row, Idx chunk) {
  return chunk ^ ((row / 2) % kVectorsPerRow);
}
template <typename Idx> Idx swizzleWord(Idx row, Idx word) {
  return swizzleChunk(row, word / kWordsPerVector) * kWordsPerVector +
         word % kWordsPerVector;
}

//===----------------------------------------------------------------------===//
// Fragment loads: ldmatrix
//===----------------------------------------------------------------------===//

/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16` (PTX ISA): lane l supplies the
/// address of row l % 8 of 8x8 matrix l / 8 (16 contiguous bytes), and
/// register m of lane l receives 32-bit word l % 4 of row l / 4 of matrix m.
/// Word q of row g of a 16-byte chunk is exactly what the m16n8k64 fragments
/// want of lane (g, q), so:
///
/// A, one x4 per MMA row block and K slice: matrix m holds rows 8 (m % 2)
/// .. + 7 and chunk m / 2 of the slice, i.e. registers a0..a3 (aFragRow,
/// aFragWord). Lane l addresses row `ldmatrixARow(l)`, chunk
/// `ldmatrixAChunk(l)` of the slice.
template <typename Idx> Idx ldmatrixARow(Idx lane) {
  return lane % 8 + ((lane / 8) % 2) * 8;
}
template <typename Idx> Idx ldmatrixAChunk(Idx lane) { return lane / 16; }
/// B, one x4 per two MMA column blocks j, j + 1 and K slice: matrix m holds
/// columns 8 (m / 2) .. + 7 (of block j + m / 2) and chunk m % 2, i.e. b0,
/// b1 of block j, then b0, b1 of block j + 1 (bFragCol, bFragWord).
template <typename Idx> Idx ldmatrixBCol(Idx lane) {
  return lane % 8 + (lane / 16) * 8;
}
template <typename Idx> Idx ldmatrixBChunk(Idx lane) { return (lane / 8) % 2; }
/// Bytes per data copy of a K step: 16-byte vectors when operand rows of
/// `rowBytes` bytes (K / 2 for E2M1, K for 8-bit elements) are 16-byte
/// aligned, else 8-byte halves (cp.async needs a source aligned to its
/// size).
constexpr int64_t stageCopyBytes(int64_t rowBytes) {
  return rowBytes % kVectorBytes == 0 ? kVectorBytes : kVectorBytes / 2;
}
/// Row of the tile, copy within the row, and first (unswizzled)
/// shared-memory word of data copy job `v`, for `copiesPerRow` copies per
/// row (kVectorsPerRow 16-byte vectors, or twice as many 8-byte halves).
/// Eight consecutive jobs write 128 contiguous bytes (16-byte vectors) or
/// one row (halves): no bank conflicts.
template <typename Idx>
Idx stageRow(Idx v, int64_t copiesPerRow = kVectorsPerRow) {
  return v / copiesPerRow;
}
template <typename Idx>
Idx stageVector(Idx v, int64_t copiesPerRow = kVectorsPerRow) {
  return v % copiesPerRow;
}
template <typename Idx>
Idx stageWord(Idx v, int64_t copiesPerRow = kVectorsPerRow) {
  return stageVector(v, copiesPerRow) * (kWordsPerTileRow / copiesPerRow);
}

//===----------------------------------------------------------------------===//
// The sm_90a fallback: dequantization to bf16, m16n8k16 bf16 MMAs
//===----------------------------------------------------------------------===//

/// m16n8k16 shape of `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`.
/// Its C/D fragment is the one of m16n8k64 (cFragRow / cFragCol), so the
/// sm_90a kernel shares the CTA tiles, the staging and the epilogue.
inline constexpr int64_t kBf16MmaK = 16;
/// Registers per lane (each holds two bf16, the lower k in the low half):
/// A 4 x b32, B 2 x b32.
inline constexpr int kBf16MmaARegs = 4;
inline constexpr int kBf16MmaBRegs = 2;
/// bf16 MMAs along K per 128-wide K step. Each covers exactly one 16-wide
/// scale block: sub-step s uses scale byte s % 4 of scale word s / 4 of
/// every row.
inline constexpr int64_t kBf16KSteps = kTileK / kBf16MmaK;
static_assert(kBf16MmaK == 16, "one bf16 MMA per NVFP4 scale block");

/// Row (within the 16-row A tile) of bf16 A register `reg`: a0/a2 row g,
/// a1/a3 row g + 8 (as aFragRow).
template <typename Idx> Idx bf16AFragRow(Idx g, int reg) {
  return aFragRow(g, reg);
}
/// Shared-memory word (of the 16-word row of the K step) holding the two
/// codes of bf16 A register `reg` in K sub-step `s`: a0/a1 hold k
/// 16s + 2q, 2q + 1 (word 2s), a2/a3 the same plus 8 (word 2s + 1). The two
/// codes are byte `bf16FragByte(q)` of that word.
inline int64_t bf16AFragWord(int64_t s, int reg) { return 2 * s + (reg >> 1); }
/// Word of bf16 B register `reg` in sub-step `s` (column g): b0 k 16s + 2q,
/// 2q + 1 (word 2s), b1 the same plus 8 (word 2s + 1).
inline int64_t bf16BFragWord(int64_t s, int reg) { return 2 * s + reg; }
/// Byte of the word holding the lane's two codes: k = 2q, 2q + 1 within
/// the word (low nibble: the even k, which goes to the low bf16 half).
template <typename Idx> Idx bf16FragByte(Idx q) { return q; }

} // namespace nvfp4::gpu

#endif // NVFP4_CONVERSION_NVFP4TOGPU_MMALAYOUT_H
