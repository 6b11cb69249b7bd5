//===- CPURuntime.cpp - Precompiled nvfp4 kernels for lowered programs ----===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// libnvfp4_cpu_runtime: the kernels that programs lowered with
// `nvfp4-to-cpu` (`kernels=library`, the default) call for every nvfp4
// op, in the style of IREE's microkernels: a small C ABI over the
// reference numerics library (lib/Numerics), so the lowered IR holds one
// call per op instead of the op's numerics inlined, and the work runs in
// the library's vectorized, multi-threaded kernels. The results are the
// library's, bit for bit (docs/cpu-lowering.md).
//
// Components use the layout of the reference lowering: E2M1 codes one per
// byte (low nibble), compact E4M3 scales ([rows / R, cols / 16] for Rx16
// blocks), the f32 tensor amax. The OCP MX entry points (`nvfp4CpuMx...`)
// take element codes one per byte (E2M1 in the low nibble, E4M3 / E5M2 the
// whole byte), E8M0 scales [rows, cols / 32] and an element-type code (0
// E2M1, 1 E4M3, 2 E5M2), and call nvfp4::mx. Every entry point takes unranked
// memrefs
// (`llvm.emit_c_interface`) of fixed rank: 2 for quantize, dequantize,
// amax and hadamard (the lowering views tensors as [rows, cols]), 3 for
// matmul ([batch, rows, K]) and transpose ([batch, rows, cols]). An argument
// that does not fit (a descriptor that fails validation, a non-contiguous
// memref, inconsistent shapes) is reported on stderr as
//   nvfp4-cpu-runtime: <entry point>: <what>
// and ends the process with exit status 1: the lowering never emits such a
// call, so it only happens to hand-written callers.
//
// NVFP4_CPU_THREADS sets the number of threads of the matmul and quantize
// kernels (default: one per hardware thread); results do not depend on it.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/MX.h"
#include "nvfp4/Numerics/Numerics.h"

#include "MemRefArguments.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

using namespace nvfp4::runtime;

namespace {

constexpr const char *kLibrary = "nvfp4-cpu-runtime";

[[noreturn]] void failInvalid(const char *entry, const std::string &message) {
  reportInvalid(kLibrary, entry, message);
  std::exit(EXIT_FAILURE);
}

/// The threads the kernels use: NVFP4_CPU_THREADS, else 0 (one per
/// hardware thread).
int numThreads() {
  static const int threads = [] {
    const char *env = std::getenv("NVFP4_CPU_THREADS");
    return env ? std::max(0, std::atoi(env)) : 0;
  }();
  return threads;
}

/// A validated contiguous memref of rank `rank`: its sizes and the address
/// of its first element.
template <typename T> struct Dense {
  T *data = nullptr;
  std::vector<int64_t> sizes;
  int64_t size(int i) const { return sizes[i]; }
};

template <typename T>
Dense<T> denseArgument(const char *entry, const char *name,
                       UnrankedMemRefType<T> *m, int64_t rank) {
  View<T> v;
  if (auto err = viewOf(name, m, v))
    failInvalid(entry, *err);
  if (static_cast<int64_t>(v.sizes.size()) != rank)
    failInvalid(entry, std::string(name) + ": rank " +
                           std::to_string(v.sizes.size()) + ", expected " +
                           std::to_string(rank));
  int64_t expected = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (v.sizes[d] != 1 && v.strides[d] != expected)
      failInvalid(entry, std::string(name) + ": not contiguous (strides " +
                             bracketed(v.strides) + " for shape " +
                             bracketed(v.sizes) + ")");
    expected *= v.sizes[d];
  }
  return {v.data + v.offset, v.sizes};
}

void expectShape(const char *entry, const char *name,
                 const std::vector<int64_t> &actual,
                 const std::vector<int64_t> &expected) {
  if (actual != expected)
    failInvalid(entry, std::string(name) + ": shape " + bracketed(actual) +
                           ", expected " + bracketed(expected));
}

