//===- RuntimeValidationTest.cpp - Argument checks of the runtimes --------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The C entry points of libnvfp4_reference_runtime (nvfp4Rt*) and
// libnvfp4_cuda_runtime_checks (nvfp4GpuCheck*), called directly with memref
// descriptors built here: inconsistent descriptors (shapes that disagree
// with each other or with the scalar arguments, negative or overflowing
// sizes, null descriptors) must be reported on stderr, naming the entry point
// and the expected and actual shapes, and fail the way the entry point
// reports failure (-1, NaN, or exit status 1 where there is no error
// channel) without reading or writing outside the buffers; consistent calls
// must still pass. The expected results of the consistent calls come from
// the reference numerics library. The size checks libnvfp4_cuda_runtime
// makes before any driver call are exercised through dlopen when the
// library is built and loadable (it needs libcuda.so.1).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/Numerics.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include "gtest/gtest.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <limits>
#include <string>
#include <vector>

using I8 = UnrankedMemRefType<int8_t>;
using F32 = UnrankedMemRefType<float>;

extern "C" {
void _mlir_ciface_nvfp4RtFill(F32 *m, int64_t seed, int32_t mode);
int64_t _mlir_ciface_nvfp4RtCheckQuantize(F32 *x, I8 *data, I8 *scales,
                                          float amax, int64_t blockRows,
                                          int32_t stochastic, int64_t seed,
                                          int64_t offset, int32_t hadamardSigns,
                                          float explicitAmax);
int64_t _mlir_ciface_nvfp4RtCheckDequantize(I8 *data, I8 *scales, float amax,
                                            int64_t blockRows, F32 *out);
int64_t _mlir_ciface_nvfp4RtCheckMatmul(I8 *aData, I8 *aScales, float aAmax,
                                        int64_t aBlockRows, I8 *bData,
                                        I8 *bScales, float bAmax,
                                        int64_t bBlockRows, int32_t hasAcc,
                                        F32 *acc, F32 *out);
int64_t _mlir_ciface_nvfp4RtCheckHadamard(F32 *x, F32 *y, int32_t signMask);
int64_t _mlir_ciface_nvfp4RtCheckAmax(F32 *x, float amax);
int64_t _mlir_ciface_nvfp4RtCheckTranspose(I8 *inData, I8 *inScales,
                                           I8 *outData, I8 *outScales);
int64_t _mlir_ciface_nvfp4RtCheckRescale(I8 *inData, I8 *inScales, float inAmax,
                                         int64_t inBlockRows, I8 *outData,
                                         I8 *outScales, float outAmax,
                                         int64_t outBlockRows,
                                         int32_t stochastic, int64_t seed,
                                         int64_t offset, float explicitAmax);
double _mlir_ciface_nvfp4RtRelativeError(F32 *actual, F32 *expected,
                                         int32_t label, double tolerance);
float _mlir_ciface_nvfp4RtQuantizeReference(F32 *x, I8 *data, I8 *scales,
                                            int64_t blockRows,
                                            int32_t numThreads);
void _mlir_ciface_nvfp4RtFillIds(UnrankedMemRefType<int64_t> *m, int64_t seed,
                                 int64_t vocab);
double _mlir_ciface_nvfp4RtStash(F32 *m, int32_t index, double lo, double hi);
int64_t _mlir_ciface_nvfp4GpuCheckMatmul(I8 *aData, I8 *aScales, float aAmax,
                                         int64_t aBlockRows, I8 *bData,
                                         I8 *bScales, float bAmax,
                                         int64_t bBlockRows, int32_t hasAcc,
                                         F32 *acc, F32 *out);
int64_t _mlir_ciface_nvfp4GpuCheckMatmulBF16(I8 *aData, I8 *aScales,
                                             float aAmax, int64_t aBlockRows,
                                             I8 *bData, I8 *bScales,
                                             float bAmax, int64_t bBlockRows,
                                             int32_t hasAcc, F32 *acc,
                                             UnrankedMemRefType<int16_t> *out);
}

