//===- MX.cpp - OCP MX (MXFP4 / MXFP8) reference numerics -----------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The executable form of docs/numerics.md §13. The E2M1 and E4M3 element
// conversions are the NVFP4 ones (Conversions.cpp); E5M2 and E8M0 are here.
// The GEMM sums each block's products exactly in 128-bit integers (every
// element is an integer multiple of its type's smallest subnormal), so the
// result does not depend on the order of the products.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/MX.h"
#include "nvfp4/Numerics/Numerics.h"
#include "nvfp4/Numerics/ThreadTeam.h"

#include "QuantizeKernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

namespace nvfp4::mx {
namespace {

uint32_t floatBits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}

/// log2 of the smallest positive element of `type` (its smallest
/// subnormal): every element is an integer multiple of it.
int elementUnitExponent(ElementType type) {
  switch (type) {
  case ElementType::E2M1:
    return -1; // 0.5
  case ElementType::E4M3:
    return -9; // 2^-6 * 2^-3
  case ElementType::E5M2:
    return -16; // 2^-14 * 2^-2
  }
  return 0;
}

/// 2^e for e in [-127, 127] (2^-127 is an f32 subnormal): multiplying by it
/// is one correctly rounded operation on the exact product, as ldexp is.
float powerOfTwo(int e) {
  const uint32_t bits = e >= -126 ? static_cast<uint32_t>(e + 127) << 23
                                  : uint32_t(1) << (e + 149);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

/// The element at index `i` of row `row` of `t`.
uint8_t elementCode(const Tensor &t, int64_t row, int64_t i) {
  const int64_t index = row * t.cols + i;
  if (t.elementType != ElementType::E2M1)
    return t.data[static_cast<size_t>(index)];
  const uint8_t byte = t.data[static_cast<size_t>(index / 2)];
  return index % 2 ? byte >> 4 : byte & 0xF;
}

int64_t elementsPerByte(ElementType type) {
  return type == ElementType::E2M1 ? 2 : 1;
}
} // namespace

int elementBits(ElementType type) { return type == ElementType::E2M1 ? 4 : 8; }

int elementMaxExponent(ElementType type) {
  switch (type) {
  case ElementType::E2M1:
    return 2;
  case ElementType::E4M3:
    return 8;
  case ElementType::E5M2:
    return 15;
  }
  return 0;
}

float elementMax(ElementType type) {
  switch (type) {
  case ElementType::E2M1:
    return kE2M1Max;
  case ElementType::E4M3:
    return kE4M3Max;
  case ElementType::E5M2:
    return 57344.0f;
  }
  return 0.0f;
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

float decodeE8M0(uint8_t code) {
  if (code == kE8M0NaN)
    return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, static_cast<int>(code) - 127);
}

uint8_t encodeE8M0RoundDown(float x) {
  if (std::isnan(x))
    return kE8M0NaN;
  const uint32_t exponentField = (floatBits(x) >> 23) & 0xFF;
  // Infinity: clipped to 2^127. Zero and subnormals (< 2^-126, which
  // round toward zero to a power of two of at most 2^-127): clipped to
  // 2^-127. A normal: its exponent field (bias 127, as E8M0's) minus 0.
  if (exponentField == 0xFF)
    return 0xFE;
  if (exponentField == 0) {
    // 2^-127 <= |x| < 2^-126 rounds down to 2^-127 as well.
    return 0x00;
  }
  return static_cast<uint8_t>(exponentField);
}

// encodeE5M2 is with the other element encoders (Conversions.cpp), which
// share its rounding.

float decodeE5M2(uint8_t code) {
  const bool negative = code & 0x80;
  const int exponentField = (code >> 2) & 0x1F;
  const int mantissa = code & 0x3;
  float magnitude;
  if (exponentField == 0x1F)
    magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN()
                         : std::numeric_limits<float>::infinity();
  else if (exponentField == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -16);
  else
    magnitude =
        std::ldexp(static_cast<float>(4 + mantissa), exponentField - 17);
  return negative ? -magnitude : magnitude;
}

uint8_t encodeElement(float x, ElementType type) {
  switch (type) {
  case ElementType::E2M1:
    return encodeE2M1(x);
  case ElementType::E4M3:
    return encodeE4M3(x);
  case ElementType::E5M2:
    return encodeE5M2(x);
  }
  return 0;
}

float decodeElement(uint8_t code, ElementType type) {
  switch (type) {
  case ElementType::E2M1:
    return decodeE2M1(code);
  case ElementType::E4M3:
    return decodeE4M3(code);
  case ElementType::E5M2:
    return decodeE5M2(code);
  }
  return 0.0f;
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

uint8_t sharedScale(float blockAmax, ElementType type) {
  if (std::isnan(blockAmax) || std::isinf(blockAmax))
    return kE8M0NaN;
  // floor(log2(amax)); a zero amax counts as the smallest normal f32.
  int exponent = -126;
  if (blockAmax > 0.0f) {
    (void)std::frexp(blockAmax, &exponent); // amax = f * 2^exponent
    exponent -= 1;
  }
  const int shared = exponent - elementMaxExponent(type);
  if (shared > 127)
    return kE8M0NaN;
  return static_cast<uint8_t>(std::max(shared, -127) + 127);
}

std::optional<std::string> checkQuantizable(int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0)
    return std::string("MX shapes must be non-negative");
  if (!nvfp4::checkedMul(rows, cols))
    return std::string("MX tensor has too many elements");
  if (cols % kBlockSize != 0)
    return "the last dimension (" + std::to_string(cols) +
           ") must be a multiple of 32, the MX block size";
  return std::nullopt;
}

/// encodeElement(x, type) for the 8-bit element types through the
/// branch-free magnitude encoders of the NVFP4 kernels: NaN is 0x7F (both
/// types' canonical NaN), the sign is x's.
static uint8_t encodeFloat8(float x, ElementType type) {
  if (x != x)
    return 0x7F;
  const float magnitude = std::fabs(x);
  const uint8_t code = type == ElementType::E4M3
                           ? detail::encodeE4M3NonNegative(magnitude)
                           : detail::encodeE5M2NonNegative(magnitude);
  return static_cast<uint8_t>(((detail::bitsOf(x) >> 24) & 0x80u) | code);
}

/// Quantizes the blocks [firstBlock, lastBlock) of `x` into `out`, whose
/// data and scales are allocated. Blocks are byte-aligned in the
/// data (16 bytes of E2M1, 32 of 8-bit codes), so disjoint block ranges
/// write disjoint bytes.
static void quantizeBlocks(const float *x, int64_t firstBlock,
                           int64_t lastBlock, ElementType type, Tensor &out) {
  for (int64_t block = firstBlock; block < lastBlock; ++block) {
    const float *values = x + block * kBlockSize;
    // The maximum magnitude; a NaN anywhere makes it NaN.
    float amax = 0.0f;
    bool anyNaN = false;
    for (int i = 0; i < kBlockSize; ++i) {
      const float magnitude = std::fabs(values[i]);
      anyNaN |= magnitude != magnitude;
      amax = magnitude > amax ? magnitude : amax;
    }
    if (anyNaN)
      amax = std::numeric_limits<float>::quiet_NaN();
    const uint8_t scale = sharedScale(amax, type);
    out.scales[static_cast<size_t>(block)] = scale;
    // x / 2^exponent as x * 2^-exponent (the same single rounding, for an
    // f32 subnormal quotient); a NaN scale encodes the elements as NaN
    // (E2M1, which has none, as its saturated code of NaN).
    const float inverseScale = scale == kE8M0NaN
                                   ? std::numeric_limits<float>::quiet_NaN()
                                   : powerOfTwo(127 - static_cast<int>(scale));
    // The elements through the branch-free encoders of the NVFP4 kernels
    // (equal to encodeElement for every f32: QuantizeKernelsTest), each
    // output byte written once.
    switch (type) {
    case ElementType::E2M1: {
      uint8_t *dst = out.data.data() + block * (kBlockSize / 2);
      for (int i = 0; i < kBlockSize; i += 2)
        dst[i / 2] = static_cast<uint8_t>(
            detail::encodeE2M1Branchless(values[i] * inverseScale) |
            detail::encodeE2M1Branchless(values[i + 1] * inverseScale) << 4);
      break;
    }
    case ElementType::E4M3:
    case ElementType::E5M2: {
      uint8_t *dst = out.data.data() + block * kBlockSize;
      for (int i = 0; i < kBlockSize; ++i)
        dst[i] = encodeFloat8(values[i] * inverseScale, type);
      break;
    }
    }
  }
}

std::optional<std::string> quantize(const float *x, int64_t rows, int64_t cols,
                                    ElementType type, Tensor &out,
                                    int numThreads) {
  if (auto error = checkQuantizable(rows, cols))
    return error;
  out.rows = rows;
  out.cols = cols;
  out.elementType = type;
  const int64_t count = rows * cols;
  out.data.assign(static_cast<size_t>(count / elementsPerByte(type)), 0);
  out.scales.assign(static_cast<size_t>(count / kBlockSize), 0);
  const int64_t blocks = count / kBlockSize;
  if (numThreads <= 0)
    numThreads =
        static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Contiguous block ranges, at least kMinBlocksPerThread each: the blocks
  // are independent, so the result does not depend on the split.
  constexpr int64_t kMinBlocksPerThread = 1024;
  const int64_t threads = std::max<int64_t>(
      1, std::min<int64_t>(numThreads, blocks / kMinBlocksPerThread));
  runOnThreads(static_cast<int>(threads), [&](int t) {
    quantizeBlocks(x, blocks * t / threads, blocks * (t + 1) / threads, type,
                   out);
  });
  return std::nullopt;
}

std::optional<std::string> checkTensor(const Tensor &t) {
  if (auto error = checkQuantizable(t.rows, t.cols))
    return error;
  const int64_t count = t.rows * t.cols;
  if (static_cast<int64_t>(t.data.size()) !=
      count / elementsPerByte(t.elementType))
    return std::string("MX data size does not match the shape");
  if (static_cast<int64_t>(t.scales.size()) != count / kBlockSize)
    return std::string("MX scale count does not match the shape");
  return std::nullopt;
}

void dequantize(const Tensor &t, float *out) {
  // Every code's value, decoded once (E2M1 codes are 4 bits).
  std::array<float, 256> values;
  for (int code = 0; code < 256; ++code)
    values[code] = decodeElement(static_cast<uint8_t>(code), t.elementType);
  const bool packed = t.elementType == ElementType::E2M1;
  const int64_t blocks = t.rows * t.cols / kBlockSize;
  for (int64_t block = 0; block < blocks; ++block) {
    float *dst = out + block * kBlockSize;
    const uint8_t scale = t.scales[static_cast<size_t>(block)];
    if (scale == kE8M0NaN) {
      std::fill(dst, dst + kBlockSize, std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    // decode(q) * 2^e: one correctly rounded product, as ldexp computes it.
    const float factor = powerOfTwo(static_cast<int>(scale) - 127);
    const int64_t first = block * kBlockSize;
    for (int i = 0; i < kBlockSize; ++i) {
      const int64_t index = first + i;
      const uint8_t code =
          packed
              ? (t.data[static_cast<size_t>(index / 2)] >> (4 * (index % 2))) &
                    0xF
              : t.data[static_cast<size_t>(index)];
      dst[i] = values[code] * factor;
    }
  }
}

std::optional<std::string> matmul(const Tensor &a, const Tensor &b, float *c) {
  if (auto error = checkTensor(a))
    return "lhs: " + *error;
  if (auto error = checkTensor(b))
    return "rhs: " + *error;
  if (a.cols != b.cols)
    return "the operands' K differ (" + std::to_string(a.cols) + " and " +
           std::to_string(b.cols) + ")";
  const int unitA = elementUnitExponent(a.elementType);
  const int unitB = elementUnitExponent(b.elementType);
  const int64_t k = a.cols, blocks = k / kBlockSize;
  // Element codes as signed integer multiples of the unit (exact: at most
  // 57344 * 2^16 < 2^32); NaN and infinite elements flagged.
  auto units = [](uint8_t code, ElementType type, int unitExponent,
                  bool &special) -> int64_t {
    const float value = decodeElement(code, type);
    if (!std::isfinite(value)) {
      special = true;
      return 0;
    }
    return static_cast<int64_t>(std::ldexp(value, -unitExponent));
  };
  for (int64_t m = 0; m < a.rows; ++m) {
    for (int64_t n = 0; n < b.rows; ++n) {
      float acc = 0.0f;
      bool nan = false;
      for (int64_t blk = 0; blk < blocks; ++blk) {
        const uint8_t sa = a.scales[static_cast<size_t>(m * blocks + blk)];
        const uint8_t sb = b.scales[static_cast<size_t>(n * blocks + blk)];
        bool special = false;
        __int128 sum = 0;
        float specialSum = 0.0f; // infinities and NaNs, in f32
        for (int64_t i = blk * kBlockSize; i < (blk + 1) * kBlockSize; ++i) {
          bool specialA = false, specialB = false;
          const int64_t ua =
              units(elementCode(a, m, i), a.elementType, unitA, specialA);
          const int64_t ub =
              units(elementCode(b, n, i), b.elementType, unitB, specialB);
          if (specialA || specialB) {
            special = true;
            specialSum += decodeElement(elementCode(a, m, i), a.elementType) *
                          decodeElement(elementCode(b, n, i), b.elementType);
            continue;
          }
          sum += static_cast<__int128>(ua) * ub;
        }
        if (sa == kE8M0NaN || sb == kE8M0NaN) {
          nan = true;
          continue;
        }
        const int scaleExponent = (static_cast<int>(sa) - 127) +
                                  (static_cast<int>(sb) - 127) + unitA + unitB;
        // One rounding to f32, then the exact power-of-two scaling.
        const float partial = static_cast<float>(sum);
        float contribution = std::ldexp(partial, scaleExponent);
        if (special)
          contribution += specialSum; // Inf or NaN dominates
        acc = acc + contribution;
      }
      c[m * b.rows + n] = nan ? std::numeric_limits<float>::quiet_NaN() : acc;
    }
  }
  return std::nullopt;
}

} // namespace nvfp4::mx
