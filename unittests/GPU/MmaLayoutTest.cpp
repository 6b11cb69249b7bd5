//===- MmaLayoutTest.cpp - m16n8k64 block-scale layout tests --------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Checks the index mathematics of MmaLayout.h, which the NVFP4ToGPU lowering
// emits, against the fragment tables of the PTX ISA for
// mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X,
// and runs the whole kernel (staging, fragments, MMAs, epilogue) on a CPU
// emulation of one CTA at a time, comparing with nvfp4::matmul bit for bit.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/MmaLayout.h"
#include "nvfp4/Numerics/Numerics.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace nvfp4;
using namespace nvfp4::gpu;

namespace {

//===----------------------------------------------------------------------===//
// The PTX ISA tables, written independently of MmaLayout.h
//===----------------------------------------------------------------------===//

struct Coord {
  int64_t row, col;
};

/// A (16 x 64, row-major): element `e` (0..7, lowest nibble first) of
/// register a_i of lane `lane`.
Coord isaA(int lane, int reg, int e) {
  int group = lane >> 2, tig = lane % 4;
  int64_t row = (reg == 0 || reg == 2) ? group : group + 8;
  int64_t k = tig * 8 + e + (reg >= 2 ? 32 : 0);
  return {row, k};
}
/// B (64 x 8, column-major): element `e` of register b_i; {k, n}.
Coord isaB(int lane, int reg, int e) {
  int group = lane >> 2, tig = lane % 4;
  return {tig * 8 + e + (reg == 1 ? 32 : 0), group};
}
/// C/D (16 x 8): register c_i.
Coord isaC(int lane, int reg) {
  int group = lane >> 2, tig = lane % 4;
  return {reg < 2 ? group : group + 8, tig * 2 + (reg & 1)};
}
/// The lane whose scale-a word supplies row `row` of A (thread-id-a = tidA):
/// in each quad, lane q = 2 * tidA supplies row g, q = 2 * tidA + 1 row g + 8.
int isaScaleALane(int64_t row, int tidA) {
  return static_cast<int>((row % 8) * 4 + 2 * tidA + row / 8);
}
/// The lane whose scale-b word supplies column `col` of B.
int isaScaleBLane(int64_t col, int tidB) {
  return static_cast<int>(col * 4 + tidB);
}

TEST(MmaLayoutTest, FragmentsMatchIsaTables) {
  for (int lane = 0; lane < 32; ++lane) {
    int64_t g = laneGroup<int64_t>(lane), q = laneInGroup<int64_t>(lane);
    for (int reg = 0; reg < kMmaARegs; ++reg)
      for (int e = 0; e < 8; ++e) {
        Coord c = isaA(lane, reg, e);
        EXPECT_EQ(aFragRow(g, reg), c.row) << lane << " a" << reg;
        EXPECT_EQ(aFragWord(q, reg) * kCodesPerWord + e, c.col)
            << lane << " a" << reg;
      }
    for (int reg = 0; reg < kMmaBRegs; ++reg)
      for (int e = 0; e < 8; ++e) {
        Coord c = isaB(lane, reg, e);
        EXPECT_EQ(bFragCol(g, reg), c.col) << lane << " b" << reg;
        EXPECT_EQ(bFragWord(q, reg) * kCodesPerWord + e, c.row)
            << lane << " b" << reg;
      }
    for (int reg = 0; reg < kMmaCRegs; ++reg) {
      Coord c = isaC(lane, reg);
      EXPECT_EQ(cFragRow(g, reg), c.row) << lane << " c" << reg;
      EXPECT_EQ(cFragCol(q, reg), c.col) << lane << " c" << reg;
    }
  }
}

/// mma.sync m16n8k16 bf16, A (16 x 16, row-major): element `e` (0: low
/// half, 1: high half) of register a_i of lane `lane`; {row, k}.
Coord isaBf16A(int lane, int reg, int e) {
  int group = lane >> 2, tig = lane % 4;
  int64_t row = (reg == 0 || reg == 2) ? group : group + 8;
  return {row, tig * 2 + e + (reg >= 2 ? 8 : 0)};
}
/// B (16 x 8, column-major): element `e` of register b_i; {k, n}.
Coord isaBf16B(int lane, int reg, int e) {
  int group = lane >> 2, tig = lane % 4;
  return {tig * 2 + e + (reg == 1 ? 8 : 0), group};
}

// The sm_90a kernel: sub-step s of a 64-wide K step reads, for element e of
// a register, nibble e of byte bf16FragByte(q) of word bf16*FragWord(s, reg);
// that must be k = 16s + (the ISA's k), and scale block s.
TEST(MmaLayoutTest, Bf16FragmentsMatchIsaTables) {
  for (int lane = 0; lane < 32; ++lane) {
    int64_t g = laneGroup<int64_t>(lane), q = laneInGroup<int64_t>(lane);
    for (int64_t s = 0; s < kBf16KSteps; ++s) {
      for (int reg = 0; reg < kBf16MmaARegs; ++reg)
        for (int e = 0; e < 2; ++e) {
          Coord c = isaBf16A(lane, reg, e);
          int64_t k = bf16AFragWord(s, reg) * kCodesPerWord +
                      bf16FragByte(q) * 2 + e;
          EXPECT_EQ(bf16AFragRow(g, reg), c.row) << lane << " a" << reg;
          EXPECT_EQ(k, kBf16MmaK * s + c.col) << lane << " a" << reg;
          EXPECT_EQ(k / 16, s) << "one scale block per sub-step";
        }
      for (int reg = 0; reg < kBf16MmaBRegs; ++reg)
        for (int e = 0; e < 2; ++e) {
          Coord c = isaBf16B(lane, reg, e);
          int64_t k = bf16BFragWord(s, reg) * kCodesPerWord +
                      bf16FragByte(q) * 2 + e;
          EXPECT_EQ(bFragCol(g, reg), c.col) << lane << " b" << reg;
          EXPECT_EQ(k, kBf16MmaK * s + c.row) << lane << " b" << reg;
        }
    }
  }
}

TEST(MmaLayoutTest, ScaleLanesHoldTheRowsTheInstructionReads) {
  for (int64_t row = 0; row < kMmaM; ++row) {
    int lane = isaScaleALane(row, kScaleThreadIdA);
    EXPECT_EQ(scaleARow<int64_t>(lane / 4, lane % 4), row);
  }
  for (int64_t col = 0; col < kMmaN; ++col) {
    int lane = isaScaleBLane(col, kScaleThreadIdB);
    EXPECT_EQ(scaleBCol<int64_t>(lane / 4, lane % 4), col);
  }
}

TEST(MmaLayoutTest, StagingCoversTheTileOnce) {
  std::vector<int> a(kTileM * kWordsPerMmaRow, 0), s(kTileM + kTileN, 0);
  for (int64_t tid = 0; tid < kThreads; ++tid) {
    for (int64_t w = 0; w < kVectorBytes / 4; ++w)
      ++a[stageRow(tid) * kWordsPerMmaRow + stageWord(tid) + w];
    ++s[tid];
    EXPECT_EQ(stageScaleRow(tid), tid % kTileM);
  }
  for (int v : a)
    EXPECT_EQ(v, 1);
  for (int v : s)
    EXPECT_EQ(v, 1);
}

//===----------------------------------------------------------------------===//
// Emulation of the kernel
//===----------------------------------------------------------------------===//

/// One lane's operands of one MMA.
struct LaneRegs {
  std::array<uint32_t, 4> a{};
  std::array<uint32_t, 2> b{};
  std::array<float, 4> c{};
  uint32_t scaleA = 0, scaleB = 0;
};

uint8_t nibble(uint32_t word, int e) { return (word >> (4 * e)) & 0xF; }
uint8_t byteOf(uint32_t word, int i) { return (word >> (8 * i)) & 0xFF; }

/// The instruction's semantics on the 32 lanes' registers, per the ISA
/// tables above: D = C + sum over the four K blocks of
/// (scaleA * scaleB) * (A_block . B_block), blocks in increasing k.
void emulateMma(std::array<LaneRegs, 32> &lanes) {
  float aT[kMmaM][kMmaK], bT[kMmaK][kMmaN];
  for (int lane = 0; lane < 32; ++lane) {
    for (int reg = 0; reg < 4; ++reg)
      for (int e = 0; e < 8; ++e) {
        Coord c = isaA(lane, reg, e);
        aT[c.row][c.col] = decodeE2M1(nibble(lanes[lane].a[reg], e));
      }
    for (int reg = 0; reg < 2; ++reg)
      for (int e = 0; e < 8; ++e) {
        Coord c = isaB(lane, reg, e);
        bT[c.row][c.col] = decodeE2M1(nibble(lanes[lane].b[reg], e));
      }
  }
  float d[kMmaM][kMmaN];
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < 4; ++reg) {
      Coord c = isaC(lane, reg);
      d[c.row][c.col] = lanes[lane].c[reg];
    }
  for (int64_t m = 0; m < kMmaM; ++m)
    for (int64_t n = 0; n < kMmaN; ++n) {
      uint32_t sa = lanes[isaScaleALane(m, kScaleThreadIdA)].scaleA;
      uint32_t sb = lanes[isaScaleBLane(n, kScaleThreadIdB)].scaleB;
      float acc = d[m][n];
      for (int kb = 0; kb < 4; ++kb) {
        float partial = 0.0f;
        for (int e = 0; e < 16; ++e)
          partial += aT[m][kb * 16 + e] * bT[kb * 16 + e][n];
        float sab = decodeE4M3(byteOf(sa, kb)) * decodeE4M3(byteOf(sb, kb));
        acc += partial * sab;
      }
      d[m][n] = acc;
    }
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < 4; ++reg) {
      Coord c = isaC(lane, reg);
      lanes[lane].c[reg] = d[c.row][c.col];
    }
}