namespace {

/// A row-major buffer of N dimensions with its ranked and unranked
/// descriptors. Tests edit `desc` to make a descriptor inconsistent.
template <typename T, int N> class MemRef {
public:
  explicit MemRef(const std::array<int64_t, N> &sizes, T fill = T()) {
    int64_t numel = 1;
    for (int64_t s : sizes)
      numel *= s;
    storage.assign(static_cast<size_t>(numel), fill);
    desc.basePtr = desc.data = storage.data();
    desc.offset = 0;
    int64_t stride = 1;
    for (int d = N - 1; d >= 0; --d) {
      desc.sizes[d] = sizes[d];
      desc.strides[d] = stride;
      stride *= sizes[d];
    }
    unranked.rank = N;
    unranked.descriptor = &desc;
  }
  MemRef(const MemRef &) = delete;
  MemRef &operator=(const MemRef &) = delete;

  UnrankedMemRefType<T> *get() { return &unranked; }

  std::vector<T> storage;
  StridedMemRefType<T, N> desc;
  UnrankedMemRefType<T> unranked;
};

/// What `f` writes to stderr.
template <typename F> std::string stderrOf(F f) {
  testing::internal::CaptureStderr();
  f();
  return testing::internal::GetCapturedStderr();
}

/// Expects `message` to name the runtime, `entry` and every piece of
/// `parts`.
void expectMessage(const std::string &message, const std::string &library,
                   const std::string &entry,
                   const std::vector<std::string> &parts) {
  EXPECT_NE(message.find(library + ": " + entry + ": "), std::string::npos)
      << message;
  for (const std::string &part : parts)
    EXPECT_NE(message.find(part), std::string::npos)
        << "missing '" << part << "' in: " << message;
}

void expectReference(const std::string &message, const std::string &entry,
                     const std::vector<std::string> &parts) {
  expectMessage(message, "nvfp4-reference-runtime", entry, parts);
}

void expectGpuChecks(const std::string &message, const std::string &entry,
                     const std::vector<std::string> &parts) {
  expectMessage(message, "nvfp4-cuda-runtime-checks", entry, parts);
}

/// Consistent components of a [rows, cols] tensor quantized by
/// nvfp4RtQuantizeReference: x (filled by nvfp4RtFill), codes, compact
/// scales, amax; and the reference library's tensor of them.
struct Quantized {
  Quantized(int64_t rows, int64_t cols, int64_t blockRows, int64_t seed)
      : x({rows, cols}), codes({rows, cols}),
        scales({rows / blockRows, cols / 16}), blockRows(blockRows) {
    _mlir_ciface_nvfp4RtFill(x.get(), seed, 0);
    amax = _mlir_ciface_nvfp4RtQuantizeReference(x.get(), codes.get(),
                                                 scales.get(), blockRows, 1);
    tensor.rows = rows;
    tensor.cols = cols;
    tensor.block = {static_cast<int>(blockRows), 16};
    tensor.amax = amax;
    tensor.data.assign(static_cast<size_t>(rows * cols / 2), 0);
    for (int64_t i = 0; i < rows * cols; ++i) {
      uint8_t code = static_cast<uint8_t>(codes.storage[i]) & 0xF;
      tensor.data[i / 2] |= static_cast<uint8_t>(i % 2 ? code << 4 : code);
    }
    const int64_t kb = cols / 16;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < kb; ++c)
        tensor.scales.push_back(
            static_cast<uint8_t>(scales.storage[(r / blockRows) * kb + c]));
  }

  MemRef<float, 2> x;
  MemRef<int8_t, 2> codes, scales;
  int64_t blockRows;
  float amax = 0.0f;
  nvfp4::QuantizedTensor tensor;
};

uint16_t toBF16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

//===----------------------------------------------------------------------===//
// Consistent calls pass
//===----------------------------------------------------------------------===//

TEST(RuntimeValidation, ConsistentQuantizeAndDequantizePass) {
  for (int64_t blockRows : {1, 16}) {
    Quantized q(32, 64, blockRows, 3);
    EXPECT_EQ(nvfp4::checkTensor(q.tensor), std::nullopt);
    EXPECT_EQ(_mlir_ciface_nvfp4RtCheckQuantize(q.x.get(), q.codes.get(),
                                                q.scales.get(), q.amax,
                                                blockRows, 0, 0, 0, -2, -1.0f),
              0);
    MemRef<float, 2> out({32, 64});
    nvfp4::dequantize(q.tensor, out.storage.data());
    std::string err;
    int64_t n = 0;
    err = stderrOf([&] {
      n = _mlir_ciface_nvfp4RtCheckDequantize(q.codes.get(), q.scales.get(),
                                              q.amax, blockRows, out.get());
    });
    EXPECT_EQ(n, 0);
    EXPECT_EQ(err, "");
  }
}

