//===- GPUEmulatorMma.cpp - cp.async and warp MMAs of the GPU emulator ----===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The emulator's asynchronous copies (cp.async groups), warp-wide matrix
// loads (ldmatrix) and matrix multiply-accumulates (mma.sync bf16,
// block-scaled mxf4nvf4, mxf4 and mxf8f6f4), modelled on the PTX ISA's
// fragment layouts (docs/emulator.md).
//
//===----------------------------------------------------------------------===//

#include "GPUEmulatorState.h"

#include "nvfp4/Numerics/MX.h"
#include "nvfp4/Numerics/Numerics.h"

#include <cinttypes>
#include <cmath>
#include <limits>
#include <vector>

using namespace nvfp4::emulator;
using namespace nvfp4::emulator::detail;

extern "C" void nvfp4EmuCpAsync(void *thread, void *dst, const void *src,
                                int32_t size, int32_t srcSize) {
  Thread *t = asThread(thread);
  if (size != 4 && size != 8 && size != 16)
    fail("kernel %s: thread %" PRId64 ": cp.async of %d bytes (4, 8 or 16)",
         t->cta->name, t->linear, size);
  if (reinterpret_cast<uintptr_t>(dst) % size != 0 ||
      reinterpret_cast<uintptr_t>(src) % size != 0)
    fail("kernel %s: thread %" PRId64 ": cp.async of %d bytes with a "
         "misaligned address (PTX ISA: both aligned to the size)",
         t->cta->name, t->linear, size);
  t->openGroup.push_back({dst, src, size, srcSize});
}

extern "C" void nvfp4EmuCpAsyncCommitGroup(void *thread) {
  Thread *t = asThread(thread);
  t->committedGroups.push_back(std::move(t->openGroup));
  t->openGroup.clear();
}

extern "C" void nvfp4EmuCpAsyncWaitGroup(void *thread, int32_t n) {
  Thread *t = asThread(thread);
  const size_t keep = n < 0 ? 0 : static_cast<size_t>(n);
  while (t->committedGroups.size() > keep) {
    for (const AsyncCopy &copy : t->committedGroups.front())
      completeCopy(*t, copy);
    t->committedGroups.erase(t->committedGroups.begin());
  }
}

extern "C" void nvfp4EmuLdMatrix(void *thread, const void *rowAddress,
                                 int32_t num, int32_t site,
                                 const char *location, int32_t *d) {
  Thread *t = asThread(thread);
  Cta &cta = *t->cta;
  if (num != 1 && num != 2 && num != 4)
    fail("kernel %s: thread %" PRId64 ": ldmatrix of %d matrices (1, 2 or 4)",
         cta.name, t->linear, num);
  const int lane = static_cast<int>(t->linear % kWarpSize);
  // The lane's row: 16 bytes read now (the warp's reads happen together in
  // the instruction; a row another lane of the warp writes meanwhile would
  // be a race in the kernel anyway).
  int32_t row[4] = {};
  if (lane < 8 * num) {
    if (reinterpret_cast<uintptr_t>(rowAddress) % 16 != 0)
      fail("kernel %s: thread %" PRId64 ": ldmatrix row address %p is not "
           "16-byte aligned (PTX ISA)",
           cta.name, t->linear, rowAddress);
    nvfp4EmuCheckAccess(thread, rowAddress, 16, /*isStore=*/0, /*space=*/3,
                        site, location);
    std::memcpy(row, rowAddress, sizeof(row));
  }
  // Rendezvous of the 32 lanes (the slots of the warp's MMAs: a warp runs
  // one warp-wide operation at a time); the rows wait in `a`.
  WarpMma &warp = cta.mmas[t->linear / kWarpSize];
  const uint64_t g = warp.generation;
  const int slot = static_cast<int>(g % 2);
  std::memcpy(warp.a[slot][lane], row, sizeof(row));
  warp.arrived[slot] |= 1u << lane;
  t->waitGeneration = g;
  if (warp.arrived[slot] == 0xFFFFFFFFu) {
    warp.arrived[1 - slot] = 0;
    ++warp.generation;
  } else {
    t->wait = Wait::LdMatrix;
    yield(t);
  }
  // The slot's rows stay until every lane has arrived at the warp's next
  // warp-wide operation, so they are still there.
  for (int m = 0; m < num; ++m)
    d[m] = warp.a[slot][8 * m + lane / 4][lane % 4];
}

