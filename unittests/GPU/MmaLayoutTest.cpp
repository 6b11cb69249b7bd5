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

#include "nvfp4/Conversion/NVFP4ToGPU/MmaSync/MmaLayout.h"
#include "nvfp4/Numerics/Numerics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
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
          int64_t k =
              bf16AFragWord(s, reg) * kCodesPerWord + bf16FragByte(q) * 2 + e;
          EXPECT_EQ(bf16AFragRow(g, reg), c.row) << lane << " a" << reg;
          EXPECT_EQ(k, kBf16MmaK * s + c.col) << lane << " a" << reg;
          EXPECT_EQ(k / 16, s) << "one scale block per sub-step";
        }
      for (int reg = 0; reg < kBf16MmaBRegs; ++reg)
        for (int e = 0; e < 2; ++e) {
          Coord c = isaBf16B(lane, reg, e);
          int64_t k =
              bf16BFragWord(s, reg) * kCodesPerWord + bf16FragByte(q) * 2 + e;
          EXPECT_EQ(bFragCol(g, reg), c.col) << lane << " b" << reg;
          EXPECT_EQ(k, kBf16MmaK * s + c.row) << lane << " b" << reg;
        }
    }
  }
}

// A packed scale register serves `count` blocks; the MMA of each block
// passes its thread-id, and the lanes that selects (the ISA's lanes) hold
// that block's rows.
TEST(MmaLayoutTest, ScaleLanesHoldTheRowsTheInstructionReads) {
  // One operand: registers of up to `perRegister` blocks of `blockSize`
  // rows (A) or columns (B); the ISA's lane of a row for a thread-id, and
  // the layout's thread-id of a block and block and row of a lane.
  auto check = [](int64_t perRegister, int64_t blockSize, auto isaLane,
                  auto threadId, auto laneBlock, auto laneRow) {
    for (int64_t count = 1; count <= perRegister; ++count)
      for (int64_t block = 0; block < count; ++block)
        for (int64_t row = 0; row < blockSize; ++row) {
          int lane = isaLane(row, threadId(block));
          EXPECT_EQ(laneBlock(lane % 4, count), block) << row;
          EXPECT_EQ(laneRow(lane / 4, lane % 4), row);
        }
  };
  check(kScaleBlocksPerRegA, kMmaM, isaScaleALane, scaleThreadIdA,
        scaleABlock<int64_t>, scaleARow<int64_t>);
  check(kScaleBlocksPerRegB, kMmaN, isaScaleBLane, scaleThreadIdB,
        scaleBBlock<int64_t>, scaleBCol<int64_t>);
  // Register and thread-id of a warp's block: blocks in order, packed.
  for (int64_t block = 0; block < 8; ++block) {
    EXPECT_EQ(scaleRegisterA(block) * kScaleBlocksPerRegA +
                  scaleThreadIdA(block),
              block);
    EXPECT_EQ(scaleRegisterB(block) * kScaleBlocksPerRegB +
                  scaleThreadIdB(block),
              block);
  }
}

// A K slice's scales: the word and byte-id of its first scale byte, for
// the step's scales at any byte of a held group (4X: byte-id 0; 2X: 0 or 2).
TEST(MmaLayoutTest, SliceScaleWordAndByteId) {
  for (int64_t sliceBytes : {4, 2, 1})
    for (int64_t stepByte = 0; stepByte < 16; stepByte += 2 * sliceBytes)
      for (int64_t slice = 0; slice < kMmaKSlices; ++slice) {
        const int64_t byte = stepByte + slice * sliceBytes;
        EXPECT_EQ(sliceScaleWord(stepByte, slice, sliceBytes) * 4 +
                      sliceScaleByteId(stepByte, slice, sliceBytes),
                  byte);
        EXPECT_EQ(sliceScaleByteId(stepByte, slice, sliceBytes) % sliceBytes,
                  0);
        EXPECT_LE(sliceScaleByteId(stepByte, slice, sliceBytes) + sliceBytes,
                  4);
      }
}

