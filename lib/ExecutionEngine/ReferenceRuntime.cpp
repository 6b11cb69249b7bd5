//===- ReferenceRuntime.cpp - Reference numerics for mlir-runner ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// libnvfp4_reference_runtime: C functions, callable from a program lowered
// with `nvfp4-to-cpu` and run by mlir-runner (`-shared-libs=`), that fill
// tensors with deterministic test data and check results computed by the
// lowered nvfp4 ops against the reference numerics library bit for bit.
//
// Every function takes unranked memrefs (declare them with
// `llvm.emit_c_interface`); components use the layout of the reference
// lowering: E2M1 codes one per byte, compact E4M3 scales ([.., M/16, K/16]
// for 16x16 blocks), f32 decode scale. The checks print one line
//   <what> [<shape>] ...: mismatches <n> (of <count>)
// and return the number of mismatches. Floats compare by their bits; two
// NaNs compare equal whatever their payload.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/Numerics.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// The elements of a memref in row-major order, and its shape.
template <typename T> struct Flat {
  std::vector<int64_t> shape;
  std::vector<T> values;
  int64_t inner() const { return shape.empty() ? 1 : shape.back(); }
  int64_t rows() const {
    int64_t n = inner();
    return n == 0 ? 0 : static_cast<int64_t>(values.size()) / n;
  }
};

template <typename T> Flat<T> flatten(UnrankedMemRefType<T> *m) {
  DynamicMemRefType<T> d(*m);
  Flat<T> f;
  f.shape.assign(d.sizes, d.sizes + d.rank);
  for (auto it = d.begin(), e = d.end(); it != e; ++it)
    f.values.push_back(*it);
  return f;
}

template <typename T>
void store(UnrankedMemRefType<T> *m, const std::vector<T> &values) {
  DynamicMemRefType<T> d(*m);
  size_t i = 0;
  for (auto it = d.begin(), e = d.end(); it != e && i < values.size(); ++it)
    *it = values[i++];
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}

bool sameFloat(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || bitsOf(a) == bitsOf(b);
}

/// Builds the reference's QuantizedTensor of rows [r0, r0 + rows) of the
/// flattened [R, K] components (codes one per byte, compact scales).
nvfp4::QuantizedTensor makeTensor(const Flat<int8_t> &data,
                                  const Flat<int8_t> &scales, float g,
                                  int64_t blockRows, int64_t r0, int64_t rows) {
  nvfp4::QuantizedTensor t;
  const int64_t k = data.inner(), kb = k / 16;
  t.rows = rows;
  t.cols = k;
  t.block = {static_cast<int>(blockRows), 16};
  t.globalDecodeScale = g;
  t.data.assign(static_cast<size_t>(rows * k / 2), 0);
  t.scales.assign(static_cast<size_t>(rows * kb), 0);
  for (int64_t i = 0; i < rows * k; ++i) {
    uint8_t code = static_cast<uint8_t>(data.values[r0 * k + i]) & 0xF;
    t.data[i / 2] |= static_cast<uint8_t>(i % 2 ? code << 4 : code);
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < kb; ++c)
      t.scales[r * kb + c] =
          static_cast<uint8_t>(scales.values[((r0 + r) / blockRows) * kb + c]);
  return t;
}

uint8_t codeAt(const nvfp4::QuantizedTensor &t, int64_t i) {
  uint8_t byte = t.data[i / 2];
  return i % 2 ? byte >> 4 : byte & 0xF;
}

/// Compares components against a reference tensor covering all rows.
int64_t compareComponents(const nvfp4::QuantizedTensor &ref,
                          const Flat<int8_t> &data, const Flat<int8_t> &scales,
                          float g, int64_t blockRows, int64_t &count) {
  int64_t mismatches = 0, shown = 0;
  const int64_t k = ref.cols, kb = k / 16;
  for (int64_t i = 0; i < ref.rows * k; ++i) {
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
  if (!sameFloat(g, ref.globalDecodeScale)) {
    std::printf("  decode scale: got %a, expected %a\n", g,
                ref.globalDecodeScale);
    ++mismatches;
  }
  count = ref.rows * k + ref.rows / blockRows * kb + 1;
  return mismatches;
}

std::array<int8_t, 16> signsFromMask(int32_t mask) {
  if (mask < 0)
    return nvfp4::kDefaultHadamardSigns;
  std::array<int8_t, 16> s;
  for (int j = 0; j < 16; ++j)
    s[j] = (mask >> j) & 1 ? -1 : 1;
  return s;
}

/// SplitMix64: a deterministic, portable generator for test data.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 24 random bits.
  float unit() { return static_cast<float>(next() >> 40) * 0x1p-24f; }
  uint64_t below(uint64_t n) { return next() % n; }
};

