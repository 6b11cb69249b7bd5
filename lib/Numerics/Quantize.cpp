//===- Quantize.cpp - NVFP4 quantization, GEMM and scale swizzle ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Transformer-Engine-compatible NVFP4 quantization. The float operation order
// below is part of the contract (docs/numerics.md): every lowering must
// evaluate the same f32 operations in the same order to match bit for bit.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/Numerics.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <thread>

namespace nvfp4 {
namespace {

constexpr float kFltMax = FLT_MAX;

/// max(a, |x|) ignoring NaN x (the C `fmaxf` rule). Order-independent.
inline float absMaxAccumulate(float acc, float x) {
  const float a = std::fabs(x);
  return a > acc ? a : acc;
}

/// Everything the per-row work needs, computed once per tensor.
struct Prepared {
  const float *x = nullptr; // input, transformed when opts.hadamard
  float sEnc = 1.0f;
  float sDec = 1.0f;
};

/// Quantizes rows [r0, r1) of `p.x` into `out` (already sized). For 16x16
/// blocks r0 and r1 must be multiples of 16.
void quantizeRows(const Prepared &p, int64_t cols, const QuantizeOptions &opts,
                  int64_t r0, int64_t r1, QuantizedTensor &out) {
  const int64_t blocksPerRow = cols / kBlockSize;
  const int tileRows = opts.block.rows; // 1 or 16
  for (int64_t rb = r0; rb < r1; rb += tileRows) {
    for (int64_t cb = 0; cb < blocksPerRow; ++cb) {
      // Block (tile) amax over tileRows x 16 elements.
      float blockAmax = 0.0f;
      for (int64_t r = rb; r < rb + tileRows; ++r) {
        const float *row = p.x + r * cols + cb * kBlockSize;
        for (int j = 0; j < kBlockSize; ++j)
          blockAmax = absMaxAccumulate(blockAmax, row[j]);
      }
      const uint8_t sb = blockScale(blockAmax, p.sEnc);
      // m = min(1 / (float(s_b) * S_dec), FLT_MAX); a zero scale gives
      // 1/0 = Inf, clamped to FLT_MAX.
      const float denom = decodeE4M3(sb) * p.sDec;
      float m = 1.0f / denom;
      if (m > kFltMax)
        m = kFltMax;
      for (int64_t r = rb; r < rb + tileRows; ++r) {
        out.scales[r * blocksPerRow + cb] = sb;
        const float *row = p.x + r * cols + cb * kBlockSize;
        const int64_t linearBase = r * cols + cb * kBlockSize;
        for (int j = 0; j < kBlockSize; ++j) {
          const float scaled = row[j] * m;
          const int64_t idx = linearBase + j;
          uint8_t code;
          if (opts.rounding == Rounding::Stochastic)
            code = encodeE2M1Stochastic(
                scaled, stochasticRoundingBits(opts.seed, opts.offset,
                                               static_cast<uint64_t>(idx)));
          else
            code = encodeE2M1(scaled);
          uint8_t &byte = out.data[idx / 2];
          if (idx % 2 == 0)
            byte = static_cast<uint8_t>((byte & 0xF0) | code);
          else
            byte = static_cast<uint8_t>((byte & 0x0F) | (code << 4));
        }
      }
    }
  }
}

std::optional<std::string> checkAmax(const QuantizeOptions &opts) {
  if (opts.amax && !(*opts.amax >= 0.0f))
    return "explicit amax must be a non-negative number or +Inf (got " +
           std::to_string(*opts.amax) + ")";
  return std::nullopt;
}

void initOutput(int64_t rows, int64_t cols, const QuantizeOptions &opts,
                QuantizedTensor &out) {
  out.rows = rows;
  out.cols = cols;
  out.block = opts.block;
  out.data.assign(static_cast<size_t>(rows * cols / 2), 0);
  out.scales.assign(static_cast<size_t>(rows * cols / kBlockSize), 0);
}

/// Splits [0, rows) into at most `numThreads` contiguous ranges whose
/// boundaries are multiples of `granule`.
std::vector<std::pair<int64_t, int64_t>> splitRows(int64_t rows,
                                                   int64_t granule,
                                                   int numThreads) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  const int64_t groups = rows / granule;
  if (groups == 0)
    return ranges;
  const int64_t parts = std::min<int64_t>(std::max(numThreads, 1), groups);
  for (int64_t i = 0; i < parts; ++i) {
    const int64_t g0 = groups * i / parts, g1 = groups * (i + 1) / parts;
    ranges.emplace_back(g0 * granule, g1 * granule);
  }
  return ranges;
}

template <typename Fn>
void runParallel(const std::vector<std::pair<int64_t, int64_t>> &ranges,
                 Fn fn) {
  if (ranges.size() <= 1) {
    for (auto &r : ranges)
      fn(r.first, r.second, size_t(0));
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i)
    threads.emplace_back(
        [&, i] { fn(ranges[i].first, ranges[i].second, i); });
  for (auto &t : threads)
    t.join();
}

std::optional<std::string> quantizeImpl(const float *x, int64_t rows,
                                        int64_t cols,
                                        const QuantizeOptions &opts,
                                        QuantizedTensor &out, int numThreads) {
  if (auto err = checkQuantizable(rows, cols, opts.block))
    return err;
  if (auto err = checkAmax(opts))
    return err;
  initOutput(rows, cols, opts, out);

  const int64_t granule = opts.block.rows;
  const auto ranges = splitRows(rows, granule, numThreads);

  // 1. Optional RHT on a copy of the input (row-local, so split by rows).
  std::vector<float> transformed;
  Prepared p;
  p.x = x;
  if (opts.hadamard) {
    transformed.assign(x, x + rows * cols);
    runParallel(ranges, [&](int64_t r0, int64_t r1, size_t) {
      applyHadamard(transformed.data() + r0 * cols, r1 - r0, cols, opts.signs);
    });
    p.x = transformed.data();
  }

  // 2. Tensor amax (of the transformed input), unless given.
  float amax;
  if (opts.amax) {
    amax = *opts.amax;
  } else {
    std::vector<float> partial(std::max<size_t>(ranges.size(), 1), 0.0f);
    runParallel(ranges, [&](int64_t r0, int64_t r1, size_t i) {
      float acc = 0.0f;
      for (int64_t k = r0 * cols; k < r1 * cols; ++k)
        acc = absMaxAccumulate(acc, p.x[k]);
      partial[i] = acc;
    });
    amax = 0.0f;
    for (float v : partial)
      amax = absMaxAccumulate(amax, v);
  }

  // 3. Global scales: S_enc, and S_dec = 1 / S_enc computed once.
  p.sEnc = globalEncodeScale(amax);
  p.sDec = 1.0f / p.sEnc;
  out.globalDecodeScale = p.sDec;

  // 4. Block scales and element codes.
  runParallel(ranges, [&](int64_t r0, int64_t r1, size_t) {
    quantizeRows(p, cols, opts, r0, r1, out);
  });
  return std::nullopt;
}

int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

int64_t swizzledIndex(int64_t r, int64_t c, int64_t paddedCols) {
  return ((r / 128) * (paddedCols / 4) + c / 4) * 512 + (r % 32) * 16 +
         ((r / 32) % 4) * 4 + c % 4;
}

} // namespace

