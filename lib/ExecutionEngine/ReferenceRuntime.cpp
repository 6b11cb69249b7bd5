//===- ReferenceRuntime.cpp - Reference numerics for mlir-runner ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// libnvfp4_reference_runtime: C functions, callable from a program lowered
// with `nvfp4-to-cpu` and run by mlir-runner (`-shared-libs=`), that check
// results computed by the lowered nvfp4 ops against the reference numerics
// library bit for bit. This file holds the checks; the test data, relative
// errors and clock are in ReferenceRuntimeInputs.cpp.
//
// Every function takes unranked memrefs (declare them with
// `llvm.emit_c_interface`); components use the layout of the reference
// lowering: E2M1 codes one per byte ([.., M, K]), compact E4M3 scales
// ([.., M/R, K/16] for Rx16 blocks; [K/16] for rank-1 codes), the f32 tensor
// amax. The checks print one line
//   <what> [<shape>] ...: mismatches <n> (of <count>)
// and return the number of mismatches. Floats compare by their bits; two
// NaNs compare equal whatever their payload.
//
// Every entry point first validates its arguments: each descriptor (a
// non-negative rank and sizes, an element count and element offsets that
// fit in int64_t), the shapes of the memrefs against each other and against
// the scalar arguments (block rows 1 or 16, K a multiple of 16, the scales'
// shape implied by the codes', equal operand and result shapes), every size
// computed with nvfp4::checkedMul. An inconsistent call is reported on
// stderr as
//   nvfp4-reference-runtime: <entry point>: <what>: <actual>, expected
//   <expected>
// and then fails the way the entry point reports failure: the checks return
// -1, nvfp4RtRelativeError returns NaN (and prints FAIL), nvfp4RtStash
// returns -1; the functions without an error channel (nvfp4RtFill,
// nvfp4RtFillIds, nvfp4RtQuantizeReference, whose f32 result is an amax
// any value of which is meaningful) end the process with exit status 1. No
// element outside the memrefs' shapes is read or written. A descriptor is
// trusted to describe its own buffer (nothing in a descriptor tells how
// large the allocation behind it is).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/Numerics.h"

#include "MemRefArguments.h"
#include "ReferenceRuntimeErrors.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace nvfp4::runtime;
using namespace nvfp4::runtime::reference;