/// The tensor-scale kind of a call's `decodeScale` flag (0: an amax, 1: a
/// decode scale).
nvfp4::TensorScale tensorScaleKind(const char *entry, int32_t decodeScale) {
  if (decodeScale != 0 && decodeScale != 1)
    failInvalid(entry, "tensor scale kind " + std::to_string(decodeScale) +
                           ", expected 0 (amax) or 1 (decode scale)");
  return decodeScale ? nvfp4::TensorScale::Decode : nvfp4::TensorScale::Amax;
}

void expectBlockRows(const char *entry, int64_t blockRows, int64_t rows,
                     int64_t cols) {
  if (blockRows != 1 && blockRows != 16)
    failInvalid(entry, "block rows " + std::to_string(blockRows) +
                           ", expected 1 or 16");
  if (rows % blockRows != 0 || cols % 16 != 0)
    failInvalid(entry, "shape " + bracketed({rows, cols}) +
                           " is not a whole number of " +
                           std::to_string(blockRows) + "x16 blocks");
}

/// The codes [rows, cols] and compact scales [rows / R, cols / 16] of a 2-D
/// NVFP4 tensor with R = `blockRows`, validated.
std::pair<Dense<int8_t>, Dense<int8_t>>
componentArguments(const char *entry, UnrankedMemRefType<int8_t> *codesArg,
                   UnrankedMemRefType<int8_t> *scalesArg, int64_t rows,
                   int64_t cols, int64_t blockRows) {
  expectBlockRows(entry, blockRows, rows, cols);
  Dense<int8_t> codes = denseArgument(entry, "codes", codesArg, 2);
  Dense<int8_t> scales = denseArgument(entry, "scales", scalesArg, 2);
  expectShape(entry, "codes", codes.sizes, {rows, cols});
  expectShape(entry, "scales", scales.sizes, {rows / blockRows, cols / 16});
  return {codes, scales};
}

std::array<int8_t, 16> signsFromMask(int32_t negativeSigns) {
  std::array<int8_t, 16> signs;
  for (int i = 0; i < 16; ++i)
    signs[i] = (negativeSigns >> i) & 1 ? -1 : 1;
  return signs;
}

/// Builds the library's form of one [rows, cols] NVFP4 matrix from the
/// lowering's: codes packed two per byte, the scales of Rx16 tiles
/// replicated to each of the tile's rows.
nvfp4::QuantizedTensor packed(const int8_t *codes, const int8_t *scales,
                              float amax, nvfp4::TensorScale kind, int64_t rows,
                              int64_t cols, int64_t blockRows) {
  nvfp4::QuantizedTensor t;
  t.rows = rows;
  t.cols = cols;
  t.block = {static_cast<int>(blockRows), 16};
  t.amax = amax;
  t.tensorScale = kind;
  t.data.resize(static_cast<size_t>(rows * cols / 2));
  for (size_t i = 0; i < t.data.size(); ++i)
    t.data[i] = static_cast<uint8_t>((codes[2 * i] & 0xF) |
                                     ((codes[2 * i + 1] & 0xF) << 4));
  const int64_t blocksPerRow = cols / 16;
  t.scales.resize(static_cast<size_t>(rows * blocksPerRow));
  for (int64_t r = 0; r < rows; ++r)
    std::copy_n(scales + (r / blockRows) * blocksPerRow, blocksPerRow,
                t.scales.begin() + r * blocksPerRow);
  return t;
}

/// The MX element type of a call's `elementType` code (0 E2M1, 1 E4M3, 2
/// E5M2).
nvfp4::mx::ElementType mxElementType(const char *entry, int32_t code) {
  switch (code) {
  case 0:
    return nvfp4::mx::ElementType::E2M1;
  case 1:
    return nvfp4::mx::ElementType::E4M3;
  case 2:
    return nvfp4::mx::ElementType::E5M2;
  default:
    failInvalid(entry, "element type " + std::to_string(code) +
                           ", expected 0 (E2M1), 1 (E4M3) or 2 (E5M2)");
  }
}

