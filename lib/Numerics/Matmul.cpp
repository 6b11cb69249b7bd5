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
//  - the tile loop is compiled for AVX-512, AVX2 and the baseline ISA, each
//    register-blocked for its register file, and chosen at run time; the
//    tiles are spread over threads. Results do not depend on the ISA or the
//    thread count.
//
// This file is compiled with floating-point contraction (CMakeLists.txt),
// unlike the rest of the library: a fused multiply-add of the block sums
// computes the same exact value, and in the scale step `acc + partial * sab`
// the product is exact, so the fused form rounds once, as the separate
// multiply and add do.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/Numerics.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace nvfp4 {
namespace {

constexpr int64_t kTileRows = 32;
constexpr int64_t kTileColumns = 64;

/// The operands decoded for the tile loop, in a workspace of the calling
/// thread that later GEMMs reuse (no page faults on every call).
struct DecodedOperands {
  int64_t m = 0, n = 0, k = 0, kBlocks = 0, paddedN = 0;
  float *a = nullptr;       // [m][k]
  float *b = nullptr;       // [k][paddedN], zeros past n
  float *aScales = nullptr; // [m][kBlocks]
  float *bScales = nullptr; // [kBlocks][paddedN], zeros past n
};

/// The decoded E2M1 and E4M3 values of every code.
struct DecodeTables {
  float e2m1[16];
  float e4m3[256];
  DecodeTables() {
    for (int code = 0; code < 16; ++code)
      e2m1[code] = decodeE2M1(static_cast<uint8_t>(code));
    for (int code = 0; code < 256; ++code)
      e4m3[code] = decodeE4M3(static_cast<uint8_t>(code));
  }
};
const DecodeTables &decodeTables() {
  static const DecodeTables tables;
  return tables;
}

/// Runs `numThreads` threads (the caller included) through `phases` in
/// order: phase p is `counts[p]` work items `run(p, item)`, shared
/// dynamically; no thread starts phase p + 1 before every item of phase p
/// completed. One set of threads for the whole GEMM.
template <typename Run>
void runPhases(const std::vector<int64_t> &counts, int numThreads, Run run) {
  const size_t phases = counts.size();
  std::unique_ptr<std::atomic<int64_t>[]> next(
      new std::atomic<int64_t>[phases]);
  std::unique_ptr<std::atomic<int>[]> arrived(new std::atomic<int>[phases]);
  for (size_t p = 0; p < phases; ++p) {
    next[p] = 0;
    arrived[p] = 0;
  }
  auto work = [&] {
    for (size_t p = 0; p < phases; ++p) {
      for (int64_t item = next[p]++; item < counts[p]; item = next[p]++)
        run(p, item);
      ++arrived[p];
      while (arrived[p].load() < numThreads)
        std::this_thread::yield();
    }
  };
  std::vector<std::thread> threads;
  for (int i = 1; i < numThreads; ++i)
    threads.emplace_back(work);
  work();
  for (std::thread &thread : threads)
    thread.join();
}

/// Rows of A and columns of B decoded per work item (16 columns: whole
/// cache lines of B's transposed rows, so that threads never share one).
constexpr int64_t kDecodeGroup = 16;

/// Decodes rows [begin, end) of A.
void decodeRows(const QuantizedTensor &a, const DecodedOperands &d,
                int64_t begin, int64_t end) {
  const DecodeTables &tables = decodeTables();
  for (int64_t i = begin * d.k / 2; i < end * d.k / 2; ++i) {
    d.a[2 * i] = tables.e2m1[a.data[i] & 0xF];
    d.a[2 * i + 1] = tables.e2m1[a.data[i] >> 4];
  }
  for (int64_t i = begin * d.kBlocks; i < end * d.kBlocks; ++i)
    d.aScales[i] = tables.e4m3[a.scales[i]];
}

/// Decodes columns [begin, end) of B (zeros past n).
void decodeColumns(const QuantizedTensor &b, const DecodedOperands &d,
                   int64_t begin, int64_t end) {
  const DecodeTables &tables = decodeTables();
  for (int64_t kk = 0; kk < d.k; kk += 2)
    for (int64_t j = begin; j < end; ++j) {
      const uint8_t byte = j < d.n ? b.data[(j * d.k + kk) / 2] : 0;
      d.b[kk * d.paddedN + j] = j < d.n ? tables.e2m1[byte & 0xF] : 0.0f;
      d.b[(kk + 1) * d.paddedN + j] = j < d.n ? tables.e2m1[byte >> 4] : 0.0f;
    }
  for (int64_t blk = 0; blk < d.kBlocks; ++blk)
    for (int64_t j = begin; j < end; ++j)
      d.bScales[blk * d.paddedN + j] =
          j < d.n ? tables.e4m3[b.scales[j * d.kBlocks + blk]] : 0.0f;
}

/// The arguments of one tile: rows [rowBegin, rowEnd) x columns [column,
/// column + kTileColumns) of `c` (row-major [m, n]; columns past n are not
/// written).
struct TileArgs {
  const float *a, *b, *aScales, *bScales;
  int64_t k, kBlocks, paddedN, rowBegin, rowEnd, column, n;
  float alpha;
  float *c;
};

/// The block sums of `Rows` rows x `Cols` columns (at `row` of the tile,
/// column `col` of the tile) for K block `blk`, scaled and added to the
/// tile's accumulators. Rows x Cols partial sums stay in registers; each B
/// vector loaded serves `Rows` rows.
template <int Rows, int Cols>
inline __attribute__((always_inline)) void
microKernel(const TileArgs &t, float (*acc)[kTileColumns], int64_t row,
            int64_t col, int64_t blk) {
  float partial[Rows][Cols] = {};
  const float *bBlock = t.b + blk * kBlockSize * t.paddedN + t.column + col;
  const float *aBlock = t.a + (t.rowBegin + row) * t.k + blk * kBlockSize;
  for (int64_t e = 0; e < kBlockSize; ++e) {
    const float *bRow = bBlock + e * t.paddedN;
    for (int r = 0; r < Rows; ++r) {
      const float av = aBlock[r * t.k + e];
      for (int j = 0; j < Cols; ++j)
        partial[r][j] += av * bRow[j];
    }
  }
  const float *sb = t.bScales + blk * t.paddedN + t.column + col;
  for (int r = 0; r < Rows; ++r) {
    const float sa = t.aScales[(t.rowBegin + row + r) * t.kBlocks + blk];
    for (int j = 0; j < Cols; ++j) {
      const float sab = sa * sb[j];
      acc[row + r][col + j] += partial[r][j] * sab;
    }
  }
}

/// Computes one tile with micro-kernels of `Rows` x `Cols` (a row remainder
/// one row at a time).
template <int Rows, int Cols>
inline __attribute__((always_inline)) void tileBody(const TileArgs &t) {
  float acc[kTileRows][kTileColumns] = {};
  const int64_t rows = t.rowEnd - t.rowBegin;
  for (int64_t blk = 0; blk < t.kBlocks; ++blk)
    for (int64_t col = 0; col < kTileColumns; col += Cols) {
      int64_t row = 0;
      for (; row + Rows <= rows; row += Rows)
        microKernel<Rows, Cols>(t, acc, row, col, blk);
      for (; row < rows; ++row)
        microKernel<1, Cols>(t, acc, row, col, blk);
    }
  const int64_t columns = std::min(kTileColumns, t.n - t.column);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t jj = 0; jj < columns; ++jj)
      t.c[(t.rowBegin + r) * t.n + t.column + jj] = acc[r][jj] * t.alpha;
}