namespace {

//===----------------------------------------------------------------------===//
// Argument validation
//===----------------------------------------------------------------------===//

/// The layout of an NVFP4 tensor's components in the reference lowering:
/// codes [batch.., rows, cols] (rank 1: one row), compact scales [batch..,
/// rows / blockRows, cols / 16].
struct Layout {
  std::vector<int64_t> batchShape;
  int64_t batch = 1;     // the product of batchShape
  int64_t rows = 1;      // per batch
  int64_t cols = 0;      // K
  int64_t totalRows = 1; // batch * rows
  int64_t blockRows = 1;
};

std::string blockString(int64_t blockRows) {
  return std::to_string(blockRows) + "x16 blocks";
}

/// Validates the shapes of codes `data` and scales `scales` (arguments
/// `dataName`, `scalesName`) for `blockRows` x 16 blocks and returns their
/// layout.
std::optional<std::string>
checkLayout(const std::string &dataName, const std::vector<int64_t> &data,
            const std::string &scalesName, const std::vector<int64_t> &scales,
            int64_t blockRows, Layout &out) {
  if (blockRows != 1 && blockRows != 16)
    return dataName + ": block rows " + std::to_string(blockRows) +
           ", expected 1 or 16";
  if (data.empty())
    return dataName + ": rank 0, expected codes of rank >= 1";
  const size_t rank = data.size();
  out.blockRows = blockRows;
  out.cols = data[rank - 1];
  out.rows = rank >= 2 ? data[rank - 2] : 1;
  out.batchShape.assign(data.begin(),
                        data.begin() + (rank >= 2 ? rank - 2 : 0));
  std::optional<int64_t> batch = 1;
  for (int64_t d : out.batchShape)
    if (batch)
      batch = nvfp4::checkedMul(*batch, d);
  std::optional<int64_t> totalRows =
      batch ? nvfp4::checkedMul(*batch, out.rows) : std::nullopt;
  if (!totalRows || !nvfp4::checkedMul(*totalRows, out.cols))
    return dataName + ": shape " + bracketed(data) +
           " has more elements than int64_t can count";
  out.batch = *batch;
  out.totalRows = *totalRows;
  if (out.cols % nvfp4::kBlockSize != 0)
    return dataName + ": shape " + bracketed(data) + ": K = " +
           std::to_string(out.cols) + ", expected a multiple of 16";
  if (out.rows % blockRows != 0)
    return dataName + ": shape " + bracketed(data) + ": " +
           std::to_string(out.rows) + " rows, expected a multiple of " +
           std::to_string(blockRows) + " for " + blockString(blockRows);
  std::vector<int64_t> want = data;
  want[rank - 1] = out.cols / nvfp4::kBlockSize;
  if (rank >= 2)
    want[rank - 2] = out.rows / blockRows;
  return expectShape(scalesName, scales, want,
                     "for codes " + bracketed(data) + " with " +
                         blockString(blockRows));
}

/// The shape [batch.., rows, cols] of `layout`'s batches.
std::vector<int64_t> batchedShape(const Layout &layout, int64_t rows,
                                  int64_t cols) {
  std::vector<int64_t> s = layout.batchShape;
  s.push_back(rows);
  s.push_back(cols);
  return s;
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}

bool sameFloat(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || bitsOf(a) == bitsOf(b);
}

/// Builds the reference's QuantizedTensor of rows [r0, r0 + rows) of the
/// flattened [R, K] components (codes one per byte, compact scales) of a
/// tensor with `amax`. Fails, reading nothing, when those rows are not all
/// in `data` and `scales`, or when the result is not well formed
/// (nvfp4::checkTensor).
std::optional<std::string> makeTensor(const Flat<int8_t> &data,
                                      const Flat<int8_t> &scales, float amax,
                                      int64_t blockRows, int64_t r0,
                                      int64_t rows, nvfp4::QuantizedTensor &t) {
  const int64_t k = data.inner(), kb = k / nvfp4::kBlockSize;
  std::optional<int64_t> end = checkedAdd(r0, rows);
  std::optional<int64_t> numel = nvfp4::checkedMul(rows, k);
  std::optional<int64_t> dataEnd =
      end ? nvfp4::checkedMul(*end, k) : std::nullopt;
  std::optional<int64_t> scalesEnd =
      end && blockRows > 0
          ? nvfp4::checkedMul((*end + blockRows - 1) / blockRows, kb)
          : std::nullopt;
  if (r0 < 0 || rows < 0 || k < 0 || !numel || !dataEnd || !scalesEnd ||
      *dataEnd > static_cast<int64_t>(data.values.size()) ||
      *scalesEnd > static_cast<int64_t>(scales.values.size()))
    return "rows [" + std::to_string(r0) + ", " + std::to_string(r0) + " + " +
           std::to_string(rows) + ") of K = " + std::to_string(k) +
           " lie outside the " + std::to_string(data.values.size()) +
           " codes / " + std::to_string(scales.values.size()) + " scales";
  t = nvfp4::QuantizedTensor();
  t.rows = rows;
  t.cols = k;
  t.block = {static_cast<int>(blockRows), 16};
  t.amax = amax;
  t.data.assign(static_cast<size_t>(*numel / 2), 0);
  t.scales.assign(static_cast<size_t>(rows * kb), 0);
  for (int64_t i = 0; i < *numel; ++i) {
    uint8_t code = static_cast<uint8_t>(data.values[r0 * k + i]) & 0xF;
    t.data[i / 2] |= static_cast<uint8_t>(i % 2 ? code << 4 : code);
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < kb; ++c)
      t.scales[r * kb + c] =
          static_cast<uint8_t>(scales.values[((r0 + r) / blockRows) * kb + c]);
  return nvfp4::checkTensor(t);
}

uint8_t codeAt(const nvfp4::QuantizedTensor &t, int64_t i) {
  uint8_t byte = t.data[i / 2];
  return i % 2 ? byte >> 4 : byte & 0xF;
}

/// Compares components (and their amax) against a reference tensor covering
/// all rows. Fails, comparing nothing, when the components hold fewer
/// elements than the reference implies.
std::optional<std::string>
compareComponents(const nvfp4::QuantizedTensor &ref, const Flat<int8_t> &data,
                  const Flat<int8_t> &scales, float amax, int64_t blockRows,
                  int64_t &mismatches, int64_t &count) {
  const int64_t k = ref.cols, kb = k / nvfp4::kBlockSize;
  std::optional<int64_t> numel = nvfp4::checkedMul(ref.rows, k);
  std::optional<int64_t> numScales =
      blockRows > 0 && ref.rows >= 0
          ? nvfp4::checkedMul((ref.rows + blockRows - 1) / blockRows, kb)
          : std::nullopt;
  if (!numel || !numScales ||
      *numel > static_cast<int64_t>(data.values.size()) ||
      *numScales > static_cast<int64_t>(scales.values.size()))
    return "the reference has " + std::to_string(ref.rows) + "x" +
           std::to_string(k) + " codes with " + blockString(blockRows) +
           ", the components " + std::to_string(data.values.size()) +
           " codes and " + std::to_string(scales.values.size()) + " scales";
  int64_t shown = 0;
  mismatches = 0;
  for (int64_t i = 0; i < *numel; ++i) {
    uint8_t got = static_cast<uint8_t>(data.values[i]);
    if (got != codeAt(ref, i)) {
      if (shown++ < 4)
        std::printf("  code %" PRId64 ": got 0x%x, expected 0x%x\n", i, got,
                    codeAt(ref, i));
      ++mismatches;
    }
  }
  for (int64_t r = 0; r < ref.rows; r += blockRows)
    for (int64_t c = 0; c < kb; ++c) {
      uint8_t got =
          static_cast<uint8_t>(scales.values[(r / blockRows) * kb + c]);
      uint8_t want = ref.scales[r * kb + c];
      if (got != want) {
        if (shown++ < 8)
          std::printf("  scale (%" PRId64 ", %" PRId64
                      "): got 0x%x, expected 0x%x\n",
                      r / blockRows, c, got, want);
        ++mismatches;
      }
    }
  if (!sameFloat(amax, ref.amax)) {
    std::printf("  amax: got %a, expected %a\n", amax, ref.amax);
    ++mismatches;
  }
  count = *numel + *numScales + 1;
  return std::nullopt;
}

std::array<int8_t, 16> signsFromMask(int32_t mask) {
  if (mask < 0)
    return nvfp4::kDefaultHadamardSigns;
  std::array<int8_t, 16> s;
  for (int j = 0; j < 16; ++j)
    s[j] = (mask >> j) & 1 ? -1 : 1;
  return s;
}

/// The shape of memref argument `name`, validated by viewOf.
template <typename T>
std::optional<std::string> shapeOf(const char *name, UnrankedMemRefType<T> *m,
                                   std::vector<int64_t> &shape) {
  View<T> v;
  if (auto err = viewOf(name, m, v))
    return err;
  shape = v.sizes;
  return std::nullopt;
}

/// Checks that `shape` has at least `rank` dimensions.
std::optional<std::string> expectRankAtLeast(const std::string &name,
                                             const std::vector<int64_t> &shape,
                                             size_t rank) {
  if (shape.size() >= rank)
    return std::nullopt;
  return name + ": shape " + bracketed(shape) + " of rank " +
         std::to_string(shape.size()) + ", expected rank >= " +
         std::to_string(rank);
}

/// Checks that `shape` has rank >= 1 and a last dimension that splits into
/// 16-element groups (the operand of the Hadamard transform).
std::optional<std::string> expectGroupsOf16(const std::string &name,
                                            const std::vector<int64_t> &shape) {
  if (auto err = expectRankAtLeast(name, shape, 1))
    return err;
  if (shape.back() % 16 != 0)
    return name + ": shape " + bracketed(shape) + ": last dimension " +
           std::to_string(shape.back()) + ", expected a multiple of 16";
  return std::nullopt;
}

/// True when `v`'s strides are those of a contiguous row-major buffer.
template <typename T> bool isContiguous(const View<T> &v) {
  int64_t expected = 1;
  for (size_t d = v.sizes.size(); d-- > 0;) {
    if (v.sizes[d] != 1 && v.strides[d] != expected)
      return false;
    expected *= v.sizes[d]; // fits: the element count does
  }
  return true;
}

} // namespace