TEST(MmaLayoutTest, StagingCoversTheTileOnce) {
  for (const TileShape &t : kTileShapes) {
    // 16-byte vectors (K % 32 == 0) and 8-byte halves (K = 48).
    for (int64_t k : {int64_t(128), int64_t(48)})
      for (int64_t rows : {t.m, t.n}) {
        const int64_t copiesPerRow = kTileRowBytes / stageCopyBytes(k / 2);
        EXPECT_EQ(copiesPerRow, k % 32 == 0 ? 4 : 8);
        const int64_t wordsPerCopy = kWordsPerTileRow / copiesPerRow;
        std::vector<int> words(rows * kWordsPerTileRow, 0);
        const int64_t count = rows * copiesPerRow;
        for (int64_t tid = 0; tid < t.threads(); ++tid)
          for (int64_t i = 0; i < stageCopiesPerThread(count, t); ++i) {
            int64_t v = stageJob(tid, i, t);
            if (v >= count)
              continue;
            for (int64_t w = 0; w < wordsPerCopy; ++w)
              ++words[stageRow(v, copiesPerRow) * kWordsPerTileRow +
                      stageWord(v, copiesPerRow) + w];
          }
        for (int v : words)
          EXPECT_EQ(v, 1) << t.m << "x" << t.n << " K " << k;
      }
    // Scale slot rows (tile rows, or compact rows of 16x16 blocks): A's by
    // thread index, B's by the rotated one; with no more rows than
    // threads, no thread copies a row of both. (Shared slots take one job
    // list by thread index: StagingCoversSharedScaleSlotsOnce.)
    for (int64_t aBlockRows : {1, 16})
      for (int64_t bBlockRows : {1, 16}) {
        const int64_t aRows = t.m / aBlockRows, bRows = t.n / bBlockRows;
        std::vector<int> aScales(aRows, 0), bScales(bRows, 0),
            perThread(t.threads());
        for (int64_t tid = 0; tid < t.threads(); ++tid)
          for (int64_t i = 0; i < stageCopiesPerThread(aRows, t); ++i)
            if (int64_t sj = stageJob(tid, i, t); sj < aRows) {
              ++aScales[sj];
              ++perThread[tid];
            }
        for (int64_t tid = 0; tid < t.threads(); ++tid)
          for (int64_t i = 0; i < stageCopiesPerThread(bRows, t); ++i)
            if (int64_t sj = stageJob(rotatedThread(tid, aRows, t), i, t);
                sj < bRows) {
              ++bScales[sj];
              ++perThread[tid];
            }
        for (int v : aScales)
          EXPECT_EQ(v, 1) << t.m << "x" << t.n;
        for (int v : bScales)
          EXPECT_EQ(v, 1) << t.m << "x" << t.n;
        const int64_t most = (aRows + bRows + t.threads() - 1) / t.threads();
        for (int v : perThread)
          EXPECT_LE(v, most) << t.m << "x" << t.n;
      }
  }
}

TEST(MmaLayoutTest, TileShapes) {
  for (const TileShape &t : kTileShapes) {
    EXPECT_EQ(t.warpTileM() * t.warpsM, t.m);
    EXPECT_EQ(t.warpTileN() * t.warpsN, t.n);
    EXPECT_EQ(t.mmasM() * kMmaM, t.warpTileM());
    EXPECT_EQ(t.mmasN() * kMmaN, t.warpTileN());
    // t.stages slots (at least 3) within sm_120a's dynamic shared memory,
    // every slot
    // 16-byte aligned; B fragments load two MMA columns at once.
    EXPECT_GE(t.stages, 3);
    EXPECT_LE(pipelineSharedBytes(t), kMaxSharedBytes);
    EXPECT_EQ(t.aStageBytes() % 16, 0);
    EXPECT_EQ(t.bStageBytes() % 16, 0);
    EXPECT_EQ(t.mmasN() % 2, 0);
    EXPECT_EQ(findTileShape(t.m, t.n), &t);
  }
  EXPECT_EQ(kTile128x128.threads(), 256);
  EXPECT_EQ(kTile64x64.threads(), 128);
  EXPECT_EQ(kTile16x128.threads(), 128);
  EXPECT_EQ(kTile16x128.mmasM(), 1);
  EXPECT_EQ(findTileShape(32, 64), nullptr);
  EXPECT_EQ(findTileShape(256, 128), nullptr);
  // Selection: a few rows (decode) get the 16- or 32-row tile.
  EXPECT_EQ(selectTileShape(1, 4096), kTile16x128);
  EXPECT_EQ(selectTileShape(16, 64), kTile16x128);
  EXPECT_EQ(selectTileShape(17, 4096), kTile32x128);
  EXPECT_EQ(selectTileShape(32, 1000), kTile32x128);
  EXPECT_EQ(selectTileShape(33, 64), kTile64x64);
  // Otherwise 128 along a dimension that is a multiple of 128 and >= 256.
  EXPECT_EQ(selectTileShape(64, 64), kTile64x64);
  EXPECT_EQ(selectTileShape(128, 128), kTile64x64);
  EXPECT_EQ(selectTileShape(192, 512), kTile64x128);
  EXPECT_EQ(selectTileShape(1024, 64), kTile128x64);
  EXPECT_EQ(selectTileShape(384, 320), kTile128x64);
  EXPECT_EQ(selectTileShape(256, 256), kTile128x128);
  EXPECT_EQ(selectTileShape(4096, 384), kTile128x128);
  // A 128-row tile takes 256 columns when N is a multiple of 256 and >= 512.
  EXPECT_EQ(selectTileShape(4096, 8192), kTile128x256);
  EXPECT_EQ(selectTileShape(256, 512), kTile128x256);
  EXPECT_EQ(selectTileShape(256, 768), kTile128x256);
  EXPECT_EQ(selectTileShape(256, 640), kTile128x128);
  EXPECT_EQ(selectTileShape(192, 1024), kTile64x128);
  EXPECT_EQ(kTile128x256.threads(), 256);
  EXPECT_EQ(kTile128x256.stages, 3);
  EXPECT_EQ(pipelineSharedBytes(kTile128x256), 3 * (128 + 256) * 72);
}