TEST(RuntimeValidation, ConsistentMatmulPasses) {
  Quantized a(32, 64, 1, 5), b(48, 64, 16, 6);
  MemRef<float, 2> out({32, 48});
  nvfp4::matmul(a.tensor, b.tensor, out.storage.data());
  // Without an accumulator, `acc` is not read (here: null).
  EXPECT_EQ(_mlir_ciface_nvfp4RtCheckMatmul(
                a.codes.get(), a.scales.get(), a.amax, 1, b.codes.get(),
                b.scales.get(), b.amax, 16, 0, nullptr, out.get()),
            0);
  EXPECT_EQ(_mlir_ciface_nvfp4GpuCheckMatmul(
                a.codes.get(), a.scales.get(), a.amax, 1, b.codes.get(),
                b.scales.get(), b.amax, 16, 0, nullptr, out.get()),
            0);
  // With an accumulator.
  MemRef<float, 2> acc({32, 48}, 0.5f), outAcc({32, 48});
  for (size_t i = 0; i < outAcc.storage.size(); ++i)
    outAcc.storage[i] = out.storage[i] + 0.5f;
  EXPECT_EQ(_mlir_ciface_nvfp4RtCheckMatmul(
                a.codes.get(), a.scales.get(), a.amax, 1, b.codes.get(),
                b.scales.get(), b.amax, 16, 1, acc.get(), outAcc.get()),
            0);
  MemRef<int16_t, 2> outBF16({32, 48});
  for (size_t i = 0; i < outBF16.storage.size(); ++i)
    outBF16.storage[i] = static_cast<int16_t>(toBF16(outAcc.storage[i]));
  EXPECT_EQ(_mlir_ciface_nvfp4GpuCheckMatmulBF16(
                a.codes.get(), a.scales.get(), a.amax, 1, b.codes.get(),
                b.scales.get(), b.amax, 16, 1, acc.get(), outBF16.get()),
            0);
}

TEST(RuntimeValidation, ConsistentHadamardTransposeRescalePass) {
  MemRef<float, 2> x({4, 32}), y({4, 32});
  _mlir_ciface_nvfp4RtFill(x.get(), 9, 0);
  y.storage = x.storage;
  nvfp4::applyHadamard(y.storage.data(), 4, 32);
  EXPECT_EQ(_mlir_ciface_nvfp4RtCheckHadamard(x.get(), y.get(), -1), 0);

  Quantized q(32, 64, 16, 10);
  nvfp4::QuantizedTensor t = nvfp4::transpose2D(q.tensor);
  MemRef<int8_t, 2> tCodes({64, 32}), tScales({4, 2});
  for (int64_t i = 0; i < 64 * 32; ++i)
    tCodes.storage[i] =
        static_cast<int8_t>(i % 2 ? t.data[i / 2] >> 4 : t.data[i / 2] & 0xF);
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 2; ++c)
      tScales.storage[r * 2 + c] =
          static_cast<int8_t>(t.scales[r * 16 * 2 + c]);
  EXPECT_EQ(_mlir_ciface_nvfp4RtCheckTranspose(q.codes.get(), q.scales.get(),
                                               tCodes.get(), tScales.get()),
            0);

  // Rescale 16x16 -> 1x16: the output is quantize(dequantize(in)).
  std::vector<float> deq(32 * 64);
  nvfp4::dequantize(q.tensor, deq.data());
  Quantized r(32, 64, 1, 0);
  std::memcpy(r.x.storage.data(), deq.data(), deq.size() * sizeof(float));
  float outAmax = _mlir_ciface_nvfp4RtQuantizeReference(
      r.x.get(), r.codes.get(), r.scales.get(), 1, 1);
  EXPECT_EQ(_mlir_ciface_nvfp4RtCheckRescale(
                q.codes.get(), q.scales.get(), q.amax, 16, r.codes.get(),
                r.scales.get(), outAmax, 1, 0, 0, 0, -1.0f),
            0);

  MemRef<float, 2> same({4, 32});
  same.storage = x.storage;
  EXPECT_EQ(_mlir_ciface_nvfp4RtRelativeError(same.get(), x.get(), 0, 0.0),
            0.0);
}

