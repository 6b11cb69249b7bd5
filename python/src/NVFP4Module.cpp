//===- NVFP4Module.cpp - nanobind bindings of the NVFP4 numerics ---------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The `nvfp4._nvfp4` extension: a thin layer over the reference numerics
// library (nvfp4/Numerics/Numerics.h). It takes and returns numpy arrays and
// does no arithmetic of its own; the public, documented API is the pure
// Python package `nvfp4`, which normalizes arguments (dtype, contiguity,
// shapes) before calling in here.
//
// Every array argument is a C-contiguous CPU array of the exact dtype named
// in the signature; the Python layer converts. Errors are raised as
// ValueError carrying the library's message.
//
// Sizes: every size derived from caller-supplied dimensions is computed with
// checked arithmetic (nvfp4::checkedMul, checkQuantizable, checkTensor,
// swizzledScalesSize). A size int64_t cannot count raises ValueError; a size
// that is representable but cannot be allocated raises MemoryError.
// Work is never proportional to a dimension of an empty tensor (a [2**62, 0]
// tensor is valid and costs nothing).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/MX.h"
#include "nvfp4/Numerics/Numerics.h"
#include "nvfp4/Recipe/Policy.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace {

template <typename T>
using InArray = nb::ndarray<const T, nb::c_contig, nb::device::cpu>;
template <typename T> using OutArray = nb::ndarray<nb::numpy, T>;

/// Hands `values` over to a numpy array of the given shape without copying.
template <typename T>
OutArray<T> toNumpy(std::vector<T> &&values, std::vector<size_t> shape) {
  auto *heap = new std::vector<T>(std::move(values));
  nb::capsule owner(heap, [](void *p) noexcept {
    delete static_cast<std::vector<T> *>(p);
  });
  return OutArray<T>(heap->data(), shape.size(), shape.data(), owner);
}

[[noreturn]] void fail(const std::string &message) {
  throw nb::value_error(message.c_str());
}

[[noreturn]] void failMemory(const std::string &message) {
  PyErr_SetString(PyExc_MemoryError, message.c_str());
  throw nb::python_error();
}

/// `a * b` for non-negative sizes; raises ValueError naming `what` when the
/// product does not fit in int64_t.
int64_t checkedSize(int64_t a, int64_t b, const std::string &what) {
  std::optional<int64_t> n = nvfp4::checkedMul(a, b);
  if (!n)
    fail(what + " [" + std::to_string(a) + ", " + std::to_string(b) +
         "] has more elements than int64_t can count");
  return *n;
}

/// A zero-initialized vector of `count` elements. The policy of this module:
/// a size that int64_t cannot count is a ValueError (checkedSize); a count
/// that is representable but whose bytes cannot be allocated (more than
/// PTRDIFF_MAX bytes, or the allocator refuses) is a MemoryError.
template <typename T>
std::vector<T> allocate(int64_t count, const std::string &what) {
  if (count < 0 ||
      static_cast<uint64_t>(count) >
          static_cast<uint64_t>(PTRDIFF_MAX) / sizeof(T))
    failMemory("cannot allocate " + what + " of " + std::to_string(count) +
               " elements");
  try {
    return std::vector<T>(static_cast<size_t>(count));
  } catch (const std::bad_alloc &) {
    failMemory("cannot allocate " + what + " of " + std::to_string(count) +
               " elements (" +
               std::to_string(static_cast<uint64_t>(count) * sizeof(T)) +
               " bytes)");
  }
}

nvfp4::BlockShape makeBlock(int rows, int cols) {
  nvfp4::BlockShape block;
  block.rows = rows;
  block.cols = cols;
  return block;
}

std::array<int8_t, 16> makeSigns(const std::optional<InArray<int8_t>> &signs) {
  if (!signs)
    return nvfp4::kDefaultHadamardSigns;
  if (signs->size() != 16)
    fail("signs must have 16 entries, got " + std::to_string(signs->size()));
  std::array<int8_t, 16> result;
  std::memcpy(result.data(), signs->data(), 16);
  return result;
}