float makeValue(SplitMix64 &rng, int32_t mode, int64_t index,
                float blockScale) {
  if (mode == 1) {
    // Rounding ties: the first element of each block is +-6 * 2^j, the rest
    // E2M1 values and midpoints times 2^j, so x * m lands on them exactly.
    static const float kGrid[] = {0.0f,  0.25f, 0.5f,  0.75f, 1.0f,
                                  1.25f, 1.5f,  1.75f, 2.0f,  2.5f,
                                  3.0f,  3.5f,  4.0f,  5.0f,  6.0f};
    float mag = index % 16 == 0 ? 6.0f : kGrid[rng.below(15)];
    float v = mag * blockScale;
    return rng.below(2) ? -v : v;
  }
  if (mode == 3)
    return (2.0f * rng.unit() - 1.0f) * 0.125f;
  uint64_t kind = rng.below(100);
  if (kind < 3)
    return 0.0f;
  if (kind < 5)
    return -0.0f;
  if (mode == 2 && kind < 8) {
    static const float kSpecials[] = {INFINITY,       -INFINITY,      NAN,
                                      1e-40f,         -1e-45f,        3.0e38f,
                                      -3.4028235e38f, 1.17549435e-38f};
    return kSpecials[rng.below(8)];
  }
  float v = (2.0f * rng.unit() - 1.0f) * blockScale;
  if (kind >= 99)
    v *= 64.0f; // outlier
  return v;
}

} // namespace

