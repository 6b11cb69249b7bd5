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

} // namespace nvfp4::gpu

#endif // NVFP4_CONVERSION_NVFP4TOGPU_QUANTIZELAYOUT_H