TEST(RuntimeValidation, StridedAndEmptyMemRefs) {
  // A column-major view of the same logical [16, 32] values quantizes like
  // the contiguous buffer (nvfp4RtQuantizeReference copies it first).
  Quantized q(16, 32, 1, 11);
  MemRef<float, 2> colMajor({32, 16});
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < 32; ++c)
      colMajor.storage[c * 16 + r] = q.x.storage[r * 32 + c];
  colMajor.desc.sizes[0] = 16;
  colMajor.desc.sizes[1] = 32;
  colMajor.desc.strides[0] = 1;
  colMajor.desc.strides[1] = 16;
  MemRef<int8_t, 2> codes({16, 32}), scales({16, 2});
  float amax = _mlir_ciface_nvfp4RtQuantizeReference(
      colMajor.get(), codes.get(), scales.get(), 1, 1);
  EXPECT_EQ(amax, q.amax);
  EXPECT_EQ(codes.storage, q.codes.storage);
  EXPECT_EQ(scales.storage, q.scales.storage);
  EXPECT_EQ(_mlir_ciface_nvfp4RtCheckQuantize(colMajor.get(), codes.get(),
                                              scales.get(), amax, 1, 0, 0, 0,
                                              -2, -1.0f),
            0);

  // Empty memrefs: nothing is read or written (the MLIR iterator would
  // read an element of an empty memref).
  MemRef<float, 2> empty({0, 16});
  empty.desc.data = nullptr;
  _mlir_ciface_nvfp4RtFill(empty.get(), 1, 0);
  EXPECT_EQ(_mlir_ciface_nvfp4RtCheckAmax(empty.get(), 0.0f), 0);
}

//===----------------------------------------------------------------------===//
// Inconsistent calls fail cleanly
//===----------------------------------------------------------------------===//

TEST(RuntimeValidation, DequantizeWithTooFewScales) {
  // The D8 reproducer: 4096x4096 codes with 1x1 scales.
  MemRef<int8_t, 2> codes({4096, 4096}), scales({1, 1});
  MemRef<float, 2> out({4096, 4096});
  int64_t n = 0;
  std::string err = stderrOf([&] {
    n = _mlir_ciface_nvfp4RtCheckDequantize(codes.get(), scales.get(), 1.0f, 1,
                                            out.get());
  });
  EXPECT_EQ(n, -1);
  expectReference(err, "nvfp4RtCheckDequantize",
                  {"scales: shape [1x1], expected [4096x256]",
                   "codes [4096x4096] with 1x16 blocks"});
}

TEST(RuntimeValidation, DequantizeShapeMismatches) {
  MemRef<int8_t, 2> codes({32, 64}), scales({32, 4}), scales16({2, 4});
  MemRef<float, 2> out({32, 64}), shortOut({32, 48});
  auto run = [&](I8 *d, I8 *s, int64_t blockRows, F32 *o) {
    int64_t n = 0;
    std::string err = stderrOf([&] {
      n = _mlir_ciface_nvfp4RtCheckDequantize(d, s, 1.0f, blockRows, o);
    });
    EXPECT_EQ(n, -1) << err;
    return err;
  };
  expectReference(run(codes.get(), scales.get(), 1, shortOut.get()),
                  "nvfp4RtCheckDequantize",
                  {"out: shape [32x48], expected [32x64]"});
  expectReference(run(codes.get(), scales.get(), 3, out.get()),
                  "nvfp4RtCheckDequantize", {"block rows 3, expected 1 or 16"});
  // 1x16 scales passed with 16x16 block rows.
  expectReference(run(codes.get(), scales.get(), 16, out.get()),
                  "nvfp4RtCheckDequantize",
                  {"scales: shape [32x4], expected [2x4]"});
  // 16x16 scales passed with 1x16 block rows.
  expectReference(run(codes.get(), scales16.get(), 1, out.get()),
                  "nvfp4RtCheckDequantize",
                  {"scales: shape [2x4], expected [32x4]"});

  MemRef<int8_t, 2> oddK({32, 40}), oddKScales({32, 2});
  MemRef<float, 2> oddKOut({32, 40});
  expectReference(run(oddK.get(), oddKScales.get(), 1, oddKOut.get()),
                  "nvfp4RtCheckDequantize",
                  {"K = 40, expected a multiple of 16"});

  MemRef<int8_t, 2> rows24({24, 64}), rows24Scales({1, 4});
  MemRef<float, 2> rows24Out({24, 64});
  expectReference(run(rows24.get(), rows24Scales.get(), 16, rows24Out.get()),
                  "nvfp4RtCheckDequantize",
                  {"24 rows, expected a multiple of 16"});
}