extern "C" {

/// Fills `m` (row-major) with deterministic pseudo-random values from
/// `seed`. mode 0: per-16-block magnitudes from 2^-20 to 2^10, zeros,
/// negative zeros, outliers; mode 1: E2M1 rounding ties (with the tensor
/// amax forced to 2688, so S_enc = 1); mode 2: mode 0 plus +-Inf, NaN, f32
/// subnormals and values near FLT_MAX; mode 3: uniform in [-1/8, 1/8)
/// (network weights and activations).
void _mlir_ciface_nvfp4RtFill(UnrankedMemRefType<float> *m, int64_t seed,
                              int32_t mode) {
  DynamicMemRefType<float> d(*m);
  SplitMix64 rng{static_cast<uint64_t>(seed) * 0x2545F4914F6CDD1Dull + 1};
  int64_t i = 0;
  float blockScale = 1.0f;
  for (auto it = d.begin(), e = d.end(); it != e; ++it, ++i) {
    if (i % 16 == 0)
      blockScale = mode == 1
                       ? std::ldexp(1.0f, static_cast<int>(rng.below(7)) - 3)
                       : std::ldexp(1.0f, static_cast<int>(rng.below(31)) - 20);
    *it = makeValue(rng, mode, i, blockScale);
    if (mode == 1 && i == 0)
      *it = 2688.0f;
  }
}

/// Checks quantize(x) (components `data`, `scales`, `g`) against
/// nvfp4::quantize. `hadamardSigns`: -2 no RHT, -1 TE's signs, otherwise a
/// mask whose bit j set means sign j is -1. `amax` < 0 means "computed".
int64_t _mlir_ciface_nvfp4RtCheckQuantize(UnrankedMemRefType<float> *x,
                                          UnrankedMemRefType<int8_t> *data,
                                          UnrankedMemRefType<int8_t> *scales,
                                          float g, int64_t blockRows,
                                          int32_t stochastic, int64_t seed,
                                          int64_t offset, int32_t hadamardSigns,
                                          float amax) {
  Flat<float> fx = flatten(x);
  Flat<int8_t> fd = flatten(data), fs = flatten(scales);
  nvfp4::QuantizeOptions opts;
  opts.block = {static_cast<int>(blockRows), 16};
  opts.rounding =
      stochastic ? nvfp4::Rounding::Stochastic : nvfp4::Rounding::NearestEven;
  opts.seed = static_cast<uint64_t>(seed);
  opts.offset = static_cast<uint64_t>(offset);
  opts.hadamard = hadamardSigns != -2;
  opts.signs = signsFromMask(hadamardSigns);
  if (amax >= 0.0f)
    opts.amax = amax;
  nvfp4::QuantizedTensor ref;
  if (auto err =
          nvfp4::quantize(fx.values.data(), fx.rows(), fx.inner(), opts, ref)) {
    std::printf("quantize: reference error: %s\n", err->c_str());
    return -1;
  }
  int64_t count = 0;
  int64_t mismatches = compareComponents(ref, fd, fs, g, blockRows, count);
  std::printf("quantize [%s] %" PRId64 "x16 %s%s: mismatches %" PRId64
              " (of %" PRId64 ")\n",
              shapeString(fx.shape).c_str(), blockRows,
              stochastic ? "rs" : "rn", opts.hadamard ? " hadamard" : "",
              mismatches, count);
  std::fflush(stdout);
  return mismatches;
}

/// Checks dequantize(data, scales, g) == `out` (f32) bit for bit.
int64_t _mlir_ciface_nvfp4RtCheckDequantize(UnrankedMemRefType<int8_t> *data,
                                            UnrankedMemRefType<int8_t> *scales,
                                            float g, int64_t blockRows,
                                            UnrankedMemRefType<float> *out) {
  Flat<int8_t> fd = flatten(data), fs = flatten(scales);
  Flat<float> fo = flatten(out);
  nvfp4::QuantizedTensor t = makeTensor(fd, fs, g, blockRows, 0, fd.rows());
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
/// batch by batch for rank-3 operands; the accumulator is added to the
/// reference result in f32.
int64_t _mlir_ciface_nvfp4RtCheckMatmul(
    UnrankedMemRefType<int8_t> *aData, UnrankedMemRefType<int8_t> *aScales,
    float aG, int64_t aBlockRows, UnrankedMemRefType<int8_t> *bData,
    UnrankedMemRefType<int8_t> *bScales, float bG, int64_t bBlockRows,
    int32_t hasAcc, UnrankedMemRefType<float> *acc,
    UnrankedMemRefType<float> *out) {
  Flat<int8_t> ad = flatten(aData), as = flatten(aScales);
  Flat<int8_t> bd = flatten(bData), bs = flatten(bScales);
  Flat<float> fo = flatten(out);
  Flat<float> fa;
  if (hasAcc)
    fa = flatten(acc);
  const int64_t rank = static_cast<int64_t>(ad.shape.size());
  const int64_t batch = rank == 3 ? ad.shape[0] : 1;
  const int64_t m = ad.shape[rank - 2], n = bd.shape[rank - 2];
  int64_t mismatches = 0, shown = 0;
  double maxDiff = 0.0, maxRef = 0.0;
  std::vector<float> c(static_cast<size_t>(m * n));
  for (int64_t bi = 0; bi < batch; ++bi) {
    nvfp4::QuantizedTensor a = makeTensor(ad, as, aG, aBlockRows, bi * m, m);
    nvfp4::QuantizedTensor b = makeTensor(bd, bs, bG, bBlockRows, bi * n, n);
    if (auto err = nvfp4::checkMatmulOperands(a, b)) {
      std::printf("matmul: reference error: %s\n", err->c_str());
      return -1;
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
/// nvfp4RtCheckQuantize.
int64_t _mlir_ciface_nvfp4RtCheckHadamard(UnrankedMemRefType<float> *x,
                                          UnrankedMemRefType<float> *y,
                                          int32_t signMask) {
  Flat<float> fx = flatten(x), fy = flatten(y);
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
  Flat<float> fx = flatten(x);
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
/// tensor (inData, inScales), batch by batch.
int64_t
_mlir_ciface_nvfp4RtCheckTranspose(UnrankedMemRefType<int8_t> *inData,
                                   UnrankedMemRefType<int8_t> *inScales,
                                   UnrankedMemRefType<int8_t> *outData,
                                   UnrankedMemRefType<int8_t> *outScales) {
  Flat<int8_t> id = flatten(inData), is = flatten(inScales);
  Flat<int8_t> od = flatten(outData), os = flatten(outScales);
  const int64_t rank = static_cast<int64_t>(id.shape.size());
  const int64_t batch = rank == 3 ? id.shape[0] : 1;
  const int64_t m = id.shape[rank - 2];
  const int64_t k = id.shape[rank - 1];
  int64_t mismatches = 0, count = 0;
  for (int64_t bi = 0; bi < batch; ++bi) {
    nvfp4::QuantizedTensor t = makeTensor(id, is, 1.0f, 16, bi * m, m);
    nvfp4::QuantizedTensor ref = nvfp4::transpose2D(t);
    Flat<int8_t> odSlice, osSlice;
    odSlice.shape = {k, m};
    odSlice.values.assign(od.values.begin() + bi * m * k,
                          od.values.begin() + (bi + 1) * m * k);
    osSlice.shape = {k / 16, m / 16};
    osSlice.values.assign(os.values.begin() + bi * (k / 16) * (m / 16),
                          os.values.begin() + (bi + 1) * (k / 16) * (m / 16));
    int64_t c = 0;
    mismatches += compareComponents(ref, odSlice, osSlice, 1.0f, 16, c);
    count += c - 1;
  }
  std::printf("transpose [%s]: mismatches %" PRId64 " (of %" PRId64 ")\n",
              shapeString(id.shape).c_str(), mismatches, count);
  std::fflush(stdout);
  return mismatches;
}

/// Checks rescale: (out*) == quantize(dequantize(in*)) with the given
/// options (`amax` < 0: computed).
int64_t _mlir_ciface_nvfp4RtCheckRescale(
    UnrankedMemRefType<int8_t> *inData, UnrankedMemRefType<int8_t> *inScales,
    float inG, int64_t inBlockRows, UnrankedMemRefType<int8_t> *outData,
    UnrankedMemRefType<int8_t> *outScales, float outG, int64_t outBlockRows,
    int32_t stochastic, int64_t seed, int64_t offset, float amax) {
  Flat<int8_t> id = flatten(inData), is = flatten(inScales);
  Flat<int8_t> od = flatten(outData), os = flatten(outScales);
  nvfp4::QuantizedTensor t = makeTensor(id, is, inG, inBlockRows, 0, id.rows());
  std::vector<float> x(id.values.size());
  nvfp4::dequantize(t, x.data());
  nvfp4::QuantizeOptions opts;
  opts.block = {static_cast<int>(outBlockRows), 16};
  opts.rounding =
      stochastic ? nvfp4::Rounding::Stochastic : nvfp4::Rounding::NearestEven;
  opts.seed = static_cast<uint64_t>(seed);
  opts.offset = static_cast<uint64_t>(offset);
  if (amax >= 0.0f)
    opts.amax = amax;
  nvfp4::QuantizedTensor ref;
  if (auto err = nvfp4::quantize(x.data(), id.rows(), id.inner(), opts, ref)) {
    std::printf("rescale: reference error: %s\n", err->c_str());
    return -1;
  }
  int64_t count = 0;
  int64_t mismatches =
      compareComponents(ref, od, os, outG, outBlockRows, count);
  std::printf("rescale [%s] %" PRId64 "x16 -> %" PRId64
              "x16 %s: mismatches %" PRId64 " (of %" PRId64 ")\n",
              shapeString(id.shape).c_str(), inBlockRows, outBlockRows,
              stochastic ? "rs" : "rn", mismatches, count);
  std::fflush(stdout);
  return mismatches;
}

/// Prints the relative Frobenius error |actual - expected| / |expected| (in
/// double) under `label` and whether it is at most `tolerance`; returns it.
double _mlir_ciface_nvfp4RtRelativeError(UnrankedMemRefType<float> *actual,
                                         UnrankedMemRefType<float> *expected,
                                         int32_t label, double tolerance) {
  Flat<float> fa = flatten(actual), fe = flatten(expected);
  double num = 0.0, den = 0.0;
  bool finite = true;
  for (size_t i = 0; i < fe.values.size(); ++i) {
    double d = static_cast<double>(fa.values[i]) - fe.values[i];
    finite = finite && std::isfinite(fa.values[i]);
    num += d * d;
    den += static_cast<double>(fe.values[i]) * fe.values[i];
  }
  double rel = den > 0.0 ? std::sqrt(num / den) : std::sqrt(num);
  std::printf("relative error %d [%s]: %.6f (tolerance %.3f): %s\n", label,
              shapeString(fe.shape).c_str(), rel, tolerance,
              finite && rel <= tolerance ? "ok" : "FAIL");
  std::fflush(stdout);
  return rel;
}

/// Quantizes `x` with the reference library into the components `data`,
/// `scales` and returns the decode scale (1x16 or 16x16, round to nearest,
/// no RHT, `numThreads` threads): the baseline of the quantize benchmark.
float _mlir_ciface_nvfp4RtQuantizeReference(UnrankedMemRefType<float> *x,
                                            UnrankedMemRefType<int8_t> *data,
                                            UnrankedMemRefType<int8_t> *scales,
                                            int64_t blockRows,
                                            int32_t numThreads) {
  DynamicMemRefType<float> d(*x);
  const int64_t cols = d.sizes[d.rank - 1];
  int64_t numel = 1;
  for (int64_t i = 0; i < d.rank; ++i)
    numel *= d.sizes[i];
  nvfp4::QuantizeOptions opts;
  opts.block = {static_cast<int>(blockRows), 16};
  nvfp4::QuantizedTensor ref;
  // Benchmarks pass contiguous buffers: quantize in place from the data.
  if (numThreads > 1)
    nvfp4::quantizeParallel(d.data + d.offset, numel / cols, cols, opts, ref,
                            numThreads);
  else
    nvfp4::quantize(d.data + d.offset, numel / cols, cols, opts, ref);
  std::vector<int8_t> codes(static_cast<size_t>(numel));
  for (int64_t i = 0; i < numel; ++i)
    codes[i] = static_cast<int8_t>(codeAt(ref, i));
  store(data, codes);
  std::vector<int8_t> s;
  for (int64_t r = 0; r < ref.rows; r += blockRows)
    for (int64_t c = 0; c < cols / 16; ++c)
      s.push_back(static_cast<int8_t>(ref.scales[r * (cols / 16) + c]));
  store(scales, s);
  return ref.globalDecodeScale;
}

/// Fills an i64 memref with token ids uniform in [0, vocab).
void _mlir_ciface_nvfp4RtFillIds(UnrankedMemRefType<int64_t> *m, int64_t seed,
                                 int64_t vocab) {
  DynamicMemRefType<int64_t> d(*m);
  SplitMix64 rng{static_cast<uint64_t>(seed) * 0x2545F4914F6CDD1Dull + 7};
  for (auto it = d.begin(), e = d.end(); it != e; ++it)
    *it = static_cast<int64_t>(rng.below(static_cast<uint64_t>(vocab)));
}

/// Compares results across two runs of a program: with NVFP4_RT_STASH_MODE
/// = write, stores `m` in the file `$NVFP4_RT_STASH.<index>`; with
/// NVFP4_RT_STASH_MODE = compare, reads that file back as the expected
/// value and prints the relative Frobenius error, "ok" when it lies in
/// [lo, hi] and every value is finite. NVFP4_RT_STASH_BOUNDS = "lo,hi"
/// overrides the bounds the program passes (one program, several
/// comparisons). Returns the error (0 when writing).
double _mlir_ciface_nvfp4RtStash(UnrankedMemRefType<float> *m, int32_t index,
                                 double lo, double hi) {
  const char *base = std::getenv("NVFP4_RT_STASH");
  const char *mode = std::getenv("NVFP4_RT_STASH_MODE");
  if (!base || !mode) {
    std::printf("stash %d: NVFP4_RT_STASH / NVFP4_RT_STASH_MODE not set\n",
                index);
    return -1.0;
  }
  std::string path = std::string(base) + "." + std::to_string(index);
  if (const char *bounds = std::getenv("NVFP4_RT_STASH_BOUNDS"))
    std::sscanf(bounds, "%lf,%lf", &lo, &hi);
  Flat<float> f = flatten(m);
  if (std::string(mode) == "write") {
    FILE *file = std::fopen(path.c_str(), "wb");
    if (!file)
      return -1.0;
    std::fwrite(f.values.data(), sizeof(float), f.values.size(), file);
    std::fclose(file);
    std::printf("stash %d [%s]: written\n", index,
                shapeString(f.shape).c_str());
    std::fflush(stdout);
    return 0.0;
  }
  std::vector<float> expected(f.values.size());
  FILE *file = std::fopen(path.c_str(), "rb");
  size_t got =
      file ? std::fread(expected.data(), sizeof(float), expected.size(), file)
           : 0;
  if (file)
    std::fclose(file);
  if (got != expected.size()) {
    std::printf("stash %d: cannot read %s\n", index, path.c_str());
    return -1.0;
  }
  double num = 0.0, den = 0.0;
  bool finite = true;
  for (size_t i = 0; i < expected.size(); ++i) {
    double d = static_cast<double>(f.values[i]) - expected[i];
    finite = finite && std::isfinite(f.values[i]);
    num += d * d;
    den += static_cast<double>(expected[i]) * expected[i];
  }
  double rel = den > 0.0 ? std::sqrt(num / den) : std::sqrt(num);
  std::printf("stash %d [%s]: relative error %.2e (bounds [%.1e, %.1e]): %s\n",
              index, shapeString(f.shape).c_str(), rel, lo, hi,
              finite && rel >= lo && rel <= hi ? "ok" : "FAIL");
  std::fflush(stdout);
  return rel;
}

/// Wall-clock seconds (monotonic), for timing inside a lowered program.
double nvfp4RtNow() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // extern "C"
