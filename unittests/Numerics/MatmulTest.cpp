//===- MatmulTest.cpp - The fast NVFP4 GEMM against its definition --------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// nvfp4::matmul (lib/Numerics/Matmul.cpp: decoded operands, cache tiles,
// vectorized across columns, threads) against the definition written out
// element by element (DefinitionMatmul below, the library's former
// implementation): bit for bit, for shapes that are and are not multiples
// of the tiles, every E2M1 code, E4M3 scales across the range including
// subnormals, zeros and NaN, and any thread count.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/Numerics.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

using namespace nvfp4;

namespace {

/// C = (sum over K blocks, in increasing K, of partial * (sA * sB)) * alpha,
/// one element at a time.
std::vector<float> definitionMatmul(const QuantizedTensor &a,
                                    const QuantizedTensor &b, float alpha) {
  const int64_t m = a.rows, n = b.rows, k = a.cols, kb = k / kBlockSize;
  auto code = [](const QuantizedTensor &t, int64_t idx) -> uint8_t {
    const uint8_t byte = t.data[idx / 2];
    return (idx % 2 == 0) ? (byte & 0xF) : (byte >> 4);
  };
  std::vector<float> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t blk = 0; blk < kb; ++blk) {
        float partial = 0.0f;
        for (int e = 0; e < kBlockSize; ++e) {
          const int64_t kk = blk * kBlockSize + e;
          partial += decodeE2M1(code(a, i * k + kk)) *
                     decodeE2M1(code(b, j * k + kk));
        }
        const float sab = decodeE4M3(a.scales[i * kb + blk]) *
                          decodeE4M3(b.scales[j * kb + blk]);
        acc += partial * sab;
      }
      c[i * n + j] = acc * alpha;
    }
  return c;
}

/// The definition with two amaxes: alpha = (amaxA * amaxB) / (6 * 448)^2.
std::vector<float> definitionMatmul(const QuantizedTensor &a,
                                    const QuantizedTensor &b) {
  return definitionMatmul(a, b, matmulAlpha(a.amax, b.amax));
}

/// A [rows, cols] tensor of random codes and scales; `nanEvery` > 0 puts a
/// NaN scale (0x7F) at every nanEvery-th block.
QuantizedTensor randomTensor(int64_t rows, int64_t cols, std::mt19937 &gen,
                             float amax, int nanEvery = 0) {
  QuantizedTensor t;
  t.rows = rows;
  t.cols = cols;
  t.amax = amax;
  std::uniform_int_distribution<int> byte(0, 255);
  t.data.resize(static_cast<size_t>(rows * cols / 2));
  for (uint8_t &d : t.data)
    d = static_cast<uint8_t>(byte(gen));
  t.scales.resize(static_cast<size_t>(rows * cols / kBlockSize));
  for (size_t i = 0; i < t.scales.size(); ++i) {
    // Positive E4M3 magnitudes 0 .. 448 (0x00 .. 0x7E), subnormals included.
    t.scales[i] = static_cast<uint8_t>(byte(gen) % 0x7F);
    if (nanEvery > 0 && i % nanEvery == 0)
      t.scales[i] = 0x7F;
  }
  return t;
}

void expectBitIdentical(const std::vector<float> &expected,
                        const std::vector<float> &actual) {
  ASSERT_EQ(expected.size(), actual.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    uint32_t e, a;
    std::memcpy(&e, &expected[i], sizeof(e));
    std::memcpy(&a, &actual[i], sizeof(a));
    ASSERT_EQ(e, a) << "element " << i << ": expected " << expected[i]
                    << ", got " << actual[i];
  }
}

struct Shape {
  int64_t m, n, k;
};

TEST(Matmul, EqualsTheDefinitionBitForBit) {
  std::mt19937 gen(2024);
  // Tile multiples and not (32 x 64 tiles), one block of K and many.
  const Shape shapes[] = {{1, 1, 16},    {3, 5, 32},     {32, 64, 256},
                          {33, 65, 48},  {64, 130, 512}, {100, 7, 160},
                          {17, 200, 1024}, {70, 700, 64}};
  for (const Shape &s : shapes) {
    SCOPED_TRACE(testing::Message() << s.m << "x" << s.n << "x" << s.k);
    QuantizedTensor a = randomTensor(s.m, s.k, gen, 3.5f);
    QuantizedTensor b = randomTensor(s.n, s.k, gen, 1200.0f);
    const std::vector<float> expected = definitionMatmul(a, b);
    // More threads than column tiles, and than tiles: idle threads take
    // tiles from the others' slices.
    for (int threads : {1, 2, 3, 7, 0}) {
      SCOPED_TRACE(threads);
      std::vector<float> c(static_cast<size_t>(s.m * s.n), -1.0f);
      matmul(a, b, c.data(), threads);
      expectBitIdentical(expected, c);
    }
    std::vector<float> c(static_cast<size_t>(s.m * s.n));
    matmul(a, b, c.data());
    expectBitIdentical(expected, c);
  }
}

TEST(Matmul, NaNScalesPropagateAsInTheDefinition) {
  std::mt19937 gen(7);
  QuantizedTensor a = randomTensor(40, 96, gen, 2.0f, /*nanEvery=*/37);
  QuantizedTensor b = randomTensor(70, 96, gen, 5.0f, /*nanEvery=*/53);
  std::vector<float> c(40 * 70);
  matmul(a, b, c.data(), 2);
  expectBitIdentical(definitionMatmul(a, b), c);
}

TEST(Matmul, DecodeTensorScales) {
  // Decode scales (Model Optimizer's weight_scale_2, vLLM's input_scale):
  // alpha is their product; an amax operand contributes amax / (6 * 448).
  std::mt19937 gen(11);
  QuantizedTensor a = randomTensor(33, 64, gen, 7.3f);
  QuantizedTensor b = randomTensor(20, 64, gen, 0.00123f);
  b.tensorScale = TensorScale::Decode;
  std::vector<float> c(33 * 20);
  matmul(a, b, c.data(), 2);
  expectBitIdentical(
      definitionMatmul(a, b, (7.3f * float(1.0 / 2688.0)) * 0.00123f), c);
  a.tensorScale = TensorScale::Decode;
  a.amax = 0.0457f;
  matmul(a, b, c.data(), 1);
  expectBitIdentical(definitionMatmul(a, b, 0.0457f * 0.00123f), c);
}

TEST(Matmul, LeavesTheOutputAloneOnInvalidOperands) {
  std::mt19937 gen(1);
  QuantizedTensor a = randomTensor(4, 32, gen, 1.0f);
  QuantizedTensor b = randomTensor(4, 48, gen, 1.0f);
  std::vector<float> c(16, 7.0f);
  matmul(a, b, c.data());
  for (float v : c)
    EXPECT_EQ(v, 7.0f);
}

} // namespace
