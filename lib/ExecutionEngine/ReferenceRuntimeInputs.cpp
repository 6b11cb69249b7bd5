//===- ReferenceRuntimeInputs.cpp - Test data and result comparison -------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The part of libnvfp4_reference_runtime that feeds and measures a lowered
// program rather than checking one op: deterministic test data
// (nvfp4RtFill, nvfp4RtFillIds), the relative error of a result against an
// expected one, in the same run (nvfp4RtRelativeError) or across two runs
// (nvfp4RtStash), and a clock (nvfp4RtNow). Invalid arguments are reported
// as in ReferenceRuntime.cpp.
//
//===----------------------------------------------------------------------===//

#include "MemRefArguments.h"
#include "ReferenceRuntimeErrors.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

using namespace nvfp4::runtime;
using namespace nvfp4::runtime::reference;

namespace {

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

/// The relative Frobenius error |actual - expected| / |expected| in double
/// (the absolute one when `expected` is zero); `finite` tells whether every
/// value of `actual` is finite. The vectors have the same size.
double relativeError(const std::vector<float> &actual,
                     const std::vector<float> &expected, bool &finite) {
  double num = 0.0, den = 0.0;
  finite = true;
  for (size_t i = 0; i < expected.size(); ++i) {
    double d = static_cast<double>(actual[i]) - expected[i];
    finite = finite && std::isfinite(actual[i]);
    num += d * d;
    den += static_cast<double>(expected[i]) * expected[i];
  }
  return den > 0.0 ? std::sqrt(num / den) : std::sqrt(num);
}

} // namespace

extern "C" {

/// Fills `m` (row-major) with deterministic pseudo-random values from
/// `seed`. mode 0: per-16-block magnitudes from 2^-20 to 2^10, zeros,
/// negative zeros, outliers; mode 1: E2M1 rounding ties (with the tensor
/// amax forced to 2688, so S_enc = 1); mode 2: mode 0 plus +-Inf, NaN, f32
/// subnormals and values near FLT_MAX; mode 3: uniform in [-1/8, 1/8)
/// (network weights and activations). An invalid descriptor ends the
/// process.
void _mlir_ciface_nvfp4RtFill(UnrankedMemRefType<float> *m, int64_t seed,
                              int32_t mode) {
  const char *entry = "nvfp4RtFill";
  View<float> v;
  if (auto err = viewOf("m", m, v))
    failInvalid(entry, *err);
  SplitMix64 rng{static_cast<uint64_t>(seed) * 0x2545F4914F6CDD1Dull + 1};
  int64_t i = 0;
  float blockScale = 1.0f;
  forEachOffset(v, [&](int64_t offset) {
    if (i % 16 == 0)
      blockScale = mode == 1
                       ? std::ldexp(1.0f, static_cast<int>(rng.below(7)) - 3)
                       : std::ldexp(1.0f, static_cast<int>(rng.below(31)) - 20);
    float value = makeValue(rng, mode, i, blockScale);
    if (mode == 1 && i == 0)
      value = 2688.0f;
    v.data[offset] = value;
    ++i;
  });
}

/// Prints the relative Frobenius error |actual - expected| / |expected| (in
/// double) under `label` and whether it is at most `tolerance`; returns it.
/// `actual` must have the shape of `expected`; otherwise prints FAIL and
/// returns NaN.
double _mlir_ciface_nvfp4RtRelativeError(UnrankedMemRefType<float> *actual,
                                         UnrankedMemRefType<float> *expected,
                                         int32_t label, double tolerance) {
  const char *entry = "nvfp4RtRelativeError";
  Flat<float> fa, fe;
  std::optional<std::string> err = flatten("actual", actual, fa);
  if (!err)
    err = flatten("expected", expected, fe);
  if (!err)
    err = expectShape("actual", fa.shape, fe.shape, "(the shape of expected)");
  if (err) {
    reportInvalid(entry, *err);
    std::printf("relative error %d: invalid arguments: FAIL\n", label);
    std::fflush(stdout);
    return std::numeric_limits<double>::quiet_NaN();
  }
  bool finite;
  double rel = relativeError(fa.values, fe.values, finite);
  std::printf("relative error %d [%s]: %.6f (tolerance %.3f): %s\n", label,
              shapeString(fe.shape).c_str(), rel, tolerance,
              finite && rel <= tolerance ? "ok" : "FAIL");
  std::fflush(stdout);
  return rel;
}

/// Fills an i64 memref with token ids uniform in [0, vocab). `vocab` must be
/// positive; an invalid call ends the process.
void _mlir_ciface_nvfp4RtFillIds(UnrankedMemRefType<int64_t> *m, int64_t seed,
                                 int64_t vocab) {
  const char *entry = "nvfp4RtFillIds";
  View<int64_t> v;
  if (auto err = viewOf("m", m, v))
    failInvalid(entry, *err);
  if (vocab <= 0)
    failInvalid(entry, "vocab = " + std::to_string(vocab) +
                           ", expected a positive vocabulary size");
  SplitMix64 rng{static_cast<uint64_t>(seed) * 0x2545F4914F6CDD1Dull + 7};
  forEachOffset(v, [&](int64_t offset) {
    v.data[offset] =
        static_cast<int64_t>(rng.below(static_cast<uint64_t>(vocab)));
  });
}

/// Compares results across two runs of a program: with NVFP4_RT_STASH_MODE
/// = write, stores `m` in the file `$NVFP4_RT_STASH.<index>`; with
/// NVFP4_RT_STASH_MODE = compare, reads that file back as the expected
/// value and prints the relative Frobenius error, "ok" when it lies in
/// [lo, hi] and every value is finite. NVFP4_RT_STASH_BOUNDS = "lo,hi"
/// overrides the bounds the program passes (one program, several
/// comparisons). Returns the error (0 when writing; -1 on failure, an
/// invalid descriptor included).
double _mlir_ciface_nvfp4RtStash(UnrankedMemRefType<float> *m, int32_t index,
                                 double lo, double hi) {
  const char *entry = "nvfp4RtStash";
  Flat<float> f;
  if (auto err = flatten("m", m, f)) {
    reportInvalid(entry, *err);
    return -1.0;
  }
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
  bool finite;
  double rel = relativeError(f.values, expected, finite);
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