uint32_t loadWord(const std::vector<uint8_t> &bytes, int64_t offset) {
  uint32_t w;
  std::memcpy(&w, bytes.data() + offset, 4); // little-endian, as the GPU
  return w;
}

/// Runs the kernel the lowering generates on the CPU: packed data and compact
/// scales in, C = A * B^T * (decodeA * decodeB) out.
std::vector<float> emulateKernel(const QuantizedTensor &a,
                                 const std::vector<uint8_t> &aScales,
                                 int64_t aBlockRows, const QuantizedTensor &b,
                                 const std::vector<uint8_t> &bScales,
                                 int64_t bBlockRows) {
  const int64_t m = a.rows, n = b.rows, k = a.cols;
  const int64_t rowBytes = k / 2, scaleRowBytes = k / 16;
  std::vector<float> out(m * n, 0.0f);
  for (int64_t tileM = 0; tileM < m / kTileM; ++tileM)
    for (int64_t tileN = 0; tileN < n / kTileN; ++tileN) {
      // Per-thread accumulators: [warp][lane][mma i][mma j][reg].
      std::vector<float> acc(kThreads * kMmasM * kMmasN * kMmaCRegs, 0.0f);
      auto accAt = [&](int64_t tid, int64_t i, int64_t j, int r) -> float & {
        return acc[((tid * kMmasM + i) * kMmasN + j) * kMmaCRegs + r];
      };
      for (int64_t kt = 0; kt < k / kTileK; ++kt) {
        uint32_t smemA[kTileM][kWordsPerMmaRow], smemB[kTileN][kWordsPerMmaRow];
        uint32_t smemS[kTileM + kTileN];
        for (int64_t tid = 0; tid < kThreads; ++tid) {
          int64_t row = stageRow(tid), word = stageWord(tid);
          int64_t kByte = kt * kTileRowBytes + stageVector(tid) * kVectorBytes;
          for (int64_t e = 0; e < 4; ++e) {
            smemA[row][word + e] = loadWord(
                a.data, (tileM * kTileM + row) * rowBytes + kByte + 4 * e);
            smemB[row][word + e] = loadWord(
                b.data, (tileN * kTileN + row) * rowBytes + kByte + 4 * e);
          }
          int64_t sRow = stageScaleRow(tid), kScale = kt * (kTileK / 16);
          smemS[tid] =
              tid < kTileM
                  ? loadWord(aScales, ((tileM * kTileM + sRow) / aBlockRows) *
                                              scaleRowBytes +
                                          kScale)
                  : loadWord(bScales, ((tileN * kTileN + sRow) / bBlockRows) *
                                              scaleRowBytes +
                                          kScale);
        }
        for (int64_t warp = 0; warp < kThreads / kWarpSize; ++warp)
          for (int64_t i = 0; i < kMmasM; ++i)
            for (int64_t j = 0; j < kMmasN; ++j) {
              std::array<LaneRegs, 32> lanes;
              for (int64_t lane = 0; lane < 32; ++lane) {
                int64_t g = laneGroup(lane), q = laneInGroup(lane);
                int64_t rowBase = warpRowBase(warp) + i * kMmaM;
                int64_t colBase = warpColBase(warp) + j * kMmaN;
                LaneRegs &l = lanes[lane];
                for (int r = 0; r < kMmaARegs; ++r)
                  l.a[r] = smemA[rowBase + aFragRow(g, r)][aFragWord(q, r)];
                for (int r = 0; r < kMmaBRegs; ++r)
                  l.b[r] = smemB[colBase + bFragCol(g, r)][bFragWord(q, r)];
                l.scaleA = smemS[rowBase + scaleARow(g, q)];
                l.scaleB = smemS[kTileM + colBase + scaleBCol(g, q)];
                for (int r = 0; r < kMmaCRegs; ++r)
                  l.c[r] = accAt(warp * kWarpSize + lane, i, j, r);
              }
              emulateMma(lanes);
              for (int64_t lane = 0; lane < 32; ++lane)
                for (int r = 0; r < kMmaCRegs; ++r)
                  accAt(warp * kWarpSize + lane, i, j, r) = lanes[lane].c[r];
            }
      }
      const float alpha = a.globalDecodeScale * b.globalDecodeScale;
      for (int64_t tid = 0; tid < kThreads; ++tid) {
        int64_t warp = tid / kWarpSize, lane = tid % kWarpSize;
        int64_t g = laneGroup(lane), q = laneInGroup(lane);
        for (int64_t i = 0; i < kMmasM; ++i)
          for (int64_t j = 0; j < kMmasN; ++j)
            for (int r = 0; r < kMmaCRegs; ++r) {
              int64_t row =
                  tileM * kTileM + warpRowBase(warp) + i * kMmaM + cFragRow(g, r);
              int64_t col =
                  tileN * kTileN + warpColBase(warp) + j * kMmaN + cFragCol(q, r);
              out[row * n + col] = accAt(tid, i, j, r) * alpha;
            }
      }
    }
  return out;
}