extern "C" {

/// Checks quantize(x) (components `data`, `scales`, `amax`) against
/// nvfp4::quantize. `hadamardSigns`: -2 no RHT, -1 TE's signs, otherwise a
/// mask whose bit j set means sign j is -1. `explicitAmax` < 0 means
/// "computed". `data` must have the shape of `x`, `scales` the compact
/// shape for `blockRows` (1 or 16).
int64_t _mlir_ciface_nvfp4RtCheckQuantize(UnrankedMemRefType<float> *x,
                                          UnrankedMemRefType<int8_t> *data,
                                          UnrankedMemRefType<int8_t> *scales,
                                          float amax, int64_t blockRows,
                                          int32_t stochastic, int64_t seed,
                                          int64_t offset, int32_t hadamardSigns,
                                          float explicitAmax) {
  const char *entry = "nvfp4RtCheckQuantize";
  std::vector<int64_t> xShape, dShape, sShape;
  Layout layout;
  std::optional<std::string> err = shapeOf("x", x, xShape);
  if (!err)
    err = shapeOf("codes", data, dShape);
  if (!err)
    err = shapeOf("scales", scales, sShape);
  if (!err)
    err = checkLayout("codes", dShape, "scales", sShape, blockRows, layout);
  if (!err)
    err = expectShape("codes", dShape, xShape, "(the shape of x)");
  Flat<float> fx;
  Flat<int8_t> fd, fs;
  if (!err)
    err = flatten("x", x, fx);
  if (!err)
    err = flatten("codes", data, fd);
  if (!err)
    err = flatten("scales", scales, fs);
  if (err) {
    reportInvalid(entry, *err);
    return kInvalidCall;
  }
  nvfp4::QuantizeOptions opts;
  opts.block = {static_cast<int>(blockRows), 16};
  opts.rounding =
      stochastic ? nvfp4::Rounding::Stochastic : nvfp4::Rounding::NearestEven;
  opts.seed = static_cast<uint64_t>(seed);
  opts.offset = static_cast<uint64_t>(offset);
  opts.hadamard = hadamardSigns != -2;
  opts.signs = signsFromMask(hadamardSigns);
  if (explicitAmax >= 0.0f)
    opts.amax = explicitAmax;
  nvfp4::QuantizedTensor ref;
  if (auto qerr = nvfp4::quantize(fx.values.data(), layout.totalRows,
                                  layout.cols, opts, ref)) {
    reportInvalid(entry, "reference quantize: " + *qerr);
    return kInvalidCall;
  }
  int64_t mismatches = 0, count = 0;
  if (auto cerr =
          compareComponents(ref, fd, fs, amax, blockRows, mismatches, count)) {
    reportInvalid(entry, *cerr);
    return kInvalidCall;
  }
  std::printf("quantize [%s] %" PRId64 "x16 %s%s: mismatches %" PRId64
              " (of %" PRId64 ")\n",
              shapeString(fx.shape).c_str(), blockRows,
              stochastic ? "rs" : "rn", opts.hadamard ? " hadamard" : "",
              mismatches, count);
  std::fflush(stdout);
  return mismatches;
}

/// Checks dequantize(data, scales, amax) == `out` (f32) bit for bit. `out`
/// must have the shape of `data`, `scales` the compact shape for
/// `blockRows`.
int64_t _mlir_ciface_nvfp4RtCheckDequantize(UnrankedMemRefType<int8_t> *data,
                                            UnrankedMemRefType<int8_t> *scales,
                                            float amax, int64_t blockRows,
                                            UnrankedMemRefType<float> *out) {
  const char *entry = "nvfp4RtCheckDequantize";
  std::vector<int64_t> dShape, sShape, oShape;
  Layout layout;
  std::optional<std::string> err = shapeOf("codes", data, dShape);
  if (!err)
    err = shapeOf("scales", scales, sShape);
  if (!err)
    err = shapeOf("out", out, oShape);
  if (!err)
    err = checkLayout("codes", dShape, "scales", sShape, blockRows, layout);
  if (!err)
    err = expectShape("out", oShape, dShape, "(the shape of the codes)");
  Flat<int8_t> fd, fs;
  Flat<float> fo;
  if (!err)
    err = flatten("codes", data, fd);
  if (!err)
    err = flatten("scales", scales, fs);
  if (!err)
    err = flatten("out", out, fo);
  nvfp4::QuantizedTensor t;
  if (!err)
    err = makeTensor(fd, fs, amax, blockRows, 0, layout.totalRows, t);
  if (err) {
    reportInvalid(entry, *err);
    return kInvalidCall;
  }
  std::vector<float> ref(fd.values.size());
  nvfp4::dequantize(t, ref.data());
  int64_t mismatches = 0;
  for (size_t i = 0; i < ref.size(); ++i)
    if (!sameFloat(ref[i], fo.values[i]))
      ++mismatches;
  std::printf("dequantize [%s] %" PRId64 "x16: mismatches %" PRId64
              " (of %zu)\n",
              shapeString(fd.shape).c_str(), blockRows, mismatches, ref.size());
  std::fflush(stdout);
  return mismatches;
}

/// Checks C = matmul(A, B) (+ acc when `hasAcc`) against nvfp4::matmul,
/// batch by batch for operands of rank 3 or more (equal leading
/// dimensions); the accumulator is added to the reference result in f32.
/// `out` (and `acc` when used) must be [batch.., M, N].
int64_t _mlir_ciface_nvfp4RtCheckMatmul(
    UnrankedMemRefType<int8_t> *aData, UnrankedMemRefType<int8_t> *aScales,
    float aAmax, int64_t aBlockRows, UnrankedMemRefType<int8_t> *bData,
    UnrankedMemRefType<int8_t> *bScales, float bAmax, int64_t bBlockRows,
    int32_t hasAcc, UnrankedMemRefType<float> *acc,
    UnrankedMemRefType<float> *out) {
  const char *entry = "nvfp4RtCheckMatmul";
  std::vector<int64_t> adShape, asShape, bdShape, bsShape, oShape, cShape;
  Layout la, lb;
  std::optional<std::string> err = shapeOf("A codes", aData, adShape);
  if (!err)
    err = shapeOf("A scales", aScales, asShape);
  if (!err)
    err = shapeOf("B codes", bData, bdShape);
  if (!err)
    err = shapeOf("B scales", bScales, bsShape);
  if (!err)
    err = shapeOf("result", out, oShape);
  if (!err && hasAcc)
    err = shapeOf("acc", acc, cShape);
  if (!err)
    err = expectRankAtLeast("A codes", adShape, 2);
  if (!err)
    err = checkLayout("A codes", adShape, "A scales", asShape, aBlockRows, la);
  if (!err)
    err = checkLayout("B codes", bdShape, "B scales", bsShape, bBlockRows, lb);
  if (!err) {
    // B: the batch dimensions of A, its own N, A's K.
    std::vector<int64_t> want = adShape;
    want[want.size() - 2] = bdShape.size() >= 2 ? lb.rows : 1;
    err = expectShape("B codes", bdShape, want,
                      "(A's batch dimensions and K, A codes " +
                          bracketed(adShape) + ")");
  }
  std::vector<int64_t> cWant;
  if (!err) {
    cWant = batchedShape(la, la.rows, lb.rows);
    if (!nvfp4::checkedMul(la.totalRows, lb.rows))
      err = "result: " + bracketed(cWant) +
            " has more elements than int64_t can count";
  }
  const std::string because = "(batch.. x M x N of A " + bracketed(adShape) +
                              " and B " + bracketed(bdShape) + ")";
  if (!err)
    err = expectShape("result", oShape, cWant, because);
  if (!err && hasAcc)
    err = expectShape("acc", cShape, cWant, because);
  Flat<int8_t> ad, as, bd, bs;
  Flat<float> fo, fa;
  if (!err)
    err = flatten("A codes", aData, ad);
  if (!err)
    err = flatten("A scales", aScales, as);
  if (!err)
    err = flatten("B codes", bData, bd);
  if (!err)
    err = flatten("B scales", bScales, bs);
  if (!err)
    err = flatten("result", out, fo);
  if (!err && hasAcc)
    err = flatten("acc", acc, fa);
  if (err) {
    reportInvalid(entry, *err);
    return kInvalidCall;
  }
  const int64_t batch = la.batch, m = la.rows, n = lb.rows;
  int64_t mismatches = 0, shown = 0;
  double maxDiff = 0.0, maxRef = 0.0;
  std::vector<float> c(static_cast<size_t>(m * n)); // checked above
  for (int64_t bi = 0; bi < batch; ++bi) {
    nvfp4::QuantizedTensor a, b;
    std::optional<std::string> terr =
        makeTensor(ad, as, aAmax, aBlockRows, bi * m, m, a);
    if (!terr)
      terr = makeTensor(bd, bs, bAmax, bBlockRows, bi * n, n, b);
    if (!terr)
      terr = nvfp4::checkMatmulOperands(a, b);
    if (terr) {
      reportInvalid(entry, "batch " + std::to_string(bi) + ": " + *terr);
      return kInvalidCall;
    }
    nvfp4::matmul(a, b, c.data());
    for (int64_t i = 0; i < m * n; ++i) {
      float want = c[i];
      if (hasAcc)
        want = want + fa.values[bi * m * n + i];
      float got = fo.values[bi * m * n + i];
      maxDiff = std::max(maxDiff, std::fabs(static_cast<double>(got) - want));
      maxRef = std::max(maxRef, std::fabs(static_cast<double>(want)));
      if (!sameFloat(got, want)) {
        if (shown++ < 4)
          std::printf("  C[%" PRId64 "]: got %a, expected %a\n", bi * m * n + i,
                      got, want);
        ++mismatches;
      }
    }
  }
  std::printf("matmul [%s] x [%s]%s: mismatches %" PRId64
              " (of %zu), max |error| / max |C| %.2e\n",
              shapeString(ad.shape).c_str(), shapeString(bd.shape).c_str(),
              hasAcc ? " acc" : "", mismatches, fo.values.size(),
              maxRef > 0.0 ? maxDiff / maxRef : maxDiff);
  std::fflush(stdout);
  return mismatches;
}

/// Checks y == hadamard(x) (f32) bit for bit; `signMask` as in
/// nvfp4RtCheckQuantize. The last dimension of `x` must be a multiple of
/// 16, `y` must have the shape of `x`.
int64_t _mlir_ciface_nvfp4RtCheckHadamard(UnrankedMemRefType<float> *x,
                                          UnrankedMemRefType<float> *y,
                                          int32_t signMask) {
  const char *entry = "nvfp4RtCheckHadamard";
  std::vector<int64_t> xShape, yShape;
  std::optional<std::string> err = shapeOf("x", x, xShape);
  if (!err)
    err = shapeOf("y", y, yShape);
  if (!err)
    err = expectGroupsOf16("x", xShape);
  if (!err)
    err = expectShape("y", yShape, xShape, "(the shape of x)");
  Flat<float> fx, fy;
  if (!err)
    err = flatten("x", x, fx);
  if (!err)
    err = flatten("y", y, fy);
  if (err) {
    reportInvalid(entry, *err);
    return kInvalidCall;
  }
  std::vector<float> ref = fx.values;
  nvfp4::applyHadamard(ref.data(), fx.rows(), fx.inner(),
                       signsFromMask(signMask));
  int64_t mismatches = 0;
  for (size_t i = 0; i < ref.size(); ++i)
    if (!sameFloat(ref[i], fy.values[i]))
      ++mismatches;
  std::printf("hadamard [%s]: mismatches %" PRId64 " (of %zu)\n",
              shapeString(fx.shape).c_str(), mismatches, ref.size());
  std::fflush(stdout);
  return mismatches;
}

/// Checks `amax` == max |x| over the non-NaN elements of `x` (+0 when there
/// are none) bit for bit. The expected value is computed here with
/// std::fabs and std::isnan, independently of the reference library and of
/// the lowerings.
int64_t _mlir_ciface_nvfp4RtCheckAmax(UnrankedMemRefType<float> *x,
                                      float amax) {
  const char *entry = "nvfp4RtCheckAmax";
  Flat<float> fx;
  if (auto err = flatten("x", x, fx)) {
    reportInvalid(entry, *err);
    return kInvalidCall;
  }
  float expected = 0.0f;
  for (float v : fx.values)
    if (!std::isnan(v))
      expected = std::max(expected, std::fabs(v));
  int64_t mismatches = bitsOf(amax) == bitsOf(expected) ? 0 : 1;
  if (mismatches)
    std::printf("  amax: got %a, expected %a\n", amax, expected);
  std::printf("amax [%s]: mismatches %" PRId64 " (of 1)\n",
              shapeString(fx.shape).c_str(), mismatches);
  std::fflush(stdout);
  return mismatches;
}

/// Checks that (outData, outScales) is nvfp4::transpose2D of the 16x16
/// tensor (inData, inScales) [batch.., M, K], batch by batch: `outData`
/// must be [batch.., K, M], the scales compact for 16x16 blocks.
int64_t
_mlir_ciface_nvfp4RtCheckTranspose(UnrankedMemRefType<int8_t> *inData,
                                   UnrankedMemRefType<int8_t> *inScales,
                                   UnrankedMemRefType<int8_t> *outData,
                                   UnrankedMemRefType<int8_t> *outScales) {
  const char *entry = "nvfp4RtCheckTranspose";
  std::vector<int64_t> idShape, isShape, odShape, osShape;
  Layout li, lo;
  std::optional<std::string> err = shapeOf("input codes", inData, idShape);
  if (!err)
    err = shapeOf("input scales", inScales, isShape);
  if (!err)
    err = shapeOf("output codes", outData, odShape);
  if (!err)
    err = shapeOf("output scales", outScales, osShape);
  if (!err)
    err = expectRankAtLeast("input codes", idShape, 2);
  if (!err)
    err = checkLayout("input codes", idShape, "input scales", isShape, 16, li);
  if (!err)
    err = expectShape("output codes", odShape,
                      batchedShape(li, li.cols, li.rows),
                      "(the transpose of the input codes " +
                          bracketed(idShape) + ")");
  if (!err)
    err = checkLayout("output codes", odShape, "output scales", osShape, 16,
                      lo);
  Flat<int8_t> id, is, od, os;
  if (!err)
    err = flatten("input codes", inData, id);
  if (!err)
    err = flatten("input scales", inScales, is);
  if (!err)
    err = flatten("output codes", outData, od);
  if (!err)
    err = flatten("output scales", outScales, os);
  if (err) {
    reportInvalid(entry, *err);
    return kInvalidCall;
  }
  const int64_t batch = li.batch, m = li.rows, k = li.cols;
  const int64_t tileScales = (k / 16) * (m / 16);
  int64_t mismatches = 0, count = 0;
  for (int64_t bi = 0; bi < batch; ++bi) {
    nvfp4::QuantizedTensor t;
    if (auto terr = makeTensor(id, is, 1.0f, 16, bi * m, m, t)) {
      reportInvalid(entry, "batch " + std::to_string(bi) + ": " + *terr);
      return kInvalidCall;
    }
    nvfp4::QuantizedTensor ref = nvfp4::transpose2D(t);
    Flat<int8_t> odSlice, osSlice;
    odSlice.shape = {k, m};
    odSlice.values.assign(od.values.begin() + bi * m * k,
                          od.values.begin() + (bi + 1) * m * k);
    osSlice.shape = {k / 16, m / 16};
    osSlice.values.assign(os.values.begin() + bi * tileScales,
                          os.values.begin() + (bi + 1) * tileScales);
    int64_t n = 0, c = 0;
    if (auto cerr = compareComponents(ref, odSlice, osSlice, 1.0f, 16, n, c)) {
      reportInvalid(entry, "batch " + std::to_string(bi) + ": " + *cerr);
      return kInvalidCall;
    }
    mismatches += n;
    count += c - 1;
  }
  std::printf("transpose [%s]: mismatches %" PRId64 " (of %" PRId64 ")\n",
              shapeString(id.shape).c_str(), mismatches, count);
  std::fflush(stdout);
  return mismatches;
}

/// Checks rescale: (out*) == quantize(dequantize(in*)) with the given
/// options (`explicitAmax` < 0: computed). The output codes must have the
/// shape of the input codes, each scales the compact shape for its block
/// rows.
int64_t _mlir_ciface_nvfp4RtCheckRescale(
    UnrankedMemRefType<int8_t> *inData, UnrankedMemRefType<int8_t> *inScales,
    float inAmax, int64_t inBlockRows, UnrankedMemRefType<int8_t> *outData,
    UnrankedMemRefType<int8_t> *outScales, float outAmax, int64_t outBlockRows,
    int32_t stochastic, int64_t seed, int64_t offset, float explicitAmax) {
  const char *entry = "nvfp4RtCheckRescale";
  std::vector<int64_t> idShape, isShape, odShape, osShape;
  Layout li, lo;
  std::optional<std::string> err = shapeOf("input codes", inData, idShape);
  if (!err)
    err = shapeOf("input scales", inScales, isShape);
  if (!err)
    err = shapeOf("output codes", outData, odShape);
  if (!err)
    err = shapeOf("output scales", outScales, osShape);
  if (!err)
    err = checkLayout("input codes", idShape, "input scales", isShape,
                      inBlockRows, li);
  if (!err)
    err = expectShape("output codes", odShape, idShape,
                      "(the shape of the input codes)");
  if (!err)
    err = checkLayout("output codes", odShape, "output scales", osShape,
                      outBlockRows, lo);
  Flat<int8_t> id, is, od, os;
  if (!err)
    err = flatten("input codes", inData, id);
  if (!err)
    err = flatten("input scales", inScales, is);
  if (!err)
    err = flatten("output codes", outData, od);
  if (!err)
    err = flatten("output scales", outScales, os);
  nvfp4::QuantizedTensor t;
  if (!err)
    err = makeTensor(id, is, inAmax, inBlockRows, 0, li.totalRows, t);
  if (err) {
    reportInvalid(entry, *err);
    return kInvalidCall;
  }
  std::vector<float> x(id.values.size());
  nvfp4::dequantize(t, x.data());
  nvfp4::QuantizeOptions opts;
  opts.block = {static_cast<int>(outBlockRows), 16};
  opts.rounding =
      stochastic ? nvfp4::Rounding::Stochastic : nvfp4::Rounding::NearestEven;
  opts.seed = static_cast<uint64_t>(seed);
  opts.offset = static_cast<uint64_t>(offset);
  if (explicitAmax >= 0.0f)
    opts.amax = explicitAmax;
  nvfp4::QuantizedTensor ref;
  if (auto qerr = nvfp4::quantize(x.data(), li.totalRows, li.cols, opts, ref)) {
    reportInvalid(entry, "reference quantize: " + *qerr);
    return kInvalidCall;
  }
  int64_t mismatches = 0, count = 0;
  if (auto cerr = compareComponents(ref, od, os, outAmax, outBlockRows,
                                    mismatches, count)) {
    reportInvalid(entry, *cerr);
    return kInvalidCall;
  }
  std::printf("rescale [%s] %" PRId64 "x16 -> %" PRId64
              "x16 %s: mismatches %" PRId64 " (of %" PRId64 ")\n",
              shapeString(id.shape).c_str(), inBlockRows, outBlockRows,
              stochastic ? "rs" : "rn", mismatches, count);
  std::fflush(stdout);
  return mismatches;
}

/// Quantizes `x` with the reference library into the components `data`
/// (the shape of `x`) and `scales` (compact for `blockRows`) and returns the
/// tensor amax (1x16 or 16x16, round to nearest, no RHT, `numThreads`
/// threads): the baseline of the quantize benchmark. Inconsistent
/// arguments end the process (every f32 result is a meaningful amax).
float _mlir_ciface_nvfp4RtQuantizeReference(UnrankedMemRefType<float> *x,
                                            UnrankedMemRefType<int8_t> *data,
                                            UnrankedMemRefType<int8_t> *scales,
                                            int64_t blockRows,
                                            int32_t numThreads) {
  const char *entry = "nvfp4RtQuantizeReference";
  View<float> xv;
  View<int8_t> dv, sv;
  Layout layout;
  std::optional<std::string> err = viewOf("x", x, xv);
  if (!err)
    err = viewOf("codes", data, dv);
  if (!err)
    err = viewOf("scales", scales, sv);
  if (!err)
    err = checkLayout("codes", dv.sizes, "scales", sv.sizes, blockRows, layout);
  if (!err)
    err = expectShape("codes", dv.sizes, xv.sizes, "(the shape of x)");
  if (err)
    failInvalid(entry, *err);
  nvfp4::QuantizeOptions opts;
  opts.block = {static_cast<int>(blockRows), 16};
  // Benchmarks pass contiguous buffers: quantize in place from the data
  // (other layouts are copied first).
  std::vector<float> copy;
  const float *input = xv.numel == 0 ? nullptr : xv.data + xv.offset;
  if (xv.numel != 0 && !isContiguous(xv)) {
    copy.reserve(static_cast<size_t>(xv.numel));
    forEachOffset(xv, [&](int64_t o) { copy.push_back(xv.data[o]); });
    input = copy.data();
  }
  nvfp4::QuantizedTensor ref;
  std::optional<std::string> qerr =
      numThreads > 1
          ? nvfp4::quantizeParallel(input, layout.totalRows, layout.cols, opts,
                                    ref, numThreads)
          : nvfp4::quantize(input, layout.totalRows, layout.cols, opts, ref);
  if (qerr)
    failInvalid(entry, "reference quantize: " + *qerr);
  const int64_t kb = layout.cols / 16;
  std::vector<int8_t> codes(static_cast<size_t>(xv.numel));
  for (int64_t i = 0; i < xv.numel; ++i)
    codes[i] = static_cast<int8_t>(codeAt(ref, i));
  store(dv, codes);
  std::vector<int8_t> s;
  s.reserve(static_cast<size_t>(sv.numel));
  for (int64_t r = 0; r < ref.rows; r += blockRows)
    for (int64_t c = 0; c < kb; ++c)
      s.push_back(static_cast<int8_t>(ref.scales[r * kb + c]));
  if (static_cast<int64_t>(s.size()) != sv.numel)
    failInvalid(entry, "scales: " + std::to_string(sv.numel) +
                           " elements, expected " + std::to_string(s.size()));
  store(sv, s);
  return ref.amax;
}

} // extern "C"