/// The bf16 in bits [16 h, 16 h + 16) of `packed`, as an f32 (exact).
static float bf16At(int32_t packed, int h) {
  const uint32_t bits = (static_cast<uint32_t>(packed) >> (16 * h)) & 0xFFFFu;
  float value;
  const uint32_t wide = bits << 16;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

/// Deposits the lane's fragments of a warp-wide `mma.sync` (and, for a
/// block-scaled one, its scale registers and selectors); the last lane to
/// arrive runs `compute(warp, slot)`, which fills every lane's D; then
/// copies the lane's D to `d`.
template <typename Compute>
static void warpMma(Thread *t, const int32_t *a, int aRegs, const int32_t *b,
                    int bRegs, const float *c, int32_t scaleA, int32_t scaleB,
                    const int32_t *selectors, float *d, Compute compute) {
  Cta &cta = *t->cta;
  const int lane = static_cast<int>(t->linear % kWarpSize);
  WarpMma &warp = cta.mmas[t->linear / kWarpSize];
  const uint64_t g = warp.generation;
  const int slot = static_cast<int>(g % 2);
  std::memcpy(warp.a[slot][lane], a, sizeof(int32_t) * aRegs);
  std::memcpy(warp.b[slot][lane], b, sizeof(int32_t) * bRegs);
  std::memcpy(warp.c[slot][lane], c, sizeof(warp.c[slot][lane]));
  warp.scaleA[slot][lane] = scaleA;
  warp.scaleB[slot][lane] = scaleB;
  if (selectors)
    std::memcpy(warp.selectors[slot][lane], selectors,
                sizeof(warp.selectors[slot][lane]));
  warp.arrived[slot] |= 1u << lane;
  t->waitGeneration = g;
  if (warp.arrived[slot] == 0xFFFFFFFFu) {
    compute(warp, slot);
    warp.arrived[1 - slot] = 0;
    ++warp.generation;
  } else {
    t->wait = Wait::Mma;
    yield(t);
  }
  std::memcpy(d, warp.d[slot][lane], sizeof(warp.d[slot][lane]));
}

extern "C" void nvfp4EmuMmaM16N8K16Bf16(void *thread, const int32_t *a,
                                        const int32_t *b, const float *c,
                                        float *d) {
  warpMma(asThread(thread), a, 4, b, 2, c, 0, 0, /*selectors=*/nullptr, d,
          [](WarpMma &warp, int slot) {
            // The matrices from the fragments (PTX ISA, mma.m16n8k16 .bf16):
            // group = lane / 4, t4 = lane % 4.
            float am[16][16], bm[16][8], cm[16][8];
            for (int l = 0; l < kWarpSize; ++l) {
              const int group = l / 4, t4 = l % 4;
              for (int r = 0; r < 4; ++r)
                for (int h = 0; h < 2; ++h) {
                  const int row = group + 8 * (r % 2);
                  const int col = 2 * t4 + h + 8 * (r / 2);
                  am[row][col] = bf16At(warp.a[slot][l][r], h);
                }
              for (int r = 0; r < 2; ++r)
                for (int h = 0; h < 2; ++h)
                  bm[2 * t4 + h + 8 * r][group] = bf16At(warp.b[slot][l][r], h);
              for (int r = 0; r < 4; ++r)
                cm[group + 8 * (r / 2)][2 * t4 + r % 2] = warp.c[slot][l][r];
            }
            for (int l = 0; l < kWarpSize; ++l) {
              const int group = l / 4, t4 = l % 4;
              for (int r = 0; r < 4; ++r) {
                const int row = group + 8 * (r / 2), col = 2 * t4 + r % 2;
                // bf16 products are exact in double, and so is their sum for
                // the exponent spreads of the kernels' operands; one rounding
                // to f32.
                double sum = cm[row][col];
                for (int k = 0; k < 16; ++k)
                  sum += double(am[row][k]) * double(bm[k][col]);
                warp.d[slot][l][r] = static_cast<float>(sum);
              }
            }
          });
}

namespace {
/// The scale selectors {byte-id-a, thread-id-a, byte-id-b, thread-id-b} of
/// a block-scaled `mma.sync` (PTX ISA, "Block Scaling for mma.sync").
enum Selector { ByteIdA, ThreadIdA, ByteIdB, ThreadIdB };

/// Refuses selectors the ISA leaves undefined (its table of valid values):
/// byte-id 0 with `scaleBytes` = 4 (scale_vec::4X), 0 or 2 with 2 (2X), 0
/// to 3 with 1 (1X); thread-id-a 0 or 1; thread-id-b 0 to 3.
void checkScaleSelectors(Thread *t, const char *kind, int scaleBytes,
                         const int32_t sel[4]) {
  auto validByte = [scaleBytes](int32_t id) {
    return id >= 0 && id < 4 && id % scaleBytes == 0;
  };
  if (validByte(sel[ByteIdA]) && validByte(sel[ByteIdB]) &&
      (sel[ThreadIdA] == 0 || sel[ThreadIdA] == 1) && sel[ThreadIdB] >= 0 &&
      sel[ThreadIdB] < 4)
    return;
  fail("kernel %s: thread %" PRId64 ": block-scaled mma.sync (%s) with "
       "scale selectors {%d, %d} / {%d, %d}: the PTX ISA defines byte-id %s, "
       "thread-id-a 0 or 1 and thread-id-b 0 to 3",
       t->cta->name, t->linear, kind, sel[ByteIdA], sel[ThreadIdA],
       sel[ByteIdB], sel[ThreadIdB],
       scaleBytes == 4   ? "0"
       : scaleBytes == 2 ? "0 or 2"
                         : "0 to 3");
}

/// The scale bytes a block-scaled MMA reads (PTX ISA, "Block Scaling for
/// mma.sync"; the lanes of CUTLASS's SM120 SFA / SFB layouts): row r of A
/// from lane 4 (r % 8) + 2 thread-id-a + r / 8, column n of B from lane
/// 4 n + thread-id-b; bytes [byte-id, byte-id + scaleBytes) of the lane's
/// scale register, the i-th of them the scale of K block i. The selectors
/// are warp-uniform (as the ISA's single instruction has them; lanes that
/// disagree are refused).
void selectScales(Thread *t, const WarpMma &warp, int slot, int scaleBytes,
                  uint8_t scaleA[16][4], uint8_t scaleB[8][4]) {
  const int32_t *sel = warp.selectors[slot][0];
  for (int l = 1; l < kWarpSize; ++l)
    if (std::memcmp(warp.selectors[slot][l], sel, sizeof(int32_t) * 4) != 0)
      fail("kernel %s: warp %" PRId64 ": block-scaled mma.sync with scale "
           "selectors that differ across lanes (lane 0 {%d, %d} / {%d, %d}, "
           "lane %d {%d, %d} / {%d, %d})",
           t->cta->name, t->linear / kWarpSize, sel[ByteIdA], sel[ThreadIdA],
           sel[ByteIdB], sel[ThreadIdB], l, warp.selectors[slot][l][ByteIdA],
           warp.selectors[slot][l][ThreadIdA], warp.selectors[slot][l][ByteIdB],
           warp.selectors[slot][l][ThreadIdB]);
  auto byteOf = [](int32_t reg, int byte) {
    return static_cast<uint8_t>(static_cast<uint32_t>(reg) >> (8 * byte));
  };
  for (int r = 0; r < 16; ++r) {
    const int lane = 4 * (r % 8) + 2 * sel[ThreadIdA] + r / 8;
    for (int i = 0; i < scaleBytes; ++i)
      scaleA[r][i] = byteOf(warp.scaleA[slot][lane], sel[ByteIdA] + i);
  }
  for (int n = 0; n < 8; ++n) {
    const int lane = 4 * n + sel[ThreadIdB];
    for (int i = 0; i < scaleBytes; ++i)
      scaleB[n][i] = byteOf(warp.scaleB[slot][lane], sel[ByteIdB] + i);
  }
}

/// The operands of one block-scaled m16n8k64 MMA gathered from the warp's
/// lanes (PTX ISA fragment layouts, E2M1 codes decoded): A [16][64], B
/// [64][8], C [16][8], and each A row's and B column's scale bytes
/// (selectScales).
struct BlockScaledOperands {
  float a[16][64], b[64][8], c[16][8];
  uint8_t scaleA[16][4], scaleB[8][4];
};

BlockScaledOperands gatherBlockScaled(Thread *t, const WarpMma &warp,
                                      int slot) {
  auto nibble = [](int32_t reg, int j) {
    return static_cast<uint8_t>((static_cast<uint32_t>(reg) >> (4 * j)) & 0xFu);
  };
  BlockScaledOperands op;
  for (int l = 0; l < kWarpSize; ++l) {
    const int group = l / 4, t4 = l % 4;
    for (int r = 0; r < 4; ++r)
      for (int j = 0; j < 8; ++j)
        op.a[group + 8 * (r % 2)][8 * t4 + j + 32 * (r / 2)] =
            ::nvfp4::decodeE2M1(nibble(warp.a[slot][l][r], j));
    for (int r = 0; r < 2; ++r)
      for (int j = 0; j < 8; ++j)
        op.b[8 * t4 + j + 32 * r][group] =
            ::nvfp4::decodeE2M1(nibble(warp.b[slot][l][r], j));
    for (int r = 0; r < 4; ++r)
      op.c[group + 8 * (r / 2)][2 * t4 + r % 2] = warp.c[slot][l][r];
  }
  selectScales(t, warp, slot, /*scaleBytes=*/4, op.scaleA, op.scaleB);
  return op;
}

/// Writes each lane's D registers: element (row, col) of `value`.
template <typename ValueFn>
void scatterResult(WarpMma &warp, int slot, ValueFn value) {
  for (int l = 0; l < kWarpSize; ++l) {
    const int group = l / 4, t4 = l % 4;
    for (int r = 0; r < 4; ++r)
      warp.d[slot][l][r] = value(group + 8 * (r / 2), 2 * t4 + r % 2);
  }
}
} // namespace

extern "C" void nvfp4EmuMmaM16N8K64Nvf4(void *thread, const int32_t *a,
                                        const int32_t *b, const float *c,
                                        int32_t scaleA, int32_t byteIdA,
                                        int32_t threadIdA, int32_t scaleB,
                                        int32_t byteIdB, int32_t threadIdB,
                                        float *d) {
  Thread *t = asThread(thread);
  const int32_t selectors[4] = {byteIdA, threadIdA, byteIdB, threadIdB};
  checkScaleSelectors(t, "kind::mxf4nvf4", /*scaleBytes=*/4, selectors);
  warpMma(t, a, 4, b, 2, c, scaleA, scaleB, selectors, d,
          [t](WarpMma &warp, int slot) {
            BlockScaledOperands op = gatherBlockScaled(t, warp, slot);
            // ue4m3: the E4M3 magnitude bits; the sign bit is not part of it.
            auto scale = [](uint8_t byte) {
              return ::nvfp4::decodeE4M3(static_cast<uint8_t>(byte & 0x7Fu));
            };
            scatterResult(warp, slot, [&](int row, int col) {
              float acc = op.c[row][col];
              for (int kb = 0; kb < 4; ++kb) {
                float partial = 0.0f; // exact: multiples of 1/4 below 576
                for (int e = 0; e < 16; ++e)
                  partial += op.a[row][16 * kb + e] * op.b[16 * kb + e][col];
                acc += partial *
                       (scale(op.scaleA[row][kb]) * scale(op.scaleB[col][kb]));
              }
              return acc;
            });
          });
}

void nvfp4::emulator::detail::mxBlockProducts(
    const char *what, const uint8_t *aCodes, int64_t aStride,
    const uint8_t *aScales, int64_t aRows, int aType, const uint8_t *bCodes,
    int64_t bStride, const uint8_t *bScales, int64_t bRows, int bType,
    float *out) {
  // One block as one-block MX tensors, so that the library sums it
  // exactly (8-bit products span more bits than an f32 holds).
  auto blockTensor = [](const uint8_t *codes, int64_t stride,
                        const uint8_t *scales, int64_t rows, int type) {
    ::nvfp4::mx::Tensor t;
    t.rows = rows;
    t.cols = 32;
    t.elementType = static_cast<::nvfp4::mx::ElementType>(type);
    const int bits = ::nvfp4::mx::elementBits(t.elementType);
    t.data.assign(static_cast<size_t>(rows * 32 * bits / 8), 0);
    t.scales.assign(scales, scales + rows);
    for (int64_t row = 0; row < rows; ++row)
      for (int e = 0; e < 32; ++e) {
        const uint8_t code = codes[row * stride + e];
        const int64_t index = row * 32 + e;
        if (bits == 4)
          t.data[index / 2] |=
              static_cast<uint8_t>(index % 2 ? code << 4 : code);
        else
          t.data[index] = code;
      }
    return t;
  };
  if (auto err = ::nvfp4::mx::matmul(
          blockTensor(aCodes, aStride, aScales, aRows, aType),
          blockTensor(bCodes, bStride, bScales, bRows, bType), out))
    fail("%s: %s", what, err->c_str());
}

namespace {
/// The MX product of one warp's `mma.sync` with element types `ta` / `tb`
/// of `bits` bits (4: m16n8k64 kind::mxf4; 8: m16n8k32 kind::mxf8f6f4):
/// gathers A [16, K] and B [8, K] codes from the fragments (register r of
/// lane l, group g = l / 4, t = l % 4, holding 32 / bits elements j: A row
/// g + 8 (r % 2), k e t + j + 4 e (r / 2); B column g, k e t + j + 4 e r;
/// with e = 32 / bits), the E8M0 scales of its K blocks of 32 (the
/// selected bytes, selectScales), and writes D = C plus, per 32-wide block in
/// increasing k, the block's contribution as nvfp4::mx::matmul computes a block
/// (the exact sum rounded to f32, scaled by 2^(eA + eB)).
void mxWarpMma(Thread *t, WarpMma &warp, int slot, ::nvfp4::mx::ElementType ta,
               ::nvfp4::mx::ElementType tb, int bits) {
  const int perReg = 32 / bits, k = 4 * perReg * 2, blocks = k / 32;
  auto field = [bits](int32_t reg, int j) {
    return static_cast<uint8_t>((static_cast<uint32_t>(reg) >> (bits * j)) &
                                ((1u << bits) - 1));
  };
  std::vector<uint8_t> a(16 * k), b(8 * k);
  float acc[16][8];
  for (int l = 0; l < kWarpSize; ++l) {
    const int group = l / 4, t4 = l % 4;
    for (int r = 0; r < 4; ++r)
      for (int j = 0; j < perReg; ++j)
        a[(group + 8 * (r % 2)) * k + perReg * t4 + j + 4 * perReg * (r / 2)] =
            field(warp.a[slot][l][r], j);
    for (int r = 0; r < 2; ++r)
      for (int j = 0; j < perReg; ++j)
        b[group * k + perReg * t4 + j + 4 * perReg * r] =
            field(warp.b[slot][l][r], j);
    for (int r = 0; r < 4; ++r)
      acc[group + 8 * (r / 2)][2 * t4 + r % 2] = warp.c[slot][l][r];
  }
  uint8_t rowScales[16][4] = {}, colScales[8][4] = {};
  selectScales(t, warp, slot, /*scaleBytes=*/blocks, rowScales, colScales);
  for (int blk = 0; blk < blocks; ++blk) {
    // The block's scale of each row of A and column of B.
    uint8_t scaleA[16], scaleB[8];
    for (int row = 0; row < 16; ++row)
      scaleA[row] = rowScales[row][blk];
    for (int col = 0; col < 8; ++col)
      scaleB[col] = colScales[col][blk];
    float block[16 * 8];
    mxBlockProducts("block-scaled mma.sync (MX)", a.data() + 32 * blk, k,
                    scaleA, 16, static_cast<int>(ta), b.data() + 32 * blk, k,
                    scaleB, 8, static_cast<int>(tb), block);
    for (int row = 0; row < 16; ++row)
      for (int col = 0; col < 8; ++col)
        acc[row][col] = acc[row][col] + block[row * 8 + col];
  }
  scatterResult(warp, slot, [&](int row, int col) { return acc[row][col]; });
}
} // namespace

extern "C" void nvfp4EmuMmaM16N8K64Mxf4(void *thread, const int32_t *a,
                                        const int32_t *b, const float *c,
                                        int32_t scaleA, int32_t byteIdA,
                                        int32_t threadIdA, int32_t scaleB,
                                        int32_t byteIdB, int32_t threadIdB,
                                        float *d) {
  Thread *t = asThread(thread);
  const int32_t selectors[4] = {byteIdA, threadIdA, byteIdB, threadIdB};
  checkScaleSelectors(t, "kind::mxf4", /*scaleBytes=*/2, selectors);
  warpMma(t, a, 4, b, 2, c, scaleA, scaleB, selectors, d,
          [t](WarpMma &warp, int slot) {
            mxWarpMma(t, warp, slot, ::nvfp4::mx::ElementType::E2M1,
                      ::nvfp4::mx::ElementType::E2M1, /*bits=*/4);
          });
}

extern "C" void nvfp4EmuMmaM16N8K32Mxf8f6f4(void *thread, const int32_t *a,
                                            const int32_t *b, const float *c,
                                            int32_t scaleA, int32_t byteIdA,
                                            int32_t threadIdA, int32_t scaleB,
                                            int32_t byteIdB, int32_t threadIdB,
                                            int32_t typeA, int32_t typeB,
                                            float *d) {
  Thread *t = asThread(thread);
  const int32_t selectors[4] = {byteIdA, threadIdA, byteIdB, threadIdB};
  checkScaleSelectors(t, "kind::mxf8f6f4", /*scaleBytes=*/1, selectors);
  auto elementType = [](int32_t code) {
    return code ? ::nvfp4::mx::ElementType::E5M2
                : ::nvfp4::mx::ElementType::E4M3;
  };
  const ::nvfp4::mx::ElementType ta = elementType(typeA);
  const ::nvfp4::mx::ElementType tb = elementType(typeB);
  warpMma(t, a, 4, b, 2, c, scaleA, scaleB, selectors, d,
          [=](WarpMma &warp, int slot) {
            mxWarpMma(t, warp, slot, ta, tb, /*bits=*/8);
          });
}