TEST(RuntimeValidation, InvalidDescriptors) {
  MemRef<int8_t, 2> codes({32, 64}), scales({32, 4});
  MemRef<float, 2> out({32, 64});
  auto run = [&](I8 *d) {
    int64_t n = 0;
    std::string err = stderrOf([&] {
      n = _mlir_ciface_nvfp4RtCheckDequantize(d, scales.get(), 1.0f, 1,
                                              out.get());
    });
    EXPECT_EQ(n, -1) << err;
    return err;
  };
  expectReference(run(nullptr), "nvfp4RtCheckDequantize",
                  {"codes: null memref descriptor"});

  // Sizes whose product overflows int64_t: rejected before anything is
  // read (the buffer behind this descriptor is tiny).
  MemRef<int8_t, 2> huge({32, 64});
  huge.desc.sizes[0] = std::numeric_limits<int64_t>::max() / 2;
  huge.desc.strides[0] = 64;
  expectReference(run(huge.get()), "nvfp4RtCheckDequantize",
                  {"has more elements than int64_t can count"});

  MemRef<int8_t, 2> negative({32, 64});
  negative.desc.sizes[0] = -1;
  expectReference(run(negative.get()), "nvfp4RtCheckDequantize",
                  {"codes: negative size -1 in dimension 0"});

  MemRef<int8_t, 2> negativeRank({32, 64});
  negativeRank.unranked.rank = -1;
  expectReference(run(negativeRank.get()), "nvfp4RtCheckDequantize",
                  {"codes: negative rank -1"});

  MemRef<int8_t, 2> before({32, 64});
  before.desc.offset = -64;
  expectReference(run(before.get()), "nvfp4RtCheckDequantize",
                  {"before the start of the buffer"});

  StridedMemRefType<int8_t, 0> scalar{codes.storage.data(),
                                      codes.storage.data(), 0};
  I8 rank0{0, &scalar};
  expectReference(run(&rank0), "nvfp4RtCheckDequantize",
                  {"codes: rank 0, expected codes of rank >= 1"});

  MemRef<float, 1> negativeX({16});
  negativeX.desc.sizes[0] = -16;
  int64_t n = 0;
  std::string err = stderrOf(
      [&] { n = _mlir_ciface_nvfp4RtCheckAmax(negativeX.get(), 0.0f); });
  EXPECT_EQ(n, -1);
  expectReference(err, "nvfp4RtCheckAmax", {"x: negative size -16"});

  double r = 0.0;
  err = stderrOf([&] { r = _mlir_ciface_nvfp4RtStash(nullptr, 0, 0.0, 1.0); });
  EXPECT_EQ(r, -1.0);
  expectReference(err, "nvfp4RtStash", {"m: null memref descriptor"});
}

TEST(RuntimeValidation, QuantizeShapeMismatches) {
  Quantized q(32, 64, 1, 12);
  MemRef<int8_t, 2> codes({32, 48}), scales({32, 3});
  int64_t n = 0;
  std::string err = stderrOf([&] {
    n = _mlir_ciface_nvfp4RtCheckQuantize(q.x.get(), codes.get(), scales.get(),
                                          q.amax, 1, 0, 0, 0, -2, -1.0f);
  });
  EXPECT_EQ(n, -1);
  expectReference(err, "nvfp4RtCheckQuantize",
                  {"codes: shape [32x48], expected [32x64] (the shape of x)"});

  MemRef<int8_t, 2> fewScales({32, 2});
  err = stderrOf([&] {
    n = _mlir_ciface_nvfp4RtCheckQuantize(q.x.get(), q.codes.get(),
                                          fewScales.get(), q.amax, 1, 0, 0, 0,
                                          -2, -1.0f);
  });
  EXPECT_EQ(n, -1);
  expectReference(err, "nvfp4RtCheckQuantize",
                  {"scales: shape [32x2], expected [32x4]"});
}

