//===- Matmul.cpp - The block-scaled NVFP4 GEMM of the reference library --===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// nvfp4::matmul: C = (sum over K blocks of sA * sB * (qA . qB)) * alpha,
// bit for bit the reference definition (Numerics.h), computed fast.
//
// Every output element follows the reference's operations in the
// reference's order: per 16-wide K block, in increasing K, the block's dot
// product of E2M1 values (multiples of 1/4 below 576 in magnitude: exact in
// f32 whatever the order of its sums), times sA * sB (exact: two E4M3
// values), added to the accumulator with one f32 rounding; then times alpha.
// Only the order in which different output elements are computed changes,
// which makes the loops vectorizable across columns:
//
//  - A's codes are decoded to f32 rows, B's to f32 columns (K-major:
//    [k][n], padded to whole column tiles), the scales likewise;
//  - a tile of kTileRows x kTileColumns outputs keeps its accumulators in a
//    local array; per K block, each row's kTileColumns block dot products
//    are summed in registers (16 broadcast-multiply-adds over a 16 x
//    kTileColumns slice of B that stays in L1 for the tile's rows), then
//    scaled and added;
//  - the tile loop is compiled for AVX-512, AVX2 and the baseline ISA and
//    chosen at run time (target_clones), and the tiles are spread over
//    threads. Results do not depend on the ISA or the thread count.
//
// The multiply-add of the block sums may be fused or not: both are exact.
// The scale step is written as multiply, then add; its product is exact, so
// a fused form would round identically.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/Numerics.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace nvfp4 {
namespace {

constexpr int64_t kTileRows = 32;
constexpr int64_t kTileColumns = 64;

/// The operands decoded for the tile loop.
struct DecodedOperands {
  int64_t m = 0, n = 0, k = 0, kBlocks = 0, paddedN = 0;
  std::vector<float> a;       // [m][k]
  std::vector<float> b;       // [k][paddedN], zeros past n
  std::vector<float> aScales; // [m][kBlocks]
  std::vector<float> bScales; // [kBlocks][paddedN], zeros past n
};

DecodedOperands decode(const QuantizedTensor &a, const QuantizedTensor &b) {
  DecodedOperands d;
  d.m = a.rows;
  d.n = b.rows;
  d.k = a.cols;
  d.kBlocks = d.k / kBlockSize;
  d.paddedN = (d.n + kTileColumns - 1) / kTileColumns * kTileColumns;
  float e2m1[16];
  for (int code = 0; code < 16; ++code)
    e2m1[code] = decodeE2M1(static_cast<uint8_t>(code));
  d.a.resize(static_cast<size_t>(d.m * d.k));
  for (int64_t i = 0; i < d.m * d.k / 2; ++i) {
    d.a[2 * i] = e2m1[a.data[i] & 0xF];
    d.a[2 * i + 1] = e2m1[a.data[i] >> 4];
  }
  d.b.assign(static_cast<size_t>(d.k * d.paddedN), 0.0f);
  for (int64_t j = 0; j < d.n; ++j)
    for (int64_t kk = 0; kk < d.k; kk += 2) {
      const uint8_t byte = b.data[(j * d.k + kk) / 2];
      d.b[kk * d.paddedN + j] = e2m1[byte & 0xF];
      d.b[(kk + 1) * d.paddedN + j] = e2m1[byte >> 4];
    }
  d.aScales.resize(static_cast<size_t>(d.m * d.kBlocks));
  for (int64_t i = 0; i < d.m * d.kBlocks; ++i)
    d.aScales[i] = decodeE4M3(a.scales[i]);
  d.bScales.assign(static_cast<size_t>(d.kBlocks * d.paddedN), 0.0f);
  for (int64_t j = 0; j < d.n; ++j)
    for (int64_t blk = 0; blk < d.kBlocks; ++blk)
      d.bScales[blk * d.paddedN + j] = decodeE4M3(b.scales[j * d.kBlocks + blk]);
  return d;
}

/// Computes rows [rowBegin, rowEnd) x columns [column, column +
/// kTileColumns) into `c` (row-major [m, n]; columns past n are not
/// written).
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void computeTile(const float *__restrict a, const float *__restrict b,
                 const float *__restrict aScales,
                 const float *__restrict bScales, int64_t k, int64_t kBlocks,
                 int64_t paddedN, int64_t rowBegin, int64_t rowEnd,
                 int64_t column, int64_t n, float alpha, float *__restrict c) {
  float acc[kTileRows][kTileColumns] = {};
  const int64_t rows = rowEnd - rowBegin;
  for (int64_t blk = 0; blk < kBlocks; ++blk) {
    const float *bBlock = b + blk * kBlockSize * paddedN + column;
    const float *sb = bScales + blk * paddedN + column;
    for (int64_t r = 0; r < rows; ++r) {
      const float *aBlock = a + (rowBegin + r) * k + blk * kBlockSize;
      float partial[kTileColumns] = {};
      for (int64_t e = 0; e < kBlockSize; ++e) {
        const float av = aBlock[e];
        const float *bRow = bBlock + e * paddedN;
        for (int64_t jj = 0; jj < kTileColumns; ++jj)
          partial[jj] += av * bRow[jj];
      }
      const float sa = aScales[(rowBegin + r) * kBlocks + blk];
      for (int64_t jj = 0; jj < kTileColumns; ++jj) {
        const float scaled = partial[jj] * (sa * sb[jj]);
        acc[r][jj] = acc[r][jj] + scaled;
      }
    }
  }
  const int64_t columns = std::min(kTileColumns, n - column);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t jj = 0; jj < columns; ++jj)
      c[(rowBegin + r) * n + column + jj] = acc[r][jj] * alpha;
}

} // namespace

void matmul(const QuantizedTensor &a, const QuantizedTensor &b, float *c,
            int numThreads) {
  if (checkMatmulOperands(a, b))
    return;
  const DecodedOperands d = decode(a, b);
  const float alpha = matmulAlpha(a.amax, b.amax);
  const int64_t rowTiles = (d.m + kTileRows - 1) / kTileRows;
  const int64_t columnTiles = d.paddedN / kTileColumns;
  const int64_t tiles = rowTiles * columnTiles;
  if (numThreads <= 0)
    numThreads = static_cast<int>(
        std::max(1u, std::thread::hardware_concurrency()));
  numThreads = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(numThreads, tiles)));
  std::atomic<int64_t> next{0};
  auto work = [&] {
    for (int64_t t = next++; t < tiles; t = next++) {
      const int64_t rowBegin = t / columnTiles * kTileRows;
      const int64_t column = t % columnTiles * kTileColumns;
      computeTile(d.a.data(), d.b.data(), d.aScales.data(), d.bScales.data(),
                  d.k, d.kBlocks, d.paddedN, rowBegin,
                  std::min(rowBegin + kTileRows, d.m), column, d.n, alpha, c);
    }
  };
  std::vector<std::thread> threads;
  for (int i = 1; i < numThreads; ++i)
    threads.emplace_back(work);
  work();
  for (std::thread &thread : threads)
    thread.join();
}

void matmul(const QuantizedTensor &a, const QuantizedTensor &b, float *c) {
  matmul(a, b, c, /*numThreads=*/0);
}

} // namespace nvfp4