std::string shapeString(int64_t rows, int64_t cols) {
  return "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
}

/// Rebuilds a library tensor from its numpy components, checking that they
/// are consistent with the logical shape. Every size is computed with
/// checked arithmetic (checkQuantizable rejects shapes whose rows * cols
/// overflows), and the result passes nvfp4::checkTensor.
nvfp4::QuantizedTensor makeTensor(const InArray<uint8_t> &data,
                                  const InArray<uint8_t> &scales, float amax,
                                  int64_t rows, int64_t cols, int blockRows,
                                  int blockCols, bool decodeScale) {
  nvfp4::BlockShape block = makeBlock(blockRows, blockCols);
  if (auto error = nvfp4::checkQuantizable(rows, cols, block))
    fail(*error);
  const int64_t n = checkedSize(rows, cols, "tensor shape");
  const int64_t expectedData = n / 2;
  const int64_t expectedScales = n / nvfp4::kBlockSize;
  if (static_cast<uint64_t>(data.size()) != static_cast<uint64_t>(expectedData))
    fail("data has " + std::to_string(data.size()) + " bytes, expected " +
         std::to_string(expectedData) + " for shape " +
         shapeString(rows, cols));
  if (static_cast<uint64_t>(scales.size()) !=
      static_cast<uint64_t>(expectedScales))
    fail("scales has " + std::to_string(scales.size()) + " bytes, expected " +
         std::to_string(expectedScales) + " for shape " +
         shapeString(rows, cols));
  nvfp4::QuantizedTensor t;
  t.rows = rows;
  t.cols = cols;
  t.block = block;
  t.data.assign(data.data(), data.data() + expectedData);
  t.scales.assign(scales.data(), scales.data() + expectedScales);
  t.amax = amax;
  t.tensorScale =
      decodeScale ? nvfp4::TensorScale::Decode : nvfp4::TensorScale::Amax;
  if (auto error = nvfp4::checkTensor(t))
    fail(*error);
  return t;
}

/// (data, scales, tensor scale, rows, cols, block rows, block cols, whether
/// the tensor scale is a decode scale): the fields of nvfp4.Tensor.
using TensorTuple = std::tuple<OutArray<uint8_t>, OutArray<uint8_t>, float,
                               int64_t, int64_t, int, int, bool>;

TensorTuple fromTensor(nvfp4::QuantizedTensor &&t) {
  size_t rows = static_cast<size_t>(t.rows);
  size_t cols = static_cast<size_t>(t.cols);
  float amax = t.amax;
  int64_t r = t.rows, c = t.cols;
  int br = t.block.rows, bc = t.block.cols;
  bool decodeScale = t.tensorScale == nvfp4::TensorScale::Decode;
  return {toNumpy(std::move(t.data), {rows, cols / 2}),
          toNumpy(std::move(t.scales), {rows, cols / 16}),
          amax,
          r,
          c,
          br,
          bc,
          decodeScale};
}

/// Upper bound on `threads`: more threads than this is a caller error, not
/// a request the library should try to honour (each is an OS thread).
constexpr int64_t kMaxThreads = 1024;

//===----------------------------------------------------------------------===//
// Bound functions
//===----------------------------------------------------------------------===//