TEST(RuntimeValidation, MatmulShapeMismatches) {
  Quantized a(32, 64, 1, 13), b(48, 64, 1, 14), bShortK(48, 32, 1, 15);
  MemRef<float, 2> out({32, 48}), wrongOut({48, 32}), wrongAcc({32, 16});
  auto reference = [&](Quantized &bb, int32_t hasAcc, F32 *acc, F32 *o) {
    int64_t n = 0;
    std::string err = stderrOf([&] {
      n = _mlir_ciface_nvfp4RtCheckMatmul(a.codes.get(), a.scales.get(), a.amax,
                                          1, bb.codes.get(), bb.scales.get(),
                                          bb.amax, 1, hasAcc, acc, o);
    });
    EXPECT_EQ(n, -1) << err;
    return err;
  };
  auto gpu = [&](Quantized &bb, int32_t hasAcc, F32 *acc, F32 *o) {
    int64_t n = 0;
    std::string err = stderrOf([&] {
      n = _mlir_ciface_nvfp4GpuCheckMatmul(
          a.codes.get(), a.scales.get(), a.amax, 1, bb.codes.get(),
          bb.scales.get(), bb.amax, 1, hasAcc, acc, o);
    });
    EXPECT_EQ(n, -1) << err;
    return err;
  };
  expectReference(reference(bShortK, 0, nullptr, out.get()),
                  "nvfp4RtCheckMatmul",
                  {"B codes: shape [48x32], expected [48x64]"});
  expectGpuChecks(gpu(bShortK, 0, nullptr, out.get()), "nvfp4GpuCheckMatmul",
                  {"B codes: shape [48x32], expected [48x64]"});
  expectReference(reference(b, 0, nullptr, wrongOut.get()),
                  "nvfp4RtCheckMatmul",
                  {"result: shape [48x32], expected [32x48]"});
  expectGpuChecks(gpu(b, 0, nullptr, wrongOut.get()), "nvfp4GpuCheckMatmul",
                  {"result: shape [48x32], expected [32x48]"});
  expectReference(reference(b, 1, wrongAcc.get(), out.get()),
                  "nvfp4RtCheckMatmul",
                  {"acc: shape [32x16], expected [32x48]"});
  expectGpuChecks(gpu(b, 1, wrongAcc.get(), out.get()), "nvfp4GpuCheckMatmul",
                  {"acc: shape [32x16], expected [32x48]"});
  expectReference(reference(b, 1, nullptr, out.get()), "nvfp4RtCheckMatmul",
                  {"acc: null memref descriptor"});

  // Scales of A too small for its codes (the D8 shape of the bug).
  MemRef<int8_t, 2> oneScale({1, 1});
  int64_t n = 0;
  std::string err = stderrOf([&] {
    n = _mlir_ciface_nvfp4GpuCheckMatmul(a.codes.get(), oneScale.get(), a.amax,
                                         1, b.codes.get(), b.scales.get(),
                                         b.amax, 1, 0, nullptr, out.get());
  });
  EXPECT_EQ(n, -1);
  expectGpuChecks(err, "nvfp4GpuCheckMatmul",
                  {"A scales: shape [1x1], expected [32x4]"});
  err = stderrOf([&] {
    n = _mlir_ciface_nvfp4RtCheckMatmul(a.codes.get(), oneScale.get(), a.amax,
                                        1, b.codes.get(), b.scales.get(),
                                        b.amax, 1, 0, nullptr, out.get());
  });
  EXPECT_EQ(n, -1);
  expectReference(err, "nvfp4RtCheckMatmul",
                  {"A scales: shape [1x1], expected [32x4]"});

  // Batched operands with different batch sizes.
  MemRef<int8_t, 3> a3({2, 16, 64}), a3s({2, 16, 4}), b3({3, 16, 64}),
      b3s({3, 16, 4});
  MemRef<float, 3> out3({2, 16, 16});
  err = stderrOf([&] {
    n = _mlir_ciface_nvfp4RtCheckMatmul(a3.get(), a3s.get(), 1.0f, 1, b3.get(),
                                        b3s.get(), 1.0f, 1, 0, nullptr,
                                        out3.get());
  });
  EXPECT_EQ(n, -1);
  expectReference(err, "nvfp4RtCheckMatmul",
                  {"B codes: shape [3x16x64], expected [2x16x64]"});
  err = stderrOf([&] {
    n = _mlir_ciface_nvfp4GpuCheckMatmul(a3.get(), a3s.get(), 1.0f, 1, b3.get(),
                                         b3s.get(), 1.0f, 1, 0, nullptr,
                                         out3.get());
  });
  EXPECT_EQ(n, -1);
  expectGpuChecks(err, "nvfp4GpuCheckMatmul",
                  {"B codes: shape [3x16x64], expected [2x16x64]"});

  // A bf16 result of the wrong shape, and block rows 2.
  MemRef<int16_t, 2> bf16Out({32, 47});
  err = stderrOf([&] {
    n = _mlir_ciface_nvfp4GpuCheckMatmulBF16(
        a.codes.get(), a.scales.get(), a.amax, 1, b.codes.get(), b.scales.get(),
        b.amax, 1, 0, nullptr, bf16Out.get());
  });
  EXPECT_EQ(n, -1);
  expectGpuChecks(err, "nvfp4GpuCheckMatmulBF16",
                  {"result: shape [32x47], expected [32x48]"});
  err = stderrOf([&] {
    n = _mlir_ciface_nvfp4GpuCheckMatmul(a.codes.get(), a.scales.get(), a.amax,
                                         2, b.codes.get(), b.scales.get(),
                                         b.amax, 1, 0, nullptr, out.get());
  });
  EXPECT_EQ(n, -1);
  expectGpuChecks(err, "nvfp4GpuCheckMatmul", {"A: block rows 2"});

  // Overflowing sizes are rejected before anything is read.
  MemRef<int8_t, 2> huge({32, 64});
  huge.desc.sizes[0] = std::numeric_limits<int64_t>::max() / 4;
  err = stderrOf([&] {
    n = _mlir_ciface_nvfp4GpuCheckMatmul(huge.get(), a.scales.get(), a.amax, 1,
                                         b.codes.get(), b.scales.get(), b.amax,
                                         1, 0, nullptr, out.get());
  });
  EXPECT_EQ(n, -1);
  expectGpuChecks(err, "nvfp4GpuCheckMatmul",
                  {"A codes: shape", "more elements than int64_t can count"});
}