/// Builds the library's form of the [rows, cols] MX matrix with codes one
/// per byte and scales [rows, cols / 32]: E2M1 codes packed two per byte.
nvfp4::mx::Tensor packedMX(const int8_t *codes, const int8_t *scales,
                           nvfp4::mx::ElementType type, int64_t rows,
                           int64_t cols) {
  nvfp4::mx::Tensor t;
  t.rows = rows;
  t.cols = cols;
  t.elementType = type;
  const int64_t numel = rows * cols;
  if (nvfp4::mx::elementBits(type) == 4) {
    t.data.resize(static_cast<size_t>(numel / 2));
    for (size_t i = 0; i < t.data.size(); ++i)
      t.data[i] = static_cast<uint8_t>((codes[2 * i] & 0xF) |
                                       ((codes[2 * i + 1] & 0xF) << 4));
  } else {
    t.data.assign(reinterpret_cast<const uint8_t *>(codes),
                  reinterpret_cast<const uint8_t *>(codes) + numel);
  }
  const uint8_t *s = reinterpret_cast<const uint8_t *>(scales);
  t.scales.assign(s, s + numel / nvfp4::mx::kBlockSize);
  return t;
}

/// The codes [rows, cols] and E8M0 scales [rows, cols / 32] of a 2-D MX
/// tensor, validated.
std::pair<Dense<int8_t>, Dense<int8_t>>
mxComponentArguments(const char *entry, UnrankedMemRefType<int8_t> *codesArg,
                     UnrankedMemRefType<int8_t> *scalesArg, int64_t rows,
                     int64_t cols) {
  if (auto err = nvfp4::mx::checkQuantizable(rows, cols))
    failInvalid(entry, *err);
  Dense<int8_t> codes = denseArgument(entry, "codes", codesArg, 2);
  Dense<int8_t> scales = denseArgument(entry, "scales", scalesArg, 2);
  expectShape(entry, "codes", codes.sizes, {rows, cols});
  expectShape(entry, "scales", scales.sizes,
              {rows, cols / nvfp4::mx::kBlockSize});
  return {codes, scales};
}

/// Tiles of the byte transpose: 64 x 64 codes (4 KiB read, 4 KiB written)
/// stay in L1 while the tile is transposed.
constexpr int64_t kTransposeTile = 64;

/// out [cols, rows] = in [rows, cols]ᵀ for one-byte elements.
void transposeBytes(const int8_t *in, int8_t *out, int64_t rows,
                    int64_t cols) {
  for (int64_t r0 = 0; r0 < rows; r0 += kTransposeTile)
    for (int64_t c0 = 0; c0 < cols; c0 += kTransposeTile) {
      const int64_t rEnd = std::min(rows, r0 + kTransposeTile);
      const int64_t cEnd = std::min(cols, c0 + kTransposeTile);
      for (int64_t c = c0; c < cEnd; ++c)
        for (int64_t r = r0; r < rEnd; ++r)
          out[c * rows + r] = in[r * cols + c];
    }
}

} // namespace