TensorTuple quantize(const InArray<float> &x, int blockRows, int blockCols,
                     bool stochastic, uint64_t seed, uint64_t offset,
                     bool hadamard,
                     const std::optional<InArray<int8_t>> &signs,
                     std::optional<float> amax, int64_t threads) {
  if (x.ndim() != 2)
    fail("quantize expects a 2-D array, got " + std::to_string(x.ndim()) +
         " dimensions");
  if (threads < 1 || threads > kMaxThreads)
    fail("threads must be in [1, " + std::to_string(kMaxThreads) + "], got " +
         std::to_string(threads));
  int64_t rows = static_cast<int64_t>(x.shape(0));
  int64_t cols = static_cast<int64_t>(x.shape(1));
  nvfp4::QuantizeOptions opts;
  opts.block = makeBlock(blockRows, blockCols);
  opts.rounding = stochastic ? nvfp4::Rounding::Stochastic
                             : nvfp4::Rounding::NearestEven;
  opts.seed = seed;
  opts.offset = offset;
  opts.hadamard = hadamard;
  opts.signs = makeSigns(signs);
  opts.amax = amax;
  // Check first so that a bad shape never reaches the worker threads.
  if (auto error = nvfp4::checkQuantizable(rows, cols, opts.block))
    fail(*error);
  // An empty tensor with many rows (shape [2**62, 0]) would still make the
  // library walk every row; quantize the equivalent [0, 0] tensor instead
  // (same options, so the explicit-amax check still runs) and restore the
  // shape.
  const bool empty = rows == 0 || cols == 0;
  nvfp4::QuantizedTensor out;
  std::optional<std::string> error;
  {
    nb::gil_scoped_release release;
    const int64_t r = empty ? 0 : rows, c = empty ? 0 : cols;
    if (threads == 1)
      error = nvfp4::quantize(x.data(), r, c, opts, out);
    else
      error = nvfp4::quantizeParallel(x.data(), r, c, opts, out,
                                      static_cast<int>(threads));
  }
  if (error)
    fail(*error);
  out.rows = rows;
  out.cols = cols;
  return fromTensor(std::move(out));
}

OutArray<float> dequantize(const InArray<uint8_t> &data,
                           const InArray<uint8_t> &scales, float amax,
                           int64_t rows, int64_t cols, int br, int bc,
                           bool decodeScale) {
  nvfp4::QuantizedTensor t =
      makeTensor(data, scales, amax, rows, cols, br, bc, decodeScale);
  std::vector<float> out =
      allocate<float>(rows * cols, "the dequantized array"); // checked
  if (!out.empty()) {
    nb::gil_scoped_release release;
    nvfp4::dequantize(t, out.data());
  }
  return toNumpy(std::move(out),
                 {static_cast<size_t>(rows), static_cast<size_t>(cols)});
}

TensorTuple transpose2D(const InArray<uint8_t> &data,
                        const InArray<uint8_t> &scales, float amax,
                        int64_t rows, int64_t cols, int br, int bc,
                        bool decodeScale) {
  nvfp4::QuantizedTensor t =
      makeTensor(data, scales, amax, rows, cols, br, bc, decodeScale);
  if (!(t.block == makeBlock(16, 16)))
    fail("transpose requires a tensor quantized with 16x16 blocks, got " +
         std::to_string(br) + "x" + std::to_string(bc));
  if (rows % 16 != 0 || cols % 16 != 0)
    fail("transpose requires both dimensions to be multiples of 16");
  if (rows == 0 || cols == 0) {
    // Nothing to move; the library would still walk every row.
    nvfp4::QuantizedTensor r;
    r.rows = cols;
    r.cols = rows;
    r.block = t.block;
    r.amax = t.amax;
    r.tensorScale = t.tensorScale;
    return fromTensor(std::move(r));
  }
  nvfp4::QuantizedTensor r;
  {
    nb::gil_scoped_release release;
    r = nvfp4::transpose2D(t);
  }
  return fromTensor(std::move(r));
}

