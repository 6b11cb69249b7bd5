//===- QuantizeLayout.h - Work assignment of the quantize kernels -*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The index mathematics of the NVFP4 quantize kernels: which 16-element block
// of the input each thread quantizes, where its packed codes, its E4M3 scale
// and its stochastic-rounding counter go, and how the tensor amax is reduced.
//
// As MmaLayout.h, every function is a template over the index type: the
// NVFP4ToGPU lowering instantiates it with a builder of `arith` operations,
// the unit tests with `int64_t`. The index type needs `+`, `*`, `/` and `%`
// with an `int64_t` right-hand side. This header has no MLIR dependency.
//
// The input is viewed as a row-major [rows, cols] array (all leading
// dimensions flattened, cols = the last dimension, a multiple of 16). A
// "block" is 16 consecutive elements of one row: block b covers the linear
// elements 16b .. 16b+15, which is row b / (cols / 16), column block
// b % (cols / 16).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_QUANTIZELAYOUT_H
#define NVFP4_CONVERSION_NVFP4TOGPU_QUANTIZELAYOUT_H

#include <algorithm>
#include <cstdint>

namespace nvfp4::gpu {

/// Threads per CTA of the amax and quantize kernels (four warps).
inline constexpr int64_t kQuantizeThreads = 128;
/// Warps per CTA.
inline constexpr int64_t kQuantizeWarps = kQuantizeThreads / 32;
/// Elements of one block; each thread quantizes one block.
inline constexpr int64_t kQuantizeBlock = 16;
/// Upper bound on the CTAs of the amax kernel (= the number of per-CTA
/// partial maxima the quantize kernel reduces).
inline constexpr int64_t kAmaxMaxCtas = 256;

/// Number of 16-element blocks of a [rows, cols] tensor (one thread each).
inline int64_t quantizeNumBlocks(int64_t numElements) {
  return numElements / kQuantizeBlock;
}
/// CTAs of the quantize kernel: one thread per block.
inline int64_t quantizeNumCtas(int64_t numElements) {
  return (quantizeNumBlocks(numElements) + kQuantizeThreads - 1) /
         kQuantizeThreads;
}
/// CTAs of the amax kernel. Each thread walks the blocks with a grid stride.
inline int64_t amaxNumCtas(int64_t numElements) {
  return std::min(quantizeNumCtas(numElements), kAmaxMaxCtas);
}

/// Global thread id of thread `tid` of CTA `cta`.
template <typename Idx> Idx quantizeGlobalThread(Idx cta, Idx tid) {
  return cta * kQuantizeThreads + tid;
}

/// The block quantized by global thread `gid`.
///
/// 1x16: thread gid takes block gid.
///
/// 16x16: the 16 consecutive threads 16t .. 16t+15 (an aligned half warp)
/// take the 16 rows of tile t, tiles numbered row-major over the
/// [rows / 16, cols / 16] tile grid, so that the tile amax is a butterfly
/// reduction over lane offsets 1, 2, 4, 8. Thread 16t + i takes row
/// 16 (t / (cols/16)) + i, column block t % (cols/16).
template <typename Idx>
Idx quantizeBlockOfThread(Idx gid, int64_t cols, int64_t blockRows) {
  const int64_t blocksPerRow = cols / kQuantizeBlock;
  if (blockRows == 1)
    return gid;
  Idx tile = gid / 16;
  Idx row = (tile / blocksPerRow) * 16 + gid % 16;
  return row * blocksPerRow + tile % blocksPerRow;
}

/// Index of the E4M3 byte thread `gid` computes in the compact scale array
/// ([rows, cols/16] for 1x16, [rows/16, cols/16] for 16x16: tile t). For
/// 16x16 the 16 threads of a tile hold the same byte and the thread with
/// quantizeRowInTile == 0 writes it.
template <typename Idx>
Idx quantizeScaleIndex(Idx gid, int64_t blockRows) {
  return blockRows == 1 ? gid : gid / 16;
}
/// Row within its tile of the block of thread `gid` (16x16 only).
template <typename Idx> Idx quantizeRowInTile(Idx gid) { return gid % 16; }

/// First byte of the 8 packed bytes of block `block` (two codes per byte,
/// the even element in the low nibble).
template <typename Idx> Idx quantizeDataByte(Idx block) { return block * 8; }
/// First input element of block `block`.
template <typename Idx> Idx quantizeInputElement(Idx block) {
  return block * kQuantizeBlock;
}
/// The Philox counter of the block's stochastic-rounding bits (the random
/// byte of element 16b + j is byte j of philox4x32(seed, offset + b)).
template <typename Idx> Idx quantizePhiloxCounter(Idx block, int64_t offset) {
  return block + offset;
}

/// Hardware stochastic rounding (`hardware-sr`): the kernel converts
/// elements 4w .. 4w+3 of its block with one
/// `cvt.rs.satfinite.e2m1x4.f32 d, {a, b, e, f}, rbits`, passing
/// {y[4w+3], y[4w+2], y[4w+1], y[4w]} so that d[3:0] holds element 4w and the
/// 16-bit result is the two packed bytes of those elements. Bit offset of the
/// random byte the instruction gives operand `operand` (0 = a, 1 = b, 2 = e,
/// 3 = f) as the PTX ISA words it: "lower 8-bits from both 16-bits half of
/// rbits are used for operands e, f and upper 8-bits from both 16-bits half
/// of rbits are used for operands a, b", read in operand order (the upper
/// half before the lower one): a <- rbits[31:24], b <- rbits[15:8],
/// e <- rbits[23:16], f <- rbits[7:0]. The ISA's figure is the normative
/// form; this reading is not yet confirmed on sm_100a / sm_103a silicon.
constexpr int cvtRsE2M1x4RandomByteShift(int operand) {
  constexpr int kShift[4] = {24, 8, 16, 0};
  return kShift[operand & 3];
}

/// The `rbits` operand for elements 4w .. 4w+3 from word w of the block's
/// Philox output (element 4w + i takes byte i of the word, as the software
/// path): bytes 1 and 2 swap places so that, with the operand order above,
/// element 4w + 1 (operand e) reads rbits[23:16] and element 4w + 2 (operand
/// b) reads rbits[15:8]. `Word` needs `&`, `|`, `<<` and `>>` with an
/// `int64_t` right-hand side (uint32_t or an IR builder).
template <typename Word> Word cvtRsE2M1x4Rbits(Word w) {
  return (w & int64_t(0xFF0000FF)) | ((w >> int64_t(8)) & int64_t(0xFF00)) |
         ((w << int64_t(8)) & int64_t(0xFF0000));
}

} // namespace nvfp4::gpu

#endif // NVFP4_CONVERSION_NVFP4TOGPU_QUANTIZELAYOUT_H