/// Shared-memory bank conflicts of one warp-wide 32-bit load: the largest
/// number of distinct words any of the 32 banks is asked for.
int bankWays(const std::array<int64_t, 32> &words) {
  std::array<std::vector<int64_t>, 32> perBank;
  for (int64_t w : words) {
    auto &bank = perBank[w % 32];
    if (std::find(bank.begin(), bank.end(), w) == bank.end())
      bank.push_back(w);
  }
  int ways = 0;
  for (const auto &bank : perBank)
    ways = std::max(ways, static_cast<int>(bank.size()));
  return ways;
}

/// The largest bank conflict of the fragment loads of every tile: each
/// 8-row phase of the m16n8k64 A and B ldmatrix.x4 loads (8 rows of one
/// 16-byte chunk) and the sm_90a bf16 A and B words, in every pipeline slot
/// and K slice, with the swizzled layout or (for comparison) without it.
int maxFragmentBankWays(bool swizzled) {
  int ways = 0;
  auto wordOf = [&](int64_t slot, int64_t rows, int64_t row, int64_t word) {
    return (slot * rows + row) * kWordsPerTileRow +
           (swizzled ? swizzleWord(row, word) : word);
  };
  for (const TileShape &t : kTileShapes)
    for (int64_t slot = 0; slot < t.stages; ++slot)
      for (int64_t warp = 0; warp < t.warps(); ++warp) {
        // ldmatrix: matrix m is read by the lanes 8 m .. 8 m + 7 addresses.
        auto ldmatrix = [&](int64_t rows, auto rowOf, auto chunkOf) {
          for (int64_t m = 0; m < 4; ++m) {
            std::array<int64_t, 32> words;
            for (int64_t r = 0; r < 8; ++r)
              for (int64_t w = 0; w < 4; ++w)
                words[4 * r + w] = wordOf(slot, rows, rowOf(8 * m + r),
                                          4 * chunkOf(8 * m + r) + w);
            ways = std::max(ways, bankWays(words));
          }
        };
        auto load = [&](int64_t rows, auto rowOf, int64_t word) {
          std::array<int64_t, 32> words;
          for (int64_t lane = 0; lane < 32; ++lane)
            words[lane] = wordOf(slot, rows, rowOf(laneGroup(lane)), word);
          ways = std::max(ways, bankWays(words));
        };
        for (int64_t slice = 0; slice < kMmaKSlices; ++slice) {
          const int64_t chunk0 = slice * kMmaRowBytes / kVectorBytes;
          for (int64_t i = 0; i < t.mmasM(); ++i) {
            int64_t base = warpRowBase(warp, t) + i * kMmaM;
            ldmatrix(
                t.m, [&](int64_t l) { return base + ldmatrixARow(l); },
                [&](int64_t l) { return chunk0 + ldmatrixAChunk(l); });
          }
          for (int64_t j = 0; j < t.mmasN(); j += 2) {
            int64_t base = warpColBase(warp, t) + j * kMmaN;
            ldmatrix(
                t.n, [&](int64_t l) { return base + ldmatrixBCol(l); },
                [&](int64_t l) { return chunk0 + ldmatrixBChunk(l); });
          }
        }
        for (int64_t s = 0; s < kBf16KSteps; ++s) {
          for (int64_t i = 0; i < t.mmasM(); ++i)
            for (int r = 0; r < kBf16MmaARegs; ++r) {
              int64_t base = warpRowBase(warp, t) + i * kMmaM;
              load(
                  t.m, [&](int64_t g) { return base + bf16AFragRow(g, r); },
                  bf16AFragWord(s, r));
            }
          for (int64_t j = 0; j < t.mmasN(); ++j)
            for (int r = 0; r < kBf16MmaBRegs; ++r) {
              int64_t base = warpColBase(warp, t) + j * kMmaN;
              load(
                  t.n, [&](int64_t g) { return base + bFragCol(g, r); },
                  bf16BFragWord(s, r));
            }
        }
      }
  return ways;
}