OutArray<float> matmul(const InArray<uint8_t> &aData,
                       const InArray<uint8_t> &aScales, float aAmax,
                       int64_t aRows, int64_t aCols, int aBr, int aBc,
                       bool aDecodeScale, const InArray<uint8_t> &bData,
                       const InArray<uint8_t> &bScales, float bAmax,
                       int64_t bRows, int64_t bCols, int bBr, int bBc,
                       bool bDecodeScale, int threads) {
  if (threads < 0)
    fail("matmul: threads must be >= 0 (0: one per hardware thread), got " +
         std::to_string(threads));
  if (aCols != bCols)
    fail("matmul: contraction dimensions differ: a is " +
         shapeString(aRows, aCols) + ", b is " + shapeString(bRows, bCols) +
         " (b is [N, K])");
  nvfp4::QuantizedTensor a =
      makeTensor(aData, aScales, aAmax, aRows, aCols, aBr, aBc, aDecodeScale);
  nvfp4::QuantizedTensor b =
      makeTensor(bData, bScales, bAmax, bRows, bCols, bBr, bBc, bDecodeScale);
  if (auto error = nvfp4::checkMatmulOperands(a, b))
    fail(*error);
  const int64_t count = checkedSize(aRows, bRows, "matmul output");
  std::vector<float> c = allocate<float>(count, "the matmul output");
  if (count != 0) {
    nb::gil_scoped_release release;
    nvfp4::matmul(a, b, c.data(), threads);
  }
  return toNumpy(std::move(c),
                 {static_cast<size_t>(aRows), static_cast<size_t>(bRows)});
}

OutArray<float> matmulF32(const InArray<float> &a, const InArray<float> &b) {
  if (a.ndim() != 2 || b.ndim() != 2)
    fail("matmul_f32 expects 2-D arrays");
  if (a.shape(1) != b.shape(1))
    fail("matmul_f32: contraction dimensions differ (b is [N, K])");
  int64_t m = a.shape(0), n = b.shape(0), k = a.shape(1);
  const int64_t count = checkedSize(m, n, "matmul_f32 output");
  std::vector<float> c = allocate<float>(count, "the matmul_f32 output");
  if (count != 0) {
    nb::gil_scoped_release release;
    nvfp4::matmulF32(a.data(), b.data(), c.data(), m, n, k);
  }
  return toNumpy(std::move(c),
                 {static_cast<size_t>(m), static_cast<size_t>(n)});
}

/// Applies the RHT in place to a fresh [rows, cols] copy made by the caller.
void hadamardInPlace(nb::ndarray<float, nb::ndim<2>, nb::c_contig,
                                 nb::device::cpu>
                         x,
                     const std::optional<InArray<int8_t>> &signs) {
  int64_t rows = x.shape(0), cols = x.shape(1);
  if (cols % 16 != 0)
    fail("hadamard: the last dimension (" + std::to_string(cols) +
         ") must be a multiple of 16");
  std::array<int8_t, 16> s = makeSigns(signs);
  if (rows == 0 || cols == 0)
    return;
  nb::gil_scoped_release release;
  nvfp4::applyHadamard(x.data(), rows, cols, s);
}