/// The compact scales of a tensor: QuantizedTensor replicates a 16x16 tile's
/// scale to its 16 rows; the dialect stores one row per tile.
std::vector<uint8_t> compactScales(const QuantizedTensor &t) {
  if (t.block.rows == 1)
    return t.scales;
  const int64_t cols = t.cols / 16;
  std::vector<uint8_t> out;
  for (int64_t r = 0; r < t.rows; r += 16)
    out.insert(out.end(), t.scales.begin() + r * cols,
               t.scales.begin() + (r + 1) * cols);
  return out;
}

QuantizedTensor randomTensor(int64_t rows, int64_t cols, BlockShape block,
                             std::mt19937 &rng) {
  // Heavy-tailed values so that block scales differ widely.
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(rows * cols);
  for (float &v : x)
    v = normal(rng) * std::exp(normal(rng));
  QuantizeOptions opts;
  opts.block = block;
  QuantizedTensor t;
  EXPECT_FALSE(quantize(x.data(), rows, cols, opts, t).has_value());
  return t;
}

TEST(MmaLayoutTest, EmulatedKernelMatchesReferenceMatmul) {
  std::mt19937 rng(20240601);
  struct Case {
    int64_t m, n, k;
    BlockShape aBlock, bBlock;
  };
  for (Case c : {Case{64, 64, 64, {1, 16}, {1, 16}},
                 Case{128, 192, 256, {1, 16}, {16, 16}},
                 Case{192, 64, 512, {16, 16}, {1, 16}}}) {
    QuantizedTensor a = randomTensor(c.m, c.k, c.aBlock, rng);
    QuantizedTensor b = randomTensor(c.n, c.k, c.bBlock, rng);
    std::vector<float> expected(c.m * c.n);
    matmul(a, b, expected.data());
    std::vector<float> got =
        emulateKernel(a, compactScales(a), c.aBlock.rows, b, compactScales(b),
                      c.bBlock.rows);
    int mismatches = 0;
    for (int64_t i = 0; i < c.m * c.n; ++i)
      if (std::memcmp(&got[i], &expected[i], 4) != 0 && mismatches++ < 5)
        ADD_FAILURE() << "C[" << i / c.n << "][" << i % c.n << "] = " << got[i]
                      << ", reference " << expected[i] << " (M=" << c.m
                      << " N=" << c.n << " K=" << c.k << ")";
    EXPECT_EQ(mismatches, 0);
  }
}

/// A layout mistake must be caught: swapping a1 and a2 (rows vs. K halves)
/// changes the result.
TEST(MmaLayoutTest, EmulationDetectsSwappedFragments) {
  std::mt19937 rng(7);
  QuantizedTensor a = randomTensor(64, 64, {1, 16}, rng);
  QuantizedTensor b = randomTensor(64, 64, {1, 16}, rng);
  std::vector<float> expected(64 * 64);
  matmul(a, b, expected.data());
  // Swap rows 0..7 and 8..15 of A's data: the reference sees another matrix.
  QuantizedTensor swapped = a;
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t byte = 0; byte < 32; ++byte)
      std::swap(swapped.data[r * 32 + byte], swapped.data[(r + 8) * 32 + byte]);
  std::vector<float> got =
      emulateKernel(swapped, a.scales, 1, b, b.scales, 1);
  EXPECT_NE(0, std::memcmp(got.data(), expected.data(), 64 * 4));
}

} // namespace