TEST(MmaLayoutTest, SwizzledFragmentLoadsAreBankConflictFree) {
  EXPECT_EQ(maxFragmentBankWays(/*swizzled=*/true), 1);
  EXPECT_EQ(maxFragmentBankWays(/*swizzled=*/false), 4);
}

/// ldmatrix.x4 on the addresses of ldmatrix{A,B}{Row,Col,Chunk} delivers
/// exactly the m16n8k64 fragments of the ISA tables (registers a0..a3; b0,
/// b1 of two column blocks), for either K slice of a step.
TEST(MmaLayoutTest, LdmatrixLoadsTheFragments) {
  for (int64_t lane = 0; lane < 32; ++lane) {
    const int64_t g = laneGroup(lane), q = laneInGroup(lane);
    for (int64_t m = 0; m < 4; ++m) {
      // The ISA: register m of `lane` is word lane % 4 of row lane / 4 of
      // matrix m, whose rows lanes 8 m .. 8 m + 7 address.
      const int64_t source = 8 * m + lane / 4, word = lane % 4;
      // A: the register is a_m.
      EXPECT_EQ(ldmatrixARow(source), aFragRow(g, m)) << lane << " a" << m;
      EXPECT_EQ(4 * ldmatrixAChunk(source) + word, aFragWord(q, m))
          << lane << " a" << m;
      // B: the register is b_{m % 2} of column block m / 2.
      EXPECT_EQ(ldmatrixBCol(source), 8 * (m / 2) + bFragCol(g, m % 2))
          << lane << " b" << m;
      EXPECT_EQ(4 * ldmatrixBChunk(source) + word, bFragWord(q, m % 2))
          << lane << " b" << m;
    }
  }
}

TEST(MmaLayoutTest, SwizzleKeepsVectorsWhole) {
  for (int64_t row = 0; row < 16; ++row) {
    std::vector<int> seen(kWordsPerTileRow, 0);
    for (int64_t v = 0; v < kVectorsPerRow; ++v) {
      int64_t first = swizzleWord(row, v * kWordsPerVector);
      EXPECT_EQ(first % kWordsPerVector, 0); // 16-byte aligned
      for (int64_t e = 0; e < kWordsPerVector; ++e) {
        int64_t w = v * kWordsPerVector + e;
        EXPECT_EQ(swizzleWord(row, w), first + e); // contiguous
        ++seen[swizzleWord(row, w)];
      }
    }
    for (int n : seen)
      EXPECT_EQ(n, 1); // a permutation of the row
  }
}