//===----------------------------------------------------------------------===//
// Scales
//===----------------------------------------------------------------------===//

float globalEncodeScale(float amax) {
  if (std::isnan(amax))
    return amax;
  float s = (kE2M1Max * kE4M3Max) / amax; // 2688.0f / amax, one f32 division
  if (s > kFltMax)
    s = kFltMax;
  if (amax == 0.0f || s == 0.0f)
    return 1.0f;
  return s;
}

uint8_t blockScale(float blockAmax, float sEnc) {
  const float sEncOver6 = sEnc * (1.0f / 6.0f); // f32 product with fl(1/6)
  float v = blockAmax * sEncOver6;
  if (v > kFltMax)
    v = kFltMax;
  return encodeE4M3(v);
}

std::optional<std::string> checkQuantizable(int64_t rows, int64_t cols,
                                            BlockShape block) {
  if (!(block == BlockShape{1, 16}) && !(block == BlockShape{16, 16}))
    return "unsupported block shape " + std::to_string(block.rows) + "x" +
           std::to_string(block.cols) + ": expected 1x16 or 16x16";
  if (rows < 0 || cols < 0)
    return "shape must be non-negative (got rows=" + std::to_string(rows) +
           ", cols=" + std::to_string(cols) + ")";
  if (cols % kBlockSize != 0)
    return "cols (" + std::to_string(cols) + ") must be a multiple of 16";
  if (block.rows == 16 && rows % 16 != 0)
    return "rows (" + std::to_string(rows) +
           ") must be a multiple of 16 for 16x16 blocks";
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Quantize / dequantize / transpose
//===----------------------------------------------------------------------===//

std::optional<std::string> quantize(const float *x, int64_t rows,
                                    int64_t cols, const QuantizeOptions &opts,
                                    QuantizedTensor &out) {
  return quantizeImpl(x, rows, cols, opts, out, 1);
}

std::optional<std::string> quantizeParallel(const float *x, int64_t rows,
                                            int64_t cols,
                                            const QuantizeOptions &opts,
                                            QuantizedTensor &out,
                                            int numThreads) {
  if (numThreads <= 0)
    numThreads = static_cast<int>(
        std::max(1u, std::thread::hardware_concurrency()));
  return quantizeImpl(x, rows, cols, opts, out, numThreads);
}

void dequantize(const QuantizedTensor &t, float *out) {
  const int64_t n = t.rows * t.cols;
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t byte = t.data[i / 2];
    const uint8_t code = (i % 2 == 0) ? (byte & 0xF) : (byte >> 4);
    const float s = decodeE4M3(t.scales[i / kBlockSize]);
    out[i] = (decodeE2M1(code) * s) * t.globalDecodeScale;
  }
}