// One variant per ISA, register-blocked for its register file: AVX-512
// (32 x 512-bit: 4 rows x 64 columns of partial sums), AVX2 (16 x 256-bit:
// 4 x 16), and the baseline (2 x 16).
#if defined(__GNUC__) && defined(__x86_64__)
#define NVFP4_MATMUL_X86 1
__attribute__((target("avx512f,avx512vl,avx2,fma"))) void
tileAvx512(const TileArgs &t) {
  tileBody<4, 64>(t);
}
__attribute__((target("avx2,fma"))) void tileAvx2(const TileArgs &t) {
  tileBody<4, 16>(t);
}
#endif
void tileBaseline(const TileArgs &t) { tileBody<2, 16>(t); }

using TileFn = void (*)(const TileArgs &);

TileFn selectTileFunction() {
#ifdef NVFP4_MATMUL_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"))
    return tileAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return tileAvx2;
#endif
  return tileBaseline;
}

} // namespace

void matmul(const QuantizedTensor &a, const QuantizedTensor &b, float *c,
            int numThreads) {
  if (checkMatmulOperands(a, b))
    return;
  DecodedOperands d;
  d.m = a.rows;
  d.n = b.rows;
  d.k = a.cols;
  d.kBlocks = d.k / kBlockSize;
  d.paddedN = (d.n + kTileColumns - 1) / kTileColumns * kTileColumns;
  thread_local std::vector<float> workspace;
  const size_t sizes[] = {static_cast<size_t>(d.m * d.k),
                          static_cast<size_t>(d.k * d.paddedN),
                          static_cast<size_t>(d.m * d.kBlocks),
                          static_cast<size_t>(d.kBlocks * d.paddedN)};
  workspace.resize(std::max(workspace.size(),
                            sizes[0] + sizes[1] + sizes[2] + sizes[3]));
  d.a = workspace.data();
  d.b = d.a + sizes[0];
  d.aScales = d.b + sizes[1];
  d.bScales = d.aScales + sizes[2];
  const float alpha = matmulAlpha(a.amax, b.amax);
  const int64_t rowGroups = (d.m + kDecodeGroup - 1) / kDecodeGroup;
  const int64_t columnGroups = d.paddedN / kDecodeGroup;
  const int64_t rowTiles = (d.m + kTileRows - 1) / kTileRows;
  const int64_t columnTiles = d.paddedN / kTileColumns;
  const int64_t tiles = rowTiles * columnTiles;
  if (numThreads <= 0)
    numThreads = static_cast<int>(
        std::max(1u, std::thread::hardware_concurrency()));
  numThreads = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(numThreads, tiles)));
  static const TileFn tile = selectTileFunction();
  // Phase 0 decodes the operands, phase 1 computes the tiles.
  runPhases({rowGroups + columnGroups, tiles}, numThreads,
            [&](size_t phase, int64_t item) {
              if (phase == 0) {
                if (item < rowGroups)
                  decodeRows(a, d, item * kDecodeGroup,
                             std::min(d.m, (item + 1) * kDecodeGroup));
                else
                  decodeColumns(b, d, (item - rowGroups) * kDecodeGroup,
                                (item - rowGroups + 1) * kDecodeGroup);
                return;
              }
              TileArgs args;
              args.a = d.a;
              args.b = d.b;
              args.aScales = d.aScales;
              args.bScales = d.bScales;
              args.k = d.k;
              args.kBlocks = d.kBlocks;
              args.paddedN = d.paddedN;
              args.rowBegin = item / columnTiles * kTileRows;
              args.rowEnd = std::min(args.rowBegin + kTileRows, d.m);
              args.column = item % columnTiles * kTileColumns;
              args.n = d.n;
              args.alpha = alpha;
              args.c = c;
              tile(args);
            });
}

void matmul(const QuantizedTensor &a, const QuantizedTensor &b, float *c) {
  matmul(a, b, c, /*numThreads=*/0);
}

} // namespace nvfp4