/// The schedule of the cp.async pipeline: at the wait of iteration kt, the
/// group of step kt is complete and no later step's group is required; the
/// prefetch of iteration kt overwrites only the slot of step kt - 1, which
/// every warp has finished reading before the barrier.
TEST(MmaLayoutTest, PipelineSchedule) {
  for (const TileShape &t : kTileShapes)
    for (int64_t numSteps = 1; numSteps < 9; ++numSteps) {
      int64_t committed = t.stages - 1; // prologue groups
      for (int64_t kt = 0; kt < numSteps; ++kt) {
        // Groups complete after the wait: all but waitPendingGroups(t).
        int64_t complete = committed - waitPendingGroups(t);
        EXPECT_GE(complete, kt + 1); // group kt is the (kt + 1)-th
        int64_t next = prefetchStep(kt, t);
        if (next < numSteps) {
          EXPECT_NE(stageSlot(next, t), stageSlot(kt, t));
          if (kt > 0) {
            EXPECT_EQ(stageSlot(next, t), stageSlot(kt - 1, t));
          }
        }
        ++committed;
      }
    }
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
/// (scaleA * scaleB) * (A_block . B_block), blocks in increasing k, with the
/// scales of the lanes the thread-ids `tidA`, `tidB` select.
void emulateMma(std::array<LaneRegs, 32> &lanes, int tidA, int tidB) {
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
      uint32_t sa = lanes[isaScaleALane(m, tidA)].scaleA;
      uint32_t sb = lanes[isaScaleBLane(n, tidB)].scaleB;
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

/// Runs the kernel the lowering generates on the CPU, with CTA tile `t`:
/// packed data and compact scales in, C = A * B^T * (decodeA * decodeB) out.
/// The cp.async pipeline is modelled: a copy writes shared memory only when
/// a `cp.async.wait_group` retires its group, so a wrong wait count or slot
/// makes the MMAs read stale data.
std::vector<float> emulateKernel(
    const QuantizedTensor &a, const std::vector<uint8_t> &aScales,
    const QuantizedTensor &b, const std::vector<uint8_t> &bScales,
    const TileShape &t = kTile64x64, std::optional<int64_t> waitPending = {},
    const ScaleStaging &lhsStaging = {}, const ScaleStaging &rhsStaging = {}) {
  const int64_t m = a.rows, n = b.rows, k = a.cols;
  const int64_t rowBytes = k / 2, scaleRowBytes = k / 16;
  const int64_t numSteps = k / kTileK, threads = t.threads();
  const int64_t mmasM = t.mmasM(), mmasN = t.mmasN();
  std::vector<float> out(m * n, 0.0f);
  // Shared memory: [slot][row][word] for A and B, then the scale region
  // (ScaleSlotLayout: A's and B's scale slots, shared or one after the
  // other; slot rows are the tile's, or its compact rows of 16x16 blocks).
  std::vector<uint32_t> smemA(t.stages * t.m * kWordsPerTileRow, 0xDEADBEEF);
  std::vector<uint32_t> smemB(t.stages * t.n * kWordsPerTileRow, 0xDEADBEEF);
  std::vector<uint32_t> smemS(
      (lhsStaging.sharedBytes(t, t.m) + rhsStaging.sharedBytes(t, t.n)) / 4,
      0xDEADBEEF);
  const ScaleSlotLayout scaleSlots =
      ScaleSlotLayout::of(t, lhsStaging, rhsStaging);
  const int64_t aSlotRows = scaleSlots.lhsRows;
  const int64_t bSlotRows = scaleSlots.rhsRows;
  struct Copy {
    uint32_t *dst;
    uint32_t value;
  };
  for (int64_t tileM = 0; tileM < m / t.m; ++tileM)
    for (int64_t tileN = 0; tileN < n / t.n; ++tileN) {
      std::vector<std::vector<Copy>> groups; // committed, not yet retired
      std::vector<Copy> open;
      auto issueStep = [&](int64_t kt, int64_t slot) {
        const int64_t kByte = kt * kTileRowBytes;
        auto copyVectors = [&](int64_t rows, const std::vector<uint8_t> &src,
                               int64_t srcRow0, std::vector<uint32_t> &dst) {
          const int64_t count = rows * kVectorsPerRow;
          for (int64_t tid = 0; tid < threads; ++tid)
            for (int64_t i = 0; i < stageCopiesPerThread(count, t); ++i) {
              int64_t v = stageJob(tid, i, t);
              if (v >= count)
                continue;
              int64_t row = stageRow(v);
              for (int64_t e = 0; e < kWordsPerVector; ++e)
                open.push_back(
                    {&dst[(slot * rows + row) * kWordsPerTileRow +
                          swizzleWord(row, stageWord(v)) + e],
                     loadWord(src, (srcRow0 + row) * rowBytes + kByte +
                                       stageVector(v) * kVectorBytes + 4 * e)});
            }
        };
        copyVectors(t.m, a.data, tileM * t.m, smemA);
        copyVectors(t.n, b.data, tileN * t.n, smemB);
        // Slot row `sj` of A (`lhs`) or B: the compact scale rows from the
        // tile's on, when step kt starts a group.
        auto copyScaleRow = [&](bool lhs, int64_t sj) {
          const ScaleStaging &staging = lhs ? lhsStaging : rhsStaging;
          const std::vector<uint8_t> &src = lhs ? aScales : bScales;
          const int64_t srcRow0 = lhs ? tileM * aSlotRows : tileN * bSlotRows;
          const int64_t dst =
              scaleSlots.rowByte(lhs, scaleSlot(kt, t, staging), sj) / 4;
          for (int64_t w = 0; w < staging.copyBytes() / 4; ++w)
            open.push_back({&smemS[dst + w],
                            loadWord(src, (srcRow0 + sj) * scaleRowBytes +
                                              kt * staging.stepBytes + 4 * w)});
        };
        if (scaleSlots.sharesSlots) {
          // One job list: A's rows, then B's, by thread index.
          if (issuesScales(kt, lhsStaging))
            for (int64_t tid = 0; tid < threads; ++tid)
              for (int64_t i = 0;
                   i < stageCopiesPerThread(aSlotRows + bSlotRows, t); ++i) {
                int64_t job = stageJob(tid, i, t);
                if (job < aSlotRows)
                  copyScaleRow(/*lhs=*/true, job);
                else if (job < aSlotRows + bSlotRows)
                  copyScaleRow(/*lhs=*/false, job - aSlotRows);
              }
        } else {
          // A's rows by thread index, B's by the rotated one.
          for (bool lhs : {true, false}) {
            const int64_t rows = lhs ? aSlotRows : bSlotRows;
            if (!issuesScales(kt, lhs ? lhsStaging : rhsStaging))
              continue;
            for (int64_t tid = 0; tid < threads; ++tid)
              for (int64_t i = 0; i < stageCopiesPerThread(rows, t); ++i)
                if (int64_t sj = stageJob(
                        lhs ? tid : rotatedThread(tid, aSlotRows, t), i, t);
                    sj < rows)
                  copyScaleRow(lhs, sj);
          }
        }
      };
      auto commit = [&]() {
        groups.push_back(std::move(open));
        open.clear();
      };
      auto waitGroup = [&](int64_t pending) {
        while (static_cast<int64_t>(groups.size()) > pending) {
          for (const Copy &c : groups.front())
            *c.dst = c.value;
          groups.erase(groups.begin());
        }
      };

      // Per-thread accumulators: [warp][lane][mma i][mma j][reg].
      std::vector<float> acc(threads * mmasM * mmasN * kMmaCRegs, 0.0f);
      auto accAt = [&](int64_t tid, int64_t i, int64_t j, int r) -> float & {
        return acc[((tid * mmasM + i) * mmasN + j) * kMmaCRegs + r];
      };
      for (int64_t s = 0; s < t.stages - 1; ++s) {
        if (s < numSteps)
          issueStep(s, stageSlot(s, t));
        commit();
      }
      for (int64_t kt = 0; kt < numSteps; ++kt) {
        waitGroup(waitPending.value_or(waitPendingGroups(t)));
        if (int64_t next = prefetchStep(kt, t); next < numSteps)
          issueStep(next, stageSlot(next, t));
        commit();
        const int64_t slot = stageSlot(kt, t);
        // ldmatrix.x4 per the ISA: lane l addresses row `rowOf(l)`, chunk
        // `chunkOf(l)` (of a tile of `rows` rows in `smem`); register m of
        // lane l is word l % 4 of the row lane 8 m + l / 4 addressed.
        auto ldmatrix = [&](const std::vector<uint32_t> &smem, int64_t rows,
                            auto rowOf, auto chunkOf) {
          std::array<std::array<uint32_t, 4>, 32> regs;
          for (int64_t lane = 0; lane < 32; ++lane)
            for (int64_t m = 0; m < 4; ++m) {
              int64_t source = 8 * m + lane / 4, row = rowOf(source);
              regs[lane][m] =
                  smem[(slot * rows + row) * kWordsPerTileRow +
                       swizzleChunk(row, chunkOf(source)) * kWordsPerVector +
                       lane % 4];
            }
          return regs;
        };
        // Word `word` of step kt's scales of tile row `row` of A (`lhs`)
        // or B.
        auto S = [&](bool lhs, int64_t row, int64_t word) {
          const ScaleStaging &staging = lhs ? lhsStaging : rhsStaging;
          return smemS[(scaleSlots.rowByte(lhs, scaleSlot(kt, t, staging),
                                           stagedRow(row, staging)) +
                        scaleByteInRow(kt, staging)) /
                           4 +
                       word];
        };
        for (int64_t slice = 0; slice < kMmaKSlices; ++slice) {
          const int64_t chunk0 = slice * kMmaRowBytes / kVectorBytes;
          const int64_t scaleWord = sliceScaleWord(0, slice, 4);
          for (int64_t warp = 0; warp < t.warps(); ++warp)
            for (int64_t i = 0; i < mmasM; ++i)
              for (int64_t j = 0; j < mmasN; ++j) {
                int64_t rowBase = warpRowBase(warp, t) + i * kMmaM;
                int64_t colBase = warpColBase(warp, t) + (j & ~1) * kMmaN;
                auto aRegs = ldmatrix(
                    smemA, t.m,
                    [&](int64_t l) { return rowBase + ldmatrixARow(l); },
                    [&](int64_t l) { return chunk0 + ldmatrixAChunk(l); });
                auto bRegs = ldmatrix(
                    smemB, t.n,
                    [&](int64_t l) { return colBase + ldmatrixBCol(l); },
                    [&](int64_t l) { return chunk0 + ldmatrixBChunk(l); });
                std::array<LaneRegs, 32> lanes;
                for (int64_t lane = 0; lane < 32; ++lane) {
                  int64_t g = laneGroup(lane), q = laneInGroup(lane);
                  LaneRegs &l = lanes[lane];
                  for (int r = 0; r < kMmaARegs; ++r)
                    l.a[r] = aRegs[lane][r];
                  for (int r = 0; r < kMmaBRegs; ++r)
                    l.b[r] = bRegs[lane][2 * (j % 2) + r];
                  // The lane's packed scale registers of blocks i and j:
                  // the rows of the block among the register's that the
                  // lane holds.
                  const int64_t firstA =
                      scaleRegisterA(i) * kScaleBlocksPerRegA;
                  const int64_t firstB =
                      scaleRegisterB(j) * kScaleBlocksPerRegB;
                  const int64_t blockA =
                      firstA + scaleABlock(q, std::min(kScaleBlocksPerRegA,
                                                       mmasM - firstA));
                  const int64_t blockB =
                      firstB + scaleBBlock(q, std::min(kScaleBlocksPerRegB,
                                                       mmasN - firstB));
                  l.scaleA =
                      S(/*lhs=*/true,
                        warpRowBase(warp, t) + blockA * kMmaM + scaleARow(g, q),
                        scaleWord);
                  l.scaleB =
                      S(/*lhs=*/false,
                        warpColBase(warp, t) + blockB * kMmaN + scaleBCol(g, q),
                        scaleWord);
                  for (int r = 0; r < kMmaCRegs; ++r)
                    l.c[r] = accAt(warp * kWarpSize + lane, i, j, r);
                }
                emulateMma(lanes, static_cast<int>(scaleThreadIdA(i)),
                           static_cast<int>(scaleThreadIdB(j)));
                for (int64_t lane = 0; lane < 32; ++lane)
                  for (int r = 0; r < kMmaCRegs; ++r)
                    accAt(warp * kWarpSize + lane, i, j, r) = lanes[lane].c[r];
              }
        }
      }
      waitGroup(0);
      // Transformer Engine's alpha, written out (not matmulAlpha).
      const float alpha =
          (a.amax * b.amax) * float(1.0 / (6.0 * 6.0 * 448.0 * 448.0));
      for (int64_t tid = 0; tid < threads; ++tid) {
        int64_t warp = tid / kWarpSize, lane = tid % kWarpSize;
        int64_t g = laneGroup(lane), q = laneInGroup(lane);
        for (int64_t i = 0; i < mmasM; ++i)
          for (int64_t j = 0; j < mmasN; ++j)
            for (int r = 0; r < kMmaCRegs; ++r) {
              int64_t row = tileM * t.m + warpRowBase(warp, t) + i * kMmaM +
                            cFragRow(g, r);
              int64_t col = tileN * t.n + warpColBase(warp, t) + j * kMmaN +
                            cFragCol(q, r);
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
  for (Case c : {Case{64, 64, 128, {1, 16}, {1, 16}},
                 Case{128, 192, 256, {1, 16}, {16, 16}},
                 Case{192, 64, 640, {16, 16}, {1, 16}},
                 Case{128, 128, 128, {16, 16}, {1, 16}},
                 Case{256, 128, 384, {1, 16}, {16, 16}},
                 // 128 x 256 (3 stages) over 5 K steps: every slot reused.
                 Case{128, 256, 640, {1, 16}, {16, 16}},
                 // 16-byte scale groups over 8 K steps.
                 Case{128, 256, 1024, {1, 16}, {1, 16}}}) {
    QuantizedTensor a = randomTensor(c.m, c.k, c.aBlock, rng);
    QuantizedTensor b = randomTensor(c.n, c.k, c.bBlock, rng);
    std::vector<float> expected(c.m * c.n);
    matmul(a, b, expected.data());
    for (const TileShape &t : kTileShapes) {
      if (c.m % t.m || c.n % t.n)
        continue;
      // Per-step scale copies, and (K a multiple of 256) groups for B, as
      // on sm_120a, or for both operands; 16x16-block operands stage their
      // compact rows.
      auto staging = [&](bool grouped, int64_t blockRows) {
        return grouped ? groupedScaleStaging(8, c.k / 16, blockRows)
                       : ScaleStaging{1, kScaleRowBytes, blockRows};
      };
      for (bool lhsGrouped : {false, true}) {
        for (bool rhsGrouped : {false, true}) {
          if ((lhsGrouped || rhsGrouped) && !staging(true, 1).grouped())
            continue;
          if (lhsGrouped && !rhsGrouped)
            continue;
          std::vector<float> got = emulateKernel(
              a, compactScales(a), b, compactScales(b), t, /*waitPending=*/{},
              staging(lhsGrouped, c.aBlock.rows),
              staging(rhsGrouped, c.bBlock.rows));
          int mismatches = 0;
          for (int64_t i = 0; i < c.m * c.n; ++i)
            if (std::memcmp(&got[i], &expected[i], 4) != 0 && mismatches++ < 5)
              ADD_FAILURE()
                  << "C[" << i / c.n << "][" << i % c.n << "] = " << got[i]
                  << ", reference " << expected[i] << " (M=" << c.m
                  << " N=" << c.n << " K=" << c.k << ", tile " << t.m << "x"
                  << t.n << ", groups " << lhsGrouped << rhsGrouped << ")";
          EXPECT_EQ(mismatches, 0);
        }
      }
    }
  }
}

/// A layout mistake must be caught: swapping a1 and a2 (rows vs. K halves)
/// changes the result.
TEST(MmaLayoutTest, EmulationDetectsSwappedFragments) {
  std::mt19937 rng(7);
  QuantizedTensor a = randomTensor(64, 128, {1, 16}, rng);
  QuantizedTensor b = randomTensor(64, 128, {1, 16}, rng);
  std::vector<float> expected(64 * 64);
  matmul(a, b, expected.data());
  // Swap rows 0..7 and 8..15 of A's data: the reference sees another matrix.
  QuantizedTensor swapped = a;
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t byte = 0; byte < 64; ++byte)
      std::swap(swapped.data[r * 64 + byte], swapped.data[(r + 8) * 64 + byte]);
  std::vector<float> got = emulateKernel(swapped, a.scales, b, b.scales);
  EXPECT_NE(0, std::memcmp(got.data(), expected.data(), 64 * 4));
}

/// A pipeline that waits for one group too few reads a slot whose copies
/// have not landed: the emulation must notice.
TEST(MmaLayoutTest, EmulationDetectsEarlyPipelineReads) {
  std::mt19937 rng(11);
  QuantizedTensor a = randomTensor(64, 512, {1, 16}, rng);
  QuantizedTensor b = randomTensor(64, 512, {1, 16}, rng);
  std::vector<float> expected(64 * 64);
  matmul(a, b, expected.data());
  std::vector<float> good = emulateKernel(a, a.scales, b, b.scales);
  EXPECT_EQ(0, std::memcmp(good.data(), expected.data(), 64 * 64 * 4));
  std::vector<float> early = emulateKernel(a, a.scales, b, b.scales, kTile64x64,
                                           waitPendingGroups(kTile64x64) + 1);
  EXPECT_NE(0, std::memcmp(early.data(), expected.data(), 64 * 64 * 4));
}

} // namespace