QuantizedTensor transpose2D(const QuantizedTensor &t) {
  QuantizedTensor r;
  r.rows = t.cols;
  r.cols = t.rows;
  r.block = t.block;
  r.globalDecodeScale = t.globalDecodeScale;
  r.data.assign(t.data.size(), 0);
  r.scales.assign(t.scales.size(), 0);
  const int64_t inBlocksPerRow = t.cols / kBlockSize;
  const int64_t outBlocksPerRow = r.cols / kBlockSize;
  for (int64_t i = 0; i < t.rows; ++i) {
    for (int64_t j = 0; j < t.cols; ++j) {
      const int64_t src = i * t.cols + j;
      const uint8_t code =
          (src % 2 == 0) ? (t.data[src / 2] & 0xF) : (t.data[src / 2] >> 4);
      const int64_t dst = j * r.cols + i;
      uint8_t &byte = r.data[dst / 2];
      byte = (dst % 2 == 0) ? static_cast<uint8_t>((byte & 0xF0) | code)
                            : static_cast<uint8_t>((byte & 0x0F) | (code << 4));
    }
  }
  // Output row j (input column j), block i/16 holds the scale of input tile
  // (i/16, j/16), which input row (i/16)*16 stores at column block j/16.
  for (int64_t j = 0; j < r.rows; ++j)
    for (int64_t ib = 0; ib < outBlocksPerRow; ++ib)
      r.scales[j * outBlocksPerRow + ib] =
          t.scales[(ib * 16) * inBlocksPerRow + j / kBlockSize];
  return r;
}

//===----------------------------------------------------------------------===//
// GEMM
//===----------------------------------------------------------------------===//

std::optional<std::string> checkMatmulOperands(const QuantizedTensor &a,
                                               const QuantizedTensor &b) {
  for (const QuantizedTensor *t : {&a, &b}) {
    const char *name = t == &a ? "A" : "B";
    if (t->rows < 0 || t->cols < 0 || t->cols % kBlockSize != 0)
      return std::string("operand ") + name +
             ": cols must be a non-negative multiple of 16";
    if (static_cast<int64_t>(t->data.size()) != t->rows * t->cols / 2 ||
        static_cast<int64_t>(t->scales.size()) !=
            t->rows * t->cols / kBlockSize)
      return std::string("operand ") + name +
             ": data/scales sizes do not match its shape";
  }
  if (a.cols != b.cols)
    return "contraction sizes differ: A has K=" + std::to_string(a.cols) +
           ", B has K=" + std::to_string(b.cols);
  return std::nullopt;
}

void matmul(const QuantizedTensor &a, const QuantizedTensor &b, float *c) {
  if (checkMatmulOperands(a, b))
    return;
  const int64_t m = a.rows, n = b.rows, k = a.cols, kb = k / kBlockSize;
  const float globalScale = a.globalDecodeScale * b.globalDecodeScale;
  auto code = [](const QuantizedTensor &t, int64_t idx) -> uint8_t {
    const uint8_t byte = t.data[idx / 2];
    return (idx % 2 == 0) ? (byte & 0xF) : (byte >> 4);
  };
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t blk = 0; blk < kb; ++blk) {
        float partial = 0.0f; // exact: multiples of 1/4, |partial| <= 576
        for (int e = 0; e < kBlockSize; ++e) {
          const int64_t kk = blk * kBlockSize + e;
          partial += decodeE2M1(code(a, i * k + kk)) *
                     decodeE2M1(code(b, j * k + kk));
        }
        const float sab = decodeE4M3(a.scales[i * kb + blk]) *
                          decodeE4M3(b.scales[j * kb + blk]); // exact
        acc += partial * sab; // the product is exact; only the sum rounds
      }
      c[i * n + j] = acc * globalScale;
    }
  }
}

void matmulF32(const float *a, const float *b, float *c, int64_t m, int64_t n,
               int64_t k) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0.0;
      for (int64_t kk = 0; kk < k; ++kk)
        acc += static_cast<double>(a[i * k + kk]) *
               static_cast<double>(b[j * k + kk]);
      c[i * n + j] = static_cast<float>(acc);
    }
}

//===----------------------------------------------------------------------===//
// Scale-factor swizzle
//===----------------------------------------------------------------------===//

int64_t swizzledScalesSize(int64_t rows, int64_t cols) {
  if (rows <= 0 || cols <= 0)
    return 0;
  return roundUp(rows, 128) * roundUp(cols, 4);
}

std::vector<uint8_t> swizzleScales(const uint8_t *scales, int64_t rows,
                                   int64_t cols) {
  std::vector<uint8_t> out(static_cast<size_t>(swizzledScalesSize(rows, cols)),
                           0);
  const int64_t paddedCols = roundUp(cols, 4);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      out[swizzledIndex(r, c, paddedCols)] = scales[r * cols + c];
  return out;
}

std::vector<uint8_t> unswizzleScales(const uint8_t *swizzled, int64_t rows,
                                     int64_t cols) {
  if (rows <= 0 || cols <= 0)
    return {};
  std::vector<uint8_t> out(static_cast<size_t>(rows * cols), 0);
  const int64_t paddedCols = roundUp(cols, 4);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      out[r * cols + c] = swizzled[swizzledIndex(r, c, paddedCols)];
  return out;
}

} // namespace nvfp4
