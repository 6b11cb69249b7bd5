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
/// thread-id-a / thread-id-b the kernel passes (byte-id is always 0 for 4X).
inline constexpr int64_t kScaleThreadIdA = 0;
inline constexpr int64_t kScaleThreadIdB = 0;

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
/// Row of the A tile whose scale word a lane passes. With thread-id-a = 0 the
/// lanes q = 0 and q = 1 of each quad supply rows g and g + 8; every lane
/// loads row g + 8 * (q % 2), so lanes q = 2, 3 hold a copy that thread-id-a
/// = 1 would also accept.
template <typename Idx> Idx scaleARow(Idx g, Idx q) { return g + (q % 2) * 8; }
/// Column of the B tile whose scale word a lane passes: column g (thread-id-b
/// = 0 reads lane q = 0 of each quad; every lane holds the same word).
template <typename Idx> Idx scaleBCol(Idx g, Idx /*q*/) { return g; }

//===----------------------------------------------------------------------===//
// The CTA tile
//===----------------------------------------------------------------------===//

/// CTA tile: 64 x 64 outputs per 64-wide K step, four warps in a 2 x 2 grid,
/// each computing 32 x 32 outputs (2 x 4 MMAs per K step, 32 f32
/// accumulators per lane).
inline constexpr int64_t kTileM = 64;
inline constexpr int64_t kTileN = 64;
inline constexpr int64_t kTileK = kMmaK;
inline constexpr int64_t kWarpsM = 2;
inline constexpr int64_t kWarpsN = 2;
inline constexpr int64_t kWarpSize = 32;
inline constexpr int64_t kThreads = kWarpsM * kWarpsN * kWarpSize;
inline constexpr int64_t kWarpTileM = kTileM / kWarpsM;
inline constexpr int64_t kWarpTileN = kTileN / kWarpsN;
inline constexpr int64_t kMmasM = kWarpTileM / kMmaM;
inline constexpr int64_t kMmasN = kWarpTileN / kMmaN;
/// Bytes of one tile row of one K step (64 codes).
inline constexpr int64_t kTileRowBytes = kTileK / 2;
/// 16-byte vectors per tile row; each thread copies one vector of A and one
/// of B per K step (kTileM * kVectorsPerRow == kThreads).
inline constexpr int64_t kVectorBytes = 16;
inline constexpr int64_t kVectorsPerRow = kTileRowBytes / kVectorBytes;
static_assert(kTileM * kVectorsPerRow == kThreads, "one A vector per thread");
static_assert(kTileN * kVectorsPerRow == kThreads, "one B vector per thread");
static_assert(kTileM + kTileN == kThreads, "one scale word per thread");

/// Staging of one K step into shared memory. Shared memory holds the A tile
/// as [kTileM][kWordsPerMmaRow] words, the B tile as [kTileN][kWordsPerMmaRow]
/// words and the scale words as [kTileM + kTileN] (A rows, then B rows).
/// Thread `tid` copies the 16-byte vector `stageVector(tid)` of row
/// `stageRow(tid)` of both the A and the B tile, and scale word `tid`.
template <typename Idx> Idx stageRow(Idx tid) { return tid / kVectorsPerRow; }
template <typename Idx> Idx stageVector(Idx tid) {
  return tid % kVectorsPerRow;
}
/// First shared-memory word of that vector within its row.
template <typename Idx> Idx stageWord(Idx tid) {
  return stageVector(tid) * (kVectorBytes / 4);
}
/// Row of the A (tid < kTileM) or B tile whose scale word thread `tid` copies.
template <typename Idx> Idx stageScaleRow(Idx tid) { return tid % kTileM; }

/// Warp coordinates within the CTA: warp w covers rows
/// (w / kWarpsN) * kWarpTileM and columns (w % kWarpsN) * kWarpTileN.
template <typename Idx> Idx warpRowBase(Idx warp) {
  return (warp / kWarpsN) * kWarpTileM;
}
template <typename Idx> Idx warpColBase(Idx warp) {
  return (warp % kWarpsN) * kWarpTileN;
}

//===----------------------------------------------------------------------===//
// The sm_90a fallback: dequantization to bf16, m16n8k16 bf16 MMAs
//===----------------------------------------------------------------------===//

/// m16n8k16 shape of `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`.
/// Its C/D fragment is the one of m16n8k64 (cFragRow / cFragCol), so the
/// sm_90a kernel shares the CTA tile, the staging and the epilogue.
inline constexpr int64_t kBf16MmaK = 16;
/// Registers per lane (each holds two bf16, the lower k in the low half):
/// A 4 x b32, B 2 x b32.
inline constexpr int kBf16MmaARegs = 4;
inline constexpr int kBf16MmaBRegs = 2;
/// bf16 MMAs along K per 64-wide K step. Each covers exactly one 16-wide
/// scale block: sub-step s uses scale byte s of every row.
inline constexpr int64_t kBf16KSteps = kTileK / kBf16MmaK;
static_assert(kBf16MmaK == 16, "one bf16 MMA per NVFP4 scale block");

/// Row (within the 16-row A tile) of bf16 A register `reg`: a0/a2 row g,
/// a1/a3 row g + 8 (as aFragRow).
template <typename Idx> Idx bf16AFragRow(Idx g, int reg) {
  return aFragRow(g, reg);
}
/// Shared-memory word (of the 8-word row of the K step) holding the two
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