TEST(RuntimeValidation, HadamardTransposeRescaleMismatches) {
  MemRef<float, 2> x24({4, 24}), y24({4, 24}), x({4, 32}), y({4, 16});
  int64_t n = 0;
  std::string err = stderrOf(
      [&] { n = _mlir_ciface_nvfp4RtCheckHadamard(x24.get(), y24.get(), -1); });
  EXPECT_EQ(n, -1);
  expectReference(err, "nvfp4RtCheckHadamard",
                  {"last dimension 24, expected a multiple of 16"});
  err = stderrOf(
      [&] { n = _mlir_ciface_nvfp4RtCheckHadamard(x.get(), y.get(), -1); });
  EXPECT_EQ(n, -1);
  expectReference(err, "nvfp4RtCheckHadamard",
                  {"y: shape [4x16], expected [4x32]"});

  Quantized q(32, 64, 16, 16);
  MemRef<int8_t, 2> notTransposed({32, 64}), tScales({4, 2});
  err = stderrOf([&] {
    n = _mlir_ciface_nvfp4RtCheckTranspose(q.codes.get(), q.scales.get(),
                                           notTransposed.get(), tScales.get());
  });
  EXPECT_EQ(n, -1);
  expectReference(err, "nvfp4RtCheckTranspose",
                  {"output codes: shape [32x64], expected [64x32]"});
  MemRef<int8_t, 2> tCodes({64, 32}), wrongTScales({2, 4});
  err = stderrOf([&] {
    n = _mlir_ciface_nvfp4RtCheckTranspose(q.codes.get(), q.scales.get(),
                                           tCodes.get(), wrongTScales.get());
  });
  EXPECT_EQ(n, -1);
  expectReference(err, "nvfp4RtCheckTranspose",
                  {"output scales: shape [2x4], expected [4x2]"});
  MemRef<int8_t, 1> rank1({64}), rank1Scales({4});
  err = stderrOf([&] {
    n = _mlir_ciface_nvfp4RtCheckTranspose(rank1.get(), rank1Scales.get(),
                                           tCodes.get(), tScales.get());
  });
  EXPECT_EQ(n, -1);
  expectReference(err, "nvfp4RtCheckTranspose",
                  {"input codes: shape [64] of rank 1, expected rank >= 2"});

  // Rescale 16x16 -> 1x16 given 16x16-shaped output scales.
  MemRef<int8_t, 2> outCodes({32, 64}), outScales16({2, 4});
  err = stderrOf([&] {
    n = _mlir_ciface_nvfp4RtCheckRescale(q.codes.get(), q.scales.get(), q.amax,
                                         16, outCodes.get(), outScales16.get(),
                                         q.amax, 1, 0, 0, 0, -1.0f);
  });
  EXPECT_EQ(n, -1);
  expectReference(err, "nvfp4RtCheckRescale",
                  {"output scales: shape [2x4], expected [32x4]"});

  // nvfp4RtRelativeError: NaN and FAIL.
  double r = 0.0;
  testing::internal::CaptureStdout();
  err = stderrOf(
      [&] { r = _mlir_ciface_nvfp4RtRelativeError(y.get(), x.get(), 7, 0.1); });
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_TRUE(std::isnan(r));
  EXPECT_NE(out.find("relative error 7: invalid arguments: FAIL"),
            std::string::npos)
      << out;
  expectReference(err, "nvfp4RtRelativeError",
                  {"actual: shape [4x16], expected [4x32]"});
}

//===----------------------------------------------------------------------===//
// Entry points without an error channel end the process
//===----------------------------------------------------------------------===//