extern "C" {

/// Quantizes x [rows, cols] into codes [rows, cols] and scales [rows / R,
/// cols / 16] (R = blockRows) and returns the tensor amax: nvfp4::quantize
/// with round-to-nearest-even (rounding 0) or stochastic rounding (1) from
/// (seed, offset), the RHT first when `hadamard` is non-zero (bit i of
/// `negativeSigns` set: sign i is -1), and the amax `amax` when `hasAmax`
/// is non-zero.
float _mlir_ciface_nvfp4CpuQuantize(
    UnrankedMemRefType<float> *xArg, UnrankedMemRefType<int8_t> *codesArg,
    UnrankedMemRefType<int8_t> *scalesArg, int64_t blockRows,
    int32_t rounding, int64_t seed, int64_t offset, int32_t hadamard,
    int32_t negativeSigns, int32_t hasAmax, float amax) {
  const char *entry = "nvfp4CpuQuantize";
  Dense<float> x = denseArgument(entry, "input", xArg, 2);
  const int64_t rows = x.size(0), cols = x.size(1);
  auto [codes, scales] = componentArguments(entry, codesArg, scalesArg, rows,
                                            cols, blockRows);
  if (rounding != 0 && rounding != 1)
    failInvalid(entry, "rounding " + std::to_string(rounding) +
                           ", expected 0 (nearest even) or 1 (stochastic)");

  nvfp4::QuantizeOptions opts;
  opts.block = {static_cast<int>(blockRows), 16};
  opts.rounding = rounding ? nvfp4::Rounding::Stochastic
                           : nvfp4::Rounding::NearestEven;
  opts.seed = static_cast<uint64_t>(seed);
  opts.offset = static_cast<uint64_t>(offset);
  opts.hadamard = hadamard != 0;
  opts.signs = signsFromMask(negativeSigns);
  if (hasAmax)
    opts.amax = amax;
  nvfp4::QuantizedTensor t;
  if (auto err = nvfp4::quantizeParallel(x.data, rows, cols, opts, t,
                                         numThreads()))
    failInvalid(entry, *err);
  const int64_t numel = rows * cols;
  for (int64_t i = 0; i < numel; i += 2) {
    codes.data[i] = static_cast<int8_t>(t.data[i / 2] & 0xF);
    codes.data[i + 1] = static_cast<int8_t>(t.data[i / 2] >> 4);
  }
  const int64_t blocksPerRow = cols / 16;
  for (int64_t r = 0; r < rows / blockRows; ++r)
    for (int64_t b = 0; b < blocksPerRow; ++b)
      scales.data[r * blocksPerRow + b] = static_cast<int8_t>(
          t.scales[(r * blockRows) * blocksPerRow + b]);
  return t.amax;
}

/// Writes out [rows, cols] = decodeE2M1(code) * dequantizeScale(scale,
/// tensorScale, kind) for codes [rows, cols] and scales [rows / R, cols /
/// 16]; `decodeScale` says whether `tensorScale` is an amax (0) or a decode
/// scale (1).
void _mlir_ciface_nvfp4CpuDequantize(UnrankedMemRefType<int8_t> *codesArg,
                                     UnrankedMemRefType<int8_t> *scalesArg,
                                     float tensorScale, int32_t decodeScale,
                                     int64_t blockRows,
                                     UnrankedMemRefType<float> *outArg) {
  const char *entry = "nvfp4CpuDequantize";
  const nvfp4::TensorScale kind = tensorScaleKind(entry, decodeScale);
  Dense<float> out = denseArgument(entry, "result", outArg, 2);
  const int64_t rows = out.size(0), cols = out.size(1);
  auto [codes, scales] = componentArguments(entry, codesArg, scalesArg, rows,
                                            cols, blockRows);
  float values[16];
  for (int code = 0; code < 16; ++code)
    values[code] = nvfp4::decodeE2M1(static_cast<uint8_t>(code));
  const int64_t blocksPerRow = cols / 16;
  for (int64_t r = 0; r < rows; ++r) {
    const int8_t *rowScales = scales.data + (r / blockRows) * blocksPerRow;
    for (int64_t b = 0; b < blocksPerRow; ++b) {
      const float factor = nvfp4::dequantizeScale(
          static_cast<uint8_t>(rowScales[b]), tensorScale, kind);
      const int8_t *in = codes.data + r * cols + b * 16;
      float *o = out.data + r * cols + b * 16;
      for (int i = 0; i < 16; ++i)
        o[i] = values[in[i] & 0xF] * factor;
    }
  }
}

/// The largest |x| of x [rows, cols], NaNs ignored (0 for no elements).
float _mlir_ciface_nvfp4CpuAmax(UnrankedMemRefType<float> *xArg) {
  Dense<float> x = denseArgument("nvfp4CpuAmax", "input", xArg, 2);
  const int64_t numel = x.size(0) * x.size(1);
  float amax = 0.0f;
  for (int64_t i = 0; i < numel; ++i) {
    const float a = std::fabs(x.data[i]);
    amax = a > amax ? a : amax;
  }
  return amax;
}

/// out [rows, cols] = the RHT of every 16-element group of each row of x
/// (nvfp4::applyHadamard; bit i of `negativeSigns` set: sign i is -1).
void _mlir_ciface_nvfp4CpuHadamard(UnrankedMemRefType<float> *xArg,
                                   UnrankedMemRefType<float> *outArg,
                                   int32_t negativeSigns) {
  const char *entry = "nvfp4CpuHadamard";
  Dense<float> x = denseArgument(entry, "input", xArg, 2);
  Dense<float> out = denseArgument(entry, "result", outArg, 2);
  expectShape(entry, "result", out.sizes, x.sizes);
  if (x.size(1) % 16 != 0)
    failInvalid(entry, "input: " + std::to_string(x.size(1)) +
                           " columns, not a multiple of 16");
  std::copy_n(x.data, x.size(0) * x.size(1), out.data);
  nvfp4::applyHadamard(out.data, x.size(0), x.size(1),
                       signsFromMask(negativeSigns));
}

/// out [B, M, N] = the block-scaled GEMM (nvfp4::matmul) of A [B, M, K]
/// (scales [B, M / Ra, K / 16], tensor scale aScale, an amax or, when
/// aDecodeScale is 1, a decode scale) and B [B, N, K] (likewise), plus acc
/// [B, M, N] when `hasAcc` is non-zero (one f32 addition per element).
void _mlir_ciface_nvfp4CpuMatmul(
    UnrankedMemRefType<int8_t> *aCodesArg,
    UnrankedMemRefType<int8_t> *aScalesArg, float aScale, int32_t aDecodeScale,
    int64_t aBlockRows, UnrankedMemRefType<int8_t> *bCodesArg,
    UnrankedMemRefType<int8_t> *bScalesArg, float bScale, int32_t bDecodeScale,
    int64_t bBlockRows, UnrankedMemRefType<float> *accArg, int32_t hasAcc,
    UnrankedMemRefType<float> *outArg) {
  const char *entry = "nvfp4CpuMatmul";
  const nvfp4::TensorScale aKind = tensorScaleKind(entry, aDecodeScale);
  const nvfp4::TensorScale bKind = tensorScaleKind(entry, bDecodeScale);
  Dense<int8_t> aCodes = denseArgument(entry, "lhs codes", aCodesArg, 3);
  Dense<int8_t> bCodes = denseArgument(entry, "rhs codes", bCodesArg, 3);
  const int64_t batch = aCodes.size(0), m = aCodes.size(1),
                k = aCodes.size(2), n = bCodes.size(1);
  expectShape(entry, "rhs codes", bCodes.sizes, {batch, n, k});
  expectBlockRows(entry, aBlockRows, m, k);
  expectBlockRows(entry, bBlockRows, n, k);
  Dense<int8_t> aScales = denseArgument(entry, "lhs scales", aScalesArg, 3);
  Dense<int8_t> bScales = denseArgument(entry, "rhs scales", bScalesArg, 3);
  expectShape(entry, "lhs scales", aScales.sizes,
              {batch, m / aBlockRows, k / 16});
  expectShape(entry, "rhs scales", bScales.sizes,
              {batch, n / bBlockRows, k / 16});
  Dense<float> out = denseArgument(entry, "result", outArg, 3);
  expectShape(entry, "result", out.sizes, {batch, m, n});
  Dense<float> acc;
  if (hasAcc) {
    acc = denseArgument(entry, "acc", accArg, 3);
    expectShape(entry, "acc", acc.sizes, {batch, m, n});
  }
  const int64_t aScaleCount = (m / aBlockRows) * (k / 16);
  const int64_t bScaleCount = (n / bBlockRows) * (k / 16);
  for (int64_t i = 0; i < batch; ++i) {
    nvfp4::QuantizedTensor a =
        packed(aCodes.data + i * m * k, aScales.data + i * aScaleCount, aScale,
               aKind, m, k, aBlockRows);
    nvfp4::QuantizedTensor b =
        packed(bCodes.data + i * n * k, bScales.data + i * bScaleCount, bScale,
               bKind, n, k, bBlockRows);
    if (auto err = nvfp4::checkMatmulOperands(a, b))
      failInvalid(entry, *err);
    float *c = out.data + i * m * n;
    nvfp4::matmul(a, b, c, numThreads());
    if (hasAcc) {
      const float *accIn = acc.data + i * m * n;
      for (int64_t j = 0; j < m * n; ++j)
        c[j] = c[j] + accIn[j];
    }
  }
}

/// The exact transpose of 16x16-scaled tensors (nvfp4.transpose): codes
/// [B, R, C] to [B, C, R] and the tile scales [B, R / 16, C / 16] to
/// [B, C / 16, R / 16]; every element of a 16x16 tile shares its scale, so
/// nothing is requantized.
void _mlir_ciface_nvfp4CpuTranspose(UnrankedMemRefType<int8_t> *codesArg,
                                    UnrankedMemRefType<int8_t> *scalesArg,
                                    UnrankedMemRefType<int8_t> *outCodesArg,
                                    UnrankedMemRefType<int8_t> *outScalesArg) {
  const char *entry = "nvfp4CpuTranspose";
  Dense<int8_t> codes = denseArgument(entry, "codes", codesArg, 3);
  const int64_t batch = codes.size(0), rows = codes.size(1),
                cols = codes.size(2);
  expectBlockRows(entry, 16, rows, cols);
  Dense<int8_t> scales = denseArgument(entry, "scales", scalesArg, 3);
  expectShape(entry, "scales", scales.sizes, {batch, rows / 16, cols / 16});
  Dense<int8_t> outCodes =
      denseArgument(entry, "result codes", outCodesArg, 3);
  expectShape(entry, "result codes", outCodes.sizes, {batch, cols, rows});
  Dense<int8_t> outScales =
      denseArgument(entry, "result scales", outScalesArg, 3);
  expectShape(entry, "result scales", outScales.sizes,
              {batch, cols / 16, rows / 16});
  const int64_t scaleCount = (rows / 16) * (cols / 16);
  for (int64_t i = 0; i < batch; ++i) {
    transposeBytes(codes.data + i * rows * cols,
                   outCodes.data + i * rows * cols, rows, cols);
    transposeBytes(scales.data + i * scaleCount,
                   outScales.data + i * scaleCount, rows / 16, cols / 16);
  }
}

/// Quantizes x [rows, cols] per the OCP MX specification
/// (nvfp4::mx::quantize) into codes [rows, cols], one per byte, and E8M0
/// scales [rows, cols / 32].
void _mlir_ciface_nvfp4CpuMxQuantize(UnrankedMemRefType<float> *xArg,
                                     UnrankedMemRefType<int8_t> *codesArg,
                                     UnrankedMemRefType<int8_t> *scalesArg,
                                     int32_t elementType) {
  const char *entry = "nvfp4CpuMxQuantize";
  const nvfp4::mx::ElementType type = mxElementType(entry, elementType);
  Dense<float> x = denseArgument(entry, "input", xArg, 2);
  const int64_t rows = x.size(0), cols = x.size(1);
  auto [codes, scales] =
      mxComponentArguments(entry, codesArg, scalesArg, rows, cols);
  nvfp4::mx::Tensor t;
  if (auto err = nvfp4::mx::quantize(x.data, rows, cols, type, t, numThreads()))
    failInvalid(entry, *err);
  const int64_t numel = rows * cols;
  if (nvfp4::mx::elementBits(type) == 4) {
    for (int64_t i = 0; i < numel; i += 2) {
      codes.data[i] = static_cast<int8_t>(t.data[i / 2] & 0xF);
      codes.data[i + 1] = static_cast<int8_t>(t.data[i / 2] >> 4);
    }
  } else {
    std::copy_n(t.data.begin(), numel, reinterpret_cast<uint8_t *>(codes.data));
  }
  std::copy(t.scales.begin(), t.scales.end(),
            reinterpret_cast<uint8_t *>(scales.data));
}

/// Writes out [rows, cols] = the MX dequantization (nvfp4::mx::dequantize)
/// of codes [rows, cols] and E8M0 scales [rows, cols / 32].
void _mlir_ciface_nvfp4CpuMxDequantize(UnrankedMemRefType<int8_t> *codesArg,
                                       UnrankedMemRefType<int8_t> *scalesArg,
                                       int32_t elementType,
                                       UnrankedMemRefType<float> *outArg) {
  const char *entry = "nvfp4CpuMxDequantize";
  const nvfp4::mx::ElementType type = mxElementType(entry, elementType);
  Dense<float> out = denseArgument(entry, "result", outArg, 2);
  const int64_t rows = out.size(0), cols = out.size(1);
  auto [codes, scales] =
      mxComponentArguments(entry, codesArg, scalesArg, rows, cols);
  nvfp4::mx::dequantize(packedMX(codes.data, scales.data, type, rows, cols),
                        out.data);
}

/// out [B, M, N] = the MX block-scaled GEMM (nvfp4::mx::matmul) of A [B, M,
/// K] (E8M0 scales [B, M, K / 32], element type aElementType) and B [B, N,
/// K] (likewise), plus acc [B, M, N] when `hasAcc` is non-zero (one f32
/// addition per element).
void _mlir_ciface_nvfp4CpuMxMatmul(UnrankedMemRefType<int8_t> *aCodesArg,
                                   UnrankedMemRefType<int8_t> *aScalesArg,
                                   int32_t aElementType,
                                   UnrankedMemRefType<int8_t> *bCodesArg,
                                   UnrankedMemRefType<int8_t> *bScalesArg,
                                   int32_t bElementType,
                                   UnrankedMemRefType<float> *accArg,
                                   int32_t hasAcc,
                                   UnrankedMemRefType<float> *outArg) {
  const char *entry = "nvfp4CpuMxMatmul";
  const nvfp4::mx::ElementType aType = mxElementType(entry, aElementType);
  const nvfp4::mx::ElementType bType = mxElementType(entry, bElementType);
  Dense<int8_t> aCodes = denseArgument(entry, "lhs codes", aCodesArg, 3);
  Dense<int8_t> bCodes = denseArgument(entry, "rhs codes", bCodesArg, 3);
  const int64_t batch = aCodes.size(0), m = aCodes.size(1), k = aCodes.size(2),
                n = bCodes.size(1);
  expectShape(entry, "rhs codes", bCodes.sizes, {batch, n, k});
  if (k % nvfp4::mx::kBlockSize != 0)
    failInvalid(entry, "K = " + std::to_string(k) + " is not a multiple of 32");
  const int64_t blocks = k / nvfp4::mx::kBlockSize;
  Dense<int8_t> aScales = denseArgument(entry, "lhs scales", aScalesArg, 3);
  Dense<int8_t> bScales = denseArgument(entry, "rhs scales", bScalesArg, 3);
  expectShape(entry, "lhs scales", aScales.sizes, {batch, m, blocks});
  expectShape(entry, "rhs scales", bScales.sizes, {batch, n, blocks});
  Dense<float> out = denseArgument(entry, "result", outArg, 3);
  expectShape(entry, "result", out.sizes, {batch, m, n});
  Dense<float> acc;
  if (hasAcc) {
    acc = denseArgument(entry, "acc", accArg, 3);
    expectShape(entry, "acc", acc.sizes, {batch, m, n});
  }
  for (int64_t i = 0; i < batch; ++i) {
    nvfp4::mx::Tensor a = packedMX(aCodes.data + i * m * k,
                                   aScales.data + i * m * blocks, aType, m, k);
    nvfp4::mx::Tensor b = packedMX(bCodes.data + i * n * k,
                                   bScales.data + i * n * blocks, bType, n, k);
    float *c = out.data + i * m * n;
    if (auto err = nvfp4::mx::matmul(a, b, c))
      failInvalid(entry, *err);
    if (hasAcc) {
      const float *accIn = acc.data + i * m * n;
      for (int64_t j = 0; j < m * n; ++j)
        c[j] = c[j] + accIn[j];
    }
  }
}

} // extern "C"