OutArray<uint8_t> encodeE2M1(const InArray<float> &x) {
  std::vector<uint8_t> out(x.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = nvfp4::encodeE2M1(x.data()[i]);
  return toNumpy(std::move(out), {out.size()});
}

OutArray<uint8_t> encodeE2M1Stochastic(const InArray<float> &x,
                                       const InArray<uint8_t> &rbits) {
  if (rbits.size() != x.size())
    fail("encode_e2m1_stochastic: rbits must have one byte per element");
  std::vector<uint8_t> out(x.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = nvfp4::encodeE2M1Stochastic(x.data()[i], rbits.data()[i]);
  return toNumpy(std::move(out), {out.size()});
}

OutArray<float> decodeE2M1(const InArray<uint8_t> &codes) {
  std::vector<float> out(codes.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = nvfp4::decodeE2M1(codes.data()[i]);
  return toNumpy(std::move(out), {out.size()});
}

OutArray<uint8_t> encodeE4M3(const InArray<float> &x) {
  std::vector<uint8_t> out(x.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = nvfp4::encodeE4M3(x.data()[i]);
  return toNumpy(std::move(out), {out.size()});
}

OutArray<float> decodeE4M3(const InArray<uint8_t> &codes) {
  std::vector<float> out(codes.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = nvfp4::decodeE4M3(codes.data()[i]);
  return toNumpy(std::move(out), {out.size()});
}

OutArray<uint8_t> stochasticRoundingBits(uint64_t seed, uint64_t offset,
                                         const InArray<uint64_t> &indices) {
  std::vector<uint8_t> out(indices.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = nvfp4::stochasticRoundingBits(seed, offset, indices.data()[i]);
  return toNumpy(std::move(out), {out.size()});
}

/// swizzledScalesSize, raising ValueError where it has no value (a negative
/// dimension, or a padded size int64_t cannot count).
int64_t swizzledSize(int64_t rows, int64_t cols, const char *what) {
  std::optional<int64_t> size = nvfp4::swizzledScalesSize(rows, cols);
  if (!size) {
    if (rows < 0 || cols < 0)
      fail(std::string(what) + ": rows and cols must be non-negative (got " +
           shapeString(rows, cols) + ")");
    fail(std::string(what) + ": the swizzled form of a " +
         shapeString(rows, cols) +
         " scale matrix has more bytes than int64_t can count");
  }
  return *size;
}

OutArray<uint8_t> swizzleScales(const InArray<uint8_t> &scales) {
  if (scales.ndim() != 2)
    fail("swizzle_scales expects a 2-D [rows, cols] array of scales");
  int64_t rows = scales.shape(0), cols = scales.shape(1);
  const int64_t size = swizzledSize(rows, cols, "swizzle_scales");
  // The tile counts of a representable padded size cannot overflow.
  const size_t rowTiles = static_cast<size_t>(rows / 128 + (rows % 128 != 0));
  const size_t colTiles = static_cast<size_t>(cols / 4 + (cols % 4 != 0));
  std::vector<uint8_t> out;
  if (size != 0) {
    // The library allocates; refuse what cannot be allocated first.
    if (static_cast<uint64_t>(size) > static_cast<uint64_t>(PTRDIFF_MAX))
      failMemory("cannot allocate the swizzled scales of " +
                 std::to_string(size) + " bytes");
    try {
      nb::gil_scoped_release release;
      out = nvfp4::swizzleScales(scales.data(), rows, cols);
    } catch (const std::bad_alloc &) {
      failMemory("cannot allocate the swizzled scales of " +
                 std::to_string(size) + " bytes");
    }
  }
  if (static_cast<int64_t>(out.size()) != size)
    fail("swizzle_scales: internal error: got " + std::to_string(out.size()) +
         " bytes, expected " + std::to_string(size));
  return toNumpy(std::move(out), {rowTiles, colTiles, 32, 4, 4});
}

OutArray<uint8_t> unswizzleScales(const InArray<uint8_t> &swizzled,
                                  int64_t rows, int64_t cols) {
  const int64_t expected = swizzledSize(rows, cols, "unswizzle_scales");
  if (static_cast<uint64_t>(swizzled.size()) !=
      static_cast<uint64_t>(expected))
    fail("unswizzle_scales: expected " + std::to_string(expected) +
         " bytes for a " + shapeString(rows, cols) +
         " scale matrix, got " + std::to_string(swizzled.size()));
  // rows * cols <= expected, so it fits; the bytes exist in `swizzled`.
  std::vector<uint8_t> out;
  if (expected != 0) {
    nb::gil_scoped_release release;
    out = nvfp4::unswizzleScales(swizzled.data(), rows, cols);
  }
  return toNumpy(std::move(out),
                 {static_cast<size_t>(rows), static_cast<size_t>(cols)});
}

int64_t swizzledScalesSize(int64_t rows, int64_t cols) {
  return swizzledSize(rows, cols, "swizzled_scales_size");
}

OutArray<float> dequantizeScales(const InArray<uint8_t> &codes, float amax) {
  std::vector<float> out(codes.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = nvfp4::dequantizeScale(codes.data()[i], amax);
  return toNumpy(std::move(out), {out.size()});
}

std::optional<std::string> checkQuantizable(int64_t rows, int64_t cols,
                                            int br, int bc) {
  return nvfp4::checkQuantizable(rows, cols, makeBlock(br, bc));
}

//===----------------------------------------------------------------------===//
// OCP MX formats
//===----------------------------------------------------------------------===//

nvfp4::mx::ElementType mxElementType(const std::string &name) {
  if (name == "e2m1")
    return nvfp4::mx::ElementType::E2M1;
  if (name == "e4m3")
    return nvfp4::mx::ElementType::E4M3;
  if (name == "e5m2")
    return nvfp4::mx::ElementType::E5M2;
  fail("unknown MX element type '" + name + "' (e2m1, e4m3, e5m2)");
}

/// Rebuilds a library MX tensor from numpy components, checking their sizes.
nvfp4::mx::Tensor makeMXTensor(const InArray<uint8_t> &data,
                               const InArray<uint8_t> &scales, int64_t rows,
                               int64_t cols, const std::string &element) {
  if (auto error = nvfp4::mx::checkQuantizable(rows, cols))
    fail(*error);
  nvfp4::mx::Tensor t;
  t.rows = rows;
  t.cols = cols;
  t.elementType = mxElementType(element);
  t.data.assign(data.data(), data.data() + data.size());
  t.scales.assign(scales.data(), scales.data() + scales.size());
  if (auto error = nvfp4::mx::checkTensor(t))
    fail(*error + " for shape " + shapeString(rows, cols));
  return t;
}

/// (data, scales) of the MX quantization of the [rows, cols] array `x`.
std::tuple<OutArray<uint8_t>, OutArray<uint8_t>>
mxQuantize(const InArray<float> &x, const std::string &element,
           int64_t threads) {
  if (x.ndim() != 2)
    fail("x must be 2-D");
  if (threads < 1 || threads > kMaxThreads)
    fail("threads must be in [1, " + std::to_string(kMaxThreads) + "], got " +
         std::to_string(threads));
  const int64_t rows = static_cast<int64_t>(x.shape(0));
  const int64_t cols = static_cast<int64_t>(x.shape(1));
  const nvfp4::mx::ElementType type = mxElementType(element);
  nvfp4::mx::Tensor t;
  std::optional<std::string> error;
  {
    nb::gil_scoped_release release;
    error = nvfp4::mx::quantize(x.data(), rows, cols, type, t,
                                static_cast<int>(threads));
  }
  if (error)
    fail(*error);
  const size_t r = static_cast<size_t>(rows), c = static_cast<size_t>(cols);
  const size_t perByte = t.elementType == nvfp4::mx::ElementType::E2M1 ? 2 : 1;
  return {toNumpy(std::move(t.data), {r, c / perByte}),
          toNumpy(std::move(t.scales), {r, c / nvfp4::mx::kBlockSize})};
}

OutArray<float> mxDequantize(const InArray<uint8_t> &data,
                             const InArray<uint8_t> &scales, int64_t rows,
                             int64_t cols, const std::string &element) {
  nvfp4::mx::Tensor t = makeMXTensor(data, scales, rows, cols, element);
  std::vector<float> out =
      allocate<float>(checkedSize(rows, cols, "MX tensor"), "the result");
  nvfp4::mx::dequantize(t, out.data());
  return toNumpy(std::move(out),
                 {static_cast<size_t>(rows), static_cast<size_t>(cols)});
}

OutArray<float>
mxMatmul(const InArray<uint8_t> &aData, const InArray<uint8_t> &aScales,
         const std::string &aElement, const InArray<uint8_t> &bData,
         const InArray<uint8_t> &bScales, const std::string &bElement,
         int64_t m, int64_t n, int64_t kA, int64_t kB) {
  nvfp4::mx::Tensor a = makeMXTensor(aData, aScales, m, kA, aElement);
  nvfp4::mx::Tensor b = makeMXTensor(bData, bScales, n, kB, bElement);
  std::vector<float> c =
      allocate<float>(checkedSize(m, n, "MX matmul result"), "the result");
  if (auto error = nvfp4::mx::matmul(a, b, c.data()))
    fail(*error);
  return toNumpy(std::move(c),
                 {static_cast<size_t>(m), static_cast<size_t>(n)});
}

template <typename Fn>
OutArray<uint8_t> encodeEach(const InArray<float> &x, Fn encode) {
  std::vector<uint8_t> codes(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    codes[i] = encode(x.data()[i]);
  return toNumpy(std::move(codes), {x.size()});
}

template <typename Fn>
OutArray<float> decodeEach(const InArray<uint8_t> &codes, Fn decode) {
  std::vector<float> values(codes.size());
  for (size_t i = 0; i < codes.size(); ++i)
    values[i] = decode(codes.data()[i]);
  return toNumpy(std::move(values), {codes.size()});
}

} // namespace

NB_MODULE(_nvfp4, m) {
  m.doc() = "Bindings of the NVFP4 reference numerics library. Use the "
            "`nvfp4` package rather than this module directly.";

  m.attr("E2M1_MAX") = nvfp4::kE2M1Max;
  m.attr("E4M3_MAX") = nvfp4::kE4M3Max;
  m.attr("BLOCK_SIZE") = nvfp4::kBlockSize;
  m.attr("DEFAULT_HADAMARD_SIGNS") = nvfp4::kDefaultHadamardSigns;
  m.attr("INV_E2M1_TIMES_E4M3_MAX") = nvfp4::kInvE2M1TimesE4M3Max;
  m.attr("INV_E2M1_TIMES_E4M3_MAX_SQUARED") =
      nvfp4::kInvE2M1TimesE4M3MaxSquared;
  m.attr("MAX_THREADS") = kMaxThreads;

  m.def("quantize", &quantize, nb::arg("x"), nb::arg("block_rows"),
        nb::arg("block_cols"), nb::arg("stochastic"), nb::arg("seed"),
        nb::arg("offset"), nb::arg("hadamard"), nb::arg("signs").none(),
        nb::arg("amax").none(), nb::arg("threads"));
  m.def("dequantize", &dequantize);
  m.def("transpose2d", &transpose2D);
  m.def("matmul", &matmul);
  m.def("matmul_f32", &matmulF32);
  m.def("hadamard_inplace", &hadamardInPlace, nb::arg("x"),
        nb::arg("signs").none());
  m.attr("MX_BLOCK_SIZE") = nvfp4::mx::kBlockSize;
  m.def("mx_quantize", &mxQuantize, nb::arg("x"), nb::arg("element"),
        nb::arg("threads") = 1);
  m.def("mx_dequantize", &mxDequantize, nb::arg("data"), nb::arg("scales"),
        nb::arg("rows"), nb::arg("cols"), nb::arg("element"));
  m.def("mx_matmul", &mxMatmul);
  m.def("mx_shared_scale", [](float amax, const std::string &element) {
    return nvfp4::mx::sharedScale(amax, mxElementType(element));
  });
  m.def("encode_e5m2", [](const InArray<float> &x) {
    return encodeEach(x, nvfp4::mx::encodeE5M2);
  });
  m.def("decode_e5m2", [](const InArray<uint8_t> &codes) {
    return decodeEach(codes, nvfp4::mx::decodeE5M2);
  });
  m.def("encode_e8m0_round_down", [](const InArray<float> &x) {
    return encodeEach(x, nvfp4::mx::encodeE8M0RoundDown);
  });
  m.def("decode_e8m0", [](const InArray<uint8_t> &codes) {
    return decodeEach(codes, nvfp4::mx::decodeE8M0);
  });
  m.def("encode_e2m1", &encodeE2M1);
  m.def("encode_e2m1_stochastic", &encodeE2M1Stochastic);
  m.def("decode_e2m1", &decodeE2M1);
  m.def("encode_e4m3", &encodeE4M3);
  m.def("decode_e4m3", &decodeE4M3);
  m.def("philox4x32", &nvfp4::philox4x32, nb::arg("seed"), nb::arg("offset"));
  m.def("stochastic_rounding_bits", &stochasticRoundingBits);
  m.def("global_encode_scale", &nvfp4::globalEncodeScale, nb::arg("amax"));
  m.def("global_decode_scale", &nvfp4::globalDecodeScale, nb::arg("amax"));
  m.def("dequantize_scale",
        static_cast<float (*)(uint8_t, float)>(&nvfp4::dequantizeScale),
        nb::arg("scale_code"), nb::arg("amax"));
  m.def("dequantize_scales", &dequantizeScales, nb::arg("scale_codes"),
        nb::arg("amax"));
  m.def("matmul_alpha",
        static_cast<float (*)(float, float)>(&nvfp4::matmulAlpha),
        nb::arg("amax_a"), nb::arg("amax_b"));
  m.def("block_scale", &nvfp4::blockScale, nb::arg("block_amax"),
        nb::arg("s_enc"));
  m.def("check_quantizable", &checkQuantizable);
  m.def("swizzled_scales_size", &swizzledScalesSize, nb::arg("rows"),
        nb::arg("cols"));
  m.def("swizzle_scales", &swizzleScales);
  m.def("unswizzle_scales", &unswizzleScales);

  // The recipe's policy (nvfp4/Recipe/Policy.h), bound as it is; the
  // enumerators carry the names the passes and nvfp4.Recipe use.
  namespace recipe = nvfp4::recipe;
  nb::enum_<recipe::Role>(m, "RecipeRole")
      .value("fprop", recipe::Role::Fprop)
      .value("dgrad", recipe::Role::Dgrad)
      .value("wgrad", recipe::Role::Wgrad);
  nb::enum_<recipe::OperandKind>(m, "RecipeOperandKind")
      .value("activation", recipe::OperandKind::Activation)
      .value("weight", recipe::OperandKind::Weight)
      .value("gradient", recipe::OperandKind::Gradient);
  nb::enum_<recipe::LayerPrecision>(m, "RecipeLayerPrecision")
      .value("fp4", recipe::LayerPrecision::FP4)
      .value("high_listed", recipe::LayerPrecision::HighListed)
      .value("high_first", recipe::LayerPrecision::HighFirst)
      .value("high_last", recipe::LayerPrecision::HighLast);
  nb::class_<recipe::Options>(m, "RecipeOptions")
      .def(nb::init<>())
      .def_rw("hadamard", &recipe::Options::hadamard)
      .def_rw("stochastic_rounding", &recipe::Options::stochasticRounding)
      .def_rw("weight_blocks_2d", &recipe::Options::weightBlocks2D)
      .def_rw("keep_first", &recipe::Options::keepFirst)
      .def_rw("keep_last", &recipe::Options::keepLast)
      .def_rw("high_layers", &recipe::Options::highLayers);
  nb::class_<recipe::OperandQuantization>(m, "RecipeOperandQuantization")
      .def_ro("block_rows", &recipe::OperandQuantization::blockRows)
      .def_ro("stochastic", &recipe::OperandQuantization::stochastic)
      .def_ro("hadamard", &recipe::OperandQuantization::hadamard);
  m.def("recipe_operand_kinds", &recipe::operandKinds, nb::arg("role"));
  m.def("recipe_quantization",
        nb::overload_cast<recipe::Role, recipe::OperandKind,
                          const recipe::Options &>(&recipe::quantization),
        nb::arg("role"), nb::arg("kind"), nb::arg("options"));
  m.def("recipe_layer_precision", &recipe::layerPrecision, nb::arg("layer"),
        nb::arg("position"), nb::arg("num_layers"), nb::arg("options"));
}