TEST(RuntimeValidationDeathTest, EntryPointsWithoutErrorChannelExit) {
  MemRef<float, 2> x({32, 64});
  MemRef<int8_t, 2> codes({32, 64}), scales({1, 1});
  EXPECT_EXIT(_mlir_ciface_nvfp4RtQuantizeReference(x.get(), codes.get(),
                                                    scales.get(), 1, 1),
              testing::ExitedWithCode(1),
              "nvfp4-reference-runtime: nvfp4RtQuantizeReference: scales: "
              "shape \\[1x1\\], expected \\[32x4\\]");
  MemRef<int8_t, 2> shortCodes({32, 48}), shortScales({32, 3});
  EXPECT_EXIT(_mlir_ciface_nvfp4RtQuantizeReference(x.get(), shortCodes.get(),
                                                    shortScales.get(), 1, 1),
              testing::ExitedWithCode(1),
              "nvfp4RtQuantizeReference: codes: shape \\[32x48\\], expected "
              "\\[32x64\\]");

  MemRef<int64_t, 1> ids({8});
  EXPECT_EXIT(_mlir_ciface_nvfp4RtFillIds(ids.get(), 1, 0),
              testing::ExitedWithCode(1),
              "nvfp4RtFillIds: vocab = 0, expected a positive vocabulary "
              "size");

  MemRef<float, 2> negative({4, 16});
  negative.desc.sizes[1] = -16;
  EXPECT_EXIT(_mlir_ciface_nvfp4RtFill(negative.get(), 1, 0),
              testing::ExitedWithCode(1),
              "nvfp4RtFill: m: negative size -16 in dimension 1");
}

#ifdef NVFP4_CUDA_RUNTIME_LIB
TEST(RuntimeValidationDeathTest, CudaRuntimeRejectsInconsistentSizes) {
  void *lib = dlopen(NVFP4_CUDA_RUNTIME_LIB, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    GTEST_SKIP() << "libnvfp4_cuda_runtime not loadable: " << dlerror();
  using RegisterMemRef = void (*)(int64_t, void *, int64_t);
  using Memset32 = void (*)(void *, unsigned int, size_t, void *);
  using TensorMapEncode2D = void (*)(void *, void *, uint64_t, uint64_t,
                                     uint64_t, uint32_t, uint32_t, int32_t);
  auto registerMemRef =
      reinterpret_cast<RegisterMemRef>(dlsym(lib, "mgpuMemHostRegisterMemRef"));
  auto memset32 = reinterpret_cast<Memset32>(dlsym(lib, "mgpuMemset32"));
  auto tensorMap = reinterpret_cast<TensorMapEncode2D>(
      dlsym(lib, "nvfp4CudaTensorMapEncode2D"));
  ASSERT_TRUE(registerMemRef && memset32 && tensorMap);

  // Every failure below is detected before the first driver call.
  MemRef<float, 2> m({4, 8});
  m.desc.sizes[1] = -8;
  EXPECT_EXIT(registerMemRef(2, &m.desc, 4), testing::ExitedWithCode(1),
              "nvfp4-cuda-runtime: mgpuMemHostRegisterMemRef: memref with a "
              "negative size or stride \\(dimension 1: size -8, stride 1\\)");
  MemRef<float, 2> huge({4, 8});
  huge.desc.sizes[0] = std::numeric_limits<int64_t>::max();
  huge.desc.strides[0] = std::numeric_limits<int64_t>::max();
  EXPECT_EXIT(registerMemRef(2, &huge.desc, 4), testing::ExitedWithCode(1),
              "mgpuMemHostRegisterMemRef: memref of rank 2 at .* extends "
              "beyond the address space");
  MemRef<float, 2> before({4, 8});
  before.desc.offset = -1;
  EXPECT_EXIT(registerMemRef(2, &before.desc, 4), testing::ExitedWithCode(1),
              "mgpuMemHostRegisterMemRef: memref with a negative offset -1");
  EXPECT_EXIT(memset32(m.storage.data(), 0, SIZE_MAX / 2, nullptr),
              testing::ExitedWithCode(1),
              "mgpuMemset32: [0-9]+ 32-bit words do not fit in the address "
              "space");
  // 2^32 rows 2^40 - 16 bytes apart: each dimension is within the
  // cuTensorMapEncodeTiled rules, their product is not in 64 bits.
  alignas(64) unsigned char map[128];
  EXPECT_EXIT(tensorMap(map, reinterpret_cast<void *>(0x1000), 512,
                        uint64_t(1) << 32, (uint64_t(1) << 40) - 16, 128, 128,
                        3),
              testing::ExitedWithCode(1),
              "nvfp4CudaTensorMapEncode2D: 4294967296 rows of 512 bytes, row "
              "stride 1099511627760, at 0x1000 extend beyond the address "
              "space");
  EXPECT_EXIT(tensorMap(map + 8, reinterpret_cast<void *>(0x1000), 512, 64, 512,
                        128, 64, 3),
              testing::ExitedWithCode(1),
              "nvfp4CudaTensorMapEncode2D: the map is null or not 64-byte "
              "aligned");
  dlclose(lib);
}
#endif

} // namespace
