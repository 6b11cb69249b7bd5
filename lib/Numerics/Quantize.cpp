//===- Quantize.cpp - NVFP4 quantization, GEMM and scale swizzle ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Transformer-Engine-compatible NVFP4 quantization. The float operation order
// is part of the contract (docs/numerics.md): every lowering must evaluate the
// same f32 operations in the same order to match bit for bit. The quantize
// and dequantize loops themselves live in QuantizeKernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/Numerics.h"

#include "QuantizeKernels.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <thread>

namespace nvfp4 {
namespace {

constexpr float kFltMax = FLT_MAX;

/// `v` rounded up to a multiple of `m`, or std::nullopt on overflow.
std::optional<int64_t> roundUp(int64_t v, int64_t m) {
  if (v > INT64_MAX - (m - 1))
    return std::nullopt;
  return (v + m - 1) / m * m;
}

int64_t swizzledIndex(int64_t r, int64_t c, int64_t paddedCols) {
  return ((r / 128) * (paddedCols / 4) + c / 4) * 512 + (r % 32) * 16 +
         ((r / 32) % 4) * 4 + c % 4;
}

} // namespace

//===----------------------------------------------------------------------===//
// Scales
//===----------------------------------------------------------------------===//

float globalEncodeScale(float amax) {
  float s = (kE2M1Max * kE4M3Max) / amax; // 2688.0f / amax, one f32 division
  s = std::fmin(s, kFltMax);              // fminf: NaN -> FLT_MAX, as TE
  if (amax == 0.0f || s == 0.0f)
    return 1.0f;
  return s;
}

float globalDecodeScale(float amax) { return 1.0f / globalEncodeScale(amax); }

float dequantizeScale(uint8_t scaleCode, float amax) {
  return (decodeE4M3(scaleCode) * amax) * kInvE2M1TimesE4M3Max;
}

float dequantizeScale(uint8_t scaleCode, float tensorScale, TensorScale kind) {
  if (kind == TensorScale::Decode)
    return decodeE4M3(scaleCode) * tensorScale;
  return dequantizeScale(scaleCode, tensorScale);
}

float matmulAlpha(float amaxA, float amaxB) {
  return (amaxA * amaxB) * kInvE2M1TimesE4M3MaxSquared;
}

float tensorDecodeScale(float tensorScale, TensorScale kind) {
  if (kind == TensorScale::Decode)
    return tensorScale;
  return tensorScale * kInvE2M1TimesE4M3Max;
}

float matmulAlpha(float scaleA, TensorScale kindA, float scaleB,
                  TensorScale kindB) {
  if (kindA == TensorScale::Amax && kindB == TensorScale::Amax)
    return matmulAlpha(scaleA, scaleB);
  return tensorDecodeScale(scaleA, kindA) * tensorDecodeScale(scaleB, kindB);
}

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
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
  if (!checkedMul(rows, cols))
    return "shape " + std::to_string(rows) + "x" + std::to_string(cols) +
           " has more elements than int64_t can count";
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
  return detail::quantizeWithKernels(x, rows, cols, opts, out, 1,
                                     detail::defaultKernelPath());
}

std::optional<std::string> quantizeParallel(const float *x, int64_t rows,
                                            int64_t cols,
                                            const QuantizeOptions &opts,
                                            QuantizedTensor &out,
                                            int numThreads) {
  if (numThreads <= 0)
    numThreads = static_cast<int>(
        std::max(1u, std::thread::hardware_concurrency()));
  return detail::quantizeWithKernels(x, rows, cols, opts, out, numThreads,
                                     detail::defaultKernelPath());
}

void dequantize(const QuantizedTensor &t, float *out) {
  detail::dequantizeWithKernels(t, out);
}

QuantizedTensor transpose2D(const QuantizedTensor &t) {
  QuantizedTensor r;
  r.rows = t.cols;
  r.cols = t.rows;
  r.block = t.block;
  r.amax = t.amax;
  r.tensorScale = t.tensorScale;
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

std::optional<std::string> checkTensor(const QuantizedTensor &t) {
  if (auto err = checkQuantizable(t.rows, t.cols, t.block))
    return err;
  const int64_t n = t.rows * t.cols; // checked by checkQuantizable
  if (static_cast<uint64_t>(t.data.size()) != static_cast<uint64_t>(n / 2) ||
      static_cast<uint64_t>(t.scales.size()) !=
          static_cast<uint64_t>(n / kBlockSize))
    return "data/scales sizes (" + std::to_string(t.data.size()) + ", " +
           std::to_string(t.scales.size()) + ") do not match the shape " +
           std::to_string(t.rows) + "x" + std::to_string(t.cols) +
           " (expected " + std::to_string(n / 2) + ", " +
           std::to_string(n / kBlockSize) + ")";
  return std::nullopt;
}

std::optional<std::string> checkMatmulOperands(const QuantizedTensor &a,
                                               const QuantizedTensor &b) {
  for (const QuantizedTensor *t : {&a, &b}) {
    const char *name = t == &a ? "A" : "B";
    if (auto err = checkTensor(*t))
      return std::string("operand ") + name + ": " + *err;
  }
  if (a.cols != b.cols)
    return "contraction sizes differ: A has K=" + std::to_string(a.cols) +
           ", B has K=" + std::to_string(b.cols);
  return std::nullopt;
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

std::optional<int64_t> swizzledScalesSize(int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0)
    return std::nullopt;
  if (rows == 0 || cols == 0)
    return 0;
  std::optional<int64_t> paddedRows = roundUp(rows, 128);
  std::optional<int64_t> paddedCols = roundUp(cols, 4);
  if (!paddedRows || !paddedCols)
    return std::nullopt;
  return checkedMul(*paddedRows, *paddedCols);
}

std::vector<uint8_t> swizzleScales(const uint8_t *scales, int64_t rows,
                                   int64_t cols) {
  std::optional<int64_t> size = swizzledScalesSize(rows, cols);
  if (!size || *size == 0)
    return {};
  std::vector<uint8_t> out(static_cast<size_t>(*size), 0);
  const int64_t paddedCols = *roundUp(cols, 4);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      out[swizzledIndex(r, c, paddedCols)] = scales[r * cols + c];
  return out;
}

std::vector<uint8_t> unswizzleScales(const uint8_t *swizzled, int64_t rows,
                                     int64_t cols) {
  std::optional<int64_t> size = swizzledScalesSize(rows, cols);
  if (!size || *size == 0)
    return {};
  std::vector<uint8_t> out(static_cast<size_t>(rows * cols), 0);
  const int64_t paddedCols = *roundUp(cols, 4);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      out[r * cols + c] = swizzled[swizzledIndex(r, c, paddedCols)];
  return out;
}

} // namespace nvfp4
