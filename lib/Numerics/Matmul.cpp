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
//  - A's codes are decoded to f32 rows, shared by all threads; B's are
//    decoded per column tile into a K-major panel ([k][kTileColumns], zeros
//    past n) of the thread that computes the tile, so decoded B never
//    crosses cores; the scales likewise;
//  - a tile of kTileRows x kTileColumns outputs keeps its accumulators in a
//    local array; per K block, each row's kTileColumns block dot products
//    are summed in registers (16 broadcast-multiply-adds over a 16 x
//    kTileColumns slice of B that stays in L1 for the tile's rows), then
//    scaled and added;
//  - the tile loop is compiled for AVX-512, AVX2 and the baseline ISA, each
//    register-blocked for its register file, and chosen at run time;
//  - the tiles are spread over the library's thread team (ThreadTeam.h) in
//    column-tile-major slices, one per thread, which idle threads take
//    from at the back. Results do not depend on the ISA or the thread
//    count.
//
// This file is compiled with floating-point contraction (CMakeLists.txt),
// unlike the rest of the library: a fused multiply-add of the block sums
// computes the same exact value, and in the scale step `acc + partial * sab`
// the product is exact, so the fused form rounds once, as the separate
// multiply and add do.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/Numerics.h"
#include "nvfp4/Numerics/ThreadTeam.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace nvfp4 {
namespace {

constexpr int64_t kTileRows = 32;
constexpr int64_t kTileColumns = 64;

/// The decoded E2M1 value pairs of every byte (the low nibble first, as the
/// codes are stored) and the decoded E4M3 value of every scale code.
struct DecodeTables {
  float e2m1Pairs[256][2];
  float e4m3[256];
  DecodeTables() {
    for (int byte = 0; byte < 256; ++byte) {
      e2m1Pairs[byte][0] = decodeE2M1(static_cast<uint8_t>(byte & 0xF));
      e2m1Pairs[byte][1] = decodeE2M1(static_cast<uint8_t>(byte >> 4));
      e4m3[byte] = decodeE4M3(static_cast<uint8_t>(byte));
    }
  }
};
const DecodeTables &decodeTables() {
  static const DecodeTables tables;
  return tables;
}

/// A barrier for the threads of one GEMM (spinning: the phases it separates
/// take microseconds).
class SpinBarrier {
public:
  explicit SpinBarrier(int numThreads) : numThreads(numThreads) {}
  void arriveAndWait() {
    ++arrived;
    while (arrived.load() < numThreads)
      std::this_thread::yield();
  }

private:
  const int numThreads;
  std::atomic<int> arrived{0};
};

/// The slice [begin, end) of `count` items that thread `thread` of
/// `numThreads` starts with: contiguous, sizes differing by at most one.
std::pair<int64_t, int64_t> threadSlice(int64_t count, int thread,
                                        int numThreads) {
  return {count * thread / numThreads, count * (thread + 1) / numThreads};
}

/// The tiles one thread has still to compute: it takes them from the front;
/// a thread that ran out takes them from the back of another's (a core
/// the host slows down does not hold the GEMM up), so each thread still
/// works through few column panels.
class alignas(64) TileQueue {
public:
  void assign(std::pair<int64_t, int64_t> slice) {
    front = slice.first;
    back = slice.second;
  }
  bool takeFront(int64_t &item) {
    std::lock_guard<std::mutex> lock(mutex);
    if (front == back)
      return false;
    item = front++;
    return true;
  }
  bool takeBack(int64_t &item) {
    std::lock_guard<std::mutex> lock(mutex);
    if (front == back)
      return false;
    item = --back;
    return true;
  }

private:
  std::mutex mutex;
  int64_t front = 0, back = 0;
};

/// Decodes rows [begin, end) of A into `values` ([m][k]) and `scales`
/// ([m][kBlocks]).
void decodeRows(const QuantizedTensor &a, float *values, float *scales,
                int64_t begin, int64_t end) {
  const DecodeTables &tables = decodeTables();
  const int64_t kBlocks = a.cols / kBlockSize;
  for (int64_t i = begin * a.cols / 2; i < end * a.cols / 2; ++i) {
    values[2 * i] = tables.e2m1Pairs[a.data[i]][0];
    values[2 * i + 1] = tables.e2m1Pairs[a.data[i]][1];
  }
  for (int64_t i = begin * kBlocks; i < end * kBlocks; ++i)
    scales[i] = tables.e4m3[a.scales[i]];
}

/// B's columns [column, column + kTileColumns) decoded K-major, the layout
/// the micro-kernels broadcast A against: values [k][kTileColumns], scales
/// [kBlocks][kTileColumns], zeros past n. Each thread decodes the panels of
/// its own tiles into its own buffer, so no decoded B crosses cores.
struct Panel {
  int64_t column = -1;
  float *values = nullptr;
  float *scales = nullptr;
};

/// Bytes of B's rows decoded per pass over the panel's columns: 16 bytes
/// (32 K rows of 64 floats, 8 KiB of the panel) stay in L1 while each of
/// the 64 source rows is read.
constexpr int64_t kPanelBytesPerPass = 16;

void decodePanel(const QuantizedTensor &b, int64_t column, Panel &panel) {
  const DecodeTables &tables = decodeTables();
  const int64_t k = b.cols, kBlocks = k / kBlockSize;
  const int64_t columns = std::min(kTileColumns, b.rows - column);
  for (int64_t byte0 = 0; byte0 < k / 2; byte0 += kPanelBytesPerPass) {
    const int64_t byteEnd = std::min(k / 2, byte0 + kPanelBytesPerPass);
    for (int64_t jj = 0; jj < columns; ++jj) {
      const uint8_t *row = b.data.data() + (column + jj) * (k / 2);
      for (int64_t byte = byte0; byte < byteEnd; ++byte) {
        const float *pair = tables.e2m1Pairs[row[byte]];
        panel.values[2 * byte * kTileColumns + jj] = pair[0];
        panel.values[(2 * byte + 1) * kTileColumns + jj] = pair[1];
      }
    }
    for (int64_t kk = 2 * byte0; kk < 2 * byteEnd; ++kk)
      std::fill(panel.values + kk * kTileColumns + columns,
                panel.values + (kk + 1) * kTileColumns, 0.0f);
  }
  for (int64_t blk = 0; blk < kBlocks; ++blk) {
    for (int64_t jj = 0; jj < columns; ++jj)
      panel.scales[blk * kTileColumns + jj] =
          tables.e4m3[b.scales[(column + jj) * kBlocks + blk]];
    std::fill(panel.scales + blk * kTileColumns + columns,
              panel.scales + (blk + 1) * kTileColumns, 0.0f);
  }
  panel.column = column;
}

/// The arguments of one tile: rows [rowBegin, rowEnd) x columns [column,
/// column + kTileColumns) of `c` (row-major [m, n]; columns past n are not
/// written), B's columns from the decoded panel.
struct TileArgs {
  const float *a, *aScales, *b, *bScales;
  int64_t k, kBlocks, rowBegin, rowEnd, column, n;
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
  const float *bBlock = t.b + blk * kBlockSize * kTileColumns + col;
  const float *aBlock = t.a + (t.rowBegin + row) * t.k + blk * kBlockSize;
  for (int64_t e = 0; e < kBlockSize; ++e) {
    const float *bRow = bBlock + e * kTileColumns;
    for (int r = 0; r < Rows; ++r) {
      const float av = aBlock[r * t.k + e];
      for (int j = 0; j < Cols; ++j)
        partial[r][j] += av * bRow[j];
    }
  }
  const float *sb = t.bScales + blk * kTileColumns + col;
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
  const int64_t m = a.rows, n = b.rows, k = a.cols, kBlocks = k / kBlockSize;
  const int64_t rowTiles = (m + kTileRows - 1) / kTileRows;
  const int64_t columnTiles = (n + kTileColumns - 1) / kTileColumns;
  const int64_t tiles = rowTiles * columnTiles;
  if (numThreads <= 0)
    numThreads = static_cast<int>(
        std::max(1u, std::thread::hardware_concurrency()));
  numThreads = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(numThreads, tiles)));

  // One workspace of the calling thread, reused by later GEMMs (no page
  // faults on every call): A decoded, then one panel per thread, each part
  // on its own cache lines.
  constexpr int64_t kLineFloats = 16;
  auto lines = [](int64_t floats) {
    return (floats + kLineFloats - 1) / kLineFloats * kLineFloats;
  };
  const int64_t aValuesSize = lines(m * k), aScalesSize = lines(m * kBlocks);
  const int64_t panelValuesSize = k * kTileColumns;
  const int64_t panelScalesSize = kBlocks * kTileColumns;
  thread_local std::vector<float> workspace;
  const size_t needed = aValuesSize + aScalesSize +
                        numThreads * (panelValuesSize + panelScalesSize) +
                        kLineFloats;
  workspace.resize(std::max(workspace.size(), needed));
  float *base = reinterpret_cast<float *>(
      (reinterpret_cast<uintptr_t>(workspace.data()) + 63) & ~uintptr_t(63));
  float *aValues = base, *aScales = base + aValuesSize;
  float *panels = aScales + aScalesSize;

  const float alpha = matmulAlpha(a.amax, a.tensorScale, b.amax, b.tensorScale);
  static const TileFn tile = selectTileFunction();
  SpinBarrier decoded(numThreads);
  std::unique_ptr<TileQueue[]> queues(new TileQueue[numThreads]);
  for (int thread = 0; thread < numThreads; ++thread)
    queues[thread].assign(threadSlice(tiles, thread, numThreads));
  // Each thread decodes a slice of A's rows (whole lines: k is a multiple
  // of 16), then, after the barrier, computes a contiguous slice of the
  // tiles in column-tile-major order, so that it decodes each B panel it
  // needs once.
  runOnThreads(numThreads, [&](int thread) {
    auto [rowBegin, rowEnd] = threadSlice(m, thread, numThreads);
    decodeRows(a, aValues, aScales, rowBegin, rowEnd);
    decoded.arriveAndWait();
    Panel panel;
    panel.values = panels + thread * (panelValuesSize + panelScalesSize);
    panel.scales = panel.values + panelValuesSize;
    auto compute = [&](int64_t item) {
      const int64_t column = item / rowTiles * kTileColumns;
      if (panel.column != column)
        decodePanel(b, column, panel);
      TileArgs args;
      args.a = aValues;
      args.aScales = aScales;
      args.b = panel.values;
      args.bScales = panel.scales;
      args.k = k;
      args.kBlocks = kBlocks;
      args.rowBegin = item % rowTiles * kTileRows;
      args.rowEnd = std::min(args.rowBegin + kTileRows, m);
      args.column = column;
      args.n = n;
      args.alpha = alpha;
      args.c = c;
      tile(args);
    };
    int64_t item;
    while (queues[thread].takeFront(item))
      compute(item);
    for (int other = 1; other < numThreads; ++other)
      while (queues[(thread + other) % numThreads].takeBack(item))
        compute(item);
  });
}

void matmul(const QuantizedTensor &a, const QuantizedTensor &b, float *c) {
  matmul(a, b, c, /*numThreads=*/0);
}

} // namespace nvfp4
